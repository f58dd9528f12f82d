"""A real Chromium (Debian's ``chromium``, headless) driven by Playwright, and
what its page's terminal shows.

xterm.js draws on a canvas, so the page has no text to read. What the page's
terminal was sent is what it draws, so every frame the page's own websocket
receives (Chrome DevTools' network events, via Playwright) is fed to a terminal
emulator (pyte) of the size the page asked for; ``text()`` is that screen.
Keys are pressed on the page itself and reach the game through xterm.js.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pyte
import pytest

TIMEOUT = 30.0


def chromium_path() -> str:
    """Debian's chromium, or a skip saying why; on CI a failure instead (.ci/run
    installs it, so its absence there is a broken setup, not a reason to skip)."""
    path = os.environ.get("RUMMY_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        reason = "no chromium on this machine (Debian: apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(reason + "; .ci/run should have installed it")
        pytest.skip(reason)
    return path


class PageTerminal:
    """One page of the game: its keyboard and the screen its terminal draws."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.sockets = 0  # game sockets the page has opened
        self.closed = asyncio.Event()
        self.close_reasons: list[str] = []
        page.on("websocket", self._socket)

    def _socket(self, ws: Any) -> None:
        if not ws.url.split("?")[0].endswith("/ws"):
            return
        self.sockets += 1
        self.closed.clear()
        query = parse_qs(urlsplit(ws.url).query)
        self.screen = pyte.Screen(int(query["width"][0]), int(query["height"][0]))
        self.stream = pyte.ByteStream(self.screen)
        ws.on("framereceived", self._received)
        ws.on("framesent", self._sent)
        ws.on("close", lambda _ws: self.closed.set())

    def _received(self, payload: bytes | str) -> None:
        if isinstance(payload, bytes):
            self.stream.feed(payload)

    def _sent(self, payload: bytes | str) -> None:
        if isinstance(payload, str):
            message = json.loads(payload)
            if message[0] == "resize":
                self.screen.resize(message[1]["height"], message[1]["width"])

    async def enter_lobby(self, url: str, name: str = "Ann") -> None:
        """Open the door's page, give the name form ``name`` and wait for the lobby."""
        await self.page.goto(url)
        await self.page.fill("#name", name)
        await self.page.click("button[type=submit]")
        await self.wait_for(rf"Persian Rummy lobby\s+you are {re.escape(name)}")

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    async def wait_for(self, pattern: str, timeout: float = TIMEOUT) -> re.Match[str]:
        """Poll the screen until ``pattern`` (a regular expression) is on it."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while (found := re.search(pattern, self.text())) is None:
            if loop.time() > deadline:
                raise AssertionError(f"{pattern!r} never showed; the screen:\n{self.text()}")
            await asyncio.sleep(0.05)
        return found

    async def press(self, key: str) -> None:
        await self.page.keyboard.press(key)

    async def click(self, text: str) -> None:
        """Click with the mouse on ``text`` where the terminal shows it."""
        lines = self.screen.display
        row = next((i for i, line in enumerate(lines) if text in line), None)
        assert row is not None, f"{text!r} is not on the screen:\n{self.text()}"
        column = lines[row].index(text)
        box = await self.page.locator("#terminal .xterm-screen").bounding_box()
        assert box is not None
        cell_width, cell_height = box["width"] / self.screen.columns, box["height"] / self.screen.lines
        await self.page.mouse.click(
            box["x"] + (column + 0.5) * cell_width, box["y"] + (row + 0.5) * cell_height
        )


@asynccontextmanager
async def chromium() -> AsyncIterator[Any]:
    """A headless Chromium; ``new_context()`` on it is a fresh browser profile."""
    async_api = pytest.importorskip("playwright.async_api", reason="playwright is in the test extras")
    path = chromium_path()
    async with async_api.async_playwright() as p:
        # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start;
        # --disable-dev-shm-usage: a container's small /dev/shm must not crash it.
        browser = await p.chromium.launch(
            executable_path=path, args=["--no-sandbox", "--disable-dev-shm-usage"]
        )
        try:
            yield browser
        finally:
            await browser.close()
