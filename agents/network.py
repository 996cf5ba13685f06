"""AGENT_SANDBOX=bwrap: the jail's network, made by pasta (Debian's `passt`).

The jail has a network namespace of its own (bwrap --unshare-net) that pasta connects
to the outside: the agent reaches outside addresses (its model provider) as the server
would, but the host's loopback is not mapped (--no-map-gw), no port of the jail is
reachable from outside (-t none, -u none), and of the host's loopback only Crosstalk's
own port (CROSSTALK_URL's, when it is on loopback) and the ports AGENT_NET_ALLOW names
are forwarded (-T), from the jail's loopback to the host's. The database, Redis and any
other local service stay out of reach.

DNS: when the host's resolver is on loopback (systemd-resolved's 127.0.0.53), the jail
gets a resolv.conf of its own naming DNS_FORWARD, which pasta forwards to that resolver."""

import ipaddress
import shutil
import sys
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings

from agents import sandbox

LAUNCHER = Path(__file__).with_name("join_network.py")
HOST_RESOLV_CONF = Path("/etc/resolv.conf")
# The jail's resolver when the host's is on loopback: an address routed out through
# pasta, which answers it from the host's first resolver (--dns-forward).
DNS_FORWARD = "169.254.1.53"
LOOPBACK_NAMES = {"localhost", "localhost.localdomain"}
DEFAULT_PORTS = {"http": 80, "https": 443}


def pasta() -> str | None:
    return shutil.which("pasta")


def is_loopback(host: str) -> bool:
    try:
        return host.lower() in LOOPBACK_NAMES or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def own_port() -> int | None:
    """Crosstalk's port when CROSSTALK_URL is on loopback (else it is an outside address)."""
    url = urlsplit(settings.CROSSTALK_URL)
    if not url.hostname or not is_loopback(url.hostname):
        return None
    return url.port or DEFAULT_PORTS.get(url.scheme)


def forwarded_ports() -> list[int]:
    """The host's loopback ports the jail reaches: Crosstalk's own and AGENT_NET_ALLOW's."""
    ports = {port for _host, port in settings.AGENT_NET_ALLOW}
    if (own := own_port()) is not None:
        ports.add(own)
    return sorted(ports)


def jail_resolv_conf() -> str | None:
    """The jail's own resolv.conf when the host's names a loopback resolver, else None
    (the host's, bound read-only, names resolvers the jail reaches as outside addresses)."""
    try:
        lines = HOST_RESOLV_CONF.read_text().splitlines()
    except OSError:
        return None
    words = [line.split() for line in lines]
    servers = [said[1] for said in words if said[:1] == ["nameserver"] and len(said) > 1]
    if not any(is_loopback(server.split("%")[0]) for server in servers):
        return None
    kept = [line for line in lines if line.split()[:1] in (["search"], ["domain"], ["options"])]
    return "\n".join([f"nameserver {DNS_FORWARD}", *kept]) + "\n"


def pasta_argv(ports: list[int], resolv: str | None) -> list[str]:
    # pasta dies with its launcher, whatever kills it (util-linux's setpriv).
    argv = [shutil.which("setpriv") or "setpriv", "--pdeathsig", "KILL", "--"]
    argv += [pasta() or "pasta", "--config-net", "--foreground", "--quiet", "--no-map-gw"]
    # Nothing in from outside; of the host's loopback only these TCP ports, no UDP.
    argv += ["-t", "none", "-u", "none", "-U", "none", "-T", ",".join(map(str, ports)) or "none"]
    return [*argv, "--dns-forward", DNS_FORWARD] if resolv is not None else argv


def networked(bwrap_argv: list[str]) -> list[str]:
    """The jail's argv (bwrap --unshare-net …) run by the launcher that gives it pasta."""
    ports, resolv = forwarded_ports(), jail_resolv_conf()
    argv = [sys.executable, "-I", "-S", str(LAUNCHER)]
    for port in ports:
        argv += ["--port", str(port)]
    if resolv is not None:
        argv += ["--resolv-conf", resolv]
    return [*argv, *pasta_argv(ports, resolv), "--jail", *bwrap_argv]


def jailed(argv: list[str], *, cwd: str, writable: list[Path], path: str | None) -> list[str]:
    """A hosted agent's whole argv under AGENT_SANDBOX=bwrap: the jail and its network."""
    return networked(sandbox.jailed(argv, cwd=cwd, writable=writable, path=path))
