"""The lobby's pushes: coalesced, and paused for a player while their game is played."""

from __future__ import annotations

import asyncio

from rummy.protocol import AddBot, CreateTable, Leave, Ok, Seated, Start, TableOptions
from rummy.protocol.messages import Lobby, LobbyTable
from rummy.server import start_server

from .game_helpers import FAST, close_all, connect


async def test_lobby_changes_are_coalesced() -> None:
    """A table that changes several times within the lobby interval reaches a lobby
    follower once, as it then is."""
    server = await start_server(**FAST, lobby_interval=2.0)
    try:
        looker = await connect(server, "Lou", lobby=True)
        ann = await connect(server, "Ann")
        seated = await ann.request(CreateTable, name="Ann's", options=TableOptions())
        assert isinstance(seated, Seated)
        for chair in (1, 2, 3):  # three more changes of the same table
            assert isinstance(await ann.request(AddBot, chair=chair), Ok)
        await looker.until(lambda c: seated.table_id in c.lobby)
        pushes = [m for m in looker.received if isinstance(m, LobbyTable)]
        assert len(pushes) == 1
        assert [ch.name for ch in pushes[0].table.chairs] == ["Ann", "Dara", "Mina", "Kian"]
        await close_all([looker, ann])
    finally:
        await server.close()


async def test_lobby_pauses_while_playing_and_catches_up_after() -> None:
    """A lobby follower seated at a game in play gets no lobby pushes; once they leave
    it they get the whole table list again, with the tables made meanwhile."""
    server = await start_server(**FAST, lobby_interval=0.02)
    try:
        ann = await connect(server, "Ann", lobby=True)
        seated = await ann.request(CreateTable, name="Ann's", options=TableOptions())
        assert isinstance(seated, Seated)
        for chair in (1, 2, 3):
            assert isinstance(await ann.request(AddBot, chair=chair), Ok)
        assert isinstance(await ann.request(Start), Ok)
        # No turn timer: the game waits for Ann's turn, so it is still being played below.
        await ann.until(lambda c: c.table is not None and c.table.status == "playing")
        bob = await connect(server, "Bob")
        other = await bob.request(CreateTable, name="Bob's", options=TableOptions())
        assert isinstance(other, Seated)
        await asyncio.sleep(0.3)  # many lobby intervals
        assert server.lobby.tables[seated.table_id].status == "playing"
        assert other.table_id not in ann.lobby  # paused while Ann plays
        lists = sum(isinstance(m, Lobby) for m in ann.received)
        assert isinstance(await ann.request(Leave), Ok)
        await ann.until(lambda c: other.table_id in c.lobby)
        assert ann.lobby[other.table_id].name == "Bob's"
        assert sum(isinstance(m, Lobby) for m in ann.received) == lists + 1  # the whole list
        await close_all([ann, bob])
    finally:
        await server.close()
