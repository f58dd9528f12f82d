"""The finished games: the history list and each game's record (docs/PROTOCOL.md,
"History and replays"; the record format is docs/RECORDS.md).

Only finished games are read here. A game still being played is in no list and
has no record to give (RULES R9: its hands and the order of its stock are
secret until it ends); its ``finished`` time is written in the same commit as
its last move, so a game is either in play or in the archive, never both.

The queries are plain functions of a SQLite connection, run on the storage's
own thread (``Storage.read``) so that the event loop never waits on the disk.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

import msgspec

from ..engine import Move, winner_of
from ..protocol import errors as E
from ..protocol.messages import GameSummary, HistoryPage, Record
from ..protocol.record import RecordPlayer, RecordResult, make_record
from ..protocol.wire import DealResultWire, PlayedBy
from .refused import Refused
from .statements import StoredPlayer
from .storage import Storage, stored_move

# One game's row as the list shows it; the order of the columns is the order of
# ``_Row``'s fields.
_COLUMNS = "g.id, g.table_id, coalesce(t.name, ''), g.number, g.started, g.finished, g.totals"
_MINE = "g.id IN (SELECT game_id FROM game_players WHERE name = :name AND bot = 0)"


@dataclass(slots=True)
class _Row:
    game_id: int
    table_id: int
    table_name: str
    number: int
    started: float
    finished: float
    totals: str


def _page(
    db: sqlite3.Connection, name: str, mine: bool, after: tuple[float, int] | None, n: int
) -> list[_Row]:
    """Up to ``n`` finished games of one group (the asker's or the others'), newest
    first, after the game ``after`` = (finished, id) when given."""
    where = f"g.finished IS NOT NULL AND {'' if mine else 'NOT '}({_MINE})"
    params: dict[str, Any] = {"name": name, "n": n}
    if after is not None:
        where += " AND (g.finished < :f OR (g.finished = :f AND g.id < :i))"
        params["f"], params["i"] = after
    rows = db.execute(
        f"SELECT {_COLUMNS} FROM games g LEFT JOIN tables t ON t.id = g.table_id"
        f" WHERE {where} ORDER BY g.finished DESC, g.id DESC LIMIT :n",
        params,
    ).fetchall()
    return [_Row(*row) for row in rows]


def _players(db: sqlite3.Connection, game_ids: list[int]) -> dict[int, list[StoredPlayer]]:
    found: dict[int, list[StoredPlayer]] = {game_id: [] for game_id in game_ids}
    marks = ",".join("?" * len(game_ids))
    for game_id, seat, chair, name, bot, level in db.execute(
        f"SELECT game_id, seat, chair, name, bot, level FROM game_players WHERE game_id IN ({marks})"
        " ORDER BY seat",
        game_ids,
    ):
        found[game_id].append(
            StoredPlayer(seat, chair, name, bool(bot), level if isinstance(level, str) else None)
        )
    return found


def history(
    db: sqlite3.Connection, name: str, limit: int, before: int | None
) -> tuple[list[tuple[_Row, bool, list[StoredPlayer]]], bool] | None:
    """A page of finished games: those where a player called ``name`` sat first, then
    every other, each group newest finished first; ``before`` continues after that
    game. Returns (rows with their ``mine`` flag and players, whether more follow), or
    None when ``before`` is not a finished game."""
    mine, after = True, None
    if before is not None:
        row = db.execute(
            f"SELECT g.finished, {_MINE} FROM games g WHERE g.id = :id AND g.finished IS NOT NULL",
            {"id": before, "name": name},
        ).fetchone()
        if row is None:
            return None
        after, mine = (row[0], before), bool(row[1])
    rows: list[tuple[_Row, bool]] = []
    if mine:
        rows += [(r, True) for r in _page(db, name, True, after, limit + 1)]
        after = None  # the others' group starts from its newest
    if len(rows) <= limit:
        rows += [(r, False) for r in _page(db, name, False, after, limit + 1 - len(rows))]
    more = len(rows) > limit
    rows = rows[:limit]
    players = _players(db, [r.game_id for r, _ in rows])
    return [(r, m, players[r.game_id]) for r, m in rows], more


@dataclass(slots=True)
class _Finished:
    row: _Row
    seed: int
    seating: str
    engine: int
    results: str | None
    players: list[StoredPlayer]
    moves: list[Move]
    autos: list[PlayedBy | None]  # who played each move for its seat, when its player did not


def finished_game(db: sqlite3.Connection, game_id: int) -> _Finished | None:
    """Everything stored of one finished game; None if there is no such finished game."""
    row = db.execute(
        f"SELECT {_COLUMNS}, g.seed, g.seating, g.engine, g.results"
        " FROM games g LEFT JOIN tables t ON t.id = g.table_id WHERE g.id = ? AND g.finished IS NOT NULL",
        (game_id,),
    ).fetchone()
    if row is None:
        return None
    moves, autos = [], []
    for move, auto in db.execute("SELECT move, auto FROM moves WHERE game_id=? ORDER BY n", (game_id,)):
        moves.append(stored_move(move))
        autos.append(auto if auto in ("timer", "stand_in") else None)
    seed, seating, engine, results = row[7:]
    return _Finished(
        _Row(*row[:7]), int(seed), seating, engine, results, _players(db, [game_id])[game_id], moves, autos
    )


# --- the answers -------------------------------------------------------------------


def _record_players(players: list[StoredPlayer]) -> list[RecordPlayer]:
    return [RecordPlayer(seat=p.seat, name=p.name, bot=p.bot, level=p.level) for p in players]


def _totals(row: _Row) -> tuple[int, int]:
    a, b = json.loads(row.totals)
    return int(a), int(b)


async def history_page(
    storage: Storage, name: str, limit: int, before: int | None, request_id: int
) -> HistoryPage:
    """The ``history`` answer for a player called ``name``."""
    found = await storage.read(lambda db: history(db, name, limit, before))
    if found is None:
        raise Refused(E.NO_SUCH_GAME, "There is no finished game with that number to continue after.")
    rows, more = found
    games = []
    for row, mine, players in rows:
        totals = _totals(row)
        games.append(
            GameSummary(
                game_id=row.game_id,
                table_id=row.table_id,
                table_name=row.table_name,
                number=row.number,
                started=row.started,
                finished=row.finished,
                players=_record_players(players),
                totals=totals,
                winner=winner_of(totals),
                mine=mine,
            )
        )
    return HistoryPage(id=request_id, games=games, more=more)


async def game_record(storage: Storage, game_id: int, request_id: int) -> Record:
    """The ``get_record`` answer: the finished game's record. A game in play, or one
    that never was, is refused the same way (R9: nothing about it leaks)."""
    found = await storage.read(lambda db: finished_game(db, game_id))
    if found is None or len(found.players) != 4 or found.seating not in ("draw", "chosen"):
        raise Refused(E.NO_SUCH_GAME, "There is no finished game with that number.")
    totals = _totals(found.row)
    deals = [] if found.results is None else msgspec.convert(json.loads(found.results), list[DealResultWire])
    record = make_record(
        found.seed,
        found.seating,  # type: ignore[arg-type]
        found.moves,
        _record_players(found.players),
        engine=found.engine,
        result=RecordResult(totals=totals, winner=winner_of(totals), deals=deals),
        table=found.row.table_name,
        game_id=game_id,
        started=found.row.started,
        finished=found.row.finished,
        autos=found.autos,
    )
    return Record(id=request_id, game_id=game_id, record=record)
