"""How the history list and the replay screen look (pytest-textual-snapshot), at 80x24
and 120x40: the finished games, a replay in the middle of a deal and at a deal's end,
and the game's end with the table's running tally.

Everything in the pictures is fixed: kept records, fixed names, a fixed clock in UTC.
Review new pictures as PNGs before accepting them (``--snapshot-update``).
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from rummy.client.app import RummyApp
from rummy.protocol import History, HistoryPage
from tests.client.fakes import offline_app, say
from tests.client.test_replay import NOW, PAGE, SERVER_GAME, TALLY, game_end_harness, record, summary

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]

MORE = [
    summary(8, True, ("Ann", "Bot 2", "Bot 3", "Bot 4"), (-12, 240), finished=NOW - 86_400 * 40),
    summary(5, False, ("Maximilian", "Bartholomew", "Cyd", "Dee"), (311, 87), table_name="A long table name"),
]


@pytest.mark.parametrize("size", SIZES)
def test_history(snap_compare, size: tuple[int, int], utc: None) -> None:  # type: ignore[no-untyped-def]
    app, _ = offline_app()
    app.clock = lambda: NOW

    async def setup(pilot: Pilot[None]) -> None:
        await pilot.press("h")
        while app.history_request is None:
            await pilot.pause()
        say(app, HistoryPage(id=app.history_request[0], games=[*PAGE, *MORE], more=True), History)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=setup)


def replay_app() -> RummyApp:
    return RummyApp(player_name="", replay=record(SERVER_GAME), replay_title="Friday night, game 12")


@pytest.mark.parametrize("size", SIZES)
def test_replay_in_the_middle_of_a_deal(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """25 moves in: every hand face up, melds on both sides, the last move's cards marked."""
    assert snap_compare(replay_app(), terminal_size=size, press=["right"] * 25)


@pytest.mark.parametrize("size", SIZES)
def test_replay_at_a_deal_end(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """down jumps to the deal's end: the same breakdown as a live game (R7)."""
    assert snap_compare(replay_app(), terminal_size=size, press=["down"])


@pytest.mark.parametrize("size", SIZES)
def test_game_end_with_the_running_tally(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    app = game_end_harness()
    app.table.tally, app.table.last_game = TALLY, 31
    assert snap_compare(app, terminal_size=size, press=["1", "2", "3", "m", "y"])


def test_replay_ascii(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """--ascii: the replay is plain ASCII too, every hand and key included."""
    app = RummyApp(
        player_name="", replay=record(SERVER_GAME), replay_title="Friday night, game 12", ascii=True
    )
    assert snap_compare(app, terminal_size=(80, 24), press=["right"] * 25)
