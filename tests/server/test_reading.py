"""Every connection of a server reads its socket into one buffer (``Session.get_buffer``):
what one peer sends never shows in another's requests, however the bytes of many
peers arrive interleaved, a byte at a time or several frames in one piece."""

from __future__ import annotations

import asyncio

from rummy.protocol import PROTOCOL_VERSION, Hello, Welcome
from rummy.protocol.codec import encode, server_decoder
from rummy.server import Server

from .game_helpers import tcp_server

__all__ = ["tcp_server"]

PEERS = 6


async def answers(reader: asyncio.StreamReader, count: int) -> list[object]:
    """The next ``count`` answers (messages with a request id; pushes are skipped)."""
    decoder = server_decoder()
    got: list[object] = []
    while len(got) < count:
        data = await asyncio.wait_for(reader.read(65536), 10)
        assert data, "the server closed the connection"
        got += [m for m in decoder.feed(data) if getattr(m, "id", None) is not None]
    assert len(got) == count, got
    return got


async def test_peers_sending_a_byte_at_a_time_in_turn_each_get_their_own_answers(tcp_server: Server) -> None:
    peers = [await asyncio.open_connection(tcp_server.host, tcp_server.port) for _ in range(PEERS)]
    # Each peer's hello, long enough to take many reads, sent a byte from each peer in turn.
    hellos = [
        encode(Hello(id=i + 1, version=PROTOCOL_VERSION, name=f"peer{i}-" + "xyz" * 5, lobby=False))
        for i in range(PEERS)
    ]
    for at in range(max(len(h) for h in hellos)):
        for (_, writer), hello in zip(peers, hellos, strict=True):
            if at < len(hello):
                writer.write(hello[at : at + 1])
                await writer.drain()
        await asyncio.sleep(0)  # let the server read what came so far
    for i, (reader, _) in enumerate(peers):
        (welcome,) = await answers(reader, 1)
        assert isinstance(welcome, Welcome)
        assert (welcome.id, welcome.name) == (i + 1, f"peer{i}-" + "xyz" * 5)
    for _, writer in peers:
        writer.close()


async def test_many_frames_in_one_piece_are_each_answered_in_order(tcp_server: Server) -> None:
    reader, writer = await asyncio.open_connection(tcp_server.host, tcp_server.port)
    other_reader, other = await asyncio.open_connection(tcp_server.host, tcp_server.port)
    # A hello and then 50 of them again (refused: one hello only), in a single write,
    # with another peer's hello arriving between.
    frames = [encode(Hello(id=i, version=PROTOCOL_VERSION, name="solo", lobby=False)) for i in range(1, 52)]
    writer.write(b"".join(frames))
    other.write(encode(Hello(id=9, version=PROTOCOL_VERSION, name="other", lobby=False)))
    got = await answers(reader, 51)
    assert [getattr(m, "id", None) for m in got] == list(range(1, 52))
    assert isinstance(got[0], Welcome) and got[0].name == "solo"
    (welcome,) = await answers(other_reader, 1)
    assert isinstance(welcome, Welcome) and welcome.name == "other"
    writer.close()
    other.close()
