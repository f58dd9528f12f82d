"""The server of the game against bots (``rummy-client`` with no address).

``rummy-client`` forks it (``fork``) as the very first thing it does, before it
loads Textual: the child imports the server, opens the saved game and listens
while the client, on the other core, loads Textual and draws its screen. The
table then comes up in about half the time it took when both ran one after the
other in one process (bench/client_start.py). The client reaches it on loopback
as it would any server, through ``rummy.server.start_server``'s port.

The child lives as long as the client does: it waits on a pipe whose other end
only the client holds, and that end reads as closed however the client ends
(quit, crash, kill -9); the child then closes the server as ``rummy-server``
does on its way out (the storage last). It draws nothing: its standard streams
go to /dev/null. It inherits the client's seat lock (state.SeatLock), so the
saved game stays locked until the last of the two has let go of it.

Where a fork is not safe (a process with threads already: tests driving
``RummyApp`` under pytest) or impossible, ``InProcess`` runs the same server
inside the client, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
import threading
from os import _exit  # how a forked child ends (Python's own exit would run the parent's atexit)
from pathlib import Path
from typing import Any, Protocol

HOST = "127.0.0.1"
SAVED_GAME = "local.sqlite"
# The saved game survives the client being killed; a power cut may cost its last
# move (no fsync per move: the table comes up faster).
DEFAULTS: dict[str, Any] = {"sync": "normal"}


class LocalServerError(Exception):
    """The local game's server could not start (the sentence says why)."""


class LocalServer(Protocol):
    async def ready(self) -> int:
        """The port it listens on, once it does; ``LocalServerError`` if it cannot."""
        ...

    async def close(self) -> None:
        """Stop it, its storage written (nothing to do if it never started)."""
        ...


def saved_game(directory: Path) -> Path | None:
    """Where the game against bots is kept (None if the state directory cannot be made)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return directory / SAVED_GAME


async def serve(db_path: Path | None, options: dict[str, Any]) -> Any:
    """A running ``rummy.server.Server`` on a free loopback port: on the saved game,
    or on a fresh one in memory when that cannot be opened (a damaged saved game must
    not stop a new one)."""
    from rummy.server import start_server

    reason: Exception | None = None
    for path in (db_path, None) if db_path is not None else (None,):
        try:
            return await start_server(HOST, 0, path, **{**DEFAULTS, **options})
        except Exception as e:
            reason = e
    raise LocalServerError(str(reason))


class InProcess:
    """The server inside the client's own process and event loop."""

    def __init__(self, db_path: Path | None, options: dict[str, Any] | None = None) -> None:
        self.db_path = db_path
        self.options = options or {}
        self.server: Any = None

    async def ready(self) -> int:
        if self.server is None:
            self.server = await serve(self.db_path, self.options)
        return int(self.server.port)

    async def close(self) -> None:
        if self.server is not None:
            await self.server.close()


class Forked:
    """The server in a child process, forked when this is made (see the module's
    docstring). ``ready`` reads the port the child writes on the ``said`` pipe;
    ``close`` closes the ``life`` pipe, then waits until the child has gone (its end
    of ``said`` closes when it exits)."""

    def __init__(self, db_path: Path | None, options: dict[str, Any] | None = None) -> None:
        said_r, said_w = os.pipe()
        life_r, life_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = 1
            try:
                os.close(said_r)
                os.close(life_w)
                _child(db_path, options or {}, said_w, life_r)
                code = 0
            finally:
                _exit(code)  # nothing of the parent's (atexit, buffers) is run twice
        os.close(said_w)
        os.close(life_r)
        self.pid = pid
        self._said = said_r
        self._life: int | None = life_w
        self._port: int | None = None

    async def ready(self) -> int:
        if self._port is None:
            await _readable(self._said)
            line = os.read(self._said, 4096).decode(errors="replace").strip()
            if not line.isdigit():  # "!why", or nothing: the child died before it could say
                raise LocalServerError(line.removeprefix("!") or "its process stopped")
            self._port = int(line)
        return self._port

    async def close(self) -> None:
        if self._life is None:
            return
        os.close(self._life)
        self._life = None
        try:
            # The child's server says goodbye to its connections (at most 5 s), then
            # writes the storage: then it exits, closing its end of the pipe.
            await asyncio.wait_for(_until_closed(self._said), timeout=15)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        finally:
            os.close(self._said)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)


def fork(db_path: Path | None, options: dict[str, Any] | None = None) -> LocalServer:
    """The local game's server, forked if this process may fork (no thread yet: a
    fork copies only the thread that calls it), else in this process."""
    if hasattr(os, "fork") and threading.active_count() == 1:
        return Forked(db_path, options)
    return InProcess(db_path, options)


async def _readable(fd: int) -> None:
    loop = asyncio.get_running_loop()
    done = loop.create_future()

    def readable() -> None:
        loop.remove_reader(fd)
        if not done.done():
            done.set_result(None)

    loop.add_reader(fd, readable)
    try:
        await done
    finally:
        loop.remove_reader(fd)


async def _until_closed(fd: int) -> None:
    while True:
        await _readable(fd)
        if not os.read(fd, 4096):
            return


def _child(db_path: Path | None, options: dict[str, Any], said: int, life: int) -> None:
    """The child's life: quiet streams, the server, until the client goes."""
    null = os.open(os.devnull, os.O_RDWR)
    for stream in (0, 1, 2):  # the terminal is the client's alone
        os.dup2(null, stream)
    os.close(null)
    # Keys pressed before the client puts the terminal in raw mode (ctrl+c) and the
    # terminal's hang-up go to the whole process group: the client ends, and with it
    # this child, through the pipe, with its storage closed properly.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    asyncio.run(_serve_until_closed(db_path, options, said, life))


async def _serve_until_closed(db_path: Path | None, options: dict[str, Any], said: int, life: int) -> None:
    loop = asyncio.get_running_loop()
    gone = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, gone.set)
    try:
        server = await serve(db_path, options)
    except LocalServerError as e:
        os.write(said, f"!{e}\n".encode())
        return
    os.write(said, f"{server.port}\n".encode())
    gc.freeze()  # forked with the collector paused (cli.pause_collector): on, for a server
    gc.enable()
    waiting = asyncio.ensure_future(_until_closed(life))  # the client never writes: only closes
    stopped = asyncio.ensure_future(gone.wait())
    await asyncio.wait([waiting, stopped], return_when=asyncio.FIRST_COMPLETED)
    waiting.cancel()
    stopped.cancel()
    await server.close()
