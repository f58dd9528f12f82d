"""Every message of the protocol, as typed ``msgspec.Struct``s (docs/PROTOCOL.md).

A message is one MessagePack map whose ``"type"`` names it. Two tagged unions:
``ClientMessage`` (what a client may send) and ``ServerMessage`` (what the
server sends). Every client message is a request with an ``id`` (an integer the
client picks); the server's direct answer (``welcome``, ``ok``, ``seated``,
``watching``, ``pong`` or ``error``) repeats it. Everything else the server
sends is pushed, without an id.

Seats: a table has four *chairs* (0..3, the order people sat down in the
lobby); a game has four engine *seats* (RULES R2: 0 = South .. 3 = East). With
the draw for partners (R2.2) the partner draw maps chair p to seat
``partner_draw.seat_of_chair[p]``; ``ChairInfo.seat`` gives it once a game runs.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from ..engine import Seating
from .record import GameRecordWire, RecordPlayer
from .wire import EventWire, MoveWire, Points, Seat, Team, ViewWire
from .wire import PlayedBy as PlayedBy  # where it was defined first: it stays importable here

PROTOCOL_VERSION = 1
DEFAULT_PORT = 7325  # where rummy-server listens unless told otherwise

RequestId = Annotated[int, Meta(ge=0, le=2**53)]
TableId = Annotated[int, Meta(ge=1, le=2**53)]
GameId = Annotated[int, Meta(ge=1, le=2**53)]
Chair = Annotated[int, Meta(ge=0, le=3)]
# A spectator of one table, as the people at it know them: a number the table gives each
# watch as it begins (1, 2, ... in turn, never again at that table). It says nothing but
# which watcher of this table is which: not their connection, address or any secret (R9).
SpectatorId = Annotated[int, Meta(ge=1, le=2**53)]
# Hard caps on what a request may carry; the server then sanitizes and trims
# (``rummy.protocol.sanitize``) to the shorter display limits.
Name = Annotated[str, Meta(max_length=200)]
Text = Annotated[str, Meta(max_length=2000)]
Token = Annotated[str, Meta(max_length=128)]
ServerTime = float  # seconds since the Unix epoch, the server's clock
# How well a seated bot plays: easy (a beginner can beat it), normal, hard (it searches).
BotLevel = Literal["easy", "normal", "hard"]
BOT_LEVELS: tuple[BotLevel, ...] = ("easy", "normal", "hard")
HISTORY_PAGE = 20  # finished games in one history answer, unless the request asks fewer...
HISTORY_MAX = 50  # ...or more, up to this


class TableOptions(msgspec.Struct, kw_only=True):
    """How a table plays. ``turn_seconds`` 0 means no turn timer. ``on_drop``: what
    happens to the seat of a player who is away: ``wait`` for them (the turn timer,
    if set, still moves for them; after 2 minutes while others are there, a bot plays
    it until they return), or ``bot`` (a bot plays it until they return at once)."""

    seating: Seating = "draw"
    turn_seconds: Annotated[int, Meta(ge=0, le=3600)] = 0
    on_drop: Literal["wait", "bot"] = "wait"


class ChairInfo(msgspec.Struct, kw_only=True):
    """One chair of a table. ``name`` nil: the chair is free. ``present``: the player is
    connected (a bot always is). ``ready``: asked to go on (next deal or play again).
    ``seat``: the engine seat this chair plays in the current game (nil before).
    ``level``: a bot's level (``easy``, ``normal``, ``hard``); nil for a person."""

    chair: Chair
    name: str | None = None
    bot: bool = False
    present: bool = False
    ready: bool = False
    seat: Seat | None = None
    level: str | None = None


class SpectatorInfo(msgspec.Struct, kw_only=True):
    """One spectator of a table: their ``spectator`` number at it and their name (as
    the server keeps it: two may have the same one, told apart by the number)."""

    spectator: SpectatorId
    name: str


class TableInfo(msgspec.Struct, kw_only=True):
    """A table as the lobby and the people at it see it."""

    table_id: TableId
    name: str
    options: TableOptions
    status: Literal["waiting", "playing", "finished"]
    chairs: list[ChairInfo]
    spectators: int
    creator: Chair | None  # the chair that may seat bots and start
    games: int  # games started at this table so far


# --- client -> server: requests, each with an id ------------------------------


class _Request(msgspec.Struct, tag_field="type", kw_only=True):
    id: RequestId


class Hello(_Request, tag="hello"):
    """First message of a session. ``token`` reclaims a seat (as ``rejoin``);
    ``lobby`` subscribes to the table list at once; ``legal_moves`` asks for the
    seat's legal moves with each ``game`` push where it is to act (for bots)."""

    version: int
    name: Name
    token: Token | None = None
    lobby: bool = True
    legal_moves: bool = False


class LobbySubscribe(_Request, tag="lobby_subscribe"):
    """Start (``on`` true: a ``lobby`` message follows) or stop the lobby's pushes."""

    on: bool = True


class CreateTable(_Request, tag="create_table"):
    """Create a table and sit in ``chair`` of it; answered by ``seated``."""

    name: Name
    options: TableOptions = msgspec.field(default_factory=TableOptions)
    chair: Chair = 0


class Sit(_Request, tag="sit"):
    """Take a free chair of a waiting table; answered by ``seated``."""

    table_id: TableId
    chair: Chair


class Rejoin(_Request, tag="rejoin"):
    """Take back one's chair with its seat token; answered by ``seated``."""

    token: Token


class Watch(_Request, tag="watch"):
    """Watch a table as a spectator; answered by ``watching``."""

    table_id: TableId


class Leave(_Request, tag="leave"):
    """Leave the table one sits at or watches. During a game the chair is held
    (away) for its token; otherwise it is freed."""


class AddBot(_Request, tag="add_bot"):
    """The creator seats a bot of ``level`` in a free chair of a waiting table."""

    chair: Chair
    level: BotLevel = "normal"


class RemoveBot(_Request, tag="remove_bot"):
    """The creator removes a bot from a waiting table."""

    chair: Chair


class Start(_Request, tag="start"):
    """The creator starts the game once all four chairs are filled."""


class MoveRequest(_Request, tag="move"):
    """Play ``move`` for one's own seat. ``after``, if given, is the ``moves`` count of
    the ``game`` message it answers: the server refuses it (``stale``) if more moves
    were made since."""

    move: MoveWire
    after: Annotated[int, Meta(ge=0)] | None = None


class Ready(_Request, tag="ready"):
    """At a deal's end: ready for the next deal."""


class PlayAgain(_Request, tag="play_again"):
    """After a game: play again with the same four; starts when every chair asked."""


class Chat(_Request, tag="chat"):
    """Say something to everyone at one's table."""

    text: Text


class Ping(_Request, tag="ping"):
    """Answered by ``pong``."""


class History(_Request, tag="history"):
    """The finished games, the asker's own first (games where a player of their name
    sat), each group newest first; answered by ``history_page``. ``before``: the
    ``game_id`` of the last game of the previous page, to get the next one."""

    limit: Annotated[int, Meta(ge=1, le=HISTORY_MAX)] = HISTORY_PAGE
    before: GameId | None = None


class GetRecord(_Request, tag="get_record"):
    """One finished game's record, to watch it again; answered by ``record``. A game
    still being played has no record to give (RULES R9): ``no-such-game``."""

    game_id: GameId


ClientMessage = (
    Hello
    | LobbySubscribe
    | CreateTable
    | Sit
    | Rejoin
    | Watch
    | Leave
    | AddBot
    | RemoveBot
    | Start
    | MoveRequest
    | Ready
    | PlayAgain
    | Chat
    | Ping
    | History
    | GetRecord
)


# --- server -> client ------------------------------------------------------------


class _Push(msgspec.Struct, tag_field="type", kw_only=True):
    pass


class Welcome(_Push, tag="welcome"):
    """Answer to ``hello``. ``name`` is the name as the server keeps it (sanitized).
    ``table_id``/``chair``: the seat the hello's token reclaimed, if any;
    ``token_refused``: the hello carried a token that no chair has (its table closed,
    or it was never valid), so the session starts in the lobby as without one.
    ``idle_timeout``: seconds after which the server closes a connection not at a
    table that has sent nothing (nil: not said), so that a client can ping in time;
    ``turn_silence``: seconds after which the server takes a connection in a chair that
    has sent nothing, while the game waits for its move, for gone (nil: never, or not
    said)."""

    id: RequestId
    version: int
    name: str
    server: str
    max_frame: int
    table_id: TableId | None = None
    chair: Chair | None = None
    token_refused: bool = False
    idle_timeout: Annotated[float, Meta(ge=0)] | None = None
    turn_silence: Annotated[float, Meta(gt=0)] | None = None


class Ok(_Push, tag="ok"):
    """A request done that has no other answer."""

    id: RequestId


class Error(_Push, tag="error"):
    """A request refused (or a frame that could not be read: ``id`` nil). Nothing
    changed. ``fatal``: the server closes the connection after it."""

    id: RequestId | None
    code: str
    text: str
    fatal: bool = False


class Seated(_Push, tag="seated"):
    """Answer to ``create_table``, ``sit``, ``rejoin``: keep ``token`` secret, it is
    the only way back to this chair."""

    id: RequestId
    table_id: TableId
    chair: Chair
    token: str


class Watching(_Push, tag="watching"):
    """Answer to ``watch``. ``spectator``: the watcher's own number at the table (as
    ``Table.watchers`` and their chat lines give it; nil from servers before it was
    sent)."""

    id: RequestId
    table_id: TableId
    spectator: SpectatorId | None = None


class Pong(_Push, tag="pong"):
    id: RequestId
    time: ServerTime


class Lobby(_Push, tag="lobby"):
    """The table list (on subscribing): at most a few hundred tables, those waiting for
    players first, then those being played, then finished ones; ``total`` is how many
    tables the server has in all (nil from servers before it was sent)."""

    tables: list[TableInfo]
    total: int | None = None


class LobbyTable(_Push, tag="lobby_table"):
    """A table appeared or changed."""

    table: TableInfo


class LobbyGone(_Push, tag="lobby_gone"):
    """A table was removed."""

    table_id: TableId


class TallyLine(msgspec.Struct, kw_only=True):
    """One partnership's games at a table (RULES R2.1: partners sit opposite): ``games``
    they played together, ``won`` and ``tied`` of those (R8), and the ``points`` their
    team scored in them."""

    players: tuple[str, str]
    games: Annotated[int, Meta(ge=0)]
    won: Annotated[int, Meta(ge=0)]
    tied: Annotated[int, Meta(ge=0)]
    points: int


class Table(_Push, tag="table"):
    """The state of the table one sits at or watches, on joining and on every change.
    ``tally``: the running tally of the games finished at this table, one line per
    partnership, the latest game's two first; ``last_game``: the id of the latest
    game finished here (to fetch its record), nil before the first. ``watchers``: who
    watches the table, in the order they came (empty from servers before it was sent;
    the lobby's ``TableInfo`` counts them only: their names are for those at the
    table, as their chat is)."""

    table: TableInfo
    tally: list[TallyLine] = msgspec.field(default_factory=list)
    last_game: GameId | None = None
    watchers: list[SpectatorInfo] = msgspec.field(default_factory=list)


class PastMove(msgspec.Struct, kw_only=True):
    """One step of the deal so far, as told to someone joining: the public events of
    one move (or of the game's opening), and ``auto`` as in ``GameUpdate``."""

    events: list[EventWire]
    auto: PlayedBy | None = None


class GameUpdate(_Push, tag="game"):
    """The game as ``seat`` sees it (``seat`` nil: a spectator), after ``moves`` moves,
    with the public events of the last move (the opening events at a game's start;
    empty when sent on joining). ``legal_moves``: when the hello asked for them and
    this seat is to act, every move it may make now (nil otherwise).

    ``auto``: the move was not played by the seat's own player but by the server:
    ``timer`` (the turn timer ran out and the server finished the turn) or
    ``stand_in`` (a bot playing for a player who is away). Nil for a player's own
    move and for a seated bot's. ``history``: only when sent on joining (or coming
    back): every step of the current deal so far, oldest first."""

    table_id: TableId
    seat: Seat | None
    moves: int
    view: ViewWire
    events: list[EventWire]
    legal_moves: list[MoveWire] | None = None
    auto: PlayedBy | None = None
    history: list[PastMove] | None = None


class Clock(_Push, tag="clock"):
    """A running clock at the table. ``kind`` ``turn``: the turn timer of ``seat``;
    ``next_deal``: the pause before the next deal starts by itself; ``off``: no clock.
    ``remaining`` seconds (frozen while ``paused``), ``deadline`` in server time."""

    table_id: TableId
    kind: Literal["turn", "next_deal", "off"]
    seat: Seat | None = None
    remaining: float | None = None
    deadline: ServerTime | None = None
    paused: bool = False


class ChatLine(_Push, tag="chat_line"):
    """Something said at the table: by the player in ``chair`` (``by`` ``player``), by the
    spectator numbered ``spectator`` (``chair`` nil; ``spectator`` nil from servers
    before it was sent) or by the server itself (``name`` empty)."""

    table_id: TableId
    by: Literal["player", "spectator", "server"]
    chair: Chair | None
    name: str
    text: str
    time: ServerTime
    spectator: SpectatorId | None = None


class GameSummary(msgspec.Struct, kw_only=True):
    """A finished game in a history list: where and when it was played, who sat in
    each seat (``players``, by seat; seats 0+2 and 1+3 are the teams), how it ended,
    and whether the asker played in it (``mine``)."""

    game_id: GameId
    table_id: TableId
    table_name: str
    number: Annotated[int, Meta(ge=1)]  # the game's number at its table
    started: ServerTime
    finished: ServerTime
    players: list[RecordPlayer]
    totals: tuple[Points, Points]
    winner: Team | None
    mine: bool


class HistoryPage(_Push, tag="history_page"):
    """Answer to ``history``. ``more``: further games follow this page (ask again with
    ``before`` = the last ``game_id`` here)."""

    id: RequestId
    games: list[GameSummary]
    more: bool


class Record(_Push, tag="record"):
    """Answer to ``get_record``: the game's whole record (docs/RECORDS.md)."""

    id: RequestId
    game_id: GameId
    record: GameRecordWire


ServerMessage = (
    Welcome
    | Ok
    | Error
    | Seated
    | Watching
    | Pong
    | Lobby
    | LobbyTable
    | LobbyGone
    | Table
    | GameUpdate
    | Clock
    | ChatLine
    | HistoryPage
    | Record
)
