"""Helpers for the server tests: a server, clients, whole games played by bots.

The server is the real one (sessions, lobby, table masters, storage) reached with
no socket: each client is an in-memory connection (tests/pipe.py) that the server
serves as it serves a socket. The moves are chosen by the engine's heuristic bot
from the view the client received, so games really end. ``tcp_server`` and
``Client.connect`` are for the tests of what only sockets show.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from rummy.engine import Game, NextDeal
from rummy.engine.bots import make_bot
from rummy.net import Client
from rummy.protocol import (
    PROTOCOL_VERSION,
    AddBot,
    CreateTable,
    Error,
    Hello,
    Ok,
    PlayAgain,
    Ready,
    Seated,
    Sit,
    Start,
    TableOptions,
    Welcome,
    errors,
)
from rummy.server import Server, start_server
from tests.pipe import connect_pipe

TIMEOUT = 20.0
FAST = {"bot_delay": 0.0, "deal_pause": 0.05, "rate": 10_000.0, "burst": 10_000}


async def serve(db_path: str | Path | None = None, **options: Any) -> Server:
    """A server that listens nowhere: clients reach it through ``connect``."""
    return await start_server(db_path=db_path, listen=False, **{**FAST, **options})


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    s = await serve()
    yield s
    await s.close()


@pytest.fixture
async def tcp_server() -> AsyncIterator[Server]:
    """A server on loopback, for what only a socket shows."""
    s = await start_server(**FAST)
    yield s
    await s.close()


async def open_client(server: Server, address: str = "127.0.0.1", keep_frames: bool = False) -> Client:
    """A connection to ``server`` from ``address`` (another loopback address, as
    127.0.0.2: another household for the per-address caps), before its hello."""
    reader, writer = await connect_pipe(server, address)
    return Client(reader, writer, keep_frames)


async def connect(server: Server, name: str, lobby: bool = False, keep_frames: bool = False) -> Client:
    c = await open_client(server, keep_frames=keep_frames)
    welcome = await c.request(Hello, version=PROTOCOL_VERSION, name=name, lobby=lobby)
    assert isinstance(welcome, Welcome), welcome
    return c


async def connect_from(address: str, server: Server, name: str, lobby: bool = False) -> Client:
    """A client from ``address`` after its hello."""
    c = await open_client(server, address)
    welcome = await c.request(Hello, version=PROTOCOL_VERSION, name=name, lobby=lobby)
    assert isinstance(welcome, Welcome), welcome
    return c


async def table_of_four(
    server: Server,
    names: tuple[str, ...] = ("Ann", "Bob", "Cy", "Di"),
    bots: int = 0,
    options: TableOptions | None = None,
    keep_frames: bool = False,
) -> tuple[list[Client], list[str], int]:
    """A table with len(names) people (chairs 0..) and ``bots`` bots after them, started.
    Returns the clients, their seat tokens and the table id."""
    clients = [await connect(server, n, keep_frames=keep_frames) for n in names]
    seated = await clients[0].request(CreateTable, name="test", options=options or TableOptions())
    assert isinstance(seated, Seated), seated
    tokens = [seated.token]
    for chair, c in enumerate(clients[1:], start=1):
        s = await c.request(Sit, table_id=seated.table_id, chair=chair)
        assert isinstance(s, Seated), s
        tokens.append(s.token)
    for chair in range(len(names), len(names) + bots):
        assert isinstance(await clients[0].request(AddBot, chair=chair), Ok)
    assert isinstance(await clients[0].request(Start), Ok)
    return clients, tokens, seated.table_id


async def play(c: Client, seed: int = 0, stop_after: int | None = None, game_number: int = 1) -> None:
    """Play this client's seat with the heuristic bot until the game is over (or the
    game has ``stop_after`` moves): moves on its turn, ``ready`` at a deal's end."""
    bot = make_bot("heuristic", random.Random(seed))
    answered = -1

    def my_cue(c: Client) -> bool:
        if c.game is None or c.view is None or c.table is None or c.table.games < game_number:
            return False
        if c.view.phase == "game_over" or (stop_after is not None and c.game.moves >= stop_after):
            return True
        return c.game.moves != answered and (c.view.my_turn or c.view.phase == "deal_over")

    while True:
        await c.until(my_cue, TIMEOUT)
        assert c.game is not None and c.view is not None
        if c.view.phase == "game_over" or (stop_after is not None and c.game.moves >= stop_after):
            return
        answered = c.game.moves
        if c.view.phase == "deal_over":
            reply = await c.request(Ready)
            assert isinstance(reply, Ok | Error), reply  # the deal may already have moved on
            continue
        reply = await c.move(bot.choose(c.view), after=c.game.moves)
        if isinstance(reply, Error) and reply.code == errors.STALE:
            # A stand-in bot moved for this seat while our move was on its way (a player
            # just back from a drop): the server refused ours unchanged; wait for the news.
            continue
        assert isinstance(reply, Ok), reply


def moves_of_seat(server: Server, game_id: int, seat: int | None) -> int:
    """How many moves of a stored game ``seat`` made in its turns: NextDeal is left
    out, as the server may make it for whoever is to act when a deal's pause ends."""
    record = server.storage.game_record(game_id)
    assert record is not None and seat is not None
    game = Game(record.seed, record.seating)
    made = 0
    for move in record.moves:
        made += not isinstance(move, NextDeal) and game.current == seat
        game.apply(move)
    return made


async def play_all(clients: list[Client], **kw: Any) -> None:
    await asyncio.wait_for(
        asyncio.gather(*(play(c, seed=i, **kw) for i, c in enumerate(clients))), TIMEOUT * 3
    )


async def play_again(clients: list[Client]) -> None:
    for c in clients:
        assert isinstance(await c.request(PlayAgain), Ok)


async def close_all(clients: list[Client]) -> None:
    for c in clients:
        await c.close()
