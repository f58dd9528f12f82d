"""Moves as text, refusals with stable codes, saved games (their wire forms: tests/protocol)."""

from __future__ import annotations

import pickle
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rummy.engine import (
    CODES,
    Discard,
    DrawStock,
    Game,
    GameRecord,
    IllegalMove,
    LayOff,
    Melded,
    Move,
    NewMeld,
    NextDeal,
    Pass,
    TakeDiscard,
    card_text,
    move_text,
    parse_move,
    view_for,
)
from rummy.engine.positions import c, cards, meld, position, take

EXAMPLES: list[tuple[Move, str]] = [
    (DrawStock(), "draw"),
    (take(3, "7h 8h 9h"), "take 3 meld 7h 8h 9h"),
    (take(0, "Qs", meld_id=2), "take 0 layoff 2 Qs"),
    (take(1, "Jk Jk2 Jk4"), "take 1 meld Jk Jk2 Jk4"),
    (meld("5c 5d 5h"), "meld 5c 5d 5h"),
    (meld("10d Jd Qd Kd Ad"), "meld 10d Jd Qd Kd Ad"),
    (LayOff(2, c("Qs")), "layoff 2 Qs"),
    (LayOff(0, c("Jk3")), "layoff 0 Jk3"),
    (Discard(c("Jk")), "discard Jk"),
    (Pass(), "pass"),
    (NextDeal(), "next"),
]


@pytest.mark.parametrize(("move", "text"), EXAMPLES)
def test_move_text_round_trip(move: Move, text: str) -> None:
    assert move_text(move) == text
    assert parse_move(text) == move


def test_every_legal_move_of_whole_games_round_trips() -> None:
    """Every legal move met in whole games survives the text round trip."""
    for seed in range(3):
        game = Game(seed)
        rng = random.Random(seed)
        while not game.is_over:
            moves = game.legal_moves()
            for move in moves:
                assert parse_move(move_text(move)) == move
            game.apply(rng.choice(moves))


def test_parse_move_is_lenient_on_case_and_suits() -> None:
    assert parse_move("DRAW") == DrawStock()
    assert parse_move("discard 10♥") == Discard(c("10h"))
    assert parse_move("take 2 meld 9h, 10h, Jh") == take(2, "9h 10h Jh")


@pytest.mark.parametrize(
    "text",
    [
        *["", "fly", "draw 2", "discard", "discard ,", "discard 7h 8h", "layoff x 7h", "layoff 2 ,"],
        *["take 3", "take 3 meld", "take x meld 7h", "take 3 layoff 2", "take 3 swap 7h", "meld 7h 8x"],
        "pass now",
    ],
)
def test_bad_move_text_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_move(text)


@given(st.text(alphabet=st.sampled_from(list("takemldrwpsynxoif 0123456789,JkQKAhcds♥♠-")), max_size=30))
def test_parse_move_never_crashes(text: str) -> None:
    """Any text is a move or a ValueError, nothing else."""
    try:
        move = parse_move(text)
    except ValueError:
        return
    assert move_text(move)


# --- refusals --------------------------------------------------------------------------


def _finished() -> Game:
    game = position(["7c 7d 7h", "", "", ""], phase="meld", deal=2)
    game.apply(meld("7c 7d 7h"))
    return game


def _empty_stock() -> Game:
    return position(["2c", "", "", ""], rest_to="discard")


REFUSALS: list[tuple[str, Any, Any, str]] = [
    # (code, position builder, move, a word the sentence must hold)
    ("game-over", _finished, NextDeal(), "over"),
    ("wrong-phase", lambda: position(["2c", "", "", ""]), Discard(c("2c")), "drawing"),
    ("bad-move", lambda: position(["2c", "", "", ""]), Discard(99), "card"),
    ("bad-move", lambda: position(["2c", "", "", ""]), "draw", "move"),
    ("stock-empty", _empty_stock, DrawStock(), "stock"),
    ("stock-not-empty", lambda: position(["2c", "", "", ""]), Pass(), "stock"),
    ("no-such-card", lambda: position(["2c", "", "", ""], discard="7h"), take(0, "7c 7d 7h"), "7♣"),
    ("bad-index", lambda: position(["7c 7d", "", "", ""], discard="7h"), take(1, "7c 7d 7h"), "discard pile"),
    ("target-not-used", lambda: position(["2c", "", "", ""], discard="Kh 7h"), take(0, "7h"), "K♥"),
    ("not-a-meld", lambda: position(["7c 7d 2c", "", "", ""], phase="meld"), meld("7c 7d 2c"), "meld"),
    ("no-such-meld", lambda: position(["2c", "", "", ""], phase="meld"), LayOff(3, c("2c")), "meld"),
    (
        "cannot-lay-off",
        lambda: position(["2c", "", "", ""], phase="meld", melds=[("Kc Kd Ks", 1)]),
        LayOff(0, c("2c")),
        "2♣",
    ),
    ("card-not-in-hand", lambda: position(["2c", "", "", ""], phase="meld"), Discard(c("Ah")), "A♥"),
]


@pytest.mark.parametrize(("code", "build", "move", "word"), REFUSALS)
def test_refusals_have_stable_codes_and_readable_sentences(
    code: str, build: Any, move: Any, word: str
) -> None:
    """An illegal move raises IllegalMove with its code and a sentence a player can read
    (cards named by their faces, never by ids); the game is unchanged."""
    game: Game = build()
    before = game.snapshot()
    with pytest.raises(IllegalMove) as error:
        game.apply(move)
    refusal = error.value
    assert refusal.code == code
    assert game.snapshot() == before
    assert refusal.message[0].isupper() and refusal.message.endswith(".")
    assert word in refusal.message
    assert code not in refusal.message and str(refusal) == refusal.message
    assert repr(refusal) == f"IllegalMove({code!r}, {refusal.message!r})"


def test_not_your_turn_names_the_seat_to_act() -> None:
    game = position(["2c", "", "", ""], current=2)
    with pytest.raises(IllegalMove) as error:
        game.apply(DrawStock(), seat=0)
    assert error.value.code == "not-your-turn"
    assert error.value.message == "It is North's turn."


def test_every_code_is_exercised() -> None:
    """Each code in CODES has a refusal above, so none can go untested."""
    assert {r[0] for r in REFUSALS} | {"not-your-turn"} == set(CODES)


def test_refusals_survive_pickling() -> None:
    refusal = IllegalMove("not-a-meld", "Those cards do not make a meld.")
    back = pickle.loads(pickle.dumps(refusal))
    assert (back.code, back.message, str(back)) == (refusal.code, refusal.message, refusal.message)


def test_refusal_messages_name_cards_in_text() -> None:
    game = position(["2c", "", "", ""], phase="meld")
    with pytest.raises(IllegalMove) as error:
        game.apply(Discard(c("10h")))
    assert error.value.message == f"You do not hold the {card_text(c('10h'))}."


# --- saved games -------------------------------------------------------------------------


def test_replaying_an_illegal_record_raises() -> None:
    record = GameRecord(5, "draw", (Pass(),))
    with pytest.raises(IllegalMove):
        Game.replay(record)


def test_cards_of_examples_are_sorted_as_legal_moves_list_them() -> None:
    assert take(3, "9h 7h 8h").cards == tuple(cards("7h 8h 9h"))
    assert NewMeld(tuple(cards("7h 8h 9h"))) == meld("9h 8h 7h")
    assert TakeDiscard(0, (1, 2, 3)).meld_id is None


# --- the wrong kind of argument ------------------------------------------------------


def test_wrong_kinds_of_argument_get_clear_errors() -> None:
    """A bool is no seat, a list is no tuple of cards, a string is no seed: each is
    refused with a sentence that says what was expected, never coerced."""
    game = position(["7c 7d 7h 2c", "", "", ""], phase="meld")
    with pytest.raises(TypeError, match="seat"):
        view_for(game, True)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Game"):
        view_for("a game", 0)  # type: ignore[arg-type]
    with pytest.raises(IllegalMove, match="must be a tuple, not a list"):
        game.apply(NewMeld([c("7c"), c("7d"), c("7h")]))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="seat"):
        game.apply(Discard(c("2c")), seat=False)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="seed"):
        Game("1234")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="seed"):
        Game(1.5)  # type: ignore[arg-type]


def test_any_joker_held_may_be_named_as_JK_R1_1() -> None:
    """R1.1: the Jokers are interchangeable. A move that names ``JK`` (the first
    Joker) for another Joker the player holds plays that Joker, and the game records
    the Joker actually used, so that it replays exactly."""
    game = position(["Jk2 Jk3 Jk4 5c", "", "", ""], discard="9d", phase="meld")
    events = game.apply(parse_move("meld Jk Jk Jk"))  # the bare JK three times
    assert events[0] == Melded(0, 0, (c("Jk2"), c("Jk3"), c("Jk4")), False)
    assert game.moves[-1] == meld("Jk2 Jk3 Jk4")
    again = position(["Jk2 Jk3 Jk4 5c", "", "", ""], discard="9d", phase="meld")
    again.apply(game.moves[-1])  # the recorded move plays the same cards again
    assert again.snapshot() == game.snapshot()


def test_a_joker_named_as_JK_in_a_discard_or_a_take_R1_1() -> None:
    """R1.1: discarding ``JK`` discards the Joker held; taking a Joker from the
    discard pile by the name ``JK`` takes the one that is there."""
    game = position(["Jk3 5c 6c", "Jk2 Jk4 2d", "", ""], discard="9d", phase="meld")
    game.apply(Discard(c("Jk")))
    assert game.discard_pile[-1] == c("Jk3") and game.moves[-1] == Discard(c("Jk3"))
    events = game.apply(take(1, "Jk Jk Jk"))  # seat 1 holds Jk2 and Jk4; Jk3 is on the pile
    assert game.moves[-1] == take(1, "Jk2 Jk3 Jk4")
    assert events[1] == Melded(1, 0, (c("Jk2"), c("Jk3"), c("Jk4")), False)


def test_a_joker_named_twice_asks_for_two_jokers_R1_1() -> None:
    """R1.1: a move names Jokers by how many it uses. ``JK JK JK`` melds three Jokers
    also when the player holds the first one (it was refused then: the first Joker
    counted once per name); a take may name the target card's Joker and ``JK`` twice."""
    game = position(["Jk Jk2 Jk3 5c", "", "", ""], discard="9d", phase="meld")
    events = game.apply(NewMeld((c("Jk"), c("Jk"), c("Jk"))))
    assert events[0] == Melded(0, 0, (c("Jk"), c("Jk2"), c("Jk3")), False)
    assert game.moves[-1] == meld("Jk Jk2 Jk3") and game.hands[0] == [c("5c")]

    game = position(["Jk 5c", "", "", ""], discard="Jk2 Ks Jk3 Jk4", phase="draw")
    events = game.apply(TakeDiscard(0, (c("Jk"), c("Jk2"), c("Jk3"), c("Jk"))))
    assert game.moves[-1] == take(0, "Jk Jk2 Jk3 Jk4")
    assert events[1] == Melded(0, 0, (c("Jk"), c("Jk2"), c("Jk3"), c("Jk4")), True)  # four at once (R7.4)
    assert game.hands[0] == [c("5c"), c("Ks")]


def test_a_joker_nobody_holds_is_still_refused_R1_1() -> None:
    """R1.1: naming ``JK`` does not conjure a Joker: without one in hand the move is
    refused as before, and nothing changes."""
    game = position(["5c 6c 8d", "", "", ""], phase="meld")
    before = game.snapshot()
    with pytest.raises(IllegalMove) as error:
        game.apply(Discard(c("Jk")))
    assert error.value.code == "card-not-in-hand" and game.snapshot() == before
