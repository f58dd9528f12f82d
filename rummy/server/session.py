"""One connection: bytes in through the sans-I/O decoder, requests out to the handlers.

The session guards the server against its peer: a hello within
``hello_timeout``, a frame whole within ``frame_timeout`` once begun, a request
every ``idle_timeout`` while not at a table (``_watch``); a token-bucket rate
limit in which the requests that make the server send much cost more
(``handlers.cost``), a peer over it being read and answered a few times a
second only, and cut off if it goes on (a flood); the frame size cap (in the
decoder), and a cap on bytes queued for a peer that does not read (it is
dropped rather than allowed to eat memory). Requests of one connection are
handled one after another, in order.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ..protocol import errors as E
from ..protocol.codec import client_decoder, encode
from ..protocol.errors import ProtocolError
from ..protocol.messages import ClientMessage, Error
from .handlers import Host, cost, handle
from .logguard import Throttled
from .master import Visitor
from .options import ServerOptions
from .ratelimit import TokenBucket
from .refused import Refused

log = logging.getLogger(__name__)

READ_CHUNK = 64 * 1024
HOLD = 0.25  # seconds the answers to requests over the rate may wait, to go out together
FLOOD_WINDOW = 10.0  # seconds: more than flood_limit dropped requests in about this long is a flood


class Session:
    def __init__(
        self,
        conn_id: int,
        host: Host,
        options: ServerOptions,
        warn: Throttled,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        address: str,
        origin: str,
    ) -> None:
        self.id = conn_id
        self.host = host
        self.options = options
        self.warn = warn  # the server's log, a line of each kind every few seconds
        self.reader = reader
        self.writer = writer
        self.address = address  # the peer's IP address, for the log
        self.origin = origin  # what it counts as for the per-address caps
        self.name = ""
        self.said_hello = False
        self.wants_legal_moves = False
        self.visitor = Visitor(conn_id, "")
        self._closed = False
        self._over_rate = False  # a request was refused for the rate: read it less often
        self._held = bytearray()  # answers to send soon (see _hold)
        self._release: asyncio.TimerHandle | None = None
        self._decoder = client_decoder()
        self._bucket = TokenBucket(options.rate, options.burst)
        # Dropped requests are counted over a window, so a client that goes over the
        # rate now and then is not cut off for good after its hundredth slip.
        limit = options.flood_limit
        self._drops = TokenBucket(limit / FLOOD_WINDOW, limit)

    @property
    def closed(self) -> bool:
        return self._closed

    def said_hello_as(self, name: str, legal_moves: bool) -> None:
        self.name, self.wants_legal_moves, self.said_hello = name, legal_moves, True
        self.visitor = Visitor(self.id, name, legal_moves)

    # --- sending ------------------------------------------------------------------------

    def send(self, message: Any) -> None:
        self.send_frame(encode(message))

    def send_frame(self, data: bytes) -> None:
        if self._held:  # answers held back go first, so that answers keep their order
            data = bytes(self._held) + data
            self._held.clear()
        if self._closed:
            return
        transport = self.writer.transport
        if transport.is_closing():
            self._closed = True
            return
        if transport.get_write_buffer_size() + len(data) > self.options.max_write_buffer:
            self.warn.warning("slow-reader", "%s does not read its frames; dropped", self.address)
            self.host.stats["slow_reader"] += 1
            self._closed = True
            transport.abort()
            return
        self.writer.write(data)

    def queued(self) -> int:
        """Bytes sent that the peer has not read yet (in the transport's buffer)."""
        if self._closed:
            return 0
        return self.writer.transport.get_write_buffer_size() + len(self._held)

    def _hold(self, data: bytes) -> None:
        """Send ``data`` within ``HOLD`` seconds, with whatever else comes meanwhile: a
        connection over its rate is answered in a few writes a second, not one each
        (a write is a system call: the most of what an answer costs the server)."""
        self._held += data
        if self._release is None:
            self._release = asyncio.get_running_loop().call_later(HOLD, self._let_go)

    def _let_go(self) -> None:
        self._release = None
        if self._held:
            self.send_frame(b"")

    def fail(self, code: str, text: str, request_id: int | None = None) -> None:
        """Send a last error and close (what is queued is still delivered)."""
        self.send(Error(id=request_id, code=code, text=text, fatal=True))
        self.close()

    def close(self) -> None:
        if not self._closed:
            if self._held:
                self.send_frame(b"")
            if self._release is not None:
                self._release.cancel()
            self._closed = True
            self.writer.close()

    # --- receiving -----------------------------------------------------------------------

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        self._opened_at = self._heard_at = loop.time()
        self._partial_since: float | None = None  # when the frame now arriving began
        self._watchdog: asyncio.TimerHandle | None = None
        self._watch()
        try:
            while not self._closed:
                data = await self.reader.read(READ_CHUNK)
                if not data:
                    break
                items = self._decoder.feed(data)
                if items:
                    self._heard_at = loop.time()
                if self._decoder.buffered and self._partial_since is None:
                    self._partial_since = loop.time()
                    self._watch()  # a frame began: its deadline may come first
                elif not self._decoder.buffered:
                    self._partial_since = None
                for item in items:
                    if self._closed:
                        break
                    said_hello = self.said_hello
                    await self._receive(item)
                    if self.said_hello != said_hello:
                        self._watch()  # from the hello deadline to the idle one
                if self._over_rate:
                    self._over_rate = False
                    await self._pause()
        except (ConnectionError, OSError):
            pass
        finally:
            if self._watchdog is not None:
                self._watchdog.cancel()
            self._gone()

    async def _pause(self) -> None:
        """Over its rate: leave what it sends in the kernel for ``HOLD`` seconds, then
        read and answer all of it at once (reading and answering each request of a
        flood on its own was the most of what the flood cost the server)."""
        transport = self.writer.transport
        assert isinstance(transport, asyncio.Transport)  # a TCP stream's: it reads too
        transport.pause_reading()
        try:
            await asyncio.sleep(HOLD)
        finally:
            if not transport.is_closing():
                transport.resume_reading()

    def _watch(self) -> None:
        """The connection's one timer, at its next deadline: ``hello`` within
        ``hello_timeout``; a frame, once begun, whole within ``frame_timeout`` (a frame
        left a few bytes short held its buffer for ever); and, for a connection not at
        a table, a request at least every ``idle_timeout`` (idle connections that had
        said hello were held for ever and filled the server). People at a table, in a
        chair or watching, are never idle: the table's own clocks deal with them."""
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        if self._closed:
            return
        options = self.options
        loop = asyncio.get_running_loop()
        now = loop.time()
        if not self.said_hello:
            due, code, text = self._opened_at + options.hello_timeout, E.HELLO_TIMEOUT, "No hello in time."
        elif self.host.lobby.registry.place_of(self.id) is None:
            due, code, text = (
                self._heard_at + options.idle_timeout,
                E.IDLE_TIMEOUT,
                f"Nothing heard from you for {options.idle_timeout:g} s: goodbye.",
            )
        else:
            due, code, text = now + options.idle_timeout, "", ""  # look again later
        if self._partial_since is not None and self._partial_since + options.frame_timeout < due:
            due = self._partial_since + options.frame_timeout
            code, text = E.FRAME_TIMEOUT, f"A frame took more than {options.frame_timeout:g} s to arrive."
        if now >= due and code:
            self.host.stats[code] += 1
            self.fail(code, text)
            return
        self._watchdog = loop.call_at(max(due, now + 0.001), self._watch)

    async def _receive(self, item: ClientMessage | ProtocolError) -> None:
        options = self.options
        price = options.bad_frame_cost if isinstance(item, ProtocolError) else cost(item, options)
        if not self._bucket.allow(price):
            if not self._drops.allow():
                self.warn.warning("flood", "%s floods; cut off", self.address)
                self.host.stats["flood"] += 1
                self.fail(E.FLOOD, "Too many requests: goodbye.")
                return
            # Every request gets exactly one answer, so a client that waits for each
            # id never hangs: a dropped one is answered with this error and its id.
            rid = item.request_id if isinstance(item, ProtocolError) else item.id
            self._over_rate = True
            self._hold(
                encode(Error(id=rid, code=E.RATE_LIMITED, text="Too many requests: this one was dropped."))
            )
            return
        if isinstance(item, ProtocolError):
            self.host.stats["bad_frame"] += 1
            self.warn.warning("bad-frame", "%s sent a bad frame: %s", self.address, item.text)
            self.send(Error(id=item.request_id, code=item.code, text=item.text, fatal=item.fatal))
            if item.fatal:
                self.close()
            return
        try:
            await handle(self, item, self.host)
        except Refused as refused:
            self.send(Error(id=item.id, code=refused.code, text=refused.text))
        except Exception:
            # A bug: its traceback is logged (at most once every few seconds, however often
            # a peer finds it), the peer told that nothing changed.
            self.warn.log(
                logging.ERROR,
                "internal",
                "request %s from %s failed",
                type(item).__name__,
                self.address,
                exc_info=True,
            )
            self.send(
                Error(id=item.id, code=E.INTERNAL, text="The server failed on this request; nothing changed.")
            )

    def _gone(self) -> None:
        """The connection is over: keep the chair for its token, stop the pushes."""
        self.close()
        self.host.lobby.depart(self)
