"""AGENT_SANDBOX=bwrap's network: the real jail reaches, of this machine's loopback,
only Crosstalk's own port and AGENT_NET_ALLOW's (IPv4 and IPv6), never PostgreSQL or
Redis, and resolves names also when the host's resolver is on loopback."""

import secrets
import socket
import threading
from pathlib import Path

import pytest

from agents import network
from tests.agents.jail import in_jail, jail_argv, needs_jail, needs_root, nobodys_folder, run

pytestmark = needs_jail


class Listener:
    """A throwaway loopback server: each connection gets GREETING, then is closed."""

    GREETING = "hello from the host"

    def __init__(self, host: str):
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        self.socket.bind((host, 0))
        self.socket.listen()
        self.port = self.socket.getsockname()[1]
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            with connection:
                connection.sendall(self.GREETING.encode() + b"\n")

    def close(self) -> None:
        self.socket.close()


@pytest.fixture
def listeners():
    made: list[Listener] = []

    def listen(host: str) -> Listener:
        made.append(Listener(host))
        return made[-1]

    yield listen
    for listener in made:
        listener.close()


def greeting(host: str, port: int) -> str:
    """A bash line printing what HOST:PORT says first (IPv6 as well), or `silent`."""
    return (
        f"(exec 3<>/dev/tcp/{host}/{port} && timeout 5 head -n 1 <&3) 2>/dev/null"
        f" | grep . || echo silent {host} {port}"
    )


def connects(host: str, port: int) -> str:
    """A bash line printing whether a connection to HOST:PORT is accepted."""
    return (
        f"(exec 3<>/dev/tcp/{host}/{port}) 2>/dev/null"
        f" && echo open {host} {port} || echo refused {host} {port}"
    )


@pytest.fixture(params=["by the server's user", pytest.param("by nobody", marks=needs_root)])
def started(request, tmp_path):
    """(a working folder, whether nobody starts the jail): as a server run as root and
    as one run as an unprivileged user (when this test runs as root)."""
    if request.param == "by nobody":
        with nobodys_folder() as folder:
            yield folder, True
    else:
        yield tmp_path, False


def said_in_jail(started: tuple[Path, bool], lines: list[str]) -> list[str]:
    folder, nobody = started
    return in_jail("; ".join(lines), folder, nobody=nobody).splitlines()


def test_it_reaches_crosstalk_and_the_allowed_ports_and_no_other_loopback_service(
    started, settings, listeners
):
    own, allowed, allowed6 = listeners("127.0.0.1"), listeners("127.0.0.1"), listeners("::1")
    other, other6 = listeners("127.0.0.1"), listeners("::1")
    settings.CROSSTALK_URL = f"http://127.0.0.1:{own.port}"
    settings.AGENT_NET_ALLOW = [("127.0.0.1", allowed.port), ("::1", allowed6.port)]
    places = [("127.0.0.1", own.port), ("127.0.0.1", allowed.port), ("::1", allowed6.port)]
    closed = [("127.0.0.1", other.port), ("::1", other6.port), ("127.0.0.2", other.port)]

    said = said_in_jail(
        started, [greeting(*place) for place in places] + [connects(*place) for place in closed]
    )

    assert said[:3] == [Listener.GREETING] * 3, said
    assert said[3:] == [f"refused {host} {port}" for host, port in closed], said


def host_answers(host: str, port: int) -> bool:
    try:
        socket.create_connection((host, port), timeout=2).close()
    except OSError:
        return False
    return True


@pytest.mark.parametrize(("service", "port"), [("PostgreSQL", 5432), ("Redis", 6379)])
def test_it_keeps_the_servers_database_and_redis_out_of_reach(service, port, started):
    running = [host for host in ("127.0.0.1", "::1") if host_answers(host, port)]
    if not running:
        pytest.skip(f"{service} does not listen on loopback port {port} here")

    said = said_in_jail(started, [connects(host, port) for host in ("127.0.0.1", "::1")])

    assert said == [f"refused {host} {port}" for host in ("127.0.0.1", "::1")], said


# `name PATH`: prints PATH's handle; `open FOLDER KIND HEX`: opens that handle through
# FOLDER's mount and prints what it reads, or `refused: …`.


class LoopbackResolver:
    """A DNS server on a loopback address (like systemd-resolved's 127.0.0.53, which a
    machine may already use, as may another run of this test) that answers every A
    question with ADDRESS, and others with no record."""

    ADDRESS = "192.0.2.123"

    def __init__(self):
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.host = f"127.{secrets.randbelow(250) + 1}.{secrets.randbelow(250) + 1}.53"
        self.socket.bind((self.host, 53))
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        while True:
            try:
                query, client = self.socket.recvfrom(512)
            except OSError:
                return
            self.socket.sendto(self.answer(query), client)

    def answer(self, query: bytes) -> bytes:
        end = query.index(b"\0", 12) + 5  # the question: its name, type and class
        is_a = query[end - 4 : end - 2] == b"\0\1"
        header = query[:2] + b"\x81\x80\0\1" + (b"\0\1" if is_a else b"\0\0") + b"\0\0\0\0"
        record = b"\xc0\x0c\0\1\0\1\0\0\0\x3c\0\4" + socket.inet_aton(self.ADDRESS)
        return header + query[12:end] + (record if is_a else b"")

    def close(self) -> None:
        self.socket.close()


@needs_root
def test_it_resolves_names_when_the_hosts_resolver_is_on_loopback(tmp_path, monkeypatch):
    """pasta and the jail see a resolv.conf naming a loopback resolver (a mount namespace
    of their own): the jail gets one naming pasta's forward, which reaches the resolver."""
    resolver = LoopbackResolver()
    host_conf = tmp_path / "resolv.conf"
    host_conf.write_text(f"nameserver {resolver.host}\noptions edns0\nsearch example.test\n")
    monkeypatch.setattr(network, "HOST_RESOLV_CONF", host_conf)
    try:
        command = "cat /etc/resolv.conf; getent ahostsv4 crosstalk.example.test | head -n 1"
        mounted = 'mount --bind "$0" /etc/resolv.conf && exec "$@"'
        argv = ["unshare", "-m", "--", "sh", "-c", mounted, str(host_conf)]
        done = run([*argv, *jail_argv(command, tmp_path)], tmp_path)
    finally:
        resolver.close()

    conf, resolved = done.stdout.split("\n")[:3], done.stdout.splitlines()[-1:]
    assert conf == [f"nameserver {network.DNS_FORWARD}", "options edns0", "search example.test"]
    assert resolved and resolved[0].split()[0] == LoopbackResolver.ADDRESS, done


@pytest.mark.parametrize(
    ("host_conf", "jail_conf"),
    [
        ("nameserver 10.0.0.2\nsearch lan\n", None),
        ("nameserver ::1\nnameserver 10.0.0.2\n", f"nameserver {network.DNS_FORWARD}\n"),
        ("nameserver\ndomain lan\n", None),
    ],
)
def test_it_gives_the_jail_a_resolv_conf_only_for_a_loopback_resolver(
    host_conf, jail_conf, tmp_path, monkeypatch
):
    (tmp_path / "resolv.conf").write_text(host_conf)
    monkeypatch.setattr(network, "HOST_RESOLV_CONF", tmp_path / "resolv.conf")

    assert network.jail_resolv_conf() == jail_conf
