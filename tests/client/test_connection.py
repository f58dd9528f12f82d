"""The connection service against a real server in this process: hello and the
lobby, a seat token that brings the player back after the server restarts, and
a server that cannot be reached, said in words."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest

from rummy.client.connection import KEEPALIVE, KEEPALIVE_FLOOR, ConnectionChanged, keepalive_every
from rummy.net import Client
from rummy.protocol import PROTOCOL_VERSION, CreateTable, Error, Hello, Seated, TableOptions, errors
from rummy.server import start_server
from tests.e2e.players import HeadlessPlayer
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


@pytest.mark.parametrize(
    ("said", "every"),
    [(None, KEEPALIVE), (900.0, KEEPALIVE), (1.5, 0.5), (30.0, 10.0), (0.0, KEEPALIVE_FLOOR)],
)
def test_the_client_pings_at_a_third_of_the_idle_timeout_its_server_said(
    said: float | None, every: float
) -> None:
    """A third of the welcome's idle timeout, never more seldom than every 4 minutes
    (also for a server that does not say it), never in a busy loop (a server that says 0)."""
    assert keepalive_every(said) == every
