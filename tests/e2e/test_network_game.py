"""End to end: a real ``rummy-server`` process and four clients on loopback play a
whole game. One client is the app itself (driven with keys in the lobby, its moves
sent through the table screen); three are headless players on the client's own
connection service. At the end all four agree on the scores (R7, R8)."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from random import Random

import pytest

from rummy.client.app import RummyApp
from rummy.client.messages import PlayMove
from rummy.client.screens.results import DealEndScreen, GameEndScreen
from rummy.client.screens.table import TableScreen
from rummy.client.widgets.feed import Feed
from rummy.engine.bots import make_bot
from rummy.protocol import Sit
from tests.client.conftest import screen_text
from tests.e2e.players import HeadlessPlayer
from tests.support import eventually

SERVER = Path(sys.executable).parent / "rummy-server"


@pytest.fixture
def server_port(tmp_path: Path) -> Iterator[int]:
    log = (tmp_path / "server.log").open("w")
    process = subprocess.Popen(
        [
            str(SERVER),
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--db",
            str(tmp_path / "server.db"),
            "--bot-delay",
            "0",
            "--deal-pause",
            "0.2",
        ],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        assert found, line
        yield int(found.group(1))
    finally:
        process.terminate()
        process.wait(10)
        log.close()


async def test_four_clients_play_a_whole_game(
    server_port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RUMMY_STATE_DIR", str(tmp_path / "ann"))
    app = RummyApp(player_name="Ann", address=("127.0.0.1", server_port))
    others = [
        HeadlessPlayer("127.0.0.1", server_port, name, seed=i) for i, name in enumerate(("Bob", "Cy", "Di"))
    ]
    async with app.run_test(size=(100, 32)) as pilot:

        async def until(check) -> None:  # type: ignore[no-untyped-def]
            await eventually(
                check, timeout=20.0, pause=pilot.pause, what=lambda: "it; the screen:\n" + screen_text(app)
            )

        await until(
            lambda: app.connection is not None and app.connection.connected and not app.connection_status
        )
        # Ann creates a table from the lobby with the keyboard.
        await pilot.press("n")
        await pilot.press(*"Loopback", "ctrl+s")
        await until(lambda: app.session.table is not None)
        assert app.session.table is not None
        table_id = app.session.table.table_id
        # Three more players sit down, each on their own connection.
        for chair, player in enumerate(others, start=1):
            await player.start()
            await player.until(lambda p: p.lobby is not None and table_id in p.lobby)
            await player.answer(player.send(Sit, table_id=table_id, chair=chair))
        await until(lambda: app.session.table is not None and all(c.name for c in app.session.table.chairs))
        assert "Bob" in screen_text(app)
        await pilot.press("g")  # the creator starts
        await until(lambda: isinstance(app.screen, TableScreen))
        table = app.table_screen
        assert table is not None

        playing = [asyncio.get_running_loop().create_task(p.play()) for p in others]
        bot = make_bot("heuristic", Random(9))
        answered = -1
        log = table.query_one("#log", Feed)
        for _ in range(20_000):
            view = table.view
            if view is not None and view.phase == "game_over":
                break
            assert "Refused" not in log.plain_text, log.plain_text[-500:]
            for task in playing:
                if task.done():
                    task.result()  # a headless player failed: say why now
            if isinstance(app.screen, DealEndScreen):
                await pilot.press("n")  # ready for the next deal
            elif (
                view is not None
                and view.phase in ("draw", "meld")
                and view.my_turn
                and app.session.moves_seen != answered
                and app.move_request is None
            ):
                answered = app.session.moves_seen
                table.post_message(PlayMove(bot.choose(view)))
            await pilot.pause(0.005)
        else:
            raise AssertionError(f"no end: {table.view}\n{screen_text(app)}")
        await asyncio.wait_for(asyncio.gather(*playing), 60)
        await until(lambda: isinstance(app.screen, GameEndScreen) and app.screen.is_mounted)
        await pilot.pause()

        view = table.view
        assert view is not None and view.phase == "game_over" and len(view.results) == 2
        totals = view.totals()
        for player in others:
            assert player.view is not None and player.view.totals() == totals
        a, b = totals
        text = screen_text(app)
        assert f"{'Total':<22}{a:>8}{b:>8}" in text
        assert ("tie" in text) if a == b else (f"{max(a, b)} to {min(a, b)}" in text)
        for player in others:
            await player.close()
