"""Everything the table's widgets draw, in one value: the view and what goes with it.

A ``Scene`` is built by the table screen from what the server said, and can be built
just as well from a stored game (a replay): the widgets need nothing else and no
connection.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rummy.engine import Card, PlayerView, next_seat

from .advice import Hints
from .look import Look
from .model import Recent, Seats, TurnTimer


@dataclass(frozen=True, slots=True)
class Scene:
    view: PlayerView
    seats: Seats = field(default_factory=Seats)
    timer: TurnTimer | None = None
    recent: Recent = field(default_factory=Recent)
    offline: bool = False  # the connection is down: no clock can be read
    hints: Hints = field(default_factory=Hints)
    look: Look = field(default_factory=Look)
    # Every hand by seat, face up: a replay's (the game is over, so RULES R9 hides
    # nothing any more). None at a live table, where others' hands are backs.
    open_hands: tuple[tuple[Card, ...], ...] | None = None

    def seat_at(self, place: str) -> int:
        """The seat drawn at ``place`` (south, west, north, east): one's own seat at the
        bottom (South for a spectator), the next in play to its left, the partner across."""
        me = self.seats.me if self.seats.me is not None else 0
        return next_seat(me, {"south": 0, "west": 1, "north": 2, "east": 3}[place])
