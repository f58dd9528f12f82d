"""The frame codec, sans-I/O: bytes in any split, errors as values, the size cap first."""

from __future__ import annotations

import msgpack
import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rummy.protocol import (
    MAX_CLIENT_FRAME,
    ChairInfo,
    Chat,
    ChatLine,
    Clock,
    CreateTable,
    Error,
    Hello,
    Lobby,
    MoveRequest,
    ProtocolError,
    Seated,
    SpectatorInfo,
    Table,
    TableInfo,
    TableOptions,
    Watching,
    client_decoder,
    encode,
    errors,
    frame,
    server_decoder,
)
from rummy.protocol.wire import DiscardWire, TakeDiscardWire

CLIENT_MESSAGES = [
    Hello(id=1, version=1, name="Ann", token="t" * 32, lobby=False),
    CreateTable(id=2, name="Ann's", options=TableOptions(seating="chosen", turn_seconds=30, on_drop="bot")),
    MoveRequest(id=3, move=TakeDiscardWire(index=2, cards=[31, 32, 33], meld_id=None), after=12),
    MoveRequest(id=4, move=DiscardWire(card=55)),
    Chat(id=5, text="héllo ♥"),
]
TABLE = TableInfo(
    table_id=9,
    name="t",
    options=TableOptions(),
    status="waiting",
    chairs=[ChairInfo(chair=i, name=None if i else "Ann", present=not i) for i in range(4)],
    spectators=1,
    creator=0,
    games=0,
)
SERVER_MESSAGES = [
    Seated(id=2, table_id=9, chair=0, token="secret"),
    Error(id=None, code="bad-field", text="x", fatal=False),
    Lobby(tables=[TABLE]),
    Table(table=TABLE),
    Clock(table_id=9, kind="turn", seat=2, remaining=12.5, deadline=1.7e9, paused=False),
    ChatLine(table_id=9, by="server", chair=None, name="", text="Time is up", time=1.7e9),
    Watching(id=3, table_id=9, spectator=2),
    Table(
        table=TABLE, watchers=[SpectatorInfo(spectator=1, name="Ana"), SpectatorInfo(spectator=2, name="Ana")]
    ),
    ChatLine(table_id=9, by="spectator", chair=None, name="Ana", text="hi", time=1.7e9, spectator=2),
]


def test_every_message_round_trips_through_a_frame() -> None:
    decoder = client_decoder()
    assert decoder.feed(b"".join(encode(m) for m in CLIENT_MESSAGES)) == CLIENT_MESSAGES
    sdecoder = server_decoder()
    assert sdecoder.feed(b"".join(encode(m) for m in SERVER_MESSAGES)) == SERVER_MESSAGES


def test_a_frame_is_a_big_endian_length_and_one_messagepack_map() -> None:
    data = encode(Hello(id=1, version=1, name="Ann"))
    assert int.from_bytes(data[:4], "big") == len(data) - 4
    assert msgpack.unpackb(data[4:]) == {
        "type": "hello",
        "id": 1,
        "version": 1,
        "name": "Ann",
        "token": None,
        "lobby": True,
        "legal_moves": False,
    }


@given(st.lists(st.integers(min_value=1, max_value=40), max_size=30))
def test_fragmented_frames_decode_the_same_in_any_split(cuts: list[int]) -> None:
    stream = b"".join(encode(m) for m in CLIENT_MESSAGES)
    decoder = client_decoder()
    out: list[object] = []
    pos = 0
    for cut in cuts:
        out += decoder.feed(stream[pos : pos + cut])
        pos += cut
    out += decoder.feed(stream[pos:])
    assert out == CLIENT_MESSAGES
    assert decoder.buffered == 0


def test_byte_by_byte_yields_nothing_until_a_frame_is_whole() -> None:
    data = encode(CLIENT_MESSAGES[0])
    decoder = client_decoder()
    assert all(decoder.feed(data[i : i + 1]) == [] for i in range(len(data) - 1))
    assert decoder.feed(data[-1:]) == [CLIENT_MESSAGES[0]]


def test_an_oversized_announced_length_is_refused_before_the_body() -> None:
    decoder = client_decoder()
    out = decoder.feed((MAX_CLIENT_FRAME + 1).to_bytes(4, "big"))
    assert len(out) == 1 and isinstance(out[0], ProtocolError)
    assert out[0].code == errors.FRAME_TOO_LARGE and out[0].fatal
    assert decoder.closed and decoder.buffered == 0
    assert decoder.feed(encode(CLIENT_MESSAGES[0])) == []  # nothing more is read


def test_the_largest_allowed_frame_is_read() -> None:
    text = "x" * 1990
    message = Chat(id=1, text=text)
    assert client_decoder().feed(encode(message)) == [message]


def test_not_messagepack_is_a_non_fatal_error_and_the_stream_stays_in_step() -> None:
    decoder = client_decoder()
    out = decoder.feed(frame(b"\xc1") + frame(b"") + encode(CLIENT_MESSAGES[0]))
    assert [e.code for e in out[:2] if isinstance(e, ProtocolError)] == [errors.BAD_MSGPACK] * 2
    assert not any(e.fatal for e in out[:2] if isinstance(e, ProtocolError))
    assert out[2] == CLIENT_MESSAGES[0]


@pytest.mark.parametrize(
    "payload",
    [{"type": "launch_missiles", "id": 5}, {"id": 5}, [1, 2], 17, "hello", {"type": 3, "id": 5}],
)
def test_an_unknown_message_is_an_error_with_its_id_when_readable(payload: object) -> None:
    out = client_decoder().feed(frame(msgpack.packb(payload)))
    assert len(out) == 1 and isinstance(out[0], ProtocolError)
    assert out[0].code == errors.UNKNOWN_MESSAGE and not out[0].fatal
    assert out[0].request_id == (5 if isinstance(payload, dict) else None)


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"type": "hello", "id": 5, "version": "1", "name": "A"}, "version"),
        ({"type": "hello", "id": 5, "version": 1}, "name"),
        ({"type": "sit", "id": 5, "table_id": 1, "chair": 4}, "chair"),
        ({"type": "sit", "id": 5, "table_id": 1, "chair": True}, "chair"),
        ({"type": "move", "id": 5, "move": {"type": "discard", "card": 56}}, "card"),
        ({"type": "move", "id": 5, "move": {"type": "meld", "cards": list(range(15))}}, "cards"),
        ({"type": "move", "id": 5, "move": {"type": "fly"}}, "type"),
        ({"type": "chat", "id": 5, "text": "x" * 2001}, "text"),
        ({"type": "create_table", "id": 5, "name": "t", "options": {"on_drop": "explode"}}, "on_drop"),
        ({"type": "hello", "id": 5, "version": 1, "name": "x" * 201}, "name"),
    ],
)
def test_a_wrong_field_is_bad_field_with_the_request_id(payload: dict[str, object], field: str) -> None:
    out = client_decoder().feed(frame(msgpack.packb(payload)))
    assert len(out) == 1 and isinstance(out[0], ProtocolError)
    assert out[0].code == errors.BAD_FIELD and out[0].request_id == 5 and not out[0].fatal
    assert field in out[0].text


def test_spectator_numbers_are_optional_for_servers_that_sent_none() -> None:
    """A ``watching``, ``table`` or ``chat_line`` of a server before spectators had
    numbers still reads: no number, nobody in the list."""
    old = [
        {"type": "watching", "id": 3, "table_id": 9},
        {"type": "table", "table": msgspec.to_builtins(TABLE)},
        {
            "type": "chat_line",
            "table_id": 9,
            "by": "spectator",
            "chair": None,
            "name": "Ana",
            "text": "hi",
            "time": 1.0,
        },
    ]
    watching, table, line = server_decoder().feed(b"".join(frame(msgpack.packb(m)) for m in old))
    assert isinstance(watching, Watching) and watching.spectator is None
    assert isinstance(table, Table) and table.watchers == []
    assert isinstance(line, ChatLine) and line.spectator is None


@pytest.mark.parametrize("number", [0, -1, "2", 2**60])
def test_a_spectator_number_is_a_small_positive_integer(number: object) -> None:
    bad = {"type": "watching", "id": 3, "table_id": 9, "spectator": number}
    out = server_decoder().feed(frame(msgpack.packb(bad)))
    assert isinstance(out[0], ProtocolError) and out[0].code == errors.BAD_FIELD


def test_a_wrong_id_is_still_answered_without_one() -> None:
    out = client_decoder().feed(frame(msgpack.packb({"type": "ping", "id": "seven"})))
    assert isinstance(out[0], ProtocolError) and out[0].code == errors.BAD_FIELD
    assert out[0].request_id is None


def test_unknown_extra_fields_are_ignored() -> None:
    out = client_decoder().feed(frame(msgpack.packb({"type": "ping", "id": 3, "later": [1, 2]})))
    assert len(out) == 1 and not isinstance(out[0], ProtocolError) and out[0].id == 3


def test_server_frames_have_their_own_larger_cap() -> None:
    big = Lobby(tables=[TABLE] * 1000)
    data = encode(big)
    assert len(data) > MAX_CLIENT_FRAME
    assert server_decoder().feed(data) == [big]
    out = client_decoder().feed(data)
    assert isinstance(out[0], ProtocolError) and out[0].code == errors.FRAME_TOO_LARGE


def test_msgspec_and_plain_msgpack_agree() -> None:
    for m in SERVER_MESSAGES:
        assert msgpack.unpackb(encode(m)[4:]) == msgspec.to_builtins(m)


DEEP_ARRAY = b"\x91" * 20_000 + b"\xc0"  # [[[[...nil...]]]]: 20,000 levels, 20 KB


@pytest.mark.parametrize(
    "payload",
    [
        DEEP_ARRAY,
        b"\x81\xa1a" * 10_000 + b"\xc0",  # {"a": {"a": ...}} 10,000 levels
        b"\x83\xa4type\xa4chat\xa2id\x05\xa4text" + DEEP_ARRAY,  # a field nested deep
        b"\x83\xa4type\xa4ping\xa2id\x05\xa4junk" + DEEP_ARRAY,  # an unknown field nested deep
        b"\x82\xa4type" + DEEP_ARRAY + b"\xa2id\x05",  # the type itself nested deep
    ],
    ids=["array", "map", "field", "unknown-field", "type"],
)
def test_deep_nesting_is_an_error_value_not_an_exception(payload: bytes) -> None:
    """msgspec recurses into nested values (also to skip them) and stops at Python's
    recursion limit; the decoder turns that into the documented error."""
    decoder = client_decoder()
    out = decoder.feed(frame(payload) + encode(CLIENT_MESSAGES[0]))
    assert len(out) == 2 and isinstance(out[0], ProtocolError) and not out[0].fatal
    assert out[0].code in (errors.BAD_MSGPACK, errors.UNKNOWN_MESSAGE)
    assert out[1] == CLIENT_MESSAGES[0]  # the stream is still in step


@pytest.mark.parametrize("kind", [[1, 2], {"a": 1}, ["hello"], None, 2.5, b"hello"])
def test_a_type_that_is_not_a_string_is_an_unknown_message(kind: object) -> None:
    """A list or a map as ``type`` raised 'unhashable type' out of the decoder."""
    out = client_decoder().feed(frame(msgpack.packb({"type": kind, "id": 5})))
    assert len(out) == 1 and isinstance(out[0], ProtocolError)
    assert out[0].code == errors.UNKNOWN_MESSAGE and out[0].request_id == 5 and not out[0].fatal


_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats()
    | st.text(max_size=8)
    | st.binary(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6) | st.integers(0, 9), inner)
    ),
    max_leaves=20,
)


@given(
    st.one_of(
        st.binary(max_size=300).map(frame),
        st.dictionaries(st.sampled_from(["type", "id", "move", "text", "name", "x"]), _VALUES).map(
            lambda d: frame(msgpack.packb(d))
        ),
        st.builds(
            lambda depth, inner: frame(b"\x91" * depth + inner), st.integers(0, 3000), st.binary(max_size=4)
        ),
    )
)
def test_no_frame_makes_the_decoder_raise(data: bytes) -> None:
    decoder = client_decoder()
    out = decoder.feed(data + encode(CLIENT_MESSAGES[0]))
    assert out[-1] == CLIENT_MESSAGES[0] or any(isinstance(e, ProtocolError) and e.fatal for e in out)
