"""Where the server may send an origin's answers. A person sets the callback and API
addresses; on a server several people share, they must not make it POST to what only the
server can reach (its database, Redis, a cloud metadata service, another person's local
receiver). Unless ORIGIN_PRIVATE_URLS is on (one person's own machine, or receivers on the
same private network), every address the host resolves to must be a public one."""

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings

LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}


def is_public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1 is 127.0.0.1
    return (mapped or address).is_global


def private_words(host: str, address: str) -> str:
    return (
        f"{host} is a private address ({address}); answers go only to public addresses "
        "unless the server's admin sets ORIGIN_PRIVATE_URLS=1."
    )


def why_address_refused(url: str) -> str | None:
    """Set-up time, without asking DNS: a literal private address or a local name."""
    if settings.ORIGIN_PRIVATE_URLS or not url:
        return None
    host = (urlsplit(url).hostname or "").lower()
    if host in LOCAL_NAMES or host.endswith(".localhost"):
        return private_words(host, host)
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None  # a name: checked against what it resolves to when an answer is sent
    return None if is_public(address) else private_words(host, str(address))


def check_sendable(url: str) -> None:
    """Send time: every address the host resolves to now is public (raises for the retry
    loop, whose last error the person sees)."""
    if settings.ORIGIN_PRIVATE_URLS:
        return
    parts = urlsplit(url)
    host = parts.hostname or ""
    if problem := why_address_refused(url):
        raise RuntimeError(problem)
    try:
        found = socket.getaddrinfo(host, parts.port or 443, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise RuntimeError(f"{host} does not resolve") from None
    for *_, sockaddr in found:
        address = ipaddress.ip_address(sockaddr[0].split("%", 1)[0])
        if not is_public(address):
            raise RuntimeError(private_words(host, str(address)))
