"""Start a bubblewrap jail in a network namespace of its own and give it pasta's network.

    python -I -S join_network.py [--port N]… [--resolv-conf TEXT] PASTA_ARGV… --jail BWRAP_ARGV…

bwrap makes the jail's user and network namespaces (--unshare-user --unshare-net) and
holds its program (--block-fd) until pasta has joined them (--netns from the jail's
pid, told on --info-fd; --userns the one owning that network, once mapped), configured
the interface and bound each --port on the jail's loopback; then the program runs. This
works as root and as an unprivileged user, which pasta spawning bwrap does not (as root
pasta cannot map uid 0 in its namespace).

Run by the server (agents.network) as the hosted turn's process, under the reaper on
Linux (agents/reaper.py), in the turn's process group: a stop ends them all (this
process, bwrap, pasta); bwrap dies with this process
(--die-with-parent), pasta too (PASTA_ARGV starts with `setpriv --pdeathsig KILL`), and
the jail with bwrap. It imports only os, sys, time and fcntl: Python's start is most of its
cost (subprocess, json, signal and ctypes would add some 50 ms on a busy machine)."""

import fcntl
import os
import sys
import time

READY_SECONDS = 10
POLL_SECONDS = 0.002
LISTEN = "0A"
NS_GET_USERNS = 0xB701  # ioctl_ns(2): _IO(0xb7, 0x1)
SIGKILL = 9
# Python ignores SIGPIPE and SIGXFSZ; its children get them back at their defaults
# (pasta will not start with SIGPIPE ignored, and the agent must not inherit it).
PYTHONS_OWN = (13, 25)
# bwrap ran, but could not start the jail's program: the shell's "cannot execute".
NOT_STARTED = 125


def parse(argv: list[str]) -> tuple[list[int], str | None, list[str], list[str]]:
    """(ports, resolv.conf text, pasta's argv, bwrap's argv)."""
    ports, resolv, at = [], None, 0
    while argv[at] in {"--port", "--resolv-conf"}:
        if argv[at] == "--port":
            ports.append(int(argv[at + 1]))
        else:
            resolv = argv[at + 1]
        at += 2
    split = argv.index("--jail")
    return ports, resolv, argv[at:split], argv[split + 1 :]


def with_options(bwrap: list[str], options: list[str]) -> list[str]:
    """bwrap's argv with these options last, before the `--` that ends its own."""
    end = bwrap.index("--")
    return [*bwrap[:end], *options, *bwrap[end:]]


def data_fd(text: str) -> int:
    """A pipe's read end holding `text` (small: it fits the pipe's buffer)."""
    read, write = os.pipe()
    os.write(write, text.encode())
    os.close(write)
    return read


def spawn(argv: list[str], passed: list[int] = (), *, alone: bool = False) -> int:
    """Start argv with these fds (all others are close-on-exec); its pid. `alone`: not
    with the turn's stdin and stdout (pasta, which must not hold the agent's pipes)."""
    for fd in passed:
        os.set_inheritable(fd, True)
    quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1)]
    return os.posix_spawnp(
        argv[0], argv, os.environ, file_actions=quiet if alone else (), setsigdef=PYTHONS_OWN
    )


def child_pid(info: int) -> int:
    """The jail's pid, from the JSON bwrap writes on --info-fd (`"child-pid": N`)."""
    text = b""
    while b"}" not in text:
        chunk = os.read(info, 4096)
        if not chunk:
            raise OSError("bwrap ended before it told the jail's pid")
        text += chunk
    return int(text.split(b'"child-pid":')[1].split(b",")[0].split(b"}")[0])


def listening(pid: int) -> set[int]:
    ports = set()
    for table in ("tcp", "tcp6"):
        with open(f"/proc/{pid}/net/{table}") as file:
            for line in file.readlines()[1:]:
                fields = line.split()
                if fields[3] == LISTEN:
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def routed(pid: int) -> bool:
    """pasta gave the namespace a route out (IPv4 or IPv6)."""
    with open(f"/proc/{pid}/net/route") as v4, open(f"/proc/{pid}/net/ipv6_route") as v6:
        return len(v4.readlines()) > 1 or any(not line.endswith(" lo\n") for line in v6)


def ended(pid: int) -> int | None:
    """Its exit code if it ended (reaped now), else None."""
    done, status = os.waitpid(pid, os.WNOHANG)
    return os.waitstatus_to_exitcode(status) if done else None


def has_network(pid: int, ports: list[int]) -> bool:
    return routed(pid) and set(ports) <= listening(pid)


def network_owner(pid: int) -> int:
    """An fd of the user namespace that owns the jail's network namespace: the one pasta
    must join. Not /proc/PID/ns/user: for an unprivileged user bwrap nests a second user
    namespace (to mount /dev's devpts), and a pasta that joined that one may not enter
    the network namespace."""
    netns = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    try:
        return fcntl.ioctl(netns, NS_GET_USERNS)
    finally:
        os.close(netns)


def mapped(pid: int) -> bool:
    with open(f"/proc/{pid}/uid_map") as users, open(f"/proc/{pid}/gid_map") as groups:
        return bool(users.read().strip() and groups.read().strip())


def wait_for(check, what: str, watched: dict[str, int]) -> None:
    """Until check() holds; OSError if one of the watched processes ends first."""
    deadline = time.monotonic() + READY_SECONDS
    while True:
        for name, pid in watched.items():
            if (code := ended(pid)) is not None:
                raise OSError(f"{name} ended ({code}) before {what}")
        if time.monotonic() > deadline:
            raise OSError(f"still not {what} after {READY_SECONDS} s")
        try:
            if check():
                return
        except (FileNotFoundError, ProcessLookupError):
            pass  # the jail is ending: asked again, ended() says so
        time.sleep(POLL_SECONDS)


def start_jail(bwrap: list[str], resolv: str | None) -> tuple[int, int, int]:
    """bwrap started, its program held: (bwrap's pid, the jail's, the fd releasing it)."""
    info_read, info_write = os.pipe()
    block_read, block_write = os.pipe()
    passed = [info_write, block_read]
    options = ["--info-fd", str(info_write), "--block-fd", str(block_read)]
    if resolv is not None:
        passed.append(data_fd(resolv))
        options += ["--ro-bind-data", str(passed[-1]), "/etc/resolv.conf"]
    jail = spawn(with_options(bwrap, options), passed)
    for fd in passed:
        os.close(fd)
    try:
        return jail, child_pid(info_read), block_write
    finally:
        os.close(info_read)


def abandon(held: int | None, *started: int | None) -> None:
    """End a jail that never got its network. Its held program first: bwrap's
    --die-with-parent is not armed yet, and as this process ends the release fd
    closes, which would let the program run."""
    for pid in (held, *started):
        if pid is not None:
            try:
                os.kill(pid, SIGKILL)  # the jail's pid 1 first: its PID namespace ends
            except ProcessLookupError:
                continue
    for pid in started:
        if pid is not None:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                continue  # reaped already, by ended()


def main(argv: list[str]) -> int:
    ports, resolv, pasta_argv, bwrap = parse(argv)
    jail = pasta = held = None
    try:
        jail, held, release = start_jail(bwrap, resolv)
        # bwrap's child maps its user namespace (uids, then gids) just after bwrap tells
        # its pid: pasta can join it only once both are mapped.
        wait_for(lambda: mapped(held), "the jail's user namespace was mapped", {"bwrap": jail})
        owner = network_owner(held)
        namespaces = ["--netns", f"/proc/{held}/ns/net", "--userns", f"/proc/self/fd/{owner}"]
        # As root pasta would drop to nobody, who may not join root's namespaces.
        namespaces += ["--runas", f"{os.getuid()}:{os.getgid()}"]
        pasta = spawn([*pasta_argv, *namespaces], [owner], alone=True)
        os.close(owner)
        ready = {"bwrap": jail, "pasta": pasta}
        wait_for(lambda: has_network(held, ports), "the jail had its network", ready)
    except OSError as error:
        abandon(held, jail, pasta)
        print(f"crosstalk: the jail could not start: {error}", file=sys.stderr)
        return NOT_STARTED
    os.write(release, b"go")
    os.close(release)
    code = os.waitstatus_to_exitcode(os.waitpid(jail, 0)[1])
    os.kill(pasta, SIGKILL)  # not waited for: it dies with this process all the same
    # Killed by a signal: the shell's way of saying so.
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
