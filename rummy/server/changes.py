"""What a table master takes and gives (``master.TableMaster``): who asks
(``Visitor``), what every table shares (``Context``), a chair, and what an entry
returns for the shell to carry out (``Change``, its ``Outcome``, a bot's turn to
think about: ``Think``). Plain values: no I/O here either.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from ..engine import PlayerView, new_seed
from ..engine.bots import Bot
from ..protocol.messages import BotLevel
from .options import ServerOptions
from .statements import Statement

Status = Literal["waiting", "playing", "finished"]
Timer = Literal["next_deal", "time_up", "table_push"]


def new_token() -> str:
    """A seat token: 192 random bits (at least 128 keep it unguessable)."""
    return secrets.token_urlsafe(24)


@dataclass(frozen=True, slots=True)
class Visitor:
    """A connection as a table knows it: its id, its player's name, whether its
    hello asked for the seat's legal moves in game pushes, and the address its
    per-address caps count it under (``Peer.origin``: a table's spectator places)."""

    id: int
    name: str
    legal_moves: bool = False
    origin: str = ""


class WaitedOn(NamedTuple):
    """The connection whose move a game waits for (``TableMaster.waiting_on``): its
    seat, and for how many seconds the game has waited."""

    conn: int
    seconds: float
    seat: int


@dataclass(slots=True)
class Context:
    """What every table of a server shares: the options, and where ids, seeds, tokens,
    bots and the time come from (the lobby's, the OS's; a test's own)."""

    options: ServerOptions
    next_game_id: Callable[[], int]
    new_bot: Callable[[BotLevel], Bot]
    new_seed: Callable[[], int] = new_seed  # R3.4: 256 secret bits
    new_token: Callable[[], str] = new_token
    now: Callable[[], float] = time.monotonic  # for the clocks and pauses
    wall: Callable[[], float] = time.time  # for what people are shown


@dataclass(slots=True, eq=False)
class Chair:
    index: int
    name: str
    bot: bool = False
    token_hash: str | None = None
    session: Visitor | None = None  # the connection sitting here (None: away, or a bot)
    ready: bool = False
    level: BotLevel | None = None  # a bot's level (None for a person)
    away_since: float | None = None  # when its player's connection went (None: never here since a restart)

    @property
    def present(self) -> bool:
        return self.bot or self.session is not None


@dataclass(frozen=True, slots=True)
class Think:
    """A bot's turn: the shell asks ``bot`` for its move in ``view`` (off the loop for a
    searching bot), waits out the rest of ``pause`` seconds, then hands the move to
    ``TableMaster.bot_moved``."""

    game_id: int
    seat: int
    moves: int  # the game's number of moves when it was asked
    bot: Bot
    view: PlayerView
    pause: float


@dataclass(slots=True)
class Outcome:
    """What one change did, for the shell to carry out, in this order."""

    result: Any = None  # what the entry returns to its caller (a seat token...)
    frames: list[tuple[int, bytes]] = field(default_factory=list)  # (connection id, frame), in order
    places: list[tuple[int, int | None]] = field(default_factory=list)  # (connection, chair) now here
    gone: list[int] = field(default_factory=list)  # connections no longer at this table
    tokens: list[tuple[str, int]] = field(default_factory=list)  # (token hash, chair) now valid here
    untokens: list[str] = field(default_factory=list)  # token hashes no longer valid
    lobby: bool = False  # the table's listing changed
    timers: dict[Timer, float | None] = field(default_factory=dict)  # seconds from now; None: off
    think: list[Think] = field(default_factory=list)
    closed: bool = False  # the table is gone


@dataclass(slots=True)
class Change:
    """A change checked against the table: store ``writes`` (refused as ``internal`` with
    ``failed`` if that fails, after calling ``undo``), then ``apply`` it.

    Nothing anyone can see changes before ``apply``. A move is the one exception
    inside: it is made on the table's game at once (a copy of the game for every
    move kept every table's state young for the garbage collector, whose pauses
    made the slowest moves at 1,000 tables), and ``undo`` rebuilds the game as it
    was if the move cannot be stored (a full disk: rare, and slow then only)."""

    writes: list[Statement]
    failed: str
    apply: Callable[[], Outcome]
    undo: Callable[[], None] | None = None
