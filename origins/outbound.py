"""Where the server may send an origin's answers, and the one HTTP client that sends them.

A person sets the callback and API addresses; on a server several people share, they must
not make it POST to what only the server can reach (its database, Redis, a cloud metadata
service, another person's local receiver). Unless ORIGIN_PRIVATE_URLS is on (one person's
own machine, or receivers on the same private network), every address a host resolves to
must be a public one, and the connection goes to the very address that was checked: the
name is resolved once per connection (a second answer, "rebinding" to 127.0.0.1, is never
asked for), redirects are never followed, and no proxy from the environment is used. The
Host header, TLS SNI and the certificate check keep the name."""

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpcore
import httpx
from django.conf import settings

LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
NAT64 = ipaddress.ip_network("64:ff9b::/96")  # the well-known prefix: a v4 address inside
# Never public, whatever Python's is_global says of them: IPv4-compatible (::a.b.c.d),
# local-use NAT64, 6to4 and Teredo (both tunnel to any v4 address), site-local, ULA,
# link-local and multicast.
NEVER_PUBLIC_V6 = [
    ipaddress.ip_network(net)
    for net in (
        "::/96",
        "64:ff9b:1::/48",
        "2002::/16",
        "2001::/32",
        "fec0::/10",
        "fc00::/7",
        "fe80::/10",
        "ff00::/8",
    )
]


class OutboundRefused(RuntimeError):
    """An answer not sent: a private address, a name that does not resolve, a redirect."""


def embedded_v4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The v4 address a v6 one reaches: ::ffff:a.b.c.d, or 64:ff9b::a.b.c.d (NAT64)."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def is_public(address: Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address):
        if (inner := embedded_v4(address)) is not None:
            return is_public(inner)
        if any(address in net for net in NEVER_PUBLIC_V6):
            return False
    flags = (
        address.is_private,
        address.is_loopback,
        address.is_link_local,
        address.is_unspecified,
        address.is_multicast,
        address.is_reserved,
    )
    return address.is_global and not any(flags)


def private_words(host: str, address: str) -> str:
    return (
        f"{host} is a private address ({address}); answers go only to public addresses "
        "unless the server's admin sets ORIGIN_PRIVATE_URLS=1."
    )


def why_address_refused(url: str) -> str | None:
    """Set-up time, without asking DNS: a literal private address or a local name."""
    if settings.ORIGIN_PRIVATE_URLS or not url:
        return None
    return why_host_refused((urlsplit(url).hostname or "").lower())


def why_host_refused(host: str) -> str | None:
    if host in LOCAL_NAMES or host.endswith(".localhost"):
        return private_words(host, host)
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None  # a name: checked against what it resolves to when an answer is sent
    return None if is_public(address) else private_words(host, str(address))


def system_resolve(host: str, port: int) -> list[str]:
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [sockaddr[0] for *_, sockaddr in found]


@dataclass
class Network:
    """How names are resolved and addresses dialled. Production: the system's resolver, and
    each checked address dialled as it is. Tests replace `outbound.network` with a stub
    resolver and `routes` that dial a checked (public) address's port on a local server."""

    resolve: Callable[[str, int], list[str]] = system_resolve
    routes: dict[tuple[str, int], tuple[str, int]] = field(default_factory=dict)

    def dial_target(self, address: str, port: int) -> tuple[str, int]:
        return self.routes.get((address, port), (address, port))


network = Network()


def checked_addresses(host: str, port: int) -> list[str]:
    """What `host` resolves to now, once; refused unless every address is public."""
    try:
        found = network.resolve(host, port)
    except (OSError, UnicodeError):
        raise OutboundRefused(f"{host} does not resolve") from None
    addresses = [raw.split("%", 1)[0] for raw in found]
    if not addresses:
        raise OutboundRefused(f"{host} does not resolve")
    if not settings.ORIGIN_PRIVATE_URLS:
        for raw in addresses:
            if not is_public(ipaddress.ip_address(raw)):
                raise OutboundRefused(private_words(host, raw))
    return list(dict.fromkeys(addresses))


class PinnedBackend(httpcore.SyncBackend):
    """httpcore's network: connects to an address checked for this very connection."""

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        failure: Exception | None = None
        for address in checked_addresses(host, port):
            target, target_port = network.dial_target(address, port)
            try:
                return super().connect_tcp(
                    target, target_port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as error:
                failure = error
        raise failure or OutboundRefused(f"{host} does not resolve")


class PinnedTransport(httpx.HTTPTransport):
    """httpx's transport over PinnedBackend, refusing every redirect as a failed attempt."""

    def __init__(self) -> None:
        tls = httpx.create_ssl_context(trust_env=False)
        super().__init__(verify=tls, trust_env=False)
        # httpx has no parameter for a network backend: its pool is rebuilt with ours.
        self._pool = httpcore.ConnectionPool(ssl_context=tls, network_backend=PinnedBackend())

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if 300 <= response.status_code < 400:
            response.close()
            where = response.headers.get("location", "")[:100]
            raise OutboundRefused(
                f"{request.url.host} answered {response.status_code}, a redirect"
                + (f" to {where}" if where else "")
                + ", which is not followed: give the address that answers itself."
            )
        return response


def client_options() -> dict:
    """What every outbound httpx client of origins is built with (githubkit's too)."""
    return {"transport": PinnedTransport(), "follow_redirects": False, "trust_env": False}


def outbound_client(timeout: float) -> httpx.Client:
    return httpx.Client(timeout=timeout, **client_options())
