"""The one connection to the server: frames in, Textual messages out; requests out.

``Connection.run`` is meant to run as an asyncio worker of the app. It connects,
says hello (with the remembered seat token, so a dropped or restarted client
gets its chair back), then turns every frame into a ``ServerMessage`` posted to
the app. When the connection drops it says so (``ConnectionChanged``) and tries
again with a growing pause. The protocol itself (``rummy.protocol``) is
sans-I/O; this is the thin asyncio layer around it.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Sequence
from typing import Any

from textual.message import Message

from rummy.cli_values import why_not_reached
from rummy.net import server_messages
from rummy.protocol import (
    PROTOCOL_VERSION,
    ClientMessage,
    Error,
    Hello,
    Ping,
    Pong,
    ProtocolError,
    ServerMessage,
    Welcome,
    address_text,
    encode,
)
from rummy.protocol.liveness import (
    DEAD,
    FINAL,
    FIRST_PAUSE,
    KEEPALIVE,
    LONGEST_PAUSE,
    QUIET,
    WATCH_EVERY,
    keepalive_every,
)

from .local import Early, Request

# A stalled connection (rummy.protocol.liveness): a request owed an answer with
# nothing heard for SLOW seconds is said in the banner, before DEAD gives it up.
SLOW = 5.0


class ServerSaid(Message):
    """A message from the server (a ``rummy.protocol`` ``ServerMessage``). For an
    answer, ``request`` is the type of the request it answers (``MoveRequest``,
    ``Sit``...), matched by its id; None for a push."""

    def __init__(self, message: ServerMessage, request: type[ClientMessage] | None = None) -> None:
        super().__init__()
        self.message = message
        self.request = request


class ConnectionChanged(Message):
    """``status`` is empty once connected, else a sentence for the banner;
    ``final`` when the client has stopped trying."""

    def __init__(self, status: str, final: bool = False) -> None:
        super().__init__()
        self.status = status
        self.final = final


class Connection:
    """One server. ``post`` delivers messages to the app; ``token`` is read at each
    (re)connection, so the seat token remembered last is the one offered; ``opening``
    too: the requests sent right after the hello, in the same write. ``early``: a
    connection already made, hello said (the local game's, ``local.Early``), for the
    first session."""

    def __init__(
        self,
        host: str,
        port: int,
        name: str,
        post: Callable[[Message], Any],
        token: Callable[[], str | None] = lambda: None,
        opening: Callable[[], Sequence[Request]] = lambda: (),
        early: Early | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.name = name
        self.post = post
        self.token = token
        self.opening = opening
        self.closed = False
        self.connected = False
        self._writer: asyncio.StreamWriter | None = None
        self._ids = itertools.count(1 + max((m.id or 0 for m in early.sent), default=0) if early else 1)
        self._pending: dict[int, type[ClientMessage]] = {}
        self._early = early
        self._ping_every = KEEPALIVE  # with nothing sent for this long, a ping (keepalive_every)
        self._sent = 0.0  # loop time the client last sent a request
        self._heard = 0.0  # loop time the server last sent bytes (any, even half a frame)
        self._owed_since: float | None = None  # an answer owed, nothing heard since then
        self._said_slow = False  # the banner says the server is silent
        self._welcomed = False  # this connection's hello was answered

    @property
    def address(self) -> str:
        return address_text(self.host, self.port)

    def request(self, kind: type[ClientMessage], **fields: Any) -> int | None:
        """Send a request of type ``kind`` (``kind(id=..., **fields)``); returns its id,
        or None when not connected (the caller says so; nothing is queued for later)."""
        writer = self._writer
        if writer is None or writer.is_closing():
            return None
        request_id = next(self._ids)
        message = kind(id=request_id, **fields)
        self._pending[request_id] = kind
        self._sent = asyncio.get_running_loop().time()
        if self._owed_since is None:
            self._owed_since = self._sent
        writer.write(encode(message))
        return request_id

    async def run(self) -> None:
        pause = FIRST_PAUSE
        while not self.closed:
            early, self._early = self._early, None
            try:
                if early is not None:
                    reader, writer = await asyncio.open_connection(sock=early.sock)
                else:
                    reader, writer = await asyncio.open_connection(self.host, self.port)
            except OSError as e:
                reason = why_not_reached(e)
                self.post(
                    ConnectionChanged(f"Cannot reach {self.address} ({reason}). Trying again in {pause:g} s.")
                )
                await asyncio.sleep(pause)
                pause = min(pause * 2, LONGEST_PAUSE)
                continue
            final = await self._session(reader, writer, early.sent if early is not None else None)
            if self._welcomed:  # a server that accepts and drops at once is not "back"
                pause = FIRST_PAUSE
            if self.closed:
                break
            if final is not None:
                self.post(ConnectionChanged(final, final=True))
                return
            self.post(ConnectionChanged(f"Connection to {self.address} lost. Reconnecting in {pause:g} s..."))
            await asyncio.sleep(pause)
            pause = min(pause * 2, LONGEST_PAUSE)

    async def _session(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, sent: list[ClientMessage] | None
    ) -> str | None:
        """One connection, until it drops; ``sent``: what was said on it already (the
        hello first). Returns a sentence if the server ended it for good (no point
        reconnecting), else None."""
        self._writer = writer
        self._pending.clear()
        self._welcomed = self._said_slow = False
        self._heard = self._sent = asyncio.get_running_loop().time()
        self._owed_since = self._heard if sent else None
        self._ping_every = KEEPALIVE  # until the welcome says the server's pace
        final: str | None = None
        watchdog = asyncio.ensure_future(self._watch_silence(writer))
        try:
            if sent is not None:
                self._pending.update((m.id, type(m)) for m in sent if m.id is not None)
            else:
                self.request(Hello, version=PROTOCOL_VERSION, name=self.name, token=self.token(), lobby=True)
                for kind, fields in self.opening():
                    self.request(kind, **fields)
            async for items in server_messages(reader):
                for item in items:
                    final = self._deliver(item)
                    if final is not None:
                        break
                self._heard_from_server()  # after the answers it brought were matched
                if final is not None:
                    break
        except (OSError, ConnectionError):
            pass
        finally:
            watchdog.cancel()
            self.connected = False
            self._writer = None
            writer.close()
        return final

    def _heard_from_server(self) -> None:
        """Bytes came: the connection lives. An answer still owed is timed from now."""
        self._heard = asyncio.get_running_loop().time()
        self._owed_since = self._heard if self._pending else None
        if self._said_slow and self._welcomed:
            self._said_slow = False
            self.post(ConnectionChanged(""))

    async def _watch_silence(self, writer: asyncio.StreamWriter) -> None:
        """The connection's one watcher: a ping when the client has sent nothing for the
        server's pace (its idle timeout, KEEPALIVE) or heard nothing for QUIET; a
        connection given up that stays silent while it owes an answer (SLOW, DEAD)."""
        loop = asyncio.get_running_loop()
        last = loop.time()
        while True:
            step = min(WATCH_EVERY, self._ping_every)
            await asyncio.sleep(step)
            now = loop.time()
            slept, last = now - last, now
            if slept > 3 * step:  # this client was stopped (kill -STOP, a debugger),
                self._heard_from_server()  # not the server: let the reads come in first
                continue
            if self._owed_since is None:
                if now - self._heard >= QUIET or now - self._sent >= self._ping_every:
                    self.request(Ping)
                continue
            silent = now - self._owed_since
            if silent >= DEAD:
                writer.transport.abort()  # the read loop ends; run() connects anew
                return
            if silent >= SLOW:
                self._said_slow = True
                self.post(
                    ConnectionChanged(
                        f"No answer from {self.address} for {silent:.0f} s. "
                        f"Connecting again after {DEAD:g} s..."
                    )
                )

    def _deliver(self, item: ServerMessage | ProtocolError) -> str | None:
        if isinstance(item, ProtocolError):  # the server sent something unreadable
            return None if not item.fatal else "The server sent a frame the client cannot read."
        kind = None
        request_id = getattr(item, "id", None)
        if request_id is not None:
            kind = self._pending.pop(request_id, None)
        if isinstance(item, Pong):
            return None  # the answer to the keep-alive: nothing for the app
        if isinstance(item, Welcome):
            # Connected once the server said so: not when a socket opened (a proxy in
            # front of a server that is down accepts, then drops at once).
            self._welcomed = self.connected = True
            self._said_slow = False
            self.post(ConnectionChanged(""))
            self._ping_every = keepalive_every(item.idle_timeout, item.turn_silence)
        self.post(ServerSaid(item, kind))
        if isinstance(item, Error) and item.fatal and item.code in FINAL:
            return item.text
        return None

    async def close(self) -> None:
        self.closed = True
        writer = self._writer
        if writer is not None:
            writer.close()
