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
from .changes import Chair, Change, Context, Visitor
from .logguard import Throttled
from .master import TableMaster
from .options import ServerOptions
from .peer import Peer
from .refused import Refused
from .registry import Registry
from .runner import TableRunner
from .storage import Snapshot, Storage, StoredTable
from .thinking import Thinker, level_or_normal

log = logging.getLogger(__name__)

# Bytes still queued for a follower above which it is not sent a lobby push: it has not
# read the last one. It gets the whole list once it has (memory stays bounded per
# follower however slowly it reads).
PUSH_BACKLOG = 64 * 1024


class Lobby:
    def __init__(self, storage: Storage, options: ServerOptions) -> None:
        self.storage = storage
        self.options = options
        self.thinker = Thinker(options.bot_workers, options.hard_bot_iterations)  # where hard bots think
        self.registry = Registry()
        # Tables opened and closed: anyone may open one and leave it again and again
        # within the rate limit (1,440 lines in 4 s from one address, at a line each).
        self._table_log = Throttled(log)
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
        # Subscribers skipped while they were at a table (seated or watching: the lobby is
        # not on their screen): they get the whole list again at the first push after
        # they leave it (leaving changes the table, so such a push always comes). Sending
        # every change to everyone at a table made setting up 1,500 tables cost the square
        # of their number, in time and in memory (each change to each of 6,000 followers).
        self._behind: set[Peer] = set()
        self._whole: bytes | None = None  # the encoded ``lobby`` frame, see _whole_list
        # Ids of the tables followers may hold since the last push (in any list or push
        # sent), and those every follower holds (in all of them): see _push_changes.
        self._offered: set[int] = set()
        self._held_by_all: set[int] = set()
        self.unread_skips = 0  # pushes not sent to a follower that had not read the last one
        # Open tables by who opened them, for the quotas (restored tables count for nobody).
        self._opener: dict[int, tuple[int, str]] = {}  # table id -> (connection id, origin)
        self._opened_by: Counter[int] = Counter()
        self._opened_from: Counter[str] = Counter()

    def next_game_id(self) -> int:
        self._last_game_id += 1
        return self._last_game_id

    # --- the tables and who is at them -----------------------------------------------------

    def run(self, table_id: int, make: Callable[[TableMaster], Change]) -> asyncio.Future[Any]:
        """Run the change ``make(table)`` at table ``table_id``: the future of its result
        (or of the ``Refused``). Raises ``Refused`` if there is no such table."""
        runner = self._runners.get(table_id)
        if runner is None:
            raise Refused(E.NO_SUCH_TABLE, "There is no such table.")
        return runner.submit(lambda: make(runner.master))

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
        runner = None if place is None else self._runners.get(place[0])
        if runner is not None:
            # Its own master, not the lobby's entry for it: the table may close before the
            # detach's turn comes (it was looked up then, and failed with a KeyError).
            master = runner.master
            runner.post(lambda: master.detach(peer.id))

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
            self._table_log.log(logging.INFO, "closed", "table %s closed", table.id)
            self._mark(table.id)
            opener = self._opener.pop(table.id, None)
            if opener is not None:
                _discount(self._opened_by, opener[0])
                _discount(self._opened_from, opener[1])

    def _window(self) -> list[TableMaster]:
        """The tables followers are shown: at most ``lobby_limit``, those waiting for
        players first (the ones a newcomer can join), then those being played, then
        finished ones."""
        order = {"waiting": 0, "playing": 1, "finished": 2}
        return heapq.nsmallest(
            self.options.lobby_limit, self.tables.values(), key=lambda t: (order[t.status], t.id)
        )

    def _whole_list(self) -> bytes:
        """The ``lobby`` frame (the window and ``total``, how many tables there are),
        encoded once and shared by every subscriber until the next push (each subscribe
        encoded the whole list anew: 600 KiB and 17 ms at 2,000 tables, and five
        followers asking at the allowed rate starved the moves). Kept from one push to
        the next, it is never older than the changes still to be pushed, so a new
        subscriber misses nothing (its tables are counted in, see _push_changes)."""
        if self._whole is None:
            shown = self._window()
            ids = {t.id for t in shown}
            self._offered |= ids
            self._held_by_all &= ids
            self._whole = encode(LobbyMessage(tables=[t.info() for t in shown], total=len(self.tables)))
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
        self._push_soon()

    def _push_soon(self) -> None:
        if self._flush is None:
            loop = asyncio.get_running_loop()
            self._flush = loop.call_later(self.options.lobby_interval, self._push_changes)

    def _push_changes(self) -> None:
        """Tell the followers what changed in the window since the last push: each
        table of the window that changed or came into it (``lobby_table``), and each
        table a follower may hold that left it (``lobby_gone``: closed, or no longer
        among the first ``lobby_limit``). A push is then bounded by the window, not by
        the number of tables: at 1,500 tables most changes are to tables nobody in the
        lobby is shown. Followers at a table, and those that have not read the last
        push yet, are skipped; each gets the whole list once it is back and reading."""
        self._flush = None
        self._whole = None
        changed, self._changed = self._changed, set()
        window = self._window()
        ids = {t.id for t in window}
        held = self._held_by_all
        frames = [encode(LobbyTable(table=t.info())) for t in window if t.id in changed or t.id not in held]
        frames += [encode(LobbyGone(table_id=gone)) for gone in sorted(self._offered - ids)]
        self._offered, self._held_by_all = ids, set(ids)
        data = b"".join(frames)
        waiting = False  # a follower in the lobby was skipped: push again soon
        for peer in self.subscribers:
            if self.registry.place_of(peer.id) is not None:
                self._behind.add(peer)  # at a table: most lobby traffic was to such people
            elif peer.queued() > PUSH_BACKLOG:
                self._behind.add(peer)  # has not read the last push: one list, when it does
                self.unread_skips += 1
                waiting = True
            elif peer in self._behind:
                self._behind.discard(peer)
                peer.send_frame(self._whole_list())
            elif data:
                peer.send_frame(data)
        if waiting:
            self._push_soon()

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
        self._table_log.log(logging.INFO, "created", "table %s created by %s: %r", table.id, peer.name, name)
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
        log.info("tables restored: %d", len(self.tables))

    def _restore_table(self, stored: StoredTable) -> TableMaster:
        """A table as storage kept it (a bot stored before levels plays at normal)."""
        options = msgspec.json.decode(stored.options, type=TableOptions)
        table = TableMaster(self.context, stored.id, stored.name, options, stored.creator)
        for sc in stored.chairs:
            if not 0 <= sc.chair < len(table.chairs):
                raise ValueError(f"chair {sc.chair} is not one of 0..3")
            level = level_or_normal(sc.level) if sc.bot else None
            away = None if sc.bot else self.context.now()  # every player is away after a restart
            table.chairs[sc.chair] = Chair(
                sc.chair, sc.name, bot=sc.bot, token_hash=sc.token_hash, level=level, away_since=away
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
        its table for ever, across restarts too); and find players silent on their
        turn (``_silent_turn``)."""
        options = self.options
        every = max(
            0.05,
            min(
                30.0,
                options.abandon_after / 4,
                options.keep_deserted / 4,
                options.free_away_after / 4,
                (options.turn_silence or 60.0) / 2,
            ),
        )
        failures = 0
        while True:
            await asyncio.sleep(every)
            now = time.monotonic()
            for table in list(self.tables.values()):
                if (
                    table.status in ("waiting", "finished")
                    and table.humans_present()
                    and table.someone_away()
                ):
                    await self._free_away_chair(table.id)
                elif table.status == "playing" and table.humans_present() and table.someone_away():
                    await self._stand_in_for_waited_out(table.id)
                if table.status == "playing" and not table.closed and options.turn_silence:
                    self._silent_turn(table)
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

    def _silent_turn(self, table: TableMaster) -> None:
        """A game that has waited ``turn_silence`` for a player's move: their connection
        is asked whether it has been silent as long (``Session.silent_turn``). Here, in
        the sweep every table already gets, rather than by a timer of each connection:
        those woke every connection at a table every half ``turn_silence`` (8,000 at
        2,000 tables, at once when they had connected at once) to find one player in
        four to ask."""
        waiting = table.waiting_on()
        if waiting is None or waiting.seconds < self.options.turn_silence:
            return
        peer = self.registry.connections.get(waiting.conn)
        if peer is not None:
            peer.silent_turn(self.options.turn_silence, table.id, waiting.seat)

    async def _free_away_chair(self, table_id: int) -> None:
        """A chair away too long at a table waiting for players (``TableMaster.free_away_chair``)."""
        try:
            await self.run(table_id, lambda t: t.free_away_chair(self.options.free_away_after))
        except Refused as refused:  # it stays; the next sweep tries again
            log.error("freeing an away chair at table %s failed: %s", table_id, refused.text)

    async def _stand_in_for_waited_out(self, table_id: int) -> None:
        """A game held up by a player away too long (``TableMaster.stand_in_for_waited_out``)."""
        try:
            await self.run(table_id, lambda t: t.stand_in_for_waited_out())
        except Refused as refused:  # the next sweep tries again
            log.error("a stand-in for an away player at table %s failed: %s", table_id, refused.text)

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
