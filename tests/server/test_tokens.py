"""What a hello's token does, said plainly (docs/PROTOCOL.md, "Tokens and rejoining")."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

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
    ServerMessage,
    Sit,
    Welcome,
    errors,
)
from rummy.server import Server

from ..support import eventually
from .game_helpers import close_all, connect, open_client, play_all, server, table_of_four

__all__ = ["server"]


async def hello(server: Server, name: str, token: str | None) -> tuple[Client, Welcome]:
    c = await open_client(server)
    welcome = await c.request(Hello, version=PROTOCOL_VERSION, name=name, token=token, lobby=False)
    assert isinstance(welcome, Welcome), welcome
    return c, welcome


async def test_a_refused_token_is_said_so_in_the_welcome(server: Server) -> None:
    clients, tokens, table_id = await table_of_four(server, names=("Ann",), bots=3)
    await play_all(clients, stop_after=4)
    stranger, welcome = await hello(server, "Eve", "not-a-token-of-this-server")
    assert welcome.token_refused and welcome.table_id is None and welcome.chair is None
    plain, welcome = await hello(server, "Fay", None)
    assert not welcome.token_refused and welcome.table_id is None
    await clients[0].close()
    back, welcome = await hello(server, "Ann", tokens[0])
    assert not welcome.token_refused and (welcome.table_id, welcome.chair) == (table_id, 0)
    await close_all([stranger, plain, back])


async def test_rejoining_the_chair_one_holds_answers_seated_again(server: Server) -> None:
    clients, tokens, table_id = await table_of_four(server, names=("Ann",), bots=3)
    again = await clients[0].request(Rejoin, token=tokens[0])
    assert isinstance(again, Seated)
    assert (again.table_id, again.chair, again.token) == (table_id, 0, tokens[0])
    await close_all(clients)


async def test_a_seated_connection_offering_another_tables_token_is_refused(server: Server) -> None:
    first, _, _ = await table_of_four(server, names=("Ann",), bots=3)
    second, tokens_b, _ = await table_of_four(server, names=("Bob",), bots=3)
    answer = await first[0].request(Rejoin, token=tokens_b[0])
    assert isinstance(answer, Error) and answer.code == errors.ALREADY_AT_TABLE
    await close_all([*first, *second])


async def test_rejoin_with_an_unknown_token_is_bad_token(server: Server) -> None:
    c = await connect(server, "Eve")
    answer = await c.request(Rejoin, token="nope")
    assert isinstance(answer, Error) and answer.code == errors.BAD_TOKEN
    await close_all([c])


async def a_waiting_hello(
    server: Server, name: str, token: str, lobby: bool
) -> tuple[Client, asyncio.Future[ServerMessage]]:
    """A new connection says hello with ``token``, and the hello is under way: the lobby
    has found the token's chair, and the table's queue holds the chair's taking back."""
    known = set(server.lobby.registry.connections)
    client = await open_client(server)
    hello = asyncio.ensure_future(
        client.request(Hello, version=PROTOCOL_VERSION, name=name, token=token, lobby=lobby)
    )
    await eventually(
        lambda: any(p.said_hello for i, p in server.lobby.registry.connections.items() if i not in known)
    )
    return client, hello


async def test_a_hello_whose_chair_was_freed_while_it_waited_is_welcomed_without_it(server: Server) -> None:
    """The lobby finds a hello's chair by its token at once, but the table takes it back
    only in its turn: here behind Ann's leaving, still being stored. Once she has left,
    the token opens nothing, and her second connection is welcomed as a newcomer told
    so (it was answered "the server failed on this request" instead of a welcome)."""
    ann, bob = await connect(server, "Ann"), await connect(server, "Bob")
    seated = await ann.request(CreateTable, name="t")
    assert isinstance(seated, Seated)
    assert isinstance(await bob.request(Sit, table_id=seated.table_id, chair=1), Seated)
    storage = server.storage
    held: list[tuple[Any, Callable[[BaseException | None], None]]] = []
    store = storage.write_soon
    storage.write_soon = lambda statements, then: held.append((statements, then))  # type: ignore[method-assign]
    try:
        leaving = asyncio.ensure_future(ann.request(Leave))
        await eventually(lambda: len(held) == 1)  # her leaving waits for its commit
        again, hello = await a_waiting_hello(server, "Ann", seated.token, lobby=False)  # behind her leaving
    finally:
        del storage.write_soon  # type: ignore[method-assign]
    store(*held[0])
    assert isinstance(await leaving, Ok)
    welcome = await hello
    assert isinstance(welcome, Welcome), welcome
    assert welcome.token_refused and welcome.table_id is None and welcome.chair is None
    table = server.table(seated.table_id)
    assert table.chairs[0] is None and not any(c is not None and c.name == "Ann" for c in table.chairs)
    await close_all([ann, bob, again])


async def test_a_welcome_that_waited_is_the_first_word_and_its_table_list_is_new(server: Server) -> None:
    """A hello whose chair is taken back waits its turn at that table; the session
    followed the table list from the hello, so a change elsewhere reached it before its
    welcome, and the welcome's list, made at the hello, then undid it: Cy's new table
    was missing from Bob's lobby."""
    ann, bob = await connect(server, "Ann"), await connect(server, "Bob")
    seated = await ann.request(CreateTable, name="t")
    assert isinstance(seated, Seated)
    bob_seat = await bob.request(Sit, table_id=seated.table_id, chair=1)
    assert isinstance(bob_seat, Seated)
    await bob.close()
    storage = server.storage
    held: list[tuple[Any, Callable[[BaseException | None], None]]] = []
    store = storage.write_soon

    def hold_the_first(statements: Any, then: Callable[[BaseException | None], None]) -> None:
        if held:
            store(statements, then)
        else:
            held.append((statements, then))

    storage.write_soon = hold_the_first  # type: ignore[method-assign]
    try:
        adding = asyncio.ensure_future(ann.request(AddBot, chair=2))  # Ann's table waits for its write
        await eventually(lambda: len(held) == 1)
        back, hello = await a_waiting_hello(server, "Bob", bob_seat.token, lobby=True)  # behind Ann's bot
        di = await connect(server, "Di", lobby=True)  # in the lobby, following the list
        cy = await connect(server, "Cy")
        other = await cy.request(CreateTable, name="Cy's")
        assert isinstance(other, Seated)
        await di.until(lambda c: other.table_id in c.lobby)  # the lobby has told its followers
    finally:
        del storage.write_soon  # type: ignore[method-assign]
    store(*held[0])
    assert isinstance(await adding, Ok)
    welcome = await hello
    assert isinstance(welcome, Welcome) and (welcome.table_id, welcome.chair) == (seated.table_id, 1)
    assert isinstance(back.received[0], Welcome), back.received[0]
    await back.until(lambda c: seated.table_id in c.lobby)
    assert other.table_id in back.lobby
    await close_all([ann, back, cy, di])
