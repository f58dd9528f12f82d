"""App-wide messages: what screens ask the app to send, and what the connection
tells the app. A widget's own events are nested in the widget's class instead."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from rummy.engine import Card, Move
from rummy.protocol import BotLevel


@dataclass
class PlayMove(Message):
    """The player chose a move; the app sends it to the server."""

    move: Move


@dataclass
class HandOrdered(Message):
    """The hand's order changed (a card came, the player sorted or moved one): the app
    remembers it, so that a resumed game shows the hand as the player left it."""

    order: tuple[Card, ...]


@dataclass
class SendChat(Message):
    """The player typed a chat line."""

    text: str


class ReadyForNextDeal(Message):
    """At a deal's end: this player is ready for the next deal."""


class PlayAgainRequested(Message):
    """After the game: play again with the same four."""


class LeaveTable(Message):
    """Back to the lobby."""


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
