"""The doors' pre-imported parent: ``python -s -m rummy.doors.zygote FD [MODULE...]``.

Started once by a door (forker.py) before its first session, it imports the
client (Textual and all) once, freezes what it loaded out of the garbage
collector's reach (and, on CPython 3.12 and 3.13, makes it immortal), and
then forks one child per session. A child starts with those modules already in
memory, shared with the parent and every other child until one of them writes
to a page: a session costs the pages its client writes to, not a whole
interpreter, and it reaches its first screen without importing anything.

The door starts it with ``-OO``: no docstrings in what it loads (and no asserts;
the client's only narrow types). A module's docstrings lie between the code
objects the children's interpreter writes to as it specialises them, spreading
those over more pages, each copied into every child that writes to it (0.4-1.0
MiB a client in a game; docs/PERFORMANCE.md). That bytecode (``.opt-2.pyc``) is not what an
installer writes, and compiling it here would leave the compiler's garbage in
the pages the children share: a zygote that had to compile writes the files and
runs itself again (``start_again``), with ``-OO`` where the files could be
written and without where they could not.

Forking is only safe from a plain process: this one never starts a thread or an
event loop (it checks before every fork); the child's client starts its own loop
after the fork. The parent talks to the door over ``FD``, a Unix SOCK_SEQPACKET
socket (one JSON message a packet, a file descriptor beside it when there is
one):

  door -> zygote  {"argv": [...], "env": {...}, "cwd": "..."} + the pty's slave side
  zygote -> door  {"pid": N} + a pidfd of the child   or   {"error": "..."}
  zygote -> door  {"exited": N, "status": S}          (S: exit code, or minus the signal)

Each child gets what a program started on its own terminal would: a new session
whose controlling terminal is its pty (fds 0, 1 and 2), the environment and
working directory it was given (and nothing of the parent's), standard streams
in that environment's encoding, and the resource limits in ``CLIENT_LIMITS``. A
command ``[python, -m, MODULE, ...]``, ``[python, -c, CODE, ...]`` or ``[python,
SCRIPT.py, ...]`` of this interpreter runs in the child itself (as ``python
-OO`` would run it, where the zygote is so run); any other program is exec'd
there. The parent reaps every child and reports its exit status; a child's crash
is its own. When the door goes away (its end of the socket closes), the parent
exits; the children lose their terminals with the door and end as they would
with a dropped terminal.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import locale
import os
import runpy
import select
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from .immortal import immortalize
from .samepage import merge_same_pages

STARTED = time.time()  # bytecode written since was compiled by this process (start_again)
# Set in the environment of a zygote run again, which never runs itself a third time.
AGAIN = "RUMMY_ZYGOTE_AGAIN"

# The largest request: a command line and an environment are well under this.
MAX_MESSAGE = 64 * 1024
READY = b'{"ready": true}'
# Limits each child runs with, whatever the host's server raised for itself
# (rummy-server raises its open-file limit to the hard one for its connections):
# a client holds a handful of files, and a crash writes no core file of a
# player's client into their state directory.
CLIENT_LIMITS = {"RLIMIT_NOFILE": 1024, "RLIMIT_CORE": 0}


def send(sock: socket.socket, message: dict[str, Any], fd: int | None = None) -> None:
    data = json.dumps(message).encode()
    socket.send_fds(sock, [data], [] if fd is None else [fd])


def receive(sock: socket.socket, flags: int = 0) -> tuple[dict[str, Any] | None, int | None]:
    """One message and the descriptor that came with it; (None, None) at the end."""
    # recvmsg itself: socket.recv_fds drops its flags argument before Python 3.12.
    data, ancillary, _flags, _addr = sock.recvmsg(MAX_MESSAGE, socket.CMSG_SPACE(4), flags)
    fd = None
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS and len(payload) >= 4:
            fd = int.from_bytes(payload[:4], sys.byteorder)
    if not data:
        if fd is not None:
            os.close(fd)
        return None, None
    return json.loads(data), fd


def wait_status(status: int) -> int:
    """An exit status as asyncio gives it: the code, or minus the signal that killed it."""
    return os.waitstatus_to_exitcode(status)


class Child:
    """What one forked child runs, once it has left the zygote's loop behind."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str, tty: int) -> None:
        self.argv = argv
        self.env = env
        self.cwd = cwd
        self.tty = tty

    def become_session(self) -> None:
        """The terminal, the place, the environment and the limits of its own."""
        os.login_tty(self.tty)  # setsid, the pty as controlling terminal, and fds 0-2
        os.chdir(self.cwd)
        os.environ.clear()
        os.environ.update(self.env)
        time.tzset()
        with contextlib.suppress(locale.Error):
            locale.setlocale(locale.LC_CTYPE, "")
        _set_limits()
        _reopen_standard_streams()

    def run(self) -> None:
        """Run the command: returns only by SystemExit (or an exception), as ``python`` would."""
        argv = self.argv
        if len(argv) >= 2 and argv[0] == sys.executable:
            if argv[1] == "-m" and len(argv) >= 3:
                sys.argv = [argv[2], *argv[3:]]
                sys.path[0] = self.cwd
                # Run as a fresh __main__, as `python -m` does (its imports are loaded
                # already); left in sys.modules, runpy would warn on the player's screen.
                sys.modules.pop(argv[2], None)
                runpy.run_module(argv[2], run_name="__main__", alter_sys=True)
                return
            if argv[1] == "-c" and len(argv) >= 3:
                sys.argv = ["-c", *argv[3:]]
                sys.path[0] = ""
                exec(compile(argv[2], "<string>", "exec"), {"__name__": "__main__"})
                return
            if not argv[1].startswith("-"):
                sys.argv = argv[1:]
                sys.path[0] = str(Path(argv[1]).resolve().parent)
                runpy.run_path(argv[1], run_name="__main__")
                return
        try:
            os.execve(argv[0], argv, self.env)
        except OSError as exc:
            os.write(2, f"rummy: cannot run {argv[0]}: {exc.strerror}\r\n".encode())
            raise SystemExit(127) from None


def _set_limits() -> None:
    import resource

    for name, soft in CLIENT_LIMITS.items():
        which = getattr(resource, name)
        _old_soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(which, (soft, hard))


def _reopen_standard_streams() -> None:
    """sys.stdin, stdout and stderr on the pty, in the encoding this environment asks
    for (the zygote's were made for its own /dev/null): what a new interpreter would
    make of them, a C locale counting as UTF-8 as Python's own coercion has it."""
    encoding = locale.getencoding()
    if encoding.lower() in ("ascii", "ansi_x3.4-1968"):
        encoding = "utf-8"
    for name, fd, mode, errors in (
        ("stdin", 0, "r", "surrogateescape"),
        ("stdout", 1, "w", "surrogateescape"),
        ("stderr", 2, "w", "backslashreplace"),
    ):
        stream = _stream(fd, mode, encoding, errors)
        # Textual's driver writes to sys.__stderr__ and reads sys.__stdin__: both are the pty's.
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _stream(fd: int, mode: str, encoding: str, errors: str) -> TextIO:
    # Open for the life of the process, as the interpreter's own are: no context manager.
    if mode == "r":
        return open(fd, encoding=encoding, errors=errors, closefd=False)
    return open(fd, "w", buffering=1, encoding=encoding, errors=errors, closefd=False)


class Zygote:
    """The loop: fork on request, reap and report; nothing else."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.children: set[int] = set()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        os.set_blocking(self._wake_r, False)
        signal.set_wakeup_fd(self._wake_w)
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)  # wakes select() through the pipe

    def serve(self) -> Child | None:
        """Serve until the door goes (None), or return in a forked child its Child."""
        send(self.sock, json.loads(READY))
        while True:
            try:
                ready, _, _ = select.select([self.sock.fileno(), self._wake_r], [], [])
            except InterruptedError:
                ready = []
            if self._wake_r in ready:
                with contextlib.suppress(BlockingIOError):
                    while os.read(self._wake_r, 512):
                        pass
            self._reap()
            if self.sock.fileno() in ready:
                message, fd = receive(self.sock)
                if message is None:
                    return None
                child = self._fork(message, fd)
                if child is not None:
                    return child

    def _fork(self, request: dict[str, Any], tty: int | None) -> Child | None:
        try:
            argv, env, cwd = list(request["argv"]), dict(request["env"]), str(request["cwd"])
            if tty is None or not argv:
                raise ValueError("a request needs a command and a terminal")
            if threading.active_count() != 1:
                raise RuntimeError("the zygote has a thread: forking it is not safe")
            pid = os.fork()
        except (KeyError, TypeError, ValueError, RuntimeError, OSError) as exc:
            if tty is not None:
                os.close(tty)
            send(self.sock, {"error": f"{type(exc).__name__}: {exc}"})
            return None
        if pid == 0:
            return self._become_child(argv, env, cwd, tty)
        os.close(tty)
        self.children.add(pid)
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            pidfd = None  # a child that has already ended and been reaped cannot have one
        try:
            send(self.sock, {"pid": pid}, pidfd)
        finally:
            if pidfd is not None:
                os.close(pidfd)
        return None

    def _become_child(self, argv: list[str], env: dict[str, str], cwd: str, tty: int) -> Child:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        gc.enable()
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)
        self.sock.close()
        child = Child(argv, env, cwd, tty)
        child.become_session()
        return child

    def _reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                self.children.clear()
                return
            if pid == 0:
                return
            self.children.discard(pid)
            with contextlib.suppress(OSError):
                send(self.sock, {"exited": pid, "status": wait_status(status)})


def preload(modules: list[str], load: Callable[[str], object] = importlib.import_module) -> None:
    """Import what the children will run, then freeze it: the collector never walks
    (so never writes to) the pages every child shares. The collector stays off while
    importing (as gc.freeze's documentation advises): a collection here would leave
    freed holes in those pages, which a child's first allocations would fill, copying
    each page they land on. It is on again in each child. Where CPython has immortal
    objects (3.12, 3.13) what was loaded is made so: the children never write its
    reference counts either (immortal.py)."""
    gc.disable()
    for name in modules:
        load(name)
    immortalize()
    gc.freeze()
    merge_same_pages()  # where the host runs KSM: one copy of the pages all children share


# A file's time comes from the kernel's coarse clock, up to a tick (a few ms) behind
# time.time(): a file written just after ``since`` can seem older. Counting a file
# written this long before as ours costs at most one needless start again.
FILE_CLOCK_SLACK = 0.05


def compiled_since(since: float) -> list[str]:
    """The bytecode files of the loaded modules that were not on disk before ``since``:
    written since, or missing (their source compiled in memory)."""
    compiled = []
    for module in list(sys.modules.values()):
        cached = getattr(module, "__cached__", None)
        if not cached:  # built in, frozen, or an extension module: nothing compiled
            continue
        try:
            if os.stat(cached).st_mtime < since - FILE_CLOCK_SLACK:
                continue
        except OSError:
            pass
        compiled.append(cached)
    return compiled


def start_again(argv: list[str], optimize: int, compiled: list[str], again: bool) -> list[str] | None:
    """The command to run this zygote again with (``argv``: its own arguments), or None
    to go on: only an optimised zygote that compiled what it loaded starts again, once,
    keeping ``-OO`` only if all of it is on disk now (else the next start would compile
    it again, and so would every one after it)."""
    if not optimize or not compiled or again:
        return None
    written = all(os.path.exists(path) for path in compiled)
    return [sys.executable, "-s", *(["-OO"] if written else []), "-m", "rummy.doors.zygote", *argv]


def main(argv: list[str]) -> None:
    preload(argv[1:])
    command = start_again(argv, sys.flags.optimize, compiled_since(STARTED), AGAIN in os.environ)
    if command is not None:  # what preload made of this process goes with it
        os.set_inheritable(int(argv[0]), True)  # the socket to the door, kept across exec
        os.execve(sys.executable, command, {**os.environ, AGAIN: "1"})
    sock = socket.socket(fileno=int(argv[0]))
    child = Zygote(sock).serve()
    if child is not None:
        child.run()  # only in a forked child; it ends the way `python ...` would


if __name__ == "__main__":
    main(sys.argv[1:])
