"""The random bot: uniform over the legal moves. The baseline others must beat."""

from __future__ import annotations

import random

from ..moves import Move
from ..views import PlayerView
from .base import legal_or_raise


class RandomBot:
    """Picks uniformly among ``view.legal_moves()`` with its own rng."""

    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose(self, view: PlayerView) -> Move:
        moves = legal_or_raise(view)
        return moves[self._rng.randrange(len(moves))]
