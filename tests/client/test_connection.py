"""The connection service against a real server in this process: hello and the
lobby, a seat token that brings the player back after the server restarts, and
a server that cannot be reached, said in words."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest

from rummy.client import connection as the_connection
from rummy.client.connection import ConnectionChanged
from rummy.engine import DrawStock
from rummy.net import Client
from rummy.protocol import (
    PROTOCOL_VERSION,
    AddBot,
    CreateTable,
    Error,
    Hello,
    MoveRequest,
    Ok,
    Seated,
    Start,
    TableOptions,
    errors,
    move_to_wire,
)
from rummy.protocol.liveness import KEEPALIVE, KEEPALIVE_FLOOR, keepalive_every
from rummy.server import start_server
from tests.e2e.players import HeadlessPlayer
from tests.relay import Relay
from tests.support import eventually

FAST = {"bot_delay": 0.0, "deal_pause": 0.05}


async def test_hello_then_the_lobby() -> None:
    server = await start_server(**FAST)
    player = await HeadlessPlayer(server.host, server.port, "Ann [b]x[/b]").start()
    try:
        assert player.welcome is not None and player.welcome.name == "Ann [b]x[/b]"
        assert player.welcome.table_id is None and player.status == "connected"
        await player.until(lambda p: p.lobby is not None)
        assert player.lobby == {}
    finally:
        await player.close()
        await server.close()


async def test_a_lost_server_is_reported_and_the_seat_is_taken_back(tmp_path: Path) -> None:
    """The client reconnects by itself and offers its seat token: the server (restarted
    from its storage) gives the chair back (Welcome names the table)."""
    db = tmp_path / "server.db"
    server = await start_server(db_path=db, **FAST)
    port = server.port
    player = await HeadlessPlayer("127.0.0.1", port, "Ann").start()
    try:
        seated = await player.answer(player.send(CreateTable, name="Mine", options=TableOptions()))
        assert isinstance(seated, Seated) and player.token == seated.token
        await server.close()
        await player.until(lambda p: "lost" in p.status or "Cannot reach" in p.status)
        server = await start_server("127.0.0.1", port, db, **FAST)
        player.welcome = None
        await player.until(lambda p: p.welcome is not None, timeout=20)
        assert player.welcome is not None and player.welcome.table_id == seated.table_id
        assert player.welcome.chair == 0
    finally:
        await player.close()
        await server.close()


async def test_an_unreachable_server_is_said_in_words() -> None:
    with socket.socket() as probe:  # a port with nobody listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    said: list[object] = []
    from rummy.client.connection import Connection

    connection = Connection("127.0.0.1", port, "Ann", said.append)
    task = asyncio.get_running_loop().create_task(connection.run())
    try:
        await eventually(lambda: said)
        assert isinstance(said[0], ConnectionChanged)
        assert said[0].status == (
            f"Cannot reach 127.0.0.1:{port} (nobody is listening there). Trying again in 0.5 s."
        )
    finally:
        await connection.close()
        task.cancel()


async def test_a_player_in_the_lobby_is_kept_past_the_idle_timeout() -> None:
    """The server closes a connection not at a table that sends nothing for its idle
    timeout: the client says it is still there now and then (a ping), at the pace the
    server's welcome asks for, so a player reading the lobby is not cut off, also
    where the host set the timeout below the client's usual pace; a client that
    does not ping is."""
    server = await start_server(**FAST, idle_timeout=1.5)
    player = await HeadlessPlayer(server.host, server.port, "Ann").start()
    silent = await Client.connect(server.host, server.port)
    try:
        assert player.welcome is not None and player.welcome.idle_timeout == 1.5
        await silent.request(Hello, version=PROTOCOL_VERSION, name="Sid")
        await silent.until(lambda c: c.closed, timeout=10)  # the idle timeout struck
        assert any(isinstance(e, Error) and e.code == errors.IDLE_TIMEOUT for e in silent.errors)
        assert server.stats[errors.IDLE_TIMEOUT] == 1  # the silent one only, never the player
        assert player.status == "connected"
    finally:
        await silent.close()
        await player.close()
        await server.close()


async def test_a_player_thinking_over_a_move_is_not_taken_for_gone() -> None:
    """The server takes a player in a chair who sends nothing for its turn silence,
    while the game waits for their move, for gone (a laptop shut): a player who
    thinks that long, the client still running, is not. The welcome says the
    server's limit, and the client pings at a third of it."""
    server = await start_server(**FAST, turn_silence=1.5)
    player = await HeadlessPlayer(server.host, server.port, "Ann").start()
    try:
        assert player.welcome is not None and player.welcome.turn_silence == 1.5
        seated = await player.answer(player.send(CreateTable, name="Mine", options=TableOptions()))
        assert isinstance(seated, Seated)
        for chair in (1, 2, 3):
            assert isinstance(await player.answer(player.send(AddBot, chair=chair)), Ok)
        assert isinstance(await player.answer(player.send(Start)), Ok)
        await player.until(lambda p: p.view is not None and p.view.my_turn)
        table = server.lobby.tables[seated.table_id]
        # Ann thinks for three times the limit (the bots wait on her all along).
        await eventually(lambda: (table.waiting_on() or (0, 0))[1] >= 4.5, what="4.5 s of Ann's turn")
        assert server.stats[errors.SILENT_TURN] == 0
        assert player.status == "connected" and table.chairs[0] is not None and table.chairs[0].present
    finally:
        await player.close()
        await server.close()


@pytest.mark.parametrize(
    ("said", "every"),
    [
        ((None, None), KEEPALIVE),
        ((900.0, None), KEEPALIVE),
        ((1.5, None), 0.5),
        ((30.0, None), 10.0),
        ((0.0, None), KEEPALIVE_FLOOR),
        ((900.0, 60.0), 20.0),
        ((30.0, 60.0), 10.0),
        ((None, 60.0), 20.0),
    ],
)
def test_the_client_pings_at_a_third_of_the_idle_timeout_or_turn_silence_its_server_said(
    said: tuple[float | None, float | None], every: float
) -> None:
    """A third of the shorter of the welcome's idle timeout and turn silence, never
    more seldom than every 4 minutes (also for a server that says neither), never in
    a busy loop (a server that says 0)."""
    assert keepalive_every(*said) == every


def watch_quickly(monkeypatch: pytest.MonkeyPatch, dead: float, quiet: float | None = None) -> None:
    """The connection's watcher in tenths of seconds: silent 0.3 s is said, ``dead`` s
    is given up (and ``quiet`` s with nothing owed asks, if given)."""
    if quiet is not None:
        monkeypatch.setattr(the_connection, "QUIET", quiet)
    monkeypatch.setattr(the_connection, "SLOW", 0.3)
    monkeypatch.setattr(the_connection, "DEAD", dead)
    monkeypatch.setattr(the_connection, "WATCH_EVERY", 0.05)


async def test_a_server_gone_silent_mid_move_is_said_and_the_connection_made_anew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A network that stalls (the server's bytes held, the player's delivered) while a
    move is in flight: the move is played, its answer never comes. The client said
    nothing and waited for ever, the table frozen and further keys ignored. Now the
    banner says the server is silent, the connection is made anew, and the chair
    comes back with the move played once."""
    watch_quickly(monkeypatch, dead=1.5)
    server = await start_server(**FAST)
    relay = await Relay(server.host, server.port).start()
    player = await HeadlessPlayer("127.0.0.1", relay.port, "Ann").start()
    try:
        options = TableOptions(seating="chosen")
        seated = await player.answer(player.send(CreateTable, name="Mine", options=options))
        for chair in (1, 2, 3):
            await player.answer(player.send(AddBot, chair=chair))
        await player.answer(player.send(Start))
        await player.until(lambda p: p.view is not None and p.view.my_turn and p.view.phase == "draw")
        assert player.view is not None
        before, cards = player.moves, len(player.view.hand)
        relay.stall()
        player.send(MoveRequest, move=move_to_wire(DrawStock()), after=before)
        await player.until(lambda p: p.status.startswith("No answer from"))
        player.welcome = None
        await player.until(lambda p: p.welcome is not None and p.status == "connected")
        assert player.welcome is not None and player.welcome.table_id == seated.table_id
        assert relay.accepted == 2
        await player.until(lambda p: p.moves == before + 1)
        assert player.view is not None and player.view.phase == "meld" and len(player.view.hand) == cards + 1
    finally:
        await player.close()
        await relay.close()
        await server.close()


async def test_a_quiet_server_is_asked_whether_it_is_there(monkeypatch: pytest.MonkeyPatch) -> None:
    """Waiting for the others' moves, nothing is owed: a connection that went silent
    then is found out by a ping, and made anew."""
    watch_quickly(monkeypatch, quiet=0.3, dead=1.0)
    server = await start_server(**FAST)
    relay = await Relay(server.host, server.port).start()
    player = await HeadlessPlayer("127.0.0.1", relay.port, "Ann").start()
    try:
        await eventually(lambda: not player.connection._pending)  # the hello answered
        relay.stall()
        player.welcome = None
        await player.until(lambda p: p.welcome is not None)
        assert relay.accepted == 2 and player.status == "connected"
    finally:
        await player.close()
        await relay.close()
        await server.close()


async def test_a_server_that_takes_and_drops_connections_is_tried_less_and_less() -> None:
    """Something in front of a server that is down (a proxy, a load balancer) accepts
    the connection and drops it at once. The client said it was connected (the banner
    went away) and tried again every half second, for ever; now it is connected only
    once the server says welcome, and waits longer each time."""

    async def drop(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.transport.abort()

    dropper = await asyncio.start_server(drop, "127.0.0.1", 0)
    port = dropper.sockets[0].getsockname()[1]
    said: list[ConnectionChanged] = []
    from rummy.client.connection import Connection

    connection = Connection("127.0.0.1", port, "Ann", said.append)
    task = asyncio.get_running_loop().create_task(connection.run())
    try:
        await eventually(lambda: len(said) >= 3, timeout=15)
        lost = f"Connection to 127.0.0.1:{port} lost. Reconnecting in"
        assert [c.status for c in said[:3]] == [f"{lost} 0.5 s...", f"{lost} 1 s...", f"{lost} 2 s..."]
    finally:
        await connection.close()
        task.cancel()
        dropper.close()
