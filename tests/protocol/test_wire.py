"""Views, events and moves on the wire: exact round trips back to the engine's objects."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rummy.engine import Game, Move, PlayerView, view_for
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
from tests.engine.test_moves import EXAMPLES
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


_json_moves = msgspec.json.Decoder(MoveWire)


@pytest.mark.parametrize(("move", "text"), EXAMPLES)
def test_every_kind_of_move_round_trips_in_msgpack_and_json(move: Move, text: str) -> None:
    """The wire's move form is the one serialised form of a move (storage keeps it as
    JSON, the network sends it as MessagePack): a map with its ``type``."""
    wire = move_to_wire(move)
    assert isinstance(msgspec.to_builtins(wire)["type"], str)
    assert move_from_wire(_moves.decode(msgspec.msgpack.encode(wire))) == move
    assert move_from_wire(_json_moves.decode(msgspec.json.encode(wire))) == move


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=12,
)
move_types = st.sampled_from(
    ["draw_stock", "take_discard", "meld", "lay_off", "discard", "pass", "next_deal", "fly"]
)
move_like = st.fixed_dictionaries(
    {"type": move_types},
    optional={"index": json_values, "cards": json_values, "meld_id": json_values, "card": json_values},
)


@given(st.one_of(json_values, move_like))
def test_garbage_move_data_is_refused_or_a_move_that_round_trips(data: Any) -> None:
    """Bad data never crashes: the schema refuses it, or it is a move."""
    try:
        wire = _moves.decode(msgspec.msgpack.encode(data))
    except msgspec.ValidationError:
        return
    move = move_from_wire(wire)
    assert move_from_wire(_moves.decode(msgspec.msgpack.encode(move_to_wire(move)))) == move


@pytest.mark.parametrize(
    "bad",
    [
        {"type": "discard", "card": True},
        {"type": "discard", "card": 56},
        {"type": "discard"},
        {"type": "meld", "cards": list(range(15))},  # no move names more than a suit's run
        {"type": "fly"},
    ],
)
def test_bools_out_of_range_and_long_lists_are_not_moves(bad: dict[str, Any]) -> None:
    with pytest.raises(msgspec.ValidationError):
        _moves.decode(msgspec.msgpack.encode(bad))


@pytest.mark.parametrize(
    "event",
    [
        {"type": "discard_taken", "seat": 1, "index": 0, "taken": []},
        {"type": "laid_off", "seat": 1, "meld_id": 0, "cards": [], "owner_seat": 2},
        {"type": "melded", "seat": 1, "meld_id": 0, "cards": [3, 4], "four_at_once": False},
    ],
)
def test_an_event_that_moves_too_few_cards_is_refused_by_the_schema(event: dict[str, Any]) -> None:
    """R4.1: a take takes at least the card aimed at; R5.1-R5.2: a meld has three cards or more.
    (A hostile server sent a take of no cards, and the log's 'took X' looked for a first one.)"""
    with pytest.raises(msgspec.ValidationError):
        _events.decode(msgspec.msgpack.encode(event))
    fixed = dict(event, **({"taken": [5]} if "taken" in event else {"cards": [3, 4, 5]}))
    assert msgspec.to_builtins(_events.decode(msgspec.msgpack.encode(fixed))) == fixed
