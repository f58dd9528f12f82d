"""Bots at a level: the creator picks easy, normal or hard per chair; everyone sees the
level; it is stored; a hard bot thinks in a worker process, off the event loop."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from rummy.engine import Game, view_for
from rummy.engine.bots import ExpertBot, HeuristicBot
from rummy.net import Client
from rummy.protocol import AddBot, CreateTable, Error, Lobby, Ok, Seated, Start, errors
from rummy.server import Server
from rummy.server.storage import Storage
from rummy.server.thinking import Thinker

from .game_helpers import TIMEOUT, close_all, connect, moves_of_seat, play_all, serve, server
from .test_hostile import raw

__all__ = ["server"]


async def _seat_bots(server: Server, levels: dict[int, str | None]) -> tuple[Client, int]:
    ann = await connect(server, "Ann")
    seated = await ann.request(CreateTable, name="levels")
    assert isinstance(seated, Seated)
    for chair, level in levels.items():
        fields = {} if level is None else {"level": level}
        assert isinstance(await ann.request(AddBot, chair=chair, **fields), Ok)
    return ann, seated.table_id


async def test_each_bot_shows_its_level_and_people_none(server: Server) -> None:
    """add_bot's level (normal when left out) is the chair's ``level`` in the table push
    and in the lobby; a person's chair has none."""
    ann, _ = await _seat_bots(server, {1: "easy", 2: None, 3: "hard"})
    await ann.until(lambda c: c.table is not None and c.table.chairs[3].bot)
    table = ann.table
    assert table is not None
    assert [ch.level for ch in table.chairs] == [None, "easy", "normal", "hard"]
    watcher = await connect(server, "Wat", lobby=True)
    await watcher.until(lambda c: any(isinstance(m, Lobby) for m in c.received))
    (listing,) = [m for m in watcher.received if isinstance(m, Lobby)]
    assert [ch.level for ch in listing.tables[0].chairs] == [None, "easy", "normal", "hard"]
    await close_all([ann, watcher])


async def test_an_unknown_level_is_refused_and_seats_nobody(server: Server) -> None:
    ann, table_id = await _seat_bots(server, {})
    ann.send_raw(raw({"type": "add_bot", "id": 50, "chair": 1, "level": "godlike"}))
    await ann.until(lambda c: any(isinstance(m, Error) for m in c.received))
    (refusal,) = [m for m in ann.received if isinstance(m, Error)]
    assert refusal.code == errors.BAD_FIELD and refusal.id == 50
    assert server.table(table_id).chairs[1] is None
    await close_all([ann])


async def test_a_bot_of_each_level_plays_the_game_out() -> None:
    """One person with an easy, a normal and a hard bot: the game is played to its end,
    and the hard bot's decisions were made in the worker process."""
    server = await serve(hard_bot_iterations=3)
    try:
        ann, table_id = await _seat_bots(server, {1: "easy", 2: "normal", 3: "hard"})
        assert isinstance(await ann.request(Start), Ok)
        await play_all([ann])
        assert ann.view is not None and ann.view.phase == "game_over"
        table = server.table(table_id)
        assert table is not None
        hard_moves = moves_of_seat(server, table.game_id, table.seat_of_chair(3))
        # Every move the hard bot made was decided in the pool (a game's length varies:
        # the count is the stored game's, not a fixed floor).
        assert hard_moves > 0 and server.lobby.thinker.decisions >= hard_moves
        await close_all([ann])
    finally:
        await server.close()


async def test_levels_are_stored_and_come_back_after_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "levels.db"
    server = await serve(db)
    try:
        ann, table_id = await _seat_bots(server, {1: "hard", 2: "easy"})
        await close_all([ann])
    finally:
        await server.close()
    with sqlite3.connect(db) as con:
        stored = dict(con.execute("SELECT chair, level FROM chairs WHERE table_id=?", (table_id,)))
    assert stored == {0: None, 1: "hard", 2: "easy"}
    again = await serve(db)
    try:
        table = again.table(table_id)
        assert [c.level if c is not None else "free" for c in table.chairs] == [None, "hard", "easy", "free"]
    finally:
        await again.close()


async def test_a_database_from_before_levels_opens_and_its_bots_play_normal(tmp_path: Path) -> None:
    """A chairs table without the level column gets it; its bots come back at normal."""
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as con:
        con.executescript(
            """
            CREATE TABLE tables (id INTEGER PRIMARY KEY, name TEXT NOT NULL, options TEXT NOT NULL,
                creator INTEGER, created REAL NOT NULL, closed REAL);
            CREATE TABLE chairs (table_id INTEGER NOT NULL, chair INTEGER NOT NULL, name TEXT NOT NULL,
                token_hash TEXT, bot INTEGER NOT NULL, PRIMARY KEY (table_id, chair));
            INSERT INTO tables VALUES (1, 'old', '{}', 0, 0.0, NULL);
            INSERT INTO chairs VALUES (1, 0, 'Ann', 'x', 0), (1, 1, 'Bot 2', NULL, 1);
            """
        )
    snapshot = Storage(db).load()
    assert [(c.name, c.level) for c in snapshot.tables[0].chairs] == [("Ann", None), ("Bot 2", None)]
    server = await serve(db)
    try:
        chairs = server.table(1).info().chairs
        assert [c.level for c in chairs[:2]] == [None, "normal"]
    finally:
        await server.close()


async def test_the_thinker_runs_a_hard_bot_in_a_worker_and_keeps_its_memory() -> None:
    """A hard bot's move comes from the worker, legal, with the bot as it is after
    deciding (a copy that came back); the other levels decide on the spot."""
    thinker = Thinker(workers=1, iterations=3)
    try:
        game = Game(4, seating="chosen")
        view = view_for(game, game.current)
        expert = thinker.new_bot("hard")
        assert isinstance(expert, ExpertBot)
        move, kept = await asyncio.wait_for(thinker.choose(expert, view), TIMEOUT)
        assert move in view.legal_moves()
        assert isinstance(kept, ExpertBot) and kept is not expert
        assert thinker.decisions == 1
        normal = thinker.new_bot("normal")
        assert isinstance(normal, HeuristicBot)
        move, kept = await thinker.choose(normal, view)
        assert kept is normal and move in view.legal_moves() and thinker.decisions == 1
    finally:
        thinker.close()
