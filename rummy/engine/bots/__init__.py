"""Bots (pure: no I/O, randomness only through the rng they are given).

``make_bot(name, rng)`` builds a bot by name; ``BOT_NAMES`` lists the names. The
levels a player chooses from are names too (``LEVELS``): ``easy`` is the easy bot,
``normal`` the heuristic bot and ``hard`` the expert. Every bot has
``choose(view) -> Move`` and sees only its seat's view.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Literal

from .base import Bot, NoMoveError
from .easy import EasyBot
from .expert import Budget, ExpertBot
from .heuristic import HeuristicBot
from .random_bot import RandomBot

_FACTORIES: dict[str, Callable[[random.Random], Bot]] = {
    "random": RandomBot,
    "easy": EasyBot,
    "heuristic": HeuristicBot,
    "expert": ExpertBot,
}
Level = Literal["easy", "normal", "hard"]
# The levels a player chooses from, and the bot that plays each.
LEVELS: dict[str, str] = {"easy": "easy", "normal": "heuristic", "hard": "expert"}
# Every name ``make_bot`` knows: the bots' own names, then the levels.
BOT_NAMES: tuple[str, ...] = (*_FACTORIES, *(level for level in LEVELS if level not in _FACTORIES))


def make_bot(name: str, rng: random.Random, budget: Budget | None = None) -> Bot:
    """The bot called ``name`` (one of ``BOT_NAMES``: a bot or a level), drawing
    randomness from ``rng``. ``budget`` sets how long a searching bot (the expert)
    thinks; others ignore it.

    Raises ``ValueError`` naming the known bots for an unknown name.
    """
    factory = _FACTORIES.get(LEVELS.get(name, name))
    if factory is None:
        raise ValueError(f"unknown bot {name!r}; known bots: {', '.join(BOT_NAMES)}")
    if factory is ExpertBot:
        return ExpertBot(rng, budget)
    return factory(rng)


__all__ = [
    "BOT_NAMES",
    "LEVELS",
    "Bot",
    "Budget",
    "EasyBot",
    "ExpertBot",
    "HeuristicBot",
    "Level",
    "NoMoveError",
    "RandomBot",
    "make_bot",
]
