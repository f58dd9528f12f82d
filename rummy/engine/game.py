"""A whole game of Persian Rummy: two deals, turns, the empty stock (RULES R2-R8).

``Game`` is the true state. ``legal_moves()`` lists every legal move of the
seat to act; ``apply(move)`` checks a move, applies it and returns the events
it caused, or raises ``IllegalMove`` and leaves the game unchanged. All
randomness comes from one ``random.Random`` seeded with the game's seed, so a
game is saved as its seed, its seating and the list of its moves.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any, Literal

from . import events as ev
from .cards import ACE, FIRST_JOKER, PACK, RANK, SUIT, Card, card_text, make_card, of_rank
from .errors import IllegalMove
from .melds import Meld, MeldKind, meld_kind, why_no_meld
from .moves import (
    DISCARDS,
    Discard,
    DrawStock,
    LayOff,
    Move,
    NewMeld,
    NextDeal,
    Pass,
    TakeDiscard,
    check_move,
)
from .partners import PartnerDraw, Seating, draw_for_partners
from .scoring import DealResult, score_deal, totals, winner
from .seats import may_pass, next_seat

Phase = Literal["draw", "meld", "deal_over", "game_over"]
SEAT_NAMES = ("South", "West", "North", "East")  # seat n+1 is to the left of seat n
# The engine's revision, written into every saved game (docs/RECORDS.md). A record is
# its seed, seating and moves, so it replays only as long as the same moves from the
# same seed make the same game: the shuffle, the draw for partners, meld ids, what
# each move means. A change to any of those must bump this number and keep the old
# behaviour for records of older revisions (Game.replay gets the revision); the
# records kept in tests/fixtures/records are replayed by the tests forever after.
ENGINE_VERSION = 1
HAND_SIZE = 7
DEALS = 2
SEED_BITS = 256
_DRAW = DrawStock()
_PASS = Pass()
_NEXT = NextDeal()
# Events are values too: the commonest ones are made once, not at every move.
_STOCK_DRAWN: tuple[ev.StockDrawn, ...] = tuple(ev.StockDrawn(seat) for seat in range(4))
_DISCARDED: tuple[tuple[ev.Discarded, ...], ...] = tuple(
    tuple(ev.Discarded(seat, card) for card in PACK) for seat in range(4)
)
_PASSED: tuple[tuple[ev.Passed, ...], ...] = tuple(
    tuple(ev.Passed(seat, n) for n in range(5)) for seat in range(4)
)


def new_seed() -> int:
    """A secret seed for a real game (R3.4): 256 bits from the OS. The pack can be
    ordered in 56! ~ 2^248.6 ways, so the seeds outnumber the orderings."""
    import secrets  # only here: the engine's own randomness is the seeded rng

    return secrets.randbits(SEED_BITS)


def same_jokers(
    cards: tuple[Card, ...], available: Sequence[Card], first: Card | None = None
) -> tuple[Card, ...]:
    """``cards`` with its Jokers taken from ``available`` (R1.1: any Joker will do):
    ``first`` if it is a Joker (the target card of a take), then the Jokers named
    that are available, then the others, in ``available``'s order. Unchanged if
    there are not enough Jokers, so that the move is refused as usual."""
    named = [c for c in cards if c >= FIRST_JOKER]
    if not named:
        return cards
    pool = [c for c in available if c >= FIRST_JOKER]
    # Each Joker once: a name given twice ("JK JK JK") asks for that many Jokers, not
    # for one Joker twice.
    start = [first] if first is not None and first in pool else []
    prefer = list(dict.fromkeys(start + [c for c in named if c in pool] + pool))
    if len(prefer) < len(named):
        return cards
    chosen = sorted(prefer[: len(named)])
    if sorted(named) == chosen:
        return cards
    return tuple(sorted([c for c in cards if c < FIRST_JOKER] + chosen))


# For each card, the other cards of its rank (suits in id order), or the other Jokers.
_KIN: tuple[tuple[Card, ...], ...] = tuple(tuple(k for k in of_rank(RANK[c]) if k != c) for c in PACK)


_PACK_SET = frozenset(PACK)
_POSITION_RNG = random.Random(0)  # never shuffled with: copied first (Game.in_position)
# _FOLLOWS[c]: whether c + 1 is the next rank of c's suit (ids run rank-wise per suit).
_FOLLOWS: tuple[bool, ...] = tuple(c < FIRST_JOKER and RANK[c] != ACE for c in PACK)
# _SUIT_ENDS[c]: the 2 and the Ace of c's suit, the ends a run with c can reach.
_SUIT_ENDS: tuple[tuple[Card, Card], ...] = tuple(
    (make_card(2, SUIT[c]), make_card(ACE, SUIT[c])) if c < FIRST_JOKER else (c, c) for c in PACK
)


# A hand as a bitmask (bit c for card c) is tested for any meld at all with a few int
# operations: most hands hold none, and the meld phase asks at every turn.
_BIT: tuple[int, ...] = tuple(1 << c for c in PACK)
# The cards c such that c, c + 1 and c + 2 are three ranks of one suit in a row.
_RUN_START = sum(_BIT[c] for c in PACK if c < FIRST_JOKER and RANK[c] <= ACE - 2)
_SUIT_BITS = (1 << 13) - 1


def _holds_meld(mask: int) -> bool:
    """Whether the cards of ``mask`` hold any meld (R5.1-R5.3): three ranks in a row
    of one suit, three of one rank, or three Jokers."""
    if mask & (mask >> 1) & (mask >> 2) & _RUN_START:
        return True
    s0, s1 = mask & _SUIT_BITS, (mask >> 13) & _SUIT_BITS
    s2, s3 = (mask >> 26) & _SUIT_BITS, (mask >> 39) & _SUIT_BITS
    if (s0 & s1 & (s2 | s3)) | ((s0 | s1) & s2 & s3):
        return True
    return (mask >> FIRST_JOKER).bit_count() >= 3


def new_melds(cards: Iterable[Card]) -> list[tuple[Card, ...]]:
    """Every meld (R5.1-R5.3) that can be made from ``cards``, each a sorted tuple."""
    held = cards if isinstance(cards, list | tuple) else list(cards)
    n = len(held)
    result: list[tuple[Card, ...]] = []
    if n < 3:
        return result
    mask = 0
    for c in held:
        mask |= _BIT[c]
    if mask.bit_count() == n and not _holds_meld(mask):  # most hands: no meld at all
        return result
    ordered = sorted(held)
    ranks = [RANK[c] for c in ordered]
    if len(set(ranks)) <= n - 2:  # some rank (or the Jokers) three times or more
        by_rank: dict[int, list[Card]] = {}
        for r, c in zip(ranks, ordered, strict=True):
            by_rank.setdefault(r, []).append(c)
        for group in by_rank.values():  # sets and Joker sets: 3 or 4 of a kind
            if len(group) >= 3:
                result.extend(combinations(group, 3))
                if len(group) == 4:
                    result.append(tuple(group))
    # Runs: ids of one suit run in rank order, so a run is a stretch of ids c, c+1, ...
    start = 0
    for i in range(1, n + 1):
        if i < n and ordered[i] == ordered[i - 1] + 1 and _FOLLOWS[ordered[i - 1]]:
            continue
        if i - start >= 3:
            for a in range(start, i - 2):
                for b in range(a + 3, i + 1):
                    result.append(tuple(ordered[a:b]))
        start = i
    return result


def target_uses(
    target: Card, available: set[Card], melds: Sequence[Meld]
) -> list[tuple[tuple[Card, ...], int | None]]:
    """Every legal use of a target card (R4.1): ``(cards, None)`` for a new meld made
    with cards of ``available`` (the target among them), ``(cards, meld_id)`` for a
    lay-off: the target alone, or for a run the target with the cards that bridge it."""
    return _target_uses(target, available | {target}, _lay_off_table(melds, (target,)))


LayOffTable = dict[Card, list[tuple[tuple[Card, ...], int]]]


def _lay_off_table(
    melds: Sequence[Meld], targets: Sequence[Card], reachable: set[Card] | None = None
) -> LayOffTable:
    """For each card of ``targets`` that some meld could take in a take's lay-off (R4.1,
    R5.4): the cards that go on with it (itself, or for a run the cards bridging the gap
    to it as well) and the meld's id, in the order of ``melds``. Built once per turn, so
    that each card of the discard pile is looked up instead of tried on every meld.
    With ``reachable``, a bridge that needs a card not in it is left out."""
    wanted = set(targets)
    table: LayOffTable = {}
    for meld in melds:
        if meld.kind != "run":
            for card in meld.takes():
                if card in wanted:
                    table.setdefault(card, []).append(((card,), meld.id))
            continue
        suit = meld.suit
        low, high = meld.low, meld.high
        for card in targets:
            if SUIT[card] != suit:
                continue
            r = RANK[card]
            if r > high:  # above the run: the ranks from its top end up to the card
                cards = tuple(range(make_card(high + 1, suit), card + 1))
            elif r < low:
                cards = tuple(range(card, make_card(low, suit)))
            else:
                continue
            if len(cards) == 1 or reachable is None or reachable.issuperset(cards):
                table.setdefault(card, []).append((cards, meld.id))
    return table


def _target_uses(
    target: Card, available: set[Card], lay_offs: LayOffTable
) -> list[tuple[tuple[Card, ...], int | None]]:
    """``target_uses`` of a ``target`` that is in ``available``, with the turn's lay-offs."""
    result: list[tuple[tuple[Card, ...], int | None]] = []
    # The other cards of the target's rank (or the other Jokers), looked up directly:
    # the draw phase asks this for every card of the pile, so no sorting of ``available``.
    same = list(filter(available.__contains__, _KIN[target]))
    if len(same) >= 2:
        for k in (2, 3):
            for combo in combinations(same, k):
                result.append((tuple(sorted((target, *combo))), None))
    if target < FIRST_JOKER:
        lo = hi = target
        first, last = _SUIT_ENDS[target]  # the suit's 2 and Ace
        while lo > first and lo - 1 in available:
            lo -= 1
        while hi < last and hi + 1 in available:
            hi += 1
        if hi - lo >= 2:
            for a in range(lo, target + 1):
                for b in range(max(target, a + 2), hi + 1):
                    result.append((tuple(range(a, b + 1)), None))
    uses = lay_offs.get(target)
    if uses is not None:
        for cards, meld_id in uses:
            if len(cards) == 1 or available.issuperset(cards):
                result.append((cards, meld_id))
    return result


def takes_from_pile(
    hand: Sequence[Card], discard_pile: Sequence[Card], melds: Sequence[Meld], depth: int | None = None
) -> list[TakeDiscard]:
    """Every legal take from the discard pile (R4.1), as ``legal_moves`` lists them;
    with ``depth``, only the takes whose target card is one of the top ``depth``."""
    if not discard_pile:
        return []
    # From the top of the pile down, so that the cards a take would bring in
    # (``available``) grow by one card per index instead of being rebuilt.
    available = set(hand)
    top = len(discard_pile) - 1
    bottom = 0 if depth is None else max(0, top + 1 - depth)
    targets = discard_pile[bottom:]
    lay_offs = _lay_off_table(melds, targets, available.union(targets)) if melds else {}
    found: list[tuple[int, list[tuple[tuple[Card, ...], int | None]]]] = []
    for index in range(top, bottom - 1, -1):
        target = discard_pile[index]
        available.add(target)
        # A quick test that most cards of a pile fail: a new meld with the target needs
        # two more of its kind, or a card of its suit next to it (R5.1-R5.3). Only what
        # passes is worked out in full; a card that only some meld may take, only so.
        a, b, c = _KIN[target]
        if (
            (a in available) + (b in available) + (c in available) >= 2
            or (_FOLLOWS[target - 1] and target - 1 in available)
            or (_FOLLOWS[target] and target + 1 in available)
        ):
            uses = _target_uses(target, available, lay_offs)
            if uses:
                found.append((index, uses))
        elif target in lay_offs:
            lay: list[tuple[tuple[Card, ...], int | None]] = [
                (cards, meld_id) for cards, meld_id in lay_offs[target] if available.issuperset(cards)
            ]
            if lay:
                found.append((index, lay))
    takes: list[TakeDiscard] = []
    for index, uses in reversed(found):
        takes.extend([TakeDiscard(index, cards, meld_id) for cards, meld_id in uses])
    return takes


def legal_moves_in(
    phase: Phase,
    hand: Sequence[Card],
    discard_pile: Sequence[Card],
    stock_count: int,
    melds: Sequence[Meld],
) -> list[Move]:
    """Every legal move of the seat to act, from what that seat can see.

    Shared by ``Game.legal_moves`` and ``PlayerView.legal_moves`` so that the
    server's checks and a client's hints are the same rule written once.
    """
    if phase == "draw":
        moves: list[Move] = [_PASS] if may_pass(stock_count) else [_DRAW]
        moves.extend(takes_from_pile(hand, discard_pile, melds))
        return moves
    if phase == "meld":
        found = new_melds(hand)  # most hands hold none
        moves = [NewMeld(cards) for cards in found] if found else []
        if melds:
            held = set(hand)
            for meld in melds:
                wanted = meld.takes()
                if not held.isdisjoint(wanted):  # most melds take none of the hand
                    moves.extend([LayOff(meld.id, card) for card in hand if card in wanted])
        moves.extend([DISCARDS[card] for card in hand])
        return moves
    if phase == "deal_over":
        return [_NEXT]
    return []


def deal_pack(pack: Sequence[Card], dealer: int) -> tuple[list[list[Card]], list[Card], list[Card]]:
    """R3.2 on a shuffled ``pack`` (its first card dealt first): seven cards each, one
    at a time from the dealer's left; the rest is the stock (its top card last), whose
    top card is turned face up to start the discard pile. Returns (hands, stock, pile)."""
    hands: list[list[Card]] = [[], [], [], []]
    for k in range(HAND_SIZE * 4):
        hands[next_seat(dealer, 1 + k)].append(pack[k])
    stock = list(pack[HAND_SIZE * 4 :])
    return hands, stock, [stock.pop()]


@dataclass(frozen=True, slots=True)
class GameRecord:
    """All that is needed to rebuild a game exactly: replay ``moves`` from the seed."""

    seed: int
    seating: Seating
    moves: tuple[Move, ...]


class Game:
    """The true state of one game. Create with ``Game.new(seed)``."""

    def __init__(self, seed: int, seating: Seating = "draw") -> None:
        if type(seed) is not int:  # random.Random would take a str or a float silently
            raise TypeError(f"a game's seed is a whole number, not {type(seed).__name__}")
        if seating not in ("draw", "chosen"):
            raise ValueError(f"unknown seating {seating!r}: 'draw' or 'chosen'")
        self.seed = seed
        self.seating: Seating = seating
        self._rng = random.Random(seed)
        # Clones share ``_rng`` until one of them shuffles (only a deal's start does),
        # so cloning need not copy the random state (~2.5 KB) for every trial move.
        self._rng_shared = False
        # Clones share the Meld objects too, until one of them lays off (``_add_to``):
        # a clone per trial move then costs no copy of the table.
        self._melds_shared = False
        self.partner_draw: PartnerDraw = draw_for_partners(self._rng, seating)
        self.first_dealer = self.partner_draw.first_dealer
        self.deal = 0
        self.dealer = self.first_dealer
        self.phase: Phase = "draw"
        self.current = 0
        self.hands: list[list[Card]] = [[], [], [], []]
        self.stock: list[Card] = []  # the top card is the last
        self.discard_pile: list[Card] = []  # the bottom card is index 0
        self.melds: list[Meld] = []
        self.passes = 0
        self.went_out: int | None = None
        self.results: list[DealResult] = []
        self.moves: list[Move] = []
        self.opening_events: list[ev.Event] = [ev.PartnersDrawn(self.partner_draw)]
        self.opening_events.append(self._start_deal())

    @classmethod
    def new(cls, seed: int | None = None, seating: Seating = "draw") -> Game:
        """A new game. Without a seed one is drawn from the OS (R3.4) and kept in ``seed``."""
        return cls(new_seed() if seed is None else seed, seating)

    @classmethod
    def in_position(
        cls,
        *,
        hands: Sequence[Sequence[Card]],
        stock: Sequence[Card],
        discard_pile: Sequence[Card],
        melds: Sequence[Meld],
        phase: Phase,
        current: int,
        deal: int,
        dealer: int,
        passes: int,
        results: Sequence[DealResult],
        partner_draw: PartnerDraw,
    ) -> Game:
        """A game in the given position of a deal under way, for bots that look ahead
        from what they believe the hidden cards to be. The position is copied (``melds``
        too). Its seed is 0: a later deal is shuffled from that, not as the real game's
        would be. Raises ``ValueError`` unless each of the 56 cards is in exactly one
        place."""
        placed = [c for h in hands for c in h]
        placed += stock
        placed += discard_pile
        for meld in melds:
            placed += meld.cards
        if len(placed) != len(PACK) or set(placed) != _PACK_SET:
            raise ValueError("a position must hold each of the 56 cards exactly once")
        if phase not in ("draw", "meld"):
            raise ValueError("a position is one of a deal under way: phase draw or meld")
        game = cls.__new__(cls)
        game.seed = 0
        game.seating = partner_draw.seating
        # Seeding a generator costs more than a whole turn of play: share one, copied
        # (as for clones) only if this game ever shuffles.
        game._rng = _POSITION_RNG
        game._rng_shared = True
        game.partner_draw = partner_draw
        game.first_dealer = partner_draw.first_dealer
        game.deal = deal
        game.dealer = dealer
        game.phase = phase
        game.current = current
        game.hands = [list(h) for h in hands]
        game.stock = list(stock)
        game.discard_pile = list(discard_pile)
        game.melds = [m.copy() for m in melds]
        game._melds_shared = False
        game.passes = passes
        game.went_out = None
        game.results = list(results)
        game.moves = []
        game.opening_events = []
        return game

    # --- the deal -------------------------------------------------------------

    def _start_deal(self) -> ev.DealStarted:
        """R3.2: shuffle, deal seven each from the dealer's left, turn up one card."""
        self.deal += 1
        self.dealer = next_seat(self.first_dealer, self.deal - 1)  # R3.3
        pack = list(PACK)
        if self._rng_shared:  # copy on write: the other games sharing it must not see this shuffle
            rng = random.Random(0)  # seeding from the OS would cost more than the copy
            rng.setstate(self._rng.getstate())
            self._rng, self._rng_shared = rng, False
        self._rng.shuffle(pack)
        self.hands, self.stock, self.discard_pile = deal_pack(pack, self.dealer)
        self.melds = []
        self._melds_shared = False
        self.passes = 0
        self.went_out = None
        self.phase = "draw"
        self.current = next_seat(self.dealer)
        return ev.DealStarted(self.deal, self.dealer, self.discard_pile[0])

    def _end_deal(self, ended_by: Literal["out", "passes"]) -> list[ev.Event]:
        scores = score_deal(self.melds, self.hands, self.went_out)
        result = DealResult(self.deal, ended_by, self.went_out, tuple(tuple(h) for h in self.hands), scores)
        self.results.append(result)
        events: list[ev.Event] = [ev.DealEnded(result)]
        if self.deal < DEALS:
            self.phase = "deal_over"
            self.current = next_seat(self.first_dealer)  # the next dealer starts it
        else:
            self.phase = "game_over"
            events.append(ev.GameEnded(totals(self.results), winner(self.results)))
        return events

    # --- queries --------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase == "game_over"

    def legal_moves(self) -> list[Move]:
        """Every legal move of ``self.current`` (empty when the game is over)."""
        return legal_moves_in(
            self.phase, self.hands[self.current], self.discard_pile, len(self.stock), self.melds
        )

    def meld_by_id(self, meld_id: int) -> Meld | None:
        for meld in self.melds:
            if meld.id == meld_id:
                return meld
        return None

    def totals(self) -> tuple[int, int]:
        return totals(self.results)

    def winner(self) -> int | None:
        """The winning team (0 or 1), None for a tie (R8.2). Asked before the game is
        over it raises ``ValueError``, so that a game still going is never taken for a tie."""
        if not self.is_over:
            raise ValueError("The game is not over: there is no winner yet (check is_over).")
        return winner(self.results)

    def record(self) -> GameRecord:
        return GameRecord(self.seed, self.seating, tuple(self.moves))

    @classmethod
    def replay(cls, record: GameRecord, engine: int = ENGINE_VERSION) -> Game:
        """The game ``record`` describes, written by engine revision ``engine``.
        Raises ``ValueError`` for a revision this engine does not know (a newer one),
        ``IllegalMove`` if a move of the record is not legal where it stands."""
        if not 1 <= engine <= ENGINE_VERSION:
            raise ValueError(
                f"this game was saved by engine revision {engine}; this engine knows 1 to "
                f"{ENGINE_VERSION}: update Persian Rummy to replay it"
            )
        game = cls(record.seed, record.seating)
        for move in record.moves:
            game.apply(move)
        return game

    def clone(self) -> Game:
        """An independent copy, random state included (for bots that look ahead)."""
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        # The random state is shared, copied by whichever game first shuffles (_start_deal);
        # so are the melds, copied by whichever game first lays off (_add_to).
        self._rng_shared = other._rng_shared = True
        self._melds_shared = other._melds_shared = True
        other.hands = [list(h) for h in self.hands]
        other.stock = list(self.stock)
        other.discard_pile = list(self.discard_pile)
        other.melds = list(self.melds)
        other.results = list(self.results)
        other.moves = list(self.moves)
        other.opening_events = list(self.opening_events)
        return other

    def snapshot(self) -> tuple[object, ...]:
        """The whole state as plain values, to compare two games exactly."""
        return (
            self.seed,
            self.seating,
            self.deal,
            self.dealer,
            self.phase,
            self.current,
            tuple(map(tuple, self.hands)),
            tuple(self.stock),
            tuple(self.discard_pile),
            tuple(
                (m.id, m.kind, tuple(m.cards), tuple(m.owners), m.laid_by, m.four_at_once) for m in self.melds
            ),
            self.passes,
            self.went_out,
            tuple(self.results),
            self._rng.getstate(),
            self.first_dealer,
            self.partner_draw,
            tuple(self.moves),
        )

    # --- moves ----------------------------------------------------------------

    def apply(self, move: Move, seat: int | None = None) -> list[ev.Event]:
        """Check ``move`` for the seat to act (or, if given, for ``seat``) and apply it.

        Returns the events it caused. Raises ``IllegalMove`` and changes nothing if
        the move is not legal now.
        """
        if self.phase == "game_over":
            raise IllegalMove("game-over", "The game is over.")
        if seat is not None and type(seat) is not int:
            raise TypeError(f"a seat is 0..3, not {seat!r}")
        if seat is not None and seat != self.current:
            raise IllegalMove("not-your-turn", f"It is {SEAT_NAMES[self.current]}'s turn.")
        kind = type(move)
        if kind is not DrawStock:  # the commonest move has no field to check, no Joker
            check_move(move)
            if type(move) is not Discard or move.card >= FIRST_JOKER:  # a discard, mostly not
                move = self._with_held_jokers(move)
        step = _STEPS.get(kind)
        if step is None:
            raise IllegalMove("bad-move", "That is not a move.")
        events = step(self, move)
        self.moves.append(move)
        return events

    def _with_held_jokers(self, move: Move) -> Move:
        """R1.1: the Jokers are interchangeable, so a move may name any Joker (``JK`` is
        the first one) for a Joker the player holds, or takes: the move is recorded with
        the ids of the Jokers actually used, so that it replays exactly; and the cards of
        a meld or a take are recorded sorted, as ``legal_moves`` lists them."""
        if type(move) is DrawStock or (isinstance(move, Discard | LayOff) and move.card < FIRST_JOKER):
            return move  # the commonest moves name no Joker
        if isinstance(move, TakeDiscard | NewMeld) and max(move.cards, default=0) < FIRST_JOKER:
            ordered = tuple(sorted(move.cards))  # no Joker to choose: only the order
            return move if ordered == move.cards else replace(move, cards=ordered)
        hand = self.hands[self.current]
        match move:
            case Discard(card) | LayOff(card=card) if card >= FIRST_JOKER:
                (held,) = same_jokers((card,), hand)
                return move if held == card else replace(move, card=held)
            case NewMeld(cards):
                used = same_jokers(cards, hand)
                return move if used == tuple(sorted(cards)) else replace(move, cards=tuple(sorted(used)))
            case TakeDiscard(index, cards) if 0 <= index < len(self.discard_pile):
                pile = self.discard_pile
                used = same_jokers(cards, [*pile[index:], *hand], first=pile[index])
                return move if used == tuple(sorted(cards)) else replace(move, cards=tuple(sorted(used)))
        return move

    def _need_phase(self, phase: Phase, doing: str) -> None:
        if self.phase != phase:
            when = {"draw": "before drawing", "meld": "after drawing"}.get(self.phase, "now")
            raise IllegalMove("wrong-phase", f"You cannot {doing} {when}.")

    def _draw_stock(self, move: DrawStock) -> list[ev.Event]:
        if self.phase != "draw":
            self._need_phase("draw", "draw")
        if not self.stock:
            raise IllegalMove("stock-empty", "The stock is empty: take from the discard pile or pass.")
        self.hands[self.current].append(self.stock.pop())
        self.phase = "meld"
        self.passes = 0
        return [_STOCK_DRAWN[self.current]]

    def _take_discard(self, move: TakeDiscard) -> list[ev.Event]:
        if self.phase != "draw":
            self._need_phase("draw", "take from the discard pile")
        pile = self.discard_pile
        if not 0 <= move.index < len(pile):
            raise IllegalMove("bad-index", "There is no such card in the discard pile.")
        target = pile[move.index]
        hand = self.hands[self.current]
        cards = tuple(sorted(move.cards))
        if target not in cards:
            raise IllegalMove(
                "target-not-used",
                f"The {card_text(target)} you take must be melded or laid off at once.",
            )
        available = set(hand).union(pile[move.index :])
        for card in cards:
            if card not in available:
                raise IllegalMove("no-such-card", f"You do not have the {card_text(card)}.")
        kind = None
        if move.meld_id is None:
            # A new meld of cards at hand with the target among them: one of target_uses.
            kind = meld_kind(cards)
            if kind is None:
                raise IllegalMove("not-a-meld", why_no_meld(cards))
        else:
            meld = self.meld_by_id(move.meld_id)
            if meld is None:
                raise IllegalMove("no-such-meld", "There is no such meld on the table.")
            # One of target_uses: the lay-offs of the target on this meld.
            if (cards, meld.id) not in _lay_off_table([meld], [target]).get(target, ()):
                raise IllegalMove("cannot-lay-off", "Those cards do not fit that meld.")
        # Checked: now change the state.
        seat = self.current
        taken = tuple(pile[move.index :])
        del pile[move.index :]
        hand.extend(taken)
        for card in cards:
            hand.remove(card)
        self.passes = 0
        events: list[ev.Event] = [ev.DiscardTaken(seat, move.index, taken)]
        if kind is not None:
            events.append(self._lay_down(seat, cards, kind))
        else:
            assert move.meld_id is not None
            events.append(self._add_to(seat, move.meld_id, cards))
        self.phase = "meld"
        return events + self._after_melding(seat)

    def _lay_down(self, seat: int, cards: tuple[Card, ...], kind: MeldKind) -> ev.Melded:
        melds = self.melds
        meld_id = max([m.id for m in melds]) + 1 if melds else 0
        meld = Meld.of_kind(meld_id, kind, cards, seat)
        self.melds.append(meld)
        return ev.Melded(seat, meld_id, tuple(meld.cards), meld.four_at_once)

    def _add_to(self, seat: int, meld_id: int, cards: tuple[Card, ...]) -> ev.LaidOff:
        if self._melds_shared:  # copy on write: the clones sharing them must not see this
            self.melds = [m.copy() for m in self.melds]
            self._melds_shared = False
        meld = self.meld_by_id(meld_id)
        assert meld is not None
        # Bridge cards go on nearest the run's end first.
        ordered = sorted(cards, reverse=meld.kind == "run" and RANK[cards[0]] < meld.low)
        for card in ordered:
            meld.add(card, seat)
        return ev.LaidOff(seat, meld_id, tuple(ordered), meld.laid_by)

    def _after_melding(self, seat: int) -> list[ev.Event]:
        """R4.4: a hand emptied by melding has gone out, and the deal ends at once."""
        if self.hands[seat]:
            return []
        self.went_out = seat
        return [ev.WentOut(seat), *self._end_deal("out")]

    def _meld(self, move: NewMeld) -> list[ev.Event]:
        if self.phase != "meld":
            self._need_phase("meld", "meld")
        hand = self.hands[self.current]
        cards = tuple(sorted(move.cards))
        for card in cards:
            if card not in hand:
                raise IllegalMove("card-not-in-hand", f"You do not hold the {card_text(card)}.")
        kind = meld_kind(cards)
        if kind is None:
            raise IllegalMove("not-a-meld", why_no_meld(cards))
        seat = self.current
        for card in cards:
            hand.remove(card)
        return [self._lay_down(seat, cards, kind), *self._after_melding(seat)]

    def _lay_off(self, move: LayOff) -> list[ev.Event]:
        if self.phase != "meld":
            self._need_phase("meld", "lay off")
        hand = self.hands[self.current]
        if move.card not in hand:
            raise IllegalMove("card-not-in-hand", f"You do not hold the {card_text(move.card)}.")
        meld = self.meld_by_id(move.meld_id)
        if meld is None:
            raise IllegalMove("no-such-meld", "There is no such meld on the table.")
        if not meld.accepts(move.card):
            raise IllegalMove("cannot-lay-off", f"The {card_text(move.card)} does not fit that meld.")
        seat = self.current
        hand.remove(move.card)
        return [self._add_to(seat, meld.id, (move.card,)), *self._after_melding(seat)]

    def _discard(self, move: Discard) -> list[ev.Event]:
        if self.phase != "meld":
            self._need_phase("meld", "discard")
        hand = self.hands[self.current]
        if move.card not in hand:
            raise IllegalMove("card-not-in-hand", f"You do not hold the {card_text(move.card)}.")
        seat = self.current
        hand.remove(move.card)
        self.discard_pile.append(move.card)
        self.phase = "draw"
        self.current = next_seat(seat)
        return [_DISCARDED[seat][move.card]]

    def _next_deal(self, move: NextDeal) -> list[ev.Event]:
        if self.phase != "deal_over":
            raise IllegalMove("wrong-phase", "The deal is not over.")
        return [self._start_deal()]

    def _pass(self, move: Pass) -> list[ev.Event]:
        if self.phase != "draw":
            self._need_phase("draw", "pass")
        if not may_pass(len(self.stock)):
            raise IllegalMove("stock-not-empty", "You may pass only when the stock is empty.")
        seat = self.current
        self.passes += 1
        passes = self.passes
        events: list[ev.Event] = [_PASSED[seat][passes] if passes <= 4 else ev.Passed(seat, passes)]
        if self.passes >= 4:  # R6.2
            return events + self._end_deal("passes")
        self.current = next_seat(seat)
        return events


# What ``Game.apply`` does for each kind of move, found by the move's type.
_STEPS: dict[type, Callable[[Game, Any], list[ev.Event]]] = {
    DrawStock: Game._draw_stock,
    TakeDiscard: Game._take_discard,
    NewMeld: Game._meld,
    LayOff: Game._lay_off,
    Discard: Game._discard,
    Pass: Game._pass,
    NextDeal: Game._next_deal,
}
