"""``--ascii``: every character on every screen is plain ASCII (borders, scrollbars,
markers, suits, the rule book), so the game reads in any terminal."""

from __future__ import annotations

from rummy.client.screens.help import HelpScreen
from rummy.client.screens.modals import ChooseScreen
from rummy.client.screens.new_table import NewTableScreen
from rummy.client.screens.results import DealEndScreen
from rummy.engine.positions import position
from rummy.protocol import ChatLine, CreateTable, Lobby, Seated, Table, TableOptions
from tests.client.conftest import screen_text
from tests.client.fakes import offline_app, say, table_info
from tests.client.harness import TableHarness
from tests.client.test_snapshots import late_in_a_deal
from tests.client.test_table import OTHERS, meld_position


def not_ascii(text: str) -> set[str]:
    return {ch for ch in text if ord(ch) > 126 or (ord(ch) < 32 and ch != "\n")}


async def test_the_table_and_its_dialogs_are_plain_ascii() -> None:
    game = late_in_a_deal()
    app = TableHarness(game, bots=False, ascii=True, names=("Zoë", "Bob", "Cyd", "Dee"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("h", "tab")  # hints (dots) and the pile's marks
        assert not_ascii(screen_text(app)) == set()
        for page in ("1", "2", "3"):  # the keys, how to play, the rule book
            await pilot.press("question_mark" if page == "1" else page)
            assert isinstance(app.screen, HelpScreen)
            assert not_ascii(screen_text(app)) == set(), page
            for _ in range(8):  # down the page, the scrollbar too
                await pilot.press("pagedown")
                assert not_ascii(screen_text(app)) == set(), page
        await pilot.press("escape")
    game = position(["7h 8h 9s 9d 2c", *OTHERS], discard="Kd 9h", current=0, phase="draw")
    app = TableHarness(game, bots=False, ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("t")  # the take's choice of uses
        assert isinstance(app.screen, ChooseScreen)
        assert not_ascii(screen_text(app)) == set()


async def test_the_deal_end_is_plain_ascii() -> None:
    app = TableHarness(meld_position("7h 8h 9h", melds=[("Jc Jd Js Jh", 1)]), bots=False, ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("1", "2", "3", "m")
        assert not_ascii(screen_text(app)) == set()  # the question first
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, DealEndScreen)
        assert not_ascii(screen_text(app)) == set()


async def test_the_lobby_and_the_new_table_form_are_plain_ascii() -> None:
    app, _ = offline_app(ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        say(
            app,
            Lobby(
                tables=[
                    table_info(1, "Café ☕ night", ("Zoë", "Cy", None, "Di"), creator=0),
                    table_info(2, "Pros", (None,) * 4, creator=None, options=TableOptions(turn_seconds=60)),
                ]
            ),
        )
        say(app, Seated(id=1, table_id=3, chair=0, token="t"), CreateTable)
        say(app, Table(table=table_info(3, "Mine – N–S", ("Ann", None, None, None), creator=0)))
        say(app, ChatLine(table_id=3, by="player", chair=0, name="Zoë", text="héllo → all", time=0))
        await pilot.pause()
        assert not_ascii(screen_text(app)) == set()
        say(app, Table(table=table_info(3, "Mine", (None, None, None, None), creator=0)))
    app, _ = offline_app(ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        # Longer than the list's columns at 80: cut with "..." (the grid's own ellipsis
        # is a "…"), a table's name before the number it ends in, a player's with the
        # counts after it whole.
        names = ("Anahita Bobby Tables", "Cyrus", "Dee", None)
        say(app, Lobby(tables=[table_info(1, "Anahita's table 12", names, creator=0)]))
        await pilot.pause()
        assert "Anahita's t... 12" in screen_text(app) and "Anahi... +2, 1 free" in screen_text(app)
        assert not_ascii(screen_text(app)) == set()
    app, _ = offline_app(ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        say(app, Lobby(tables=[]))
        await pilot.pause()
        await pilot.press("n")
        assert isinstance(app.screen, NewTableScreen)
        await pilot.pause()
        assert not_ascii(screen_text(app)) == set()
