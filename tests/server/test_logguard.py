"""Log lines a peer can cause are throttled: one per kind per interval, with a count."""

from __future__ import annotations

import asyncio
import logging

import pytest

from rummy.server.logguard import Throttled, guard_loop


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_one_line_per_kind_per_interval_then_the_count_held_back(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    throttled = Throttled(logging.getLogger("rummy.test"), every=10.0, now=clock)
    with caplog.at_level(logging.WARNING, logger="rummy.test"):
        written = [throttled.warning("refused", "refused %s", i) for i in range(1000)]
        throttled.warning("flood", "a flood")  # another kind is not held back by the first
        clock.t = 11.0
        throttled.warning("refused", "refused %s", "again")
    assert written.count(True) == 1
    assert [r.getMessage() for r in caplog.records] == [
        "refused 0",
        "a flood",
        "refused again (and 999 more like it in the 11 s before)",
    ]


async def test_the_loops_error_reports_are_throttled_too(caplog: pytest.LogCaptureFixture) -> None:
    loop = asyncio.get_running_loop()
    old = loop.get_exception_handler()
    guard_loop(loop, Throttled(logging.getLogger("rummy.test")))
    try:
        with caplog.at_level(logging.ERROR, logger="rummy.test"):
            for _ in range(500):
                loop.call_exception_handler(
                    {
                        "message": "socket.accept() out of system resource",
                        "exception": OSError(24, "Too many"),
                    }
                )
    finally:
        loop.set_exception_handler(old)
    assert len(caplog.records) == 1
    assert "out of system resource" in caplog.records[0].getMessage()
