"""The lobby's pushes: coalesced, paused for a player while their game is played; the
table list encoded once and shared, bounded, and costed in the rate limit."""

from __future__ import annotations

from typing import Any

import pytest

from rummy.net import Client
from rummy.protocol import (
    AddBot,
    CreateTable,
    Error,
    Leave,
    LobbySubscribe,
    Ok,
    Ping,
    Pong,
    Seated,
    Start,
    TableInfo,
    TableOptions,
    errors,
)
from rummy.protocol.codec import encode, server_decoder
from rummy.protocol.messages import Lobby, LobbyTable
from rummy.server import Server
from rummy.server import lobby as server_lobby
from rummy.server.changes import Visitor
from rummy.server.lobby import PUSH_BACKLOG
from rummy.server.master import TableMaster as Table
from rummy.server.options import ServerOptions
from rummy.server.storage import Storage
from tests.support import eventually

from .game_helpers import close_all, connect, connect_from, serve


async def test_lobby_changes_are_coalesced() -> None:
    """A table that changes several times within the lobby interval reaches a lobby
    follower once, as it then is."""
    server = await serve(lobby_interval=2.0)
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
    server = await serve(lobby_interval=0.02)
    try:
        ann = await connect(server, "Ann", lobby=True)
        seated = await ann.request(CreateTable, name="Ann's", options=TableOptions())
        assert isinstance(seated, Seated)
        for chair in (1, 2, 3):
            assert isinstance(await ann.request(AddBot, chair=chair), Ok)
        assert isinstance(await ann.request(Start), Ok)
        # No turn timer: the game waits for Ann's turn, so it is still being played below.
        await ann.until(lambda c: c.table is not None and c.table.status == "playing")
        eve = await connect(server, "Eve", lobby=True)  # a follower who is not playing
        bob = await connect(server, "Bob")
        other = await bob.request(CreateTable, name="Bob's", options=TableOptions())
        assert isinstance(other, Seated)
        # Pushed to every follower not playing: so Ann's pause is what keeps it from her.
        await eve.until(lambda c: other.table_id in c.lobby)
        assert server.table(seated.table_id).status == "playing"
        assert other.table_id not in ann.lobby  # paused while Ann plays
        lists = sum(isinstance(m, Lobby) for m in ann.received)
        assert isinstance(await ann.request(Leave), Ok)
        await ann.until(lambda c: other.table_id in c.lobby)
        assert ann.lobby[other.table_id].name == "Bob's"
        assert sum(isinstance(m, Lobby) for m in ann.received) == lists + 1  # the whole list
        await close_all([ann, bob, eve])
    finally:
        await server.close()


async def test_tables_opened_without_a_name_get_distinct_names() -> None:
    """Two friends on one login, both "root", open tables without naming them: the
    lobby listed two "root's table" and nobody could tell which to join."""
    server = await serve()
    try:
        first, second = await connect(server, "root"), await connect(server, "root")
        one = await first.request(CreateTable, name="")
        two = await second.request(CreateTable, name="  ")  # only spaces: no name
        assert isinstance(one, Seated) and isinstance(two, Seated)
        assert server.table(one.table_id).name == "root's table"
        assert server.table(two.table_id).name == "root's table 2"
        await close_all([first, second])
    finally:
        await server.close()


async def _tables(server: Server, count: int, start_every: int = 0) -> tuple[list[int], list[Client]]:
    """``count`` tables, one owner each, from as many addresses (127.0.0.2...); every
    ``start_every``-th is filled with bots and started (0: none). The ids and owners."""
    ids, owners = [], []
    for i in range(count):
        owner = await connect_from(f"127.0.0.{2 + i}", server, f"Owner{i}")
        seated = await owner.request(CreateTable, name=f"table {i}")
        assert isinstance(seated, Seated)
        if start_every and i % start_every == 0:
            for chair in (1, 2, 3):
                assert isinstance(await owner.request(AddBot, chair=chair), Ok)
            assert isinstance(await owner.request(Start), Ok)
        ids.append(seated.table_id)
        owners.append(owner)
    return ids, owners


async def test_the_table_list_is_encoded_once_and_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each lobby_subscribe encoded the whole list anew (17 ms at 2,000 tables); now it
    is built once per lobby push and every subscriber gets the same bytes."""
    server = await serve(**{"lobby_cost": 1, "lobby_interval": 0.05})
    try:
        _, owners = await _tables(server, 30)
        built = 0
        info = Table.info

        def counted(table: Table) -> TableInfo:
            nonlocal built
            built += 1
            return info(table)

        monkeypatch.setattr(Table, "info", counted)
        lookers = [await connect(server, f"Lou{i}") for i in range(5)]
        for c in lookers:
            for _ in range(10):
                assert isinstance(await c.request(LobbySubscribe, on=True), Ok)
        assert built == 30  # 50 lists asked for, one built
        for c in lookers:
            await c.until(lambda c: len(c.lobby) == 30)
        await close_all([*lookers, *owners])
    finally:
        await server.close()


async def test_a_subscriber_between_two_pushes_misses_no_change() -> None:
    """The shared list is older than the changes still to be pushed, never newer: one
    who subscribes between a change and its push gets the list, then the change."""
    server = await serve(**{"lobby_interval": 0.3})
    try:
        early = await connect(server, "Early", lobby=True)
        ann = await connect(server, "Ann")
        seated = await ann.request(CreateTable, name="Ann's")
        assert isinstance(seated, Seated)
        await early.until(lambda c: seated.table_id in c.lobby)
        assert isinstance(await ann.request(AddBot, chair=1), Ok)  # pushed within 0.3 s
        late = await connect(server, "Late", lobby=True)
        for c in (early, late):
            await c.until(lambda c: seated.table_id in c.lobby and c.lobby[seated.table_id].chairs[1].bot)
        await close_all([early, ann, late])
    finally:
        await server.close()


async def test_the_table_list_is_bounded_and_waiting_tables_come_first() -> None:
    server = await serve(**{"lobby_limit": 5})
    try:
        ids, owners = await _tables(server, 12, start_every=2)  # six playing, six waiting
        looker = await connect(server, "Lou", lobby=True)
        listing = next(m for m in looker.received if isinstance(m, Lobby))
        assert listing.total == 12 and len(listing.tables) == 5
        assert all(t.status == "waiting" for t in listing.tables)
        assert [t.table_id for t in listing.tables] == [i for n, i in enumerate(ids) if n % 2][:5]
        await close_all([looker, *owners])
    finally:
        await server.close()


async def test_asking_for_the_table_list_costs_more_of_the_rate_limit() -> None:
    """Five followers asking for the list at the allowed rate pushed honest moves to a
    second's latency: a whole list costs ``lobby_cost`` requests' worth of the rate."""
    server = await serve(**{"rate": 1.0, "burst": 105, "lobby_cost": 10})
    try:
        c = await connect(server, "Lou")
        answers = [await c.request(LobbySubscribe, on=True) for _ in range(15)]
        codes = [a.code if isinstance(a, Error) else "ok" for a in answers]
        assert codes.count("ok") == 10 and codes.count(errors.RATE_LIMITED) == 5
        assert sum(isinstance(m, Lobby) for m in c.received) == 10
        assert isinstance(await c.request(Ping), Pong)  # a cheap request still fits
        await c.close()
    finally:
        await server.close()


async def test_a_follower_at_a_waiting_table_is_not_sent_the_lobby_until_it_leaves() -> None:
    """Every change went to everyone in the lobby or at a table: setting up 1,500 tables
    cost the square of their number. At a table (waiting or playing) the lobby is not on
    a player's screen: they get the whole list again when they leave."""
    server = await serve(lobby_interval=0.02)
    try:
        ann = await connect(server, "Ann", lobby=True)
        lou = await connect(server, "Lou", lobby=True)
        seated = await ann.request(CreateTable, name="Ann's", options=TableOptions())
        assert isinstance(seated, Seated)
        await lou.until(lambda c: seated.table_id in c.lobby)
        pushes_before = sum(isinstance(m, LobbyTable) for m in ann.received)
        bob = await connect(server, "Bob")
        other = await bob.request(CreateTable, name="Bob's", options=TableOptions())
        assert isinstance(other, Seated)
        assert isinstance(await bob.request(AddBot, chair=1), Ok)
        await lou.until(lambda c: other.table_id in c.lobby and c.lobby[other.table_id].chairs[1].bot)
        assert sum(isinstance(m, LobbyTable) for m in ann.received) == pushes_before
        assert other.table_id not in ann.lobby
        assert isinstance(await ann.request(Leave), Ok)
        await ann.until(lambda c: other.table_id in c.lobby and c.lobby[other.table_id].chairs[1].bot)
        await close_all([ann, lou, bob])
    finally:
        await server.close()


async def test_the_lobby_pushes_only_the_tables_followers_are_shown() -> None:
    """A push carries the tables of the list (``lobby_limit``, waiting ones first) that
    changed or came into it, and ``lobby_gone`` for those that left it: a change to a
    table beyond the list reaches nobody in the lobby."""
    server = await serve(**{"lobby_limit": 2, "lobby_interval": 0.02})
    try:
        ids, owners = await _tables(server, 3)
        lou = await connect(server, "Lou", lobby=True)
        assert set(lou.lobby) == set(ids[:2])
        assert isinstance(await owners[2].request(AddBot, chair=1), Ok)  # beyond the list
        assert isinstance(await owners[0].request(AddBot, chair=1), Ok)  # in it
        await lou.until(lambda c: c.lobby[ids[0]].chairs[1].bot)
        assert not any(isinstance(m, LobbyTable) and m.table.table_id == ids[2] for m in lou.received)
        assert isinstance(await owners[1].request(Leave), Ok)  # its table closes: the third comes in
        await lou.until(lambda c: set(c.lobby) == {ids[0], ids[2]})
        assert lou.lobby[ids[2]].chairs[1].bot  # as it now is
        await close_all([lou, *owners])
    finally:
        await server.close()


class FakePeer:
    """A lobby follower without a socket: it keeps what it is sent, and says how much
    of it is still unread (as a slow reader's buffer would)."""

    def __init__(self, conn: int) -> None:
        self.id, self.name, self.origin, self.wants_legal_moves = conn, f"P{conn}", "127.0.0.1", False
        self.closed = False
        self.unread = 0
        self.decoder = server_decoder()
        self.received: list[Any] = []

    def send(self, message: Any) -> None:
        self.send_frame(encode(message))

    def send_frame(self, data: bytes) -> None:
        self.received += self.decoder.feed(data)

    def queued(self) -> int:
        return self.unread


async def test_a_follower_that_has_not_read_its_last_push_is_skipped_until_it_has() -> None:
    """A follower that stops reading was sent push after push, its buffer growing without
    bound (6,000 of them took the server to 2.45 GiB): now one with more than
    ``PUSH_BACKLOG`` unread is skipped, and gets the whole list once it has read."""
    storage = Storage(None)
    lobby = server_lobby.Lobby(storage, ServerOptions(lobby_interval=0.01))
    try:
        owners = [FakePeer(i) for i in range(1, 6)]
        tables = []
        for owner in owners:
            lobby.arrive(owner)
            you = Visitor(owner.id, owner.name)
            tables.append(await lobby.create_table(owner, you, owner.name, TableOptions(), 0, 1))
        reader, sloth = FakePeer(100), FakePeer(101)
        for peer in (reader, sloth):
            lobby.arrive(peer)
            lobby.subscribe(peer)
        sloth.unread = PUSH_BACKLOG + 1
        for owner, table in zip(owners, tables, strict=True):
            you = Visitor(owner.id, owner.name)
            await lobby.run(table.id, lambda t, you=you: t.add_bot(you, 1, "normal", 2))
        await eventually(lambda: sum(isinstance(m, LobbyTable) for m in reader.received) >= 5)
        assert [type(m) for m in sloth.received] == [Lobby]  # only the list it subscribed to
        assert lobby.unread_skips > 0
        sloth.unread = 0  # it has read it all
        await eventually(lambda: len(sloth.received) == 2)
        caught_up = sloth.received[1]
        assert isinstance(caught_up, Lobby) and all(t.chairs[1].bot for t in caught_up.tables)
    finally:
        await lobby.stop()
        await storage.close()
