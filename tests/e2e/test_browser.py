"""End to end in a real browser: a ``rummy-server --web-port`` process and a
headless Chromium (Debian's package, driven by Playwright).

The player opens the page, types a name once, lands in the lobby, resizes the
window, opens the new-table form with a mouse click, creates a table, seats
three bots, starts, and draws a card by pressing a key; a reload
brings them back to the same seat with the same hand; another browser with the
same name does not get that seat; closing the page leaves no process behind.
What the page's terminal draws is read as tests/e2e/browser.py explains.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.doors.door_helpers import client_pids
from tests.e2e.browser import PageTerminal, chromium
from tests.support import eventually

SERVER = Path(sys.executable).parent / "rummy-server"


@dataclass
class RunningServer:
    process: subprocess.Popen[str]
    url: str

    def clients(self) -> set[int]:
        """The game clients the server's web door runs: one per open page."""
        return set(client_pids(self.process.pid))


@pytest.fixture
def web_server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[RunningServer]:
    """The server; a test parametrized indirectly gives it more arguments."""
    log = (tmp_path / "server.log").open("w")
    process = subprocess.Popen(
        [
            str(SERVER),
            *("--host", "127.0.0.1", "--port", "0", "--web-port", "0"),
            *("--db", str(tmp_path / "server.db"), "--bot-delay", "0"),
            *getattr(request, "param", ()),
        ],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        # The server's state directory (where each browser's client state goes) is the
        # test's own.
        env={**os.environ, "PYTHONUNBUFFERED": "1", "XDG_STATE_HOME": str(tmp_path / "state")},
    )
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline(), process.stdout.readline()]
        found = re.search(r"players open: (http://\S+)", lines[1])
        assert found, lines
        yield RunningServer(process, found.group(1).replace("0.0.0.0", "127.0.0.1"))
    finally:
        process.terminate()
        process.wait(10)
        log.close()


async def test_a_browser_player_creates_a_table_plays_a_card_and_a_reload_keeps_the_seat(
    web_server: RunningServer,
) -> None:
    async with chromium() as browser:
        context = await browser.new_context(viewport={"width": 1000, "height": 640})
        page = await context.new_page()
        term = PageTerminal(page)
        elsewhere: list[str] = []
        page.on("request", lambda r: None if r.url.startswith(web_server.url) else elsewhere.append(r.url))

        # The page says what it is, and asks for a name (once: the browser keeps it).
        await page.goto(web_server.url)
        assert await page.title() == "Persian Rummy"
        icon = await page.get_attribute("link[rel=icon]", "href")
        assert icon is not None
        assert (await page.request.get(web_server.url + icon.lstrip("/"))).ok
        await page.fill("#name", "Ann")
        await page.click("button[type=submit]")

        # The lobby, drawn by the game client on the page's terminal; it follows the
        # window's size, and a mouse click works as in a terminal.
        await term.wait_for(r"Persian Rummy lobby\s+you are Ann")
        columns, rows = term.screen.columns, term.screen.lines
        await page.set_viewport_size({"width": 800, "height": 520})
        await eventually(
            lambda: term.screen.columns < columns and term.screen.lines < rows, timeout=20.0, interval=0.05
        )
        await eventually(
            lambda: "Quit" in term.screen.display[-1], timeout=20.0
        )  # the footer, drawn at the new bottom
        await term.click("New table")
        await term.wait_for(r"Create \(ctrl\+s\)")  # the form, not the footer
        await term.press("Control+s")
        await term.wait_for("Your table: Ann's table")
        for chair in (2, 3, 4):
            await term.press("b")
            await term.wait_for("at which level")
            await term.press("Enter")  # the level offered first: the last one chosen
            await term.wait_for(rf"{chair}: .* bot\)")
        await term.press("g")

        # The game: bots move at once, so it is soon this player's turn to draw.
        await term.wait_for("Your turn: s draws")
        # Ann's own panel, by her hand: "▶ You, West  E–W", her name, "7 cards".
        seat = (await term.wait_for(r"▶ You, (\w+)\s+\S+\s+\S*\s*Ann\s")).group(1)
        await term.wait_for(r"\b7 cards\b")
        await term.press("s")
        await term.wait_for("You drew from the stock")
        await term.wait_for(r"\b8 cards\b")
        hand = (await term.wait_for(r"(│(?:[^│\n]{3,5}│){8})")).group(1)  # the faces of the fan
        [first_client] = web_server.clients()

        # A reload is a new page and a new client, in the same seat with the same hand.
        await page.reload()
        await term.wait_for("You are back at your seat")
        await term.wait_for(rf"You, {seat}\b")
        await term.wait_for(r"\b8 cards\b")
        assert hand in term.text()
        assert term.sockets == 2
        await eventually(
            lambda: len(web_server.clients()) == 1 and first_client not in web_server.clients(), timeout=20.0
        )

        # Another browser with the same name is someone else: the lobby, not that seat.
        other = await browser.new_context(viewport={"width": 1000, "height": 640})
        stranger = PageTerminal(await other.new_page())
        await stranger.enter_lobby(web_server.url)
        await stranger.wait_for(r"Ann's table\s+playing")
        assert "Your table" not in stranger.text()
        await eventually(lambda: len(web_server.clients()) == 2, timeout=20.0, interval=0.05)

        # Closing the pages ends their clients: nothing is left running on the host.
        await context.close()
        await other.close()
        await eventually(lambda: not web_server.clients(), timeout=20.0, interval=0.05)
        assert not elsewhere, f"the page loaded from elsewhere: {elsewhere}"


async def test_a_phone_sized_window_gets_smaller_text_and_the_whole_game(web_server: RunningServer) -> None:
    """A window in which 16 px text leaves fewer than 80x24 cells (a phone held
    upright, 420x617: 46x29) showed only "This terminal is 46x29... too small"; the
    page now shrinks its text so that the game fits."""
    async with chromium() as browser:
        context = await browser.new_context(viewport={"width": 420, "height": 617})
        term = PageTerminal(await context.new_page())
        await term.enter_lobby(web_server.url)
        assert term.screen.columns >= 80 and term.screen.lines >= 24
        assert "too small" not in term.text()
        # A window with room enough keeps the full size.
        await term.page.set_viewport_size({"width": 1000, "height": 640})
        await term.page.reload()
        await eventually(lambda: term.sockets == 2, timeout=20.0, interval=0.05)
        await term.wait_for(r"Persian Rummy lobby\s+you are Ann")
        assert await term.page.get_attribute("#terminal", "data-font-size") == "16"
        await context.close()


async def test_the_text_is_refitted_when_the_window_is_resized(web_server: RunningServer) -> None:
    """The page chose its font size once, when it made the terminal: a window made
    smaller then showed "too small", one made larger kept the small text. Now a
    window that settles at another size gets the text that fits it, on a new
    terminal whose client takes the same seat, and the page does not say the game
    has ended."""
    async with chromium() as browser:
        context = await browser.new_context(viewport={"width": 1000, "height": 640})
        term = PageTerminal(await context.new_page())
        errors: list[str] = []  # the page's own, and the browser's on its behalf
        term.page.on("pageerror", lambda error: errors.append(str(error)))
        term.page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        await term.enter_lobby(web_server.url)
        assert await term.page.get_attribute("#terminal", "data-font-size") == "16"

        async def font_size() -> int:
            return int(await term.page.get_attribute("#terminal", "data-font-size") or 0)

        # A phone held upright: 16 px text leaves 46x29 cells; smaller text fits 80x24.
        await term.page.set_viewport_size({"width": 420, "height": 617})
        await eventually(lambda: term.sockets == 2, timeout=20.0, interval=0.05)
        await term.wait_for(r"Persian Rummy lobby\s+you are Ann")
        small = await font_size()
        assert 8 <= small < 16
        assert term.screen.columns >= 80 and term.screen.lines >= 24
        assert "too small" not in term.text()
        assert await term.page.locator("#ended").is_hidden()
        assert await term.page.locator("#terminal .xterm").count() == 1
        await eventually(lambda: len(web_server.clients()) == 1, timeout=20.0, interval=0.05)

        # Turned sideways, and then a larger window: larger text again, up to 16 px.
        await term.page.set_viewport_size({"width": 617, "height": 420})
        await eventually(lambda: term.sockets == 3, timeout=20.0, interval=0.05)
        await term.wait_for(r"Persian Rummy lobby\s+you are Ann")
        assert term.screen.columns >= 80 and term.screen.lines >= 24
        await term.page.set_viewport_size({"width": 1000, "height": 640})
        await eventually(lambda: term.sockets == 4, timeout=20.0, interval=0.05)
        await term.wait_for(r"Persian Rummy lobby\s+you are Ann")
        assert await font_size() == 16
        assert await term.page.locator("#ended").is_hidden()

        # A window resized without wanting another size keeps its terminal and client.
        [client] = web_server.clients()
        columns = term.screen.columns
        await term.page.set_viewport_size({"width": 1100, "height": 700})
        await eventually(lambda: term.screen.columns > columns, timeout=20.0, interval=0.05)
        await term.page.wait_for_timeout(1000)
        assert term.sockets == 4 and web_server.clients() == {client}

        # Keys still reach the game on the terminal made last.
        await term.press("n")
        await term.wait_for(r"Create \(ctrl\+s\)")
        assert not errors
        await context.close()


async def test_on_a_touch_screen_the_keyboard_coming_up_does_not_refit_the_text(
    web_server: RunningServer,
) -> None:
    """On a phone the on-screen keyboard makes the window shorter (in browsers that
    resize the page for it): a refit then would take the focus, and the keyboard
    with it, away from the terminal. A turned phone is refitted."""
    async with chromium() as browser:
        context = await browser.new_context(
            viewport={"width": 700, "height": 1000}, is_mobile=True, has_touch=True
        )
        term = PageTerminal(await context.new_page())
        await term.enter_lobby(web_server.url)
        size = await term.page.get_attribute("#terminal", "data-font-size")
        assert size is not None and int(size) < 16  # 700 px across fit 80 columns of less
        # The keyboard: 24 rows of that size do not fit, and smaller text would.
        await term.page.set_viewport_size({"width": 700, "height": 360})
        await eventually(lambda: term.screen.lines < 24, timeout=20.0, interval=0.05)
        await term.page.wait_for_timeout(1500)
        assert term.sockets == 1
        assert await term.page.get_attribute("#terminal", "data-font-size") == size
        await term.page.set_viewport_size({"width": 1000, "height": 700})  # turned
        await eventually(lambda: term.sockets == 2, timeout=20.0, interval=0.05)
        await term.wait_for(r"Persian Rummy lobby\s+you are Ann")
        size = await term.page.get_attribute("#terminal", "data-font-size")
        assert size == "16"
        # Turned a little (the same text fits), and then the keyboard: no refit either.
        columns = term.screen.columns
        await term.page.set_viewport_size({"width": 1100, "height": 700})
        await eventually(lambda: term.screen.columns > columns, timeout=20.0, interval=0.05)
        await term.page.wait_for_timeout(1000)
        await term.page.set_viewport_size({"width": 1100, "height": 300})
        await eventually(lambda: term.screen.lines < 24, timeout=20.0, interval=0.05)
        await term.page.wait_for_timeout(1500)
        assert term.sockets == 2
        assert await term.page.get_attribute("#terminal", "data-font-size") == size
        await context.close()


@pytest.mark.parametrize("web_server", [("--web-max-sessions", "1")], indirect=True)
async def test_a_refit_on_a_full_server_keeps_the_place(web_server: RunningServer) -> None:
    """The new terminal of a refit takes its page's place on the server, as a reload
    does: on a full server (here, of one) it is not refused for want of a place."""
    async with chromium() as browser:
        context = await browser.new_context(viewport={"width": 1000, "height": 640})
        term = PageTerminal(await context.new_page())
        await term.enter_lobby(web_server.url)
        for n, (width, height) in enumerate([(420, 617), (1000, 640), (617, 420), (1000, 640)], 2):
            await term.page.set_viewport_size({"width": width, "height": height})
            await eventually(lambda n=n: term.sockets == n, timeout=20.0, interval=0.05)
            await term.wait_for(r"Persian Rummy lobby\s+you are Ann")
            assert await term.page.locator("#ended").is_hidden()
        await eventually(lambda: len(web_server.clients()) == 1, timeout=20.0, interval=0.05)
        await context.close()
