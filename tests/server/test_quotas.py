"""No address can take every table: quotas per connection and per address, and a game
whose people are all gone ends after a while (also after a restart)."""

from __future__ import annotations

from pathlib import Path

from rummy.net import Client
from rummy.protocol import (
    PROTOCOL_VERSION,
    AddBot,
    CreateTable,
    Error,
    Hello,
    Leave,
    Ok,
    Rejoin,
    Seated,
    Start,
    TableOptions,
    Welcome,
    errors,
)
from rummy.server import Server
from tests.support import eventually

from .game_helpers import FAST, close_all, connect, connect_from, open_client, serve, server

__all__ = ["server"]

QUOTAS = {**FAST, "tables_per_connection": 2, "tables_per_address": 3}


async def open_and_leave(c: Client) -> Seated | Error:
    """What the attack did: a table with three bots, started, then left to them (the
    chair is held for its token, so the table stays)."""
    seated = await c.request(CreateTable, name="mine", options=TableOptions(on_drop="wait"))
    if isinstance(seated, Error):
        return seated
    assert isinstance(seated, Seated), seated
    for chair in (1, 2, 3):
        assert isinstance(await c.request(AddBot, chair=chair), Ok)
    assert isinstance(await c.request(Start), Ok)
    assert isinstance(await c.request(Leave), Ok)
    return seated


async def test_one_connection_and_one_address_open_only_so_many_tables() -> None:
    server = await serve(**QUOTAS)
    try:
        mallory = await connect(server, "Mallory")
        opened = [await open_and_leave(mallory) for _ in range(3)]
        assert [isinstance(s, Seated) for s in opened] == [True, True, False]
        refused = opened[2]
        assert (
            isinstance(refused, Error) and refused.code == errors.TABLE_QUOTA and "2 tables" in refused.text
        )
        again = await connect(server, "Mallory again")  # a new connection from the same address
        assert isinstance(await open_and_leave(again), Seated)
        refused = await open_and_leave(again)
        assert isinstance(refused, Error) and refused.code == errors.TABLE_QUOTA and "address" in refused.text
        assert len(server.open_tables()) == 3
        honest = await connect_from("127.0.0.2", server, "Ann")  # another address: its own quota
        assert isinstance(await honest.request(CreateTable, name="Ann's"), Seated)
        await close_all([mallory, again, honest])
    finally:
        await server.close()


async def test_a_closed_table_gives_its_place_in_the_quota_back(server: Server) -> None:
    server_options = server.options
    assert server_options.tables_per_connection >= 1
    c = await connect(server, "Ann")
    for _ in range(server_options.tables_per_connection + 2):  # each closes as Ann leaves it
        assert isinstance(await c.request(CreateTable, name="t"), Seated)
        assert isinstance(await c.request(Leave), Ok)
    assert server.open_tables() == []
    await c.close()


async def test_a_game_whose_people_are_all_gone_ends_after_a_while() -> None:
    """The sweeper skipped playing tables, and bots stop at an absent player's turn, so
    a game left to bots held its table for ever; now it ends after ``keep_deserted``
    seconds, its token is refused, and the quota it held is free again."""
    server = await serve(**{**QUOTAS, "keep_deserted": 0.2, "abandon_after": 0.2})
    try:
        mallory = await connect(server, "Mallory")
        first = await open_and_leave(mallory)
        second = await open_and_leave(mallory)
        assert isinstance(first, Seated) and isinstance(second, Seated)
        await eventually(lambda: not server.open_tables())
        refused = await mallory.request(Rejoin, token=first.token)
        assert isinstance(refused, Error) and refused.code == errors.BAD_TOKEN
        assert isinstance(await open_and_leave(mallory), Seated)  # the quota was given back
        await mallory.close()
    finally:
        await server.close()


async def test_a_player_who_comes_back_in_time_finds_the_game() -> None:
    server = await serve(**{"keep_deserted": 60.0, "abandon_after": 0.05})
    try:
        ann = await connect(server, "Ann")
        seated = await open_and_leave(ann)
        assert isinstance(seated, Seated)
        # A table nobody plays at, opened after Ann's: once the sweeper has closed it,
        # it has looked at Ann's game too, past abandon_after, while she was away.
        bob = await connect(server, "Bob")
        empty = await bob.request(CreateTable, name="empty", options=TableOptions())
        assert isinstance(empty, Seated)
        assert isinstance(await bob.request(Leave), Ok)
        await eventually(lambda: server.table(empty.table_id) is None)
        assert server.table(seated.table_id) is not None
        await bob.close()
        back = await ann.request(Rejoin, token=seated.token)
        assert isinstance(back, Seated) and back.table_id == seated.table_id
        await ann.close()
    finally:
        await server.close()


async def test_a_deserted_game_restored_after_a_restart_ends_too(tmp_path: Path) -> None:
    """The tables came back after a restart, with nobody to play them."""
    db = tmp_path / "rummy.db"
    server = await serve(db, **{**QUOTAS, "keep_deserted": 3600.0})
    try:
        ann = await connect(server, "Ann")
        seated = await open_and_leave(ann)
        assert isinstance(seated, Seated)
        await ann.close()
    finally:
        await server.close()
    server = await serve(db, **{**QUOTAS, "keep_deserted": 0.2, "abandon_after": 0.2})
    try:
        assert server.table(seated.table_id) is not None
        await eventually(lambda: not server.open_tables())
        ann = await open_client(server)
        welcome = await ann.request(Hello, version=PROTOCOL_VERSION, name="Ann", token=seated.token)
        assert isinstance(welcome, Welcome) and welcome.table_id is None and welcome.token_refused
        await ann.close()
    finally:
        await server.close()
