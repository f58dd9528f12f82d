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

from ..engine import Game, IllegalMove, move_from_data
from ..protocol import errors as E
from ..protocol.codec import encode
from ..protocol.messages import Lobby as LobbyMessage
from ..protocol.messages import LobbyGone, LobbyTable, TableInfo, TableOptions
from .options import ServerOptions
from .peer import Peer, Refused
from .storage import Snapshot, Storage, StoredTable, token_hash
from .table import Chair, Table
from .thinking import Thinker, level_or_normal

log = logging.getLogger(__name__)


class Lobby:
    def __init__(self, storage: Storage, options: ServerOptions) -> None:
        self.storage = storage
        self.options = options
        self.thinker = Thinker(options.bot_workers, options.hard_bot_iterations)  # where hard bots think
        self.tables: dict[int, Table] = {}
        self.subscribers: set[Peer] = set()
        self._tokens: dict[str, tuple[Table, int]] = {}  # token hash -> (table, chair)
        self._last_table_id = 0
        self._last_game_id = 0
        self._creating = 0
        # Ids of tables changed or gone since the last lobby push, and the pending push.
        self._changed: set[int] = set()
        self._flush: asyncio.TimerHandle | None = None
        # Subscribers skipped while they sat at a game in play: they get the whole list
        # again at the first push after they stop playing (leaving or a game's end both
        # change a table, so such a push always comes).
        self._behind: set[Peer] = set()

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
        self._behind.discard(peer)
        peer.send(LobbyMessage(tables=[t.info() for t in self.tables.values()]))

    def unsubscribe(self, peer: Peer) -> None:
        self.subscribers.discard(peer)
        self._behind.discard(peer)

    def table_changed(self, info: TableInfo) -> None:
        if info.table_id in self.tables:
            self._mark(info.table_id)

    def remove_table(self, table: Table) -> None:
        if self.tables.pop(table.id, None) is not None:
            self._mark(table.id)

    def _mark(self, table_id: int) -> None:
        """Note a change for the next lobby push. Changes are coalesced: a table that
        changes ten times in ``lobby_interval`` is sent once, as it then is, and all of
        a push goes to a subscriber in one write (with 2,000 followers, sending each
        change as it happened took most of the server's time)."""
        if not self.subscribers:
            return  # nobody to tell; a new subscriber gets the whole list anyway
        self._changed.add(table_id)
        if self._flush is None:
            loop = asyncio.get_running_loop()
            self._flush = loop.call_later(self.options.lobby_interval, self._push_changes)

    def _push_changes(self) -> None:
        self._flush = None
        changed, self._changed = self._changed, set()
        frames = []
        for table_id in sorted(changed):
            table = self.tables.get(table_id)
            if table is None:
                frames.append(encode(LobbyGone(table_id=table_id)))
            else:
                frames.append(encode(LobbyTable(table=table.info())))
        data = b"".join(frames)
        whole = b""
        for peer in self.subscribers:
            if peer.table is not None and peer.table.status == "playing":
                self._behind.add(peer)  # busy playing: most lobby traffic was to such players
            elif peer in self._behind:
                self._behind.discard(peer)
                if not whole:
                    whole = encode(LobbyMessage(tables=[t.info() for t in self.tables.values()]))
                peer.send_frame(whole)
            else:
                peer.send_frame(data)

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
        """A table as storage kept it (a bot stored before levels plays at normal)."""
        options = msgspec.json.decode(stored.options, type=TableOptions)
        table = Table(self, stored.id, stored.name, options, stored.creator)
        for sc in stored.chairs:
            level = level_or_normal(sc.level) if sc.bot else None
            table.chairs[sc.chair] = Chair(
                sc.chair, sc.name, bot=sc.bot, token_hash=sc.token_hash, level=level
            )
        table.games = stored.games
        full = all(c is not None for c in table.chairs)
        if stored.game is not None and full:
            g = stored.game
            if g.seating not in ("draw", "chosen"):
                raise ValueError(f"unknown seating {g.seating!r}")
            moves = [move_from_data(m) for m in g.moves]
            autos = [a if a in ("timer", "stand_in") else None for a in g.autos]
            table.resume(g.id, Game(g.seed, g.seating), moves, autos)  # type: ignore[arg-type]
            assert table.game is not None
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
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        for table in self.tables.values():
            table.auto.cancel()
        self.thinker.close()
