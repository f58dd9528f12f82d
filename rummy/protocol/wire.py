"""The wire forms of the engine's values: views, events and moves.

Each engine value has a ``msgspec.Struct`` twin that is a plain MessagePack map
(field names are the engine's), and a pair of functions converting between
them, so that a client works with the engine's own ``PlayerView`` and moves and
can call ``view.legal_moves()`` for its hints (one rule, written once).

Decoding validates types and ranges (a card is 0..55, a seat 0..3); the
``*_from_wire`` functions then check what a schema cannot (a meld's cards form a
meld) and raise ``ValueError`` when they do not.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from ..engine import (
    PACK,
    DealEnded,
    DealResult,
    DealStarted,
    Discard,
    Discarded,
    DiscardTaken,
    DrawStock,
    Event,
    GameEnded,
    LaidOff,
    LayOff,
    Meld,
    Melded,
    MeldKind,
    Move,
    NewMeld,
    NextDeal,
    PartnerDraw,
    PartnersDrawn,
    Pass,
    Passed,
    Phase,
    PlayerView,
    Seating,
    StockDrawn,
    TakeDiscard,
    TeamScore,
    WentOut,
    meld_kind,
    rank,
)

# --- scalar types: decoding checks the ranges ----------------------------------

Card = Annotated[int, Meta(ge=0, le=55)]
Seat = Annotated[int, Meta(ge=0, le=3)]
Team = Annotated[int, Meta(ge=0, le=1)]
Count = Annotated[int, Meta(ge=0, le=1000)]
Points = Annotated[int, Meta(ge=-100_000, le=100_000)]
Cards = Annotated[list[Card], Meta(max_length=56)]
# What a move puts somewhere is never nothing: a take, a lay-off has a card, a meld three
# (R4.1, R5.1, R5.2). The schema says so, so a client never guards a first card.
SomeCards = Annotated[list[Card], Meta(min_length=1, max_length=56)]
MeldCards = Annotated[list[Card], Meta(min_length=3, max_length=56)]
MeldId = Annotated[int, Meta(ge=0, le=1000)]
# Who played a move for its seat when its player did not: the turn timer, or a bot
# standing in for a player who is away.
PlayedBy = Literal["timer", "stand_in"]


# --- the parts of a view --------------------------------------------------------


class MeldWire(msgspec.Struct, kw_only=True):
    """A meld on the table; ``owners[i]`` is the seat that laid ``cards[i]`` (R5.5)."""

    id: MeldId
    kind: MeldKind
    cards: Cards
    owners: Annotated[list[Seat], Meta(max_length=56)]
    laid_by: Seat
    four_at_once: bool


class PartnerDrawWire(msgspec.Struct, kw_only=True):
    """The draw for partners (R2.2-R2.4): ``rounds[k]`` is a list of [chair, card]."""

    seating: Seating
    rounds: Annotated[list[Annotated[list[tuple[Seat, Card]], Meta(max_length=4)]], Meta(max_length=56)]
    # The engine's seat_of_chair; on the wire it keeps the name clients know it by.
    seat_of_chair: tuple[Seat, Seat, Seat, Seat] = msgspec.field(name="seat_of_player")
    first_dealer: Seat


class TeamScoreWire(msgspec.Struct, kw_only=True):
    """One team's score for one deal (R7); ``total`` is the sum of the four items."""

    laid: Points
    doubled_fours: Points
    in_hand: Points
    going_out: Points
    total: Points


class DealResultWire(msgspec.Struct, kw_only=True):
    """A deal's end: every hand shown (``hands[seat]``) and both teams' scores."""

    deal: Annotated[int, Meta(ge=1, le=2)]
    ended_by: Literal["out", "passes"]
    went_out: Seat | None
    hands: Annotated[list[Cards], Meta(min_length=4, max_length=4)]
    scores: tuple[TeamScoreWire, TeamScoreWire]


class ViewWire(msgspec.Struct, kw_only=True):
    """What one seat (or, with ``seat`` nil and ``hand`` nil, a spectator) sees (R9)."""

    seat: Seat | None
    phase: Phase
    deal: Annotated[int, Meta(ge=1, le=2)]
    dealer: Seat
    current: Seat
    hand: Cards | None
    hand_counts: tuple[Count, Count, Count, Count]
    stock_count: Count
    discard_pile: Cards
    melds: Annotated[list[MeldWire], Meta(max_length=56)]
    passes: Count
    partner_draw: PartnerDrawWire
    results: Annotated[list[DealResultWire], Meta(max_length=2)]


# --- events: a tagged union on "type" ------------------------------------------


class _EventWire(msgspec.Struct, tag_field="type", kw_only=True):
    pass


class PartnersDrawnWire(_EventWire, tag="partners_drawn"):
    draw: PartnerDrawWire


class DealStartedWire(_EventWire, tag="deal_started"):
    deal: Annotated[int, Meta(ge=1, le=2)]
    dealer: Seat
    first_discard: Card


class StockDrawnWire(_EventWire, tag="stock_drawn"):
    seat: Seat


class DiscardTakenWire(_EventWire, tag="discard_taken"):
    seat: Seat
    index: Count
    taken: SomeCards


class MeldedWire(_EventWire, tag="melded"):
    seat: Seat
    meld_id: MeldId
    cards: MeldCards
    four_at_once: bool


class LaidOffWire(_EventWire, tag="laid_off"):
    seat: Seat
    meld_id: MeldId
    cards: SomeCards
    owner_seat: Seat


class DiscardedWire(_EventWire, tag="discarded"):
    seat: Seat
    card: Card


class PassedWire(_EventWire, tag="passed"):
    seat: Seat
    passes_in_a_row: Count


class WentOutWire(_EventWire, tag="went_out"):
    seat: Seat


class DealEndedWire(_EventWire, tag="deal_ended"):
    result: DealResultWire


class GameEndedWire(_EventWire, tag="game_ended"):
    totals: tuple[Points, Points]
    winner: Team | None


EventWire = (
    PartnersDrawnWire
    | DealStartedWire
    | StockDrawnWire
    | DiscardTakenWire
    | MeldedWire
    | LaidOffWire
    | DiscardedWire
    | PassedWire
    | WentOutWire
    | DealEndedWire
    | GameEndedWire
)


# --- moves: the one serialised form of a move, a tagged union on "type" -------


class _MoveWire(msgspec.Struct, tag_field="type", kw_only=True):
    pass


class DrawStockWire(_MoveWire, tag="draw_stock"):
    pass


class TakeDiscardWire(_MoveWire, tag="take_discard"):
    index: Count
    cards: Annotated[list[Card], Meta(max_length=14)]
    meld_id: MeldId | None = None


class NewMeldWire(_MoveWire, tag="meld"):
    cards: Annotated[list[Card], Meta(max_length=14)]


class LayOffWire(_MoveWire, tag="lay_off"):
    meld_id: MeldId
    card: Card


class DiscardWire(_MoveWire, tag="discard"):
    card: Card


class PassWire(_MoveWire, tag="pass"):
    pass


class NextDealWire(_MoveWire, tag="next_deal"):
    pass


MoveWire = DrawStockWire | TakeDiscardWire | NewMeldWire | LayOffWire | DiscardWire | PassWire | NextDealWire


# --- conversions ----------------------------------------------------------------


def _meld_to_wire(m: Meld) -> MeldWire:
    return MeldWire(
        id=m.id,
        kind=m.kind,
        cards=list(m.cards),
        owners=list(m.owners),
        laid_by=m.laid_by,
        four_at_once=m.four_at_once,
    )


def _meld_from_wire(w: MeldWire) -> Meld:
    cards = w.cards
    if meld_kind(cards) != w.kind or len(w.owners) != len(cards):
        raise ValueError(f"meld {w.id} is not a {w.kind}")
    if w.kind == "run" and rank(cards[0]) > rank(cards[-1]):
        raise ValueError(f"run {w.id} is not in rank order")
    return Meld.of(w.id, w.kind, list(cards), list(w.owners), w.laid_by, w.four_at_once)


def partner_draw_to_wire(d: PartnerDraw) -> PartnerDrawWire:
    return PartnerDrawWire(
        seating=d.seating,
        rounds=[list(r) for r in d.rounds],
        seat_of_chair=d.seat_of_chair,
        first_dealer=d.first_dealer,
    )


def partner_draw_from_wire(w: PartnerDrawWire) -> PartnerDraw:
    if sorted(w.seat_of_chair) != [0, 1, 2, 3]:
        raise ValueError("seat_of_player is not a permutation of the four seats")
    return PartnerDraw(
        w.seating,
        tuple(tuple(tuple(pair) for pair in r) for r in w.rounds),  # type: ignore[misc]
        w.seat_of_chair,
        w.first_dealer,
    )


def _score_to_wire(s: TeamScore) -> TeamScoreWire:
    return TeamScoreWire(
        laid=s.laid, doubled_fours=s.doubled_fours, in_hand=s.in_hand, going_out=s.going_out, total=s.total
    )


def _score_from_wire(w: TeamScoreWire) -> TeamScore:
    return TeamScore(w.laid, w.doubled_fours, w.in_hand, w.going_out)


def result_to_wire(r: DealResult) -> DealResultWire:
    return DealResultWire(
        deal=r.deal,
        ended_by=r.ended_by,
        went_out=r.went_out,
        hands=[list(h) for h in r.hands],
        scores=(_score_to_wire(r.scores[0]), _score_to_wire(r.scores[1])),
    )


def result_from_wire(w: DealResultWire) -> DealResult:
    return DealResult(
        w.deal,
        w.ended_by,
        w.went_out,
        tuple(tuple(h) for h in w.hands),
        (_score_from_wire(w.scores[0]), _score_from_wire(w.scores[1])),
    )


def view_to_wire(v: PlayerView) -> ViewWire:
    """The wire form of a view. It holds exactly what the view holds (R9)."""
    return ViewWire(
        seat=v.seat,
        phase=v.phase,
        deal=v.deal,
        dealer=v.dealer,
        current=v.current,
        hand=None if v.hand is None else list(v.hand),
        hand_counts=v.hand_counts,
        stock_count=v.stock_count,
        discard_pile=list(v.discard_pile),
        melds=[_meld_to_wire(m) for m in v.melds],
        passes=v.passes,
        partner_draw=partner_draw_to_wire(v.partner_draw),
        results=[result_to_wire(r) for r in v.results],
    )


def view_from_wire(w: ViewWire) -> PlayerView:
    """An engine ``PlayerView`` (so ``legal_moves()`` works); ``ValueError`` if inconsistent."""
    if (w.seat is None) != (w.hand is None):
        raise ValueError("a view has a hand exactly when it has a seat")
    return PlayerView(
        seat=w.seat,
        phase=w.phase,
        deal=w.deal,
        dealer=w.dealer,
        current=w.current,
        hand=None if w.hand is None else tuple(w.hand),
        hand_counts=w.hand_counts,
        stock_count=w.stock_count,
        discard_pile=tuple(w.discard_pile),
        melds=tuple(_meld_from_wire(m) for m in w.melds),
        passes=w.passes,
        partner_draw=partner_draw_from_wire(w.partner_draw),
        results=tuple(result_from_wire(r) for r in w.results),
    )


def event_to_wire(e: Event) -> EventWire:
    match e:
        case PartnersDrawn(draw):
            return PartnersDrawnWire(draw=partner_draw_to_wire(draw))
        case DealStarted(deal, dealer, first_discard):
            return DealStartedWire(deal=deal, dealer=dealer, first_discard=first_discard)
        case StockDrawn(seat):
            return StockDrawnWire(seat=seat)
        case DiscardTaken(seat, index, taken):
            return DiscardTakenWire(seat=seat, index=index, taken=list(taken))
        case Melded(seat, meld_id, cards, four):
            return MeldedWire(seat=seat, meld_id=meld_id, cards=list(cards), four_at_once=four)
        case LaidOff(seat, meld_id, cards, owner):
            return LaidOffWire(seat=seat, meld_id=meld_id, cards=list(cards), owner_seat=owner)
        case Discarded(seat, card):
            return DiscardedWire(seat=seat, card=card)
        case Passed(seat, n):
            return PassedWire(seat=seat, passes_in_a_row=n)
        case WentOut(seat):
            return WentOutWire(seat=seat)
        case DealEnded(result):
            return DealEndedWire(result=result_to_wire(result))
        case GameEnded(totals, winner):
            return GameEndedWire(totals=totals, winner=winner)
    raise TypeError(f"not an event: {e!r}")


def event_from_wire(w: EventWire) -> Event:
    match w:
        case PartnersDrawnWire():
            return PartnersDrawn(partner_draw_from_wire(w.draw))
        case DealStartedWire():
            return DealStarted(w.deal, w.dealer, w.first_discard)
        case StockDrawnWire():
            return StockDrawn(w.seat)
        case DiscardTakenWire():
            return DiscardTaken(w.seat, w.index, tuple(w.taken))
        case MeldedWire():
            return Melded(w.seat, w.meld_id, tuple(w.cards), w.four_at_once)
        case LaidOffWire():
            return LaidOff(w.seat, w.meld_id, tuple(w.cards), w.owner_seat)
        case DiscardedWire():
            return Discarded(w.seat, w.card)
        case PassedWire():
            return Passed(w.seat, w.passes_in_a_row)
        case WentOutWire():
            return WentOut(w.seat)
        case DealEndedWire():
            return DealEnded(result_from_wire(w.result))
        case GameEndedWire():
            return GameEnded(w.totals, w.winner)
    raise TypeError(f"not an event: {w!r}")


_DRAW_W, _PASS_W, _NEXT_W = DrawStockWire(), PassWire(), NextDealWire()


def move_to_wire(m: Move) -> MoveWire:
    match m:
        case DrawStock():
            return _DRAW_W
        case TakeDiscard(index, cards, meld_id):
            return TakeDiscardWire(index=index, cards=list(cards), meld_id=meld_id)
        case NewMeld(cards):
            return NewMeldWire(cards=list(cards))
        case LayOff(meld_id, card):
            return LayOffWire(meld_id=meld_id, card=card)
        case Discard(card):
            return DiscardWire(card=card)
        case Pass():
            return _PASS_W
        case NextDeal():
            return _NEXT_W
    raise TypeError(f"not a move: {m!r}")


# The moves made of nothing but a card, or of nothing, are the same object each
# time (they are frozen: sharing them is safe). A game keeps all its moves, and a
# fresh object for each was most of what a move left to the garbage collector's
# young collections, which walk every object made since the last one still alive.
_DRAW_STOCK, _PASS, _NEXT_DEAL = DrawStock(), Pass(), NextDeal()
_DISCARDS = tuple(Discard(card) for card in PACK)


def move_from_wire(w: MoveWire) -> Move:
    match w:
        case DrawStockWire():
            return _DRAW_STOCK
        case TakeDiscardWire():
            return TakeDiscard(w.index, tuple(w.cards), w.meld_id)
        case NewMeldWire():
            return NewMeld(tuple(w.cards))
        case LayOffWire():
            return LayOff(w.meld_id, w.card)
        case DiscardWire():
            return _DISCARDS[w.card] if 0 <= w.card < len(_DISCARDS) else Discard(w.card)
        case PassWire():
            return _PASS
        case NextDealWire():
            return _NEXT_DEAL
    raise TypeError(f"not a move: {w!r}")
