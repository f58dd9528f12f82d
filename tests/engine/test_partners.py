"""Players, partners and seats; the draw for partners and its redraws (RULES R2)."""

from __future__ import annotations

import random
from collections.abc import MutableSequence, Sequence
from typing import Any

import pytest

from rummy.engine import (
    Discard,
    DrawStock,
    Game,
    IllegalMove,
    PartnerDraw,
    PartnersDrawn,
    card_text,
    draw_for_partners,
    parse_card,
    team_of,
    view_for,
)
from rummy.engine.positions import position


class StackedRng(random.Random):
    """An rng whose shuffle stacks the pack so the cards come off it in ``draws`` order
    (the draw takes cards from the end of the pack)."""

    def __init__(self, draws: str) -> None:
        super().__init__(0)
        self.draws = [parse_card(t) for t in draws.split()]

    def shuffle(self, x: MutableSequence[Any]) -> None:
        rest = [c for c in x if c not in self.draws]
        x[:] = rest + list(reversed(self.draws))


def drawn(draw: PartnerDraw) -> list[list[int]]:
    """The players who drew in each round."""
    return [[p for p, _ in rnd] for rnd in draw.rounds]


def partners(draw: PartnerDraw, a: int, b: int) -> bool:
    return team_of(draw.seat_of_chair[a]) == team_of(draw.seat_of_chair[b])


def first_dealer_player(draw: PartnerDraw) -> int:
    return draw.seat_of_chair.index(draw.first_dealer)


def test_teams_are_opposite_seats_R2_1() -> None:
    """R2.1: four players, two teams; partners sit opposite: seats 0+2 and 1+3."""
    assert [team_of(s) for s in range(4)] == [0, 1, 0, 1]


def test_play_goes_clockwise_to_the_left_R2_1() -> None:
    """R2.1: seat n is followed by seat (n+1) mod 4, also from seat 3 to seat 0."""
    hands = ["2c 3c", "2d 3d", "2h 3h", "2s 3s"]
    game = position(hands, current=0, phase="meld")
    order = []
    for _ in range(5):
        seat = game.current
        order.append(seat)
        game.apply(Discard(game.hands[seat][0]))
        game.apply(DrawStock())
    assert order == [0, 1, 2, 3, 0]


def test_only_the_seat_to_act_moves_R2_1() -> None:
    """R2.1: a seat out of turn is refused and nothing changes."""
    game = Game(7)
    before = game.snapshot()
    wrong = (game.current + 1) % 4
    with pytest.raises(IllegalMove) as refused:
        game.apply(DrawStock(), seat=wrong)
    assert refused.value.code == "not-your-turn"
    assert game.snapshot() == before
    game.apply(DrawStock(), seat=game.current)


def test_lowest_two_are_partners_lowest_deals_R2_2() -> None:
    """R2.2: the two lowest cards are partners, the two others too; the very lowest deals."""
    draw = draw_for_partners(StackedRng("9c 3d Ks 5h"))
    assert drawn(draw) == [[0, 1, 2, 3]]
    assert partners(draw, 1, 3) and partners(draw, 0, 2)
    assert not partners(draw, 1, 0)
    assert first_dealer_player(draw) == 1
    assert sorted(draw.seat_of_chair) == [0, 1, 2, 3]


def test_aces_low_and_jokers_high_in_the_draw_R2_2() -> None:
    """R2.2: for the draw only, A < 2 < ... < K < Joker."""
    draw = draw_for_partners(StackedRng("2c Jk Ah Kd"))
    assert first_dealer_player(draw) == 2  # the Ace is lowest
    assert partners(draw, 2, 0)  # Ace and 2 are the two lowest
    assert partners(draw, 1, 3)  # King and Joker are the two highest


def test_tie_for_dealer_only_the_tied_redraw_R2_3() -> None:
    """R2.3: a tie for the lowest card (who deals): only the tied players draw again."""
    draw = draw_for_partners(StackedRng("5c 9d 5h Ks" + " 8d 3c"))
    assert drawn(draw) == [[0, 1, 2, 3], [0, 2]]
    assert first_dealer_player(draw) == 2  # 3 beats 8 in the redraw
    assert partners(draw, 0, 2) and partners(draw, 1, 3)


def test_tie_across_the_partnership_line_redraws_R2_3() -> None:
    """R2.3: a tie for 2nd/3rd place decides who partners the dealer: those two redraw."""
    draw = draw_for_partners(StackedRng("2c 7d 7h Kc" + " Qs 4d"))
    assert drawn(draw) == [[0, 1, 2, 3], [1, 2]]
    assert first_dealer_player(draw) == 0
    assert partners(draw, 0, 2)  # 4 < Q in the redraw
    assert partners(draw, 1, 3)


def test_tie_that_decides_nothing_is_not_redrawn_R2_3() -> None:
    """R2.3: the two highest tying changes nothing: no redraw."""
    draw = draw_for_partners(StackedRng("2c 5d Kh Ks"))
    assert drawn(draw) == [[0, 1, 2, 3]]
    assert partners(draw, 0, 1) and partners(draw, 2, 3)


def test_redraw_until_the_tie_is_broken_R2_3() -> None:
    """R2.3: tied again in the redraw: the tied draw again, until broken."""
    draw = draw_for_partners(StackedRng("5c 5d 5h Kc" + " 9c 2d 9h" + " Jk Js"))
    assert drawn(draw) == [[0, 1, 2, 3], [0, 1, 2], [0, 2]]
    assert first_dealer_player(draw) == 1  # 2 was lowest of the first redraw
    assert partners(draw, 1, 2)  # J beats Joker (high) for the second place
    assert partners(draw, 0, 3)


def test_four_jokers_all_redraw_R2_3() -> None:
    """R2.3: four equal cards: all four draw again."""
    draw = draw_for_partners(StackedRng("Jk Jk2 Jk3 Jk4" + " 3c 4c 5c 6c"))
    assert drawn(draw) == [[0, 1, 2, 3], [0, 1, 2, 3]]
    assert first_dealer_player(draw) == 0 and partners(draw, 0, 1)


def draw_value(card: int) -> int:
    """R2.2 recounted from the card's text: A=1, 2..10, J=11, Q=12, K=13, Joker=14."""
    text = card_text(card, ascii=True)
    if text == "Jk":
        return 14
    return {"A": 1, "J": 11, "Q": 12, "K": 13}.get(text[:-1]) or int(text[:-1])


def _expected(rounds: Sequence[Sequence[tuple[int, int]]], seating: str) -> tuple[set[int], int]:
    """Recount a draw from its rounds: (the first dealer and their partner, as players;
    the first dealer)."""
    keys: dict[int, list[int]] = {p: [] for p in range(4)}
    for rnd in rounds:
        for p, card in rnd:
            keys[p].append(draw_value(card))
    order = sorted(range(4), key=lambda p: keys[p])
    assert keys[order[0]] != keys[order[1]], "a tie for the dealer was left standing"
    if seating == "draw":
        assert keys[order[1]] != keys[order[2]], "a tie for a partnership was left standing"
        return {order[0], order[1]}, order[0]
    return {order[0], (order[0] + 2) % 4}, order[0]


@pytest.mark.parametrize("seating", ["draw", "chosen"])
def test_seeded_draws_follow_the_rules_R2_2_R2_3(seating: str) -> None:
    """R2.2/R2.3 over many seeded games: every round after the first holds exactly the
    players whose tie mattered, and the result matches a recount from the cards shown."""
    redraws = 0
    for seed in range(300):
        game = Game(seed, seating)  # type: ignore[arg-type]
        draw = game.partner_draw
        redraws += len(draw.rounds) > 1
        team, dealer = _expected(draw.rounds, seating)
        assert draw.first_dealer == draw.seat_of_chair[dealer] == game.dealer
        a, b = sorted(team)
        assert partners(draw, a, b)
        assert [p for p, _ in draw.rounds[0]] == [0, 1, 2, 3]
        cards = [c for rnd in draw.rounds for _, c in rnd]
        assert len(cards) == len(set(cards))  # drawn from one pack
    assert redraws > 10  # the seeds really exercised redraws


def test_every_card_drawn_is_shown_to_all_R2_3() -> None:
    """R2.3: the draw (every round) is public: in the opening events and every view."""
    game = Game(11)
    assert game.opening_events[0] == PartnersDrawn(game.partner_draw)
    for seat in (0, 1, 2, 3, None):
        assert view_for(game, seat).partner_draw == game.partner_draw


def test_seats_as_chosen_keep_chairs_and_draw_the_dealer_R2_4() -> None:
    """R2.4: "seats as chosen": each player keeps their chair (teams 0+2, 1+3); the
    first dealer is still drawn as in R2.2-R2.3, and only a tie for it is redrawn."""
    draw = draw_for_partners(StackedRng("9c 3d 3h 5s" + " Kc 4c"), "chosen")
    assert draw.seat_of_chair == (0, 1, 2, 3)
    assert drawn(draw) == [[0, 1, 2, 3], [1, 2]]
    assert draw.first_dealer == 2
    # A tie between 2nd and 3rd decides nothing when the seats are chosen.
    draw = draw_for_partners(StackedRng("2c 7d 7h Kc"), "chosen")
    assert drawn(draw) == [[0, 1, 2, 3]] and draw.first_dealer == 0


def test_the_draw_is_the_default_R2_4() -> None:
    """R2.4: the draw (R2.2) is the default seating."""
    assert Game(3).seating == "draw"
    assert Game.new().seating == "draw"
    assert Game(3, "chosen").partner_draw.seat_of_chair == (0, 1, 2, 3)
    with pytest.raises(ValueError):
        Game(3, "random")  # type: ignore[arg-type]
