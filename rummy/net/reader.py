"""Reading the server's frames from an asyncio stream: the one read loop every client uses.

The cutting and decoding is the protocol's (``rummy.protocol.codec``); this only
feeds it what the socket gives.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from ..protocol.codec import frame, server_decoder
from ..protocol.errors import ProtocolError
from ..protocol.messages import ServerMessage

READ_CHUNK = 64 * 1024


async def server_messages(
    reader: asyncio.StreamReader, keep: list[bytes] | None = None
) -> AsyncIterator[list[ServerMessage | ProtocolError]]:
    """The server's messages as they arrive, one list per chunk read (a chunk may hold
    several frames, or none yet), until the server closes the stream. With ``keep``,
    every whole frame (its length prefix too) is appended to it as received."""
    decoder = server_decoder()
    while True:
        data = await reader.read(READ_CHUNK)
        if not data:
            return
        payloads = decoder.frames.feed(data)
        if keep is not None:
            keep.extend(frame(payload) for payload in payloads)
        yield decoder.decode_frames(payloads)
