"""Views, events and moves on the wire: exact round trips back to the engine's objects."""

from __future__ import annotations

import random

import msgspec
import pytest

from rummy.engine import Game, Move, PlayerView, move_to_data, view_for
from rummy.engine.bots import make_bot
from rummy.protocol import (
    EventWire,
    MoveWire,
    ViewWire,
    event_from_wire,
    event_to_wire,
    move_from_wire,
    move_to_wire,
    view_from_wire,
    view_to_wire,
)
from tests.support import by_bots, play_until

_views = msgspec.msgpack.Decoder(ViewWire)
_events = msgspec.msgpack.Decoder(EventWire)
_moves = msgspec.msgpack.Decoder(MoveWire)


def through_wire(view: PlayerView) -> PlayerView:
    return view_from_wire(_views.decode(msgspec.msgpack.encode(view_to_wire(view))))


def whole_game(seed: int) -> tuple[Game, list[Game], list[Move]]:
    game = Game(seed)
    bots = [make_bot("heuristic", random.Random(seed * 10 + s)) for s in range(4)]
    states, moves = [game.clone()], []

    def keep(game: Game, move: Move) -> None:
        moves.append(move)
        states.append(game.clone())

    play_until(game, by_bots(bots), after=keep)
    return game, states, moves


@pytest.mark.parametrize("seed", [1, 2])
def test_views_events_and_moves_round_trip_over_whole_games(seed: int) -> None:
    """R9: each seat's view and a spectator's come back equal, and give the same legal
    moves as the game itself (the client's hints are the server's checks)."""
    game, states, moves = whole_game(seed)
    kinds: set[str] = set()
    replay = Game(seed)
    for state, move in zip(states, moves, strict=False):
        for seat in (None, 0, 1, 2, 3):
            view = view_for(state, seat)
            back = through_wire(view)
            assert back == view
            if seat == state.current:
                assert back.legal_moves() == state.legal_moves()
        wire = _moves.decode(msgspec.msgpack.encode(move_to_wire(move)))
        assert move_from_wire(wire) == move
        # The wire form of a move is the engine's own plain-data form.
        assert msgspec.to_builtins(move_to_wire(move)) == move_to_data(move)
        for event in replay.apply(move):
            kinds.add(type(event).__name__)
            assert event_from_wire(_events.decode(msgspec.msgpack.encode(event_to_wire(event)))) == event
    assert through_wire(view_for(game, None)).results == tuple(game.results)
    assert {"StockDrawn", "Discarded", "DealEnded", "GameEnded"} <= kinds


def test_opening_events_round_trip() -> None:
    for event in Game(5).opening_events:
        assert event_from_wire(_events.decode(msgspec.msgpack.encode(event_to_wire(event)))) == event


def test_a_spectator_view_has_no_hand_on_the_wire() -> None:
    """R9.2: the wire form carries exactly what the view holds."""
    wire = msgspec.to_builtins(view_to_wire(view_for(Game(3), None)))
    assert wire["hand"] is None and wire["seat"] is None
    assert set(wire) == {
        "seat",
        "phase",
        "deal",
        "dealer",
        "current",
        "hand",
        "hand_counts",
        "stock_count",
        "discard_pile",
        "melds",
        "passes",
        "partner_draw",
        "results",
    }


def _wire_view(seed: int = 4) -> dict[str, object]:
    _, states, _ = whole_game(seed)
    state = next(s for s in states if s.melds)
    data: dict[str, object] = msgspec.to_builtins(view_to_wire(view_for(state, 0)))
    return data


@pytest.mark.parametrize(
    "change",
    [
        lambda v: v["melds"][0].update(cards=[0, 13, 40]),  # not a meld
        lambda v: v["melds"][0].update(kind="jokers"),  # the wrong kind
        lambda v: v.update(hand=None),  # a seat without a hand
        lambda v: v["partner_draw"].update(seat_of_player=[0, 0, 1, 2]),
    ],
)
def test_an_inconsistent_view_is_refused(change: object) -> None:
    data = _wire_view()
    change(data)  # type: ignore[operator]
    wire = msgspec.convert(data, ViewWire)
    with pytest.raises(ValueError):
        view_from_wire(wire)


def test_out_of_range_cards_are_refused_by_the_schema() -> None:
    data = _wire_view()
    data["discard_pile"] = [56]
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert(data, ViewWire)
