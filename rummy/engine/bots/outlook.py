"""How a bot values the cards it holds and the cards it might discard.

Everything here is computed from one seat's view (and what the seat remembers
of the discard pile): the cards it cannot see are "unseen", each of which may
yet reach it from the stock. A card held at the end of a deal costs its points
(R7.2); a card that will likely be melded is worth its points (R7.1).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..cards import FIRST_JOKER, POINTS, RANK, SUIT, Card, make_card, of_rank
from .planning import TableState

FULL_STOCK = 27  # R3.2: the stock after the deal


@dataclass(frozen=True, slots=True)
class Tuning:
    """The heuristic bot's weights, in one place so that variants can play each other."""

    # Deals between sensible players end (someone goes out) with about this many
    # cards left in the stock: draws after that will not happen.
    end_stock: int = 0
    risk_early: float = 0.45  # share of a hopeless card's points lost, at the deal's start
    risk_late: float = 1.0  # ... and near its end
    risk_short_hand: float = 0.2  # added when another player is close to going out
    draw_bonus: float = 2.0  # a fresh card from the stock may meld
    take_margin: float = 1.0  # a take must beat the stock by this much
    danger_layoff: float = 1.2  # times the points of a discard the table takes
    # Measured in duplicate matches: feeding an opponent's known cards costs far
    # more than its points (it lets them meld, lay off and go out sooner).
    # Two cards of the discard pile count as two an opponent took: the next player may
    # take them with the discard (R4.1). (Counting one pile card as one an opponent
    # took wins more still, but then normal plays level with hard: not yet.)
    danger_known: float = 6.0  # ... that melds with two cards an opponent took (or the pile holds)
    danger_half: float = 1.5  # ... that melds with one card an opponent took
    danger_unseen: float = 2.0  # ... times the chance an opponent holds two that meld with it
    partner_bonus: float = 0.5  # times the points of a discard the partner collects
    # Hold three of a kind back while the stock has at least this many cards and the
    # fourth is unseen: four laid at once score double (R7.4). 0: never hold.
    hold_three_stock: int = 10


DEFAULT_TUNING = Tuning()


class Outlook:
    """One turn's estimates: which cards are unseen, how likely an unseen card
    is to reach this seat, how soon the deal may end, who is known to hold what."""

    __slots__ = ("_free", "opponent_known", "partner_known", "pile", "q", "risk", "table", "tuning", "unseen")

    def __init__(
        self,
        *,
        hand: Iterable[Card],
        pile: Iterable[Card],
        table: TableState,
        table_cards: Iterable[Card],
        stock_count: int,
        opponent_known: set[Card],
        partner_known: set[Card],
        min_other_hand: int,
        tuning: Tuning = DEFAULT_TUNING,
    ) -> None:
        self.tuning = tuning
        self.table = table
        self.opponent_known = opponent_known
        self.partner_known = partner_known
        self.pile = frozenset(pile)
        # Cards an opponent holds or may take with a discard (R4.1: all the pile is under it).
        self._free = frozenset(opponent_known) | self.pile
        unseen = set(range(56))
        unseen.difference_update(hand, self.pile, table_cards, opponent_known, partner_known)
        self.unseen = unseen
        # This seat draws about every fourth card of the stock; each unseen card is
        # as likely as any other to be among them.
        left = max(0, stock_count - tuning.end_stock)
        draws = left / 4 + (0.5 if stock_count else 0.0)
        self.q = min(0.9, draws / max(1, len(unseen)))
        # How much of a held card's points the deal's end will probably cost.
        late = 1 - min(left, FULL_STOCK) / (FULL_STOCK - tuning.end_stock)
        risk = tuning.risk_early + (tuning.risk_late - tuning.risk_early) * late
        if min_other_hand <= 2:
            risk += tuning.risk_short_hand
        self.risk = min(1.0, risk)

    def meld_chance(self, card: Card, hand: Sequence[Card] | set[Card]) -> float:
        """Chance that ``card`` is melded later, with the other cards of ``hand``."""
        q = self.q
        unseen = self.unseen
        r = RANK[card]
        if card >= FIRST_JOKER:
            have = sum(1 for c in hand if c >= FIRST_JOKER and c != card)
            need = sum(1 for c in unseen if c >= FIRST_JOKER)
        else:
            have = 0
            need = 0
            for c in of_rank(r):
                if c != card:
                    if c in hand:
                        have += 1
                    elif c in unseen:
                        need += 1
        if have >= 2:
            chance = 1.0
        elif have == 1:
            chance = need * q
        else:
            chance = need * (need - 1) / 2 * q * q
        if card >= FIRST_JOKER:
            return min(0.9, chance)
        # Runs: each stretch of three ranks that holds this card.
        s = SUIT[card]
        for low in (r - 2, r - 1, r):
            if low < 2 or low + 2 > 14:
                continue
            h = n = 0
            for rr in (low, low + 1, low + 2):
                if rr == r:
                    continue
                c = make_card(rr, s)
                if c in hand:
                    h += 1
                elif c in unseen:
                    n += 1
            if h + n == 2:
                chance += 1.0 if h == 2 else (q if h == 1 else q * q)
        # A run on the table that ends two ranks away: one unseen card bridges it.
        for lo, hi in self.table.run_ends(s):
            gap = r - 1 if hi == r - 2 else r + 1 if lo == r + 2 else None
            if gap is not None and make_card(gap, s) in unseen:
                chance += q
        return min(0.9, chance)

    def card_values(self, hand: Sequence[Card]) -> list[float]:
        """What each card of ``hand`` is worth to keep: its points times the
        chance of melding it, less its points times the risk of still holding it."""
        held = set(hand)
        risk = self.risk
        values = []
        for card in hand:
            p = self.meld_chance(card, held)
            values.append(POINTS[card] * (p - (1 - p) * risk))
        return values

    def hand_value(self, hand: Sequence[Card]) -> float:
        return sum(self.card_values(hand))

    def danger(self, card: Card, opponent_hands: Sequence[int]) -> float:
        """What discarding ``card`` may give the opponents. Two cards that meld with it
        in an opponent's hand (known: taken from the pile) or in the discard pile
        under it, which anyone may take with it (R4.1: the pile's Jk Jk under a
        discarded Joker are a set for the next player, whatever its hand): a meld for
        sure. Else a lay-off on the table; else one known card that melds with it, or
        unseen cards that may."""
        pts = POINTS[card]
        tuning = self.tuning
        if self._melds_with(card, self._free):
            return pts * tuning.danger_known
        if self.table.taker(card) is not None:
            return pts * tuning.danger_layoff
        r = RANK[card]
        known = self.opponent_known
        k = sum(1 for c in of_rank(r) if c != card and c in known)
        danger = pts * tuning.danger_half if k == 1 else 0.0
        if card < FIRST_JOKER:
            s = SUIT[card]
            for low in (r - 2, r - 1, r):
                if low < 2 or low + 2 > 14:
                    continue
                if any(make_card(rr, s) in known for rr in (low, low + 1, low + 2) if rr != r):
                    danger = max(danger, pts * tuning.danger_half)
        # Unknown hands: the chance that an opponent holds two cards that meld with it.
        u = len(self.unseen) or 1
        pairs = self._unseen_pairs(card)
        if pairs:
            chance = sum((h / u) ** 2 for h in opponent_hands) * pairs
            danger += pts * min(1.0, chance) * tuning.danger_unseen
        return danger

    @staticmethod
    def _melds_with(card: Card, cards: set[Card] | frozenset[Card]) -> bool:
        """Whether two of ``cards`` make a meld with ``card`` (R5.1-R5.3)."""
        r = RANK[card]
        if sum(1 for c in of_rank(r) if c != card and c in cards) >= 2:
            return True
        if card >= FIRST_JOKER:
            return False
        s = SUIT[card]
        return any(
            low >= 2
            and low + 2 <= 14
            and all(make_card(rr, s) in cards for rr in (low, low + 1, low + 2) if rr != r)
            for low in (r - 2, r - 1, r)
        )

    def _unseen_pairs(self, card: Card) -> int:
        unseen = self.unseen
        r = RANK[card]
        if card >= FIRST_JOKER:
            n = sum(1 for c in unseen if c >= FIRST_JOKER)
            return n * (n - 1) // 2
        n = sum(1 for c in of_rank(r) if c in unseen)
        pairs = n * (n - 1) // 2
        s = SUIT[card]
        for low in (r - 2, r - 1, r):
            if low < 2 or low + 2 > 14:
                continue
            if all(make_card(rr, s) in unseen for rr in (low, low + 1, low + 2) if rr != r):
                pairs += 1
        return pairs

    def partner_wants(self, card: Card) -> bool:
        """Whether the partner is known to hold cards that meld with ``card``."""
        known = self.partner_known
        if not known:
            return False
        r = RANK[card]
        if card >= FIRST_JOKER:
            return sum(1 for c in known if c >= FIRST_JOKER) >= 2
        if sum(1 for c in known if c < FIRST_JOKER and RANK[c] == r) >= 2:
            return True
        s = SUIT[card]
        for low in (r - 2, r - 1, r):
            if low < 2 or low + 2 > 14:
                continue
            if all(make_card(rr, s) in known for rr in (low, low + 1, low + 2) if rr != r):
                return True
        return False


__all__ = ["DEFAULT_TUNING", "Outlook", "Tuning"]
