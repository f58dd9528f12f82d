"""What the lobby and the tables' runners need of a connection: an id, a name, a way to send.

``Session`` implements it; tests may use any object that does. Where a connection
sits is not its own to say: the lobby's registry keeps that (``Lobby.place_of``).
"""

from __future__ import annotations

from typing import Any, Protocol

from .changes import Visitor


class Peer(Protocol):
    id: int  # unique among the server's connections
    name: str
    origin: str  # the address (IPv6: the /64) its per-address caps count it under
    wants_legal_moves: bool  # the hello asked for the seat's legal moves in game pushes

    @property
    def closed(self) -> bool: ...

    def send(self, message: Any) -> None: ...

    def send_frame(self, data: bytes) -> None: ...

    def queued(self) -> int:
        """Bytes sent to it that it has not read yet (still in our buffers)."""
        ...

    def silent_turn(self, limit: float, table_id: int, seat: int) -> None:
        """The game at table ``table_id`` has waited ``limit`` seconds for the move of
        its ``seat``: closed if it has sent nothing for as long
        (``ServerOptions.turn_silence``); the table and seat are for the log."""
        ...


class Connection(Peer, Protocol):
    """A peer as the request handlers see it (``Session`` is one)."""

    @property
    def said_hello(self) -> bool: ...

    @property
    def visitor(self) -> Visitor: ...

    def said_hello_as(self, name: str, legal_moves: bool) -> None: ...

    def fail(self, code: str, text: str, request_id: int | None = None) -> None: ...
