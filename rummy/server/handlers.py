"""What each request does (docs/PROTOCOL.md): one function, one ``match``.

A handler answers its request (``ok``, ``seated``...) or raises ``Refused``,
which the session turns into an ``error`` with the request's id. Player text
is sanitised here, once, before anyone else sees it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ..protocol import errors as E
from ..protocol.codec import MAX_CLIENT_FRAME
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
    Watching,
    Welcome,
)
from ..protocol.sanitize import CHAT_LIMIT, NAME_LIMIT, TABLE_NAME_LIMIT, sanitize
from ..protocol.wire import move_from_wire
from . import archive
from .options import ServerOptions
from .peer import Refused

if TYPE_CHECKING:
    from .session import Session
    from .table import Table

SERVER_NAME = "rummy-server"


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


async def handle(s: Session, msg: ClientMessage) -> None:
    if not s.said_hello:
        if not isinstance(msg, Hello):
            raise Refused(E.HELLO_FIRST, "Say hello first.")
        await _hello(s, msg)
        return
    lobby = s.server.lobby
    match msg:
        case Hello():
            raise Refused(E.HELLO_AGAIN, "You have already said hello.")
        case LobbySubscribe(on=on):
            s.send(Ok(id=msg.id))
            if on:
                lobby.subscribe(s)
            else:
                lobby.unsubscribe(s)
        case CreateTable():
            _not_at_table(s)
            name = sanitize(msg.name, TABLE_NAME_LIMIT) or f"{s.name}'s table"
            table, token = await lobby.create_table(s, name, msg.options, msg.chair)
            s.send(Seated(id=msg.id, table_id=table.id, chair=msg.chair, token=token))
            table.arrived(s)
        case Sit():
            _not_at_table(s)
            table = _table(s, msg.table_id)
            token = await table.sit(s, msg.chair)
            s.send(Seated(id=msg.id, table_id=table.id, chair=msg.chair, token=token))
            table.arrived(s)
        case Rejoin():
            table, chair = _reclaim(s, msg.token)
            s.send(Seated(id=msg.id, table_id=table.id, chair=chair, token=msg.token))
            table.arrived(s)
        case Watch():
            _not_at_table(s)
            table = _table(s, msg.table_id)
            table.watch(s)
            s.send(Watching(id=msg.id, table_id=table.id))
            table.arrived(s)
        case Leave():
            await _my_table(s).leave(s)
            s.send(Ok(id=msg.id))
        case AddBot():
            await _my_table(s).add_bot(s, msg.chair, msg.level)
            s.send(Ok(id=msg.id))
        case RemoveBot():
            await _my_table(s).remove_bot(s, msg.chair)
            s.send(Ok(id=msg.id))
        case Start():
            await _my_table(s).start(s)
            s.send(Ok(id=msg.id))
        case MoveRequest():
            await _my_table(s).play(s, move_from_wire(msg.move), msg.after, msg.id)
        case Ready():
            await _my_table(s).ready(s)
            s.send(Ok(id=msg.id))
        case PlayAgain():
            table = _my_table(s)
            await table.play_again(s)
            s.send(Ok(id=msg.id))
        case Chat():
            table = _my_table(s)
            table.chat_or_refuse()  # before the cleaning: the table's budget bounds that work too
            text = sanitize(msg.text, CHAT_LIMIT)
            if text:
                table.post_chat(s, text)
            s.send(Ok(id=msg.id))
        case Ping():
            s.send(Pong(id=msg.id, time=time.time()))
        case History():
            s.send(await archive.history_page(s.server.storage, s.name, msg.limit, msg.before, msg.id))
        case GetRecord():
            s.send(await archive.game_record(s.server.storage, msg.game_id, msg.id))


async def _hello(s: Session, msg: Hello) -> None:
    if msg.version != PROTOCOL_VERSION:
        s.fail(
            E.VERSION,
            f"This server speaks protocol version {PROTOCOL_VERSION}, not {msg.version}: update your client.",
            msg.id,
        )
        return
    name = sanitize(msg.name, NAME_LIMIT)
    if not name:
        raise Refused(E.BAD_NAME, "Choose a name with at least one letter in it.")
    found = s.server.lobby.find_token(msg.token) if msg.token else None
    if found is None and not s.server.room_for_newcomer():
        s.server.stats["lobby_full"] += 1
        s.fail(E.TOO_MANY_CONNECTIONS, "The server is full: try again in a while.", msg.id)
        return
    s.name = name
    s.said_hello = True
    s.wants_legal_moves = msg.legal_moves
    if found is not None:
        table, chair = found
        table.reclaim(s, chair)
    s.send(
        Welcome(
            id=msg.id,
            version=PROTOCOL_VERSION,
            name=name,
            server=SERVER_NAME,
            max_frame=MAX_CLIENT_FRAME,
            table_id=None if found is None else found[0].id,
            chair=None if found is None else found[1],
            token_refused=msg.token is not None and found is None,
        )
    )
    if msg.lobby:
        s.server.lobby.subscribe(s)
    if found is not None:
        found[0].arrived(s)


def _not_at_table(s: Session) -> None:
    if s.table is not None:
        raise Refused(E.ALREADY_AT_TABLE, "Leave your table first.")


def _my_table(s: Session) -> Table:
    if s.table is None:
        raise Refused(E.NOT_AT_TABLE, "You are not at a table.")
    return s.table


def _table(s: Session, table_id: int) -> Table:
    table = s.server.lobby.tables.get(table_id)
    if table is None:
        raise Refused(E.NO_SUCH_TABLE, "There is no such table.")
    return table


def _reclaim(s: Session, token: str) -> tuple[Table, int]:
    found = s.server.lobby.find_token(token)
    if found is None:
        raise Refused(E.BAD_TOKEN, "No chair has this token (the table may have closed).")
    table, chair = found
    if s.table is not None and not (s.table is table and s.chair == chair):
        raise Refused(E.ALREADY_AT_TABLE, "Leave your table first.")
    table.reclaim(s, chair)
    return table, chair
