"""Where this client stands on the server, held in one place: the tables of the
lobby, the table one sits at or watches, one's chair and seat (or spectator number).

The app changes it as the server's messages come; the lobby and the table screen
only read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rummy.protocol import TableInfo


@dataclass(slots=True)
class Session:
    tables: dict[int, TableInfo] = field(default_factory=dict)  # the lobby's list
    table_id: int | None = None  # the table one sits at or watches
    table: TableInfo | None = None  # its latest state
    chair: int | None = None  # one's chair there (None: watching, or no table)
    seat: int | None = None  # one's seat in the game there (None before it, or watching)
    watching: bool = False
    spectator: int | None = None  # one's own number among its spectators (nil: not sent)
    moves_seen: int = 0  # the moves count of the last game push
    # A table whose game holds one's chair (away) since one left it for the lobby: its
    # seat token is kept, and sitting there again takes the chair back.
    held: int | None = None

    @property
    def at_table(self) -> bool:
        return self.table is not None

    @property
    def seated(self) -> bool:
        return self.table is not None and not self.watching

    @property
    def creator(self) -> bool:
        """Seated at a waiting table as its creator: may seat bots and start."""
        return (
            self.seated
            and self.table is not None
            and self.table.creator == self.chair
            and self.table.status == "waiting"
        )

    def sit(self, table_id: int, chair: int) -> None:
        self.table_id, self.chair, self.watching = table_id, chair, False

    def watch(self, table_id: int, spectator: int | None = None) -> None:
        self.table_id, self.chair, self.watching = table_id, None, True
        self.spectator = spectator

    def arrive(self, info: TableInfo) -> None:
        """The state of one's table came."""
        self.table_id, self.table = info.table_id, info
        self.tables[info.table_id] = info

    def leave(self) -> None:
        """No table any more."""
        self.table_id = self.table = self.chair = self.seat = None
        self.watching = False
        self.spectator = None
        self.moves_seen = 0
