"""Storage: seeds from a secure source, stored (R3.4); tokens never stored in the clear;
grouped commits; a failed write refuses the move and changes nothing."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from rummy.engine import Discard, DrawStock, Game, GameRecord
from rummy.net import Client
from rummy.protocol import (
    AddBot,
    CreateTable,
    Error,
    Leave,
    Ok,
    RemoveBot,
    Seated,
    Sit,
    TableOptions,
    Watch,
    Watching,
    errors,
)
from rummy.protocol.wire import PassWire
from rummy.server import Server
from rummy.server import statements as sql
from rummy.server import storage as storage_module
from rummy.server.storage import Storage, StorageError
from tests.support import eventually

from .game_helpers import close_all, connect, play_all, serve, server, table_of_four

__all__ = ["server"]


async def test_each_game_gets_its_own_secret_seed_and_it_replays_the_game(server: Server) -> None:
    """R3.4: the shuffle comes from a secure source, and the seed is recorded with the game."""
    first, _, t1 = await table_of_four(server, names=("A",), bots=3)
    second, _, t2 = await table_of_four(server, names=("B",), bots=3)
    await play_all([*first, *second], stop_after=15)
    for c in (first[0], second[0]):  # the bots play on until it is the person's turn again
        await c.until(lambda c: c.view is not None and c.view.my_turn)
    seeds = []
    for tid in (t1, t2):
        table = server.table(tid)
        assert table.game is not None
        data = server.storage.game_record(table.game_id)
        assert data is not None
        seeds.append(data.seed)
        replayed = Game.replay(data)
        assert replayed.snapshot() == table.game.snapshot()
    assert seeds[0] != seeds[1] and all(s.bit_length() > 32 for s in seeds)
    await close_all([*first, *second])


async def test_seat_tokens_are_stored_only_as_hashes(tmp_path: Path) -> None:
    server = await serve(tmp_path / "r.db")
    try:
        clients, tokens, _ = await table_of_four(server, names=("Ann", "Bob"), bots=2)
        await close_all(clients)
    finally:
        await server.close()
    data = (tmp_path / "r.db").read_bytes() + (
        (tmp_path / "r.db-wal").read_bytes() if (tmp_path / "r.db-wal").exists() else b""
    )
    assert all(token.encode() not in data for token in tokens)
    with sqlite3.connect(tmp_path / "r.db") as con:
        hashes = {h for (h,) in con.execute("SELECT token_hash FROM chairs WHERE bot=0")}
    assert len(hashes) == 2 and all(len(h) == 64 for h in hashes)


async def test_concurrent_writes_are_grouped_and_all_committed(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "g.db")
    statements = [sql.new_game(i, 1, i, 2**63 + i, "draw", ["a", "b", "c", "d"]) for i in range(1, 201)]
    await asyncio.gather(*(storage.write([s]) for s in statements))
    assert storage.commits < 200  # many writes shared a commit
    assert storage.game_record(200) == GameRecord(2**63 + 200, "draw", ())
    await storage.close()


async def test_a_slow_commit_is_said_in_the_log_once_a_minute_and_summed_up_at_close(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every move waits for its commit: a host is told when the disk's sync held them,
    without a line in the log for each commit of a disk that is always slow."""
    storage = Storage(tmp_path / "s.db")
    await storage.write([sql.new_game(1, 1, 1, 5, "draw", [])])
    assert storage.slow_commits == 0 and 0 < storage.slowest_commit < storage_module.SLOW_COMMIT
    monkeypatch.setattr(storage_module, "SLOW_COMMIT", 0.0)  # every commit is slow from here
    with caplog.at_level(logging.WARNING, logger="rummy.server.storage"):
        for i in range(2, 5):
            await storage.write([sql.new_game(i, 1, i, 5, "draw", [])])
        await storage.close()
    assert storage.slow_commits == 3
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2, said  # the first slow commit, then the sum at close
    assert said[0].startswith("storage: a commit took ") and said[0].endswith(
        "ms (writes waiting for it: 1; commits of 0 ms or more so far: 1): the disk was slow to sync"
    )
    assert said[1].startswith("storage: 3 of 4 commits took 0 ms or more, the slowest")


async def test_one_failing_write_does_not_sink_the_others(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "f.db")
    good = sql.new_game(1, 1, 1, 5, "draw", [])
    bad = ("INSERT INTO nowhere VALUES (1)", ())
    results = await asyncio.gather(storage.write([good]), storage.write([bad]), return_exceptions=True)
    assert results[0] is None and isinstance(results[1], sqlite3.Error)
    assert storage.game_record(1) is not None
    await storage.close()


async def test_every_write_is_told_of_its_commit_before_close_returns(tmp_path: Path) -> None:
    """The writer hands each batch back to the loop in one call: a caller whose callback
    fails does not keep the others from hearing, and close waits for them all."""
    storage = Storage(tmp_path / "c.db")
    told: list[tuple[int, BaseException | None]] = []

    def then(i: int) -> Callable[[BaseException | None], None]:
        def committed(error: BaseException | None) -> None:
            told.append((i, error))
            if i == 3:
                raise RuntimeError("a caller's bug")

        return committed

    for i in range(10):
        storage.write_soon([sql.new_game(i + 1, 1, i + 1, 5, "draw", [])], then(i))
    await storage.close()
    assert sorted(told, key=lambda t: t[0]) == [(i, None) for i in range(10)]
    with sqlite3.connect(tmp_path / "c.db") as con:
        assert con.execute("SELECT count(*) FROM games").fetchone()[0] == 10


async def test_a_write_once_close_has_begun_is_told_it_failed_not_left_waiting(tmp_path: Path) -> None:
    """A table's next change can reach the storage from the commit callback of the one
    before it while the server is closing: it is told at once that nothing was stored
    (the runner then refuses it), instead of waiting for a writer that has stopped."""
    storage = Storage(tmp_path / "c.db")
    await storage.write([sql.new_game(1, 1, 1, 5, "draw", [])])
    told: list[BaseException | None] = []

    def first_committed(error: BaseException | None) -> None:
        told.append(error)
        storage.write_soon([sql.new_game(2, 1, 2, 5, "draw", [])], told.append)  # the next change

    storage.write_soon([sql.new_game(3, 1, 3, 5, "draw", [])], first_committed)
    await storage.close()
    await eventually(lambda: len(told) == 2)
    assert told[0] is None
    assert isinstance(told[1], StorageError) and str(told[1]) == "The storage is closed."
    with pytest.raises(StorageError):
        await storage.write([sql.new_game(4, 1, 4, 5, "draw", [])])
    with sqlite3.connect(tmp_path / "c.db") as con:
        assert [r[0] for r in con.execute("SELECT id FROM games ORDER BY id")] == [1, 3]


async def test_a_move_that_cannot_be_saved_is_refused_and_changes_nothing(server: Server) -> None:
    """Nothing is told before it is stored: a failed write leaves the game as it was."""
    clients, _, table_id = await table_of_four(server)
    table = server.table(table_id)
    assert table.game is not None
    for c in clients:
        await c.until(lambda c: c.view is not None)
    mover = next(c for c in clients if c.view is not None and c.view.my_turn)
    before = table.game.snapshot()
    storage = server.storage

    with disk_full(storage, "disk I/O error"):
        refused = await mover.move(table.game.legal_moves()[0])
    assert isinstance(refused, Error) and refused.code == errors.INTERNAL
    assert table.game.snapshot() == before
    await play_all(clients)
    await close_all(clients)


async def test_a_bots_move_that_cannot_be_saved_is_tried_again_not_left_waiting() -> None:
    """A bot's move whose write failed was dropped, and nothing else would move the bot:
    the game against bots stood still for ever after one failed write. The bot now
    tries again, and the game goes on once the disk takes writes again."""
    server = await serve(bot_delay=0.2)  # time to fill the disk before a bot's write
    clients, _, table_id = await table_of_four(server, names=("Ann",), bots=3)
    ann = clients[0]
    table = server.table(table_id)
    await ann.until(lambda c: c.view is not None and c.view.my_turn)
    assert isinstance(await ann.move(DrawStock()), Ok)
    await ann.until(lambda c: c.view is not None and c.view.phase == "meld")
    assert ann.view is not None and ann.view.hand
    assert isinstance(await ann.move(Discard(ann.view.hand[0])), Ok)
    assert table.game is not None
    moves = len(table.game.moves)
    with disk_full(server.storage) as tried:
        await eventually(lambda: tried, what="a bot's write")
    await ann.until(lambda c: c.view is not None and c.view.my_turn)  # the bots have played
    assert len(table.game.moves) > moves
    await close_all(clients)
    await server.close()


async def test_a_stopping_server_moves_no_bot_and_fails_no_write(caplog: pytest.LogCaptureFixture) -> None:
    """As the server stops, its tables stop: people leaving during the goodbye set no
    bot going again. Bots played on until the storage closed under them, and each move
    then failed ("storage write failed: The storage is closed"), for ever once a failed
    bot move was tried again."""
    server = await serve()
    options = TableOptions(on_drop="bot")  # Ann's leaving hands her seat to a stand-in
    clients, _, _ = await table_of_four(server, names=("Ann",), bots=3, options=options)
    await clients[0].until(lambda c: c.view is not None and c.view.my_turn)
    with caplog.at_level(logging.INFO, logger="rummy"):
        await server.close()
    failed = [
        r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR and r.name.startswith("rummy")
    ]
    assert not failed, failed
    await close_all(clients)


async def test_someone_lost_as_their_table_closes_is_let_go_without_a_failure(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """A connection lost while its table's closing is being stored: the table hears of
    it after it has closed. The lobby looked the table up by its id then, no longer
    there, and the change failed with a KeyError in the log."""
    ann, bob = await connect(server, "Ann"), await connect(server, "Bob")
    seated = await ann.request(CreateTable, name="t")
    assert isinstance(seated, Seated)
    assert isinstance(await bob.request(Watch, table_id=seated.table_id), Watching)
    storage = server.storage
    held: list[Any] = []
    store = storage.write_soon
    storage.write_soon = lambda statements, then: held.append((statements, then))  # type: ignore[method-assign]
    try:
        leaving = asyncio.ensure_future(ann.request(Leave))  # the last person: the table closes
        await eventually(lambda: len(held) == 1)
        registry = server.lobby.registry
        watching = len(registry.connections)
        await bob.close()
        await eventually(lambda: len(registry.connections) < watching)  # Bob is gone; the table waits
    finally:
        del storage.write_soon  # type: ignore[method-assign]
    with caplog.at_level(logging.INFO, logger="rummy"):
        store(*held[0])
        assert isinstance(await leaving, Ok)
        await eventually(lambda: seated.table_id not in server.lobby.tables)
        await asyncio.sleep(0)  # Bob's leaving, queued behind
    failed = [
        r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR and r.name.startswith("rummy")
    ]
    assert not failed, failed
    await close_all([ann])


@contextlib.contextmanager
def disk_full(storage: Storage, why: str = "database or disk is full") -> Iterator[list[object]]:
    """Every write fails as on a full disk while inside; the list holds the writes tried."""
    tried: list[object] = []

    def failing(statements: object, then: Callable[[BaseException | None], None]) -> None:
        tried.append(statements)
        asyncio.get_running_loop().call_soon(then, sqlite3.OperationalError(why))

    storage.write_soon = failing  # type: ignore[method-assign]
    try:
        yield tried
    finally:
        del storage.write_soon  # type: ignore[method-assign]


async def _waiting_table(server: Server) -> tuple[Client, Client, int]:
    ann, bob = await connect(server, "Ann"), await connect(server, "Bob")
    seated = await ann.request(CreateTable, name="t")
    assert isinstance(seated, Seated)
    assert isinstance(await bob.request(Sit, table_id=seated.table_id, chair=1), Seated)
    assert isinstance(await ann.request(AddBot, chair=2), Ok)
    await ann.until(lambda c: c.table is not None and c.table.chairs[2].bot)
    return ann, bob, seated.table_id


async def test_leave_remove_bot_and_closing_change_nothing_when_not_saved(server: Server) -> None:
    """State changes only after the commit, as moves already do: leaving, removing a bot
    and closing a table changed memory before a failed write and then said 'nothing
    changed'; now the table is as it was, and a lobby follower sees no change either."""
    ann, bob, table_id = await _waiting_table(server)
    watcher = await connect(server, "Wes", lobby=True)
    await watcher.until(lambda c: table_id in c.lobby)
    table = server.table(table_id)
    bot = table.chairs[2].name if table.chairs[2] is not None else None
    with disk_full(server.storage):
        for c, request, kw in ((bob, Leave, {}), (ann, RemoveBot, {"chair": 2}), (ann, Leave, {})):
            refused = await c.request(request, **kw)
            assert isinstance(refused, Error) and refused.code == errors.INTERNAL, refused
        assert table.creator == 0 and [c is not None for c in table.chairs] == [True, True, True, False]
        bob_alone = await bob.request(Leave)  # ...and so is closing, when the last one goes
        assert isinstance(bob_alone, Error)
    assert server.table(table_id) is table
    assert [c.name if c else None for c in table.chairs] == ["Ann", "Bob", bot, None]
    assert ann.table is not None and ann.table.chairs[1].present  # nobody was told otherwise
    info = watcher.lobby[table_id]
    assert [c.name for c in info.chairs] == ["Ann", "Bob", bot, None]
    # Once the disk has room again, the same requests do what they say.
    assert isinstance(await ann.request(RemoveBot, chair=2), Ok)
    assert isinstance(await ann.request(Leave), Ok)
    assert table.creator == 1 and not table.closed
    assert isinstance(await bob.request(Leave), Ok)
    assert table.closed and server.table(table_id) is None
    await close_all([ann, bob, watcher])


async def test_a_table_closed_by_the_sweeper_stays_open_until_that_is_saved() -> None:
    server = await serve(**{"abandon_after": 0.05})
    try:
        ann, bob, table_id = await _waiting_table(server)
        table = server.table(table_id)
        with disk_full(server.storage) as tried:
            await close_all([ann, bob])
            await eventually(lambda: len(tried) >= 3, what="several sweeps trying to close it")
            assert server.table(table_id) is table and not table.closed
        await eventually(lambda: server.table(table_id) is None)
        assert table.closed
    finally:
        await server.close()


def test_a_database_of_an_older_server_is_upgraded(tmp_path: Path) -> None:
    """Moves stored before they said who played them (``auto``) still load; new ones say."""
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as con:
        con.execute(
            "CREATE TABLE moves (game_id INTEGER NOT NULL, n INTEGER NOT NULL, move TEXT NOT NULL,"
            " at REAL NOT NULL, PRIMARY KEY (game_id, n))"
        )
        con.execute('INSERT INTO moves VALUES (1, 0, \'{"type": "draw_stock"}\', 0)')
    storage = Storage(db)

    async def write() -> None:
        await storage.write([sql.add_move(1, 1, PassWire(), "timer")])
        await storage.close()

    asyncio.run(write())
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT n, auto FROM moves ORDER BY n").fetchall() == [(0, None), (1, "timer")]
