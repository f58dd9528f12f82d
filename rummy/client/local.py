"""The server of the game against bots (``rummy-client`` with no address).

``rummy-client`` forks it (``fork``) as the very first thing it does, before it
loads Textual, and connects to it at once (``Forked.connect``): the listening
socket is made before the fork, so the kernel holds the connection and the
requests written on it (hello, table, bots, start: the start only once the player
has answered the offer of how to play, on a first run) until the child has imported
the server and opened the saved game. The child sets the game up while the
client, on the other core, loads Textual; the first game is waiting on the socket
when the app starts, and the table is drawn once, with it (bench/client_start.py).
The client reaches the server as it would any server, on loopback; the server is
started through ``rummy.server.start_server``.

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
import socket
import threading
from dataclasses import dataclass
from os import _exit  # how a forked child ends (Python's own exit would run the parent's atexit)
from pathlib import Path
from typing import Any, Protocol

from rummy.protocol import (
    PROTOCOL_VERSION,
    AddBot,
    BotLevel,
    ClientMessage,
    CreateTable,
    Hello,
    Start,
    TableOptions,
    encode,
)

HOST = "127.0.0.1"
SAVED_GAME = "local.sqlite"
# The saved game survives the client being killed; a power cut may cost its last
# move (no fsync per move: the table comes up faster). No pause starts the next deal
# by itself: nobody else waits for the one player, who goes on when ready.
DEFAULTS: dict[str, Any] = {"sync": "normal", "deal_pause": None}


Request = tuple[type[ClientMessage], dict[str, Any]]  # a request's type and its fields but the id


def game_requests(levels: tuple[BotLevel, BotLevel, BotLevel], start: bool = True) -> list[Request]:
    """The game against bots: one table, three bots (chairs 2 to 4, at ``levels``),
    start; asked for in one go (a server answers a connection's requests in order).
    ``start`` False: the table and its bots only, the start asked for later (the first
    game waits while its player reads the offer of how to play: ``RummyApp``)."""
    table: Request = (CreateTable, {"name": "Game against bots", "options": TableOptions(), "chair": 0})
    bots: list[Request] = [
        (AddBot, {"chair": c, "level": lv}) for c, lv in zip((1, 2, 3), levels, strict=True)
    ]
    return [table, *bots, *([(Start, {})] if start else [])]


@dataclass
class Early:
    """A connection made before the app started: its socket and what was written on it
    (the hello first, each request with its id). ``game``: the game against bots was
    asked for with it (there was no chair to come back to)."""

    sock: socket.socket
    sent: list[ClientMessage]
    game: bool


class LocalServerError(Exception):
    """The local game's server could not start (the sentence says why)."""


class LocalServer(Protocol):
    async def ready(self) -> int:
        """The port it listens on, once it does; ``LocalServerError`` if it cannot."""
        ...

    async def close(self) -> None:
        """Stop it, its storage written (nothing to do if it never started)."""
        ...

    def connect(
        self, name: str, token: str | None, levels: tuple[BotLevel, BotLevel, BotLevel], start: bool = True
    ) -> Early | None:
        """Connect now, before its server has started, if it can be (else None): say
        hello as ``name`` with ``token``, and with no token ask for the game at once
        (its start too, unless ``start`` is False)."""
        ...


def saved_game(directory: Path) -> Path | None:
    """Where the game against bots is kept (None if the state directory cannot be made)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return directory / SAVED_GAME


def give_up_saved_game(directory: Path) -> None:
    """``rummy-client --new``: the saved game against bots goes, with the journal files
    SQLite keeps beside it, so that the server starts on a fresh one. ``OSError`` if
    a file is there and cannot be removed."""
    for suffix in ("", "-journal", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            (directory / f"{SAVED_GAME}{suffix}").unlink()


async def serve(db_path: Path | None, options: dict[str, Any], sock: socket.socket | None = None) -> Any:
    """A running ``rummy.server.Server`` on ``sock`` (listening), or on a free loopback
    port: on the saved game, or on a fresh one in memory when that cannot be opened (a
    damaged saved game must not stop a new one)."""
    from rummy.server import start_server

    reason: Exception | None = None
    for path in (db_path, None) if db_path is not None else (None,):
        try:
            return await start_server(HOST, 0, path, sock=sock, **{**DEFAULTS, **options})
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

    def connect(
        self, name: str, token: str | None, levels: tuple[BotLevel, BotLevel, BotLevel], start: bool = True
    ) -> Early | None:
        return None  # its port is known once it runs, in the app's event loop


class Forked:
    """The server in a child process, forked when this is made (see the module's
    docstring), on ``port``. ``ready`` waits for the child's word on the ``said``
    pipe that it serves (or why not); ``close`` closes the ``life`` pipe, then waits
    until the child has gone (its end of ``said`` closes when it exits)."""

    def __init__(self, db_path: Path | None, options: dict[str, Any] | None = None) -> None:
        listener = socket.create_server((HOST, 0))
        said_r, said_w = os.pipe()
        life_r, life_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = 1
            try:
                os.close(said_r)
                os.close(life_w)
                _child(db_path, options or {}, listener, said_w, life_r)
                code = 0
            finally:
                _exit(code)  # nothing of the parent's (atexit, buffers) is run twice
        self.port = int(listener.getsockname()[1])
        listener.close()  # the child's now
        os.close(said_w)
        os.close(life_r)
        self.pid = pid
        self._said = said_r
        self._life: int | None = life_w
        self._started = False

    def connect(
        self, name: str, token: str | None, levels: tuple[BotLevel, BotLevel, BotLevel], start: bool = True
    ) -> Early | None:
        sent: list[ClientMessage] = [Hello(id=1, version=PROTOCOL_VERSION, name=name, token=token)]
        if token is None:
            asked = game_requests(levels, start)
            sent += [kind(id=i, **fields) for i, (kind, fields) in enumerate(asked, 2)]
        try:
            sock = socket.create_connection((HOST, self.port))
        except OSError:
            return None  # the app connects once the server has said it serves
        try:
            sock.sendall(b"".join(encode(message) for message in sent))
        except OSError:
            sock.close()
            return None
        return Early(sock, sent, token is None)

    async def ready(self) -> int:
        if not self._started:
            await _readable(self._said)
            line = os.read(self._said, 4096).decode(errors="replace").strip()
            if line != "ready":  # "!why", or nothing: the child died before it could say
                raise LocalServerError(line.removeprefix("!") or "its process stopped")
            self._started = True
        return self.port

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


def _child(
    db_path: Path | None, options: dict[str, Any], listener: socket.socket, said: int, life: int
) -> None:
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
    asyncio.run(_serve_until_closed(db_path, options, listener, said, life))


async def _serve_until_closed(
    db_path: Path | None, options: dict[str, Any], listener: socket.socket, said: int, life: int
) -> None:
    loop = asyncio.get_running_loop()
    gone = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, gone.set)
    try:
        server = await serve(db_path, options, listener)
    except LocalServerError as e:
        os.write(said, f"!{e}\n".encode())
        return
    os.write(said, b"ready\n")
    gc.freeze()  # forked with the collector paused (cli.pause_collector): on, for a server
    gc.enable()
    waiting = asyncio.ensure_future(_until_closed(life))  # the client never writes: only closes
    stopped = asyncio.ensure_future(gone.wait())
    await asyncio.wait([waiting, stopped], return_when=asyncio.FIRST_COMPLETED)
    waiting.cancel()
    stopped.cancel()
    await server.close()
