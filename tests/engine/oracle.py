"""Independent re-statements of the rules, for the tests to check the engine against.

Written from RULES.md and the cards' text forms only, without the engine's tables
or meld code, so that a bug in the engine cannot hide in the very code that checks
it: a card's rank, suit and points are read from its printed form.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations

from rummy.engine import Card, card_text

RANK_ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]  # R1.3


def is_joker(card: Card) -> bool:
    return card_text(card, ascii=True) == "Jk"


def rank_of(card: Card) -> int:
    """0 for a 2 up to 12 for an Ace (R1.3); Jokers have none."""
    return RANK_ORDER.index(card_text(card, ascii=True)[:-1])


def suit_of(card: Card) -> str:
    return card_text(card, ascii=True)[-1]


def card_points(card: Card) -> int:
    """R1.2: Joker 20, Ace 15, K/Q/J/10 10, 2..9 face value."""
    if is_joker(card):
        return 20
    face = card_text(card, ascii=True)[:-1]
    if face == "A":
        return 15
    if face in ("K", "Q", "J", "10"):
        return 10
    return int(face)


def is_meld(cards: Sequence[Card]) -> bool:
    """R5.1-R5.3: a set of 3-4 of one rank, a run of 3+ of one suit in rank order
    (Aces high only), or 3-4 Jokers."""
    if len(cards) < 3 or len(set(cards)) != len(cards):
        return False
    jokers = [c for c in cards if is_joker(c)]
    if jokers:
        return len(jokers) == len(cards) <= 4
    if len({rank_of(c) for c in cards}) == 1:
        return len(cards) <= 4
    if len({suit_of(c) for c in cards}) != 1:
        return False
    ranks = sorted(rank_of(c) for c in cards)
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def could_meld_with(a: Card, b: Card) -> bool:
    """Whether two cards could ever be in one meld: same rank, same suit, or both Jokers."""
    if is_joker(a) or is_joker(b):
        return is_joker(a) and is_joker(b)
    return rank_of(a) == rank_of(b) or suit_of(a) == suit_of(b)


def melds_within(cards: Iterable[Card], must_hold: Card | None = None) -> set[tuple[Card, ...]]:
    """Every meld (sorted tuple) made of some of ``cards``, by brute force over subsets
    (only cards that could share a meld with each other are combined)."""
    pool = sorted(set(cards))
    found: set[tuple[Card, ...]] = set()
    anchors = [must_hold] if must_hold is not None else pool
    for anchor in anchors:
        friends = [c for c in pool if c != anchor and could_meld_with(anchor, c)]
        for size in range(2, len(friends) + 1):
            for combo in combinations(friends, size):
                candidate = tuple(sorted((anchor, *combo)))
                if is_meld(candidate):
                    found.add(candidate)
    return found


def four_of_a_kind(cards: Sequence[Card]) -> bool:
    """Four cards of one rank, or four Jokers (R7.4)."""
    if len(cards) != 4 or not is_meld(cards):
        return False
    return all(is_joker(c) for c in cards) or len({rank_of(c) for c in cards}) == 1
