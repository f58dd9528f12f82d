"""What each request does (docs/PROTOCOL.md): one function, one ``match``.

A request about a table is handed to that table's master (through its runner),
which answers it (``ok``, ``seated``...) with the news for everyone at the table;
the others are answered here. Either way a refusal is a ``Refused``, which the
session turns into an ``error`` with the request's id. Player text is cleaned
here, once, before anyone else sees it.

``handle`` is a plain function, not a coroutine: it answers at once, or returns
what the answer waits for (its table's change, as a future; a read of the
archive, as a coroutine), which the session waits for before the connection's
next request. A coroutine per request, resumed through a chain of five awaits
when its table's commit came, was a good part of what a move cost the server.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..protocol import errors as E
from ..protocol.codec import MAX_CLIENT_FRAME, encode
from ..protocol.messages import (
    PROTOCOL_VERSION,
    AddBot,
    Chat,
    ClientMessage,
    CreateTable,
    GetRecord,
    Hello,
    History,
    Leave,
    LobbySubscribe,
    MoveRequest,
    Ok,
    Ping,
    PlayAgain,
    Pong,
    Ready,
    Rejoin,
    RemoveBot,
    Seated,
    Sit,
    Start,
    Watch,
    Welcome,
)
from ..protocol.sanitize import CHAT_LIMIT, NAME_LIMIT, TABLE_NAME_LIMIT, default_table_name, sanitize
from ..protocol.wire import move_from_wire
from . import archive
from .changes import Change
from .lobby import Lobby
from .master import TableMaster
from .options import ServerOptions
from .peer import Connection
from .refused import Refused
from .storage import Storage

SERVER_NAME = "rummy-server"


@dataclass(frozen=True, slots=True)
class Host:
    """What the handlers need of the server."""

    lobby: Lobby
    storage: Storage
    stats: Counter[str]  # what the guards did, by kind
    room_for_newcomer: Callable[[], bool]


def cost(msg: ClientMessage, options: ServerOptions) -> int:
    """Tokens of the connection's rate limit a request takes: one, or more for those
    that make the server send a lot (a whole table list; a chat line, which goes to
    everyone at the table; a watch or rejoin, answered with the whole game; a history
    page or a game's record, read from the archive), so that
    asking for them at the allowed rate stays cheap for the server."""
    match msg:
        case Hello(lobby=True) | LobbySubscribe(on=True):
            return options.lobby_cost
        case Chat() | Watch() | Rejoin():
            return options.push_cost
        case History() | GetRecord():
            return options.archive_cost
        case _:
            return 1


def handle(s: Connection, msg: ClientMessage, host: Host) -> Awaitable[Any] | None:
    """Carry out ``msg``: None when it is answered already, else what its answer
    waits for. A refusal raises ``Refused``, or is the awaitable's exception."""
    if not s.said_hello:
        if not isinstance(msg, Hello):
            raise Refused(E.HELLO_FIRST, "Say hello first.")
        return _hello(s, msg, host)
    lobby = host.lobby
    you = s.visitor
    match msg:
        case MoveRequest(after=after):  # first: most requests are moves
            move = move_from_wire(msg.move)
            return _at_my_table(s, lobby, lambda t: t.play(you, move, after, msg.id))
        case Hello():
            raise Refused(E.HELLO_AGAIN, "You have already said hello.")
        case LobbySubscribe(on=on):
            s.send(Ok(id=msg.id))
            if on:
                lobby.subscribe(s)
            else:
                lobby.unsubscribe(s)
        case CreateTable():
            _not_at_table(s, lobby)
            taken = {t.name for t in lobby.tables.values()}
            name = sanitize(msg.name, TABLE_NAME_LIMIT) or default_table_name(s.name, taken)
            return lobby.create_table(s, you, name, msg.options, msg.chair, msg.id)
        case Sit(table_id=table_id, chair=chair):
            _not_at_table(s, lobby)
            return lobby.run(table_id, lambda t: t.sit(you, chair, msg.id))
        case Rejoin():
            table_id, chair = _reclaim_or_refuse(s, lobby, msg.token)
            seated = encode(Seated(id=msg.id, table_id=table_id, chair=chair, token=msg.token))
            return lobby.run(table_id, lambda t: t.reclaim(you, chair, msg.token, seated))
        case Watch(table_id=table_id):
            _not_at_table(s, lobby)
            return lobby.run(table_id, lambda t: t.watch(you, msg.id))
        case Leave():
            return _at_my_table(s, lobby, lambda t: t.leave(you, msg.id))
        case AddBot(chair=chair, level=level):
            return _at_my_table(s, lobby, lambda t: t.add_bot(you, chair, level, msg.id))
        case RemoveBot(chair=chair):
            return _at_my_table(s, lobby, lambda t: t.remove_bot(you, chair, msg.id))
        case Start():
            return _at_my_table(s, lobby, lambda t: t.start(you, msg.id))
        case Ready():
            return _at_my_table(s, lobby, lambda t: t.ready(you, msg.id))
        case PlayAgain():
            return _at_my_table(s, lobby, lambda t: t.play_again(you, msg.id))
        case Chat():
            table = _my_table(s, lobby)
            table.chat_or_refuse(s.id)  # before the cleaning: the table's budget bounds that work too
            text = sanitize(msg.text, CHAT_LIMIT)
            return lobby.run(table.id, lambda t: t.chat(you, text, msg.id))
        case Ping():
            s.send(Pong(id=msg.id, time=time.time()))
        case History():
            return _send(s, archive.history_page(host.storage, s.name, msg.limit, msg.before, msg.id))
        case GetRecord():
            return _send(s, archive.game_record(host.storage, msg.game_id, msg.id))
    return None


async def _send(s: Connection, answer: Awaitable[Any]) -> None:
    s.send(await answer)


def _hello(s: Connection, msg: Hello, host: Host) -> Awaitable[Any] | None:
    if msg.version != PROTOCOL_VERSION:
        s.fail(
            E.VERSION,
            f"This server speaks protocol version {PROTOCOL_VERSION}, not {msg.version}: update your client.",
            msg.id,
        )
        return None
    name = sanitize(msg.name, NAME_LIMIT)
    if not name:
        raise Refused(E.BAD_NAME, "Choose a name with at least one letter in it.")
    lobby = host.lobby
    found = lobby.registry.find_token(msg.token) if msg.token else None
    if found is None and not host.room_for_newcomer():
        host.stats["lobby_full"] += 1
        s.fail(E.TOO_MANY_CONNECTIONS, "The server is full: try again in a while.", msg.id)
        return None
    s.said_hello_as(name, msg.legal_moves)

    def welcome(place: tuple[int, int] | None) -> bytes:
        frame = encode(
            Welcome(
                id=msg.id,
                version=PROTOCOL_VERSION,
                name=name,
                server=SERVER_NAME,
                max_frame=MAX_CLIENT_FRAME,
                table_id=None if place is None else place[0],
                chair=None if place is None else place[1],
                token_refused=msg.token is not None and place is None,
                idle_timeout=lobby.options.idle_timeout,
                turn_silence=lobby.options.turn_silence or None,
            )
        )
        # The table list goes with the welcome, as it is when the welcome is sent, and
        # the session follows it from then on: following it from the hello, a session
        # whose welcome waited (a chair taken back) heard of changes before its welcome,
        # whose older list then undid them.
        return frame + lobby.subscribe(s, send=False) if msg.lobby else frame

    if found is None or msg.token is None:
        s.send_frame(welcome(None))
        return None
    return _welcome_back(s, lobby, found, msg.token, welcome)


async def _welcome_back(
    s: Connection,
    lobby: Lobby,
    found: tuple[int, int],
    token: str,
    welcome: Callable[[tuple[int, int] | None], bytes],
) -> None:
    """Take back the chair the hello's token was found for; if the chair changed hands
    while the request waited its turn (the table checks the token again), the hello is
    still answered with a welcome, one that says the token opened nothing."""
    table_id, chair = found
    you = s.visitor
    try:
        await lobby.run(table_id, lambda t: t.reclaim(you, chair, token, lambda: welcome(found)))
    except Refused:
        s.send_frame(welcome(None))


def _not_at_table(s: Connection, lobby: Lobby) -> None:
    if lobby.registry.place_of(s.id) is not None:
        raise Refused(E.ALREADY_AT_TABLE, "Leave your table first.")


def _my_table(s: Connection, lobby: Lobby) -> TableMaster:
    table = lobby.table_of(s)
    if table is None:
        raise Refused(E.NOT_AT_TABLE, "You are not at a table.")
    return table


def _at_my_table(s: Connection, lobby: Lobby, make: Callable[[TableMaster], Change]) -> Awaitable[Any]:
    return lobby.run(_my_table(s, lobby).id, make)


def _reclaim_or_refuse(s: Connection, lobby: Lobby, token: str) -> tuple[int, int]:
    found = lobby.registry.find_token(token)
    if found is None:
        raise Refused(E.BAD_TOKEN, "No chair has this token (the table may have closed).")
    place = lobby.registry.place_of(s.id)
    if place is not None and place != found:
        raise Refused(E.ALREADY_AT_TABLE, "Leave your table first.")
    return found
