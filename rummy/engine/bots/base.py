"""What every bot is: something that picks a move from one seat's view.

A bot sees only its ``PlayerView`` (RULES R9), never the ``Game``: whatever it
does, it cannot cheat. Its only randomness is the ``random.Random`` it was made
with, so a seeded bot plays the same game the same way every time.
"""

from __future__ import annotations

from typing import Protocol

from ..moves import Move
from ..views import PlayerView


class Bot(Protocol):
    """A player program. ``choose`` is called when ``view.my_turn`` is true."""

    name: str

    def choose(self, view: PlayerView) -> Move:
        """One of ``view.legal_moves()``."""
        ...


class NoMoveError(ValueError):
    """A bot was asked to move from a view where its seat has no legal move."""


def legal_or_raise(view: PlayerView) -> list[Move]:
    """The view's legal moves; raises ``NoMoveError`` when there are none (not this
    seat's turn, a spectator's view, or the game is over)."""
    moves = view.legal_moves()
    if not moves:
        raise NoMoveError(
            f"seat {view.seat} has no legal move now (phase {view.phase}, current {view.current})"
        )
    return moves
