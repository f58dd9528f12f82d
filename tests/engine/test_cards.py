"""Cards, points, rank order and the cards' text forms (RULES R1)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rummy.engine import (
    JOKERS,
    PACK,
    card_id_text,
    card_text,
    cards_text,
    describe_card,
    meld_kind,
    parse_card,
    parse_cards,
    points,
    rank,
    suit,
)
from rummy.engine.cards import sort_key_rank, sort_key_suit

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def test_pack_is_52_french_cards_and_4_jokers_R1_1() -> None:
    """R1.1: one pack of 56 cards, every suit and rank once, plus four Jokers."""
    assert len(PACK) == 56 == len(set(PACK))
    french = {card_text(c, ascii=True) for c in PACK if c not in JOKERS}
    assert french == {r + s for r in RANKS for s in "cdhs"}
    assert len(JOKERS) == 4
    assert {card_text(c) for c in JOKERS} == {"JK"}
    assert {card_text(c, ascii=True) for c in JOKERS} == {"Jk"}


def test_jokers_are_interchangeable_R1_1() -> None:
    """R1.1: the four Jokers are interchangeable for every rule; only their ids differ."""
    assert {points(j) for j in JOKERS} == {20}
    assert {rank(j) for j in JOKERS} == {rank(JOKERS[0])}
    for a in range(4):
        three = [j for k, j in enumerate(JOKERS) if k != a]
        assert meld_kind(three) == "jokers"
    assert {describe_card(j) for j in JOKERS} == {"Joker"}
    assert len({card_id_text(j) for j in JOKERS}) == 4  # yet each physical card is tracked


@pytest.mark.parametrize(
    ("text", "value"),
    [
        *[("2c", 2), ("3d", 3), ("4h", 4), ("5s", 5), ("6c", 6), ("7d", 7), ("8h", 8), ("9s", 9)],
        *[("10c", 10), ("Jd", 10), ("Qh", 10), ("Ks", 10), ("Ac", 15), ("Jk", 20), ("Jk4", 20)],
    ],
)
def test_card_points_R1_2(text: str, value: int) -> None:
    """R1.2: Joker 20, Ace 15, K/Q/J 10, 2-9 face value; ruling: the 10 counts 10."""
    assert points(parse_card(text)) == value


def test_pack_points_total_R1_2() -> None:
    """R1.2: the whole pack is worth 4*(2+..+9) + 16*10 + 4*15 + 4*20 = 476."""
    assert sum(points(c) for c in PACK) == 4 * 44 + 160 + 60 + 80


def test_rank_order_aces_high_only_R1_3() -> None:
    """R1.3: rank order 2 (low) ... K, A (high); an Ace is never low in play."""
    for s in "cdhs":
        ranks = [rank(parse_card(r + s)) for r in RANKS]
        assert ranks == sorted(ranks) and len(set(ranks)) == 13
        assert rank(parse_card("A" + s)) > rank(parse_card("K" + s)) > rank(parse_card("2" + s))
    assert meld_kind(parse_cards("Qh Kh Ah")) == "run"
    assert meld_kind(parse_cards("Ah 2h 3h")) is None
    assert meld_kind(parse_cards("Kh Ah 2h")) is None
    hand = parse_cards("Ah 2h Kh 3c")
    assert [card_text(c, ascii=True) for c in sorted(hand, key=sort_key_rank)] == ["2h", "3c", "Kh", "Ah"]
    assert [card_text(c, ascii=True) for c in sorted(hand, key=sort_key_suit)] == ["3c", "2h", "Kh", "Ah"]


def test_text_forms_published_examples() -> None:
    """Every card has a short form (10♥, A♠, JK) and an ASCII form (10h, As, Jk)."""
    assert card_text(parse_card("10h")) == "10♥"
    assert card_text(parse_card("As")) == "A♠"
    assert card_text(parse_card("Jk")) == "JK"
    assert card_text(parse_card("10♥"), ascii=True) == "10h"
    assert card_text(parse_card("A♠"), ascii=True) == "As"
    assert card_text(parse_card("JK"), ascii=True) == "Jk"
    assert cards_text(parse_cards("2c 10d Qh"), ascii=False) == "2♣ 10♦ Q♥"
    assert describe_card(parse_card("Jh")) == "Jack of hearts"
    assert describe_card(parse_card("7c")) == "7 of clubs"


def test_every_card_prints_and_parses_back() -> None:
    """Both text forms of every card parse back to it (Jokers: to a Joker; their id
    form to the very card)."""
    for card in PACK:
        for ascii in (False, True):
            back = parse_card(card_text(card, ascii=ascii))
            if card in JOKERS:
                assert back in JOKERS
            else:
                assert back == card
        assert parse_card(card_id_text(card)) == card
    assert parse_cards(" ".join(card_id_text(c) for c in PACK)) == list(PACK)


def test_parse_is_lenient_where_people_type() -> None:
    assert parse_card(" ah ") == parse_card("A♥")
    assert parse_card("Th") == parse_card("10h")
    assert parse_card("jk3") == JOKERS[2]
    assert parse_card("A♥\ufe0f") == parse_card("Ah")  # emoji presentation selector
    assert parse_cards("7h,8h  9h") == parse_cards("7h 8h 9h")
    # Bare Jokers in one list are distinct physical cards.
    assert parse_cards("Jk Jk JK jk") == list(JOKERS)
    assert parse_cards("Jk2 Jk") == [JOKERS[1], JOKERS[0]]


@pytest.mark.parametrize(
    "text", ["", " ", "1h", "11h", "Ax", "h", "♥", "10", "Jk5", "Jk0", "JKK", "1", "AA", "x♥"]
)
def test_bad_card_text_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a card"):
        parse_card(text)


@given(st.text(max_size=8))
def test_parse_card_never_crashes(text: str) -> None:
    """Any text either is a card or raises ValueError, nothing else."""
    try:
        card = parse_card(text)
    except ValueError:
        return
    assert card in PACK


def test_suit_and_rank_of_every_card() -> None:
    for card in PACK:
        if card in JOKERS:
            continue
        text = card_text(card, ascii=True)
        assert RANKS[rank(card) - 2] == text[:-1]
        assert "cdhs"[suit(card)] == text[-1]
