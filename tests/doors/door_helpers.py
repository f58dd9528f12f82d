"""What the SSH and web door tests share: the stand-in client and polling for the end of a process."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

STANDIN = str(Path(__file__).with_name("ssh_standin.py"))
TIMEOUT = 10.0


def standin(*extra: str) -> Callable[[str, str], Sequence[str]]:
    """The client command that runs ssh_standin.py (it reports what it was given)."""

    def command(address: str, name: str) -> list[str]:
        return [sys.executable, STANDIN, address, "--name", name, *extra]

    return command


def field(line: str, name: str) -> str:
    """``name=value`` out of one of the stand-in's report lines."""
    return next(part.split("=", 1)[1] for part in line.split() if part.startswith(f"{name}="))


# What a door's client may get of the environment (rummy/doors/client_env.py).
CLEAN_ENV = {"PATH", "PYTHONPATH", "TZ", "LANG", "LC_ALL", "LC_CTYPE", "COLORTERM", "NO_COLOR", "TERM"} | {
    "HOME",
    "RUMMY_STATE_DIR",
}


def env_of(line: str) -> dict[str, str]:
    """The environment out of the stand-in's ``ENV`` line."""
    return {k: bytes.fromhex(v).decode() for k, v in (item.split("=", 1) for item in line.split()[1:])}


def host_secrets(monkeypatch: Any) -> None:
    """Put what a host's environment may hold, and a client must never see, in ours."""
    monkeypatch.setenv("SSH_AUTH_SOCK", "/tmp/ssh-host/agent.1")
    monkeypatch.setenv("RUMMY_HOST_SECRET", "hunter2")
    monkeypatch.setenv("XDG_CONFIG_HOME", "/root/.config")


def process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # succeeds for a zombie too: gone means reaped
    except ProcessLookupError:
        return True
    return False


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (Linux /proc)."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (int(p) for p in (task / "children").read_text().split()):
                found += [child, *descendants(child)]
    return found


def on_a_pty(pid: int) -> bool:
    with contextlib.suppress(OSError):
        return os.readlink(f"/proc/{pid}/fd/0").startswith("/dev/pts/")
    return False


def client_pids(server_pid: int) -> list[int]:
    """The players' clients a door of the server at ``server_pid`` runs: the processes
    below it on a terminal of their own (its pre-imported parent and the bots' worker
    have none)."""
    return [pid for pid in descendants(server_pid) if on_a_pty(pid)]


def open_fds() -> dict[int, str]:
    """This process's open descriptors and what each one is ("socket:[inode]", the pty's
    "/dev/ptmx", "anon_inode:[pidfd]"), from Linux's /proc (the doors need Linux: pidfds)."""
    fds: dict[int, str] = {}
    for name in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # the listing's own, closed by now
            fds[int(name)] = os.readlink(f"/proc/self/fd/{name}")
    return fds


def opened_since(before: dict[int, str]) -> dict[int, str]:
    """The descriptors open now that were not open, as the same thing, in ``before``:
    what a session opened once it runs. Known by what they are as well as by number, so
    that a number closed and used again for something else is not taken for a leak."""
    return {fd: what for fd, what in open_fds().items() if before.get(fd) != what}


def still_open(fds: dict[int, str]) -> dict[int, str]:
    """Those of ``fds`` still open as what they were. Only these count: other threads of
    the test process may open files of their own meanwhile (the web door prunes its
    identities in an executor's thread; aiohttp resolves names in one), and the whole
    process's list would take those for the session's."""
    now = open_fds()
    return {fd: what for fd, what in fds.items() if now.get(fd) == what}
