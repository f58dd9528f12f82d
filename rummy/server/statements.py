"""The statements each change of the server stores (SQL and parameters, no I/O).

A table's master builds them and the storage runs them in one transaction; the
schema they write is ``storage.SCHEMA``. Seat tokens are kept only as their
SHA-256 (``token_hash``): the token itself never touches the disk.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any

import msgspec

from ..engine import ENGINE_VERSION
from ..protocol.wire import MoveWire

Statement = tuple[str, tuple[Any, ...]]


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(slots=True)
class StoredPlayer:
    """Who played one seat of a game (chair: where they sat at the table)."""

    seat: int
    chair: int
    name: str
    bot: bool
    level: str | None = None  # a bot's level (None for a person, and for games stored before)


def new_table(table_id: int, name: str, options: str, creator: int | None) -> Statement:
    return (
        "INSERT INTO tables (id, name, options, creator, created) VALUES (?, ?, ?, ?, ?)",
        (table_id, name, options, creator, time.time()),
    )


def set_creator(table_id: int, creator: int | None) -> Statement:
    return ("UPDATE tables SET creator=? WHERE id=?", (creator, table_id))


def close_table(table_id: int) -> Statement:
    return ("UPDATE tables SET closed=? WHERE id=?", (time.time(), table_id))


def put_chair(
    table_id: int, chair: int, name: str, token: str | None, bot: bool, level: str | None = None
) -> Statement:
    return (
        "INSERT OR REPLACE INTO chairs (table_id, chair, name, token_hash, bot, level)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (table_id, chair, name, None if token is None else token_hash(token), int(bot), level),
    )


def free_chair(table_id: int, chair: int) -> Statement:
    return ("DELETE FROM chairs WHERE table_id=? AND chair=?", (table_id, chair))


def new_game(
    game_id: int, table_id: int, number: int, seed: int, seating: str, players: list[str]
) -> Statement:
    """A game starts: ``players`` are the names by chair; the seats go in ``game_player``."""
    return (
        "INSERT INTO games (id, table_id, number, seed, seating, players, started, engine)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (game_id, table_id, number, str(seed), seating, json.dumps(players), time.time(), ENGINE_VERSION),
    )


def game_player(game_id: int, player: StoredPlayer) -> Statement:
    return (
        "INSERT INTO game_players (game_id, seat, chair, name, bot, level) VALUES (?, ?, ?, ?, ?, ?)",
        (game_id, player.seat, player.chair, player.name, int(player.bot), player.level),
    )


def add_move(game_id: int, n: int, move: MoveWire, auto: str | None = None) -> Statement:
    """A move, kept in the wire's form (as JSON), the one form moves are written in.
    ``auto``: who played the move for its seat when its player did not ("timer",
    "stand_in"; the protocol's ``GameUpdate.auto``)."""
    return (
        "INSERT INTO moves (game_id, n, move, at, auto) VALUES (?, ?, ?, ?, ?)",
        (game_id, n, msgspec.json.encode(move).decode(), time.time(), auto),
    )


def finish_game(game_id: int, totals: tuple[int, int], results: Any = None) -> Statement:
    """The game is over: its totals, and ``results`` (each deal's result, as plain
    data) so that a replay can be checked against what was scored."""
    return (
        "UPDATE games SET finished=?, totals=?, results=? WHERE id=?",
        (time.time(), json.dumps(totals), None if results is None else json.dumps(results), game_id),
    )
