"""Scoring a deal, item by item, and the winner (RULES R7, R8)."""

from __future__ import annotations

import random

import pytest

from rummy.engine import (
    DealEnded,
    Discard,
    DrawStock,
    Game,
    GameEnded,
    IllegalMove,
    LayOff,
    NextDeal,
    TeamScore,
    view_for,
)
from rummy.engine.positions import c, cards, meld, position, take
from rummy.engine.scoring import DealResult
from tests.support import at_random, play_until

from .oracle import card_points


def first_deal(team0: TeamScore, team1: TeamScore) -> DealResult:
    """A first deal's result, to set a second-deal position's running totals."""
    return DealResult(1, "passes", None, ((), (), (), ()), (team0, team1))


def score(game: Game, team: int) -> TeamScore:
    return game.results[-1].scores[team]


def test_four_jacks_laid_at_once_score_80_R7_4() -> None:
    """R7.4: four Jacks laid down together, as one new meld, score 80."""
    game = position(["Jc Jd Jh Js", "2c", "", "3c"], phase="meld")
    game.apply(meld("Jc Jd Jh Js"))
    team0 = score(game, 0)
    assert team0.laid + team0.doubled_fours == 80
    assert team0 == TeamScore(laid=40, doubled_fours=40, in_hand=0, going_out=25)
    assert team0.total == 105
    assert score(game, 1) == TeamScore(laid=0, doubled_fours=0, in_hand=-5, going_out=0)


def test_three_jacks_and_the_fourth_later_score_40_R7_4() -> None:
    """R7.4: three Jacks with the fourth laid off later score 30 + 10 = 40."""
    game = position(["Jc Jd Jh 5c", "", "", ""], phase="meld", stock="Js 4d 4h 4s")
    game.apply(meld("Jc Jd Jh"))
    game.apply(Discard(c("5c")))
    for _ in range(3):  # seats 1, 2, 3 draw a four and throw it away
        game.apply(DrawStock())
        game.apply(Discard(game.hands[game.current][0]))
    game.apply(DrawStock())
    assert game.hands[0] == cards("Js")
    game.apply(LayOff(0, c("Js")))  # the fourth Jack, laid off on a later turn
    team0 = score(game, 0)
    assert team0.laid + team0.doubled_fours == 30 + 10
    assert team0 == TeamScore(laid=40, doubled_fours=0, in_hand=0, going_out=25)


def test_fourth_laid_off_in_the_same_turn_is_not_at_once_R7_4() -> None:
    """R7.4: three laid down then one laid off, even in one turn, is not "at once"."""
    game = position(["Jc Jd Jh Js", "", "", ""], phase="meld")
    game.apply(meld("Jc Jd Jh"))
    game.apply(LayOff(0, c("Js")))
    assert score(game, 0) == TeamScore(laid=40, doubled_fours=0, in_hand=0, going_out=25)


def test_four_jokers_at_once_score_160_R7_4() -> None:
    """R7.4: four Jokers laid down at once score 160."""
    game = position(["Jk Jk2 Jk3 Jk4", "", "", ""], phase="meld")
    game.apply(meld("Jk Jk2 Jk3 Jk4"))
    team0 = score(game, 0)
    assert team0.laid + team0.doubled_fours == 160
    assert team0 == TeamScore(laid=80, doubled_fours=80, in_hand=0, going_out=25)


def test_three_jokers_and_the_fourth_later_score_80_R7_4() -> None:
    """R7.4: the same holds for Jokers: three, then the fourth laid off: 60 + 20."""
    game = position(["Jk Jk2 Jk3 Jk4", "", "", ""], phase="meld")
    game.apply(meld("Jk Jk2 Jk3"))
    game.apply(LayOff(0, c("Jk4")))
    assert score(game, 0).laid == 80 and score(game, 0).doubled_fours == 0


def test_four_at_once_through_a_target_use_R7_4() -> None:
    """R7.4: four of a kind laid as one new meld with a taken target card is doubled."""
    game = position(["Qc Qd Qh", "", "", ""], discard="Qs")
    game.apply(take(0, "Qc Qd Qh Qs"))
    assert game.melds[0].four_at_once
    assert score(game, 0) == TeamScore(laid=40, doubled_fours=40, in_hand=0, going_out=25)


def test_only_that_meld_and_that_team_are_doubled_R7_4() -> None:
    """R7.4 ruling: only the four cards of the meld laid at once are doubled, and only
    for the team that laid them; an opponent's fourth card on a set of three is not."""
    game = position(
        ["5c 5d 5h 5s 9h 10h Jh 2c", "Kh 3c", "4c 4h", ""],
        phase="meld",
        melds=[("Kc Kd Ks", 0)],
        stock="4d",
    )
    game.apply(meld("5c 5d 5h 5s"))
    game.apply(meld("9h 10h Jh"))
    game.apply(Discard(c("2c")))
    game.apply(DrawStock())  # seat 1 draws 4d
    game.apply(LayOff(0, c("Kh")))  # the fourth King, on seat 0's set, by an opponent
    game.apply(Discard(c("4d")))
    game.apply(take(len(game.discard_pile) - 1, "4c 4d 4h"))  # seat 2 goes out
    assert not game.melds[0].four_at_once and game.melds[1].four_at_once
    team0, team1 = score(game, 0), score(game, 1)
    assert team0 == TeamScore(laid=30 + 20 + 29 + 12, doubled_fours=20, in_hand=0, going_out=25)
    assert team1 == TeamScore(laid=10, doubled_fours=0, in_hand=-3, going_out=0)


def test_cards_laid_score_for_the_team_that_laid_them_R7_1() -> None:
    """R7.1 with R5.5: every card a team laid scores for it, lay-offs on the other
    team's melds included."""
    game = position(
        ["Ah 2c", "2d 2h", "", ""],
        phase="meld",
        melds=[("10h Jh Qh Kh", 1), ("7d 8d 9d", 2, [2, 0, 2])],
    )
    game.apply(LayOff(0, c("Ah")))  # on the other team's run
    game.apply(Discard(c("2c")))
    game.apply(take(len(game.discard_pile) - 1, "2c 2d 2h"))  # seat 1 goes out
    team0, team1 = score(game, 0), score(game, 1)
    assert team0.laid == 15 + 7 + 8 + 9  # the Ace on seat 1's run, and the whole 7-8-9
    assert team1.laid == 10 + 10 + 10 + 10 + 2 + 2 + 2  # 10 J Q K and the three 2s
    assert (team0.going_out, team1.going_out) == (0, 25)


def test_cards_in_hand_count_against_the_team_R7_2() -> None:
    """R7.2: minus the points of every card left in the team's two hands."""
    game = position(["7c 7d 7h", "Jk 2c", "As 10d", "Kd"], phase="meld")
    game.apply(meld("7c 7d 7h"))
    assert score(game, 0).in_hand == -(15 + 10)
    assert score(game, 1).in_hand == -(20 + 2 + 10)
    assert game.results[0].hands == ((), tuple(cards("Jk 2c")), tuple(cards("As 10d")), tuple(cards("Kd")))


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_going_out_bonus_25_R7_3(seat: int) -> None:
    """R7.3: plus 25 for the team whose player went out, whichever partner it was."""
    hands = ["", "", "", ""]
    hands[seat] = "7c 7d 7h"
    game = position(hands, phase="meld", current=seat)
    game.apply(meld("7c 7d 7h"))
    assert score(game, seat % 2).going_out == 25
    assert score(game, 1 - seat % 2).going_out == 0
    assert score(game, seat % 2).total == 21 + 25


def test_deal_score_may_be_negative_and_deals_add_up_R7_5() -> None:
    """R7.5: a deal's score may be negative; the game's totals add up both deals."""
    game = position(["7c 7d 7h", "Jk Jk2 As", "", "Kd"], phase="meld", deal=2)
    game.results = [first_deal(TeamScore(30, 0, -12, 0), TeamScore(5, 0, -40, 0))]
    events = game.apply(meld("7c 7d 7h"))
    team1 = score(game, 1)
    assert team1.total == -(20 + 20 + 15 + 10) < 0
    assert game.totals() == (18 + 46, -35 + team1.total)
    ended = events[-1]
    assert isinstance(ended, GameEnded) and ended.totals == game.totals()


def test_random_games_total_the_deals_R7_5() -> None:
    """R7.5: over whole games the totals are the sums of the deal totals."""
    for seed in range(5):
        game = Game(seed)
        rng = random.Random(seed)
        play_until(game, at_random(rng))
        assert len(game.results) == 2
        for team in (0, 1):
            assert game.totals()[team] == sum(r.scores[team].total for r in game.results)


def _second_deal(first_team0: int, first_team1: int) -> tuple[Game, list[object]]:
    """A second deal that seat 0 ends by going out: team 0 scores 21 + 25 = 46 in it,
    team 1 scores -5 (2c and 3c in hand)."""
    game = position(["7c 7d 7h", "2c", "", "3c"], phase="meld", deal=2)
    game.results = [first_deal(TeamScore(first_team0, 0, 0, 0), TeamScore(first_team1, 0, 0, 0))]
    events = game.apply(meld("7c 7d 7h"))
    return game, list(events)


@pytest.mark.parametrize(("first0", "first1", "winner"), [(0, 50, 0), (0, 52, 1), (-100, -48, 1)])
def test_higher_total_wins_after_the_second_deal_R8_1(first0: int, first1: int, winner: int) -> None:
    """R8.1: after the second deal the team with the higher total wins."""
    game, events = _second_deal(first0, first1)
    assert game.is_over and game.winner() == winner
    assert events[-2:] == [DealEnded(game.results[1]), GameEnded(game.totals(), winner)]


def test_equal_totals_are_a_tie_R8_2() -> None:
    """R8.2 ruling: equal totals are a tie (winner None); no further deal is played."""
    game, events = _second_deal(0, 51)
    assert game.totals() == (46, 46)
    assert game.is_over and game.winner() is None
    assert events[-1] == GameEnded((46, 46), None)
    assert game.legal_moves() == []
    with pytest.raises(IllegalMove) as error:
        game.apply(NextDeal())
    assert error.value.code == "game-over"


def test_no_winner_before_the_game_ends_R8_1() -> None:
    """R8.1: the winner is only decided after the second deal: asking before is an
    error, never taken for a tie (R8.2)."""
    game = position(["7c 7d 7h", "2c", "", "3c"], phase="meld")
    game.apply(meld("7c 7d 7h"))
    assert game.phase == "deal_over"
    with pytest.raises(ValueError, match="not over"):
        game.winner()
    with pytest.raises(ValueError, match="not over"):
        view_for(game, 0).winner()


def test_breakdown_matches_a_recount_R7_1_R7_2() -> None:
    """R7.1-R7.3: a hand-built end of deal, recounted card by card with the oracle."""
    game = position(
        ["9s 9c 9d", "Qh", "Jk 5d", "As 2h"],
        phase="meld",
        melds=[("4c 5c 6c 7c", 1, [1, 1, 0, 3]), ("Jk2 Jk3 Jk4", 2)],
    )
    game.apply(meld("9s 9c 9d"))
    laid0 = sum(card_points(x) for x in cards("6c 9s 9c 9d Jk2 Jk3 Jk4"))
    laid1 = sum(card_points(x) for x in cards("4c 5c 7c"))
    assert score(game, 0) == TeamScore(laid0, 0, -(20 + 5), 25)
    assert score(game, 1) == TeamScore(laid1, 0, -(10 + 15 + 2), 0)
