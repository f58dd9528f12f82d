"""Saved games (docs/RECORDS.md): the records kept in tests/fixtures/records replay
to exactly the result they recorded, today and after any engine change; the file
format reads back what it wrote, and refuses what it cannot replay in words."""

from __future__ import annotations

import json
import random
from pathlib import Path

import msgspec
import pytest

from rummy.engine import ENGINE_VERSION, Discard, DrawStock, Game
from rummy.engine.bots import make_bot
from rummy.protocol.record import (
    MAX_RECORD_BYTES,
    RECORD_VERSION,
    RecordError,
    RecordPlayer,
    decode_record,
    encode_record_file,
    engine_record,
    record_of_game,
    replay_record,
)
from rummy.protocol.wire import move_to_wire, result_to_wire
from tests.support import by_bots, play_until

RECORDS = Path(__file__).parents[1] / "fixtures" / "records"
# The records written with engine revision 1. A missing one is a failure, not a skip.
KEPT = {
    "engine1-sim-four-at-once.json",
    "engine1-sim-ended-on-passes.json",
    "engine1-sim-tie.json",
    "engine1-server-drawn-partners.json",
}


def kept_records() -> list[Path]:
    return sorted(RECORDS.glob("*.json"))


def test_every_kept_record_is_there() -> None:
    assert {p.name for p in kept_records()} >= KEPT


@pytest.mark.parametrize("path", kept_records(), ids=lambda p: p.name)
def test_a_kept_record_replays_to_exactly_its_recorded_result(path: Path) -> None:
    """R7, R8 (and R6.2, R7.4, R8.2 in the records that have them): the replayed game
    ends with the recorded totals and winner, and every deal ends with the recorded
    hands and the recorded score, item by item."""
    record = decode_record(path.read_bytes())
    assert record.engine <= ENGINE_VERSION
    game = replay_record(record)  # raises if anything differs
    assert game.is_over
    assert record.result is not None and len(record.result.deals) == 2
    assert game.totals() == record.result.totals and game.winner() == record.result.winner
    assert [result_to_wire(r) for r in game.results] == record.result.deals
    assert len(game.moves) == len(record.moves)


def test_the_kept_records_cover_the_rare_endings() -> None:
    endings = {}
    for path in kept_records():
        result = decode_record(path.read_bytes()).result
        assert result is not None
        endings[path.name] = result
    assert any(d.ended_by == "passes" for r in endings.values() for d in r.deals)  # R6.2
    assert any(s.doubled_fours for r in endings.values() for d in r.deals for s in d.scores)  # R7.4
    assert any(r.winner is None for r in endings.values())  # R8.2
    assert json.loads((RECORDS / "engine1-server-drawn-partners.json").read_text())["seating"] == "draw"


def finished_game(seed: int = 11) -> Game:
    game = Game(seed, "draw")
    bot = make_bot("heuristic", random.Random(seed))
    play_until(game, by_bots([bot] * 4))
    return game


PLAYERS = [RecordPlayer(seat=s, name=n, bot=s > 0) for s, n in enumerate(("Ann", "Bot 2", "Bot 3", "Bot 4"))]


def test_a_file_reads_back_what_was_written_and_replays_the_same_game() -> None:
    game = finished_game()
    record = record_of_game(game, PLAYERS, table="Friday", started=1.5, finished=2.5)
    data = encode_record_file(record)
    assert decode_record(data) == record
    assert replay_record(decode_record(data)).snapshot() == game.snapshot()
    assert engine_record(record) == game.record()
    # Plain JSON: the header first, a move per line, the seed as digits.
    plain = json.loads(data)
    assert list(plain)[:4] == ["format", "version", "engine", "written_by"] and list(plain)[-1] == "moves"
    assert plain["seed"] == str(game.seed) and plain["engine"] == ENGINE_VERSION
    assert data.decode().count("\n") > len(game.moves)
    # The same record is the wire's MessagePack payload.
    assert decode_record(msgspec.msgpack.encode(record), json=False) == record


def edited(change: dict[str, object]) -> bytes:
    data = json.loads(encode_record_file(record_of_game(finished_game(), PLAYERS)))
    data.update(change)
    return json.dumps(data).encode()


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"\x00\x01 not json", "not a Persian Rummy game record"),
        (b"[1, 2]", "not a Persian Rummy game record"),
        (b'{"format": "chess-pgn"}', "not a Persian Rummy game record"),
        (b" " * (MAX_RECORD_BYTES + 1), "over 4 MiB"),
        (edited({"version": RECORD_VERSION + 1}), "newer than this program reads"),
        (edited({"engine": ENGINE_VERSION + 1}), "update Persian Rummy"),
        (edited({"seed": "-5"}), "damaged"),
        (edited({"moves": [{"type": "castle"}]}), "damaged"),
        (edited({"players": []}), "damaged"),
        (edited({"autos": [None, "timer"]}), "does not match its moves"),
        (edited({"autos": ["a ghost"]}), "damaged"),
    ],
    ids=[
        "garbage",
        "a list",
        "another format",
        "too big",
        "newer format",
        "newer engine",
        "bad seed",
        "bad move",
        "no players",
        "autos too short",
        "autos of a ghost",
    ],
)
def test_a_record_that_cannot_be_read_is_refused_in_words(data: bytes, words: str) -> None:
    with pytest.raises(RecordError, match=words):
        decode_record(data)


def test_a_record_that_does_not_replay_says_which_move_or_which_result() -> None:
    game = finished_game()
    record = record_of_game(game, PLAYERS)
    n = next(i for i, m in enumerate(game.moves) if isinstance(m, Discard))
    record.moves[n] = move_to_wire(DrawStock())  # a draw where the player must discard
    with pytest.raises(RecordError, match=rf"Move {n + 1} of the record \(draw\) is not legal there"):
        replay_record(record)
    lying = record_of_game(game, PLAYERS)
    assert lying.result is not None
    lying.result.totals = (lying.result.totals[0] + 1, lying.result.totals[1])
    with pytest.raises(RecordError, match="but it replays to"):
        replay_record(lying)
    lying = record_of_game(game, PLAYERS)
    assert lying.result is not None
    lying.result.deals[1].hands[0] = [*lying.result.deals[1].hands[0], 55]
    with pytest.raises(RecordError, match="Deal 2 replays to another result"):
        replay_record(lying)
