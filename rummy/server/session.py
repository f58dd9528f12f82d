"""One connection: bytes in through the sans-I/O decoder, requests out to the handlers.

The session guards the server against its peer: a hello within
``hello_timeout``, a frame whole within ``frame_timeout`` once begun, a request
every ``idle_timeout`` while not at a table (``_watch``) and within
``turn_silence`` while the game waits for its move (``silent_turn``); a
token-bucket rate limit in which the requests that make the server send much
cost more (``handlers.cost``), a peer over it being read and answered a few times a
second only, and cut off if it goes on (a flood); the frame size cap (in the
decoder), and a cap on bytes queued for a peer that does not read (it is
dropped rather than allowed to eat memory). Requests of one connection are
handled one after another, in order.

A session is an ``asyncio.BufferedProtocol``: the transport reads the socket into
the server's one read buffer (``get_buffer``), and the bytes come to
``data_received``; the requests they hold wait in ``_inbox``, handled there and then, in order; one
whose answer waits (for its table's commit) holds the rest back until it is
done, and they go on from its future's callback. No task or coroutine is kept
for a connection: a stream reader per connection kept a task, a coroutine and a
future alive for every idle one (at 4,000 connections they were most of what
each garbage collection had to walk), and a task per request was a good part of
what a move cost the server.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from ..engine import SEAT_NAMES
from ..protocol import errors as E
from ..protocol.codec import client_decoder, encode
from ..protocol.errors import ProtocolError
from ..protocol.messages import ClientMessage, Error
from ..protocol.ratelimit import TokenBucket
from .changes import Visitor
from .handlers import Host, cost, handle
from .logguard import Throttled
from .options import ServerOptions
from .refused import Refused

log = logging.getLogger(__name__)

INBOX_LIMIT = 64  # requests waiting to be handled before the connection is read no more
HOLD = 0.25  # seconds the answers to requests over the rate may wait, to go out together
FLOOD_WINDOW = 10.0  # seconds: more than flood_limit dropped requests in about this long is a flood


class Session(asyncio.BufferedProtocol):
    # Slots: a server holds thousands of sessions, and fields in slots take no
    # dictionary beside each one (with the master's and runner's: 142 -> 128 MiB at
    # 8,000 connections and 2,000 tables).
    __slots__ = (
        "_admit",
        "_admitted",
        "_backing_off",
        "_bucket",
        "_closed",
        "_decoder",
        "_drops",
        "_ended",
        "_heard_at",
        "_held",
        "_inbox",
        "_left",
        "_lost",
        "_opened_at",
        "_over_rate",
        "_partial_since",
        "_paused",
        "_read_buffer",
        "_release",
        "_waiting",
        "_watchdog",
        "address",
        "host",
        "id",
        "name",
        "options",
        "origin",
        "said_hello",
        "transport",
        "visitor",
        "wants_legal_moves",
        "warn",
    )

    def __init__(
        self,
        conn_id: int,
        host: Host,
        options: ServerOptions,
        warn: Throttled,
        admit: Callable[[Session, asyncio.Transport], tuple[str, str] | None],
        left: Callable[[Session], None],
        read_buffer: memoryview,
    ) -> None:
        self.id = conn_id
        self.host = host
        self.options = options
        self.warn = warn  # the server's log, a line of each kind every few seconds
        self._admit = admit  # the listener's caps: (address, origin), or None if refused
        self._left = left  # the listener's: the connection is over
        self._read_buffer = read_buffer  # the server's, shared by its connections (get_buffer)
        self.transport: asyncio.Transport | None = None
        self.address = "?"  # the peer's IP address, for the log
        self.origin = "?"  # what it counts as for the per-address caps
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
        self._inbox: deque[ClientMessage | ProtocolError] = deque()
        self._waiting: asyncio.Future[Any] | None = None  # the answer the inbox waits for
        self._backing_off: asyncio.TimerHandle | None = None  # over the rate: reading again then
        self._paused: set[str] = set()  # why reading is paused: "rate", "inbox"
        self._lost = False  # the connection is over (its last requests may still be handled)
        self._admitted = False
        self._ended = False
        self._watchdog: asyncio.TimerHandle | None = None
        self._partial_since: float | None = None  # when the frame now arriving began
        self._opened_at = self._heard_at = 0.0

    @property
    def closed(self) -> bool:
        return self._closed

    def said_hello_as(self, name: str, legal_moves: bool) -> None:
        self.name, self.wants_legal_moves, self.said_hello = name, legal_moves, True
        self.visitor = Visitor(self.id, name, legal_moves, self.origin)

    # --- sending ------------------------------------------------------------------------

    def send(self, message: Any) -> None:
        self.send_frame(encode(message))

    def send_frame(self, data: bytes) -> None:
        if self._held:  # answers held back go first, so that answers keep their order
            data = bytes(self._held) + data
            self._held.clear()
        transport = self.transport
        if self._closed or transport is None:
            return
        if transport.is_closing():
            self._closed = True
            return
        if transport.get_write_buffer_size() + len(data) > self.options.max_write_buffer:
            self.warn.warning("slow-reader", "%s does not read its frames; dropped", self.address)
            self.host.stats["slow_reader"] += 1
            self.abort()
            return
        transport.write(data)

    def queued(self) -> int:
        """Bytes sent that the peer has not read yet (in the transport's buffer)."""
        if self._closed or self.transport is None:
            return 0
        return self.transport.get_write_buffer_size() + len(self._held)

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
            if self.transport is not None:
                self.transport.close()

    def abort(self) -> None:
        """Close at once, dropping what is queued for the peer (it does not read)."""
        self._closed = True
        if self._release is not None:
            self._release.cancel()
        if self.transport is not None:
            self.transport.abort()

    # --- receiving -----------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)  # a TCP stream's
        self.transport = transport
        admitted = self._admit(self, transport)
        if admitted is None:  # refused (too many connections): already told and closed
            self._closed = True
            return
        self._admitted = True
        self.address, self.origin = admitted
        self._opened_at = self._heard_at = asyncio.get_running_loop().time()
        self._watch()

    def get_buffer(self, sizehint: int) -> memoryview:
        """Where the transport reads the socket into: the server's one buffer, shared by
        every connection, as the loop reads one socket at a time and ``buffer_updated``
        takes the bytes out before the next read. Left to itself, asyncio reads each
        time into a new 256 KiB ``bytes``: a block that large gets its own mmap from
        glibc (a map, shrink and unmap, and page faults, for every read) unless frees
        of such blocks have raised glibc's threshold, which made a move's CPU 10-30 %
        dearer or not, by what the process had done before."""
        return self._read_buffer

    def buffer_updated(self, nbytes: int) -> None:
        self.data_received(bytes(self._read_buffer[:nbytes]))

    def data_received(self, data: bytes) -> None:
        if self._closed:
            return
        now = asyncio.get_running_loop().time()
        items = self._decoder.feed(data)
        if items:
            self._heard_at = now
        if self._decoder.buffered and self._partial_since is None:
            self._partial_since = now
            self._watch()  # a frame began: its deadline may come first
        elif not self._decoder.buffered:
            self._partial_since = None
        if not items:
            return
        self._inbox.extend(items)
        if len(self._inbox) >= INBOX_LIMIT:
            self._pause_reading("inbox")  # what it sends waits in the kernel meanwhile
        if not self._busy:
            self._drain()

    def eof_received(self) -> bool:
        return False  # close: a peer that stops sending has gone

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = True
        if not self._admitted:
            return
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        if not self._busy:  # else it ends once what came is handled
            self._gone()

    @property
    def _busy(self) -> bool:
        """Handling the inbox waits: for an answer, or for the rate's back-off."""
        return self._waiting is not None or self._backing_off is not None

    def _drain(self) -> None:
        """Handle the requests that came, one after another, in order, until one's
        answer has to wait (``_answered`` goes on from there) or none is left."""
        while self._inbox and not self._closed:
            item = self._inbox.popleft()
            said_hello = self.said_hello
            pending = self._receive(item)
            if self.said_hello != said_hello:
                self._watch()  # from the hello deadline to the idle one
            if pending is not None:
                assert not isinstance(item, ProtocolError)  # answered at once, always
                answer = asyncio.ensure_future(pending)
                if not answer.done():
                    self._waiting = answer
                    answer.add_done_callback(functools.partial(self._answered, item=item))
                    return
                self._settle(item, answer)
        if self._over_rate and not self._closed:  # all that came is answered: now hold off a while
            self._over_rate = False
            self._back_off()
            return
        self._inbox.clear()  # if closed: what is left is not answered
        self._resume_reading("inbox")
        if self._lost:
            self._gone()

    def _answered(self, answer: asyncio.Future[Any], item: ClientMessage) -> None:
        self._waiting = None
        self._settle(item, answer)
        self._drain()

    def _settle(self, item: ClientMessage, answer: asyncio.Future[Any]) -> None:
        """A request's answer came: it said what it had to (a refusal is said here)."""
        if answer.cancelled():
            return
        error = answer.exception()
        if error is not None:
            self._refuse(item, error)

    def _pause_reading(self, why: str) -> None:
        if not self._paused and self.transport is not None and not self.transport.is_closing():
            self.transport.pause_reading()
        self._paused.add(why)

    def _resume_reading(self, why: str) -> None:
        self._paused.discard(why)
        if not self._paused and self.transport is not None and not self.transport.is_closing():
            self.transport.resume_reading()

    def _back_off(self) -> None:
        """Over its rate: leave what it sends in the kernel for ``HOLD`` seconds, then
        read and answer all of it at once (reading and answering each request of a
        flood on its own was the most of what the flood cost the server)."""
        self._resume_reading("inbox")
        self._pause_reading("rate")
        self._backing_off = asyncio.get_running_loop().call_later(HOLD, self._backed_off)

    def _backed_off(self) -> None:
        self._backing_off = None
        self._resume_reading("rate")
        self._drain()

    def _watch(self) -> None:
        """The connection's one timer, at its next deadline: ``hello`` within
        ``hello_timeout``; a frame, once begun, whole within ``frame_timeout`` (a frame
        left a few bytes short held its buffer for ever); and, for a connection not at
        a table, a request at least every ``idle_timeout`` (idle connections that had
        said hello were held for ever and filled the server). People at a table, in a
        chair or watching, are not idle: the table's own clocks deal with them, and
        the lobby's sweeper with a player silent on their turn (``silent_turn``)."""
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
            # Said as the other closings are, through the throttle: a host finds why a
            # connection went (a lobby left open overnight, a half-open connection
            # holding a place), and a crowd of them cannot fill the log.
            self.warn.log(logging.INFO, code, "%s closed (%s): %s", self.address, code, text)
            self.fail(code, text)
            return
        self._watchdog = loop.call_at(max(due, now + 0.001), self._watch)

    def silent_turn(self, limit: float, table_id: int, seat: int) -> None:
        """The game has waited ``limit`` seconds for this player's move (the lobby's
        sweeper says so): if nothing came from them meanwhile either, they are taken
        for gone and the connection closed, their chair held as when they drop. A
        laptop shut or a network gone leaves a connection that TCP keeps for ever when
        nothing is sent on it, and the table waited on a player shown present."""
        if self._closed or asyncio.get_running_loop().time() - self._heard_at < limit:
            return
        self.host.stats[E.SILENT_TURN] += 1
        # Said as the other closings are, through the server's throttle: a host asking
        # why a player went away finds it, and a table of players who keep going silent
        # cannot fill the log. The table and seat say which game; never a token.
        self.warn.log(
            logging.INFO,
            E.SILENT_TURN,
            "%s silent for %g s on its turn at table %s, seat %s (%s): closed, its chair held",
            self.address,
            limit,
            table_id,
            seat,
            SEAT_NAMES[seat],
        )
        self.fail(
            E.SILENT_TURN,
            f"Nothing heard from you for {limit:g} s while the game waited for your move:"
            " your chair is held for your seat token.",
        )

    def _receive(self, item: ClientMessage | ProtocolError) -> Awaitable[Any] | None:
        """Answer ``item``, or return what its answer waits for."""
        options = self.options
        price = options.bad_frame_cost if isinstance(item, ProtocolError) else cost(item, options)
        if not self._bucket.allow(price):
            if not self._drops.allow():
                self.warn.warning("flood", "%s floods; cut off", self.address)
                self.host.stats["flood"] += 1
                self.fail(E.FLOOD, "Too many requests: goodbye.")
                return None
            # Every request gets exactly one answer, so a client that waits for each
            # id never hangs: a dropped one is answered with this error and its id.
            rid = item.request_id if isinstance(item, ProtocolError) else item.id
            self._over_rate = True
            self._hold(
                encode(Error(id=rid, code=E.RATE_LIMITED, text="Too many requests: this one was dropped."))
            )
            return None
        if isinstance(item, ProtocolError):
            self.host.stats["bad_frame"] += 1
            self.warn.warning("bad-frame", "%s sent a bad frame: %s", self.address, item.text)
            self.send(Error(id=item.request_id, code=item.code, text=item.text, fatal=item.fatal))
            if item.fatal:
                self.close()
            return None
        try:
            return handle(self, item, self.host)
        except Exception as error:
            self._refuse(item, error)
            return None

    def _refuse(self, item: ClientMessage, error: BaseException) -> None:
        """Tell the peer its request ``item`` changed nothing: refused, or a bug."""
        if isinstance(error, Refused):
            self.send(Error(id=item.id, code=error.code, text=error.text))
            return
        # A bug: its traceback is logged (at most once every few seconds, however often
        # a peer finds it), the peer told that nothing changed.
        self.warn.log(
            logging.ERROR,
            "internal",
            "request %s from %s failed",
            type(item).__name__,
            self.address,
            exc_info=error,
        )
        text = "The server failed on this request; nothing changed."
        self.send(Error(id=item.id, code=E.INTERNAL, text=text))

    def _gone(self) -> None:
        """The connection is over: keep the chair for its token, stop the pushes."""
        if self._ended:
            return
        self._ended = True
        self.close()
        self.host.lobby.depart(self)
        self._left(self)
