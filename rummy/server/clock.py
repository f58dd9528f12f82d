"""The turn timer (a table option): how long the seat to act has left.

Kept on the loop's monotonic clock; ``deadline()`` gives the wall-clock time the
clients are shown. A paused clock keeps its remaining time until resumed.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class TurnClock:
    __slots__ = ("_ends", "_left", "_now", "paused", "seat")

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self._now = now
        self.seat: int | None = None
        self._ends = 0.0  # monotonic time the turn runs out, while running
        self._left = 0.0  # seconds left, while paused
        self.paused = False

    @property
    def running(self) -> bool:
        return self.seat is not None

    def start(self, seat: int, seconds: float, paused: bool = False) -> None:
        self.seat = seat
        self._left = seconds
        self._ends = self._now() + seconds
        self.paused = paused

    def stop(self) -> None:
        self.seat = None
        self.paused = False

    def pause(self) -> None:
        if self.running and not self.paused:
            self._left = max(0.0, self._ends - self._now())
            self.paused = True

    def resume(self) -> None:
        if self.running and self.paused:
            self._ends = self._now() + self._left
            self.paused = False

    def remaining(self) -> float | None:
        """Seconds left (frozen while paused); None when no turn is timed."""
        if not self.running:
            return None
        if self.paused:
            return self._left
        return max(0.0, self._ends - self._now())

    def deadline(self) -> float | None:
        """When the turn runs out, in Unix time (None when paused or not timed)."""
        left = self.remaining()
        if left is None or self.paused:
            return None
        return time.time() + left
