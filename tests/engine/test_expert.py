"""The expert bot (IS-MCTS): legal moves only, its own view only (R9), its budget
counted in iterations, the same play for the same seed and budget; and the worlds
it searches agree with what its seat has seen."""

from __future__ import annotations

import copy
import random

import pytest

from rummy.engine import (
    PACK,
    Discard,
    DrawStock,
    Game,
    LayOff,
    Move,
    NewMeld,
    PlayerView,
    TakeDiscard,
    parse_cards,
    view_for,
    world_from_view,
)
from rummy.engine.bots import Budget, ExpertBot, make_bot
from rummy.engine.bots.expert import Search, WorldSampler, turn_plans
from rummy.engine.bots.memory import PileMemory
from rummy.engine.bots.playout import play_rest_of_turn
from rummy.engine.positions import position
from rummy.engine.scoring import DealResult, TeamScore
from rummy.sim import play_game
from tests.support import by_bots, play_until

from .test_bots import SpyBot, _hide_differently

QUICK = Budget(iterations=6)


def _midgame(seed: int, moves: int, phase: str | None = None) -> Game:
    """A game some moves in, played by heuristic bots (so with melds and takes); with
    ``phase``, played on to the next turn in that phase."""
    game = Game(seed, seating="chosen")
    bots = [make_bot("heuristic", random.Random(seed * 4 + s)) for s in range(4)]

    def there(game: Game) -> bool:
        return game.phase not in ("draw", "meld") or (
            len(game.moves) >= moves and not (phase and game.phase != phase)
        )

    play_until(game, by_bots(bots), there)
    return game


def test_expert_plays_only_legal_moves_and_finishes_games_R4() -> None:
    """Whole games of two deals (R3.1) at a small budget: every move the expert picks
    is one of its view's legal moves (R4), and the games end."""
    for seed, seating in ((1, "chosen"), (2, "draw")):
        game = Game(seed, seating=seating)
        bots = [SpyBot(ExpertBot(random.Random(seed * 4 + s), QUICK)) for s in range(4)]
        play_until(game, by_bots(bots), limit=3000)
        assert len(game.results) == 2 and all(b.calls > 0 for b in bots)


def test_expert_decides_from_its_view_and_memory_only_R9_2() -> None:
    """R9.2: at every turn of whole games, a copy of the expert (same memory, same rng
    state) given the same view of a game whose hidden cards (other hands, stock order)
    were dealt anew makes the same move and leaves its rng in the same state."""
    deal_rng = random.Random(9)
    checked = differs = 0
    for seed in (11, 12):
        game = Game(seed, seating="chosen")
        rngs = [random.Random(s) for s in range(4)]
        bots = [ExpertBot(rngs[s], QUICK) if s % 2 == 0 else make_bot("heuristic", rngs[s]) for s in range(4)]
        while not game.is_over:
            seat = game.current
            view = view_for(game, seat)
            bot = bots[seat]
            if isinstance(bot, ExpertBot) and game.phase in ("draw", "meld"):
                twin_game = _hide_differently(game, seat, deal_rng)
                twin_view = view_for(twin_game, seat)
                assert twin_view == view
                differs += twin_game.stock != game.stock
                # Its own copy of the memory and of the rng (deep-copied together, the
                # copy of the bot draws from the copy of the rng).
                twin, twin_rng = copy.deepcopy((bot, rngs[seat]))
                move = bot.choose(view)
                assert twin.choose(twin_view) == move
                assert twin_rng.getstate() == rngs[seat].getstate()
                checked += 1
            else:
                move = bot.choose(view)
            game.apply(move)
    assert checked > 60
    assert differs > checked // 2  # the hidden cards really were dealt anew


def test_expert_budget_is_counted_in_iterations() -> None:
    """A search runs exactly its budget of iterations (not a time); the bot reports
    the iterations of its last decision (0 when only one choice was worth a search)."""
    game = _midgame(3, 25, "meld")
    seat = game.current
    view = view_for(game, seat)
    for iterations in (1, 7, 30):
        search = Search(view, PileMemory(), random.Random(0), Budget(iterations))
        actions = search.root_actions()
        assert len(actions) > 1
        search.run(actions)
        assert search.iterations == iterations
    bot = ExpertBot(random.Random(0), Budget(13))
    bot.choose(view)
    assert bot.last_iterations == 13
    bot.budget = Budget(5)  # the caller may change it between moves
    bot.choose(view_for(game, seat))
    assert bot.last_iterations == 5
    # A time limit cuts a search short, after at least one iteration.
    search = Search(view, PileMemory(), random.Random(0), Budget(10_000, seconds=0.0))
    search.run(search.root_actions())
    assert search.iterations == 1
    with pytest.raises(ValueError):
        Budget(0)


def test_expert_is_deterministic_for_a_seed_and_budget() -> None:
    """The same seeds and budget play the very same game; another bot seed, another game."""
    first = play_game(77, ("expert", "heuristic", "expert", "heuristic"), 5, QUICK)
    again = play_game(77, ("expert", "heuristic", "expert", "heuristic"), 5, QUICK)
    other = play_game(77, ("expert", "heuristic", "expert", "heuristic"), 6, QUICK)
    assert first.moves == again.moves and first.totals == again.totals
    assert first.moves != other.moves


def test_expert_goes_out_when_it_can_R4_4() -> None:
    """R4.4: with a hand that melds and lays off entirely, the expert goes out."""
    game = position(["7h 8h 9h Kc", "", "", ""], melds=[("Kd Ks Kh", 1)], phase="meld")
    bot = ExpertBot(random.Random(0), Budget(20))

    def melding(game: Game) -> Move:
        move = bot.choose(view_for(game, 0))
        assert not isinstance(move, Discard)
        return move

    play_until(game, melding, lambda g: g.phase != "meld")
    assert game.results[-1].went_out == 0


def test_expert_takes_a_discard_to_go_out_R4_1_R4_4() -> None:
    """R4.1, R4.4: the Q♠ on the discard pile makes a set with the two Queens of the
    hand, which empties it: the expert takes it and goes out at once."""
    mine = parse_cards("Qh Qd")
    pile = parse_cards("4c Qs")
    rest = [c for c in PACK if c not in mine and c not in pile]
    random.Random(3).shuffle(rest)
    game = position([mine, rest[:7], rest[7:14], rest[14:21]], discard=pile)
    move = ExpertBot(random.Random(0), Budget(30)).choose(view_for(game, 0))
    assert move == TakeDiscard(1, tuple(sorted(parse_cards("Qh Qd Qs"))))
    game.apply(move)
    assert game.results[-1].went_out == 0


def test_turn_plans_are_legal_sequences_R4_2_R4_3() -> None:
    """Every turn plan is a run of legal moves: melds and lay-offs (R4.2), then one
    discard (R4.3), or no discard when it empties the hand (R4.4); holding back three
    of a kind for the fourth (R7.4) is one of the plans."""
    game = position(
        ["Kc Kd Kh 5h 6h 7h 2s 9d", "2c 3c 4c 5c", "2d 4d 5d 6d", "3h 4h 8h 9h"],
        melds=[("8c 9c 10c", 1)],
        phase="meld",
        stock="Ks 3d",
    )
    plans = turn_plans(game)
    assert plans
    held_kings = False
    for plan in plans:
        trial = game.clone()
        for move in plan[:-1]:
            assert move in trial.legal_moves()
            assert isinstance(move, NewMeld | LayOff)
            trial.apply(move)
        assert isinstance(plan[-1], Discard) and plan[-1] in trial.legal_moves()
        held_kings |= not any(isinstance(m, NewMeld) and parse_cards("Kc")[0] in m.cards for m in plan)
    assert held_kings


@pytest.mark.parametrize("stock", [0, 1, 3])
def test_expert_lays_three_jokers_when_no_draw_is_left_for_the_fourth_R6_1_R6_2_R7_2(stock: int) -> None:
    """R6.1, R6.2, R7.2: with fewer cards in the stock than seats, this seat draws from
    it no more, and a deal that ends on passes leaves what it holds in its hand. A hard
    bot held JK JK JK back for the fourth Joker (160 laid at once, R7.4) to the end of
    a deal and lost 60 for them, where laid they scored 60. With the stock that low it
    lays them; with a draw still to come, holding them back is one of its plans."""
    on_stock = " ".join(["2c", "3c", "4c", "5c", "6c"][:stock])
    hands = ["Jk Jk2 Jk3 7s 9s 2d", "Jk4 5h 6h Qs Kd", "3h 8d 10c Jd", "4s 5s Qh Kh Ad"]
    game = position(hands, stock=on_stock, rest_to="discard", phase="meld")
    jokers = NewMeld(tuple(parse_cards("Jk Jk2 Jk3")))
    assert all(plan[0] == jokers for plan in turn_plans(game))
    assert ExpertBot(random.Random(1)).choose(view_for(game, 0)) == jokers
    later = position(hands, stock="2c 3c 4c 5c", rest_to="discard", phase="meld")
    assert any(jokers not in plan for plan in turn_plans(later))


@pytest.mark.parametrize("west", ["", "5c", "5c 7d 9h"])
def test_expert_lays_three_of_a_kind_when_another_seat_may_go_out_R4_4_R7_2(west: str) -> None:
    """R4.4, R7.2: a seat with three cards or fewer (none: it discarded its last, R4.5)
    may go out at its next turn, and three Kings held back for the fourth (R7.4) would
    then cost 30 where laid they score 30. A hard bot held 9-9-9 back with an opponent
    down to no cards, who went out at once. With West that short it lays them; with
    West at four cards, holding them back is one of its plans."""
    hands = ["Kc Kh Kd 3d 7s", west, "6c 6d 8h 8s 2c", "Ad 3h 9c 9d 5s"]
    game = position(hands, phase="meld")
    kings = NewMeld(tuple(parse_cards("Kc Kd Kh")))
    assert all(plan[0] == kings for plan in turn_plans(game))
    assert ExpertBot(random.Random(1)).choose(view_for(game, 0)) == kings
    later = position([hands[0], "5c 7d 9h Qd", *hands[2:]], phase="meld")
    assert any(kings not in plan for plan in turn_plans(later))


@pytest.mark.parametrize("lead", [300, -300])
def test_expert_plays_a_decided_last_deal_for_its_points_R7_4_R8_1(lead: int) -> None:
    """R8.1: in the last deal the search scores a playout by who wins the game; with a
    lead no deal can overturn (either way) every playout scored alike, and a hard bot
    drew from the stock with JK JK in hand and JK JK on the pile, where taking them is
    four Jokers at once, 160 (R7.4, R4.1); the deal ended with the two in its hand
    (-40). A decided game is still played for its points."""
    hands = ["As Jk Jk2", "", "Qc Kc 5h", "7h 8c 9d 2s"]
    game = position(hands, discard="Jk3 Jk4", deal=2)
    ours, theirs = (lead, 0) if lead > 0 else (0, -lead)
    scores = (TeamScore(ours, 0, 0, 0), TeamScore(theirs, 0, 0, 0))
    game.results = [DealResult(1, "out", 1, ((), (), (), ()), scores)]
    jokers = TakeDiscard(0, tuple(parse_cards("Jk Jk2 Jk3 Jk4")))
    assert [ExpertBot(random.Random(seed)).choose(view_for(game, 0)) for seed in range(4)] == [jokers] * 4


def test_worlds_agree_with_the_view_R9() -> None:
    """Each world a search plays shows its seat exactly the view it was drawn from
    (R9.1, R9.2); the cards the seat saw an opponent take stay in that hand."""
    game = _midgame(5, 40)
    seat = game.current
    view = view_for(game, seat)
    memory = PileMemory()
    opponent = (seat + 1) % 4
    held = game.hands[opponent][0]
    memory.held[opponent] = {held}
    sampler = WorldSampler(view, memory)
    rng = random.Random(1)
    stocks = set()
    for _ in range(20):
        world = sampler.sample(rng)
        assert view_for(world, seat) == view
        assert held in world.hands[opponent]
        stocks.add(tuple(world.stock))
    assert len(stocks) > 1


def test_world_from_view_refuses_cards_that_do_not_fit() -> None:
    game = _midgame(6, 12)
    seat = game.current
    view = view_for(game, seat)
    hands = [list(h) for h in game.hands]
    world = world_from_view(view, hands, game.stock)
    assert view_for(world, seat) == view and world.legal_moves() == game.legal_moves()
    with pytest.raises(ValueError):
        world_from_view(view, hands, game.stock[1:])  # the stock count differs
    swapped = [list(h) for h in hands]
    other = (seat + 1) % 4
    swapped[seat][0], swapped[other][0] = swapped[other][0], swapped[seat][0]
    with pytest.raises(ValueError):
        world_from_view(view, swapped, game.stock)  # not the seat's own hand
    twice = [list(h) for h in hands]
    twice[other][0] = twice[(seat + 2) % 4][0]
    with pytest.raises(ValueError):
        world_from_view(view, twice, game.stock)  # a card in two places
    spectator: PlayerView = view_for(game, None)
    with pytest.raises(ValueError):
        world_from_view(spectator, hands, game.stock)


def test_expert_first_search_move_is_drawn_from_legal_moves_R6_1() -> None:
    """R6.1: with the stock empty the expert passes or takes, never draws."""
    game = position(["3c 9d Kh", "", "", ""], discard="5s", rest_to="discard")
    assert not game.stock
    move = ExpertBot(random.Random(0), QUICK).choose(view_for(game, 0))
    assert move in game.legal_moves() and not isinstance(move, DrawStock)


def test_expert_goes_out_where_the_richest_meld_first_would_not_R4_4_R7_4() -> None:
    """R4.4: J♥ Q♥ K♥ K♣ K♦ K♠ go out as K-K-K and J-Q-K♥ (60 points and 25 for going
    out, R7.3, and the deal ends with the opponents' cards in their hands). Four Kings
    at once (80, R7.4) would leave J♥ Q♥ in the hand: the bot goes out instead."""
    game = position(["Jh Qh Kh Kc Kd Ks", "", "", ""], phase="meld")
    plans = turn_plans(game)
    assert (NewMeld(tuple(parse_cards("Kc Kd Ks"))), NewMeld(tuple(parse_cards("Jh Qh Kh")))) in plans
    bot = ExpertBot(random.Random(0))

    def expert(game: Game) -> Move:
        return bot.choose(view_for(game, 0))

    play_until(game, expert, lambda g: g.phase != "meld")
    assert game.results[-1].went_out == 0


def test_expert_goes_out_with_a_lay_off_where_four_at_once_would_not_R4_4_R5_4() -> None:
    """R4.4, R5.4: 9-9-9, 7-8-9-10♥ and J♠ laid off on the table's Jacks go out (four 9s
    at once would leave 7♥ 8♥ 10♥)."""
    game = position(["7h 8h 9h 9c 9d 9s 10h Js", "", "", ""], melds=[("Jc Jd Jh", 1)], phase="meld")
    bot = ExpertBot(random.Random(0))
    play_until(game, lambda g: bot.choose(view_for(g, 0)), lambda g: g.phase != "meld")
    assert game.results[-1].went_out == 0


@pytest.mark.parametrize(("west", "thrown"), [("5c", ("Kc", "Kh")), ("5c 7d 9h 10s Qd", ("4s",))])
def test_playouts_shed_a_pair_of_kings_when_an_opponent_may_go_out_R4_4_R7_2(
    west: str, thrown: tuple[str, ...]
) -> None:
    """R4.4, R7.2: the search's playouts (how it sees every seat's future turns) keep a
    pair for a third and throw a loose card; but with West down to one card the deal may
    end at West's next turn, and the Kings would cost 20 points: a King goes."""
    game = position(["Kc Kh 3d 4s", west, "6c 6d 8h 8s 2c", "Ad 3h 9c 9d 5s"], phase="meld")
    assert play_rest_of_turn(game, random.Random(0)) == 1
    assert game.moves[-1] in [Discard(c) for c in parse_cards(" ".join(thrown))]
