"""The easy bot: plays like a beginner who knows the rules.

It lays down every meld it can and lays off every card that fits, at once (R4.2,
R5.4); it takes from the discard pile when the card it takes melds straight away
(R4.1), but looks no deeper than the top three cards; and it discards its costliest
card that goes with nothing else in its hand (R4.3). It does not remember what the others
took, does not hold three of a kind back for the fourth, and does not mind whether
its discard helps the next player. A sensible game, and one a new player can beat.

Measured in duplicate games (``rummy-sim``): it beats the random bot about three games
in four, and the heuristic bot (level normal) beats it more than four in five.
Looking only at the top card would make it too weak (the random bot beats that).
"""

from __future__ import annotations

import random

from ..moves import DISCARDS, Move, NextDeal
from ..views import PlayerView
from .base import legal_or_raise
from .playout import discard_choice, draw_choice, meld_choice

TAKE_DEPTH = 3  # how deep into the discard pile it looks for a take


class EasyBot:
    """See the module docstring. ``rng`` breaks ties between equal discards."""

    name = "easy"

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose(self, view: PlayerView) -> Move:
        moves = legal_or_raise(view)
        hand = view.hand
        assert hand is not None
        if view.phase == "draw":
            move = draw_choice(hand, view.discard_pile, view.melds, view.stock_count, TAKE_DEPTH)
        elif view.phase == "meld":
            move = meld_choice(hand, view.melds) or DISCARDS[discard_choice(hand, self._rng)]
        else:
            move = NextDeal()
        return move if move in moves else moves[0]
