"""Property tests: many random games and positions, checked at every step.

What holds at every step of every game (RULES R1-R9): all 56 cards are in exactly
one place (hands, stock, discard pile, melds); every meld on the table is a meld;
the scores of every deal equal a recount from the events, written here apart from
the engine; no view holds a card of another hand or of the stock, and the hands are
shown once a deal ends; no event names a hidden card; a view's legal moves are the
game's; every game ends; an illegal move, garbage included, changes nothing, and a
move applies if and only if it is in ``legal_moves()``; a game saved as data and
replayed, or cloned, is the same game at every step.

Hypothesis profiles (registered in tests/conftest.py): "ci" is the default and
quick (a few dozen examples per test); for a thorough search run
``HYPOTHESIS_PROFILE=long .venv/bin/pytest tests/engine`` (``make test-long``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from rummy.engine import (
    CODES,
    JOKERS,
    PACK,
    DealEnded,
    DealStarted,
    Discard,
    DiscardTaken,
    DrawStock,
    Event,
    Game,
    GameEnded,
    IllegalMove,
    LaidOff,
    LayOff,
    Meld,
    Melded,
    Move,
    NewMeld,
    NextDeal,
    Pass,
    Passed,
    StockDrawn,
    TakeDiscard,
    TeamScore,
    WentOut,
    score_deal,
    view_for,
)
from rummy.protocol import MoveWire, move_from_wire, move_to_wire
from rummy.protocol.record import (
    RecordPlayer,
    decode_record,
    encode_record_file,
    engine_record,
    record_of_game,
)

from . import oracle
from .leaks import event_leaks, view_leaks
from .oracle import card_points, four_of_a_kind, is_meld


def examples(factor: float) -> settings:
    """This test's share of the profile's examples (tests/conftest.py): the costly
    ones run fewer, the cheap ones more, and the "long" profile scales them all."""
    return settings(max_examples=max(5, int(settings().max_examples * factor)))


MAX_MOVES = 5000  # far above any real game (about 200 moves): reaching it means a loop
SEATS = (0, 1, 2, 3, None)

# --- how the random players choose ---------------------------------------------------

Policy = Callable[[list[Move], random.Random], Move]


def _weighted(weights: dict[type, float]) -> Policy:
    def choose(moves: list[Move], rng: random.Random) -> Move:
        return rng.choices(moves, [weights.get(type(m), 1.0) for m in moves])[0]

    return choose


POLICIES: dict[str, Policy] = {
    "uniform": lambda moves, rng: rng.choice(moves),
    # melds, lays off and digs into the pile: deals often end by going out
    "melder": _weighted({NewMeld: 30.0, LayOff: 30.0, TakeDiscard: 5.0, Discard: 1.0, Pass: 0.2}),
    # keeps its cards and never passes while it can take: long deals, empty stocks
    "hoarder": _weighted({NewMeld: 0.01, LayOff: 0.01, TakeDiscard: 0.5, DrawStock: 50.0, Pass: 0.01}),
}


def play_prefix(seed: int, seating: str, policy: str, steps: int) -> Game:
    game = Game(seed, seating)  # type: ignore[arg-type]
    rng = random.Random(seed ^ 0x5EED)
    for _ in range(steps):
        if game.is_over:
            break
        game.apply(POLICIES[policy](game.legal_moves(), rng))
    return game


seeds = st.integers(0, 2**64 - 1)
seatings = st.sampled_from(["draw", "chosen"])
policies = st.sampled_from(sorted(POLICIES))

# --- what must hold at every step ------------------------------------------------------


def check_cards(game: Game) -> None:
    """All 56 cards in exactly one place; every meld is a meld with an owner per card."""
    places = [c for h in game.hands for c in h] + game.stock + game.discard_pile
    places += [c for m in game.melds for c in m.cards]
    assert sorted(places) == list(PACK)
    for meld in game.melds:
        assert is_meld(meld.cards), meld
        assert len(meld.owners) == len(meld.cards) and all(0 <= s < 4 for s in meld.owners)
    if game.phase in ("draw", "meld"):
        assert game.hands[game.current] or game.phase == "draw"  # no empty hand after drawing


def as_tuple(move: Move, game: Game) -> tuple[object, ...]:
    """A move in the oracle's form (meld ids become table positions)."""
    index = {m.id: i for i, m in enumerate(game.melds)}
    match move:
        case DrawStock():
            return ("draw",)
        case Pass():
            return ("pass",)
        case NextDeal():
            return ("next",)
        case TakeDiscard(i, cards, meld_id):
            return ("take", i, cards, None if meld_id is None else index[meld_id])
        case NewMeld(cards):
            return ("meld", cards)
        case LayOff(meld_id, card):
            return ("layoff", index[meld_id], card)
        case Discard(card):
            return ("discard", card)
    raise AssertionError(move)


def check_legal_moves(game: Game) -> None:
    """R4.1-R4.3, R5, R6.1: legal_moves() lists each legal move once, exactly those
    an oracle written from the rule book finds."""
    legal = game.legal_moves()
    if game.phase == "game_over":
        assert legal == []
        return
    got = [as_tuple(m, game) for m in legal]
    assert len(got) == len(set(got)), "a legal move is listed twice"
    hand = game.hands[game.current]
    table = [m.cards for m in game.melds]
    expected = oracle.legal_moves(game.phase, hand, game.discard_pile, len(game.stock), table)
    assert set(got) == expected


def check_views(game: Game) -> None:
    """R9: own hand only, nothing hidden, hands shown after the deal, same legal moves."""
    legal = game.legal_moves()
    for seat in SEATS:
        view = view_for(game, seat)
        assert view.hand == (None if seat is None else tuple(game.hands[seat]))
        assert view.legal_moves() == (legal if seat == game.current and game.phase != "game_over" else [])
        if game.phase in ("draw", "meld"):
            assert view_leaks(game, seat) == []
        else:
            assert view.results[-1].hands == tuple(tuple(h) for h in game.hands)


class Recount:
    """Scores recounted from the events alone: who laid which card (Melded, LaidOff),
    four of a kind laid down at once, who went out; and the table rebuilt from them."""

    def __init__(self) -> None:
        self.start_deal()

    def start_deal(self) -> None:
        self.table: dict[int, list[tuple[int, int]]] = {}  # meld id -> (card, seat) pairs
        self.laid_by: dict[int, int] = {}
        self.passes_in_a_row = 0
        self.doubled = [0, 0]
        self.went_out: int | None = None

    def see(self, event: Event, game: Game) -> None:
        match event:
            case DealStarted():
                self.start_deal()
            case Melded(seat, meld_id, cards, four_at_once):
                assert meld_id not in self.table
                self.table[meld_id] = [(c, seat) for c in cards]
                self.laid_by[meld_id] = seat
                assert four_at_once == four_of_a_kind(cards)
                if four_of_a_kind(cards):
                    self.doubled[seat % 2] += sum(card_points(c) for c in cards)
            case LaidOff(seat, meld_id, cards, owner_seat):
                assert owner_seat == self.laid_by[meld_id]
                self.table[meld_id] += [(c, seat) for c in cards]
            case WentOut(seat):
                self.went_out = seat
            case Passed(_, in_a_row):
                self.passes_in_a_row += 1
                assert in_a_row == self.passes_in_a_row and not game.stock  # R6.1
            case StockDrawn() | DiscardTaken():
                self.passes_in_a_row = 0
            case DealEnded(result):
                # R4.4 / R6.2: a deal ends by going out, or after four passes in a row.
                assert (result.ended_by == "passes") == (self.passes_in_a_row == 4)
                out = result.ended_by == "out"
                assert out == (self.went_out is not None) == (result.went_out is not None)
                self.check_deal(result.scores, result.hands, game)

    def check_table(self, game: Game) -> None:
        rebuilt = {i: sorted(pairs) for i, pairs in self.table.items()}
        actual = {m.id: sorted(zip(m.cards, m.owners, strict=True)) for m in game.melds}
        assert rebuilt == actual

    def check_deal(self, scores: tuple[TeamScore, TeamScore], hands: Any, game: Game) -> None:
        self.check_table(game)
        assert hands == tuple(tuple(h) for h in game.hands)
        for team in (0, 1):
            laid = sum(card_points(c) for pairs in self.table.values() for c, s in pairs if s % 2 == team)
            held = sum(card_points(c) for s, h in enumerate(hands) for c in h if s % 2 == team)
            bonus = 25 if self.went_out is not None and self.went_out % 2 == team else 0
            expected = TeamScore(laid, self.doubled[team], -held, bonus)
            assert scores[team] == expected
            assert scores[team].total == laid + self.doubled[team] - held + bonus


def check_game_end(game: Game, events: list[Event]) -> None:
    """R8: the totals add up the two deals; the winner has the higher total."""
    assert game.is_over and len(game.results) == 2
    totals = tuple(sum(r.scores[t].total for r in game.results) for t in (0, 1))
    assert game.totals() == totals
    expected = None if totals[0] == totals[1] else (0 if totals[0] > totals[1] else 1)
    assert game.winner() == expected
    assert events[-1] == GameEnded(game.totals(), expected)


# --- whole games ---------------------------------------------------------------------------


@examples(1.5)
@given(seed=seeds, seating=seatings, policy=policies)
def test_whole_games_keep_every_invariant(seed: int, seating: str, policy: str) -> None:
    """R1.1 (56 cards, one place each), R5 (melds stay melds), R7 (scores equal a
    recount), R8 (winner), R9 (views and events hide what they must), every game ends
    (R3.1, R6.2), and a saved game replays to the same state at every step (R3.4)."""
    game = Game(seed, seating)  # type: ignore[arg-type]
    rng = random.Random(seed ^ 0x5EED)
    recount = Recount()
    snapshots = [game.snapshot()]
    events: list[Event] = []
    check_cards(game)
    check_views(game)
    for _ in range(MAX_MOVES):
        if game.is_over:
            break
        check_legal_moves(game)
        move = POLICIES[policy](game.legal_moves(), rng)
        assert event_leaks(game, move) == []
        events = game.apply(move)
        for event in events:
            recount.see(event, game)
        recount.check_table(game)
        check_cards(game)
        check_views(game)
        snapshots.append(game.snapshot())
    assert game.is_over, "the game did not end"
    check_game_end(game, events)
    # Save in the wire's record form (through a file's JSON, as rummy-sim --save
    # would), restore, replay step by step.
    players = [RecordPlayer(seat=s, name=f"P{s}") for s in range(4)]
    saved = decode_record(encode_record_file(record_of_game(game, players)))
    record = engine_record(saved)
    assert record == game.record()
    replayed = Game(record.seed, record.seating)
    assert replayed.snapshot() == snapshots[0]
    for step, move in enumerate(record.moves, start=1):
        again = move_from_wire(msgspec.json.decode(msgspec.json.encode(move_to_wire(move)), type=MoveWire))
        assert again == move
        replayed.apply(again)
        assert replayed.snapshot() == snapshots[step]
    assert Game.replay(game.record()).snapshot() == game.snapshot()


@examples(2)
@given(seed=seeds, seating=seatings, policy=policies, steps=st.integers(0, 300), more=st.integers(1, 60))
def test_clone_is_the_same_game_and_independent(
    seed: int, seating: str, policy: str, steps: int, more: int
) -> None:
    """A clone (for bots that look ahead) plays on exactly like the original, and
    playing it leaves the original untouched (R3.4: the rng state is cloned too)."""
    game = play_prefix(seed, seating, policy, steps)
    before = game.snapshot()
    copy = game.clone()
    assert copy.snapshot() == before
    rng_a, rng_b = random.Random(more), random.Random(more)
    other = game.clone()
    for _ in range(more):
        if copy.is_over:
            break
        copy.apply(POLICIES[policy](copy.legal_moves(), rng_a))
        other.apply(POLICIES[policy](other.legal_moves(), rng_b))
    assert game.snapshot() == before
    assert copy.snapshot() == other.snapshot()


# --- moves at random positions ----------------------------------------------------------------


garbage = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, -1),
    st.integers(56, 70),
    st.floats(allow_nan=False),
    st.text(max_size=3),
    st.lists(st.integers(0, 55), max_size=4),  # a list where a tuple of cards belongs
)


def well_formed(move: Any) -> bool:
    """A move whose fields have the right types (a bool is no card)."""

    def card(x: Any) -> bool:
        return type(x) is int and 0 <= x < 56

    def cards(xs: Any) -> bool:
        return isinstance(xs, tuple) and all(card(x) for x in xs)

    match move:
        case DrawStock() | Pass() | NextDeal():
            return True
        case Discard(c):
            return card(c)
        case LayOff(m, c):
            return type(m) is int and card(c)
        case NewMeld(cs):
            return cards(cs)
        case TakeDiscard(i, cs, m):
            return type(i) is int and cards(cs) and (m is None or type(m) is int)
    return False


def normalized(move: Move) -> Move:
    """The move as legal_moves lists it, up to which Joker is which (R1.1: a move may
    name any Joker): the cards of a meld or a take sorted, every Joker named as 52."""

    def blind(cards: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(sorted(min(c, 52) for c in cards))

    if isinstance(move, NewMeld):
        return NewMeld(blind(move.cards))
    if isinstance(move, TakeDiscard):
        return TakeDiscard(move.index, blind(move.cards), move.meld_id)
    if isinstance(move, Discard):
        return Discard(min(move.card, 52))
    if isinstance(move, LayOff):
        return LayOff(move.meld_id, min(move.card, 52))
    return move


def candidates(game: Game) -> st.SearchStrategy[Any]:
    """Moves worth trying in ``game``: legal ones, near misses and garbage, with cards
    mostly from the hand, the pile and the table, where near misses are found."""
    hand = game.hands[game.current]
    pile = game.discard_pile
    near = st.sampled_from(sorted({*hand, *pile, *(c for m in game.melds for c in m.cards)}) or [0])
    mine = st.sampled_from(hand) if hand else near
    card = st.one_of(mine, near, st.sampled_from(PACK), garbage)
    some_cards = st.lists(st.one_of(mine, near, st.sampled_from(PACK)), max_size=6).map(tuple)
    meld_id = st.one_of(st.integers(-1, len(game.melds)), garbage)
    index = st.one_of(st.integers(-1, len(pile)), garbage)
    legal = game.legal_moves()
    options = [
        st.sampled_from([DrawStock(), Pass(), NextDeal(), None, "draw", 42, ("discard", 3), {"type": "x"}]),
        st.builds(Discard, card),
        st.builds(LayOff, meld_id, card),
        st.builds(NewMeld, st.one_of(some_cards, st.lists(card, max_size=4).map(tuple), garbage)),
        st.builds(TakeDiscard, index, st.one_of(some_cards, garbage), st.one_of(st.none(), meld_id)),
    ]
    if legal:
        options.append(st.sampled_from(legal))
        # a legal move with one card swapped, added or dropped
        options.append(st.tuples(st.sampled_from(legal), some_cards).map(lambda p: _perturb(*p)))
    return st.one_of(options)


def every_single_card_move(game: Game) -> list[Move]:
    """Every discard and every lay-off of any card on any meld (and on no meld)."""
    moves: list[Move] = [Discard(card) for card in PACK]
    for meld_id in [*(m.id for m in game.melds), len(game.melds) + 5]:
        moves += [LayOff(meld_id, card) for card in PACK]
    return moves


def _perturb(move: Move, extra: tuple[int, ...]) -> Move:
    if isinstance(move, NewMeld):
        return NewMeld(move.cards[1:] + extra[:1])
    if isinstance(move, TakeDiscard):
        if len(extra) % 2:
            return TakeDiscard(move.index, move.cards + extra[:1], move.meld_id)
        return TakeDiscard(move.index, move.cards[:-1] + extra[:1], move.meld_id)
    if isinstance(move, (LayOff, Discard)) and extra:
        return LayOff(move.meld_id, extra[0]) if isinstance(move, LayOff) else Discard(extra[0])
    return move


def check_candidate(game: Game, move: Any, legal: list[Move]) -> None:
    blind_legal = {normalized(m) for m in legal}
    trial = game.clone()
    before = trial.snapshot()
    try:
        trial.apply(move)
    except IllegalMove as refusal:
        assert refusal.code in CODES
        assert refusal.message[0].isupper() and refusal.message.endswith(".")
        assert trial.snapshot() == before, f"refused {move!r} changed the game"
        assert not well_formed(move) or normalized(move) not in blind_legal, f"legal {move!r} was refused"
        if not well_formed(move) and game.phase != "game_over":
            assert refusal.code == "bad-move"
        return
    assert well_formed(move) and normalized(move) in blind_legal, f"illegal {move!r} was applied"
    assert trial.moves[-1] in legal, "the move was recorded with Jokers the player did not have"
    check_cards(trial)


@st.composite
def positions_from_play(draw: st.DrawFn) -> Game:
    """A position reached by play: mostly in the middle of a deal, sometimes between
    deals or after the game."""
    steps = draw(st.one_of(st.integers(0, 120), st.integers(0, 500)))
    return play_prefix(draw(seeds), draw(seatings), draw(policies), steps)


@st.composite
def built_positions(draw: st.DrawFn) -> Game:
    """A random position built directly: random melds (with random owners), hands of
    0-12 cards, a discard pile of 0-20 cards, the rest in the stock (or, sometimes,
    none in the stock), any seat to act, in the draw or the meld phase."""
    pack = list(draw(st.permutations(PACK)))
    used: set[int] = set()
    melds: list[Meld] = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["set", "run", "jokers"]))
        if kind == "set":
            r = draw(st.integers(0, 12))
            suits = draw(st.lists(st.integers(0, 3), min_size=3, max_size=4, unique=True))
            new = [s * 13 + r for s in suits]
        elif kind == "run":
            s, lo = draw(st.integers(0, 3)), draw(st.integers(0, 10))
            hi = draw(st.integers(lo + 2, 12))
            new = [s * 13 + r for r in range(lo, hi + 1)]
        else:
            new = draw(st.lists(st.sampled_from(JOKERS), min_size=3, max_size=4, unique=True))
        if used.isdisjoint(new):
            used.update(new)
            meld = Meld.new(len(melds), new, draw(st.integers(0, 3)))
            meld.owners = [draw(st.integers(0, 3)) for _ in meld.cards]
            melds.append(meld)
    free = [c for c in pack if c not in used]
    game = Game(draw(seeds))
    game.melds = melds
    game.current = draw(st.integers(0, 3))
    game.phase = draw(st.sampled_from(["meld", "draw"]))
    sizes = [draw(st.integers(0, 12)) for _ in range(4)]
    if game.phase == "meld":
        sizes[game.current] = max(1, sizes[game.current])
    game.hands = []
    for n in sizes:
        game.hands.append(free[:n])
        free = free[n:]
    if not game.hands[game.current]:  # the melds took the cards: no hand to meld from
        game.phase = "draw"
    n = draw(st.integers(0, 20))
    game.discard_pile, free = free[:n], free[n:]
    if draw(st.booleans()):
        game.stock = free
    else:
        game.stock, game.discard_pile = [], free + game.discard_pile
    game.moves = []
    return game


@examples(3)
@given(st.data(), st.one_of(positions_from_play(), built_positions()))
def test_move_applies_iff_legal_and_refusals_change_nothing(data: st.DataObject, game: Game) -> None:
    """R4/R5/R6: at any position a move (legal, near miss or garbage) applies if and only
    if it is in legal_moves() (its cards sorted); a refused move raises IllegalMove with
    a known code and changes nothing; every legal move applies."""
    check_cards(game)
    legal = game.legal_moves()
    assert len(set(legal)) == len(legal), "a legal move is listed twice"
    for move in legal + every_single_card_move(game):
        check_candidate(game, move, legal)
    for move in data.draw(st.lists(candidates(game), min_size=10, max_size=40)):
        check_candidate(game, move, legal)
    if game.phase != "game_over":
        wrong = (game.current + 1) % 4
        trial = game.clone()
        before = trial.snapshot()
        for move in legal[:3]:
            try:
                trial.apply(move, seat=wrong)
            except IllegalMove as refusal:
                assert refusal.code == "not-your-turn"
            else:
                raise AssertionError("a seat moved out of turn")
        assert trial.snapshot() == before


@examples(2)
@given(built_positions(), st.integers(0, 2**32))
def test_built_positions_play_to_the_end_of_the_deal(game: Game, seed: int) -> None:
    """R6.2 with R1.1: from any position, random play keeps every card in one place,
    the views hide what they must, and the deal ends."""
    rng = random.Random(seed)
    for _ in range(MAX_MOVES):
        if game.phase != "draw" and game.phase != "meld":
            break
        check_cards(game)
        check_views(game)
        check_legal_moves(game)
        game.apply(rng.choice(game.legal_moves()))
    assert game.phase in ("deal_over", "game_over"), "the deal did not end"
    check_views(game)


@examples(4)
@given(built_positions(), st.data())
def test_deal_scores_equal_a_recount(game: Game, data: st.DataObject) -> None:
    """R7.1-R7.4 (and R5.5): the end of a deal from any table (melds with any owners,
    some laid as four at once) and any hands scores as an independent recount: each
    card for the team of the seat that laid it, four of a kind laid at once once more
    for the team that laid the meld, minus every card in hand, 25 for going out."""
    for meld in game.melds:
        meld.four_at_once = four_of_a_kind(meld.cards) and data.draw(st.booleans())
    went_out = data.draw(st.sampled_from([None, 0, 1, 2, 3]))
    if went_out is not None:
        game.stock += game.hands[went_out]
        game.hands[went_out] = []
    scores = score_deal(game.melds, game.hands, went_out)
    pairs = [(c, s, m) for m in game.melds for c, s in zip(m.cards, m.owners, strict=True)]
    for team in (0, 1):
        laid = sum(card_points(c) for c, s, _ in pairs if s % 2 == team)
        doubled = sum(card_points(c) for c, _, m in pairs if m.four_at_once and m.laid_by % 2 == team)
        held = sum(card_points(c) for s, h in enumerate(game.hands) if s % 2 == team for c in h)
        bonus = 25 if went_out is not None and went_out % 2 == team else 0
        assert scores[team] == TeamScore(laid, doubled, -held, bonus)
        assert scores[team].total == laid + doubled - held + bonus
