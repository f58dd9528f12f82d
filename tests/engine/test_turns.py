"""A turn: draw, meld, discard; going out; an empty hand (RULES R4)."""

from __future__ import annotations

from itertools import combinations

import pytest

from rummy.engine import (
    DealEnded,
    Discard,
    Discarded,
    DiscardTaken,
    DrawStock,
    Game,
    GameEnded,
    IllegalMove,
    LaidOff,
    LayOff,
    Melded,
    Move,
    NewMeld,
    StockDrawn,
    TakeDiscard,
    WentOut,
    view_for,
)
from rummy.engine.positions import MeldSpec, c, cards, meld, position, take
from rummy.engine.scoring import DealResult, TeamScore

from .oracle import is_meld, melds_within


def refused(game: Game, move: Move, code: str) -> IllegalMove:
    """Apply a move that must be refused with ``code``; check that nothing changed."""
    before = game.snapshot()
    with pytest.raises(IllegalMove) as error:
        game.apply(move)
    assert error.value.code == code
    assert game.snapshot() == before
    return error.value


# --- R4.1: the draw ----------------------------------------------------------------


def test_draw_the_top_card_of_the_stock_R4_1() -> None:
    """R4.1: drawing from the stock takes its top card into the hand."""
    game = position(["2c 3d", "", "", ""], stock="Kh")
    stock_before = len(game.stock)
    events = game.apply(DrawStock())
    assert game.hands[0] == cards("2c 3d Kh")
    assert len(game.stock) == stock_before - 1 and c("Kh") not in game.stock
    assert game.phase == "meld" and game.current == 0
    assert events == [StockDrawn(0)]


def test_take_the_top_card_into_a_new_meld_R4_1() -> None:
    """R4.1: the top card of the discard pile, melded at once with cards of the hand."""
    game = position(["7c 7d 2s", "", "", ""], discard="4h 7h")
    move = take(1, "7c 7d 7h")
    assert move in game.legal_moves()
    events = game.apply(move)
    assert game.discard_pile == cards("4h")
    assert game.hands[0] == cards("2s")
    assert [(m.cards, m.owners) for m in game.melds] == [(cards("7c 7d 7h"), [0, 0, 0])]
    assert events == [DiscardTaken(0, 1, (c("7h"),)), Melded(0, 0, tuple(cards("7c 7d 7h")), False)]
    assert game.phase == "meld"  # the turn goes on: meld more, then discard


def test_take_a_deep_card_with_every_card_above_it_R4_1() -> None:
    """R4.1: any card of the pile may be taken with every card above it; the deepest
    (the target card) is melded at once, the others go to the hand."""
    game = position(["7c 7d 2h", "", "", ""], discard="9c 7h 3c 4s Kd")
    events = game.apply(take(1, "7c 7d 7h"))
    assert game.discard_pile == cards("9c")
    assert sorted(game.hands[0]) == sorted(cards("2h 3c 4s Kd"))
    assert game.melds[0].cards == cards("7c 7d 7h")
    assert events[0] == DiscardTaken(0, 1, tuple(cards("7h 3c 4s Kd")))  # the target first


def test_use_combines_hand_and_taken_cards_R4_1() -> None:
    """R4.1 ruling: the target's use may combine hand cards and the other cards taken."""
    game = position(["10h Qc", "", "", ""], discard="8h 2c 9h 5s")
    move = take(0, "8h 9h 10h")  # 9h comes from the pile, 10h from the hand
    assert move in game.legal_moves()
    game.apply(move)
    assert game.melds[0].cards == cards("8h 9h 10h")
    assert sorted(game.hands[0]) == sorted(cards("Qc 2c 5s"))


def test_use_may_be_made_of_taken_cards_only_R4_1() -> None:
    """R4.1: the cards taken alone may make the target's meld."""
    game = position(["Kc", "", "", ""], discard="5d 6d 7d")
    assert take(0, "5d 6d 7d") in game.legal_moves()
    game.apply(take(0, "5d 6d 7d"))
    assert game.hands[0] == cards("Kc") and game.discard_pile == []


def test_target_laid_off_on_a_meld_R4_1() -> None:
    """R4.1: the target card may be laid off on a meld on the table instead (R5)."""
    game = position(["2c", "", "", ""], discard="7s", melds=[("4s 5s 6s", 1)])
    move = take(0, "7s", meld_id=0)
    assert move in game.legal_moves()
    events = game.apply(move)
    assert game.melds[0].cards == cards("4s 5s 6s 7s")
    assert game.melds[0].owners == [1, 1, 1, 0]
    assert events[1] == LaidOff(0, 0, (c("7s"),), 1)


@pytest.mark.parametrize(
    ("run", "pile", "hand", "use", "after"),
    [
        ("4s 5s 6s", "9s", "7s 8s", "7s 8s 9s", "4s 5s 6s 7s 8s 9s"),
        ("8s 9s 10s", "5s", "6s 7s", "5s 6s 7s", "5s 6s 7s 8s 9s 10s"),
    ],
)
def test_target_laid_off_with_bridging_cards_R4_1(
    run: str, pile: str, hand: str, use: str, after: str
) -> None:
    """R4.1: the use may lay off the target on a run together with hand cards that
    bridge the gap between the run's end and the target, at either end."""
    game = position([hand + " 2c", "", "", ""], discard=pile, melds=[(run, 1)])
    move = take(0, use, meld_id=0)
    assert move in game.legal_moves()
    assert take(0, use) in game.legal_moves()  # or as a new meld of its own
    game.apply(move)
    assert game.melds[0].cards == cards(after)
    assert is_meld(game.melds[0].cards)
    assert game.hands[0] == cards("2c")


def test_no_take_without_a_use_of_the_target_R4_1() -> None:
    """R4.1 ruling: taking is legal only together with a legal use of the target card;
    a take whose target cannot be used is refused and changes nothing."""
    game = position(["2c 3c", "", "", ""], discard="Kd 7h")
    assert not [m for m in game.legal_moves() if isinstance(m, TakeDiscard)]
    refused(game, take(1, "7h"), "not-a-meld")
    refused(game, take(0, "Kd 7h 2c"), "not-a-meld")
    refused(game, take(1, "2c 3c 4c"), "target-not-used")
    refused(game, take(1, "7h 7c 7d"), "no-such-card")
    refused(game, take(2, "7h"), "bad-index")
    refused(game, take(1, "7h", meld_id=0), "no-such-meld")


def test_cards_below_the_target_are_not_available_R4_1() -> None:
    """R4.1: only the target and the cards above it are taken: a card below the
    target cannot be part of its use."""
    game = position(["9h", "", "", ""], discard="7h 8h 2c")
    # 8h is the target at index 1; 7h lies below it and stays in the pile.
    refused(game, take(1, "7h 8h 9h"), "no-such-card")
    assert take(0, "7h 8h 9h") in game.legal_moves()


def test_every_legal_take_leaves_its_target_on_the_table_R4_1() -> None:
    """R4.1 ruling: no state exists in which the target card was taken and not used."""
    game = position(
        ["5h 6h 9c 9d Jk 2s", "", "", ""],
        discard="7h 9s Jk2 4h 8h Jk3 3h",
        melds=[("10h Jh Qh", 1), ("Ks Kc Kd", 3)],
    )
    takes = [m for m in game.legal_moves() if isinstance(m, TakeDiscard)]
    assert len(takes) > 10
    for move in takes:
        trial = game.clone()
        target = trial.discard_pile[move.index]
        trial.apply(move)
        assert any(target in m.cards for m in trial.melds)
        assert target not in trial.hands[0] and target not in trial.discard_pile


def _expected_takes(game_hand: list[int], pile: list[int], melds: list[list[int]]) -> set[TakeDiscard]:
    """Every take with each legal use (R4.1), by brute force: for each pile index,
    every meld of the available cards holding the target; for each meld on the table,
    the fewest available cards that let the target join it."""
    expected: set[TakeDiscard] = set()
    for index, target in enumerate(pile):
        available = set(game_hand) | set(pile[index:])
        for new in melds_within(available, must_hold=target):
            expected.add(TakeDiscard(index, new, None))
        others = sorted(available - {target})
        for meld_id, table in enumerate(melds):
            for size in range(len(others) + 1):
                found = [combo for combo in combinations(others, size) if is_meld([*table, *combo, target])]
                if found:
                    for combo in found:
                        expected.add(TakeDiscard(index, tuple(sorted((*combo, target))), meld_id))
                    break
    return expected


def test_legal_moves_list_every_take_and_use_R4_1() -> None:
    """R4.1: legal_moves lists every take from the pile together with each legal use of
    its target card, checked against a brute-force search."""
    hand = cards("5h 6h 9c 9d Jk 2s Qs")
    pile = cards("7h 9s Jk2 4h 8h Jk3 3h")
    table: list[MeldSpec] = [("10h Jh Qh", 1), ("Ks Kc Kd", 3), ("2d 3d 4d", 0)]
    game = position([hand, "", "", ""], discard=pile, melds=table)
    got = {m for m in game.legal_moves() if isinstance(m, TakeDiscard)}
    assert got == _expected_takes(hand, pile, [m.cards for m in game.melds])


# --- R4.2: melding ----------------------------------------------------------------


def test_meld_and_lay_off_any_number_in_one_turn_R4_2() -> None:
    """R4.2: after drawing, any number of new melds and lay-offs, then the discard."""
    hand = "5c 5d 5h 9s 10s Js Qs 2d Kh"
    game = position([hand, "", "", ""], phase="meld", melds=[("Kc Kd Ks", 1)])
    game.apply(meld("5c 5d 5h"))
    game.apply(meld("9s 10s Js"))
    game.apply(LayOff(0, c("Kh")))
    game.apply(LayOff(2, c("Qs")))
    assert game.phase == "meld" and game.current == 0
    assert [m.cards for m in game.melds] == [
        cards("Kc Kd Ks Kh"),
        cards("5c 5d 5h"),
        cards("9s 10s Js Qs"),
    ]
    game.apply(Discard(c("2d")))
    assert game.hands[0] == [] and game.current == 1
    assert view_for(game, None).phase == "draw"


def test_legal_moves_list_every_meld_and_lay_off_R4_2() -> None:
    """R4.2: in the meld phase legal_moves lists every new meld of the hand (checked by
    brute force), every lay-off of a hand card that fits a meld, and every discard."""
    hand = cards("5c 5d 5h 5s 6s 7s 8s Jk Jk2 Jk3 Ah")
    game = position([hand, "", "", ""], phase="meld", melds=[("Kh Qh Jh", 1), ("9s 10s Js", 2)])
    moves = game.legal_moves()
    melds = {m.cards for m in moves if isinstance(m, NewMeld)}
    assert melds == melds_within(hand)
    lay_offs = {(m.meld_id, m.card) for m in moves if isinstance(m, LayOff)}
    assert lay_offs == {(0, c("Ah")), (1, c("8s"))}
    assert {m.card for m in moves if isinstance(m, Discard)} == set(hand)
    assert len(moves) == len(melds) + len(lay_offs) + len(hand)


def test_no_melding_before_drawing_R4_2() -> None:
    """R4.2: melding comes after the draw."""
    game = position(["5c 5d 5h 2c", "", "", ""])
    refused(game, meld("5c 5d 5h"), "wrong-phase")


def test_meld_refusals_R4_2() -> None:
    """R4.2: a meld of cards not held, or cards that make no meld, is refused."""
    game = position(["5c 5d 5h 6h 2c", "", "", ""], phase="meld", melds=[("Kc Kd Ks", 1)])
    refused(game, meld("5c 5d 5s"), "card-not-in-hand")
    refused(game, meld("5c 5d 6h"), "not-a-meld")
    refused(game, meld("5c 5d"), "not-a-meld")
    refused(game, LayOff(0, c("2c")), "cannot-lay-off")
    refused(game, LayOff(7, c("2c")), "no-such-meld")
    refused(game, LayOff(0, c("Kh")), "card-not-in-hand")


# --- R4.3: the discard --------------------------------------------------------------


def test_discard_ends_the_turn_on_a_spread_pile_R4_3() -> None:
    """R4.3: a discard goes face up on the pile and ends the turn; the whole pile, in
    order, is in everyone's view."""
    game = position(["2c 3c", "4d", "5h", "6s"], phase="meld", discard="9d Qh")
    events = game.apply(Discard(c("3c")))
    assert events == [Discarded(0, c("3c"))]
    assert game.discard_pile == cards("9d Qh 3c")
    assert game.current == 1 and game.phase == "draw"
    for seat in (0, 1, 2, 3, None):
        assert view_for(game, seat).discard_pile == tuple(cards("9d Qh 3c"))


def test_discard_a_card_just_drawn_or_taken_R4_3() -> None:
    """R4.3 ruling: any card of the hand may be discarded, also one just taken."""
    game = position(["2c", "", "", ""], stock="Qd")
    game.apply(DrawStock())
    game.apply(Discard(c("Qd")))
    assert game.discard_pile[-1] == c("Qd")
    game = position(["7c 7d 9s", "", "", ""], discard="7h 3c")
    game.apply(take(0, "7c 7d 7h"))
    assert Discard(c("3c")) in game.legal_moves()
    game.apply(Discard(c("3c")))
    assert game.discard_pile == cards("3c")


def test_discard_refusals_R4_3() -> None:
    """R4.3: one discards only a card of one's hand, and only after drawing."""
    game = position(["2c 3c", "", "", ""])
    refused(game, Discard(c("2c")), "wrong-phase")
    game.apply(DrawStock())
    refused(game, Discard(c("4c")), "card-not-in-hand")


# --- R4.4: going out ----------------------------------------------------------------


def _check_out(game_events: list[object], game: Game, seat: int) -> None:
    assert game.phase == "deal_over"
    result = game.results[-1]
    assert result.ended_by == "out" and result.went_out == seat
    assert game.hands[seat] == []
    kinds = [type(e) for e in game_events]
    assert WentOut in kinds and kinds[-1] is DealEnded
    assert Discarded not in kinds  # the deal ends at once, without a discard


def test_going_out_by_melding_R4_4() -> None:
    """R4.4: a hand emptied by a new meld goes out; the deal ends at once."""
    game = position(["7c 7d 7h", "2c", "3c", "4c"], phase="meld")
    events = game.apply(meld("7c 7d 7h"))
    _check_out(list(events), game, 0)
    assert game.legal_moves() != [] and game.current == (game.dealer + 1) % 4


def test_going_out_by_laying_off_R4_4() -> None:
    """R4.4: a hand emptied by a lay-off goes out."""
    game = position(["", "Kh", "3c", "4c"], current=1, phase="meld", melds=[("Kc Kd Ks", 0)])
    events = game.apply(LayOff(0, c("Kh")))
    _check_out(list(events), game, 1)


def test_going_out_by_the_target_cards_use_R4_4() -> None:
    """R4.4: a hand emptied by the use of a target card (R4.1) goes out at once."""
    game = position(["2c", "", "7c 7d", "4c"], current=2, discard="5s 7h")
    events = game.apply(take(1, "7c 7d 7h"))
    _check_out(list(events), game, 2)
    assert game.discard_pile == cards("5s")


def test_going_out_with_every_card_taken_R4_4() -> None:
    """R4.4: an empty hand taking three cards that make the target's meld goes out."""
    game = position(["", "", "", "9c"], current=0, discard="Jd Qd Kd")
    events = game.apply(take(0, "Jd Qd Kd"))
    _check_out(list(events), game, 0)


def test_going_out_in_the_second_deal_ends_the_game_R4_4() -> None:
    """R4.4 with R3.1: going out in the second deal ends the game."""
    game = position(["7c 7d 7h", "2c", "3c", "4c"], phase="meld", deal=2)
    game.results = [DealResult(1, "passes", None, ((), (), (), ()), (TeamScore(0, 0, 0, 0),) * 2)]
    events = game.apply(meld("7c 7d 7h"))
    assert game.phase == "game_over" and game.is_over
    assert isinstance(events[-1], GameEnded)


# --- R4.5: an empty hand after discarding ---------------------------------------------


def test_discarding_the_last_card_does_not_end_the_deal_R4_5() -> None:
    """R4.5: discarding one's last card leaves an empty hand; the deal goes on; at
    their next turn that player draws as usual and may go out by melding it."""
    game = position(
        ["9d", "2c 3c", "2d 3d", "2h 3h"],
        phase="meld",
        melds=[("10d Jd Qd", 2)],
        stock="Kd 4s 5s 6s",  # drawn in turn by seats 1, 2, 3, then 0 draws Kd
    )
    events = game.apply(Discard(c("9d")))
    assert game.hands[0] == [] and game.phase == "draw" and game.current == 1
    assert game.results == [] and not any(isinstance(e, WentOut) for e in events)
    for seat in (1, 2, 3):
        game.apply(DrawStock())
        game.apply(Discard(game.hands[seat][0]))
    assert game.current == 0 and DrawStock() in game.legal_moves()
    game.apply(DrawStock())
    assert game.hands[0] == cards("Kd")
    events = game.apply(LayOff(0, c("Kd")))
    _check_out(list(events), game, 0)


def test_empty_hand_may_take_from_the_pile_R4_5() -> None:
    """R4.5 with R4.1: an empty hand may take from the pile when the cards taken make
    the target's use; the rest of them go to the hand."""
    game = position(["", "", "", ""], discard="4c 5c 6c Qh")
    assert take(0, "4c 5c 6c") in game.legal_moves()
    game.apply(take(0, "4c 5c 6c"))
    assert game.hands[0] == cards("Qh") and game.phase == "meld"


def test_a_clone_and_its_game_lay_off_on_their_own_melds() -> None:
    """Game.clone shares the melds until one of the two lays off (copy on write): a
    lay-off, with a take or from the hand, shows on the game that made it only."""
    game = position(
        ["5h 9c Kd 2s", "8c", "", ""],
        discard="4s 6h",
        melds=[("2h 3h 4h", 1), ("9d 9h 9s", 3)],
    )
    before = game.snapshot()
    trial = game.clone()
    trial.apply(take(1, "5h 6h", 0))  # the 6h, with the 5h bridging the gap
    trial.apply(LayOff(1, c("9c")))
    assert [m.cards for m in trial.melds] == [cards("2h 3h 4h 5h 6h"), cards("9d 9h 9s 9c")]
    assert game.snapshot() == before
    other = game.clone()
    game.apply(DrawStock())
    game.apply(LayOff(0, c("5h")))
    assert game.melds[0].cards == cards("2h 3h 4h 5h")
    assert [m.cards for m in other.melds] == [cards("2h 3h 4h"), cards("9d 9h 9s")]
    assert [m.cards for m in trial.melds] == [cards("2h 3h 4h 5h 6h"), cards("9d 9h 9s 9c")]
