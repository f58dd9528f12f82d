"""The TCP listener: accepts connections within the caps and runs a session for each.

``start_server`` is the one public entry (the client's local game and the
tests use it): it opens the storage, restores what it holds, listens, and
returns the running ``Server``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..protocol import errors as E
from ..protocol.address import address_text
from ..protocol.codec import encode
from ..protocol.messages import Error
from .fdlimit import listen_backlog, open_file_limit
from .handlers import Host
from .lobby import Lobby
from .logguard import Throttled
from .master import TableMaster
from .options import ServerOptions
from .session import Session
from .storage import Storage

log = logging.getLogger(__name__)


def address_key(host: str) -> str:
    """What a peer counts as for the per-address caps: its IPv4 address, or for IPv6 its
    /64 network (a household or a rented host gets a whole /64, so a cap on single IPv6
    addresses would cap nothing)."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        if not ip.is_loopback:
            return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


READ_SIZE = 256 * 1024  # bytes a socket read may take at most: asyncio's own figure
SHUTTING_DOWN = "The server is shutting down."


class Server:
    """A running server: ``host``, ``port``, ``address`` ("host:port") and ``close()``."""

    def __init__(self, storage: Storage, options: ServerOptions) -> None:
        self.storage = storage
        self.options = options
        self.lobby = Lobby(storage, options)
        self.sessions: set[Session] = set()
        self._stopping = False  # close has begun: new connections are told so and closed
        self._per_address: Counter[str] = Counter()
        # What the guards did: "refused" connections, "flood", "slow_reader", "bad_frame",
        # the timeouts by their error code...; and their log lines, at most one of a kind
        # every few seconds.
        self.stats: Counter[str] = Counter()
        self.warn = Throttled(log)
        self._host = Host(self.lobby, storage, self.stats, self.room_for_newcomer)
        self._read_buffer = memoryview(bytearray(READ_SIZE))  # every session's (Session.get_buffer)
        self._last_id = 0
        self._listener: asyncio.base_events.Server | None = None
        self._all_gone = asyncio.Event()  # every connection has ended (see close)
        self._all_gone.set()
        self.host = ""
        self.port = 0

    @property
    def address(self) -> str:
        return address_text(self.host, self.port)

    async def listen(self, host: str, port: int, sock: socket.socket | None = None) -> None:
        loop = asyncio.get_running_loop()
        backlog = listen_backlog(open_file_limit())  # as connection_cap counted it
        if sock is not None:
            self._listener = await loop.create_server(self._new_session, sock=sock, backlog=backlog)
        else:
            self._listener = await loop.create_server(self._new_session, host, port, backlog=backlog)
        sockname = self._listener.sockets[0].getsockname()
        self.host, self.port = sockname[0], sockname[1]
        log.info("listening on %s (storage %s)", self.address, self.storage.path)

    def _new_session(self) -> Session:
        self._last_id += 1
        return Session(
            self._last_id, self._host, self.options, self.warn, self._admit, self._left, self._read_buffer
        )

    def accept(self, transport: asyncio.Transport) -> asyncio.BaseProtocol:
        """Serve a connection that came some other way than the listener (an in-memory
        pipe: most tests run without sockets), exactly as an accepted socket is served:
        the same caps (its ``peername`` extra is its address), the same session. Returns
        the session, the protocol the transport is to feed."""
        session = self._new_session()
        transport.set_protocol(session)
        session.connection_made(transport)
        return session

    def _admit(self, session: Session, transport: asyncio.Transport) -> tuple[str, str] | None:
        """A new connection, within the caps: its (address, origin); else it is told why
        and closed (None)."""
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if peer else "?"
        origin = address_key(address)
        if self._stopping:
            # Come while the server says goodbye: never told to go, it held the stop for
            # the whole goodbye grace (and the lobby's tables, already stopped, had it).
            transport.write(encode(Error(id=None, code=E.SHUTTING_DOWN, text=SHUTTING_DOWN, fatal=True)))
            transport.close()
            return None
        full = len(self.sessions) >= self.options.max_connections
        cap = self.options.per_address(origin, self.options.max_per_address)
        if full or self._per_address[origin] >= cap:
            self.warn.warning("refused", "refused a connection from %s: too many", address)
            self.stats["refused"] += 1
            text = "The server is full." if full else f"Your address has {cap} connections open already."
            transport.write(encode(Error(id=None, code=E.TOO_MANY_CONNECTIONS, text=text, fatal=True)))
            transport.close()
            return None
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)  # notice peers that vanished
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sessions.add(session)
        self._per_address[origin] += 1
        self.lobby.arrive(session)
        self._all_gone.clear()
        log.debug("connection from %s", address)
        return address, origin

    def _left(self, session: Session) -> None:
        self.sessions.discard(session)
        self._per_address[session.origin] -= 1
        if self._per_address[session.origin] <= 0:
            del self._per_address[session.origin]
        if not self.sessions:
            self._all_gone.set()

    def table(self, table_id: int) -> TableMaster | None:
        """The open table ``table_id`` (its game, chairs, status), or None: for a host's
        tools and the tests, to look at, never to change."""
        return self.lobby.tables.get(table_id)

    def open_tables(self) -> list[TableMaster]:
        """Every open table, in the order they were opened."""
        return list(self.lobby.tables.values())

    def room_for_newcomer(self) -> bool:
        """Whether one more connection that is not in a chair may stay: ``player_reserve``
        of the places are kept for people who play (and those coming back to their
        chair with its token), so that lobby idlers cannot fill the server."""
        options = self.options
        reserve = int(options.max_connections * options.player_reserve)
        return len(self.sessions) - self.lobby.registry.seated <= options.max_connections - reserve

    async def close(self) -> None:
        """Stop listening, say goodbye to every connection, finish the writes in flight."""
        self._stopping = True
        if self._listener is not None:
            self._listener.close()
        await self.lobby.stop()
        for session in list(self.sessions):
            session.fail(E.SHUTTING_DOWN, SHUTTING_DOWN)
        if self.sessions:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._all_gone.wait(), timeout=self.options.goodbye_grace)
        # A peer that does not read keeps its goodbye queued, and its connection open,
        # for ever: cut it. From Python 3.12.1 on, the listener's wait_closed waits for
        # every connection it accepted to close.
        for session in list(self.sessions):
            session.abort()
        if self._listener is not None:
            await self._listener.wait_closed()
        await self.storage.close()
        log.info("stopped")

    async def serve_forever(self) -> None:
        assert self._listener is not None
        await self._listener.serve_forever()


async def start_server(
    host: str = "127.0.0.1",
    port: int = 0,
    db_path: str | Path | None = None,
    *,
    listen: bool = True,
    sock: socket.socket | None = None,
    **options: Any,
) -> Server:
    """Open the storage (in memory when ``db_path`` is None), restore its tables and
    unfinished games, and listen on ``host``:``port`` (0: any free port), or on
    ``sock``, a socket already listening (the client's local game makes it before it
    forks the server, so that it can connect at once: the kernel holds the connection
    until the server accepts it); with ``listen`` False it listens nowhere, and is
    reached only through ``accept``. Raises ``StorageError`` (one sentence) when the
    database cannot be served, ``OSError`` when the address cannot be listened on.

    ``options`` are the fields of ``ServerOptions`` (``bot_delay``, ``deal_pause``...).
    """
    settings = replace(ServerOptions(), **options)
    storage = Storage(db_path, settings.sync)
    server = Server(storage, settings)
    try:
        server.lobby.restore(storage.load())
        if listen:
            await server.listen(host, port, sock)
    except BaseException:
        await storage.close()
        raise
    server.lobby.start()
    return server
