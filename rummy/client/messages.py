"""App-wide messages: what screens ask the app to send, and what the connection
tells the app. A widget's own events are nested in the widget's class instead."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from rummy.engine import Card, Move
from rummy.protocol import BotLevel, GameRecordWire


@dataclass
class PlayMove(Message):
    """The player chose a move; the app sends it to the server."""

    move: Move


@dataclass
class HandOrdered(Message):
    """The hand's order changed (a card came, the player sorted or moved one): the app
    remembers it, so that a resumed game shows the hand as the player left it."""

    order: tuple[Card, ...]
    fresh: tuple[Card, ...] = ()  # the cards marked new


@dataclass
class SortChosen(Message):
    """The player sorted the hand (o) by suit or by rank: the app remembers it, so
    that later deals, and later starts, deal the hand in that order."""

    mode: str


@dataclass
class HintsChosen(Message):
    """The player turned the hints on or off (h): the app remembers it for later
    starts (a player who had turned them off found them on again)."""

    on: bool


@dataclass
class SendChat(Message):
    """The player typed a chat line."""

    text: str


class ReadyForNextDeal(Message):
    """At a deal's end: this player is ready for the next deal."""


class PlayAgainRequested(Message):
    """After the game: play again with the same four."""


@dataclass
class LeaveTable(Message):
    """Back to the lobby. ``keep_chair``: still seated at the table, which waits for
    four again after its game (a player left): its creator starts the next from there."""

    keep_chair: bool = False


@dataclass
class CreateTableRequested(Message):
    """Create a table with these options and sit in ``chair``."""

    name: str
    seating: str
    turn_seconds: int
    on_drop: str
    chair: int


@dataclass
class SitRequested(Message):
    table_id: int
    chair: int


@dataclass
class RejoinRequested(Message):
    """Take back the chair held for us (``Session.held``) with its seat token."""


@dataclass
class WatchRequested(Message):
    table_id: int


@dataclass
class BotRequested(Message):
    """The creator seats a bot of ``level`` in ``chair`` (``add``) or removes one."""

    chair: int
    add: bool = True
    level: BotLevel = "normal"


class StartRequested(Message):
    """The creator starts the game."""


class OpenTable(Message):
    """Show the table screen of the table one sits at or watches."""


class OpenHistory(Message):
    """Show the finished games (the lobby's history)."""


@dataclass
class HistoryWanted(Message):
    """The history list wants a page: the first (``before`` None) or the one after
    game ``before``."""

    before: int | None = None


@dataclass
class ReplayRequested(Message):
    """Watch finished game ``game_id`` again."""

    game_id: int


@dataclass
class SaveRecordRequested(Message):
    """Write this record to a file."""

    record: GameRecordWire
