"""The heuristic bot: plays a sensible game from its own view.

- Draw (R4.1, R6.1): every legal take from the discard pile is tried in full:
  the target card's use, then the best melds and lay-offs of the new hand, then
  the cards it would be left holding. It digs in when that beats drawing from
  the stock (or passing), so a deep take pays only if its cards are worth it.
- Meld (R4.2): it lays down the plan that lays the most points, four of a kind
  at once counted twice (R7.4), and lays off on any meld; its partner's count the
  same (R5.5). A plan that empties the hand goes out (R4.4).
- Discard (R4.3): it keeps cards likely to meld, sheds high cards as the deal
  nears its end, and avoids cards the opponents can use: ones that extend a meld
  on the table, or meld with cards they took from the pile or with two cards of
  the discard pile (the next player may take those together with the discard, R4.1).
  A card its partner collects is a better discard, when the next opponent cannot use it.
"""

from __future__ import annotations

import random

from ..cards import POINTS, RANK, Card
from ..moves import Discard, DrawStock, LayOff, Move, NewMeld, NextDeal, Pass, TakeDiscard
from ..seats import opponents_of, partner_of
from ..views import PlayerView
from .base import legal_or_raise
from .memory import PileMemory
from .outlook import DEFAULT_TUNING, Outlook, Tuning
from .planning import GOING_OUT, NODE_CAP, TableState, best_plan, meld_value

# Search nodes for all the takes of one draw: plenty for any hand of a sensible
# game; a huge hand (say a bot taking over a hoarder's seat) then plans greedily.
DRAW_BUDGET = 3_000  # normal play needs at most a few hundred
SMALL_CAP = 20


class HeuristicBot:
    """See the module docstring. ``rng`` breaks ties between equal choices."""

    name = "heuristic"

    def __init__(self, rng: random.Random, tuning: Tuning = DEFAULT_TUNING) -> None:
        self._rng = rng
        self._tuning = tuning
        self._memory = PileMemory()

    # --- the whole turn ---------------------------------------------------------

    def choose(self, view: PlayerView) -> Move:
        moves = legal_or_raise(view)
        if view.phase == "draw":
            self._memory.observe(view)
            move = self._draw(view, moves)
            if isinstance(move, Pass):
                self._memory.left_pile(view, None)
            return move
        if view.phase == "meld":
            move = self._meld(view, moves)
            if isinstance(move, Discard):
                self._memory.left_pile(view, move.card)
            return move
        return NextDeal() if NextDeal() in moves else moves[0]

    def _outlook(self, view: PlayerView, hand: tuple[Card, ...]) -> Outlook:
        seat = view.seat
        assert seat is not None
        pile = view.discard_pile
        table_cards = [c for m in view.melds for c in m.cards]
        gone = set(pile).union(table_cards)
        opponents = opponents_of(seat)
        partner = partner_of(seat)
        opp_known: set[Card] = set()
        for s in opponents:
            opp_known |= self._memory.known(s, view, gone)
        return Outlook(
            hand=hand,
            pile=pile,
            table=TableState.from_melds(view.melds),
            table_cards=table_cards,
            stock_count=view.stock_count,
            opponent_known=opp_known,
            partner_known=self._memory.known(partner, view, gone),
            min_other_hand=min(view.hand_counts[s] for s in range(4) if s != seat),
            tuning=self._tuning,
        )

    # --- draw -------------------------------------------------------------------

    def _draw(self, view: PlayerView, moves: list[Move]) -> Move:
        hand = view.hand
        assert hand is not None
        outlook = self._outlook(view, hand)
        base = moves[0]  # DrawStock, or Pass when the stock is empty
        plan = best_plan(hand, outlook.table)
        tuning = self._tuning
        best_score = plan.laid + outlook.hand_value(plan.leftover) + tuning.take_margin
        if isinstance(base, DrawStock):
            best_score += tuning.draw_bonus
        best: Move = base
        pile = view.discard_pile
        budget = DRAW_BUDGET
        for move in moves:
            if not isinstance(move, TakeDiscard):
                continue
            score, nodes = self._score_take(move, hand, pile, outlook, max(SMALL_CAP, min(NODE_CAP, budget)))
            budget -= nodes
            if score > best_score:
                best, best_score = move, score
        return best

    def _score_take(
        self, move: TakeDiscard, hand: tuple[Card, ...], pile: tuple[Card, ...], outlook: Outlook, cap: int
    ) -> tuple[float, int]:
        """The take's points now, then the best plan for the hand it leaves, then
        the value of what is held after the weakest card is discarded; and the
        search nodes that took."""
        new_hand = list(hand)
        new_hand.extend(pile[move.index :])
        for card in move.cards:
            new_hand.remove(card)
        table = outlook.table.copy()
        if move.meld_id is None:
            laid = meld_value(move.cards)
            table.add_meld(move.cards)
        else:
            laid = sum(POINTS[c] for c in move.cards)
            for card in _bridge_order(move.cards, table, move.meld_id):
                table.lay_off(card)
        if not new_hand:
            return laid + GOING_OUT + 100.0, 0  # going out at once ends the deal for everyone
        plan = best_plan(new_hand, table, cap)
        if plan.goes_out:
            return laid + plan.laid + GOING_OUT + 100.0, plan.nodes
        values = outlook.card_values(plan.leftover)
        return laid + plan.laid + sum(values) - min(values), plan.nodes

    # --- meld and discard ---------------------------------------------------------

    def _meld(self, view: PlayerView, moves: list[Move]) -> Move:
        hand = view.hand
        assert hand is not None
        outlook = self._outlook(view, hand)
        plan = best_plan(hand, outlook.table)
        legal = set(moves)
        melds = plan.melds
        if not plan.goes_out:  # going out beats any hope of four at once
            melds = [m for m in melds if not self._hold_back(m, view, outlook)]
        if melds:
            # Four of a kind first (R7.4), then the rest, all in this turn.
            meld = max(melds, key=meld_value)
            move: Move = NewMeld(meld)
            if move in legal:
                return move
        for card, meld_id in plan.layoffs:
            move = LayOff(meld_id, card)
            if move in legal:
                return move
        return self._discard(view, hand, outlook, moves)

    def _hold_back(self, meld: tuple[Card, ...], view: PlayerView, outlook: Outlook) -> bool:
        """Whether to keep three of a kind in hand, hoping to lay all four at once (R7.4)."""
        stock = self._tuning.hold_three_stock
        if not stock or len(meld) != 3 or RANK[meld[0]] != RANK[meld[1]] or view.stock_count < stock:
            return False
        seat = view.seat
        assert seat is not None
        if min(view.hand_counts[s] for s in range(4) if s != seat) <= 3:
            return False  # someone may go out soon
        r = RANK[meld[0]]
        fourth = [c for c in outlook.unseen if RANK[c] == r and c not in meld]
        return bool(fourth)

    def _discard(self, view: PlayerView, hand: tuple[Card, ...], outlook: Outlook, moves: list[Move]) -> Move:
        seat = view.seat
        assert seat is not None
        opp_hands = tuple(view.hand_counts[s] for s in opponents_of(seat))
        next_opponent_uses = outlook.table.taker
        best: Move | None = None
        best_score = 0.0
        for i, card in enumerate(hand):
            rest = hand[:i] + hand[i + 1 :]
            score = outlook.hand_value(rest) - outlook.danger(card, opp_hands)
            if next_opponent_uses(card) is None and outlook.partner_wants(card):
                score += POINTS[card] * self._tuning.partner_bonus
            score += self._rng.random() * 1e-6  # ties: any of them
            if best is None or score > best_score:
                best, best_score = Discard(card), score
        if best is None or best not in moves:
            return next(m for m in moves if isinstance(m, Discard))
        return best


def _bridge_order(cards: tuple[Card, ...], table: TableState, meld_id: int) -> list[Card]:
    """The cards of a lay-off with a bridge (R4.1) in an order that each fits."""
    ordered = sorted(cards)
    for run in table.runs:
        if run[3] == meld_id and RANK[ordered[0]] < run[1]:
            return ordered[::-1]  # below the run: the card next to its low end first
    return ordered
