"""Spectators: a cap per table, and watching costs pushes in proportion to the watchers,
not to their square."""

from __future__ import annotations

import asyncio

import msgspec

from rummy.net import Client
from rummy.protocol import (
    CHAT_LIMIT,
    PROTOCOL_VERSION,
    Chat,
    Error,
    Hello,
    Leave,
    Ok,
    Table,
    Watch,
    Watching,
    Welcome,
    errors,
)

from .game_helpers import close_all, connect, connect_from, open_client, serve, table_of_four


def table_pushes(clients: list[Client]) -> int:
    return sum(isinstance(m, Table) for c in clients for m in c.received)


async def test_watchers_coming_and_going_cost_pushes_in_proportion_to_their_number() -> None:
    """Each watch or leave pushed the table to everyone at it: n watchers meant about
    n*n frames (1,000 watchers: 504,500 frames, the honest table frozen for 7 s). Now
    a change in who watches reaches the others with the next push, at most one every
    ``lobby_interval``."""
    server = await serve(**{"lobby_interval": 1.0, "spectators_per_address": 50})  # all from one address
    try:
        players, _, table_id = await table_of_four(server, names=("Ann",), bots=3)
        n = 40
        watchers = [await connect(server, f"W{i}") for i in range(n)]
        before = table_pushes(players)
        answers = await asyncio.gather(*(w.request(Watch, table_id=table_id) for w in watchers))
        assert all(isinstance(a, Watching) for a in answers)
        for w in watchers:  # each newcomer is told the table at once
            await w.until(lambda c: c.table is not None)
        # ...and everyone sees the final count within an interval or two.
        everyone = [*players, *watchers]
        for c in everyone:
            await c.until(lambda c: c.table is not None and c.table.spectators == n)
        left = await asyncio.gather(*(w.request(Leave) for w in watchers[: n // 2]))
        assert all(isinstance(a, Ok) for a in left)
        for c in [*players, *watchers[n // 2 :]]:
            await c.until(lambda c: c.table is not None and c.table.spectators == n - n // 2)
        # Joining and leaving one by one pushed n*(n+1)/2 + ... = over 1,000 frames here.
        assert table_pushes(everyone) - before < 6 * n
        assert table_pushes(players) - before <= 6  # the player was told a few times, not 60
        await close_all(everyone)
    finally:
        await server.close()


async def test_a_table_takes_only_so_many_spectators() -> None:
    server = await serve(**{"max_spectators": 3, "spectators_per_address": 3})
    try:
        players, _, table_id = await table_of_four(server, names=("Ann",), bots=3)
        watchers = [await connect(server, f"W{i}") for i in range(4)]
        for w in watchers[:3]:
            assert isinstance(await w.request(Watch, table_id=table_id), Watching)
        refused = await watchers[3].request(Watch, table_id=table_id)
        assert isinstance(refused, Error) and refused.code == errors.TOO_MANY_SPECTATORS
        assert isinstance(await watchers[0].request(Leave), Ok)
        assert isinstance(await watchers[3].request(Watch, table_id=table_id), Watching)
        await close_all([*players, *watchers])
    finally:
        await server.close()


async def test_one_address_takes_only_so_many_of_a_tables_spectator_places() -> None:
    """One address could take all 50 places at a table and keep everyone else from
    watching it. Its connections take at most ``spectators_per_address`` of them; the
    one past that is refused, and nothing changed: it sits nowhere, the table counts
    the same spectators, and it may still watch elsewhere. Another address gets in."""
    server = await serve(**{"spectators_per_address": 4})
    try:
        players, _, table_id = await table_of_four(server, names=("Ann",), bots=3)
        crowd = [await connect_from("127.0.0.3", server, f"M{i}") for i in range(5)]
        for m in crowd[:4]:
            assert isinstance(await m.request(Watch, table_id=table_id), Watching)
        table = server.table(table_id)
        assert table is not None
        watching = set(table.spectators)
        refused = await crowd[4].request(Watch, table_id=table_id)
        assert isinstance(refused, Error) and refused.code == errors.SPECTATOR_QUOTA, refused
        assert "4 connections" in refused.text
        assert set(table.spectators) == watching
        assert crowd[4].table is None
        honest = await connect_from("127.0.0.2", server, "Wes")
        assert isinstance(await honest.request(Watch, table_id=table_id), Watching)
        await players[0].until(lambda c: c.table is not None and c.table.spectators == 5)
        # The refused connection is at no table: it may watch another one...
        _, _, other = await table_of_four(server, names=("Bob",), bots=3)
        assert isinstance(await crowd[4].request(Watch, table_id=other), Watching)
        # ...and a place its address gives back is its address's again.
        assert isinstance(await crowd[4].request(Leave), Ok)
        assert isinstance(await crowd[0].request(Leave), Ok)
        assert isinstance(await crowd[4].request(Watch, table_id=table_id), Watching)
        await close_all([*players, *crowd, honest])
    finally:
        await server.close()


async def test_a_table_carries_only_so_many_chat_lines() -> None:
    """Every line goes to everyone at the table: fifty-six spectators chatting at their
    own allowed rate pushed move latency to 4.4 s. A table carries ``chat_rate`` lines a
    second (bursts of ``chat_burst``); a line over that is refused, not cleaned or sent."""
    server = await serve(**{"chat_rate": 1.0, "chat_burst": 8, "spectators_per_address": 10})
    try:
        players, _, table_id = await table_of_four(server, names=("Ann",), bots=3)
        watchers = [await connect(server, f"W{i}") for i in range(10)]
        for w in watchers:
            assert isinstance(await w.request(Watch, table_id=table_id), Watching)
        zalgo = "Z" + "\u0301" * 1999
        answers = await asyncio.gather(*(w.request(Chat, text=zalgo) for w in watchers for _ in range(5)))
        said = [a for a in answers if isinstance(a, Ok)]
        busy = [a for a in answers if isinstance(a, Error) and a.code == errors.RATE_LIMITED]
        assert len(said) + len(busy) == 50 and 8 <= len(said) <= 10
        ann = players[0]
        await ann.until(lambda c: len([m for m in c.chat if m.by == "spectator"]) == len(said))
        assert all(len(m.text) <= CHAT_LIMIT for m in ann.chat)
        await close_all([*players, *watchers])
    finally:
        await server.close()


async def test_a_watch_costs_more_of_the_rate_limit() -> None:
    """A watch is answered with the table, the game and the recent chat: watching and
    leaving at the allowed rate cost the server more than any other request."""
    server = await serve(**{"rate": 0.1, "burst": 26, "push_cost": 5})
    try:
        players, _, table_id = await table_of_four(server, names=("Ann",), bots=3)
        w = await connect(server, "Wes")  # its hello takes one
        answers = [await w.request(Watch, table_id=table_id) for _ in range(6)]
        codes = [a.code if isinstance(a, Error) else "watching" for a in answers]
        assert codes == ["watching"] + [errors.ALREADY_AT_TABLE] * 4 + [errors.RATE_LIMITED]
        await close_all([*players, w])
    finally:
        await server.close()


async def test_spectators_chatting_never_silence_the_players() -> None:
    """One address watching a table and chatting at the table's rate used the whole of
    its chat budget: every line of the four players was refused ("This table's chat
    is busy") for as long as it went on. The spectators share one budget between
    them, and the players have their own, so the players can always talk."""
    server = await serve(**{"chat_rate": 0.01, "chat_burst": 3})
    try:
        players, _, table_id = await table_of_four(server, names=("Ann", "Bob"), bots=2)
        watchers = [await connect(server, f"W{i}") for i in range(3)]
        for w in watchers:
            assert isinstance(await w.request(Watch, table_id=table_id), Watching)
        answers = await asyncio.gather(*(w.request(Chat, text="spam") for w in watchers for _ in range(3)))
        assert sum(isinstance(a, Ok) for a in answers) == 3  # the spectators' burst, no more
        ann, bob = players
        assert isinstance(await ann.request(Chat, text="your move, Bob"), Ok)
        assert isinstance(await bob.request(Chat, text="thinking"), Ok)
        await bob.until(lambda c: any(m.by == "player" and m.text == "your move, Bob" for m in c.chat))
        await close_all([*players, *watchers])
    finally:
        await server.close()


async def test_two_watchers_of_one_name_have_each_their_own_number_in_the_list_and_the_chat() -> None:
    """Two people watching as "Ana" (and the player Ana) were one name in the chat, and
    nothing told which of them spoke. Each watch gets the table's next number: the
    ``table`` push lists both, in the order they came, and each one's chat lines carry
    their own number, as a player's carry their chair."""
    server = await serve()
    try:
        players, _, table_id = await table_of_four(server, names=("Ana",), bots=3)
        first, second = await connect(server, "Ana"), await connect_from("127.0.0.2", server, "Ana")
        answers = [await w.request(Watch, table_id=table_id) for w in (first, second)]
        assert [a.spectator for a in answers if isinstance(a, Watching)] == [1, 2]
        ana = players[0]
        for c in (ana, first, second):  # the second is in the list by the next push
            await c.until(lambda c: [(w.spectator, w.name) for w in c.watchers] == [(1, "Ana"), (2, "Ana")])
        assert isinstance(await second.request(Chat, text="second here"), Ok)
        assert isinstance(await first.request(Chat, text="first here"), Ok)
        assert isinstance(await ana.request(Chat, text="the player"), Ok)
        await first.until(lambda c: len(c.chat) == 3)
        said = [(m.by, m.chair, m.spectator, m.text) for m in first.chat]
        assert said == [
            ("spectator", None, 2, "second here"),
            ("spectator", None, 1, "first here"),
            ("player", 0, None, "the player"),
        ]
        # One who leaves and watches again is a new watcher: a new number, the last in
        # the list; the number that went is given to nobody else.
        assert isinstance(await first.request(Leave), Ok)
        await ana.until(lambda c: [w.spectator for w in c.watchers] == [2])
        again = await first.request(Watch, table_id=table_id)
        assert isinstance(again, Watching) and again.spectator == 3
        await ana.until(lambda c: [w.spectator for w in c.watchers] == [2, 3])
        await close_all([*players, first, second])
    finally:
        await server.close()


async def test_R9_a_watcher_learns_nothing_of_another_watcher_but_their_name_and_number() -> None:
    """The number is the table's own count of watches (1, 2, ...), not the connection's
    id, and no frame to a watcher holds another watcher's address or anything besides
    their name and number; nor any player's seat token (R9)."""
    server = await serve()
    try:
        players, tokens, table_id = await table_of_four(server, names=("Ann",), bots=3)
        idle = [await connect(server, f"Idle{i}") for i in range(3)]  # connection ids past 1, 2
        other = await connect_from("127.0.0.9", server, "Ana")
        watcher = await open_client(server, "127.0.0.5", keep_frames=True)
        assert isinstance(await watcher.request(Hello, version=PROTOCOL_VERSION, name="Ana"), Welcome)
        assert isinstance(await other.request(Watch, table_id=table_id), Watching)
        assert isinstance(await watcher.request(Watch, table_id=table_id), Watching)
        assert isinstance(await other.request(Chat, text="hello"), Ok)
        await watcher.until(lambda c: len(c.chat) == 1 and len(c.watchers) == 2)
        table = server.table(table_id)
        assert table is not None
        assert [w.spectator for w in watcher.watchers] == [1, 2]
        assert [v.origin for v in table.spectators.values()] == ["127.0.0.9", "127.0.0.5"]
        assert not {1, 2} & set(table.spectators)  # the numbers are not their connections' ids
        for w in watcher.watchers:
            assert msgspec.structs.asdict(w).keys() == {"spectator", "name"}
        seen = b"".join(watcher.frames)
        assert b"127.0.0.9" not in seen
        assert all(token.encode() not in seen for token in tokens)
        await close_all([*players, *idle, other, watcher])
    finally:
        await server.close()
