"""A player who presses anything: random keys, drawn from the keys of whatever screen
is on top, through real games (a game against three bots with its own server; a lobby
on a real server, where tables are opened, filled with bots, started, left and
watched). Whatever is pressed, the app stays up, the screen shows no escape code, and
the game goes on: the player's own moves are made and answered.

Now and then the monkey clicks, double-clicks or hovers somewhere on the screen
instead: cards, melds, the pile, the key bar, a dialog's choices.

Quitting is left out of the keys (q, ctrl+q, and enter or space on a game's end, where
they may choose Quit): the app would end as asked, not as failed. A click may still
choose Quit; the app then ends with code 0, and the run of that seed ends there (an
app that fails ends with code 1). ``MONKEY_SEEDS`` runs more seeds (``RUMMY_LONG``:
20); ``MONKEY_STEPS`` more keys a seed.
"""

from __future__ import annotations

import os
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from textual.screen import Screen
from textual.widgets import Input

from rummy.client.app import RummyApp
from rummy.client.screens.help import HelpScreen
from rummy.client.screens.history import HistoryScreen
from rummy.client.screens.lobby import LobbyScreen
from rummy.client.screens.modals import ChooseScreen, ConfirmScreen, NoticeScreen
from rummy.client.screens.new_table import NewTableScreen
from rummy.client.screens.replay import ReplayScreen
from rummy.client.screens.results import DealEndScreen, GameEndScreen
from rummy.client.screens.table import TableScreen
from rummy.server import Server, start_server
from tests.client.conftest import screen_text
from tests.client.test_local_game import FAST, at_the_table

SEEDS = int(os.environ.get("MONKEY_SEEDS", "20" if os.environ.get("RUMMY_LONG") else "1"))
STEPS = int(os.environ.get("MONKEY_STEPS", "200"))

# The keys each screen offers (its key bar, its hidden bindings), those that move a game
# on more often than the others, so that the monkey plays as well as wanders; the keys
# that open help, the palette and the history are pressed now and then (``ASIDE``).
TABLE = (
    *"sssdddtmlpnnrahocb", *"1234", "escape", "tab", "shift+tab", "left", "right",
    "home", "end", "space", "space", "less_than_sign", "greater_than_sign", "y", "n",
)  # fmt: skip
LOBBY = (*"nnnsswbbbbbxggglloc", "escape", "up", "down", "tab", "enter", *"1234", "y")
DIALOG = ("escape", "y", "n", "left", "right", "up", "down", "tab", "enter", "enter", *"1234")
NEW_TABLE = ("ctrl+s", "ctrl+s", "escape", "tab", "left", "right", "up", "down")
GAME_END = ("a", "a", "d", "w", "r", "b", "escape", "tab", "left", "right")  # no q, enter or space
DEAL_END = ("n", "n", "escape", "tab", "enter", "space", "r")
REPLAY = ("left", "right", "up", "down", "home", "end", "space", "plus", "minus", "r", "escape", "q")
HISTORY = ("up", "down", "enter", "escape", "escape", "left", "right", "tab")
TYPING = (*"ab ", "backspace", "escape", "escape", "enter", "tab")  # in a text box (chat, a name)
ASIDE = ("question_mark", "ctrl+p", "h")


# Each screen's keys: the first kind that matches (a screen may be a kind of another).
SCREEN_KEYS: tuple[tuple[type[Screen[Any]] | tuple[type[Screen[Any]], ...], tuple[str, ...]], ...] = (
    (GameEndScreen, GAME_END),
    (DealEndScreen, DEAL_END),
    (ReplayScreen, REPLAY),
    (HistoryScreen, HISTORY),
    (NewTableScreen, NEW_TABLE),
    ((ConfirmScreen, ChooseScreen, NoticeScreen, HelpScreen), DIALOG),
    (LobbyScreen, LOBBY),
    (TableScreen, TABLE),
)


def keys_for(screen: Screen[object], focused: object) -> tuple[str, ...]:
    """What a player could press on ``screen``: its own keys."""
    if isinstance(focused, Input):
        return TYPING
    for kind, keys in SCREEN_KEYS:
        if isinstance(screen, kind):
            return keys
    return ("escape",)  # the command palette, a screen too small


CLICKS = 0.15  # of the steps: the mouse somewhere on the screen, not a key


async def monkey(pilot, app: RummyApp, rng: random.Random, steps: int) -> list[str]:  # type: ignore[no-untyped-def]
    """``steps`` keys pressed (or clicks) at random, each taken in before the next;
    what was done. It stops early only when a click chose Quit."""
    pressed: list[str] = []
    for _ in range(steps):
        screen = app.screen
        if isinstance(screen, ConfirmScreen) and "Quit" in screen.question:
            key = "n"  # (a q from a dialog's own keys, or the palette: not quitting)
        elif rng.random() < CLICKS:
            where = (rng.randrange(app.size.width), rng.randrange(app.size.height))
            how = rng.choice(("click", "click", "double_click", "hover"))
            pressed.append(f"{how}{where}")
            await getattr(pilot, how)(offset=where)
            if app.return_code == 0:
                return pressed  # a click on Quit: ended as asked
            assert app.is_running and app.return_code is None, f"the app ended after {pressed[-20:]}"
            continue
        else:
            key = rng.choice(ASIDE if rng.random() < 0.03 else keys_for(screen, app.focused))
        pressed.append(key)
        await pilot.press(key)
        assert app.is_running and app.return_code is None, f"the app ended after {pressed[-20:]}"
    return pressed


def our_moves(app: RummyApp) -> int:
    """How many moves of ours the server has answered (the table's log says them)."""
    table = app.table_screen
    if table is None:
        return 0
    return sum(1 for line in table.log_view.plain_text.splitlines() if line.startswith("You "))


@pytest.mark.parametrize("seed", range(SEEDS))
async def test_any_keys_in_a_game_against_bots_keep_the_client_up_and_playing(seed: int) -> None:
    rng = random.Random(seed)
    app = RummyApp(player_name="Ann", local=True, server_options=FAST)
    async with app.run_test(size=rng.choice(((80, 24), (100, 32), (120, 40)))) as pilot:
        await at_the_table(pilot, app)
        await monkey(pilot, app, rng, STEPS)
        if app.is_running:
            await pilot.pause()
            assert "\x1b" not in screen_text(app)
            assert our_moves(app) > 0, "no move of the player's was made"


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    # Hard bots think on the loop, briefly: a pool's worker process cannot be started
    # from inside ``run_test``, whose stderr has no file descriptor.
    s = await start_server(bot_delay=0.0, deal_pause=0.05, bot_workers=0, hard_bot_iterations=50)
    yield s
    await s.close()


@pytest.mark.parametrize("seed", range(SEEDS))
async def test_any_keys_in_the_lobby_and_at_its_tables_keep_the_client_up(server: Server, seed: int) -> None:
    rng = random.Random(seed)
    app = RummyApp(player_name="Ann", address=(server.host, server.port))
    async with app.run_test(size=rng.choice(((80, 24), (100, 32), (120, 40)))) as pilot:
        await monkey(pilot, app, rng, STEPS)
        if app.is_running:
            await pilot.pause()
            assert "\x1b" not in screen_text(app)
