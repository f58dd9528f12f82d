"""When the stock is empty: take or pass; four passes end the deal (RULES R6)."""

from __future__ import annotations

import pytest

from rummy.engine import (
    DealEnded,
    Discard,
    DrawStock,
    Game,
    IllegalMove,
    NextDeal,
    Pass,
    Passed,
    TakeDiscard,
)
from rummy.engine.positions import c, position, take


def empty_stock(hands: list[str], discard: str = "", current: int = 0) -> Game:
    """A position whose stock is empty: every card not in a hand lies in the pile,
    with ``discard`` on top."""
    return position(hands, discard=discard, rest_to="discard", current=current)


def test_empty_stock_allows_only_take_or_pass_R6_1() -> None:
    """R6.1: with the stock empty the player may only take from the discard pile (with
    the target melded) or pass; drawing from the stock is refused."""
    game = empty_stock(["7c 7d 2s", "3s", "4s", "5s"], discard="7h")
    assert game.stock == []
    moves = game.legal_moves()
    assert Pass() in moves and DrawStock() not in moves
    assert take(len(game.discard_pile) - 1, "7c 7d 7h") in moves
    assert {type(m) for m in moves} == {Pass, TakeDiscard}
    before = game.snapshot()
    with pytest.raises(IllegalMove) as error:
        game.apply(DrawStock())
    assert error.value.code == "stock-empty"
    assert game.snapshot() == before


def test_pass_ends_the_turn_with_nothing_else_R6_1() -> None:
    """R6.1 ruling: a pass ends the turn with no draw, no meld and no discard."""
    game = empty_stock(["7c 7d 2s", "3s", "4s", "5s"], discard="7h")
    hands = [list(h) for h in game.hands]
    pile = list(game.discard_pile)
    events = game.apply(Pass())
    assert events == [Passed(0, 1)]
    assert game.hands == hands and game.discard_pile == pile and game.melds == []
    assert game.current == 1 and game.phase == "draw"


def test_no_pass_while_the_stock_holds_cards_R6_1() -> None:
    """R6.1: passing is only for an empty stock."""
    game = position(["2c", "", "", ""])
    with pytest.raises(IllegalMove) as error:
        game.apply(Pass())
    assert error.value.code == "stock-not-empty"


def test_stock_emptied_during_a_turn_is_empty_at_the_next_R6_1() -> None:
    """R6.1: the player who draws the last stock card plays on; the next player finds
    the stock empty and may only take or pass."""
    game = position(["2c", "3c", "", ""], stock="Kd", rest_to="discard")
    assert len(game.stock) == 1
    game.apply(DrawStock())
    game.apply(Discard(c("2c")))
    assert game.current == 1 and game.stock == []
    assert DrawStock() not in game.legal_moves() and Pass() in game.legal_moves()


def test_taking_with_an_empty_stock_R6_1() -> None:
    """R6.1: with the stock empty a take from the pile is the one way to draw."""
    game = empty_stock(["7c 7d 2s", "3s", "4s", "5s"], discard="7h")
    game.apply(take(len(game.discard_pile) - 1, "7c 7d 7h"))
    assert game.phase == "meld" and game.hands[0] == [c("2s")]


def test_four_passes_in_a_row_end_the_deal_without_bonus_R6_2() -> None:
    """R6.2 ruling: with the stock empty, four turns passed in a row end the deal; no
    team gets the going-out bonus (R7.3)."""
    game = empty_stock(["2c", "3c", "4c", "5c"])
    for n in range(1, 4):
        events = game.apply(Pass())
        assert events == [Passed(n - 1, n)] and game.phase == "draw"
    events = game.apply(Pass())
    assert events[0] == Passed(3, 4) and isinstance(events[1], DealEnded)
    result = game.results[0]
    assert result.ended_by == "passes" and result.went_out is None
    assert [s.going_out for s in result.scores] == [0, 0]
    assert game.phase == "deal_over"


def test_a_take_breaks_the_row_of_passes_R6_2() -> None:
    """R6.2: the passes must be four in a row: a take starts the count again."""
    game = empty_stock(["2c", "7c 7d 9s", "4c", "5c"], discard="7h", current=0)
    game.apply(Pass())
    game.apply(take(len(game.discard_pile) - 1, "7c 7d 7h"))
    assert game.passes == 0
    game.apply(Discard(c("9s")))
    for _ in range(3):
        game.apply(Pass())
    assert game.phase == "draw" and game.passes == 3 and game.results == []
    game.apply(Pass())
    assert game.results[0].ended_by == "passes" and game.legal_moves() == [NextDeal()]
