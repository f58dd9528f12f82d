"""The lobby: every open table, who follows the table list, and the seat tokens.

It also restores the tables and their unfinished games from storage at start
(replaying each game's moves from its seed), and closes tables nobody has been
at for a while.
"""

from __future__ import annotations

import asyncio
import logging
import time

import msgspec

from ..engine import Game, GameRecord, IllegalMove, move_from_data
from ..protocol import errors as E
from ..protocol.codec import encode
from ..protocol.messages import Lobby as LobbyMessage
from ..protocol.messages import LobbyGone, LobbyTable, TableInfo, TableOptions
from .options import ServerOptions
from .peer import Peer, Refused
from .storage import Snapshot, Storage, StoredTable, token_hash
from .table import Chair, Table

log = logging.getLogger(__name__)


class Lobby:
    def __init__(self, storage: Storage, options: ServerOptions) -> None:
        self.storage = storage
        self.options = options
        self.tables: dict[int, Table] = {}
        self.subscribers: set[Peer] = set()
        self._tokens: dict[str, tuple[Table, int]] = {}  # token hash -> (table, chair)
        self._last_table_id = 0
        self._last_game_id = 0
        self._creating = 0

    # --- ids and tokens ----------------------------------------------------------------

    def next_game_id(self) -> int:
        self._last_game_id += 1
        return self._last_game_id

    def register_token(self, hashed: str, table: Table, chair: int) -> None:
        self._tokens[hashed] = (table, chair)

    def unregister_token(self, hashed: str) -> None:
        self._tokens.pop(hashed, None)

    def find_token(self, token: str) -> tuple[Table, int] | None:
        return self._tokens.get(token_hash(token))

    # --- the table list -----------------------------------------------------------------

    def subscribe(self, peer: Peer) -> None:
        self.subscribers.add(peer)
        peer.send(LobbyMessage(tables=[t.info() for t in self.tables.values()]))

    def unsubscribe(self, peer: Peer) -> None:
        self.subscribers.discard(peer)

    def _broadcast(self, data: bytes) -> None:
        for peer in self.subscribers:
            peer.send_frame(data)

    def table_changed(self, info: TableInfo) -> None:
        if self.subscribers and info.table_id in self.tables:
            self._broadcast(encode(LobbyTable(table=info)))

    def remove_table(self, table: Table) -> None:
        if self.tables.pop(table.id, None) is not None:
            self._broadcast(encode(LobbyGone(table_id=table.id)))

    async def create_table(
        self, peer: Peer, name: str, options: TableOptions, chair: int
    ) -> tuple[Table, str]:
        """A new table with ``peer`` in ``chair`` as its creator; returns it and the token."""
        if len(self.tables) + self._creating >= self.options.max_tables:
            raise Refused(E.TOO_MANY_TABLES, "The server holds as many tables as it can; join one.")
        self._last_table_id += 1
        table = Table(self, self._last_table_id, name, options, chair)
        self._creating += 1
        try:
            await self.storage.write(
                [self.storage.new_table(table.id, name, msgspec.json.encode(options).decode(), chair)]
            )
            token = await table.sit(peer, chair)
        finally:
            self._creating -= 1
        self.tables[table.id] = table
        log.info("table %s created by %s: %r", table.id, peer.name, name)
        return table, token

    # --- start and stop --------------------------------------------------------------------

    def restore(self, snapshot: Snapshot) -> None:
        """Rebuild every open table; every player starts away until they come back."""
        self._last_table_id = snapshot.last_table_id
        self._last_game_id = snapshot.last_game_id
        for stored in snapshot.tables:
            try:
                table = self._restore_table(stored)
            except (ValueError, IllegalMove, msgspec.ValidationError, msgspec.DecodeError) as error:
                log.error("table %s cannot be restored (%s); left closed", stored.id, error)
                continue
            self.tables[table.id] = table
            for c in table.chairs:
                if c is not None and c.token_hash:
                    self.register_token(c.token_hash, table, c.index)
        log.info("restored %d tables", len(self.tables))

    def _restore_table(self, stored: StoredTable) -> Table:
        options = msgspec.json.decode(stored.options, type=TableOptions)
        table = Table(self, stored.id, stored.name, options, stored.creator)
        for sc in stored.chairs:
            table.chairs[sc.chair] = Chair(sc.chair, sc.name, bot=sc.bot, token_hash=sc.token_hash)
        table.games = stored.games
        full = all(c is not None for c in table.chairs)
        if stored.game is not None and full:
            g = stored.game
            if g.seating not in ("draw", "chosen"):
                raise ValueError(f"unknown seating {g.seating!r}")
            moves = tuple(move_from_data(m) for m in g.moves)
            table.game = Game.replay(GameRecord(g.seed, g.seating, moves))  # type: ignore[arg-type]
            table.game_id = g.id
            table.status = "finished" if table.game.is_over else "playing"
            for c in table.chairs:
                if c is not None:
                    c.ready = c.bot and table.game.is_over
        return table

    def start(self) -> None:
        """Set restored games moving again (bots, clocks) and start the sweeper."""
        for table in list(self.tables.values()):
            table.auto.replan()
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def _sweep(self) -> None:
        """Close tables that are not playing and have had nobody present for a while."""
        every = max(0.05, min(30.0, self.options.abandon_after / 4))
        while True:
            await asyncio.sleep(every)
            now = time.monotonic()
            for table in list(self.tables.values()):
                if table.status == "playing" or table.humans_present() or table.spectators:
                    continue
                if now - table.idle_since >= self.options.abandon_after:
                    log.info("table %s abandoned: closed", table.id)
                    try:
                        await table.close()
                    except Exception:
                        log.exception("closing table %s", table.id)

    async def stop(self) -> None:
        sweeper = getattr(self, "_sweeper", None)
        if sweeper is not None:
            sweeper.cancel()
        for table in self.tables.values():
            table.auto.cancel()
