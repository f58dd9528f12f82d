"""The frame codec, sans-I/O: messages to bytes, bytes to messages.

A frame is a 4-byte big-endian length, then that many bytes holding one
MessagePack map. ``FrameDecoder`` is fed whatever bytes arrive (any split) and
returns the messages and protocol errors found so far, in order. Like h11's
``Connection`` it never touches a socket; unlike msgspec's asyncio example it
checks the announced length before reading the frame and turns a bad frame
into an error value instead of an exception.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

import msgspec

from .errors import BAD_FIELD, BAD_MSGPACK, FRAME_TOO_LARGE, UNKNOWN_MESSAGE, ProtocolError
from .messages import ClientMessage, ServerMessage

HEADER = 4
# A client's request is small (the longest is a chat line); the server's pushes
# may hold a whole lobby, so the two directions have their own limits.
MAX_CLIENT_FRAME = 64 * 1024
MAX_SERVER_FRAME = 4 * 1024 * 1024

M = TypeVar("M")

_encoder = msgspec.msgpack.Encoder()
_untyped = msgspec.msgpack.Decoder()


def encode_payload(message: Any) -> bytes:
    """The MessagePack bytes of a message (no length prefix)."""
    return _encoder.encode(message)


def frame(payload: bytes) -> bytes:
    """Prefix ``payload`` with its length."""
    return len(payload).to_bytes(HEADER, "big") + payload


def encode(message: Any) -> bytes:
    """One whole frame holding ``message``: what to write to the socket."""
    return frame(_encoder.encode(message))


class _IdOnly(msgspec.Struct):
    """Used only to fish the request id out of a message that failed validation."""

    id: int | None = None


_id_decoder = msgspec.msgpack.Decoder(_IdOnly)


def _request_id(payload: bytes) -> int | None:
    try:
        return _id_decoder.decode(payload).id
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def classify(payload: bytes, known_types: frozenset[str], error: Exception) -> ProtocolError:
    """Turn a failed decode into the protocol error a peer is told (non-fatal: the
    frame boundary is known, so the stream is still in step)."""
    try:
        raw = _untyped.decode(payload)
    except msgspec.DecodeError:
        return ProtocolError(BAD_MSGPACK, "That frame is not MessagePack.")
    if not isinstance(raw, dict) or raw.get("type") not in known_types:
        kind = raw.get("type") if isinstance(raw, dict) else None
        shown = repr(kind)[:40]
        return ProtocolError(
            UNKNOWN_MESSAGE,
            f"Unknown message type {shown}."
            if kind is not None
            else "A message must be a map with a 'type'.",
            _request_id(payload),
        )
    return ProtocolError(BAD_FIELD, f"Bad message: {str(error)[:200]}", _request_id(payload))


def _tags(union: Any) -> frozenset[str]:
    return frozenset(t.__struct_config__.tag for t in union.__args__)


class FrameDecoder(Generic[M]):
    """Incremental decoder: ``feed(data)`` returns the messages (of ``message_type``)
    and ``ProtocolError``s completed by ``data``.

    A frame announcing more than ``max_frame`` bytes is refused as soon as its
    header arrives, before any of it is buffered; as the stream cannot be trusted
    after that, the error is fatal and the decoder then ignores all input.
    """

    def __init__(self, message_type: Any, max_frame: int) -> None:
        self._decoder: msgspec.msgpack.Decoder[M] = msgspec.msgpack.Decoder(message_type)
        self._tags = _tags(message_type)
        self._max = max_frame
        self._buffer = bytearray()
        self.closed = False

    @property
    def buffered(self) -> int:
        """Bytes received but not yet part of a whole frame."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[M | ProtocolError]:
        if self.closed:
            return []
        buf = self._buffer
        buf += data
        out: list[M | ProtocolError] = []
        pos = 0
        while len(buf) - pos >= HEADER:
            size = int.from_bytes(buf[pos : pos + HEADER], "big")
            if size > self._max:
                self.closed = True
                buf.clear()
                out.append(
                    ProtocolError(
                        FRAME_TOO_LARGE,
                        f"A frame may hold at most {self._max} bytes, not {size}.",
                        fatal=True,
                    )
                )
                return out
            end = pos + HEADER + size
            if len(buf) < end:
                break
            payload = bytes(buf[pos + HEADER : end])
            pos = end
            try:
                out.append(self._decoder.decode(payload))
            except (msgspec.DecodeError, msgspec.ValidationError) as e:
                out.append(classify(payload, self._tags, e))
        del buf[:pos]
        return out


def client_decoder() -> FrameDecoder[ClientMessage]:
    """What the server uses to read a client."""
    return FrameDecoder(ClientMessage, MAX_CLIENT_FRAME)


def server_decoder() -> FrameDecoder[ServerMessage]:
    """What a client uses to read the server."""
    return FrameDecoder(ServerMessage, MAX_SERVER_FRAME)
