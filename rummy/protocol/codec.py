"""The frame codec, sans-I/O: messages to bytes, bytes to messages.

A frame is a 4-byte big-endian length, then that many bytes holding one
MessagePack map. ``FrameDecoder`` is fed whatever bytes arrive (any split) and
returns the messages and protocol errors found so far, in order. Like h11's
``Connection`` it never touches a socket; unlike msgspec's asyncio example it
checks the announced length before reading the frame and turns a bad frame
(not MessagePack, nested too deeply, of no known type, with a bad field) into an
error value: ``feed`` never raises.
"""

from __future__ import annotations

import functools
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


def encode_payload(message: Any) -> bytes:
    """The MessagePack bytes of a message (no length prefix)."""
    return _encoder.encode(message)


def frame(payload: bytes) -> bytes:
    """Prefix ``payload`` with its length."""
    return len(payload).to_bytes(HEADER, "big") + payload


def encode(message: Any) -> bytes:
    """One whole frame holding ``message``: what to write to the socket."""
    return frame(_encoder.encode(message))


class _Envelope(msgspec.Struct):
    """Only the ``type`` and ``id`` of a message that failed validation, left undecoded
    (``Raw``) so that nothing inside them is built: a ``type`` that is a list or a map
    is not hashable, and a deep one would recurse."""

    type: msgspec.Raw = msgspec.Raw(b"")
    id: msgspec.Raw = msgspec.Raw(b"")


_envelope = msgspec.msgpack.Decoder(_Envelope)
_string = msgspec.msgpack.Decoder(str)
_request_id_type = msgspec.msgpack.Decoder(int | None)

TOO_DEEP = "That frame is nested too deeply to read."


def classify(payload: bytes, known_types: frozenset[str], error: Exception) -> ProtocolError:
    """Turn a failed decode into the protocol error a peer is told (non-fatal: the
    frame boundary is known, so the stream is still in step). Never raises."""
    try:
        envelope = _envelope.decode(payload)
    except msgspec.ValidationError:  # MessagePack, but not a map
        return ProtocolError(UNKNOWN_MESSAGE, "A message must be a map with a 'type'.")
    except msgspec.DecodeError:
        return ProtocolError(BAD_MSGPACK, "That frame is not MessagePack.")
    except RecursionError:  # msgspec recurses to skip nested values, up to Python's limit
        return ProtocolError(BAD_MSGPACK, TOO_DEEP)
    request_id = _decoded(_request_id_type, envelope.id)
    if not envelope.type:
        return ProtocolError(UNKNOWN_MESSAGE, "A message must be a map with a 'type'.", request_id)
    kind = _decoded(_string, envelope.type)
    if kind not in known_types:
        shown = repr(kind)[:40] if isinstance(kind, str) else "that is not a string"
        return ProtocolError(UNKNOWN_MESSAGE, f"Unknown message type {shown}.", request_id)
    if isinstance(error, RecursionError):
        return ProtocolError(BAD_MSGPACK, TOO_DEEP, request_id)
    return ProtocolError(BAD_FIELD, f"Bad message: {str(error)[:200]}", request_id)


def _decoded(decoder: msgspec.msgpack.Decoder[Any], raw: msgspec.Raw) -> Any:
    """``raw`` decoded as the decoder's type, or None when it is absent or not of it."""
    if not raw:
        return None
    try:
        return decoder.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None


def _tags(union: Any) -> frozenset[str]:
    return frozenset(t.__struct_config__.tag for t in union.__args__)


class FrameSplitter:
    """Cuts a byte stream into frames: ``feed(data)`` returns the payloads (the bytes
    after each length prefix) completed by ``data``, in order.

    A frame announcing more than ``max_frame`` bytes is refused as soon as its
    header arrives, before any of it is buffered; as the stream cannot be trusted
    after that, ``error`` then holds the (fatal) error and all input is ignored.
    """

    def __init__(self, max_frame: int) -> None:
        self._max = max_frame
        self._buffer = bytearray()
        self.error: ProtocolError | None = None

    @property
    def closed(self) -> bool:
        return self.error is not None

    @property
    def buffered(self) -> int:
        """Bytes received but not yet part of a whole frame."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[bytes]:
        if self.error is not None:
            return []
        buf = self._buffer
        if not buf and len(data) > HEADER:  # most often: one whole frame, nothing before it
            size = int.from_bytes(data[:HEADER], "big")
            if size <= self._max and len(data) == HEADER + size:
                return [data[HEADER:]]
        buf += data
        out: list[bytes] = []
        pos = 0
        while len(buf) - pos >= HEADER:
            size = int.from_bytes(buf[pos : pos + HEADER], "big")
            if size > self._max:
                buf.clear()
                self.error = ProtocolError(
                    FRAME_TOO_LARGE, f"A frame may hold at most {self._max} bytes, not {size}.", fatal=True
                )
                return out
            end = pos + HEADER + size
            if len(buf) < end:
                break
            out.append(bytes(buf[pos + HEADER : end]))
            pos = end
        del buf[:pos]
        return out


class FrameDecoder(Generic[M]):
    """Incremental decoder: ``feed(data)`` returns the messages (of ``message_type``)
    and ``ProtocolError``s completed by ``data``.

    Its ``frames`` (a ``FrameSplitter``) cut the stream; a frame that is too large
    ends it with a fatal error, reported once, after the messages before it.
    """

    def __init__(self, message_type: Any, max_frame: int) -> None:
        self._decoder: msgspec.msgpack.Decoder[M] = _decoder_of(message_type)
        self._tags = _tags(message_type)
        self.frames = FrameSplitter(max_frame)
        self._told = False

    @property
    def closed(self) -> bool:
        return self.frames.closed

    @property
    def buffered(self) -> int:
        """Bytes received but not yet part of a whole frame."""
        return self.frames.buffered

    def feed(self, data: bytes) -> list[M | ProtocolError]:
        return self.decode_frames(self.frames.feed(data))

    def decode_frames(self, payloads: list[bytes]) -> list[M | ProtocolError]:
        """The messages in ``payloads`` (cut by ``frames``), then the splitter's error if
        it has just stopped."""
        out = [self.decode(payload) for payload in payloads]
        if self.frames.error is not None and not self._told:
            self._told = True
            out.append(self.frames.error)
        return out

    def decode(self, payload: bytes) -> M | ProtocolError:
        """One frame's payload as a message, or the error a bad one is answered with."""
        try:
            return self._decoder.decode(payload)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as e:
            # RecursionError: msgspec recurses into nested arrays and maps (also to
            # skip unknown fields) and gives up at Python's recursion limit.
            return classify(payload, self._tags, e)


@functools.cache
def _decoder_of(message_type: Any) -> msgspec.msgpack.Decoder[Any]:
    """One msgspec decoder per message type, shared by every connection (a decoder
    keeps no state between messages): making one took 35 µs of every connection's
    set-up, and its memory."""
    return msgspec.msgpack.Decoder(message_type)


def client_decoder() -> FrameDecoder[ClientMessage]:
    """What the server uses to read a client."""
    return FrameDecoder(ClientMessage, MAX_CLIENT_FRAME)


def server_decoder() -> FrameDecoder[ServerMessage]:
    """What a client uses to read the server."""
    return FrameDecoder(ServerMessage, MAX_SERVER_FRAME)
