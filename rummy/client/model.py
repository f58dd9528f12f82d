"""What the client knows of a table besides the engine's view: who sits where.

The game itself is always an engine ``PlayerView``; these small values carry the
rest of what the table screen shows (names, bots, who is away, the turn timer).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from rummy.engine import (
    SEAT_NAMES,
    Card,
    DealEnded,
    DealStarted,
    Discarded,
    DiscardTaken,
    Event,
    LaidOff,
    Melded,
    Passed,
    StockDrawn,
)


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

    def in_ascii(self) -> Seats:
        """The same seats, every name in plain ASCII (for ``--ascii``)."""
        from .text import to_ascii

        seats = tuple(None if s is None else replace(s, name=to_ascii(s.name)) for s in self.seats)
        return Seats(seats, self.me)

    def away(self, seat: int) -> bool:
        """A person's seat whose player has dropped or gone to the lobby (R9.1)."""
        info = self.seats[seat] if 0 <= seat < len(self.seats) else None
        return info is not None and not info.bot and not info.present

    def ready(self, seat: int) -> bool:
        """The seat's player asked to go on: the next deal, or another game."""
        info = self.seats[seat] if 0 <= seat < len(self.seats) else None
        return info is not None and info.ready

    def who(self, seat: int) -> str:
        """'you' for our own seat, else the name: for sentences in the log."""
        return "You" if seat == self.me else self.name(seat)


@dataclass(frozen=True, slots=True)
class Recent:
    """What the last player to move did on their turn so far, to mark on the table
    until another player moves: the cards taken from the discard pile, the melds laid
    down, the cards laid off, the card discarded; or a draw from the stock, a pass."""

    seat: int | None = None
    drew: bool = False
    took: tuple[Card, ...] = ()
    melded: frozenset[int] = frozenset()  # meld ids
    laid_off: frozenset[Card] = frozenset()
    discarded: Card | None = None
    passed: bool = False

    def after(self, events: Sequence[Event]) -> Recent:
        """This, followed by ``events``: a move by another seat starts afresh, and a
        new deal clears everything."""
        recent = self
        for event in events:
            match event:
                case DealStarted() | DealEnded():
                    recent = Recent()
                case StockDrawn(seat):
                    recent = replace(recent._for(seat), drew=True)
                case DiscardTaken(seat, _index, taken):
                    recent = replace(recent._for(seat), took=recent._for(seat).took + taken)
                case Melded(seat, meld_id, _cards, _four):
                    mine = recent._for(seat)
                    recent = replace(mine, melded=mine.melded | {meld_id})
                case LaidOff(seat, _meld_id, cards, _owner):
                    mine = recent._for(seat)
                    recent = replace(mine, laid_off=mine.laid_off | set(cards))
                case Discarded(seat, card):
                    recent = replace(recent._for(seat), discarded=card)
                case Passed(seat, _n):
                    recent = replace(recent._for(seat), passed=True)
        return recent

    def _for(self, seat: int) -> Recent:
        return self if seat == self.seat else Recent(seat)

    @property
    def cards(self) -> frozenset[Card]:
        """Every card this turn put on the table (melds and lay-offs) or discarded."""
        played = set(self.laid_off)
        if self.discarded is not None:
            played.add(self.discarded)
        return frozenset(played)
