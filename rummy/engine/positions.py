"""Positions built by hand, for tests of rules and bots (docs/ENGINE.md).

``position(...)`` builds a real ``Game`` in the state a test cares about (hands,
stock, discard pile, melds, who is to act and in which phase), so a test states
its position in card text instead of hunting for a seed. It refuses a position
where the 56 cards are not each in exactly one place, so a typo in a test cannot
build an impossible table. ``take`` and ``meld`` write moves the way
``legal_moves()`` lists them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from .cards import PACK, Card, parse_card, parse_cards
from .events import DealStarted, Event
from .game import Game, Phase
from .melds import Meld
from .moves import NewMeld, TakeDiscard
from .seats import next_seat

CardsSpec = str | Sequence[Card]
# A meld on the table: (cards, laid_by) or (cards, laid_by, owner of each card).
MeldSpec = tuple[CardsSpec, int] | tuple[CardsSpec, int, Sequence[int]]


def cards(spec: CardsSpec) -> list[Card]:
    """Cards from text ("7h 8h 9h", "Jk Jk2") or from a list of ids."""
    return parse_cards(spec) if isinstance(spec, str) else list(spec)


def c(text: str) -> Card:
    """One card from its text."""
    return parse_card(text)


def take(index: int, spec: CardsSpec, meld_id: int | None = None) -> TakeDiscard:
    """A take from the discard pile, its cards sorted as ``legal_moves`` lists them."""
    return TakeDiscard(index, tuple(sorted(cards(spec))), meld_id)


def meld(spec: CardsSpec) -> NewMeld:
    """A new meld from the hand, its cards sorted as ``legal_moves`` lists them."""
    return NewMeld(tuple(sorted(cards(spec))))


def position(
    hands: Sequence[CardsSpec],
    *,
    discard: CardsSpec = "",
    melds: Sequence[MeldSpec] = (),
    stock: CardsSpec = "",
    rest_to: Literal["stock", "discard"] = "stock",
    current: int = 0,
    phase: Phase = "draw",
    dealer: int | None = None,
    deal: int = 1,
    passes: int = 0,
    seed: int = 0,
) -> Game:
    """A game in the given position.

    ``discard`` lists the discard pile bottom first; ``stock`` lists the top of the
    stock, its top card last. Every card not placed goes, in id order, under the
    given stock (``rest_to="stock"``) or under the discard pile (``rest_to="discard"``,
    to build an empty stock). ``dealer`` defaults to the seat to the right of
    ``current``.
    """
    if len(hands) != 4:
        raise ValueError("four hands")
    game = Game(seed)
    game.hands = [cards(h) for h in hands]
    game.discard_pile = cards(discard)
    game.melds = []
    for meld_id, spec in enumerate(melds):
        meld_cards, laid_by = cards(spec[0]), spec[1]
        meld = Meld.new(meld_id, meld_cards, laid_by)
        if len(spec) == 3:
            # Meld.new keeps a run in rank order: give owners in that same order.
            meld.owners = list(spec[2])
            if len(meld.owners) != len(meld.cards):
                raise ValueError("one owner per card")
        game.melds.append(meld)
    placed = [c for h in game.hands for c in h] + game.discard_pile
    placed += [c for m in game.melds for c in m.cards]
    top = cards(stock or "")
    rest = sorted(set(PACK) - set(placed) - set(top))
    if rest_to == "stock":
        game.stock = rest + top
    else:
        game.stock = top
        game.discard_pile = rest + game.discard_pile
    everything = placed + rest + top
    if sorted(everything) != list(PACK):
        missing = sorted(set(PACK) - set(everything))
        twice = sorted({c for c in everything if everything.count(c) > 1})
        raise ValueError(f"not every card exactly once: missing {missing}, twice {twice}")
    game.current = current
    game.phase = phase
    game.deal = deal
    game.dealer = next_seat(current, -1) if dealer is None else dealer
    game.first_dealer = next_seat(game.dealer, 1 - deal)
    game.passes = passes
    game.went_out = None
    game.results = []
    game.moves = []
    # The deal's opening as this position has it (the seed's own deal had another
    # dealer and another first discard, and a log would say so).
    opening: list[Event] = [e for e in game.opening_events if not isinstance(e, DealStarted)]
    if game.discard_pile:
        opening.append(DealStarted(deal, game.dealer, game.discard_pile[0]))
    game.opening_events = opening
    return game
