"""What moves at a table when no person does: bots, stand-ins, the clock, the next deal.

After every change at its table (a move, someone leaving or coming back, a
"ready"), ``Autoplay.replan`` looks at who is to act and arranges one thing:

- a bot's chair is played by a bot of its level, and an away player's chair at a
  table whose ``on_drop`` is ``bot`` by a normal one (the heuristic bot), a move
  every ``bot_delay`` seconds (so people can follow; a hard bot's thinking, done
  off the loop by the lobby's ``Thinker``, counts towards that pause); the player
  takes the chair back on return, and a move decided for an away player who came
  back meanwhile is dropped;
- with a turn timer, the seat to act has ``turn_seconds`` for its turn. The
  clock is paused while no player is present at the table (nobody could act
  on it). When it runs out the server plays the rest of that turn with the
  bot and says so in the chat;
- at a deal's end (phase ``deal_over``) the next deal starts when every
  present player has said ``ready``, or after ``deal_pause`` seconds.

The bots see only their seat's view (R9), like any player.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from ..engine import view_for
from ..engine.bots import Bot
from ..protocol.messages import Clock, PlayedBy
from .clock import TurnClock
from .peer import Refused
from .thinking import STAND_IN

if TYPE_CHECKING:
    from .table import Table

log = logging.getLogger(__name__)


class Autoplay:
    def __init__(self, table: Table) -> None:
        self.table = table
        self.clock = TurnClock()
        self._turn: tuple[int, int, int] | None = None  # (game id, deal, seat) of the turn under way
        self._expired: tuple[int, int, int] | None = None  # a turn whose time ran out
        self._next_deal_at: float | None = None  # monotonic
        self._action: asyncio.TimerHandle | None = None
        self._alarm: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        # The bots playing this game's seats, by (game id, seat), each with its memory.
        self._bots: dict[tuple[int, int], Bot] = {}
        self._moving: tuple[int, int] | None = None  # (seat, moves) of the bot move under way
        self._shown: tuple[object, ...] | None = None  # the clock as last pushed

    def cancel(self) -> None:
        self._cancel_timers()
        for task in self._tasks:
            task.cancel()

    def _cancel_timers(self) -> None:
        for handle in (self._action, self._alarm):
            if handle is not None:
                handle.cancel()
        self._action = self._alarm = None

    def replan(self) -> None:
        table = self.table
        if table.closed:
            return
        self._cancel_timers()
        game = table.game
        options = table.lobby.options
        loop = asyncio.get_running_loop()
        if game is None or table.status != "playing":
            self._turn = self._expired = self._next_deal_at = None
            self.clock.stop()
        elif game.phase == "deal_over":
            self._turn = None
            self.clock.stop()
            now = time.monotonic()
            if self._next_deal_at is None:
                self._next_deal_at = now + options.deal_pause
            delay = 0.0 if table.all_present_ready() else max(0.0, self._next_deal_at - now)
            self._action = loop.call_later(delay, self._spawn, table.next_deal)
        else:
            self._next_deal_at = None
            seat = game.current
            turn = (table.game_id, game.deal, seat)
            chair = table.chair_of_seat(seat)
            if turn != self._turn:
                self._turn, self._expired = turn, None
                if table.options.turn_seconds and not chair.bot:
                    self.clock.start(seat, table.options.turn_seconds)
                else:
                    self.clock.stop()
            stand_in = self._played_by_bot(seat, turn)
            n = len(game.moves)
            if stand_in and self._moving != (seat, n):  # not when that very move is under way
                self._moving = (seat, n)
                self._spawn(lambda: self._bot_move(seat, n))
            if self.clock.running:
                if stand_in or not table.humans_present():
                    self.clock.pause()
                else:
                    self.clock.resume()
                    left = self.clock.remaining() or 0.0
                    self._alarm = loop.call_later(left, self._time_up, turn)
        self._push_clock_if_changed()

    def _spawn(self, make: object) -> None:
        assert callable(make)
        task: asyncio.Task[None] = asyncio.ensure_future(make())
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("table %s: automatic move failed", self.table.id, exc_info=task.exception())

    def _played_by_bot(self, seat: int, turn: tuple[int, int, int]) -> bool:
        """Whether a bot plays ``seat`` now: a bot's chair, an away player's at a table
        where bots stand in, or a turn whose time ran out."""
        table = self.table
        chair = table.chair_of_seat(seat)
        return (
            chair.bot or (chair.session is None and table.options.on_drop == "bot") or self._expired == turn
        )

    def _bot(self, seat: int) -> Bot:
        """The bot of this game's ``seat``: of the chair's level, or a stand-in."""
        table = self.table
        key = (table.game_id, seat)
        bot = self._bots.get(key)
        if bot is None:
            if any(k[0] != table.game_id for k in self._bots):  # a new game: new bots
                self._bots.clear()
            chair = table.chair_of_seat(seat)
            level = chair.level if chair.bot and chair.level is not None else STAND_IN
            bot = self._bots[key] = table.lobby.thinker.new_bot(level)
        return bot

    async def _bot_move(self, seat: int, n: int) -> None:
        """Decide the move of ``seat`` after ``n`` moves, wait out the rest of the pause,
        and play it if that seat is still the bot's to play."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        table = self.table
        try:
            game = table.game
            if game is None or len(game.moves) != n or game.current != seat or table.closed:
                return  # the game moved on meanwhile
            game_id = table.game_id
            view = view_for(game, seat)
            try:
                move, bot = await table.lobby.thinker.choose(self._bot(seat), view)
                self._bots[(game_id, seat)] = bot  # its memory and rng as they are after deciding
            except Exception:
                log.exception("table %s: the bot failed; playing the first legal move", table.id)
                move = view.legal_moves()[0]
            pause = table.lobby.options.bot_delay - (loop.time() - started)
            if pause > 0:
                await asyncio.sleep(pause)
            game = table.game
            if game is None or len(game.moves) != n or table.closed or table.game_id != game_id:
                return
            if self._turn is None or not self._played_by_bot(seat, self._turn):
                return  # the player came back meanwhile: the chair is theirs again
            # Who plays: the seat's own bot, or the server for a person (said in the push).
            auto: PlayedBy | None = None
            if not table.chair_of_seat(seat).bot:
                auto = "timer" if self._expired == self._turn else "stand_in"
            await table.apply(seat, move, after=n, auto=auto)
        except Refused as refused:
            log.warning("table %s: bot move refused: %s %s", table.id, refused.code, refused.text)
        finally:
            if self._moving == (seat, n):
                self._moving = None

    def _time_up(self, turn: tuple[int, int, int]) -> None:
        if self._turn != turn or self.table.closed:
            return
        self._expired = turn
        self.clock.stop()
        self.table.announce_timeout(turn[2])
        self.replan()

    # --- what the clients are shown ------------------------------------------------

    def clock_message(self) -> Clock:
        table = self.table
        if self._next_deal_at is not None:
            left = max(0.0, self._next_deal_at - time.monotonic())
            return Clock(table_id=table.id, kind="next_deal", remaining=left, deadline=time.time() + left)
        if self.clock.running:
            return Clock(
                table_id=table.id,
                kind="turn",
                seat=self.clock.seat,
                remaining=self.clock.remaining(),
                deadline=self.clock.deadline(),
                paused=self.clock.paused,
            )
        return Clock(table_id=table.id, kind="off")

    def _push_clock_if_changed(self) -> None:
        shown = (self._next_deal_at, self._turn if self.clock.running else None, self.clock.paused)
        if shown != self._shown:
            self._shown = shown
            self.table.push_clock()
