"""Melds: sets, runs, Joker sets, laying off, who owns each card (RULES R5)."""

from __future__ import annotations

import pytest

from rummy.engine import Discard, DrawStock, IllegalMove, LaidOff, LayOff, Meld, meld_kind, parse_cards
from rummy.engine.positions import c, cards, meld, position, take

from .oracle import is_meld


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("7c 7d 7h", "set"),
        ("7c 7d 7h 7s", "set"),
        ("Ac Ad As", "set"),
        ("7c 7d", None),
        ("7c 7d 8h", None),
        ("7c 7c 7d", None),  # the same card twice is not two cards
    ],
)
def test_sets_R5_1(text: str, kind: str | None) -> None:
    """R5.1: a set is three or four cards of one rank."""
    assert meld_kind(parse_cards(text)) == kind
    assert is_meld(parse_cards(text)) == (kind is not None)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("5h 6h 7h", "run"),
        ("7h 5h 6h", "run"),  # in any order
        ("2s 3s 4s 5s 6s 7s 8s 9s 10s Js Qs Ks As", "run"),
        ("Qh Kh Ah", "run"),
        ("Ah 2h 3h", None),  # Aces are high only
        ("Kh Ah 2h", None),
        ("5h 6h 8h", None),
        ("5h 6d 7h", None),
        ("5h 6h", None),
    ],
)
def test_runs_R5_2(text: str, kind: str | None) -> None:
    """R5.2: three or more of one suit in consecutive rank order; Aces high only."""
    assert meld_kind(parse_cards(text)) == kind
    assert is_meld(parse_cards(text)) == (kind is not None)


def test_no_run_around_the_ace_in_play_R5_2() -> None:
    """R5.2: with A, 2, 3 of a suit in hand, no run of them is a legal move; a run ending
    in Q-K-A may not be extended by a 2, nor a run starting at 2 by an Ace."""
    game = position(["Ah 2h 3h 9c", "", "", ""], phase="meld", melds=[("Qs Ks As", 1), ("2d 3d 4d", 1)])
    assert meld("Ah 2h 3h") not in game.legal_moves()
    game = position(["2s Ad 9c", "", "", ""], phase="meld", melds=[("Qs Ks As", 1), ("2d 3d 4d", 1)])
    assert not [m for m in game.legal_moves() if isinstance(m, LayOff)]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Jk Jk2 Jk3", "jokers"),
        ("Jk Jk2 Jk3 Jk4", "jokers"),
        ("Jk2 Jk3 Jk4", "jokers"),
        ("Jk Jk2", None),
        ("Jk 7h 7d", None),  # not wild in a set
        ("7h 7d Jk", None),
        ("5h Jk 7h", None),  # nor in a run
        ("5h 6h Jk", None),
    ],
)
def test_jokers_only_with_jokers_R5_3(text: str, kind: str | None) -> None:
    """R5.3: Jokers are not wild: only three or four Jokers make a meld."""
    assert meld_kind(parse_cards(text)) == kind


def test_joker_lay_offs_R5_3() -> None:
    """R5.3: a Joker may be laid off only on a Joker set, never on a set or run."""
    game = position(
        ["Jk4 2c", "", "", ""],
        phase="meld",
        melds=[("7c 7d 7h", 1), ("5s 6s 7s", 1), ("Jk Jk2 Jk3", 1)],
    )
    lay_offs = [m for m in game.legal_moves() if isinstance(m, LayOff)]
    assert lay_offs == [LayOff(2, c("Jk4"))]
    with pytest.raises(IllegalMove) as error:
        game.apply(LayOff(0, c("Jk4")))
    assert error.value.code == "cannot-lay-off"


def test_sets_grow_to_four_runs_at_either_end_R5_4() -> None:
    """R5.4: a set grows to four cards; a run grows at either end, one rank at a time,
    and stays a legal meld."""
    game = position(["9d 4d 8d 10d 2c", "", "", ""], phase="meld", melds=[("9c 9h 9s", 1), ("5d 6d 7d", 2)])
    lay_offs = {m for m in game.legal_moves() if isinstance(m, LayOff)}
    assert lay_offs == {LayOff(0, c("9d")), LayOff(1, c("4d")), LayOff(1, c("8d"))}
    for move in (LayOff(0, c("9d")), LayOff(1, c("4d")), LayOff(1, c("8d"))):
        game.apply(move)
    assert LayOff(1, c("10d")) not in game.legal_moves()  # 9d went on the set
    assert game.melds[0].cards == cards("9c 9h 9s 9d")
    assert game.melds[1].cards == cards("4d 5d 6d 7d 8d")
    assert all(is_meld(m.cards) for m in game.melds)


def test_set_of_four_takes_no_more_R5_4() -> None:
    """R5.4: a set of four is full."""
    meld4 = Meld.new(0, cards("7c 7d 7h 7s"), 1)
    assert not any(meld4.accepts(card) for card in range(56))
    three = Meld.new(1, cards("Jk Jk2 Jk3"), 1)
    assert [card for card in range(56) if three.accepts(card)] == [c("Jk4")]


def test_run_grows_both_ways_until_the_ace_R5_4() -> None:
    """R5.4: a run grows at either end, and from the King up to the Ace only."""
    run = Meld.new(0, cards("Jh Qh Kh"), 0)
    assert sorted(card for card in range(56) if run.accepts(card)) == sorted(cards("10h Ah"))
    run.add(c("Ah"), 1)
    assert sorted(card for card in range(56) if run.accepts(card)) == cards("10h")
    low = Meld.new(1, cards("2c 3c 4c"), 0)
    assert [card for card in range(56) if low.accepts(card)] == cards("5c")


def test_lay_off_on_own_partners_or_opponents_meld_R5_4() -> None:
    """R5.4: one may lay off on any meld on the table: one's own, the partner's or an
    opponent's."""
    game = position(
        ["Kh 8c 4d 2s", "", "", ""],
        phase="meld",
        melds=[("Kc Kd Ks", 0), ("5c 6c 7c", 2), ("4c 4h 4s", 1)],
    )
    for move in (LayOff(0, c("Kh")), LayOff(1, c("8c")), LayOff(2, c("4d"))):
        assert move in game.legal_moves()
        game.apply(move)
    assert [m.owners for m in game.melds] == [[0, 0, 0, 0], [2, 2, 2, 0], [1, 1, 1, 0]]


def test_each_card_belongs_to_who_laid_it_R5_5() -> None:
    """R5.5: a card laid off on an opponent's meld is owned by the player who laid it,
    the meld stays one meld (its id, its laid_by), and anyone may extend it further."""
    game = position(
        ["4c 2s", "3c 2d", "9h", "8h"],
        current=0,
        phase="meld",
        melds=[("5c 6c 7c", 1)],
        stock="Qd Qs",
    )
    events = game.apply(LayOff(0, c("4c")))
    assert events == [LaidOff(0, 0, (c("4c"),), 1)]  # it extends seat 1's meld
    game.apply(Discard(c("2s")))
    game.apply(DrawStock())
    game.apply(LayOff(0, c("3c")))  # the meld's owner extends it further
    m = game.melds[0]
    assert (m.id, m.laid_by) == (0, 1) and len(game.melds) == 1
    assert list(zip(m.cards, m.owners, strict=True)) == [
        (c("3c"), 1),
        (c("4c"), 0),
        (c("5c"), 1),
        (c("6c"), 1),
        (c("7c"), 1),
    ]


def test_taken_target_laid_off_is_owned_by_the_taker_R5_5() -> None:
    """R5.5 with R4.1: a target card laid off on an opponent's meld belongs to the taker."""
    game = position(["5s", "", "", ""], discard="8d", melds=[("9d 10d Jd", 3)])
    game.apply(take(0, "8d", meld_id=0))
    assert game.melds[0].owners == [0, 3, 3, 3]


def test_no_minimum_to_meld_or_lay_off_R5_6() -> None:
    """R5.6 ruling: no minimum count is needed to meld, and a player who never melded
    may lay off at once."""
    game = position(
        ["2c 2d 2h 9s", "", "", "Kh 3c"],
        phase="meld",
        current=3,
        melds=[("Kc Kd Ks", 0)],
    )
    assert not any(meld.laid_by == 3 for meld in game.melds)
    game.apply(LayOff(0, c("Kh")))  # seat 3 never melded
    game.apply(Discard(c("3c")))
    game.apply(DrawStock())
    assert meld("2c 2d 2h") in game.legal_moves()  # worth only 6 points
    game.apply(meld("2c 2d 2h"))
    assert game.melds[-1].cards == cards("2c 2d 2h")


def test_meld_objects_refuse_non_melds() -> None:
    with pytest.raises(ValueError):
        Meld.new(0, cards("2c 3d 4h"), 0)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("5c 5d", "A meld is three cards or more (R5.1, R5.2): 5♣ 5♦ are not enough."),
        ("5c 5d 6h", "A set is of one rank (R5.1) and a run of one suit (R5.2): 5♣ 5♦ 6♥ make no meld."),
        ("4s 8s Js", "A run's ranks follow on with no gap (R5.2): 4♠ 8♠ J♠ make no run."),
        ("Ah 2h 3h", "Aces are high only, after the King (R5.2): 2♥ 3♥ A♥ make no run."),
        ("Jk Jk 5h", "Jokers are not wild, they make only a set of their own (R5.3): 5♥ JK JK make no meld."),
    ],
)
def test_a_refused_meld_says_which_rule_R5_1_R5_2_R5_3(text: str, said: str) -> None:
    """Seen at the table: melding 4♠ J♠ 8♠ was refused with "Those cards do not make a
    meld", which left a new player guessing; the refusal names what is wrong, and the
    rule, as the rule book says the table does."""
    game = position([f"{text} 2c", "", "", ""], phase="meld")
    with pytest.raises(IllegalMove) as error:
        game.apply(meld(text))
    assert (error.value.code, error.value.message) == ("not-a-meld", said)
