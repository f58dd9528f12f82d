"""The asyncio shell around one ``TableMaster``: it stores, sends and keeps the time.

A change goes through ``run``: the master checks it against the table as it is
(or refuses: nothing changed), the runner stores its statements, the master
applies it, and the runner carries out the outcome — the registry's places and
tokens, one write per connection of what that connection is sent, the timers,
the bots' thinking. Changes run one at a time, in the order they came, each
going on from its commit by a callback, not in its caller's task: a caller that is
cancelled (its connection closing mid-move) cannot cut a change short, nor let the
next one start before it ends.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import deque
from collections.abc import Callable
from typing import Any

from ..engine import Move
from ..engine.bots import Bot
from ..protocol import errors as E
from .changes import Change, Outcome, Think, Timer
from .master import TableMaster
from .refused import Refused
from .registry import Registry
from .storage import Storage
from .thinking import Thinker

# Seconds after a failed write before the table arranges its bots and timers anew.
RETRY_AFTER = 1.0

log = logging.getLogger(__name__)


class TableRunner:
    __slots__ = (
        "_busy",
        "_changed",
        "_closed",
        "_queue",
        "_registry",
        "_retry",
        "_stopped",
        "_storage",
        "_tasks",
        "_thinker",
        "_timers",
        "master",
    )

    def __init__(
        self,
        master: TableMaster,
        storage: Storage,
        thinker: Thinker,
        registry: Registry,
        changed: Callable[[TableMaster], None],
        closed: Callable[[TableMaster], None],
    ) -> None:
        self.master = master
        self._storage = storage
        self._thinker = thinker
        self._registry = registry
        self._changed = changed  # the lobby's: the table's listing changed
        self._closed = closed  # the lobby's: the table is gone
        self._queue: deque[tuple[Callable[[], Change], asyncio.Future[Any]]] = deque()
        self._busy = False  # a change is under way (waiting for its commit, maybe)
        self._timers: dict[Timer, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopped = False  # no more timers or bot moves: see stop
        self._retry: asyncio.TimerHandle | None = None  # arranging anew after a failed write

    # --- changes, one at a time ------------------------------------------------------------

    def submit(self, make: Callable[[], Change]) -> asyncio.Future[Any]:
        """Queue the change ``make()`` builds (against the table as it is when its turn
        comes); the future gets the outcome's result, or the ``Refused`` raised.

        With nothing ahead of it, the change is checked (and, if it stores nothing,
        carried out) at once, in the caller's turn of the loop: a task per change was
        a good part of what a move cost the server."""
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.append((make, done))
        if not self._busy:
            self._work()
        return done

    async def run(self, make: Callable[[], Change]) -> Any:
        """``submit`` and wait for it. A cancelled caller only stops waiting: the change
        goes on, and the next one waits for it."""
        return await self.submit(make)

    def post(self, make: Callable[[], Change]) -> None:
        """``submit`` without waiting: what is refused is only logged."""
        self.submit(make).add_done_callback(self._logged)

    def _work(self) -> None:
        """Run the queued changes in order, until one waits for its commit (``_stored``
        goes on from there) or none is left."""
        self._busy = True
        while self._queue:
            make, done = self._queue.popleft()
            try:
                change = make()
            except Exception as error:  # Refused, or a bug: its caller hears of it
                _fail(done, error)
                continue
            if change.writes:
                self._storage.write_soon(
                    change.writes, functools.partial(self._stored, change=change, done=done)
                )
                return
            self._finish(change, done)
        self._busy = False

    def _stored(self, error: BaseException | None, change: Change, done: asyncio.Future[Any]) -> None:
        if error is None:
            self._finish(change, done)
        else:
            log.error("table %s: storage write failed: %s", self.master.id, error)
            if change.undo is not None:
                change.undo()
            _fail(done, Refused(E.INTERNAL, change.failed))
            # What moves by itself is arranged anew: a bot's move (or the next deal) that
            # was not stored is tried again, where the table used to wait for ever; a
            # while later, so that a full disk is not asked again and again at once.
            if not self._stopped and self._retry is None:
                self._retry = asyncio.get_running_loop().call_later(RETRY_AFTER, self._arrange_anew)
        self._work()

    def _arrange_anew(self) -> None:
        self._retry = None
        self.post(self.master.replan)

    def _finish(self, change: Change, done: asyncio.Future[Any]) -> None:
        """The change is stored: apply it and carry out what it did."""
        try:
            outcome = change.apply()
            self._carry_out(outcome)
        except Exception as error:  # a bug: its caller hears of it, the table goes on
            _fail(done, error)
            return
        if not done.done():
            done.set_result(outcome.result)

    def _logged(self, done: asyncio.Future[Any]) -> None:
        if done.cancelled():
            return
        error = done.exception()
        if isinstance(error, Refused):
            log.debug("table %s: %s %s", self.master.id, error.code, error.text)
        elif error is not None:
            log.error("table %s: a change failed", self.master.id, exc_info=error)

    # --- carrying out an outcome -----------------------------------------------------------

    def _carry_out(self, outcome: Outcome) -> None:
        registry, table_id = self._registry, self.master.id
        for conn in outcome.gone:
            registry.unplace(conn, table_id)
        for conn, chair in outcome.places:
            registry.place(conn, table_id, chair)
            if conn not in registry.connections:  # gone while we stored: the chair is held
                self.post(lambda conn=conn: self.master.detach(conn))  # type: ignore[misc]
        for hashed in outcome.untokens:
            registry.drop_token(hashed)
        for hashed, chair in outcome.tokens:
            registry.add_token(hashed, table_id, chair)
        # What each connection is sent goes out in one write (a write is a system call:
        # the most of what a frame costs the server).
        writes: dict[int, list[bytes]] = {}
        for conn, data in outcome.frames:
            writes.setdefault(conn, []).append(data)
        for conn, parts in writes.items():
            registry.send(conn, parts[0] if len(parts) == 1 else b"".join(parts))
        if outcome.lobby:
            self._changed(self.master)
        if not self._stopped:  # a stopped table still answers (its leavers) but moves no more
            for which, delay in outcome.timers.items():
                self._set_timer(which, delay)
            for think in outcome.think:
                self._spawn(self._think(think))
        if outcome.closed:
            self.stop()
            self._closed(self.master)

    def _set_timer(self, which: Timer, delay: float | None) -> None:
        handle = self._timers.pop(which, None)
        if handle is not None:
            handle.cancel()
        if delay is not None:
            loop = asyncio.get_running_loop()
            self._timers[which] = loop.call_later(delay, self._fire, which)

    def _fire(self, which: Timer) -> None:
        self._timers.pop(which, None)
        self.post(lambda: self.master.timer(which))

    async def _think(self, think: Think) -> None:
        """A bot's turn: its decision (a searching bot's off the loop), the rest of the
        pause people need to follow, then the move, if it is still the bot's to play."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        move: Move
        bot: Bot
        try:
            move, bot = await self._thinker.choose(think.bot, think.view)
        except Exception:
            log.exception("table %s: the bot failed; playing the first legal move", self.master.id)
            move, bot = think.view.legal_moves()[0], think.bot
        pause = think.pause - (loop.time() - started)
        if pause > 0:
            await asyncio.sleep(pause)
        try:
            await self.run(lambda: self.master.bot_moved(think, move, bot))
        except Refused as refused:
            log.warning("table %s: bot move refused: %s %s", self.master.id, refused.code, refused.text)

    def _spawn(self, work: Any) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("table %s: automatic move failed", self.master.id, exc_info=task.exception())

    def stop(self) -> None:
        """No more timers or bot moves (the table closed, or the server stops): the
        changes still to come (people leaving as the server says goodbye) set none
        going again. They did: bots played on during the goodbye, and once the storage
        had closed, each of their moves failed and was tried again, for ever."""
        self._stopped = True
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        current = asyncio.current_task()
        for task in list(self._tasks):
            if task is not current:
                task.cancel()


def _fail(done: asyncio.Future[Any], error: Exception) -> None:
    if not done.done():  # else its caller stopped waiting (cancelled)
        done.set_exception(error)
