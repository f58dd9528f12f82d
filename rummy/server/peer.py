"""What tables and the lobby need of a connection: a name, where it is, a way to send.

``Session`` implements it; tests may use any object that does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .table import Table


class Refused(Exception):
    """A request refused with a stable ``code`` and a sentence; nothing changed."""

    def __init__(self, code: str, text: str) -> None:
        super().__init__(text)
        self.code = code
        self.text = text


class Peer(Protocol):
    name: str
    origin: str  # the address (IPv6: the /64) its per-address caps count it under
    table: Table | None
    chair: int | None  # None: not seated (a spectator when ``table`` is set)
    wants_legal_moves: bool  # the hello asked for the seat's legal moves in game pushes

    @property
    def closed(self) -> bool: ...

    def send(self, message: Any) -> None: ...

    def send_frame(self, data: bytes) -> None: ...
