"""Hostile input never crashes the server, changes nothing, and disturbs no other table."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import socket
from collections import Counter
from collections.abc import AsyncIterator

import msgpack
import pytest

from rummy.net import Client
from rummy.protocol import (
    PROTOCOL_VERSION,
    CreateTable,
    Error,
    Hello,
    Leave,
    MoveRequest,
    Ok,
    Ping,
    Pong,
    Seated,
    TableOptions,
    Watch,
    Watching,
    Welcome,
    errors,
    frame,
)
from rummy.protocol.wire import DrawStockWire
from rummy.server import Server, start_server
from rummy.server.session import Session
from tests.support import eventually

from .game_helpers import FAST, close_all, connect, connect_from, open_client, play_all, serve, table_of_four

STRICT = {**FAST, "hello_timeout": 0.3, "rate": 20.0, "burst": 100, "flood_limit": 100}


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    s = await start_server(**STRICT)
    yield s
    await s.close()


def raw(message: object) -> bytes:
    """A frame built with the plain msgpack package, to say what the protocol types would not."""
    return frame(msgpack.packb(message))


async def error_for(c: Client, rid: int | None = None, code: str | None = None) -> Error:
    """Wait for an unsolicited error (or one answering a raw request ``rid``)."""
    await c.until(
        lambda c: any((rid is None or e.id == rid) and (code is None or e.code == code) for e in c.errors)
    )
    return next(e for e in c.errors if (rid is None or e.id == rid) and (code is None or e.code == code))


async def still_serves(c: Client) -> None:
    assert isinstance(await c.request(Ping), Pong)


async def test_a_frame_that_is_not_messagepack_is_answered_and_the_connection_lives(server: Server) -> None:
    c = await connect(server, "Ann")
    c.send_raw(frame(b"\xc1\xc1\xc1"))  # 0xc1 is never used in MessagePack
    c.send_raw(frame(b""))
    e = await error_for(c, code=errors.BAD_MSGPACK)
    assert not e.fatal and e.id is None
    await still_serves(c)
    await c.close()


async def test_text_garbage_announces_a_huge_frame_and_is_cut_off(server: Server) -> None:
    c = await Client.connect(server.host, server.port)
    c.send_raw(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")  # 'GET ' read as a length: over 1 GB
    e = await error_for(c, code=errors.FRAME_TOO_LARGE)
    assert e.fatal
    await c.until(lambda c: c.closed)
    await c.close()


async def test_an_oversized_frame_is_refused_from_its_header_alone(server: Server) -> None:
    c = await connect(server, "Ann")
    c.send_raw((70_000).to_bytes(4, "big"))  # no body sent: the server must not wait for it
    e = await error_for(c, code=errors.FRAME_TOO_LARGE)
    assert e.fatal and "65536" in e.text
    await c.until(lambda c: c.closed)
    await c.close()


async def test_wrong_field_types_get_bad_field_with_the_request_id(server: Server) -> None:
    c = await Client.connect(server.host, server.port)
    c.send_raw(raw({"type": "hello", "id": 7, "version": "1", "name": "Ann"}))
    e = await error_for(c, rid=7)
    assert e.code == errors.BAD_FIELD and not e.fatal and "version" in e.text
    assert isinstance(await c.request(Hello, version=PROTOCOL_VERSION, name="Ann"), Welcome)
    c.send_raw(raw({"type": "move", "id": 8, "move": {"type": "discard", "card": 99}}))
    c.send_raw(raw({"type": "sit", "id": 9, "table_id": "one", "chair": 0}))
    c.send_raw(raw({"type": "create_table", "id": 10, "name": "t", "options": {"turn_seconds": -5}}))
    c.send_raw(raw({"type": "move", "id": 11, "move": {"type": "meld", "cards": "7h 8h 9h"}}))
    c.send_raw(raw({"type": "chat", "id": 12}))
    for rid in (8, 9, 10, 11, 12):
        assert (await error_for(c, rid=rid)).code == errors.BAD_FIELD
    assert server.open_tables() == []  # nothing was created
    await still_serves(c)
    await c.close()


async def test_unknown_messages_are_answered_with_unknown_message(server: Server) -> None:
    c = await connect(server, "Ann")
    c.send_raw(raw({"type": "become_admin", "id": 3}))
    c.send_raw(raw({"id": 4, "name": "no type"}))
    c.send_raw(raw([1, 2, 3]))
    assert (await error_for(c, rid=3)).code == errors.UNKNOWN_MESSAGE
    assert (await error_for(c, rid=4)).code == errors.UNKNOWN_MESSAGE
    await c.until(lambda c: sum(e.code == errors.UNKNOWN_MESSAGE for e in c.errors) == 3)
    await still_serves(c)
    await c.close()


async def test_random_frames_never_break_the_server(server: Server) -> None:
    """Fuzz: framed random bytes and random maps; every one is answered or ignored safely."""
    rng = random.Random(0)
    c = await connect(server, "Fuzz")
    for i in range(30):
        if i % 2:
            c.send_raw(frame(rng.randbytes(rng.randrange(1, 200))))
        else:
            junk = {"type": rng.choice(["move", "sit", "hello", "chat", "watch"]), "id": 10_000 + i}
            field = rng.choice(["move", "table_id", "text", "chair"])
            junk[field] = rng.choice([None, -1, 2**63, "x", [], {}, {"type": "discard", "card": -3}])
            c.send_raw(raw(junk))
    await still_serves(c)
    other = await connect(server, "Ann")
    await still_serves(other)
    await close_all([c, other])


async def test_moves_out_of_turn_or_by_spectators_change_nothing(server: Server) -> None:
    """Only the player of a seat moves for it: the seat comes from the connection, so a
    'seat' smuggled into the message is ignored and the move refused."""
    clients, _, table_id = await table_of_four(server)
    table = server.table(table_id)
    assert table.game is not None
    for c in clients:
        await c.until(lambda c: c.view is not None)
    idle = next(c for c in clients if c.view is not None and not c.view.my_turn)
    current = table.game.current
    before = table.game.snapshot()
    refused = await idle.move(table.game.legal_moves()[0])  # legal, but not idle's turn
    assert isinstance(refused, Error) and refused.code == "not-your-turn"
    idle.send_raw(raw({"type": "move", "id": 99, "seat": current, "move": {"type": "draw_stock"}}))
    assert (await error_for(idle, rid=99)).code == "not-your-turn"
    watcher = await connect(server, "Eve")
    assert isinstance(await watcher.request(Watch, table_id=table_id), Watching)
    spectator = await watcher.request(MoveRequest, move=DrawStockWire())
    assert isinstance(spectator, Error) and spectator.code == errors.SPECTATOR
    assert table.game.snapshot() == before
    await play_all(clients)  # and the game still plays to the end
    await close_all([*clients, watcher])


async def test_requests_before_hello_are_refused_and_silence_is_cut_off(server: Server) -> None:
    early = await Client.connect(server.host, server.port)
    refused = await early.request(CreateTable, name="t")
    assert isinstance(refused, Error) and refused.code == errors.HELLO_FIRST and not refused.fatal
    silent = await Client.connect(server.host, server.port)
    e = await error_for(silent, code=errors.HELLO_TIMEOUT)
    assert e.fatal
    await silent.until(lambda c: c.closed)
    await close_all([early, silent])


async def test_another_protocol_version_gets_a_clear_fatal_error(server: Server) -> None:
    c = await Client.connect(server.host, server.port)
    e = await c.request(Hello, version=PROTOCOL_VERSION + 1, name="Future")
    assert isinstance(e, Error) and e.code == errors.VERSION and e.fatal and str(PROTOCOL_VERSION) in e.text
    await c.until(lambda c: c.closed)
    await c.close()


async def test_a_flood_is_rate_limited_then_cut_off_without_disturbing_others(server: Server) -> None:
    clients, _, _ = await table_of_four(server, names=("Ann",), bots=3)
    flooder = await connect(server, "Flo")
    flooder.send_raw(b"".join(raw({"type": "ping", "id": 1000 + i}) for i in range(400)))
    e = await error_for(flooder, code=errors.FLOOD)
    assert e.fatal
    pongs = [m for m in flooder.received if isinstance(m, Pong)]
    assert 0 < len(pongs) < 200  # the burst went through, the rest did not
    assert any(m.code == errors.RATE_LIMITED for m in flooder.errors)
    await flooder.until(lambda c: c.closed)
    await play_all(clients)  # the other table played on
    await close_all([*clients, flooder])


async def test_too_many_connections_from_one_address_are_refused() -> None:
    server = await start_server(**{**STRICT, "max_per_address": 3})
    try:
        kept = [await connect(server, f"P{i}") for i in range(3)]
        extra = await Client.connect(server.host, server.port)
        e = await error_for(extra, code=errors.TOO_MANY_CONNECTIONS)
        assert e.fatal
        await extra.until(lambda c: c.closed)
        await kept[0].close()
        await eventually(lambda: len(server.sessions) == 2, what="the server to notice the close")
        again = await connect(server, "P3")  # a place freed up
        await close_all([*kept[1:], extra, again])
    finally:
        await server.close()


async def test_a_shared_address_holds_more_but_not_without_end() -> None:
    """With SSH hosting every SSH player's client comes from loopback: that address may
    hold one more connection for each SSH player (the SSH server caps the players'
    real addresses), no more; it was exempt from the cap altogether, so anyone on the
    host could fill the server from it."""
    server = await start_server(
        **{
            **STRICT,
            "max_per_address": 1,
            "shared_addresses": frozenset({"127.0.0.1"}),
            "shared_people": 2,
        }
    )
    try:
        kept = [await connect(server, f"P{i}") for i in range(3)]
        extra = await Client.connect(server.host, server.port)
        assert (await error_for(extra, code=errors.TOO_MANY_CONNECTIONS)).fatal
        elsewhere = await connect_from("127.0.0.2", server, "Q")  # other addresses: their own cap
        await close_all([*kept, extra, elsewhere])
    finally:
        await server.close()


async def test_too_many_connections_in_all_are_refused() -> None:
    server = await start_server(**{**STRICT, "max_connections": 2})
    try:
        kept = [await connect(server, f"P{i}") for i in range(2)]
        extra = await Client.connect(server.host, server.port)
        assert (await error_for(extra, code=errors.TOO_MANY_CONNECTIONS)).fatal
        await close_all([*kept, extra])
    finally:
        await server.close()


async def test_names_and_table_names_are_cleaned_and_limited(server: Server) -> None:
    c = await Client.connect(server.host, server.port)
    welcome = await c.request(
        Hello, version=PROTOCOL_VERSION, name="\x1b[31mEvil\x1b]0;owned\x07\u202e Name\r\n" + "x" * 150
    )
    assert isinstance(welcome, Welcome)
    assert welcome.name.startswith("Evil Name") and len(welcome.name) <= 24
    assert not any(ord(ch) < 32 or ch == "\u202e" for ch in welcome.name)
    seated = await c.request(CreateTable, name="\x9b2J\x00\x7ftable\tone " + "y" * 100)
    assert isinstance(seated, Seated)
    await c.until(lambda c: c.table is not None)
    assert c.table is not None and c.table.name.startswith("table one") and len(c.table.name) <= 40
    blank = await Client.connect(server.host, server.port)
    refused = await blank.request(Hello, version=PROTOCOL_VERSION, name="\x1b[0m\x07\u200b")
    assert isinstance(refused, Error) and refused.code == errors.BAD_NAME
    assert isinstance(await blank.request(Hello, version=PROTOCOL_VERSION, name="Bea"), Welcome)
    assert isinstance(await blank.request(Ping), Pong)
    await still_serves(c)
    await close_all([c, blank])


async def thirty_tables_and_a_sloth(
    server: Server, asks: int
) -> tuple[list[Client], asyncio.StreamReader, asyncio.StreamWriter, Session]:
    """Thirty people at tables of their own (a long table list), and a peer that asks
    for the table list ``asks`` times and reads none of it."""
    owners = [await connect(server, f"Owner{i}") for i in range(30)]
    for i, c in enumerate(owners):
        assert isinstance(await c.request(CreateTable, name=f"table number {i:02d} " + "z" * 20), Seated)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((server.host, server.port))
    reader, writer = await asyncio.open_connection(sock=sock)
    writer.write(raw({"type": "hello", "id": 1, "version": PROTOCOL_VERSION, "name": "Sloth"}))
    await eventually(lambda: any(s.name == "Sloth" for s in server.sessions))
    # A congested path: the kernel holds little for this peer, so what it does not
    # read piles up in the server's own buffer.
    sloth = next(s for s in server.sessions if s.name == "Sloth")
    sloth.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    writer.write(b"".join(raw({"type": "lobby_subscribe", "id": 2 + i, "on": True}) for i in range(asks)))
    await writer.drain()
    return owners, reader, writer, sloth


async def test_a_peer_that_never_reads_is_dropped_before_it_eats_memory() -> None:
    server = await start_server(
        **{**STRICT, "max_write_buffer": 100_000, "tables_per_address": 100, "lobby_cost": 1}
    )
    try:
        owners, _, writer, _ = await thirty_tables_and_a_sloth(server, asks=90)
        await eventually(lambda: server.stats["slow_reader"])
        assert not any(s.name == "Sloth" for s in server.sessions)
        await still_serves(owners[0])
        writer.close()
        await close_all(owners)
    finally:
        await server.close()


async def test_a_stopping_server_cuts_a_peer_that_never_reads_its_goodbye() -> None:
    """Its goodbye queued behind what it never read, such a peer kept its connection
    open for ever after the server stopped (and, from Python 3.12.1 on, kept ``close``
    from returning): once the grace is over it is cut, and the others were told why."""
    server = await start_server(
        **{**STRICT, "goodbye_grace": 0.2, "tables_per_address": 100, "lobby_cost": 1}
    )
    owners, reader, writer, sloth = await thirty_tables_and_a_sloth(server, asks=20)
    await eventually(lambda: sloth.queued() > 0)  # left in the server's own buffer, unread

    await asyncio.wait_for(server.close(), timeout=30)

    assert not server.sessions
    await eventually(lambda: all(c.closed for c in owners))
    for c in owners:
        assert any(isinstance(m, Error) and m.code == errors.SHUTTING_DOWN for m in c.received)
    with contextlib.suppress(ConnectionError):  # cut: its end of the stream, or a reset
        while await reader.read(65536):
            pass
    writer.close()


async def test_a_connection_come_while_the_server_stops_is_told_so_at_once() -> None:
    """One that came during the goodbye was never told to go: the server's stop waited
    the whole goodbye grace for it (5 s), with its tables already stopped."""
    server = await serve(goodbye_grace=30.0)
    ann = await connect(server, "Ann")
    closing = asyncio.ensure_future(server.close())
    await asyncio.sleep(0)  # close has begun: Ann is being told goodbye
    late = await open_client(server)
    await late.until(lambda c: c.closed)
    assert [m.code for m in late.received if isinstance(m, Error) and m.fatal] == [errors.SHUTTING_DOWN]
    await asyncio.wait_for(closing, timeout=10)  # not the grace's 30 s
    assert not server.sessions
    await close_all([ann, late])


async def test_every_rate_limited_request_gets_its_own_answer(server: Server) -> None:
    """A client that waits for each id never hangs: requests over the rate are each
    answered with ``rate-limited`` and their id, the others as usual."""
    c = await connect(server, "Many")
    ids = list(range(5000, 5150))  # over the burst of 100, under the flood limit
    c.send_raw(b"".join(raw({"type": "ping", "id": i}) for i in ids))

    def answered(c: Client) -> list[int]:
        return [m.id for m in c.received if isinstance(m, (Pong, Error)) and m.id is not None]

    await c.until(lambda c: len(answered(c)) >= len(ids))
    assert sorted(answered(c)) == ids  # exactly one answer each
    limited = [m for m in c.received if isinstance(m, Error) and m.code == errors.RATE_LIMITED]
    assert limited and all(m.id in ids and not m.fatal for m in limited)
    for _ in range(200):  # poll politely until the bucket has refilled: served again
        answer = await c.request(Ping)
        if isinstance(answer, Pong):
            break
        assert isinstance(answer, Error) and answer.code == errors.RATE_LIMITED
        await asyncio.sleep(0.05)
    assert isinstance(answer, Pong)
    await c.close()


DEEP = b"\x91" * 5000 + b"\xc0"


async def test_deep_or_unhashable_frames_get_an_error_and_the_log_one_line(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """Frames that made the decoder raise (a RecursionError, 'unhashable type') closed the
    connection before hello with a traceback each; now each gets the documented error,
    the connection stays, and a flood of them writes one log line."""
    c = await Client.connect(server.host, server.port)
    bad = [
        frame(DEEP),
        frame(b"\x83\xa4type\xa4chat\xa2id\x05\xa4text" + DEEP),
        raw({"type": [1, 2], "id": 6}),
        raw({"type": {"a": 1}, "id": 7}),
    ]
    with caplog.at_level(logging.INFO, logger="rummy"):
        for _ in range(4):  # 16 frames of 5 tokens each: within the burst of 100
            c.send_raw(b"".join(bad))
        await c.until(lambda c: len([m for m in c.received if isinstance(m, Error)]) >= 16)
        assert isinstance(await c.request(Hello, version=PROTOCOL_VERSION, name="Ann"), Welcome)
    answers = [m for m in c.received if isinstance(m, Error)]
    # The chat line (id 5) whose text is nested 5,000 deep is too deep to read on Python
    # 3.11 and 3.12 (msgspec recurses into it before anything else, so the answer has no
    # id); on 3.13 msgspec sees first that the text is not a string: bad-field, with its
    # id. Either is the documented error for that frame; no other frame gets bad-field.
    assert {e.code for e in answers} <= {errors.BAD_MSGPACK, errors.UNKNOWN_MESSAGE, errors.BAD_FIELD}
    assert all(e.id == 5 for e in answers if e.code == errors.BAD_FIELD)
    assert not any(e.fatal for e in answers)
    assert {e.id for e in answers} >= {6, 7}
    lines = [r for r in caplog.records if r.name.startswith("rummy")]
    assert not any(r.exc_info for r in lines)
    assert sum("bad frame" in r.getMessage() for r in lines) == 1
    await still_serves(c)
    await c.close()


async def test_a_bad_frame_costs_more_of_the_rate_limit(server: Server) -> None:
    """Our clients never send a frame that cannot be read: each costs five requests'
    worth, and the answers to those over the rate still come, one per frame."""
    c = await connect(server, "Ann")  # STRICT: a burst of 100; the hello took one
    c.send_raw(b"".join(raw({"type": [1], "id": 100 + i}) for i in range(25)))
    await c.until(lambda c: len([m for m in c.received if isinstance(m, Error)]) >= 25)
    codes = Counter(m.code for m in c.received if isinstance(m, Error))
    assert codes == {errors.UNKNOWN_MESSAGE: 19, errors.RATE_LIMITED: 6}
    await c.close()


async def test_tables_opened_and_left_again_and_again_write_a_few_log_lines(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """An address opening a table and leaving it, over and over within its rate, wrote
    two lines each time ("table 7 created by f3: 'spam'", "table 7 closed"): 1,440
    lines in 4 s from one address. Now those say one line a kind every few seconds,
    with how many were held back."""
    c = await connect(server, "Spammer")
    with caplog.at_level(logging.INFO, logger="rummy"):
        for _ in range(30):
            assert isinstance(await c.request(CreateTable, name="spam", options=TableOptions()), Seated)
            assert isinstance(await c.request(Leave), Ok)
        await eventually(lambda: not server.lobby.tables)
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("rummy")]
    assert sum("created" in line for line in lines) == 1, lines
    assert sum("closed" in line for line in lines) <= 1, lines
    await still_serves(c)
    await c.close()
