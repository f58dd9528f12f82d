"""Bots: they play only legal moves, see only their own view (R9), and the
heuristic bot plays sensibly and beats the random bot clearly."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rummy.engine import (
    PACK,
    Card,
    Discard,
    DrawStock,
    Game,
    LayOff,
    Meld,
    Move,
    NewMeld,
    NextDeal,
    Phase,
    PlayerView,
    Seating,
    TakeDiscard,
    meld_kind,
    new_melds,
    parse_cards,
    parse_move,
    view_for,
)
from rummy.engine.bots import (
    BOT_NAMES,
    LEVELS,
    Bot,
    Budget,
    EasyBot,
    ExpertBot,
    HeuristicBot,
    NoMoveError,
    RandomBot,
    make_bot,
)
from rummy.engine.bots.planning import GOING_OUT, TableState, best_plan, lay_off_all, meld_value
from rummy.engine.cards import POINTS
from rummy.engine.positions import position
from rummy.sim import simulate
from tests.support import at_random, by_bots, play_until

QUICK = Budget(iterations=4)  # searching bots think briefly here: the tests are about rules


def test_bot_names_and_factory() -> None:
    assert set(BOT_NAMES) == {"random", "easy", "heuristic", "expert", "normal", "hard"}
    assert isinstance(make_bot("random", random.Random(1)), RandomBot)
    assert isinstance(make_bot("easy", random.Random(1)), EasyBot)
    assert isinstance(make_bot("heuristic", random.Random(1)), HeuristicBot)
    expert = make_bot("expert", random.Random(1), Budget(9))
    assert isinstance(expert, ExpertBot) and expert.budget == Budget(9)


def test_levels_name_the_bots_a_player_chooses_from() -> None:
    """Three levels: easy is the easy bot, normal the heuristic bot, hard the expert."""
    assert LEVELS == {"easy": "easy", "normal": "heuristic", "hard": "expert"}
    assert isinstance(make_bot("easy", random.Random(1)), EasyBot)
    assert isinstance(make_bot("normal", random.Random(1)), HeuristicBot)
    assert isinstance(make_bot("hard", random.Random(1)), ExpertBot)
    for name in BOT_NAMES:
        assert make_bot(name, random.Random(1)).name == LEVELS.get(name, name)


def test_unknown_bot_name_lists_the_known_ones() -> None:
    with pytest.raises(ValueError) as info:
        make_bot("clever", random.Random(1))
    message = str(info.value)
    assert "clever" in message
    for name in BOT_NAMES:
        assert name in message


class SpyBot:
    """Wraps a bot: checks what it is given and that its move is legal."""

    def __init__(self, inner: Bot) -> None:
        self.inner = inner
        self.calls = 0

    def choose(self, view: PlayerView) -> Move:
        assert type(view) is PlayerView
        legal = view.legal_moves()
        move = self.inner.choose(view)
        assert move in legal, (move, view)
        self.calls += 1
        return move


@pytest.mark.parametrize("seating", ["chosen", "draw"])
@pytest.mark.parametrize(
    "lineup", [("random",) * 4, ("heuristic",) * 4, ("heuristic", "random") * 2, ("easy", "heuristic") * 2]
)
def test_bots_choose_only_legal_moves_and_finish_games(seating: Seating, lineup: tuple[str, ...]) -> None:
    """Whole games of two deals (R3.1): every move a bot picks is one of its view's
    legal moves, the engine accepts it from that seat, and every game ends."""
    for seed in range(3):
        game = Game(seed, seating=seating)
        bots = [SpyBot(make_bot(name, random.Random(seed * 4 + s))) for s, name in enumerate(lineup)]
        play_until(game, by_bots(bots), limit=5000)
        assert len(game.results) == 2
        assert all(b.calls > 0 for b in bots)


def _hide_differently(game: Game, seat: int, rng: random.Random) -> Game:
    """The same game as ``seat`` sees it, with every card it cannot see (the other
    hands and the stock, R9.2) dealt out again at random."""
    other = game.clone()
    hidden_places = [other.stock] + [other.hands[s] for s in range(4) if s != seat]
    hidden = [c for place in hidden_places for c in place]
    rng.shuffle(hidden)
    for place in hidden_places:
        n = len(place)
        place[:] = hidden[:n]
        del hidden[:n]
    return other


@pytest.mark.parametrize("name", sorted({LEVELS.get(n, n) for n in BOT_NAMES}))  # each bot once
def test_bots_decide_from_their_view_only_R9_2(name: str) -> None:
    """R9.2: a bot's choice depends only on its own view. The same position with
    the other hands and the stock reshuffled (so the view is equal) gets the same
    move from the same bot with the same rng, at every step of whole games."""
    rng = random.Random(5)
    checked = differs = 0
    for seed in range(2):
        game = Game(100 + seed, seating="chosen")
        players = [make_bot(name, random.Random(s), QUICK) for s in range(4)]
        twins = [make_bot(name, random.Random(s), QUICK) for s in range(4)]
        while not game.is_over:
            seat = game.current
            view = view_for(game, seat)
            move = players[seat].choose(view)
            twin = _hide_differently(game, seat, rng)
            twin_view = view_for(twin, seat)
            assert twin_view == view
            differs += twin.stock != game.stock
            assert twins[seat].choose(twin_view) == move
            checked += 1
            game.apply(move)
    assert checked > 100
    assert differs > checked // 2  # the hidden cards really were dealt out anew


def test_a_bot_refuses_a_view_where_it_has_no_move() -> None:
    """A spectator's view, or another seat's turn: no legal move, a clear error."""
    game = Game(3, seating="chosen")
    for name in BOT_NAMES:
        bot = make_bot(name, random.Random(0))
        with pytest.raises(NoMoveError):
            bot.choose(view_for(game, None))
        with pytest.raises(NoMoveError):
            bot.choose(view_for(game, (game.current + 1) % 4))


def test_same_rng_same_game() -> None:
    """Bots use only the rng they are given: seeded alike, they play alike."""

    def play() -> tuple[Move, ...]:
        game = Game(42, seating="chosen")
        bots = [make_bot(n, random.Random(7 + s)) for s, n in enumerate(("heuristic", "random") * 2)]
        play_until(game, by_bots(bots))
        return game.record().moves

    assert play() == play()


def test_normal_level_beats_the_easy_bot_and_easy_beats_random() -> None:
    """The easy level is beatable yet sensible. Over 60 seeded games (30 duplicate
    pairs) the heuristic bot (level normal) wins at least 70% against it, and the easy
    bot itself wins at least 55% against the random bot."""
    normal = simulate(60, 31, ["heuristic", "easy"]).per_bot["heuristic"]
    assert normal.wins >= 42, normal
    easy = simulate(60, 32, ["easy", "random"]).per_bot["easy"]
    assert easy.wins >= 33, easy


def test_easy_bot_takes_a_discard_that_melds_and_goes_out_R4_1_R4_4() -> None:
    """R4.1: the top card of the pile makes a set with two of the hand: the easy bot
    takes it. R4.4: with a hand that melds and lays off entirely, it goes out."""
    game = position(["Qh Qd 3c 5d 8s 9h 2s", "", "", ""], discard="4c Qs")
    bot = EasyBot(random.Random(0))
    assert bot.choose(view_for(game, 0)) == TakeDiscard(1, tuple(sorted(parse_cards("Qh Qd Qs"))))
    game = position(["7h 8h 9h Kc", "", "", ""], melds=[("Kd Ks Kh", 1)], phase="meld")

    def melding(game: Game) -> Move:
        move = bot.choose(view_for(game, 0))
        assert not isinstance(move, Discard)
        return move

    play_until(game, melding, lambda g: g.phase != "meld")
    assert game.results[-1].went_out == 0


def test_easy_bot_discards_a_loose_high_card_R4_3() -> None:
    """R4.3: it keeps its pair and its near run, and throws the King that goes with nothing."""
    game = position(["5c 5d 8h 9h Kc 2s", "", "", ""], phase="meld")
    assert EasyBot(random.Random(0)).choose(view_for(game, 0)) == Discard(parse_cards("Kc")[0])


def test_heuristic_bot_beats_random_bot_clearly() -> None:
    """Over 60 seeded games (30 duplicate pairs, each side on both seats) the
    heuristic team wins at least 75%."""
    result = simulate(60, 2024, ["heuristic", "random"])
    heuristic = result.per_bot["heuristic"]
    assert heuristic.played == 60
    assert heuristic.wins >= 45, result.as_dict()
    assert heuristic.score_sum > result.per_bot["random"].score_sum


# --- the heuristic bot's play, in hand-built positions ---------------------------------


def _choose(game: Game, seat: int = 0) -> Move:
    return HeuristicBot(random.Random(0)).choose(view_for(game, seat))


def test_heuristic_lays_four_of_a_kind_at_once_R7_4() -> None:
    """R7.4: four Jacks laid down at once score double, so the bot lays all four
    together rather than three and a lay-off."""
    game = position(["Jc Jd Jh Js 3c 8d", "", "", ""], phase="meld")
    assert _choose(game) == NewMeld(tuple(parse_cards("Jc Jd Jh Js")))


def test_heuristic_goes_out_when_it_can_R4_4() -> None:
    """R4.4: the bot melds and lays off its whole hand, and goes out."""
    game = position(["7h 8h 9h Kc", "", "", ""], melds=[("Kd Ks Kh", 1)], phase="meld")
    bot = HeuristicBot(random.Random(0))

    def melding(game: Game) -> Move:
        move = bot.choose(view_for(game, 0))
        assert not isinstance(move, Discard)
        return move

    play_until(game, melding, lambda g: g.phase != "meld")
    assert game.results[-1].went_out == 0


def test_heuristic_lays_off_on_its_partners_meld_R5_4() -> None:
    """R5.4/R5.5: a lay-off on the partner's meld scores for the team: it lays off."""
    game = position(["8h 3c Kd", "", "", ""], melds=[("5h 6h 7h", 2)], phase="meld")
    assert _choose(game) == LayOff(0, parse_cards("8h")[0])


def test_heuristic_takes_a_discard_that_makes_a_meld_R4_1() -> None:
    """R4.1: the top card of the discard pile makes a set with two of the hand."""
    game = position(["Qh Qd 3c 5d 8s 9h 2s", "", "", ""], discard="4c Qs")
    move = _choose(game)
    assert move == TakeDiscard(1, tuple(sorted(parse_cards("Qh Qd Qs"))))


def _late_position(
    mine: str, pile: str, stock: str, phase: Phase = "draw", melds: Sequence[str] = ()
) -> Game:
    """A position late in the deal: a short stock, ``melds`` on the table (laid by
    seat 1), every other card in the other three hands."""
    placed = parse_cards(mine) + parse_cards(pile) + parse_cards(stock)
    placed += [c for m in melds for c in parse_cards(m)]
    rest = [c for c in PACK if c not in placed]
    third = len(rest) // 3
    hands = [parse_cards(mine), rest[:third], rest[third : 2 * third], rest[2 * third :]]
    on_table = [(m, 1) for m in melds]
    return position(hands, discard=pile, stock=stock, phase=phase, melds=on_table)


# Full sets (nothing can be laid off on them) to keep most cards off the hands.
FULL_SETS = ("2c 2d 2h 2s", "6c 6d 6h 6s", "10c 10d 10h 10s", "Jc Jd Jh Js", "Qc Qd Qh Qs", "Jk Jk Jk Jk")


def test_heuristic_does_not_dig_for_a_small_meld_under_high_cards_late_R4_1() -> None:
    """R4.1, R7.2: late in the deal, taking 2♣ (to meld 2-3-4♣) would bring eight
    high cards into the hand: the bot draws from the stock instead."""
    game = _late_position("3c 4c 8d 9s Jh 6h 2d", "2c Ks Kh Ad Ac Qd Jd 10s Qc", "7s 7d 5h")
    assert _choose(game) == DrawStock()


def test_heuristic_sheds_its_highest_card_late_in_the_deal_R7_2() -> None:
    """R7.2: with the stock nearly gone and no card that melds, the bot discards
    its Ace (15 points), which no opponent can use: the other three Aces end
    Q-K-A runs on the table (R5.2: nothing goes above an Ace). (Two Aces in the
    discard pile would make it a set for the next player, R4.1.)"""
    melds = [m for m in FULL_SETS if not m.startswith("Q")] + ["Qc Kc Ac", "Qd Kd Ad", "Qs Ks As"]
    game = _late_position("Ah 3c 5d 8s 9c", "7c 4h", "7d 9s", "meld", melds)
    assert _choose(game) == Discard(parse_cards("Ah")[0])


def test_heuristic_keeps_a_card_that_may_meld_early_in_the_deal() -> None:
    """Early in the deal a pair may still become a set: the bot discards an odd
    high card, not one of its pair of Kings."""
    game = position(["Kc Kd 3c 5d 9s 8h Ah 4s", "", "", ""], phase="meld")
    assert _choose(game) not in (Discard(parse_cards("Kc")[0]), Discard(parse_cards("Kd")[0]))


def test_heuristic_does_not_discard_a_joker_that_makes_a_set_with_the_pile_R4_1_R5_3() -> None:
    """R4.1, R5.3: two Jokers lie in the discard pile. A third discarded on top of them
    is a set of Jokers (60 points) for the next player, whatever it holds: it takes the
    deeper Joker and every card above it. The bot keeps its Joker (it discarded it, as
    its costliest card that melds with nothing in its hand)."""
    mine, pile = parse_cards("7c 8c Jd 2h 2s 7s 10s Jk"), parse_cards("5h As Jk2 Jk3 4s Jc")
    rest = [c for c in PACK if c not in mine + pile]
    game = position([mine, rest[:7], rest[7:14], rest[14:21]], discard=pile, phase="meld")
    move = _choose(game)
    assert isinstance(move, Discard) and move.card != parse_cards("Jk")[0]


def test_heuristic_next_deal() -> None:
    game = Game(8, seating="chosen")
    rng = random.Random(0)
    play_until(game, at_random(rng), lambda g: g.phase == "deal_over")
    assert _choose(game, game.current) == NextDeal()


def test_heuristic_holds_three_of_a_kind_early_for_four_at_once_R7_4() -> None:
    """R7.4: early in the deal, with the fourth King unseen, the bot keeps three
    Kings in hand (four at once would score double); late in the deal it lays them down."""
    kings = NewMeld(tuple(parse_cards("Kc Kd Kh")))
    mine = parse_cards("Kc Kd Kh 3c 5d 8s 9h 2s")
    others = [c for c in PACK if c not in mine and c != parse_cards("Ks")[0]]
    hands = [mine, others[:7], others[7:14], others[14:21]]  # seven cards each
    early = position(hands, phase="meld")
    assert len(early.stock) > 20
    move = _choose(early)
    assert isinstance(move, Discard) and move.card not in parse_cards("Kc Kd Kh")
    late = _late_position("Kc Kd Kh 3c 5d 8s 9h 2s", "7c 4h", "7d 9s", "meld")
    assert _choose(late) == kings
    # Early too, when the three Kings are all it holds: it goes out (R4.4).
    out = position([parse_cards("Kc Kd Kh"), *hands[1:]], phase="meld")
    assert _choose(out) == kings


def test_heuristic_remembers_what_an_opponent_took_R9_1() -> None:
    """R9.1: everyone sees every take. West takes 5♥ (to meld 5♣ 5♥ 5♠) and with it
    9♠ 9♣ from the discard pile. Back on its turn, South holds 9♦ and does not
    discard it; a bot that did not see the take (made afresh) would."""
    game = position(
        ["2c 3c 3d 4d 6s 7s 2h", "5c 5s 8c Kh Ah 3h Jd", "", ""],
        discard="Ad 5h 9s 9c",
        stock="10c 8d 9d 7c 4s Qs",  # South draws Qs, North 4s, East 7c, South 9d
    )
    south = HeuristicBot(random.Random(0))

    def south_plays(bot: HeuristicBot, game: Game) -> list[Move]:
        played: list[Move] = []
        play_until(
            game, by_bots([bot] * 4), lambda g: g.current != 0, after=lambda _, move: played.append(move)
        )
        return played

    assert south_plays(south, game)[0] == DrawStock()
    for text in ("take 1 meld 5c 5h 5s", "discard Kh", "draw", "discard 4s", "draw", "discard 7c"):
        game.apply(parse_move(text))
    nine = Discard(parse_cards("9d")[0])
    without_memory = game.clone()
    assert nine not in south_plays(south, game)
    assert nine in south_plays(HeuristicBot(random.Random(0)), without_memory)


# --- meld planning -----------------------------------------------------------------------


def _brute_force_best(hand: list[Card], table: TableState) -> int:
    """The most points any set of disjoint new melds (then every lay-off) lays down."""
    candidates = new_melds(hand)
    best = 0

    def walk(start: int, used: frozenset[Card], chosen: list[tuple[Card, ...]]) -> None:
        nonlocal best
        t = table.copy()
        for meld in chosen:
            t.add_meld(meld)
        layoffs, rest = lay_off_all([c for c in hand if c not in used], t)
        value = sum(meld_value(m) for m in chosen) + sum(POINTS[c] for c, _ in layoffs)
        best = max(best, value + (GOING_OUT if not rest else 0))
        for k in range(start, len(candidates)):
            meld = candidates[k]
            if not used.intersection(meld):
                walk(k + 1, used.union(meld), [*chosen, meld])

    walk(0, frozenset(), [])
    return best


@given(st.lists(st.integers(0, 55), min_size=3, max_size=10, unique=True), st.integers(0, 3))
def test_best_plan_lays_the_most_points_R7_1_R7_4(hand: list[Card], table_choice: int) -> None:
    """R7.1/R7.4: the planner's melds are disjoint legal melds of the hand, its
    lay-offs fit, and no other choice of melds lays more points."""
    tables = ["", "5h 6h 7h", "Kc Kd Ks", "Jk Jk2 Jk3"]
    table_cards = parse_cards(tables[table_choice])
    hand = [c for c in hand if c not in table_cards]
    melds = [Meld.new(0, table_cards, 1)] if table_cards else []
    table = TableState.from_melds(melds)
    plan = best_plan(hand, table)
    laid = [c for m in plan.melds for c in m] + [c for c, _ in plan.layoffs]
    assert sorted(laid + plan.leftover) == sorted(hand)
    assert all(meld_kind(m) is not None for m in plan.melds)
    assert plan.laid == sum(meld_value(m) for m in plan.melds) + sum(POINTS[c] for c, _ in plan.layoffs)
    assert plan.laid + (GOING_OUT if plan.goes_out else 0) == _brute_force_best(hand, table)


def test_best_plan_keeps_to_its_node_cap_on_a_huge_hand() -> None:
    """A 37-card hand (a bot taking over a hoarder's seat) is planned within the
    cap, and the plan is still made of legal melds of that hand."""
    hand = [c for c in PACK if c < 39] + [39, 40, 41, 52]
    plan = best_plan(hand, TableState.from_melds([]), cap=30)
    assert plan.nodes <= 31
    assert plan.melds and all(meld_kind(m) is not None for m in plan.melds)
    laid = [c for m in plan.melds for c in m] + [c for c, _ in plan.layoffs]
    assert len(set(laid)) == len(laid) and set(laid) <= set(hand)
