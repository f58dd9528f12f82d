"""Who sits where: the lobby's registry of connections, places and seat tokens.

The one record of which table (and chair) each connection is at, and which chair
each seat token opens. Tables never write a connection's fields: their outcomes
say who arrived and who left, and their runners enter that here.
"""

from __future__ import annotations

from .peer import Peer
from .statements import token_hash

Place = tuple[int, int | None]  # (table id, chair; None: watching)


class Registry:
    def __init__(self) -> None:
        self.connections: dict[int, Peer] = {}  # every connection, by id
        self._places: dict[int, Place] = {}
        self._tokens: dict[str, tuple[int, int]] = {}  # token hash -> (table id, chair)
        self.seated = 0  # connections in a chair (people who play)

    # --- connections -----------------------------------------------------------------

    def connect(self, peer: Peer) -> None:
        self.connections[peer.id] = peer

    def disconnect(self, conn: int) -> Place | None:
        """The connection is gone; returns where it was (its table has yet to hear it)."""
        self.connections.pop(conn, None)
        place = self._places.pop(conn, None)
        if place is not None and place[1] is not None:
            self.seated -= 1
        return place

    def send(self, conn: int, data: bytes) -> None:
        peer = self.connections.get(conn)
        if peer is not None:
            peer.send_frame(data)

    # --- places ----------------------------------------------------------------------

    def place_of(self, conn: int) -> Place | None:
        return self._places.get(conn)

    def place(self, conn: int, table_id: int, chair: int | None) -> None:
        if conn not in self.connections:
            return  # gone while its place was being stored: its table is told (see runner)
        self.unplace(conn, table_id)
        self._places[conn] = (table_id, chair)
        if chair is not None:
            self.seated += 1

    def unplace(self, conn: int, table_id: int) -> None:
        """The connection left table ``table_id`` (no change if it is elsewhere now)."""
        place = self._places.get(conn)
        if place is not None and place[0] == table_id:
            del self._places[conn]
            if place[1] is not None:
                self.seated -= 1

    # --- seat tokens -------------------------------------------------------------------

    def add_token(self, hashed: str, table_id: int, chair: int) -> None:
        self._tokens[hashed] = (table_id, chair)

    def drop_token(self, hashed: str) -> None:
        self._tokens.pop(hashed, None)

    def find_token(self, token: str) -> tuple[int, int] | None:
        return self._tokens.get(token_hash(token))
