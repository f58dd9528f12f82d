"""The lobby: every open table, who follows the table list, and the seat tokens.

It also restores the tables and their unfinished games from storage at start
(replaying each game's moves from its seed), and closes tables nobody has been
at for a while.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import sqlite3
import time
from collections import Counter
from typing import Any

import msgspec

from ..engine import Game, GameRecord, move_from_data
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
        self._whole: bytes | None = None  # the encoded ``lobby`` frame, see _whole_list
        # Open tables by who opened them, for the quotas (restored tables count for nobody).
        self._opened_by: Counter[Peer] = Counter()
        self._opened_from: Counter[str] = Counter()

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
        peer.send_frame(self._whole_list())

    def unsubscribe(self, peer: Peer) -> None:
        self.subscribers.discard(peer)
        self._behind.discard(peer)

    def table_changed(self, info: TableInfo) -> None:
        if info.table_id in self.tables:
            self._mark(info.table_id)

    def remove_table(self, table: Table) -> None:
        if self.tables.pop(table.id, None) is not None:
            self._mark(table.id)
            if table.opened_by is not None:
                peer, origin = table.opened_by
                _discount(self._opened_by, peer)
                _discount(self._opened_from, origin)

    def _whole_list(self) -> bytes:
        """The ``lobby`` frame, encoded once and shared by every subscriber until the
        next push (each subscribe encoded the whole list anew: 600 KiB and 17 ms at
        2,000 tables, and five followers asking at the allowed rate starved the moves).

        It holds at most ``lobby_limit`` tables, those waiting for players first (the
        ones a newcomer can join), then those being played, then finished ones; ``total``
        says how many there are. Kept from one push to the next, it is never older than
        the changes still to be pushed, so a new subscriber misses nothing."""
        if self._whole is None:
            order = {"waiting": 0, "playing": 1, "finished": 2}
            shown = heapq.nsmallest(
                self.options.lobby_limit, self.tables.values(), key=lambda t: (order[t.status], t.id)
            )
            listing = LobbyMessage(tables=[t.info() for t in shown], total=len(self.tables))
            self._whole = encode(listing)
        return self._whole

    def _mark(self, table_id: int) -> None:
        """Note a change for the next lobby push. Changes are coalesced: a table that
        changes ten times in ``lobby_interval`` is sent once, as it then is, and all of
        a push goes to a subscriber in one write (with 2,000 followers, sending each
        change as it happened took most of the server's time)."""
        if not self.subscribers:
            self._whole = None  # no push will carry this change: the next list is built anew
            return
        self._changed.add(table_id)
        if self._flush is None:
            loop = asyncio.get_running_loop()
            self._flush = loop.call_later(self.options.lobby_interval, self._push_changes)

    def _push_changes(self) -> None:
        self._flush = None
        self._whole = None  # from now on a list must hold these changes
        changed, self._changed = self._changed, set()
        frames = []
        for table_id in sorted(changed):
            table = self.tables.get(table_id)
            if table is None:
                frames.append(encode(LobbyGone(table_id=table_id)))
            else:
                frames.append(encode(LobbyTable(table=table.info())))
        data = b"".join(frames)
        for peer in self.subscribers:
            if peer.table is not None and peer.table.status == "playing":
                self._behind.add(peer)  # busy playing: most lobby traffic was to such players
            elif peer in self._behind:
                self._behind.discard(peer)
                peer.send_frame(self._whole_list())
            else:
                peer.send_frame(data)

    async def create_table(
        self, peer: Peer, name: str, options: TableOptions, chair: int
    ) -> tuple[Table, str]:
        """A new table with ``peer`` in ``chair`` as its creator; returns it and the token."""
        if len(self.tables) + self._creating >= self.options.max_tables:
            raise Refused(E.TOO_MANY_TABLES, "The server holds as many tables as it can; join one.")
        self._quota_or_refuse(peer)
        self._last_table_id += 1
        table = Table(self, self._last_table_id, name, options, chair)
        self._creating += 1
        self._opened_by[peer] += 1  # counted at once: two creates in flight cannot both pass
        self._opened_from[peer.origin] += 1
        try:
            await self.storage.write(
                [self.storage.new_table(table.id, name, msgspec.json.encode(options).decode(), chair)]
            )
            token = await table.sit(peer, chair)
        except BaseException:
            _discount(self._opened_by, peer)
            _discount(self._opened_from, peer.origin)
            raise
        finally:
            self._creating -= 1
        table.opened_by = (peer, peer.origin)
        self.tables[table.id] = table
        log.info("table %s created by %s: %r", table.id, peer.name, name)
        return table, token

    def _quota_or_refuse(self, peer: Peer) -> None:
        """One connection, or one address, may hold only so many open tables: a table
        whose players left it to the bots stays open (for them to come back), and
        opening them one after another took every table of the server."""
        mine = self.options.tables_per_connection
        if self._opened_by[peer] >= mine:
            raise Refused(
                E.TABLE_QUOTA, f"You have opened {mine} tables that are still open; play at one of them."
            )
        ours = self.options.per_address(peer.origin, self.options.tables_per_address)
        if self._opened_from[peer.origin] >= ours:
            raise Refused(
                E.TABLE_QUOTA, f"Your address has opened {ours} tables that are still open; join one."
            )

    # --- start and stop --------------------------------------------------------------------

    def restore(self, snapshot: Snapshot) -> None:
        """Rebuild every open table; every player starts away until they come back. A
        table whose stored records cannot be made into a table is set aside (not
        served, its rows left as they are for the host to look at) with one log line:
        one bad row must not keep the rest from being served."""
        self._last_table_id = snapshot.last_table_id
        self._last_game_id = snapshot.last_game_id
        for table_id, why in snapshot.set_aside:
            log.error("table %s set aside, not restored: %s", table_id, why)
        for stored in snapshot.tables:
            try:
                table = self._restore_table(stored)
            except Exception as error:  # whatever a bad record makes the engine or we raise
                log.error("table %s set aside, not restored: %s", stored.id, _why(error))
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
            if not 0 <= sc.chair < len(table.chairs):
                raise ValueError(f"chair {sc.chair} is not one of 0..3")
            level = level_or_normal(sc.level) if sc.bot else None
            table.chairs[sc.chair] = Chair(
                sc.chair, sc.name, bot=sc.bot, token_hash=sc.token_hash, level=level
            )
        table.games = stored.games
        for finished in stored.finished:
            table.tally.add(finished.names, finished.totals)
            table.last_finished = finished.game_id
        full = all(c is not None for c in table.chairs)
        if stored.game is not None and full:
            g = stored.game
            if g.seating not in ("draw", "chosen"):
                raise ValueError(f"unknown seating {g.seating!r}")
            moves = [move_from_data(m) for m in g.moves]
            autos = [a if a in ("timer", "stand_in") else None for a in g.autos]
            # The engine revision that plays it (a newer one than ours is refused).
            start = Game.replay(GameRecord(g.seed, g.seating, ()), g.engine)  # type: ignore[arg-type]
            table.resume(g.id, start, moves, autos)  # type: ignore[arg-type]
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
        """Close tables nobody is at: one not playing after ``abandon_after`` seconds
        without anyone present, one whose game is in play after ``keep_deserted``
        seconds with all its people away (bots do not count, and nor do spectators:
        a game left to bots, or waiting for players who are gone, would otherwise hold
        its table for ever, across restarts too)."""
        options = self.options
        every = max(0.05, min(30.0, options.abandon_after / 4, options.keep_deserted / 4))
        failures = 0
        while True:
            await asyncio.sleep(every)
            now = time.monotonic()
            for table in list(self.tables.values()):
                playing = table.status == "playing"
                if table.humans_present() or (table.spectators and not playing):
                    table.idle_since = now
                    continue
                if now - table.idle_since < (options.keep_deserted if playing else options.abandon_after):
                    continue
                log.info("table %s %s: closed", table.id, "deserted" if playing else "abandoned")
                try:
                    await table.close()
                except sqlite3.Error as error:  # it stays open; the next sweep tries again
                    failures += 1
                    if failures == 1 or failures % 100 == 0:
                        log.error("closing table %s failed (%d so far): %s", table.id, failures, error)

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


def _why(error: Exception) -> str:
    """An exception as a short reason for the log."""
    text = str(error)[:200]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _discount(counter: Counter[Any], key: object) -> None:
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]
