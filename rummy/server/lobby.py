"""The lobby: every open table, who follows the table list, and who sits where.

Each table is a ``TableMaster`` run by its ``TableRunner``; the lobby creates them,
keeps the registry of places and seat tokens their outcomes fill, and pushes the
table list to its followers. It also restores the tables and their unfinished
games from storage at start (replaying each game's moves from its seed), and
closes tables nobody has been at for a while.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import msgspec

from ..protocol import errors as E
from ..protocol.codec import encode
from ..protocol.messages import Lobby as LobbyMessage
from ..protocol.messages import LobbyGone, LobbyTable, RequestId, TableOptions
from . import statements as sql
from .master import Chair, Change, Context, TableMaster, Visitor
from .options import ServerOptions
from .peer import Peer
from .refused import Refused
from .registry import Registry
from .runner import TableRunner
from .storage import Snapshot, Storage, StoredTable
from .thinking import Thinker, level_or_normal

log = logging.getLogger(__name__)


class Lobby:
    def __init__(self, storage: Storage, options: ServerOptions) -> None:
        self.storage = storage
        self.options = options
        self.thinker = Thinker(options.bot_workers, options.hard_bot_iterations)  # where hard bots think
        self.registry = Registry()
        self.context = Context(options, self.next_game_id, self.thinker.new_bot)
        self.tables: dict[int, TableMaster] = {}
        self._runners: dict[int, TableRunner] = {}
        self.subscribers: set[Peer] = set()
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
        self._opener: dict[int, tuple[int, str]] = {}  # table id -> (connection id, origin)
        self._opened_by: Counter[int] = Counter()
        self._opened_from: Counter[str] = Counter()

    def next_game_id(self) -> int:
        self._last_game_id += 1
        return self._last_game_id

    # --- the tables and who is at them -----------------------------------------------------

    def runner(self, table_id: int) -> TableRunner:
        return self._runners[table_id]

    def run(self, table_id: int, make: Callable[[TableMaster], Change]) -> Any:
        """Run the change ``make(table)`` at table ``table_id`` (awaitable)."""
        runner = self._runners.get(table_id)
        if runner is None:
            raise Refused(E.NO_SUCH_TABLE, "There is no such table.")
        return runner.run(lambda: make(runner.master))

    def table_of(self, peer: Peer) -> TableMaster | None:
        """The table ``peer`` sits at or watches."""
        place = self.registry.place_of(peer.id)
        return None if place is None else self.tables.get(place[0])

    def arrive(self, peer: Peer) -> None:
        self.registry.connect(peer)

    def depart(self, peer: Peer) -> None:
        """The connection is over: its table holds its chair for the token."""
        self.unsubscribe(peer)
        place = self.registry.disconnect(peer.id)
        if place is not None and place[0] in self._runners:
            self._runners[place[0]].post(lambda: self.tables[place[0]].detach(peer.id))

    def _add(self, table: TableMaster) -> TableRunner:
        runner = TableRunner(
            table, self.storage, self.thinker, self.registry, self._table_changed, self._gone
        )
        self._runners[table.id] = runner
        return runner

    # --- the table list -----------------------------------------------------------------

    def subscribe(self, peer: Peer, send: bool = True) -> bytes:
        """Follow the table list; returns it (sent at once unless ``send`` is false)."""
        self.subscribers.add(peer)
        self._behind.discard(peer)
        listing = self._whole_list()
        if send:
            peer.send_frame(listing)
        return listing

    def unsubscribe(self, peer: Peer) -> None:
        self.subscribers.discard(peer)
        self._behind.discard(peer)

    def _table_changed(self, table: TableMaster) -> None:
        if table.id in self.tables:
            self._mark(table.id)

    def _gone(self, table: TableMaster) -> None:
        self._runners.pop(table.id, None)
        if self.tables.pop(table.id, None) is not None:
            self._mark(table.id)
            opener = self._opener.pop(table.id, None)
            if opener is not None:
                _discount(self._opened_by, opener[0])
                _discount(self._opened_from, opener[1])

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
            table = self.table_of(peer)
            if table is not None and table.status == "playing":
                self._behind.add(peer)  # busy playing: most lobby traffic was to such players
            elif peer in self._behind:
                self._behind.discard(peer)
                peer.send_frame(self._whole_list())
            else:
                peer.send_frame(data)

    async def create_table(
        self,
        peer: Peer,
        visitor: Visitor,
        name: str,
        options: TableOptions,
        chair: int,
        request_id: RequestId,
    ) -> TableMaster:
        """A new table with ``peer`` in ``chair`` as its creator (answered ``seated``)."""
        if len(self.tables) + self._creating >= self.options.max_tables:
            raise Refused(E.TOO_MANY_TABLES, "The server holds as many tables as it can; join one.")
        self._quota_or_refuse(peer)
        self._last_table_id += 1
        table = TableMaster(self.context, self._last_table_id, name, options, chair)
        runner = self._add(table)
        self._creating += 1
        self._opened_by[peer.id] += 1  # counted at once: two creates in flight cannot both pass
        self._opened_from[peer.origin] += 1
        created = sql.new_table(table.id, name, msgspec.json.encode(options).decode(), chair)
        try:
            await runner.run(lambda: table.sit(visitor, chair, request_id, also=[created]))
        except BaseException:
            _discount(self._opened_by, peer.id)
            _discount(self._opened_from, peer.origin)
            self._runners.pop(table.id, None)
            raise
        finally:
            self._creating -= 1
        self._opener[table.id] = (peer.id, peer.origin)
        self.tables[table.id] = table
        self._mark(table.id)
        log.info("table %s created by %s: %r", table.id, peer.name, name)
        return table

    def _quota_or_refuse(self, peer: Peer) -> None:
        """One connection, or one address, may hold only so many open tables: a table
        whose players left it to the bots stays open (for them to come back), and
        opening them one after another took every table of the server."""
        mine = self.options.tables_per_connection
        if self._opened_by[peer.id] >= mine:
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
            self._add(table)
            for c in table.chairs:
                if c is not None and c.token_hash:
                    self.registry.add_token(c.token_hash, table.id, c.index)
        log.info("restored %d tables", len(self.tables))

    def _restore_table(self, stored: StoredTable) -> TableMaster:
        """A table as storage kept it (a bot stored before levels plays at normal)."""
        options = msgspec.json.decode(stored.options, type=TableOptions)
        table = TableMaster(self.context, stored.id, stored.name, options, stored.creator)
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
            game = stored.game
            table.resume(game.id, game.record, game.engine, game.autos)
        return table

    def start(self) -> None:
        """Set restored games moving again (bots, clocks) and start the sweeper."""
        for runner in self._runners.values():
            runner.post(runner.master.replan)
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
                    await self.run(table.id, lambda t: t.close())
                except Refused as refused:  # it stays open; the next sweep tries again
                    failures += 1
                    if failures == 1 or failures % 100 == 0:
                        log.error("closing table %s failed (%d so far): %s", table.id, failures, refused.text)

    async def stop(self) -> None:
        sweeper = getattr(self, "_sweeper", None)
        if sweeper is not None:
            sweeper.cancel()
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        for runner in self._runners.values():
            runner.stop()
        self.thinker.close()


def _why(error: Exception) -> str:
    """An exception as a short reason for the log."""
    text = str(error)[:200]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _discount(counter: Counter[Any], key: object) -> None:
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]
