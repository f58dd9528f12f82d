"""A tiny asyncio client over the protocol, for tests, load generators and bots.

The protocol (``rummy.protocol``) is sans-I/O; this is the socket around it, kept
out of that package so that the protocol imports no socket and no asyncio.
``request`` sends a request and returns the server's direct answer (the message
repeating its id); every push updates the client's picture (``table``, ``game``,
``view``, ``clock``, ``lobby``, ``chat``) and can be awaited with ``until``::

    c = await Client.connect(host, port)
    await c.request(Hello, version=PROTOCOL_VERSION, name="Ann")
    seated = await c.request(CreateTable, name="Ann's", options=TableOptions())
    await c.until(lambda c: c.view is not None and c.view.my_turn)
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable
from typing import Any

from ..engine import Move, PlayerView
from ..protocol.codec import encode
from ..protocol.errors import ProtocolError
from ..protocol.messages import (
    ChatLine,
    Clock,
    Error,
    GameUpdate,
    Lobby,
    LobbyGone,
    LobbyTable,
    MoveRequest,
    Ping,
    ServerMessage,
    SpectatorInfo,
    Table,
    TableInfo,
    TallyLine,
)
from ..protocol.wire import move_to_wire, view_from_wire
from .reader import server_messages


class Client:
    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        keep_frames: bool,
        keep_received: bool = True,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._ids = itertools.count(1)
        self._answers: dict[int, asyncio.Future[ServerMessage]] = {}
        self._changed = asyncio.Event()
        self.keep_frames = keep_frames
        self.frames: list[bytes] = []  # every frame received, when keep_frames
        # Every message received, when keep_received (for tests: a client that plays on
        # for hours, rummy-bot's, keeps none, or it grows by some 0.4 MiB a game).
        self.keep_received = keep_received
        self.received: list[ServerMessage | ProtocolError] = []
        self.errors: list[Error] = []  # errors without a request id (fatal ones too)
        self.table: TableInfo | None = None
        self.tally: list[TallyLine] = []  # the running tally of the table's games
        self.watchers: list[SpectatorInfo] = []  # who watches the table, in the order they came
        self.game: GameUpdate | None = None
        self.view: PlayerView | None = None
        self.clock: Clock | None = None
        self.lobby: dict[int, TableInfo] = {}
        self.chat: list[ChatLine] = []
        self.closed = False
        self.heard = asyncio.get_running_loop().time()  # loop time the server last sent bytes
        self.sent = self.heard  # ...and this client last sent something (a keepalive counts from it)
        self._task = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def connect(
        cls, host: str, port: int, keep_frames: bool = False, keep_received: bool = True
    ) -> Client:
        reader, writer = await asyncio.open_connection(host, port)
        return cls(reader, writer, keep_frames, keep_received)

    async def close(self) -> None:
        self._writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self._writer.wait_closed()
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    def abort(self) -> None:
        """Drop the connection at once: a stalled one, where ``close`` would wait to send
        what it holds. The reads end, and the client is ``closed``."""
        self._writer.transport.abort()

    # --- sending ---------------------------------------------------------------------

    def ping(self) -> None:
        """Ask the server for a sign of life without waiting: its answer moves ``heard``."""
        if not self.closed:
            self._write(encode(Ping(id=next(self._ids))))

    def send_raw(self, data: bytes) -> None:
        self._write(data)

    def _write(self, data: bytes) -> None:
        self.sent = asyncio.get_running_loop().time()
        self._writer.write(data)

    async def request(self, kind: type[Any], timeout: float = 10.0, **fields: Any) -> ServerMessage:
        """Send ``kind(id=<next id>, **fields)`` and return the answer with that id.
        Raises ``ConnectionError`` once the connection is closed (a request then waited
        its whole ``timeout`` for an answer that could not come)."""
        if self.closed:
            raise ConnectionError("the connection is closed")
        rid = next(self._ids)
        answer: asyncio.Future[ServerMessage] = asyncio.get_running_loop().create_future()
        self._answers[rid] = answer
        self._write(encode(kind(id=rid, **fields)))
        try:
            # (Not wait_for: on 3.11 it drops a cancel that comes as the answer does, and
            # a rummy-bot stopped by ctrl+c as its chair was given went on playing.)
            async with asyncio.timeout(timeout):
                return await answer
        finally:
            self._answers.pop(rid, None)

    async def move(self, move: Move, after: int | None = None) -> ServerMessage:
        return await self.request(MoveRequest, move=move_to_wire(move), after=after)

    # --- receiving ---------------------------------------------------------------------

    async def until(self, condition: Callable[[Client], bool], timeout: float | None = 10.0) -> None:
        """Wait until ``condition(self)`` holds (checked after every chunk of messages);
        ``timeout`` None waits as long as it takes.

        It returns in the same step as the check, so the condition still holds when the
        caller goes on (a ``wait_for`` task would let more messages in between).
        """
        async with asyncio.timeout(timeout):
            while not condition(self):
                if self.closed:
                    raise ConnectionError("the server closed the connection")
                self._changed.clear()
                await self._changed.wait()

    async def _read(self) -> None:
        try:
            async for items in server_messages(self._reader, self.frames if self.keep_frames else None):
                self.heard = asyncio.get_running_loop().time()
                for item in items:
                    if self.keep_received:
                        self.received.append(item)
                    if not isinstance(item, ProtocolError):
                        self._take(item)
                    self._changed.set()
        except (ConnectionError, OSError):
            pass
        finally:
            self.closed = True
            for answer in self._answers.values():
                if not answer.done():
                    answer.set_exception(ConnectionError("the server closed the connection"))
            self._changed.set()

    def _take(self, m: ServerMessage) -> None:
        rid = getattr(m, "id", None)
        if rid is not None and rid in self._answers:
            if not self._answers[rid].done():
                self._answers[rid].set_result(m)
            return
        match m:
            case Error():
                self.errors.append(m)
            case Table(table=t, tally=tally, watchers=watchers):
                self.table, self.tally, self.watchers = t, tally, watchers
            case GameUpdate():
                self.game = m
                self.view = view_from_wire(m.view)
            case Clock():
                self.clock = m
            case Lobby(tables=ts):
                self.lobby = {t.table_id: t for t in ts}
            case LobbyTable(table=t):
                self.lobby[t.table_id] = t
            case LobbyGone(table_id=tid):
                self.lobby.pop(tid, None)
            case ChatLine():
                self.chat.append(m)
            case _:
                pass
