"""Saved games: the record format of docs/RECORDS.md, for files and for the wire.

A record holds what is needed to watch a finished game again: the seed, the
seating and every move (the engine replays them, RULES R3.4), who sat in each
seat, and the result as it was scored, so that a replay can be checked against
it. One ``msgspec.Struct`` is both the payload of the server's ``record`` answer
(MessagePack) and the file (JSON): a file is what the server would send.

Sans-I/O like the rest of the package: bytes in, records out, and back.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from ..engine import ENGINE_VERSION, Event, Game, GameRecord, IllegalMove, Move, Seating, move_text
from .wire import (
    DealResultWire,
    MoveWire,
    PlayedBy,
    Points,
    Seat,
    Team,
    move_from_wire,
    move_to_wire,
    result_to_wire,
)

RECORD_FORMAT: Literal["persian-rummy-game"] = "persian-rummy-game"
RECORD_VERSION = 1  # of the file format; the engine's revision is recorded apart
MAX_MOVES = 5000  # far above any real game (about 300 moves): a bound for a hostile file
MAX_RECORD_BYTES = 4 * 1024 * 1024

# The seed as decimal digits: a real game's 256-bit seed (R3.4) is far beyond
# JavaScript's exact integers, and a record is JSON that bot authors read in any language.
Seed = Annotated[str, Meta(pattern=r"^[0-9]{1,80}$")]
PlayerName = Annotated[str, Meta(max_length=200)]


class RecordError(ValueError):
    """A record that cannot be read or replayed; the message is a sentence for people."""


class RecordPlayer(msgspec.Struct, kw_only=True):
    """Who played ``seat`` (0 South .. 3 East; seats 0+2 and 1+3 are partners, R2.1);
    ``level``: a bot's level (``easy``, ``normal``, ``hard``), nil for a person and
    where the writer did not know it."""

    seat: Seat
    name: PlayerName
    bot: bool = False
    level: Annotated[str, Meta(max_length=20)] | None = None


class RecordResult(msgspec.Struct, kw_only=True):
    """The game's end as the writer scored it: both totals, the winning team (nil for a
    tie, R8.2) and each deal's result (every hand at its end and each team's score, R7)."""

    totals: tuple[Points, Points]
    winner: Team | None
    deals: Annotated[list[DealResultWire], Meta(max_length=2)] = msgspec.field(default_factory=list)


class GameRecordWire(msgspec.Struct, kw_only=True):
    """One saved game. ``engine`` is the engine revision that played it (``ENGINE_VERSION``);
    ``written_by`` names the program. ``moves`` come last in a file, one per line."""

    format: Literal["persian-rummy-game"] = RECORD_FORMAT
    version: Annotated[int, Meta(ge=1)] = RECORD_VERSION
    engine: Annotated[int, Meta(ge=1)]
    written_by: Annotated[str, Meta(max_length=100)] = ""
    seed: Seed
    seating: Seating
    players: Annotated[list[RecordPlayer], Meta(min_length=4, max_length=4)]
    table: Annotated[str, Meta(max_length=200)] = ""
    game_id: Annotated[int, Meta(ge=1, le=2**53)] | None = None
    started: float | None = None
    finished: float | None = None
    result: RecordResult | None = None
    # Who played each move for its seat when its player did not (nil: the player);
    # empty when nobody ever did, or the writer did not know.
    autos: Annotated[list[PlayedBy | None], Meta(max_length=MAX_MOVES)] = msgspec.field(default_factory=list)
    moves: Annotated[list[MoveWire], Meta(max_length=MAX_MOVES)]


class _Head(msgspec.Struct):
    """Read first, so that a file of another format or a newer version gets a clear word."""

    format: str = ""
    version: int = 0


@cache
def written_by() -> str:
    """This program, as a record names its writer: "persian-rummy 0.1.0"."""
    from importlib import metadata  # costs the client's start 25 ms; only records need it

    try:
        return f"persian-rummy {metadata.version('persian-rummy')}"
    except metadata.PackageNotFoundError:
        return "persian-rummy"


def result_of(game: Game) -> RecordResult | None:
    """The result of a finished game (None while it is still played)."""
    if not game.is_over:
        return None
    return RecordResult(
        totals=game.totals(), winner=game.winner(), deals=[result_to_wire(r) for r in game.results]
    )


def make_record(
    seed: int,
    seating: Seating,
    moves: Sequence[Move],
    players: Sequence[RecordPlayer],
    *,
    engine: int = ENGINE_VERSION,
    result: RecordResult | None = None,
    table: str = "",
    game_id: int | None = None,
    started: float | None = None,
    finished: float | None = None,
    autos: Sequence[PlayedBy | None] = (),
) -> GameRecordWire:
    """A record from its parts (the server builds it from storage)."""
    if seed < 0:
        raise ValueError("a seed is not negative")
    return GameRecordWire(
        engine=engine,
        written_by=written_by(),
        seed=str(seed),
        seating=seating,
        players=sorted(players, key=lambda p: p.seat),
        table=table,
        game_id=game_id,
        started=started,
        finished=finished,
        result=result,
        autos=list(autos) if any(a is not None for a in autos) else [],
        moves=[move_to_wire(m) for m in moves],
    )


def record_of_game(
    game: Game,
    players: Sequence[RecordPlayer],
    *,
    table: str = "",
    started: float | None = None,
    finished: float | None = None,
) -> GameRecordWire:
    """The record of ``game`` as it stands (rummy-sim writes its games with it)."""
    return make_record(
        game.seed,
        game.seating,
        game.moves,
        players,
        result=result_of(game),
        table=table,
        started=started,
        finished=finished,
    )


def engine_record(record: GameRecordWire) -> GameRecord:
    """The engine's own form: seed, seating, moves."""
    return GameRecord(int(record.seed), record.seating, tuple(move_from_wire(m) for m in record.moves))


def check_record(record: GameRecordWire) -> None:
    """Raise ``RecordError`` unless the record can be replayed here: its players sit in
    the four seats, and its engine revision is one this engine knows."""
    if sorted(p.seat for p in record.players) != [0, 1, 2, 3]:
        raise RecordError("The record does not name one player for each of the four seats.")
    if record.autos and len(record.autos) != len(record.moves):
        raise RecordError("The record's list of who played each move does not match its moves.")
    if record.engine > ENGINE_VERSION:
        raise RecordError(
            f"This game was played by engine revision {record.engine}, newer than this program's "
            f"({ENGINE_VERSION}): update Persian Rummy to watch it."
        )


def opening(record: GameRecordWire) -> Game:
    """The recorded game before its first move (the partner draw and the first deal
    done); ``RecordError`` if this engine cannot replay the record."""
    check_record(record)
    try:
        return Game.replay(GameRecord(int(record.seed), record.seating, ()), record.engine)
    except ValueError as error:
        raise RecordError(f"The record cannot be replayed: {error}.") from None


def apply_recorded(game: Game, number: int, move: Move) -> list[Event]:
    """Play recorded move ``number`` (1 is the first) on ``game``; ``RecordError`` if it
    is not legal there (a damaged record, or one this engine replays differently)."""
    try:
        return game.apply(move)
    except IllegalMove as error:
        raise RecordError(
            f"Move {number} of the record ({move_text(move)}) is not legal there: {error.message}"
        ) from None


def replay_record(record: GameRecordWire) -> Game:
    """Replay the whole record and check that it ends as it says (``RecordError`` if not)."""
    game = opening(record)
    for number, wire in enumerate(record.moves, 1):
        apply_recorded(game, number, move_from_wire(wire))
    check_result(record, game)
    return game


def check_result(record: GameRecordWire, game: Game) -> None:
    """``RecordError`` if the replayed ``game`` does not end as the record says it did:
    the totals and the winner, and each deal's result when the record has them."""
    said = record.result
    if said is None:
        return
    got = result_of(game)
    if got is None:
        raise RecordError(
            f"The record says the game ended {_scores(said.totals)}, but it replays to an unfinished game."
        )
    if (got.totals, got.winner) != (said.totals, said.winner):
        raise RecordError(
            f"The record says the game ended {_scores(said.totals)}, but it replays to {_scores(got.totals)}."
        )
    if said.deals and said.deals != got.deals:
        pairs = enumerate(zip(said.deals, got.deals, strict=False), 1)
        deal = next((i for i, (a, b) in pairs if a != b), min(len(said.deals), len(got.deals)) + 1)
        raise RecordError(f"Deal {deal} replays to another result than the record says.")


def _scores(totals: tuple[int, int]) -> str:
    return f"{totals[0]} to {totals[1]}"


# --- files ----------------------------------------------------------------------

_json = msgspec.json.Encoder()


def encode_record_file(record: GameRecordWire) -> bytes:
    """The file's bytes: JSON laid out to be read and diffed, one field per line and
    one player, deal or move per line."""
    return (_layout(msgspec.to_builtins(record), 0) + "\n").encode()


def _layout(value: Any, depth: int) -> str:
    """Maps break into one key per line down to depth 1, lists of maps into one item
    per line; anything deeper is compact JSON."""
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, dict) and value and depth <= 1:
        items = [f"{inner}{_json.encode(k).decode()}: {_layout(v, depth + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        items = [inner + _json.encode(v).decode() for v in value]
        return "[\n" + ",\n".join(items) + f"\n{pad}]"
    return _json.encode(value).decode()


def decode_record(data: bytes, json: bool = True) -> GameRecordWire:
    """Read a record (a file's JSON, or MessagePack with ``json`` False); ``RecordError``
    with a sentence when it is not a record this program can read."""
    if len(data) > MAX_RECORD_BYTES:
        raise RecordError(f"This is not a game record: it is over {MAX_RECORD_BYTES // 2**20} MiB.")
    codec = msgspec.json if json else msgspec.msgpack
    try:
        head = codec.decode(data, type=_Head)
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise RecordError("This is not a Persian Rummy game record (it is not a map of fields).") from None
    if head.format != RECORD_FORMAT:
        raise RecordError(f"This is not a Persian Rummy game record (format {head.format!r}).")
    if head.version > RECORD_VERSION:
        raise RecordError(
            f"This record is in format version {head.version}, newer than this program reads "
            f"({RECORD_VERSION}): update Persian Rummy to open it."
        )
    try:
        record: GameRecordWire = codec.decode(data, type=GameRecordWire)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        raise RecordError(f"This game record is damaged: {error}.") from None
    check_record(record)
    return record
