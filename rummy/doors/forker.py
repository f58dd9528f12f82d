"""The door's side of the pre-imported parent (zygote.py): start it, ask it for children.

    forker = Forker(preload_for(command))
    await forker.start()                   # before the first session: imports once
    child = await forker.spawn(argv, env=..., cwd=..., tty=slave_fd)
    ... child.pid, child.send_signal(signal.SIGHUP), await child.wait() ...
    await forker.close()

The door runs an event loop and threads (the game server's storage thread, when
it is in the same process), so it must never fork itself: the zygote, a plain
process of its own, does. Each child is a ``ForkedChild``: it is signalled
through a pidfd (a handle on exactly that process, so a signal can never reach
another one that got its number later) and learns its exit status from the
zygote, which is its parent and reaps it. Should the zygote die, the next
session starts a new one; the children it leaves behind still end with their
sessions (their pidfd says when) and report their status as lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from rummy.doors.client_env import LOCALE, host_env
from rummy.doors.zygote import READY, receive, send

log = logging.getLogger(__name__)

# What the client loads once its arguments are read (its cli module imports the app
# lazily), the Textual driver it starts with, and what it imports on its way to the
# lobby and a game (the lobby screen, which the app imports lazily, with the widgets
# it brings; what Textual imports as an app runs and lays out its first screen):
# preloaded in the zygote too, or each child would import them for itself, a copy
# of every module in each (1.6 MiB of a client in a game; docs/PERFORMANCE.md).
CLIENT_PRELOAD = (
    "rummy.client.cli",
    "rummy.client.app",
    "rummy.client.screens.lobby",
    "textual.drivers.linux_driver",
    "textual.pilot",
    "textual.layouts.factory",
)
# A status for a child whose parent died before it could say how the child ended.
STATUS_LOST = 255
# The zygote imports the client in about a second; on a busy machine give it longer.
START_TIMEOUT = 60.0


def preload_for(argv: Sequence[str]) -> tuple[str, ...]:
    """The modules a child running ``argv`` will need: for ``python -m MODULE`` that
    module (and for the client, what it loads lazily); nothing for other programs."""
    if len(argv) >= 3 and argv[0] == sys.executable and argv[1] == "-m":
        return CLIENT_PRELOAD if argv[2] == CLIENT_PRELOAD[0] else (argv[2],)
    return ()


class ForkedChild:
    """One client forked by the zygote: its pid, its signals, its exit status."""

    def __init__(self, pid: int, pidfd: int | None, forker: Forker) -> None:
        self.pid = pid
        self._pidfd = pidfd
        self._forker = forker
        self._status: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    @property
    def returncode(self) -> int | None:
        return self._status.result() if self._status.done() else None

    def send_signal(self, signum: int) -> None:
        """Signal the child, if it has not ended yet."""
        if self._pidfd is not None and not self._status.done():
            with contextlib.suppress(ProcessLookupError, OSError):
                signal.pidfd_send_signal(self._pidfd, signum)

    async def wait(self) -> int:
        """Its exit status (negative: the signal that killed it) once it has ended."""
        try:
            return await asyncio.shield(self._status)
        finally:
            if self._status.done():
                self._close_pidfd()

    def _ended(self, status: int) -> None:
        if not self._status.done():
            self._status.set_result(status)
        self._close_pidfd()

    def _orphaned(self) -> None:
        """The zygote died: wait on the pidfd for the end, with no status to learn."""
        if self._status.done():
            return
        if self._pidfd is None:
            self._ended(STATUS_LOST)
            return
        loop = asyncio.get_running_loop()
        fd = self._pidfd

        def gone() -> None:
            loop.remove_reader(fd)
            self._ended(STATUS_LOST)

        loop.add_reader(fd, gone)  # a pidfd is readable once its process has ended

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                asyncio.get_running_loop().remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None


def _end_unwanted(task: asyncio.Task[ForkedChild]) -> None:
    if not task.cancelled() and task.exception() is None:
        task.result().send_signal(signal.SIGKILL)


class Forker:
    """Owns one zygote process and the children it forks for this door."""

    def __init__(self, preload: Sequence[str] = (), home: Path | None = None) -> None:
        self._preload = tuple(preload)
        self._home = home
        self._process: asyncio.subprocess.Process | None = None
        self._sock: socket.socket | None = None
        self._starting: asyncio.Task[None] | None = None
        self._replies: asyncio.Queue[tuple[dict[str, object] | None, int | None]] | None = None
        self._spawning = asyncio.Lock()
        self._children: dict[int, ForkedChild] = {}
        self._early_exits: dict[int, int] = {}  # reported before the spawn's reply was read
        self._closed = False
        self._reaping: asyncio.Future[int] | None = None

    @property
    def zygote_pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    async def start(self) -> None:
        """Start the zygote (it imports the preloaded modules) and wait until it is ready."""
        if self._starting is None or (self._starting.done() and self._sock is None):
            self._starting = asyncio.ensure_future(self._start())
        await asyncio.shield(self._starting)

    async def _start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            env = host_env()
            if not any(k in env for k in LOCALE):
                env["LANG"] = "C.UTF-8"
            if self._home is not None:
                env["HOME"] = str(self._home)
            self._process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-s",  # no user site-packages: a fresh client run by a door has none either
                "-OO",  # no docstrings: the children share fewer pages of code (zygote.py)
                "-m",
                "rummy.doors.zygote",
                str(theirs.fileno()),
                *self._preload,
                pass_fds=(theirs.fileno(),),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                env=env,
                start_new_session=True,  # the host's Ctrl-C is for the server, not the zygote
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        loop = asyncio.get_running_loop()
        ours.setblocking(False)
        try:
            ready = await asyncio.wait_for(loop.sock_recv(ours, len(READY) + 16), START_TIMEOUT)
        except BaseException:
            ours.close()
            self._process.kill()
            await self._process.wait()
            raise
        if ready != READY:
            ours.close()
            status = await self._process.wait()
            raise OSError(f"the door's client parent did not start (status {status})")
        ours.setblocking(True)  # sends are small; reads go through the loop with MSG_DONTWAIT
        self._sock = ours
        self._replies = asyncio.Queue()
        loop.add_reader(ours, self._read)
        log.info("door's client parent pid %d ready (%s)", self._process.pid, " ".join(self._preload) or "-")

    async def spawn(
        self, argv: Sequence[str], *, env: Mapping[str, str], cwd: str | Path, tty: int
    ) -> ForkedChild:
        """A new child running ``argv`` on the terminal ``tty`` (a pty's slave side, which
        the caller still closes). Raises OSError if it cannot be started."""
        if self._closed:
            raise OSError("the door is closing")
        # Once asked for, a child is born: if the caller gives up meanwhile, it is ended
        # (and the zygote reaps it) rather than left running for no one.
        task = asyncio.ensure_future(self._spawn(argv, env, cwd, tty))
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            task.add_done_callback(_end_unwanted)
            raise

    async def _spawn(
        self, argv: Sequence[str], env: Mapping[str, str], cwd: str | Path, tty: int
    ) -> ForkedChild:
        request: dict[str, object] = {"argv": list(argv), "env": dict(env), "cwd": str(cwd)}
        async with self._spawning:  # replies come in the order of the requests
            try:
                replies = await self._send(request, tty)
            except OSError:
                # The parent died and its end has not been read yet: nothing was forked.
                # Once more, with a new parent.
                self._lost()
                replies = await self._send(request, tty)
            reply, pidfd = await replies.get()
        if reply is None:
            raise OSError("the door's client parent ended")
        pid = reply.get("pid")
        if not isinstance(pid, int):
            raise OSError(f"the client could not be started: {reply.get('error')}")
        child = ForkedChild(pid, pidfd, self)
        self._children[pid] = child
        if pid in self._early_exits:
            self._ended(pid, self._early_exits.pop(pid))
        return child

    async def _send(
        self, request: dict[str, object], tty: int
    ) -> asyncio.Queue[tuple[dict[str, object] | None, int | None]]:
        """Send a request (a parent is started first if there is none); where its reply comes."""
        await self.start()
        assert self._sock is not None and self._replies is not None
        try:
            send(self._sock, request, tty)
        except OSError:
            self._lost()
            raise
        return self._replies

    def _read(self) -> None:
        assert self._sock is not None and self._replies is not None
        while True:
            try:
                message, fd = receive(self._sock, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return
            except OSError:
                message, fd = None, None
            if message is None:
                self._lost()
                return
            exited = message.get("exited")
            if isinstance(exited, int):
                status = message.get("status")
                self._ended(exited, status if isinstance(status, int) else STATUS_LOST)
            else:
                self._replies.put_nowait((message, fd))

    def _ended(self, pid: int, status: int) -> None:
        child = self._children.pop(pid, None)
        if child is None:
            self._early_exits[pid] = status  # its spawn's reply is still in the queue
        else:
            child._ended(status)

    def _lost(self) -> None:
        """The zygote has gone: its children end on their own; the next spawn starts anew."""
        if self._sock is None:
            return
        if not self._closed:
            log.warning("the door's client parent (pid %s) ended; starting a new one", self.zygote_pid)
        with contextlib.suppress(Exception):
            asyncio.get_running_loop().remove_reader(self._sock)
        self._sock.close()
        self._sock = None
        if self._replies is not None:
            self._replies.put_nowait((None, None))  # a spawn waiting for its reply
        for child in self._children.values():
            child._orphaned()
        self._children.clear()
        if self._process is not None:
            self._reaping = asyncio.ensure_future(self._process.wait())  # reap it

    async def close(self) -> None:
        """Stop the zygote (the door's sessions have ended their children by now)."""
        self._closed = True
        if self._starting is not None and not self._starting.done():
            with contextlib.suppress(Exception):
                await self._starting
        process = self._process
        self._lost()
        if process is not None and process.returncode is None:
            try:
                await asyncio.wait_for(process.wait(), 5.0)
            except TimeoutError:
                process.kill()
                await process.wait()
