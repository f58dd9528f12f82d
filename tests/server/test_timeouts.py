"""Nobody holds a place for ever: idle connections outside a table, players silent on
their turn and unfinished frames time out, and part of the connection cap is kept for
people who play."""

from __future__ import annotations

import asyncio
import logging

import pytest

from rummy.engine import SEAT_NAMES
from rummy.net import Client
from rummy.protocol import (
    PROTOCOL_VERSION,
    Error,
    Hello,
    Ping,
    Pong,
    TableOptions,
    Watch,
    Watching,
    Welcome,
    errors,
    frame,
)
from rummy.server import start_server
from tests.support import eventually

from .game_helpers import FAST, close_all, connect, open_client, play, table_of_four


async def fatal(c: Client, code: str) -> Error:
    await c.until(lambda c: any(e.code == code for e in c.errors))
    e = next(e for e in c.errors if e.code == code)
    assert e.fatal
    await c.until(lambda c: c.closed)
    return e


async def test_a_connection_that_says_nothing_outside_a_table_is_closed() -> None:
    """Idle connections that said hello were held for ever (4,696 of them filled the
    server); now one not at a table that sends nothing for ``idle_timeout`` is closed.
    Someone who sends requests, or is at a table (in a chair or watching), stays."""
    server = await start_server(**{**FAST, "idle_timeout": 0.5})
    try:
        # The table first: the pinger, had it connected before, sat idle while the
        # table was set up, and on a busy machine that took longer than the timeout.
        players, _, table_id = await table_of_four(server, names=("Ann", "Bob"), bots=2)
        idle = await connect(server, "Idle", lobby=True)
        pinging = await connect(server, "Pinger")
        watcher = await connect(server, "Wes")
        assert isinstance(await watcher.request(Watch, table_id=table_id), Watching)
        for _ in range(12):  # 1.2 s: over twice the timeout
            assert isinstance(await pinging.request(Ping), Pong)
            await asyncio.sleep(0.1)
        e = await fatal(idle, errors.IDLE_TIMEOUT)
        assert "0.5 s" in e.text
        for c in (pinging, *players, watcher):
            assert not c.closed
            assert isinstance(await c.request(Ping), Pong)
        await close_all([idle, pinging, *players, watcher])
    finally:
        await server.close()


async def test_a_player_silent_while_the_game_waits_for_their_move_is_taken_for_gone() -> None:
    """A laptop shut mid-game leaves a connection TCP keeps for ever when nothing is
    sent on it: the table looked on at a player "present" whose turn never came to an
    end. A player who says something (a ping, as rummy-client does) while thinking
    stays; one silent for ``turn_silence`` while the game waits for their move is cut
    off, their chair held as when they drop (a stand-in plays it here), and their
    token brings them back."""
    server = await start_server(**{**FAST, "turn_silence": 0.5})
    players, tokens, table_id = await table_of_four(
        server, names=("Ann", "Bob"), bots=2, options=TableOptions(on_drop="bot")
    )
    ann, bob = players
    bob_plays = asyncio.create_task(play(bob))
    try:
        await ann.until(lambda c: c.view is not None and c.view.my_turn)
        assert ann.view is not None
        seat, moves = ann.view.seat, ann.game.moves if ann.game else -1
        for _ in range(12):  # 1.2 s of thinking aloud: over twice the limit
            assert isinstance(await ann.request(Ping), Pong)
            await asyncio.sleep(0.1)
        assert not ann.closed and ann.view.my_turn
        e = await fatal(ann, errors.SILENT_TURN)  # now silent
        assert "0.5 s" in e.text and "held" in e.text
        assert server.stats[errors.SILENT_TURN] == 1  # Bob, who plays his turns, never
        await bob.until(lambda c: c.table is not None and not c.table.chairs[0].present)
        # The stand-in ended the turn the game had waited on.
        await bob.until(lambda c: c.game is not None and c.game.moves > moves and c.view.current != seat)
        back = await open_client(server)
        welcome = await back.request(Hello, version=PROTOCOL_VERSION, name="Ann", token=tokens[0])
        assert isinstance(welcome, Welcome) and (welcome.table_id, welcome.chair) == (table_id, 0)
        assert welcome.turn_silence == 0.5  # the pace a client keeps to (rummy-client: a third)
        await bob.until(lambda c: c.table is not None and c.table.chairs[0].present)
        await close_all([back])
    finally:
        bob_plays.cancel()
        await close_all(players)
        await server.close()


async def test_a_player_taken_for_gone_for_silence_is_said_in_the_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Every other closing of a connection by the server is said in its log; one cut
    for ``silent-turn`` was not, and a host could not tell why a player had gone. Its
    line says the table and seat (through the server's throttle, as the others), and
    never the seat's token."""
    server = await start_server(**{**FAST, "turn_silence": 0.3})
    players, tokens, table_id = await table_of_four(
        server, names=("Ann",), bots=3, options=TableOptions(on_drop="bot")
    )
    ann = players[0]
    try:
        with caplog.at_level(logging.INFO, logger="rummy"):
            await ann.until(lambda c: c.view is not None and c.view.my_turn)
            assert ann.view is not None
            seat = ann.view.seat
            await fatal(ann, errors.SILENT_TURN)

            def said() -> list[str]:
                return [r.getMessage() for r in caplog.records if "silent" in r.getMessage()]

            await eventually(lambda: said(), what="a log line of the silent player")
        [line] = said()
        assert f"table {table_id}, seat {seat} ({SEAT_NAMES[seat]})" in line and "0.3 s" in line, line
        assert not any(tokens[0] in r.getMessage() for r in caplog.records)
    finally:
        await close_all(players)
        await server.close()


async def test_connections_closed_by_their_deadlines_are_said_in_the_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A connection closed for saying no hello in time, or for sitting idle outside a
    table, left no line in the server's log (the flood, the slow reader and the silent
    player each had one): a host could not tell why a player had gone, nor see a
    crowd of half-open connections. Each now has its line, with its address."""
    server = await start_server(**{**FAST, "hello_timeout": 0.3, "idle_timeout": 0.5})
    try:
        with caplog.at_level(logging.INFO, logger="rummy"):
            mute = await open_client(server, "127.0.0.2")
            idle = await connect(server, "Idle", lobby=True)
            await fatal(mute, errors.HELLO_TIMEOUT)
            await fatal(idle, errors.IDLE_TIMEOUT)

            def said(code: str) -> list[str]:
                return [r.getMessage() for r in caplog.records if f"({code})" in r.getMessage()]

            await eventually(
                lambda: said(errors.HELLO_TIMEOUT) and said(errors.IDLE_TIMEOUT), what="both lines"
            )
        assert "127.0.0.2" in said(errors.HELLO_TIMEOUT)[0]
        assert "0.5 s" in said(errors.IDLE_TIMEOUT)[0]
        await close_all([mute, idle])
    finally:
        await server.close()


async def test_a_frame_left_unfinished_is_cut_off() -> None:
    """A frame left three bytes short held its buffer for ever."""
    server = await start_server(**{**FAST, "frame_timeout": 0.3, "idle_timeout": 60.0})
    try:
        short = await connect(server, "Short")
        short.send_raw((100).to_bytes(4, "big") + b"\x81" + b"x" * 96)
        slow = await connect(server, "Slow")
        whole = frame(b"\x82\xa4type\xa4ping\xa2id\x07")
        for i in range(len(whole)):  # a byte at a time, each frame done within the time
            slow.send_raw(whole[i : i + 1])
            await asyncio.sleep(0.01)
        await slow.until(lambda c: any(isinstance(m, Pong) and m.id == 7 for m in c.received))
        e = await fatal(short, errors.FRAME_TIMEOUT)
        assert "0.3 s" in e.text
        assert isinstance(await slow.request(Ping), Pong)
        await close_all([short, slow])
    finally:
        await server.close()


async def test_the_cap_keeps_room_for_people_who_play() -> None:
    """Once the connections outside a chair take all but ``player_reserve`` of the cap,
    a newcomer is refused at hello; players keep their places and one coming back
    with a seat token is let in."""
    server = await start_server(**{**FAST, "max_connections": 10, "player_reserve": 0.3})
    try:
        players, tokens, _ = await table_of_four(server, names=("Ann", "Bob"), bots=2)
        lobby = [await connect(server, f"L{i}") for i in range(7)]  # 7 of 10 outside a chair
        late = await Client.connect(server.host, server.port)
        refused = await late.request(Hello, version=PROTOCOL_VERSION, name="Late")
        assert isinstance(refused, Error) and refused.code == errors.TOO_MANY_CONNECTIONS and refused.fatal
        await late.until(lambda c: c.closed)
        await players[1].close()  # Bob drops, and comes back with his token
        bob = await Client.connect(server.host, server.port)
        welcome = await bob.request(Hello, version=PROTOCOL_VERSION, name="Bob", token=tokens[1])
        assert isinstance(welcome, Welcome) and welcome.chair == 1
        assert isinstance(await players[0].request(Ping), Pong)
        await close_all([players[0], bob, late, *lobby])
    finally:
        await server.close()
