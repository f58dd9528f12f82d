"""Bots (pure: no I/O, randomness only through the rng they are given).

``make_bot(name, rng)`` builds a bot by name; ``BOT_NAMES`` lists the names.
Every bot has ``choose(view) -> Move`` and sees only its seat's view.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from .base import Bot, NoMoveError
from .expert import Budget, ExpertBot
from .heuristic import HeuristicBot
from .random_bot import RandomBot

_FACTORIES: dict[str, Callable[[random.Random], Bot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "expert": ExpertBot,
}
BOT_NAMES: tuple[str, ...] = tuple(_FACTORIES)


def make_bot(name: str, rng: random.Random, budget: Budget | None = None) -> Bot:
    """The bot called ``name`` (one of ``BOT_NAMES``), drawing randomness from ``rng``.
    ``budget`` sets how long a searching bot (the expert) thinks; others ignore it.

    Raises ``ValueError`` naming the known bots for an unknown name.
    """
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ValueError(f"unknown bot {name!r}; known bots: {', '.join(BOT_NAMES)}")
    if factory is ExpertBot:
        return ExpertBot(rng, budget)
    return factory(rng)


__all__ = ["BOT_NAMES", "Bot", "Budget", "ExpertBot", "HeuristicBot", "NoMoveError", "RandomBot", "make_bot"]
