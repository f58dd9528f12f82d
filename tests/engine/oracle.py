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


def _read(card: Card) -> tuple[bool, int, str]:
    text = card_text(card, ascii=True)
    if text == "Jk":
        return True, -1, ""
    return False, RANK_ORDER.index(text[:-1]), text[-1]


# Read once from the printed forms (the oracle is called at every step of many games).
_FACE = {card: _read(card) for card in range(56)}


def is_joker(card: Card) -> bool:
    return _FACE[card][0]


def rank_of(card: Card) -> int:
    """0 for a 2 up to 12 for an Ace (R1.3); Jokers have none."""
    return _FACE[card][1]


def suit_of(card: Card) -> str:
    return _FACE[card][2]


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


def _runs_through(target: Card, available: set[Card]) -> list[tuple[Card, ...]]:
    """Every run of available cards (of the target's suit) that holds the target."""
    by_rank = {rank_of(c): c for c in available if not is_joker(c) and suit_of(c) == suit_of(target)}
    t = rank_of(target)
    low, high = t, t  # the stretch of consecutive ranks around the target
    while low - 1 in by_rank:
        low -= 1
    while high + 1 in by_rank:
        high += 1
    return [
        tuple(sorted(by_rank[r] for r in range(a, b + 1)))
        for a in range(low, t + 1)
        for b in range(max(t, a + 2), high + 1)
    ]


def _melds_through(target: Card, available: set[Card]) -> set[tuple[Card, ...]]:
    """Every meld of available cards that holds the target: sets (or Joker sets) of
    three or four, and runs."""
    if is_joker(target):
        alike = [c for c in available if is_joker(c) and c != target]
    else:
        alike = [c for c in available if not is_joker(c) and c != target and rank_of(c) == rank_of(target)]
    found = {tuple(sorted((target, *combo))) for k in (2, 3) for combo in combinations(alike, k)}
    if not is_joker(target):
        found.update(_runs_through(target, available))
    return found


def legal_moves(
    phase: str, hand: Sequence[Card], pile: Sequence[Card], stock_count: int, table: Sequence[Sequence[Card]]
) -> set[tuple[object, ...]]:
    """The legal moves of the seat to act, as plain tuples, from RULES R4-R6 alone:
    ("draw",), ("pass",), ("next",), ("take", index, cards, meld_index or None),
    ("meld", cards), ("layoff", meld_index, card), ("discard", card).

    The use of a target card (R4.1) is a new meld holding it, or a lay-off on a
    meld on the table: the target alone if the meld takes it, else together with
    the fewest cards that let it join (for a run, those bridging the gap)."""
    moves: set[tuple[object, ...]] = set()
    if phase == "draw":
        moves.add(("draw",) if stock_count else ("pass",))
        for index, target in enumerate(pile):
            available = set(hand) | set(pile[index:])
            for new in _melds_through(target, available):
                moves.add(("take", index, new, None))
            for meld_index, meld in enumerate(table):
                if is_meld([*meld, target]):
                    moves.add(("take", index, (target,), meld_index))
                    continue
                runs = [r for r in _runs_through(target, available | set(meld)) if set(meld) <= set(r)]
                if runs:
                    shortest = min(runs, key=len)
                    moves.add(("take", index, tuple(c for c in shortest if c not in meld), meld_index))
    elif phase == "meld":
        for card in hand:
            moves.update(("meld", m) for m in _melds_through(card, set(hand)))
            moves.add(("discard", card))
            for meld_index, meld in enumerate(table):
                if is_meld([*meld, card]):
                    moves.add(("layoff", meld_index, card))
    elif phase == "deal_over":
        moves.add(("next",))
    return moves
