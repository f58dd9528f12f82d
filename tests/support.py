"""Helpers every kind of test uses: wait until something holds, play a game on.

``eventually`` polls instead of sleeping a fixed time and then asserting: it returns
as soon as the outcome is there, and fails with what it waited for if it never is.
``play_until`` plays moves chosen by ``choose`` until ``done`` holds, with a bound so
that a game that never ends fails instead of hanging.
"""

from __future__ import annotations

import asyncio
import inspect
import random
from collections.abc import Awaitable, Callable, Sequence

from rummy.engine import Event, Game, Move, view_for
from rummy.engine.bots import Bot

POLL = 0.02  # seconds between two looks
TIMEOUT = 10.0


async def eventually(
    predicate: Callable[[], object],
    *,
    timeout: float = TIMEOUT,
    interval: float = POLL,
    what: str | Callable[[], str] = "",
    pause: Callable[[float], Awaitable[object]] | None = None,
) -> None:
    """Return once ``predicate()`` is true, looking every ``interval`` seconds; raise
    ``AssertionError`` naming ``what`` (or the predicate; a function of no arguments is
    called then, to show the state it timed out in) after ``timeout`` seconds.
    ``pause`` waits between looks (``pilot.pause`` lets a Textual app run meanwhile);
    the default is ``asyncio.sleep``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    wait = pause or asyncio.sleep
    while not predicate():
        if loop.time() >= deadline:
            waited_for = what() if callable(what) else what or _source(predicate)
            raise AssertionError(f"timed out after {timeout:g} s waiting for {waited_for}")
        await wait(interval)


def _source(predicate: Callable[[], object]) -> str:
    """The line that wrote ``predicate`` (a lambda's name says nothing)."""
    try:
        return inspect.getsource(predicate).strip()
    except (OSError, TypeError):
        return repr(predicate)


Choose = Callable[[Game], Move]


def by_bots(bots: Sequence[Bot]) -> Choose:
    """Each seat's move chosen by its bot, from that seat's view (R9)."""
    return lambda game: bots[game.current].choose(view_for(game, game.current))


def at_random(rng: random.Random) -> Choose:
    """Any legal move, picked with ``rng``."""
    return lambda game: rng.choice(game.legal_moves())


def game_over(game: Game) -> bool:
    return game.is_over


def play_until(
    game: Game,
    choose: Choose,
    done: Callable[[Game], bool] = game_over,
    *,
    limit: int = 10_000,
    after: Callable[[Game, Move], object] | None = None,
) -> list[Event]:
    """Apply ``choose(game)`` for the seat to act until ``done(game)``; returns every
    event the moves caused, in order. ``after(game, move)`` runs after each move. More
    than ``limit`` moves fail the test: the game does not end."""
    events: list[Event] = []
    played = 0
    while not done(game):
        seat = game.current
        move = choose(game)
        events += game.apply(move, seat=seat)
        played += 1
        if after is not None:
            after(game, move)
        assert played < limit, "the game does not end"
    return events
