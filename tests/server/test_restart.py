"""Durable: a server killed with SIGKILL mid-game and started again loses nothing that
was acknowledged; tables, chairs and tokens come back and the players rejoin.

The server runs as a real process (``python -m rummy.server.cli``) on a real file.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import sqlite3
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from rummy.engine import DealStarted, Game, GameRecord, view_for
from rummy.engine.bots import make_bot
from rummy.net import Client
from rummy.protocol import (
    PROTOCOL_VERSION,
    AddBot,
    CreateTable,
    Error,
    GameUpdate,
    Hello,
    Ok,
    Seated,
    Sit,
    Start,
    TableOptions,
    Welcome,
    errors,
    event_from_wire,
    view_from_wire,
)
from rummy.server.storage import stored_move

from .game_helpers import play, play_all

ADDRESS = re.compile(rb"listening on ([0-9.]+):(\d+)")


@asynccontextmanager
async def server_process(
    db: Path, hangup_ignored: bool = False, port: int = 0
) -> AsyncIterator[tuple[asyncio.subprocess.Process, int]]:
    """``hangup_ignored``: started as ``nohup`` starts it, with SIGHUP ignored; ``port``
    0: a free one (another: the port of a server started before, to restart it)."""
    ignore = (lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN)) if hangup_ignored else None
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "rummy.server.cli",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--db",
        str(db),
        "--bot-delay",
        "0",
        "--deal-pause",
        "0.05",
        "--rate",
        "10000",
        "--burst",
        "10000",
        "--log-level",
        "warning",
        stdout=asyncio.subprocess.PIPE,
        preexec_fn=ignore,
    )
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), 20)
    found = ADDRESS.search(line)
    assert found, line
    try:
        yield proc, int(found.group(2))
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def hello(port: int, name: str, token: str | None = None) -> tuple[Client, Welcome]:
    c = await Client.connect("127.0.0.1", port)
    w = await c.request(Hello, version=PROTOCOL_VERSION, name=name, token=token, lobby=True)
    assert isinstance(w, Welcome)
    return c, w


def stored_game(db: Path, table_id: int) -> tuple[GameRecord, bool]:
    with sqlite3.connect(db) as con:
        gid, seed, seating, finished = con.execute(
            "SELECT id, seed, seating, finished FROM games WHERE table_id=? ORDER BY number DESC", (table_id,)
        ).fetchone()
        moves = [r[0] for r in con.execute("SELECT move FROM moves WHERE game_id=? ORDER BY n", (gid,))]
    record = GameRecord(int(seed), seating, tuple(stored_move(m) for m in moves))
    return record, finished is not None


async def test_sigkill_mid_game_loses_nothing_acknowledged(tmp_path: Path) -> None:
    db = tmp_path / "rummy.db"
    async with server_process(db) as (proc, port):
        ann, _ = await hello(port, "Ann")
        bob, _ = await hello(port, "Bob")
        cy, _ = await hello(port, "Cy")
        seated = await ann.request(CreateTable, name="durable", options=TableOptions())
        assert isinstance(seated, Seated)
        bob_seat = await bob.request(Sit, table_id=seated.table_id, chair=1)
        assert isinstance(bob_seat, Seated)
        for chair in (2, 3):
            assert isinstance(await ann.request(AddBot, chair=chair), Ok)
        other = await cy.request(CreateTable, name="waiting", options=TableOptions(on_drop="bot"), chair=3)
        assert isinstance(other, Seated)
        assert isinstance(await ann.request(Start), Ok)
        await asyncio.gather(play(ann, seed=1, stop_after=40), play(bob, seed=2, stop_after=40))
        # The last thing: a move by whoever is to act among Ann and Bob, then SIGKILL the
        # moment its "ok" arrives.
        assert bob.game is not None and bob.game.seat is not None
        bob_seat_number = bob.game.seat
        await ann.until(  # Ann's view says whose turn it is: hers, Bob's, or a bot's (wait)
            lambda c: (
                c.view is not None
                and c.view.phase in ("draw", "meld")
                and (c.view.my_turn or c.view.current == bob_seat_number)
            )
        )
        assert ann.view is not None
        mover = ann if ann.view.my_turn else bob
        await mover.until(lambda c: c.view is not None and c.view.my_turn)
        assert mover.view is not None and mover.game is not None
        before = {c: (c.game.moves, c.view) for c in (ann, bob) if c.game and c.view}
        acknowledged = mover.game.moves + 1
        reply = await mover.move(
            make_bot("heuristic", random.Random(5)).choose(mover.view), after=mover.game.moves
        )
        assert isinstance(reply, Ok)
        os.kill(proc.pid, signal.SIGKILL)
        await proc.wait()
        for c in (ann, bob, cy):
            await c.close()

    record, finished = stored_game(db, seated.table_id)
    assert not finished and len(record.moves) >= acknowledged
    for n, view in before.values():  # what the players were shown is the stored game's prefix
        prefix = Game.replay(GameRecord(record.seed, record.seating, record.moves[:n]))
        assert view == view_for(prefix, view.seat)

    async with server_process(db) as (proc, port):
        ann, w_ann = await hello(port, "Ann", seated.token)
        bob, w_bob = await hello(port, "Bob", bob_seat.token)
        cy, w_cy = await hello(port, "Cy", other.token)
        assert (w_ann.table_id, w_ann.chair) == (seated.table_id, 0)
        assert (w_bob.table_id, w_bob.chair) == (seated.table_id, 1)
        assert (w_cy.table_id, w_cy.chair) == (other.table_id, 3)
        await ann.until(lambda c: c.view is not None)
        assert ann.game is not None and ann.view is not None
        first_seen = (ann.game.moves, ann.view)  # the bots may have moved on already
        assert first_seen[0] >= len(record.moves)
        # The log survives the restart: the deal so far is told again, from storage, in
        # the first game push (later ones may have come already: the bots play on).
        joined = next(m for m in ann.received if isinstance(m, GameUpdate))
        assert (joined.history is not None and joined.moves == first_seen[0]) or joined is not ann.game
        told = [event_from_wire(e) for step in joined.history for e in step.events]
        first_seen = (joined.moves, view_from_wire(joined.view))
        await cy.until(lambda c: c.table is not None)
        assert cy.table is not None and cy.table.status == "waiting" and cy.table.options.on_drop == "bot"
        await play_all([ann, bob])
        assert ann.view is not None and ann.view.phase == "game_over"
        proc.send_signal(signal.SIGTERM)  # a clean stop this time
        assert await asyncio.wait_for(proc.wait(), 10) == 0
        for c in (ann, bob, cy):
            await c.close()

    final, finished = stored_game(db, seated.table_id)
    assert finished and Game.replay(final).is_over  # finished games are kept with their moves
    assert final.moves[: len(record.moves)] == record.moves  # nothing lost, nothing changed
    n, view = first_seen
    assert view == view_for(Game.replay(GameRecord(final.seed, final.seating, final.moves[:n])), view.seat)
    replay = Game(final.seed, final.seating)
    story = list(replay.opening_events)  # the deal's story: from its start to move n
    for move in final.moves[:n]:
        events = replay.apply(move)
        story = events if any(isinstance(e, DealStarted) for e in events) else story + events
    assert told == story


async def test_a_hangup_stops_the_server_cleanly_unless_started_under_nohup(tmp_path: Path) -> None:
    """Seen in tmux: closing the terminal a server ran in (SIGHUP) killed it outright,
    its players cut off with no word. It now stops as on ^C or SIGTERM: each player is
    told the server is shutting down, and it exits 0. Started under nohup, it ignores
    the hangup, as the host asked."""
    async with server_process(tmp_path / "a.db") as (proc, port):
        ann, _ = await hello(port, "Ann")
        proc.send_signal(signal.SIGHUP)
        assert await asyncio.wait_for(proc.wait(), 20) == 0
        await ann.until(lambda c: c.closed)
        assert any(isinstance(m, Error) and m.code == errors.SHUTTING_DOWN for m in ann.received)
        await ann.close()
    async with server_process(tmp_path / "b.db", hangup_ignored=True) as (proc, port):
        proc.send_signal(signal.SIGHUP)
        bob, welcome = await hello(port, "Bob")  # served after the hangup...
        assert proc.returncode is None and welcome.name == "Bob"
        proc.send_signal(signal.SIGTERM)  # ...and stopped only when asked
        assert await asyncio.wait_for(proc.wait(), 20) == 0
        await bob.close()
