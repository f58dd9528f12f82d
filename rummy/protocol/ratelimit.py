"""A token bucket: ``rate`` requests a second on average, ``burst`` at once."""

from __future__ import annotations

import time
from collections.abc import Callable


class TokenBucket:
    __slots__ = ("_burst", "_last", "_now", "_rate", "_tokens")

    def __init__(self, rate: float, burst: int, now: Callable[[], float] = time.monotonic) -> None:
        self._rate = rate
        self._burst = float(burst)
        self._tokens = float(burst)
        self._now = now
        self._last = now()

    def allow(self, cost: float = 1.0) -> bool:
        """Take ``cost`` tokens if there are that many (a costly request may take more
        than one; none costs more than ``burst``)."""
        now = self._now()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now
        cost = min(cost, self._burst)
        if self._tokens >= cost:
            self._tokens -= cost
            return True
        return False
