"""How the screens look (pytest-textual-snapshot): the lobby, the table in each
part of a turn, the end of a deal and of the game, at 80x24 and at 120x40.

Everything in the pictures is fixed: seeded games, fixed names, no clock. After a
deliberate change of looks, review the new pictures and accept them with
``pytest tests/client/test_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from rummy.engine import DealResult, Game, TeamScore
from rummy.protocol import ChatLine, Lobby, Seated, Table, TableOptions
from tests.client.fakes import offline_app, say, table_info
from tests.client.harness import TableHarness
from tests.client.test_table import meld_position

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


@pytest.mark.parametrize("size", SIZES)
def test_lobby(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    app, _ = offline_app()

    async def setup(pilot: Pilot[None]) -> None:
        say(
            app,
            Lobby(
                tables=[
                    table_info(1, "Friday night", ("Bob", "Cy", None, "Di"), creator=0),
                    table_info(
                        2, "Quick game", ("Eve", "Bot 2", "Bot 3", "Bot 4"), "playing", bots=(1, 2, 3)
                    ),
                    table_info(
                        3,
                        "Pros only",
                        (None, None, None, None),
                        creator=None,
                        options=TableOptions(seating="chosen", turn_seconds=60, on_drop="bot"),
                    ),
                ]
            ),
        )
        say(app, Seated(id=1, table_id=4, chair=0, token="t"), "create")
        mine = table_info(4, "Ann's table", ("Ann", "Bot 2", None, None), creator=0, bots=(1,))
        say(app, Table(table=mine))
        say(
            app, ChatLine(table_id=4, by="server", chair=None, name="", text="Ann created the table.", time=0)
        )
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=setup)


@pytest.mark.parametrize("size", SIZES)
def test_table_your_turn_to_draw(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(TableHarness(), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_table_meld_or_discard_with_hints(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """After drawing: two cards selected (lifted), hints on."""
    game = meld_position("7h 8h 9h 2c Qs Ad Kc", melds=[("Jd Qd Kd", 1), ("9c 9s 9d", 2)], discard="Kh")
    assert snap_compare(TableHarness(game, bots=False), terminal_size=size, press=["1", "2", "h"])


@pytest.mark.parametrize("size", SIZES)
def test_table_another_players_turn(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    game = Game(7, seating="chosen")  # East is first to play
    assert snap_compare(TableHarness(game, bots=False), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_deal_end(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    game = meld_position("7h 8h 9h", melds=[("Jc Jd Js Jh", 1)])
    assert snap_compare(TableHarness(game, bots=False), terminal_size=size, press=["1", "2", "3", "m", "y"])


@pytest.mark.parametrize("size", SIZES)
def test_game_end(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    game = meld_position("7h 8h 9h", deal=2)
    game.results = [
        DealResult(1, "passes", None, ((),) * 4, (TeamScore(30, 0, -10, 0), TeamScore(50, 0, -5, 0)))
    ]
    assert snap_compare(TableHarness(game, bots=False), terminal_size=size, press=["1", "2", "3", "m", "y"])
