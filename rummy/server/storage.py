"""Durable storage: SQLite (the standard library), written before anyone is told.

What is kept: tables (name, options, creator), their chairs (name, bot flag and
level, and the SHA-256 of the seat token: the token itself never touches the disk), every
game (seed, seating, the engine revision that plays it, who sat in each seat,
when it started and ended, the totals and each deal's result) and every move
of every game, in order. A game is rebuilt by replaying its moves from its seed;
the finished ones are read back for the history and replays (``archive``).

Writes are grouped: each ``write_soon`` joins the next batch, and its callback is
called (on the event loop) once that batch is committed. The batches are made
and committed by one thread of their own, the writer (the only thread that
writes through the connection), so the event loop never waits on the disk, and
many tables' moves share one fsync; when the storage is busy (a commit a moment
ago) the writer waits ``GATHER`` seconds for more writes before it commits. The
writer does its own waiting and hands back each batch in one call: a task on
the loop that slept, handed the batch to a worker thread and woke each write's
future was a good part of what storing a move cost the loop.

Durability: WAL with ``synchronous=FULL`` (the default) syncs the log at every
commit, so a committed move survives SIGKILL and power loss alike; grouping
keeps that to one fsync per batch (about 3 ms here). ``sync="normal"`` skips
that fsync: a commit is then in the operating system's hands when it returns,
which still survives SIGKILL of the server (a crash loses nothing acknowledged) but not a
power cut; an operator may choose it for a slow disk (``rummy-server --sync``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar, cast

import msgspec

from ..engine import ENGINE_VERSION, Game, GameRecord, Move, Seating
from ..protocol.messages import PlayedBy
from ..protocol.wire import MoveWire, move_from_wire
from .statements import Statement

log = logging.getLogger(__name__)

# Seconds a write waits for others to share its commit, when busy... Each commit
# costs an fsync, and on a virtual machine every fsync is a round of exits to the
# hypervisor: at 2,000 moves a second, 10 ms (about 30 moves a commit) took the
# writer's CPU a move from 0.041 ms to 0.027-0.032 against 4 ms (20 a commit;
# bench/parts.py), for some 6 ms more before a busy server answers a move.
GATHER = 0.010
BUSY = 0.02  # ...that is, when the last commit was less than this long ago
# A commit this slow (seconds) held every write waiting for it as long, and so every
# move those writes carried: it is said in the log, at most once a minute, so that a
# host sees when the disk is what makes moves slow. On these virtual machines a
# commit takes about 1 ms, and now and then the disk takes 100-600 ms to sync one:
# at 2,000 tables those are a run's slowest moves (docs/PERFORMANCE.md).
SLOW_COMMIT = 0.1
SLOW_COMMIT_TOLD_EVERY = 60.0
_move_decoder = msgspec.json.Decoder(MoveWire)

T = TypeVar("T")
Committed = Callable[[BaseException | None], None]  # called once a write is committed, or with why not

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, options TEXT NOT NULL,
    creator INTEGER, created REAL NOT NULL, closed REAL
);
CREATE TABLE IF NOT EXISTS chairs (
    table_id INTEGER NOT NULL, chair INTEGER NOT NULL, name TEXT NOT NULL,
    token_hash TEXT, bot INTEGER NOT NULL, level TEXT, PRIMARY KEY (table_id, chair)
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY, table_id INTEGER NOT NULL, number INTEGER NOT NULL,
    seed TEXT NOT NULL, seating TEXT NOT NULL, players TEXT NOT NULL,
    started REAL NOT NULL, finished REAL, totals TEXT,
    engine INTEGER NOT NULL DEFAULT 1, results TEXT
);
CREATE TABLE IF NOT EXISTS game_players (
    game_id INTEGER NOT NULL, seat INTEGER NOT NULL, chair INTEGER NOT NULL,
    name TEXT NOT NULL, bot INTEGER NOT NULL, level TEXT, PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS moves (
    game_id INTEGER NOT NULL, n INTEGER NOT NULL, move TEXT NOT NULL, at REAL NOT NULL,
    auto TEXT, PRIMARY KEY (game_id, n)
);
CREATE INDEX IF NOT EXISTS games_by_table ON games (table_id, number);
CREATE INDEX IF NOT EXISTS games_by_finish ON games (finished) WHERE finished IS NOT NULL;
CREATE INDEX IF NOT EXISTS players_by_name ON game_players (name) WHERE bot = 0;
"""
# Columns added since the first schema: (table, column, declaration) for older files.
ADDED_COLUMNS = (
    ("chairs", "level", "TEXT"),  # before bots had levels: theirs was "normal" (None here)
    ("moves", "auto", "TEXT"),  # before moves said who played them (timer, stand-in)
    ("games", "engine", "INTEGER NOT NULL DEFAULT 1"),
    ("games", "results", "TEXT"),
    ("game_players", "level", "TEXT"),  # before a game's bots kept their levels (None here)
)


@dataclass(slots=True)
class StoredChair:
    chair: int
    name: str
    token_hash: str | None
    bot: bool
    level: str | None = None  # a bot's level; None for a person (and for bots stored before levels)


@dataclass(slots=True)
class StoredGame:
    id: int
    number: int
    seed: int
    seating: str
    finished: bool
    engine: int = ENGINE_VERSION  # the engine revision that plays it (replayed with that one)
    moves: list[Move] = field(default_factory=list)
    autos: list[PlayedBy | None] = field(default_factory=list)  # who played each move for its seat

    @property
    def record(self) -> GameRecord:
        """The engine's record of it (the engine checks the seating when it replays)."""
        return GameRecord(self.seed, cast(Seating, self.seating), tuple(self.moves))


@dataclass(slots=True)
class FinishedGame:
    """A finished game of a table, for its running tally: names by seat, and totals."""

    game_id: int
    names: list[str]
    totals: tuple[int, int]


@dataclass(slots=True)
class StoredTable:
    id: int
    name: str
    options: str  # JSON of TableOptions
    creator: int | None
    chairs: list[StoredChair]
    game: StoredGame | None  # the latest game, with its moves
    games: int
    finished: list[FinishedGame] = field(default_factory=list)  # in the order played


@dataclass(slots=True)
class Snapshot:
    tables: list[StoredTable]
    last_table_id: int
    last_game_id: int
    set_aside: list[tuple[int, str]] = field(default_factory=list)  # (table id, why) not loaded


def _int(value: object, what: str) -> int:
    """A stored whole number (SQLite keeps whatever it was given)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"the {what} {value!r} is not a whole number")
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"the {what} {value!r} is not a whole number") from None


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"the {what} {value!r} is not text")
    return value


def stored_move(text: object) -> Move:
    """A move as stored: the wire's form, as JSON (``statements.add_move``). Raises
    ValueError for anything else."""
    if not isinstance(text, str | bytes):
        raise ValueError(f"a stored move is JSON text, not {type(text).__name__}")
    try:
        return move_from_wire(_move_decoder.decode(text))
    except msgspec.DecodeError as error:
        raise ValueError(f"not a move: {error}") from None


class StorageError(Exception):
    """The database cannot be used; ``str()`` is one sentence for the host."""


def _connect(path: str) -> sqlite3.Connection:
    """Open the database file at ``path`` (created if absent) and check that it can be
    served: a SQLite database, undamaged (``PRAGMA quick_check``), writable, in a
    directory where its journal can be written. Raises ``StorageError`` saying why not."""
    file = Path(path)
    if file.is_dir():
        raise StorageError(f"{file} is a directory, not a database file.")
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StorageError(f"cannot create the directory {file.parent}: {e.strerror}.") from None
    if not os.access(file.parent, os.W_OK | os.X_OK):
        raise StorageError(
            f"the directory {file.parent} is read-only (the database writes its journal beside it)."
        )
    if file.exists() and not os.access(file, os.R_OK | os.W_OK):
        raise StorageError(f"{file} is read-only (or not readable): the server must write its moves there.")
    try:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as e:
        raise StorageError(f"cannot open {file}: {e}.") from None
    try:
        problems = [row[0] for row in db.execute("PRAGMA quick_check(3)")]
        if problems != ["ok"]:
            raise StorageError(f"{file} is damaged (SQLite's quick_check says: {problems[0]}).")
        # A write that changes nothing, to find a read-only file system (or a file
        # SQLite opened read-only) now rather than at the first move.
        db.execute("BEGIN IMMEDIATE")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        db.execute(f"PRAGMA user_version={int(version)}")
        db.execute("ROLLBACK")
    except sqlite3.DatabaseError as e:
        db.close()
        text = str(e)
        if "not a database" in text:
            raise StorageError(f"{file} is not a SQLite database.") from None
        if "malformed" in text:
            raise StorageError(f"{file} is damaged (truncated or overwritten): {text}.") from None
        if "locked" in text:
            raise StorageError(
                f"{file} is in use by another program (is a server already running?)."
            ) from None
        if "readonly" in text or "read-only" in text:
            raise StorageError(f"{file} is read-only: the server must write its moves there.") from None
        raise StorageError(f"cannot use {file}: {text}.") from None
    except StorageError:
        db.close()
        raise
    return db


class Storage:
    """One SQLite database. ``path`` None keeps it in memory (for tests and the local game).
    Raises ``StorageError`` (one sentence) when the file cannot be served."""

    def __init__(self, path: str | Path | None, sync: str = "full") -> None:
        if sync not in ("full", "normal"):
            raise ValueError(f"sync must be 'full' or 'normal', not {sync!r}")
        self.path = str(path) if path is not None else ":memory:"
        if path is None:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        else:
            self._db = _connect(self.path)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={sync.upper()}")
            self._db.executescript(SCHEMA)
            self._migrate()
        except sqlite3.Error as e:
            self._db.close()
            raise StorageError(f"cannot set up {self.path}: {e}.") from None
        # The writer thread and what waits for it (None: stop), started at the first write.
        self._queue: queue.SimpleQueue[tuple[Sequence[Statement], Committed] | None] = queue.SimpleQueue()
        self._writer: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # where the callbacks are called
        self._closing = False  # close() has begun: no write is taken any more
        # An in-memory database has one connection: its reads take turns with the
        # writer's transactions (a read inside one would see what is not committed).
        self._turns = threading.Lock()
        self._reader: sqlite3.Connection | None = None  # for ``read``, opened when first needed
        self._read_executor: ThreadPoolExecutor | None = None
        self.commits = 0  # batches committed (the load generator reports it)
        self.slow_commits = 0  # batches whose commit took SLOW_COMMIT or longer
        self.slowest_commit = 0.0  # seconds
        self._slow_told = float("-inf")  # when a slow commit was last said in the log

    def _migrate(self) -> None:
        """Bring a file written by an older version up to this schema (nothing is lost)."""
        db = self._db
        for table, column, declaration in ADDED_COLUMNS:
            have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            if column not in have:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
        # Games stored before ``game_players`` existed: their seats follow from the
        # seed's draw for partners; bots are known from the chairs that still hold them.
        rows = db.execute(
            "SELECT id, table_id, seed, seating, players FROM games"
            " WHERE id NOT IN (SELECT game_id FROM game_players)"
        ).fetchall()
        for game_id, table_id, seed, seating, players in rows:
            names = json.loads(players)
            if seating not in ("draw", "chosen") or len(names) != 4:
                continue
            seat_of = Game(int(seed), seating).partner_draw.seat_of_chair
            bots = {
                (c, n)
                for c, n in db.execute(
                    "SELECT chair, name FROM chairs WHERE table_id=? AND bot=1", (table_id,)
                )
            }
            for chair, name in enumerate(names):
                db.execute(
                    "INSERT INTO game_players (game_id, seat, chair, name, bot) VALUES (?, ?, ?, ?, ?)",
                    (game_id, seat_of[chair], chair, name, int((chair, name) in bots)),
                )

    async def read(self, query: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``query(connection)`` off the event loop, so that it never waits on the
        disk. A database file is read through a connection and a thread of its own: with
        WAL, readers never wait for the writer nor hold it up, so players asking for the
        history cannot delay anyone's moves. (An in-memory database has one connection:
        its reads take turns with the writes.)"""
        loop = asyncio.get_running_loop()
        if self._read_executor is None:
            self._read_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rummy-db-read")
        if self.path == ":memory:":
            return await loop.run_in_executor(self._read_executor, self._in_turn, query)
        if self._reader is None:
            self._reader = sqlite3.connect(self.path, check_same_thread=False)
            self._reader.execute("PRAGMA query_only=ON")
        return await loop.run_in_executor(self._read_executor, query, self._reader)

    def _in_turn(self, query: Callable[[sqlite3.Connection], T]) -> T:
        with self._turns:
            return query(self._db)

    # --- reading, once, at start -------------------------------------------------

    def load(self) -> Snapshot:
        """Everything needed to restore the open tables and their latest games. A table
        whose rows cannot be read (a move that is not JSON, a seed that is not a number)
        is left out and named in ``set_aside`` with the reason; its rows stay as they are."""
        db = self._db
        tables: list[StoredTable] = []
        set_aside: list[tuple[int, str]] = []
        rows = db.execute(
            "SELECT id, name, options, creator FROM tables WHERE closed IS NULL ORDER BY id"
        ).fetchall()
        for table_id, name, options, creator in rows:
            try:
                tables.append(self._load_table(table_id, name, options, creator))
            except (ValueError, TypeError) as error:  # json.JSONDecodeError is a ValueError
                set_aside.append((table_id, str(error)))
        last_table = db.execute("SELECT coalesce(max(id), 0) FROM tables").fetchone()[0]
        last_game = db.execute("SELECT coalesce(max(id), 0) FROM games").fetchone()[0]
        return Snapshot(tables, int(last_table), int(last_game), set_aside)

    def _load_table(self, table_id: int, name: object, options: object, creator: object) -> StoredTable:
        db = self._db
        chairs = [
            StoredChair(
                _int(c, "chair"),
                _text(n, "chair name"),
                h if h is None else _text(h, "token"),
                bool(b),
                level if level is None else _text(level, "bot level"),
            )
            for c, n, h, b, level in db.execute(
                "SELECT chair, name, token_hash, bot, level FROM chairs WHERE table_id=? ORDER BY chair",
                (table_id,),
            )
        ]
        games = db.execute("SELECT count(*) FROM games WHERE table_id=?", (table_id,)).fetchone()[0]
        row = db.execute(
            "SELECT id, number, seed, seating, finished, engine FROM games WHERE table_id=?"
            " ORDER BY number DESC LIMIT 1",
            (table_id,),
        ).fetchone()
        game = None
        if row is not None:
            game = StoredGame(
                row[0], _int(row[1], "game number"), _int(row[2], "seed"), _text(row[3], "seating"),
                row[4] is not None, _int(row[5], "engine revision"),
            )  # fmt: skip
            game.moves = self.game_moves(game.id)
            game.autos = self.game_autos(game.id)
        stored = StoredTable(
            table_id,
            _text(name, "table name"),
            _text(options, "options"),
            None if creator is None else _int(creator, "creator"),
            chairs,
            game,
            games,
        )
        stored.finished = self._finished_games(table_id)
        return stored

    def _finished_games(self, table_id: int) -> list[FinishedGame]:
        db = self._db
        finished = []
        for game_id, totals in db.execute(
            "SELECT id, totals FROM games WHERE table_id=? AND finished IS NOT NULL ORDER BY number",
            (table_id,),
        ).fetchall():
            names = [
                n
                for (n,) in db.execute(
                    "SELECT name FROM game_players WHERE game_id=? ORDER BY seat", (game_id,)
                )
            ]
            a, b = json.loads(totals)
            if len(names) == 4:
                finished.append(FinishedGame(game_id, names, (int(a), int(b))))
        return finished

    def game_record(self, game_id: int) -> GameRecord | None:
        """A stored game as the engine's record (seed, seating, moves), to replay it."""
        row = self._db.execute("SELECT seed, seating FROM games WHERE id=?", (game_id,)).fetchone()
        if row is None:
            return None
        return GameRecord(int(row[0]), cast(Seating, row[1]), tuple(self.game_moves(game_id)))

    def game_autos(self, game_id: int) -> list[PlayedBy | None]:
        """Who played each move of a game for its seat, when its player did not ("timer",
        "stand_in"; None for the player's own). Raises ValueError for anything else."""
        autos: list[PlayedBy | None] = []
        for n, (auto,) in enumerate(
            self._db.execute("SELECT auto FROM moves WHERE game_id=? ORDER BY n", (game_id,))
        ):
            if auto not in (None, "timer", "stand_in"):
                raise ValueError(f"move {n} of game {game_id} says it was played by {auto!r}")
            autos.append(auto)
        return autos

    def game_moves(self, game_id: int) -> list[Move]:
        """The moves of any game, finished or not (for replays and tests). Raises
        ValueError for a stored move that is not one."""
        rows = self._db.execute("SELECT move FROM moves WHERE game_id=? ORDER BY n", (game_id,))
        moves = []
        for n, (text,) in enumerate(rows):
            try:
                moves.append(stored_move(text))
            except ValueError as error:
                raise ValueError(f"move {n} of game {game_id}: {error}") from None
        return moves

    # --- writing ----------------------------------------------------------------

    def write_soon(self, statements: Sequence[Statement], then: Committed) -> None:
        """Run ``statements`` in one transaction (with whatever else is waiting), then
        call ``then`` on the event loop: with None once they are committed, or with the
        ``sqlite3.Error`` if they failed (and nothing of them was stored), or with a
        ``StorageError`` if ``close`` has begun (nothing stored)."""
        if self._closing:
            # The writer has been told to stop (or has stopped): nobody would ever
            # commit this, and its caller would wait for ever. Told as a failed write:
            # nothing of it is stored, and the runner refuses the change.
            asyncio.get_running_loop().call_soon(then, StorageError("The storage is closed."))
            return
        if self._writer is None:
            self._loop = asyncio.get_running_loop()
            self._writer = threading.Thread(target=self._write_all, name="rummy-db", daemon=True)
            self._writer.start()
        self._queue.put((statements, then))

    async def write(self, statements: Sequence[Statement]) -> None:
        """``write_soon``, and wait for the commit. Raises ``sqlite3.Error``, or
        ``StorageError`` once the storage is closing."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def then(error: BaseException | None) -> None:
            if done.done():  # the caller stopped waiting
                return
            if error is None:
                done.set_result(None)
            else:
                done.set_exception(error)

        self.write_soon(statements, then)
        await done

    def _write_all(self) -> None:
        """The writer thread: commit what waits, in batches, until told to stop."""
        assert self._loop is not None
        waiting = self._queue
        last_commit = float("-inf")
        stop = False
        while not stop:
            first = waiting.get()
            if first is None:
                return
            if time.monotonic() - last_commit < BUSY:
                # Busy: gather the writes of the next few milliseconds into this
                # commit. At a person's pace batches were of one or two moves, each
                # paying an fsync; idle, nothing waits.
                time.sleep(GATHER)
            batch = [first]
            while not waiting.empty():
                item = waiting.get()
                if item is None:
                    stop = True
                    break
                batch.append(item)
            started = time.monotonic()
            results = self._commit_batch(batch)
            last_commit = time.monotonic()
            self._time_commit(last_commit - started, len(batch))
            try:
                self._loop.call_soon_threadsafe(self._committed, batch, results)
            except RuntimeError:  # the loop is closed: nobody waits for these any more
                return

    def _time_commit(self, seconds: float, writes: int) -> None:
        """The writer keeps its slowest commit, and says so in the log when one was slow
        (SLOW_COMMIT), at most once every SLOW_COMMIT_TOLD_EVERY seconds: a disk that is
        slow all the time must not fill the log."""
        self.slowest_commit = max(self.slowest_commit, seconds)
        if seconds < SLOW_COMMIT:
            return
        self.slow_commits += 1
        now = time.monotonic()
        if now - self._slow_told >= SLOW_COMMIT_TOLD_EVERY:
            self._slow_told = now
            log.warning(
                "storage: a commit took %.0f ms (writes waiting for it: %d; commits of %.0f ms"
                " or more so far: %d): the disk was slow to sync",
                seconds * 1000,
                writes,
                SLOW_COMMIT * 1000,
                self.slow_commits,
            )

    def _commit_batch(self, batch: list[tuple[Sequence[Statement], Committed]]) -> list[BaseException | None]:
        try:
            self._commit([s for group, _ in batch for s in group])
            return [None] * len(batch)
        except Exception:
            # One bad group must not sink the others: commit each alone.
            results: list[BaseException | None] = []
            for group, _ in batch:
                try:
                    self._commit(group)
                    results.append(None)
                except Exception as failure:  # an sqlite3.Error; anything else is a bug, told alike
                    log.error("storage write failed: %s", failure)
                    results.append(failure)
            return results

    def _committed(
        self, batch: list[tuple[Sequence[Statement], Committed]], results: list[BaseException | None]
    ) -> None:
        """On the loop: tell each write of a batch how it went."""
        for (_, then), outcome in zip(batch, results, strict=True):
            try:
                then(outcome)
            except Exception:  # one caller's bug must not keep the others from hearing
                log.exception("storage: a write's callback failed")

    def _commit(self, statements: Sequence[Statement]) -> None:
        db = self._db
        with self._turns:
            db.execute("BEGIN IMMEDIATE")
            try:
                for sql, params in statements:
                    db.execute(sql, params)
                db.execute("COMMIT")
                self.commits += 1
            except BaseException:
                db.execute("ROLLBACK")
                raise

    async def close(self) -> None:
        """Wait for the writes in flight, then close the database."""
        loop = asyncio.get_running_loop()
        self._closing = True
        if self._writer is not None:
            self._queue.put(None)
            await loop.run_in_executor(None, self._writer.join)
            # The writer's last batches were handed to the loop before it ended: their
            # callbacks come before this (the loop runs what it is handed in order).
        if self.slow_commits:
            log.warning(
                "storage: %d of %d commits took %.0f ms or more, the slowest %.0f ms",
                self.slow_commits,
                self.commits,
                SLOW_COMMIT * 1000,
                self.slowest_commit * 1000,
            )
        if self._read_executor is not None:
            self._read_executor.shutdown(wait=True)
        if self._reader is not None:
            self._reader.close()
        self._db.close()
