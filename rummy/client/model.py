"""What the client knows of a table besides the engine's view: who sits where.

The game itself is always an engine ``PlayerView``; these small values carry the
rest of what the table screen shows (names, bots, who is away, the turn timer).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rummy.engine import SEAT_NAMES


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """The player in one seat. ``name`` is as the player typed it: show it only
    through ``text.plain``."""

    name: str
    bot: bool = False
    present: bool = True
    ready: bool = False  # at a deal's end: ready for the next deal
    level: str | None = None  # a bot's level, as the server says it


@dataclass(frozen=True, slots=True)
class TurnTimer:
    """A running clock at the table: the turn timer of ``seat`` (``kind`` "turn") or
    the pause before the next deal ("next_deal"). ``seconds`` were left when the
    update arrived, at ``received`` (a ``time.monotonic()`` reading); a paused clock
    keeps them."""

    kind: Literal["turn", "next_deal"]
    seat: int | None
    seconds: float
    received: float
    paused: bool = False

    def left(self, now: float) -> int:
        """Whole seconds left, rounded up."""
        spent = 0.0 if self.paused else now - self.received
        return max(0, math.ceil(self.seconds - spent))


@dataclass(frozen=True, slots=True)
class Seats:
    """The four seats (None: empty) and which one is ours (None: a spectator)."""

    seats: tuple[SeatInfo | None, ...] = (None, None, None, None)
    me: int | None = None

    @classmethod
    def of(cls, seats: Sequence[SeatInfo | None], me: int | None) -> Seats:
        return cls(tuple(seats), me)

    def name(self, seat: int) -> str:
        """The player's name, or the seat's name while it is empty."""
        info = self.seats[seat] if 0 <= seat < len(self.seats) else None
        return info.name if info is not None and info.name else SEAT_NAMES[seat]

    def who(self, seat: int) -> str:
        """'you' for our own seat, else the name: for sentences in the log."""
        return "You" if seat == self.me else self.name(seat)
