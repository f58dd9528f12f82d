"""Where the server's bots think, so that a thinking bot never stalls the event loop.

The easy and normal bots decide in well under a millisecond or two, on the loop. The
hard bot (the expert) searches for a tenth of a second or more, so its decisions go
to a small, bounded pool of worker processes (``workers`` of them, by default one,
which leaves the other cores to the loop), at the lowest CPU priority: on a busy
machine a search waits for the loop, never the loop for a search (a hard bot then
thinks less within its time cap, and the other tables keep their pace). The bot and
its seat's view are sent to a worker, which answers with the move and the bot as it
is after deciding (its memory of the discard pile and its random state), kept for
its next move. A decision that fails in the pool (a worker died) is taken on the
loop by the normal bot instead, so the game goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import random
import secrets
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ..engine import Move, PlayerView
from ..engine.bots import Bot, Budget, ExpertBot, make_bot
from ..engine.bots.expert import DEFAULT_ITERATIONS
from ..protocol.messages import BOT_LEVELS, BotLevel

log = logging.getLogger(__name__)

# On the server a search also stops after this long, whatever its iterations: the
# table's pace must not depend on how busy the machine is.
SEARCH_SECONDS = 1.0
STAND_IN: BotLevel = "normal"  # the level of the bot that plays for an away player


def level_or_normal(value: str | None) -> BotLevel:
    """A level as stored or received; anything else (a bot stored before levels) is normal."""
    for level in BOT_LEVELS:
        if value == level:
            return level
    return "normal"


WORKER_NICENESS = 19  # the lowest priority: a worker runs when nothing else needs the CPU


def _lower_priority() -> None:
    """In each worker process, as it starts."""
    with contextlib.suppress(OSError):  # not allowed here (or no such thing): run as is
        os.nice(WORKER_NICENESS)


def decide(bot: Bot, view: PlayerView) -> tuple[Move, Bot]:
    """Run in a worker: the bot's move, and the bot as it is after choosing it."""
    return bot.choose(view), bot


class Thinker:
    """Decides bots' moves: searching bots in the process pool, the others inline."""

    def __init__(self, workers: int = 1, iterations: int | None = None) -> None:
        self.workers = workers
        self.budget = Budget(iterations or DEFAULT_ITERATIONS, seconds=SEARCH_SECONDS)
        self._pool: Executor | None = None
        self.decisions = 0  # decisions made in the pool (the load generator reports them)

    def new_bot(self, level: BotLevel) -> Bot:
        """A fresh bot of ``level``, seeded from the OS (R3.4: nothing to predict)."""
        return make_bot(level, random.Random(secrets.randbits(64)), self.budget)

    def _executor(self) -> Executor:
        if self._pool is None:
            # spawn: a fresh interpreter, not a fork of a process with threads (the
            # storage's writer, a client's UI) and open sockets.
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=context, initializer=_lower_priority
            )
        return self._pool

    async def choose(self, bot: Bot, view: PlayerView) -> tuple[Move, Bot]:
        """The bot's move for ``view`` and the bot to keep for its next one."""
        if not isinstance(bot, ExpertBot) or self.workers < 1:
            return decide(bot, view)
        loop = asyncio.get_running_loop()
        try:
            move, thought = await loop.run_in_executor(self._executor(), decide, bot, view)
        except BrokenProcessPool:
            log.error("the bots' worker process died; starting another")
            self._pool = None
            return self.new_bot(STAND_IN).choose(view), bot
        self.decisions += 1
        return move, thought

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
