"""Log lines a peer can cause, at most one per kind per interval.

A hostile peer can make the server refuse, cut off or fail to read as often
as it likes; written one line each, those would fill the disk (an attack
once made 17 MB of log in 8 s). ``Throttled`` writes the first line of a
kind, holds back the ones that follow within ``every`` seconds, and says how
many it held back in the next line of that kind it writes.

``guard_loop`` sends what asyncio reports to the loop's exception handler
(for example ``accept()`` failing when no file descriptor is left) through
the same throttle.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import Any


class Throttled:
    def __init__(
        self, logger: logging.Logger, every: float = 10.0, now: Callable[[], float] = time.monotonic
    ) -> None:
        self._log = logger
        self._every = every
        self._now = now
        self._last: dict[str, float] = {}
        self._held: Counter[str] = Counter()

    def log(self, level: int, kind: str, message: str, *args: object, exc_info: Any = None) -> bool:
        """Log ``message % args`` unless a line of ``kind`` was written less than
        ``every`` seconds ago; True if it was written. ``kind`` names a sort of
        event ("refused", "bad-frame"...), never an address, so this holds a few
        entries whoever connects."""
        now = self._now()
        last = self._last.get(kind)
        if last is not None and now - last < self._every:
            self._held[kind] += 1
            return False
        self._last[kind] = now
        held = self._held.pop(kind, 0)
        if held and last is not None:
            message += f" (and {held} more like it in the {now - last:.0f} s before)"
        self._log.log(level, message, *args, exc_info=exc_info)
        return True

    def warning(self, kind: str, message: str, *args: object) -> bool:
        return self.log(logging.WARNING, kind, message, *args)


def guard_loop(loop: asyncio.AbstractEventLoop, throttle: Throttled) -> None:
    """Route the loop's error reports through ``throttle``, one kind per message."""

    def report(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        message = str(context.get("message", "unhandled error in the event loop"))
        error = context.get("exception")
        detail = f": {error!r}" if error is not None else ""
        throttle.log(logging.ERROR, f"loop:{message}", "%s%s", message, detail, exc_info=error)

    loop.set_exception_handler(report)
