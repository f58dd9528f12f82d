"""Catching hidden cards where they must not be (RULES R9.2).

Cards are plain ints, so a search of a view's text for "17" proves nothing. Instead
every card a seat may not see is replaced, in a copy of the game, by ``Hidden``: an
int that behaves like the card for every rule but prints as ``HIDDEN<17>``. Whatever
path a hidden card took into a view or an event, its printed form gives it away.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rummy.engine import DealEnded, Event, Game, GameEnded, Move, view_for


class Hidden(int):
    """A card that a test marked as secret; equal to the card itself."""

    def __repr__(self) -> str:
        return f"HIDDEN<{int(self)}>"

    __str__ = __repr__


_FOUND = re.compile(r"HIDDEN<(\d+)>")


def hidden_in(text: str) -> list[int]:
    return [int(n) for n in _FOUND.findall(text)]


def marked(game: Game, seat: int | None) -> Game:
    """A copy of ``game`` where the stock and every hand but ``seat``'s are Hidden."""
    copy = game.clone()
    copy.stock = [Hidden(c) for c in game.stock]
    copy.hands = [list(h) if s == seat else [Hidden(c) for c in h] for s, h in enumerate(game.hands)]
    return copy


def view_leaks(game: Game, seat: int | None) -> list[int]:
    """The hidden cards that appear anywhere in ``seat``'s view (should be none)."""
    return hidden_in(repr(view_for(marked(game, seat), seat)))


def event_leaks(game: Game, move: Move) -> list[int]:
    """Apply ``move`` to a copy where every hand and the stock are Hidden; return the
    hidden cards its events name that are not public after the move (should be none).
    The hands shown at the end of a deal (R7) are public by then."""
    copy = marked(game, None)
    events: Sequence[Event] = copy.apply(move)
    public = set(copy.discard_pile) | {c for m in copy.melds for c in m.cards}
    leaks = []
    for event in events:
        if isinstance(event, (DealEnded, GameEnded)):
            continue
        leaks += [c for c in hidden_in(repr(event)) if c not in public]
    return leaks
