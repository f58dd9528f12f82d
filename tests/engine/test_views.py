"""What each player may see (RULES R9): one seat's view, a spectator's, the events."""

from __future__ import annotations

import dataclasses
import random

import pytest

from rummy.engine import (
    SEAT_NAMES,
    DrawStock,
    Game,
    PlayerView,
    StockDrawn,
    team_of,
    view_for,
)
from rummy.engine.positions import c, meld, position

from .leaks import Hidden, event_leaks, view_leaks

SEATS = (0, 1, 2, 3, None)


def midgame(seed: int, moves: int) -> Game:
    game = Game(seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_moves()))
    return game


def test_view_shows_everything_public_R9_1() -> None:
    """R9.1: every view shows whose turn and which part of it, every meld with who laid
    each card, the whole discard pile in order, the stock and hand counts, the scores,
    and the partner draw (so the seats and teams)."""
    game = midgame(3, 60)
    assert game.melds, "pick a position with melds on the table"
    for seat in SEATS:
        view = view_for(game, seat)
        assert (view.seat, view.phase, view.deal, view.dealer, view.current) == (
            seat,
            game.phase,
            game.deal,
            game.dealer,
            game.current,
        )
        assert view.discard_pile == tuple(game.discard_pile)
        assert [(m.id, m.cards, m.owners, m.laid_by) for m in view.melds] == [
            (m.id, m.cards, m.owners, m.laid_by) for m in game.melds
        ]
        assert view.stock_count == len(game.stock)
        assert view.hand_counts == tuple(len(h) for h in game.hands)
        assert view.passes == game.passes
        assert view.results == tuple(game.results) and view.totals() == game.totals()
        assert view.partner_draw == game.partner_draw
    assert len(SEAT_NAMES) == 4 and [team_of(s) for s in range(4)] == [0, 1, 0, 1]


def test_every_move_is_seen_as_it_is_made_R9_1() -> None:
    """R9.1: each move yields events for everyone; a stock draw is announced without
    naming the card (R9.2)."""
    game = Game(8)
    seat = game.current
    events = game.apply(DrawStock())
    assert events == [StockDrawn(seat)]


def test_view_holds_only_the_seats_own_hand_R9_2() -> None:
    """R9.2: only the player sees their hand; a spectator sees none; no view shows a
    card of another hand or of the stock, or the shuffle's seed and state."""
    for seed in range(4):
        for n in (0, 9, 40, 80):
            game = midgame(seed, n)
            if game.phase in ("deal_over", "game_over"):
                continue
            for seat in SEATS:
                view = view_for(game, seat)
                assert view.hand == (None if seat is None else tuple(game.hands[seat]))
                assert view_leaks(game, seat) == []
    names = {f.name for f in dataclasses.fields(PlayerView)}
    assert not names & {"seed", "stock", "hands", "rng", "_rng", "moves"}


def test_leak_detector_finds_a_leak_R9_2() -> None:
    """R9.2: the leak detector itself works: a view built from a hidden card shows it."""
    game = Game(1)
    bad = dataclasses.replace(view_for(game, 0), discard_pile=(Hidden(game.stock[-1]),))
    assert "HIDDEN<" in repr(bad)


def test_events_name_no_hidden_card_R9_2() -> None:
    """R9.2: the events of every move name only cards that are public after it
    (until the end of a deal shows every hand)."""
    for seed in range(3):
        game = Game(seed)
        rng = random.Random(seed)
        while not game.is_over:
            move = rng.choice(game.legal_moves())
            assert event_leaks(game, move) == []
            game.apply(move)


def test_hands_are_shown_when_the_deal_ends_R9_2() -> None:
    """R9.2 with R7: at the end of a deal every hand is shown to every view."""
    game = position(["7c 7d 7h", "2c 3d", "Ks", "Jk"], phase="meld")
    hands = [list(h) for h in game.hands]
    game.apply(meld("7c 7d 7h"))
    for seat in SEATS:
        shown = view_for(game, seat).results[-1].hands
        assert shown == ((), tuple(hands[1]), tuple(hands[2]), tuple(hands[3]))


def test_view_legal_moves_are_the_games_R9_2() -> None:
    """R9.2: a seat's view gives the same legal moves as the game, from what it sees;
    other seats and spectators get none."""
    game = Game(12)
    rng = random.Random(12)
    while not game.is_over:
        for seat in SEATS:
            moves = view_for(game, seat).legal_moves()
            assert moves == (game.legal_moves() if seat == game.current else [])
        game.apply(rng.choice(game.legal_moves()))
    assert all(view_for(game, s).legal_moves() == [] for s in SEATS)


def test_view_is_a_copy_R9_2() -> None:
    """Changing a view's melds changes nothing in the game."""
    game = position(["Kh 2c", "", "", ""], phase="meld", melds=[("Kc Kd Ks", 1)])
    view = view_for(game, 0)
    view.melds[0].add(c("Kh"), 0)
    assert len(game.melds[0].cards) == 3


def test_no_such_seat() -> None:
    with pytest.raises(ValueError):
        view_for(Game(1), 4)


def test_a_position_opens_with_its_own_dealer_and_first_discard() -> None:
    """A position built for a test or a bot tells its deal's opening as it is laid out
    (its dealer, and the card that starts the discard pile, R3.2), not the seed's deal."""
    from rummy.engine.events import DealStarted

    game = position(["7h 8h", "2c", "3c", "4c"], discard="Kd Js", current=0, dealer=3)
    started = [e for e in game.opening_events if isinstance(e, DealStarted)]
    assert started == [DealStarted(1, 3, c("Kd"))]
