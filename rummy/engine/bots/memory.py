"""What a bot remembers between its turns: who took which cards from the discard pile.

Everyone sees every move (RULES R9.1), so remembering the discard pile is fair
play. Between two of its turns a bot compares the pile it left with the pile
it finds: the cards gone from it and not on the table went into a hand. The
deepest card of a take (its target card) must be melded at once (R4.1), so the
owner of the nearest melded card at or below a missing card is the one who took it.
"""

from __future__ import annotations

from ..cards import Card
from ..views import PlayerView


class PileMemory:
    """Cards known to be in other players' hands, per seat, for the current deal."""

    __slots__ = ("_key", "_pile", "_stock", "held")

    def __init__(self) -> None:
        self._key: tuple[int, int] | None = None
        self._pile: tuple[Card, ...] | None = None  # the pile as this seat left it
        self._stock = 0
        self.held: dict[int, set[Card]] = {}

    def _reset(self, view: PlayerView) -> None:
        self._key = (len(view.results), view.deal)
        self._pile = None
        self._stock = view.stock_count
        self.held = {}

    def observe(self, view: PlayerView) -> None:
        """Update from a view at the start of this seat's turn."""
        key = (len(view.results), view.deal)
        # A new deal (or a new game for a reused bot): the stock never grows within a deal.
        if key != self._key or view.stock_count > self._stock:
            self._reset(view)
            return
        self._stock = view.stock_count
        before = self._pile
        if before is None:
            return
        now = view.discard_pile
        common = 0
        for a, b in zip(before, now, strict=False):
            if a != b:
                break
            common += 1
        if common == len(before):
            return
        owner_on_table: dict[Card, int] = {}
        for meld in view.melds:
            for card, owner in zip(meld.cards, meld.owners, strict=True):
                owner_on_table[card] = owner
        in_pile = set(now)
        taker: int | None = None
        for card in before[common:]:
            if card in owner_on_table:
                taker = owner_on_table[card]
            elif card not in in_pile and taker is not None and taker != view.seat:
                self.held.setdefault(taker, set()).add(card)

    def left_pile(self, view: PlayerView, discarded: Card | None) -> None:
        """Record the pile as this seat leaves it (after its discard, if any)."""
        self._key = (len(view.results), view.deal)
        self._stock = view.stock_count
        pile = view.discard_pile
        self._pile = pile if discarded is None else (*pile, discarded)

    def known(self, seat: int, view: PlayerView, gone: set[Card]) -> set[Card]:
        """Cards ``seat`` is known to hold, less those seen since (``gone``: on the
        table or in the pile)."""
        cards = self.held.get(seat)
        if not cards:
            return set()
        cards.difference_update(gone)
        return set(cards)
