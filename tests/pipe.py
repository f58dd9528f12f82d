"""In-memory connections to a server: most server tests need no socket.

``connect_pipe(server)`` gives a ``StreamReader``/``StreamWriter`` pair whose far end
the server serves through ``Server.accept``, exactly as it serves an accepted socket
(the same session, caps, rate limits and timeouts). What one end writes reaches the
other end's protocol on a later turn of the loop, as bytes from a socket would, in
whatever pieces the writes made; a reader that pauses leaves the writer's bytes in
the writer's buffer (``get_write_buffer_size``), as the kernel's buffers would, and
a writer past the high-water mark is asked to pause (``pause_writing``).

What only a socket shows (the kernel's buffers, TCP options, a port in use, another
process) stays in the socket tests.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from rummy.server import Server

HIGH_WATER = 64 * 1024
LOW_WATER = 16 * 1024
_ports = itertools.count(40_000)


class PipeEnd(asyncio.Transport):
    """One end of an in-memory stream."""

    def __init__(self, loop: asyncio.AbstractEventLoop, peername: tuple[str, int]) -> None:
        super().__init__(extra={"peername": peername, "socket": None})
        self._loop = loop
        self.peer: PipeEnd | None = None
        self._protocol: asyncio.BaseProtocol | None = None
        self._outbox = bytearray()
        self._reading = True
        self._closing = False  # close() was called: what is written still goes out
        self._lost = False  # the connection is over for this end
        self._writing_paused = False
        self._flush_due = False

    @staticmethod
    def pair(address: str) -> tuple[PipeEnd, PipeEnd]:
        """(the client's end, the server's end); the server sees ``address`` as its peer."""
        loop = asyncio.get_running_loop()
        client = PipeEnd(loop, ("127.0.0.1", 1))
        served = PipeEnd(loop, (address, next(_ports)))
        client.peer, served.peer = served, client
        return client, served

    # --- asyncio.Transport ----------------------------------------------------------------

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._protocol = protocol

    def get_protocol(self) -> asyncio.BaseProtocol:
        assert self._protocol is not None
        return self._protocol

    def is_reading(self) -> bool:
        return self._reading and not self._lost

    def pause_reading(self) -> None:
        self._reading = False

    def resume_reading(self) -> None:
        self._reading = True
        if self.peer is not None:
            self.peer._schedule()

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self._closing or self._lost:
            return
        self._outbox += data
        self._schedule()
        self._check_pressure()

    def get_write_buffer_size(self) -> int:
        return len(self._outbox)

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return LOW_WATER, HIGH_WATER

    def can_write_eof(self) -> bool:
        return False

    def is_closing(self) -> bool:
        return self._closing or self._lost

    def close(self) -> None:
        if not (self._closing or self._lost):
            self._closing = True
            self._schedule()

    def abort(self) -> None:
        """Gone at once, with what was not yet read: both ends lose the connection."""
        self._closing = True
        self._lose()
        if self.peer is not None:
            self.peer._lose()

    # --- delivery -------------------------------------------------------------------------

    def _schedule(self) -> None:
        if not self._flush_due:
            self._flush_due = True
            self._loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_due = False
        peer = self.peer
        if self._lost or peer is None:
            return
        if peer._lost:
            self._outbox.clear()  # nobody will read it (a socket would be reset)
        if self._outbox and peer._reading:
            data = bytes(self._outbox)
            self._outbox.clear()
            protocol: Any = peer._protocol
            protocol.data_received(data)
            self._check_pressure()
        if self._closing and not self._outbox:
            # All of it sent: the peer reads the end of the stream; this end is done.
            self._lose()
            if not peer._lost:
                protocol = peer._protocol
                if not protocol.eof_received():
                    peer.close()

    def _lose(self) -> None:
        if self._lost:
            return
        self._lost = True
        self._outbox.clear()
        assert self._protocol is not None
        self._loop.call_soon(self._protocol.connection_lost, None)
        if self.peer is not None and not self.peer._lost:
            # The other end may be closing with bytes this end never read (it had paused
            # reading): with nobody to read them it is done, as a socket is. Without a
            # look again it waited for ever, and so did its ``wait_closed``.
            self.peer._schedule()

    def _check_pressure(self) -> None:
        protocol: Any = self._protocol
        size = len(self._outbox)
        if not self._writing_paused and size > HIGH_WATER:
            self._writing_paused = True
            protocol.pause_writing()
        elif self._writing_paused and size <= LOW_WATER:
            self._writing_paused = False
            protocol.resume_writing()


async def connect_pipe(
    server: Server, address: str = "127.0.0.1"
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A stream to ``server`` with no socket, coming from ``address`` (another loopback
    address, as 127.0.0.2: another household for the per-address caps)."""
    loop = asyncio.get_running_loop()
    client, served = PipeEnd.pair(address)
    reader = asyncio.StreamReader()
    protocol = asyncio.StreamReaderProtocol(reader)
    client.set_protocol(protocol)
    server.accept(served)
    protocol.connection_made(client)
    return reader, asyncio.StreamWriter(client, protocol, reader, loop)
