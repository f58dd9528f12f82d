"""A quick, greedy way to play, for the search's playouts (and the easy bot).

- Draw (R4.1, R6.1): each take from the top few cards of the discard pile is scored
  by what it lays down at once (the target card's use, then the melds the new hand
  makes) less the cost of the loose cards it leaves in the hand; the best take is made
  when it beats drawing from the stock (or passing).
- Meld (R4.2, R5.4): every meld is laid down, the richest first, and every card that
  fits a meld on the table is laid off.
- Discard (R4.3): the costliest card that connects with no other card of the hand;
  when another seat is down to two cards or fewer, the costliest card of all.

It looks only at the seat's own hand and at what is public, and it asks the engine
for just the pieces of the legal moves it needs (``target_uses``, ``new_melds``,
``Meld.takes``), not for the whole list: this is the search's inner loop.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..cards import ACE, FIRST_JOKER, JOKERS, POINTS, RANK, SUIT, Card, make_card, of_rank
from ..game import Game, new_melds, takes_from_pile
from ..melds import Meld
from ..moves import DISCARDS, DrawStock, LayOff, Move, NewMeld, Pass, TakeDiscard
from ..seats import may_pass
from .planning import meld_value

_DRAW = DrawStock()
_PASS = Pass()
# A deal between sensible players is over long before this many moves; a world in
# which it is not (everyone passing with cards in hand) is cut short.
MOVE_CAP = 400
TAKE_DEPTH = 6  # takes are tried this many cards deep into the pile
DRAW_BONUS = 3.0  # what a card from the stock is worth on average, in points
LOOSE_COST = 0.5  # share of a loose card's points that holding it costs
# Another seat holding this many cards or fewer may go out soon: the playouts then
# shed their costliest cards, pairs and all (hard held K-K or Jk-Jk to the deal's
# end, 25 points a seat when the opponents went out, against normal's 6).
SHORT_HAND = 2


def play_deal_out(game: Game, rng: random.Random, cap: int = MOVE_CAP) -> None:
    """Play ``game`` on until its deal ends (or ``cap`` moves), every seat greedily."""
    deal = game.deal
    moves = 0
    while game.deal == deal and game.phase in ("draw", "meld") and moves < cap:
        if game.phase == "draw":
            hand = game.hands[game.current]
            game.apply(draw_choice(hand, game.discard_pile, game.melds, len(game.stock)))
            moves += 1
        if game.phase == "meld":
            moves += play_rest_of_turn(game, rng)


def play_rest_of_turn(game: Game, rng: random.Random) -> int:
    """In the meld phase: meld, lay off, discard, greedily. Returns the moves made."""
    seat = game.current
    hand = game.hands[seat]
    moves = 0
    while game.phase == "meld":
        move = meld_choice(hand, game.melds)
        if move is None:
            # Someone may go out at their next turn (R4.4): a pair of Kings held for a
            # third would then cost its points (R7.2), so the costliest card goes.
            shed = min(len(game.hands[s]) for s in range(4) if s != seat) <= SHORT_HAND
            game.apply(DISCARDS[discard_choice(hand, rng, shed)])
            return moves + 1
        game.apply(move)
        moves += 1
    return moves  # went out (R4.4)


def draw_choice(
    hand: Sequence[Card],
    pile: Sequence[Card],
    melds: Sequence[Meld],
    stock_count: int,
    depth: int = TAKE_DEPTH,
) -> Move:
    """The take (of the top ``depth`` cards) that lays down the most, if it beats the
    stock; else the draw (or the pass)."""
    best: Move = _PASS if may_pass(stock_count) else _DRAW
    scored = draw_choice_scores(hand, pile, melds, depth)
    if not scored:
        return best
    best_score = _hand_score(list(hand)) + (0.0 if may_pass(stock_count) else DRAW_BONUS)
    for score, take in scored:
        if score > best_score:
            best, best_score = take, score
    return best


def draw_choice_scores(
    hand: Sequence[Card], pile: Sequence[Card], melds: Sequence[Meld], depth: int = TAKE_DEPTH
) -> list[tuple[float, TakeDiscard]]:
    """Each take from the top ``depth`` cards of the pile with its greedy score: what
    it lays down now, and what the hand it leaves is worth (``_hand_score``)."""
    scored: list[tuple[float, TakeDiscard]] = []
    for take in takes_from_pile(hand, pile, melds, depth):
        rest = list(hand)
        rest.extend(pile[take.index :])
        for card in take.cards:
            rest.remove(card)
        laid = meld_value(take.cards) if take.meld_id is None else sum(POINTS[c] for c in take.cards)
        scored.append((laid + _hand_score(rest), take))
    return scored


def _hand_score(hand: list[Card]) -> float:
    """What a hand is worth to the greedy player: the points of the melds it lays down
    now, less a share of the points of the loose cards left."""
    laid = 0
    melds = new_melds(hand)
    while melds:
        meld = max(melds, key=meld_value)
        laid += meld_value(meld)
        for card in meld:
            hand.remove(card)
        melds = new_melds(hand)
    held = set(hand)
    loose = sum(POINTS[c] for c in hand if not _connects(c, held))
    return laid - LOOSE_COST * loose


def meld_choice(hand: Sequence[Card], melds: Sequence[Meld]) -> Move | None:
    """The richest new meld (four of a kind counts twice, R7.4), else a lay-off, else None."""
    candidates = new_melds(hand)
    if candidates:
        return NewMeld(max(candidates, key=meld_value))
    for meld in melds:
        wanted = meld.takes()
        for card in hand:
            if card in wanted:
                return LayOff(meld.id, card)
    return None


def discard_choice(hand: Sequence[Card], rng: random.Random, shed: bool = False) -> Card:
    """The costliest card that connects with no other card of the hand (same rank, or
    same suit within two ranks); if every card connects, the costliest of all. With
    ``shed`` (the deal is about to end), the costliest card, connected or not."""
    best = hand[0]
    best_score = -1000.0
    held = set(hand)
    for card in hand:
        score = POINTS[card] + rng.random() * 0.5  # ties: any of them
        if not shed and _connects(card, held):
            score -= 100.0
        if score > best_score:
            best, best_score = card, score
    return best


def _connects(card: Card, held: set[Card]) -> bool:
    return not held.isdisjoint(_NEIGHBOURS[card])


def _neighbours(card: Card) -> tuple[Card, ...]:
    """The cards that may share a meld with ``card`` soon: the other cards of its rank
    (or the other Jokers), and the cards of its suit up to two ranks away."""
    if card >= FIRST_JOKER:
        return tuple(c for c in JOKERS if c != card)
    r, s = RANK[card], SUIT[card]
    same_rank = [c for c in of_rank(r) if c != card]
    near = [make_card(rr, s) for rr in (r - 2, r - 1, r + 1, r + 2) if 2 <= rr <= ACE]
    return tuple(same_rank + near)


_NEIGHBOURS: tuple[tuple[Card, ...], ...] = tuple(_neighbours(c) for c in range(56))
