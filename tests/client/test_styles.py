"""The client's CSS: every screen's is read when the app starts, so pushing a screen
never has Textual parse all of it again; and each screen's rules stay on its screen."""

from __future__ import annotations

import pytest
from textual.css.stylesheet import Stylesheet
from textual.widget import Widget

from rummy.client.screens.history import HistoryScreen
from rummy.client.screens.lobby import LobbyScreen
from rummy.client.screens.replay import ReplayScreen
from rummy.client.screens.table import TableScreen
from rummy.engine import Game
from rummy.protocol import GetRecord, History, HistoryPage, Record, Seated, Sit, Table
from tests.client.fakes import advance_to, game_update, offline_app, say, table_info
from tests.client.test_replay import PAGE, open_history, record
from tests.support import eventually


async def test_lobby_history_replay_and_table_come_up_without_parsing_the_css_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A screen whose CSS was new to the app had Textual parse all of the app's CSS
    again (a new stylesheet, every widget's default CSS too) as it was pushed: some
    50 ms before the first table, and memory in each SSH player's client."""
    reparsed: list[str] = []
    reparse = Stylesheet.reparse

    def counted(self: Stylesheet) -> None:
        reparsed.append(type(app.screen).__name__)
        reparse(self)

    monkeypatch.setattr(Stylesheet, "reparse", counted)
    app, sent = offline_app()
    async with app.run_test(size=(100, 32)) as pilot:
        assert isinstance(app.screen, LobbyScreen)
        await through_a_replay(app, pilot, sent)
        sit_at_a_game(app)
        await eventually(lambda: isinstance(app.screen, TableScreen), pause=pilot.pause)
        await pilot.pause()
    assert reparsed == []


async def test_after_a_replay_the_tables_log_keeps_its_rows() -> None:
    """The replay's log is three to eight rows high, as the terminal is tall; the
    table's log fills the table's bottom. Both are ``#log``: each screen's rules name
    their screen, or the replay's height (read first) would cut the table's log."""
    app, sent = offline_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await through_a_replay(app, pilot, sent)
        sit_at_a_game(app)
        await eventually(lambda: isinstance(app.screen, TableScreen), pause=pilot.pause)
        await pilot.pause()
        bottom = app.screen.query_one("#bottom", Widget)
        log = app.screen.query_one("#log", Widget)
        await eventually(lambda: bottom.size.height > 0, pause=pilot.pause)
        assert bottom.outer_size.height == 8  # a tall terminal's table: eight rows of log and chat
        assert log.outer_size.height == bottom.size.height


async def through_a_replay(app, pilot, sent) -> None:  # type: ignore[no-untyped-def]
    """From the lobby: the finished games, one game's replay, and back to the lobby."""
    rec = record()
    assert rec.game_id is not None
    await open_history(app, pilot)
    say(app, HistoryPage(id=sent.last().id, games=PAGE, more=False), History)
    await pilot.press("enter")
    await eventually(lambda: isinstance(sent.last(), GetRecord), pause=pilot.pause)
    say(app, Record(id=sent.last().id, game_id=rec.game_id, record=rec), GetRecord)
    await eventually(lambda: isinstance(app.screen, ReplayScreen), pause=pilot.pause)
    await pilot.press("escape")
    await eventually(lambda: isinstance(app.screen, HistoryScreen), pause=pilot.pause)
    await pilot.press("escape")
    await eventually(lambda: isinstance(app.screen, LobbyScreen), pause=pilot.pause)


def sit_at_a_game(app) -> None:  # type: ignore[no-untyped-def]
    """Ann sits at table 3 and its game is under way."""
    game = Game(7, seating="chosen")
    events = advance_to(game, 0)
    say(app, Seated(id=1, table_id=3, chair=0, token="t"), Sit)
    say(app, Table(table=table_info(3, "T", ("Ann", "Bob", "Cy", "Di"), "playing", seats=(0, 1, 2, 3))))
    say(app, game_update(3, game, 0, events))
