"""Melds: sets, runs, Joker sets and lay-offs (RULES R5).

A meld on the table remembers who laid each of its cards (R5.5): a card laid
off on an opponent's meld still scores for the player who laid it, and the
meld with every card added to it stays one meld that anyone may extend (R5.4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from .cards import ACE, FIRST_JOKER, JOKERS, RANK, SUIT, Card, card_text, make_card, of_rank

MeldKind = Literal["set", "run", "jokers"]


def meld_kind(cards: Sequence[Card]) -> MeldKind | None:
    """The kind of meld these cards form together, or None if they form none.

    R5.1 a set is 3 or 4 cards of one rank; R5.2 a run is 3+ cards of one suit in
    consecutive rank order, Aces high only; R5.3 Jokers form only sets of their own.
    """
    n = len(cards)
    if n < 3 or len(set(cards)) != n:
        return None
    first = cards[0]
    if first >= FIRST_JOKER:
        if n <= 4 and all(c >= FIRST_JOKER for c in cards):
            return "jokers"
        return None
    if any(c >= FIRST_JOKER for c in cards):
        return None
    r = RANK[first]
    if n <= 4 and all(RANK[c] == r for c in cards):
        return "set"
    s = SUIT[first]
    if any(SUIT[c] != s for c in cards):
        return None
    ranks = sorted(RANK[c] for c in cards)
    if ranks[-1] - ranks[0] == n - 1:  # distinct (checked above) and no gap
        return "run"
    return None


def why_no_meld(cards: Sequence[Card]) -> str:
    """Why ``cards`` make no meld (``meld_kind`` is None), in one sentence: the rule,
    by its number, then the cards. "Those cards do not make a meld" left a new player
    guessing what was wrong with 4♠ 8♠ J♠."""
    shown = " ".join(card_text(c) for c in sorted(cards))
    if len(cards) < 3:
        return f"A meld is three cards or more (R5.1, R5.2): {shown} are not enough."
    if len(set(cards)) != len(cards):
        return "A card cannot be in a meld twice."
    jokers = sum(c >= FIRST_JOKER for c in cards)
    if jokers == len(cards):  # five or more: there are only four
        return "A set of Jokers is three or four of them (R5.3)."
    if jokers:
        return f"Jokers are not wild, they make only a set of their own (R5.3): {shown} make no meld."
    if len({SUIT[c] for c in cards}) > 1:  # (of one rank, three or four are a set)
        return f"A set is of one rank (R5.1) and a run of one suit (R5.2): {shown} make no meld."
    ranks = {RANK[c] for c in cards}
    if ACE in ranks and 2 in ranks:
        return f"Aces are high only, after the King (R5.2): {shown} make no run."
    return f"A run's ranks follow on with no gap (R5.2): {shown} make no run."


@dataclass(slots=True)
class Meld:
    """One meld on the table. ``cards`` is kept in rank order for runs.

    ``owners[i]`` is the seat that laid ``cards[i]``. ``laid_by`` is the seat that
    laid the meld down; ``four_at_once`` marks a set of four laid as one new meld,
    whose four cards score double (R7.4).
    """

    id: int
    kind: MeldKind
    cards: list[Card]
    owners: list[int]
    laid_by: int
    four_at_once: bool = False
    low: int = 0  # runs only: lowest and highest rank
    high: int = 0
    suit: int = 0
    rank: int = 0  # sets only
    # ``takes()`` as last computed: legal moves ask it of every meld at every turn, and
    # it changes only when a card is laid off (``add``).
    _takes: tuple[Card, ...] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def new(cls, meld_id: int, cards: Sequence[Card], seat: int) -> Meld:
        kind = meld_kind(cards)
        if kind is None:
            raise ValueError("not a meld")
        return cls.of_kind(meld_id, kind, cards, seat)

    @classmethod
    def of_kind(cls, meld_id: int, kind: MeldKind, cards: Sequence[Card], seat: int) -> Meld:
        """``new`` for cards already known to form a meld of ``kind`` (``meld_kind``)."""
        ordered = sorted(cards, key=RANK.__getitem__) if kind == "run" else list(cards)
        four_at_once = kind != "run" and len(ordered) == 4
        return cls.of(meld_id, kind, ordered, [seat] * len(ordered), seat, four_at_once)

    @classmethod
    def of(
        cls,
        meld_id: int,
        kind: MeldKind,
        cards: list[Card],
        owners: list[int],
        laid_by: int,
        four_at_once: bool,
    ) -> Meld:
        """A meld whose ``cards`` form ``kind`` (checked by the caller), a run's in rank
        order, as it lies on the table; fills in what follows from its cards."""
        if kind == "run":
            low, high, suit = RANK[cards[0]], RANK[cards[-1]], SUIT[cards[0]]
            return cls(meld_id, kind, cards, owners, laid_by, four_at_once, low, high, suit)
        rank = RANK[cards[0]] if kind == "set" else 0
        return cls(meld_id, kind, cards, owners, laid_by, four_at_once, rank=rank)

    def accepts(self, card: Card) -> bool:
        """Whether ``card`` alone may be laid off on this meld now (R5.4)."""
        if self.kind == "run":
            if card >= FIRST_JOKER or SUIT[card] != self.suit:
                return False
            r = RANK[card]
            return r == self.low - 1 or r == self.high + 1
        if len(self.cards) >= 4 or card in self.cards:  # a card already here is no new card
            return False
        if self.kind == "jokers":
            return card >= FIRST_JOKER
        return card < FIRST_JOKER and RANK[card] == self.rank

    def takes(self) -> tuple[Card, ...]:
        """Every card that ``accepts`` would take now (at most two for a run)."""
        if self._takes is None:
            self._takes = self._compute_takes()
        return self._takes

    def _compute_takes(self) -> tuple[Card, ...]:
        if self.kind == "run":
            below = (make_card(self.low - 1, self.suit),) if self.low > 2 else ()
            above = (make_card(self.high + 1, self.suit),) if self.high < ACE else ()
            return below + above
        cards = self.cards
        if len(cards) >= 4:
            return ()
        kin = JOKERS if self.kind == "jokers" else of_rank(self.rank)
        return tuple([c for c in kin if c not in cards])

    def bridge(self, card: Card) -> tuple[int, ...] | None:
        """For a run: the ranks from the nearer end up to ``card``'s rank, that laying
        off ``card`` needs (``card``'s own rank last); None if it cannot extend this meld."""
        if self.kind != "run" or card >= FIRST_JOKER or SUIT[card] != self.suit:
            return None
        r = RANK[card]
        if r > self.high:
            return tuple(range(self.high + 1, r + 1))
        if r < self.low:
            return tuple(range(self.low - 1, r - 1, -1))
        return None

    def add(self, card: Card, seat: int) -> None:
        """Lay off one card (the caller has checked ``accepts``)."""
        self._takes = None
        if self.kind == "run":
            r = RANK[card]
            if r < self.low:
                self.cards.insert(0, card)
                self.owners.insert(0, seat)
                self.low = r
            else:
                self.cards.append(card)
                self.owners.append(seat)
                self.high = r
        else:
            self.cards.append(card)
            self.owners.append(seat)

    def copy(self) -> Meld:
        return Meld(
            self.id,
            self.kind,
            list(self.cards),
            list(self.owners),
            self.laid_by,
            self.four_at_once,
            self.low,
            self.high,
            self.suit,
            self.rank,
            self._takes,
        )
