"""How the screens look (pytest-textual-snapshot): the lobby, the table in each part
of a turn (as in the game against bots, with no chat; one at a server's table, with
it) and late in a deal, the end of a deal and of the game, at 80x24 (the smallest
terminal we play in), 100x32 and 120x40, and with ``--ascii``.

Everything in the pictures is fixed: seeded games, fixed names, clocks paused.
After a deliberate change of looks, review the new pictures (as PNGs: rsvg-convert)
and accept them with ``pytest tests/client/test_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import time

import pytest
from textual.pilot import Pilot

from rummy.client.model import TurnTimer
from rummy.engine import DealResult, Game, TeamScore
from rummy.engine.positions import position
from rummy.protocol import ChatLine, CreateTable, Lobby, LobbyTable, Seated, Table, TableOptions
from tests.client.fakes import offline_app, say, table_info
from tests.client.harness import LobbyHarness, TableHarness
from tests.client.test_table import meld_position

SIZES = [
    pytest.param((80, 24), id="80x24"),
    pytest.param((100, 32), id="100x32"),
    pytest.param((120, 40), id="120x40"),
]


def lobby_app(ascii: bool = False):  # type: ignore[no-untyped-def]
    app, _ = offline_app(ascii=ascii)

    async def setup(pilot: Pilot[None]) -> None:
        say(
            app,
            Lobby(
                tables=[
                    table_info(1, "Friday night", ("Bob", "Cy", None, "Di"), creator=0),
                    table_info(2, "Quick game", ("Eve", "Dara", "Mina", "Kian"), "playing", bots=(1, 2, 3)),
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
        say(app, Seated(id=1, table_id=4, chair=0, token="t"), CreateTable)
        mine = table_info(4, "Ann's table", ("Ann", "Dara", None, None), creator=0, bots=(1,))
        say(app, Table(table=mine))
        say(
            app, ChatLine(table_id=4, by="server", chair=None, name="", text="Ann created the table.", time=0)
        )
        await pilot.pause()

    return app, setup


@pytest.mark.parametrize("size", SIZES)
def test_lobby(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    app, setup = lobby_app()
    assert snap_compare(app, terminal_size=size, run_before=setup)


def test_lobby_ascii(snap_compare) -> None:  # type: ignore[no-untyped-def]
    app, setup = lobby_app(ascii=True)
    assert snap_compare(app, terminal_size=(80, 24), run_before=setup)


def long_names_app():  # type: ignore[no-untyped-def]
    """Names at the server's limit (24 characters), players away, bots, people watching:
    the Players cell said shorter, whole, and the chosen table's chairs each whole."""
    app, _ = offline_app()

    async def setup(pilot: Pilot[None]) -> None:
        long = table_info(
            1,
            "Friday night",
            ("Alexandrina-Konstantina!", "Bartholomew Kingsley III", None, "Kian"),
            creator=0,
            bots=(3,),
            levels={3: "hard"},
        )
        long.chairs[1].present = False
        mixed = table_info(2, "Quick game", ("Bob", "Di", "Ana", None), creator=0)
        mixed.chairs[2].present = False
        mixed.spectators = 2
        over = table_info(3, "Last night's", ("Eve", "Dara", "Mina", "Kian"), "finished", bots=(1, 2))
        over.spectators = 1
        say(app, Lobby(tables=[long, mixed, over]))
        await pilot.pause()

    return app, setup


@pytest.mark.parametrize("size", SIZES)
def test_lobby_long_names(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    app, setup = long_names_app()
    assert snap_compare(app, terminal_size=size, run_before=setup)


def test_lobby_chair_freed_while_asked(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """ "Sit in which chair?" open, chair 3 highlighted; then a player leaves chair 1 and
    another sits in chair 4: chair 1 comes in under its own number, 4 goes."""
    app, _ = offline_app()

    async def setup(pilot: Pilot[None]) -> None:
        say(app, Lobby(tables=[table_info(4, "Open", ("Bob", "Eve", None, None), creator=0)]))
        await pilot.pause()
        await pilot.press("s")
        say(app, LobbyTable(table=table_info(4, "Open", (None, "Eve", None, "Fay"), creator=0)))
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=setup)


def test_lobby_highlighted_chair_taken_while_asked(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """"Sit in which chair?" open on chair 3, which someone takes: nothing highlighted,
    and the question and its line of keys say so."""
    app, _ = offline_app()

    async def setup(pilot: Pilot[None]) -> None:
        say(app, Lobby(tables=[table_info(4, "Open", ("Bob", "Eve", None, None), creator=0)]))
        await pilot.pause()
        await pilot.press("s")
        say(app, LobbyTable(table=table_info(4, "Open", ("Bob", "Eve", "Fay", None), creator=0)))
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=setup)


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
    """A server's table (its chat beside the log): East is to draw, its turn clock
    paused (a stand-in would show it so)."""
    app = LobbyHarness(Game(7, seating="chosen"), bots=False)

    async def setup(pilot: Pilot[None]) -> None:
        app.table.set_clock(TurnTimer("turn", 3, 47.0, time.monotonic(), paused=True))
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=setup)


def late_in_a_deal() -> Game:
    """Thirteen melds, with lay-offs of both teams, a long discard pile, West just played."""
    sets = [
        (f"{r}c {r}d {r}h", seat) for r, seat in zip((2, 3, 4, 5, 6, 7, 8, 9), (0, 1, 2, 3) * 2, strict=True)
    ]
    runs = [
        ("Js Qs Ks", 1, (1, 1, 1)),
        ("Jd Qd Kd Ad", 2, (2, 2, 2, 1)),
        ("Jc Qc Kc", 3),
        ("10h Jh Qh Kh", 0, (2, 0, 0, 0)),
        ("10c 10d 10s", 1),
    ]
    return position(
        ["2s 3s 4s 5s", "6s 7s", "8s", "9s"],
        melds=[*sets, *runs],
        discard="Ac Jk Ah Jk2 As Jk3 Jk4",
        current=0,
        phase="draw",
    )


@pytest.mark.parametrize("size", SIZES)
def test_table_late_in_a_deal(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """Nothing hidden: every meld and every pile card shows, even at 80x24."""
    assert snap_compare(TableHarness(late_in_a_deal(), bots=False), terminal_size=size, press=["h"])


def a_long_pile() -> Game:
    """Ten cards in the discard pile, the top one usable (7♥ 8♥ 9♥)."""
    return position(
        ["7h 8h 2c Qs Ad Kc 5d", "4s 6s 7s", "8s Js Qd", "Jk 2d 4c"],
        discard="4d Jh 2s 6c Kd 8c 10s 5h 3d 9h",
        current=0,
        phase="draw",
    )


@pytest.mark.parametrize("size", SIZES)
def test_table_with_a_long_discard_pile(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """The pile's cards overlap more tightly, still framed, before they become chips."""
    assert snap_compare(TableHarness(a_long_pile(), bots=False), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_table_with_a_long_hand(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """Sixteen cards in hand, two selected: narrower cards as tall as a short hand's
    (at 80x24, where cards are already their narrowest, two rows)."""
    game = meld_position("7h 8h 9h 10h Jh Qh Kh Ah 8c 9c 10c Jc Qc Kc 8s 9s")
    assert snap_compare(TableHarness(game, bots=False), terminal_size=size, press=["1", "2"])


def test_table_ascii(snap_compare) -> None:  # type: ignore[no-untyped-def]
    game = meld_position("7h 8h 9h 2c Qs Ad Kc", melds=[("Jd Qd Kd", 1), ("9c 9s 9d", 2)], discard="Kh")
    assert snap_compare(
        TableHarness(game, bots=False, ascii=True), terminal_size=(80, 24), press=["1", "2", "h"]
    )


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


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
def test_deal_end_four_colours(snap_compare, theme: str) -> None:  # type: ignore[no-untyped-def]
    """--four-colour: the hands at the deal's end name each suit in its colour, as the
    faces do (♣ green, ♦ blue, ♥ red, ♠ in the text's colour), on a dark theme and a light."""
    from tests.client.test_four_colours import four_suits_game

    app = TableHarness(four_suits_game("7h 8h 9h"), bots=False, four_colour=True, theme=theme)
    assert snap_compare(app, terminal_size=(100, 32), press=["1", "2", "3", "m", "y"])


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
def test_table_log_four_colours(snap_compare, theme: str) -> None:  # type: ignore[no-untyped-def]
    """--four-colour: the log and the seat's last move ("discarded 5♦") in the faces'
    colours, on a dark theme and a light."""
    from tests.client.test_four_colours import four_suits_game
    from tests.client.test_table import pick

    app = TableHarness(four_suits_game(), bots=False, four_colour=True, theme=theme)

    async def play(pilot: Pilot[None]) -> None:
        await pick(pilot, app, "7h", "8h", "9h")
        await pilot.press("m")
        await pick(pilot, app, "5d")
        await pilot.press("d")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(100, 32), run_before=play)
