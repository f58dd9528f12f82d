"""The app between the server and the screens: the lobby kept live, requests sent
for what the player does, the table opened for a game, errors in words, the
connection banner, the terminal size, seat tokens remembered."""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import re
import weakref
from pathlib import Path

import msgspec
import pytest
from textual.widgets import DataTable

from rummy.client.app import RummyApp
from rummy.client.cli import pause_collector, run
from rummy.client.connection import ConnectionChanged
from rummy.client.screens.help import HelpScreen
from rummy.client.screens.lobby import LobbyScreen
from rummy.client.screens.modals import ChooseScreen, ConfirmScreen, TooSmallScreen
from rummy.client.screens.new_table import NewTableScreen
from rummy.client.screens.results import GameEndScreen
from rummy.client.screens.table import TableScreen
from rummy.client.state import StateStore, seat_key
from rummy.client.widgets.status import ConnectionBanner
from rummy.engine import Discard, DiscardTaken, DrawStock, Game, TakeDiscard, view_for
from rummy.engine.bots import make_bot
from rummy.protocol import (
    AddBot,
    Chat,
    ChatLine,
    Clock,
    CreateTable,
    Error,
    Leave,
    Lobby,
    LobbyGone,
    LobbyTable,
    MoveRequest,
    Ok,
    PastMove,
    PlayAgain,
    Rejoin,
    Seated,
    Sit,
    Start,
    Table,
    TableOptions,
    Watch,
    Watching,
    Welcome,
    event_to_wire,
    move_from_wire,
)
from tests.client.conftest import screen_text, toast_text
from tests.client.fakes import advance_to, game_update, offline_app, say, table_info
from tests.support import eventually, play_until

NASTY = "[b]Eve[/b]\x1b[31m\x07"  # the escape sequence and the bell are dropped whole


def lobby_rows(app) -> list[str]:  # type: ignore[no-untyped-def]
    grid = app.lobby.query_one("#tables", DataTable)
    return [
        " | ".join(str(getattr(c, "plain", c)) for c in grid.get_row_at(i)) for i in range(grid.row_count)
    ]


async def test_the_lobby_lists_tables_and_follows_changes() -> None:
    """Tables with their chairs, status and options; updated by the server's pushes."""
    app, _ = offline_app()
    async with app.run_test() as pilot:
        say(app, Lobby(tables=[table_info(1, "Friday", ("Bob", None, None, None)), table_info(2, "Pros")]))
        await pilot.pause()
        rows = lobby_rows(app)
        assert len(rows) == 2
        assert "Friday | waiting | Bob, 3 free" in rows[0]
        assert rows[0].endswith("| drawn, waits")  # no timer: at 80 columns, in fewer words
        # The chosen table in full words, below the list.
        assert "1 Bob, 2 free, 3 free, 4 free" in screen_text(app)
        assert "partners drawn (R2.2); no turn timer;" in screen_text(app)
        say(app, LobbyTable(table=table_info(1, "Friday", ("Bob", "Cy", "Bot 3", None), bots=(2,))))
        say(app, LobbyGone(table_id=2))
        await pilot.pause()
        rows = lobby_rows(app)
        # At 80 columns "Bob, Cy, 1 bot, 1 free" was cut to "Bob, Cy, 1 bot, 1 f…": the
        # bot is counted with the other taken chairs instead (``chairs_text``).
        assert len(rows) == 1 and "Bob, Cy +1, 1 free" in rows[0]


async def test_markup_and_escape_codes_from_players_do_nothing() -> None:
    """Names, table names and chat are shown as the characters they are: markup is
    not applied, escape and control characters are dropped (DESIGN: plain text)."""
    app, _ = offline_app()
    async with app.run_test(size=(120, 40)) as pilot:
        names = (NASTY, "Bob", "Cy", "Di")
        say(app, Lobby(tables=[table_info(1, NASTY, names, status="playing", creator=None)]))
        await pilot.pause()
        assert "[b]Eve[/b]" in lobby_rows(app)[0]
        say(app, Welcome(id=1, version=1, name="Bob", server="s", max_frame=1, table_id=1, chair=1))
        say(app, Table(table=table_info(1, NASTY, names, status="playing", creator=None, seats=(0, 1, 2, 3))))
        say(app, game_update(1, Game(5, seating="chosen"), 1))
        say(
            app,
            ChatLine(
                table_id=1,
                by="player",
                chair=0,
                name=NASTY,
                text="[link=x]hi[/link] \x1b]0;title\x07",
                time=0,
            ),
        )
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        text = screen_text(app)
        assert "[b]Eve[/b]" in text  # the players line
        assert "[link=x]hi[/link]" in text  # the chat
        assert "\x1b" not in text and "\x07" not in text
        # The styles of that text are the screen's own: nothing in it turned red.
        assert app.table_screen is not None
        for span in app.table_screen.chat.lines[-1].spans:
            assert "red" not in str(span.style) and "link" not in str(span.style)


async def test_the_lobby_title_says_where_however_long_the_name() -> None:
    """The title names the player and the server; a name of 24 wide characters (48
    columns) is cut so that the server's address still shows at 80 columns."""
    wide = "张伟" * 12
    app, _ = offline_app(player_name=wide)
    async with app.run_test(size=(80, 24)) as pilot:
        say(app, Lobby(tables=[]))
        await pilot.pause()
        title = screen_text(app).splitlines()[0]
        assert title.startswith(" Persian Rummy lobby  you are 张伟张伟")
        assert title.rstrip().endswith("at example.org:7325")


async def test_the_lobby_title_writes_an_ipv6_server_as_the_client_reads_it() -> None:
    """``[::1]:7400``, as ``rummy-client`` takes it: "at ::1:7400" read back is a host
    named "::1:7400" on the default port."""
    app, _ = offline_app(address=("::1", 7400))
    async with app.run_test(size=(80, 24)) as pilot:
        say(app, Lobby(tables=[]))
        await pilot.pause()
        assert screen_text(app).splitlines()[0].rstrip().endswith("at [::1]:7400")


async def test_quitting_a_servers_game_says_the_seat_is_kept() -> None:
    """q mid-game at a server's table asks first, and says the seat is held for a
    player who comes back the same way (the local game's words are its own)."""
    app, _ = offline_app()
    async with app.run_test(size=(100, 32)) as pilot:
        names = ("Ann", "Bob", "Cy", "Di")
        say(app, Welcome(id=1, version=1, name="Ann", server="s", max_frame=1, table_id=1, chair=0))
        say(app, Table(table=table_info(1, "Friday", names, status="playing", seats=(0, 1, 2, 3))))
        say(app, game_update(1, Game(5, seating="chosen"), 0))
        await eventually(lambda: isinstance(app.screen, TableScreen), pause=pilot.pause)
        await pilot.press("q")
        await eventually(lambda: isinstance(app.screen, ConfirmScreen), pause=pilot.pause)
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question == (
            "Quit during the game? Your seat is kept for you: come back the same way to take it up again."
        )
        await pilot.press("n")
        assert isinstance(app.screen, TableScreen) and app.return_code is None


async def test_quitting_the_lobby_in_a_chair_asks_first_and_without_one_does_not() -> None:
    """q in the lobby quit at once, also from a chair at a waiting table, where the
    others then waited for a player who had gone without a word: in a chair it asks,
    and says the chair is kept; n stays, y quits. With no chair it quits at once."""
    app, _ = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        say(app, Seated(id=1, table_id=7, chair=0, token="t"), CreateTable)
        say(app, Table(table=table_info(7, "Friday", ("Ann", "Bob", None, None), creator=0)))
        await pilot.pause()
        await pilot.press("q")
        await eventually(lambda: isinstance(app.screen, ConfirmScreen), pause=pilot.pause)
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question == (
            "Quit while in a chair at table 7 (Friday)? It is kept for you: come back the same"
            " way to take it up again, or leave the table first (l) to free it."
        )
        await pilot.press("n")
        await eventually(lambda: not isinstance(app.screen, ConfirmScreen), pause=pilot.pause)
        assert app.screen is app.lobby and app.return_code is None
        await pilot.press("q")
        await eventually(lambda: isinstance(app.screen, ConfirmScreen), pause=pilot.pause)
        await pilot.press("y")
        await eventually(lambda: app.return_code == 0, pause=pilot.pause)
    app, _ = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        say(app, Lobby(tables=[table_info(7, "Friday", ("Ann", "Bob", None, None), creator=0)]))
        await pilot.pause()
        await pilot.press("q")
        await eventually(lambda: app.return_code == 0, pause=pilot.pause)


async def test_four_people_at_a_table_are_told_nothing_of_bots() -> None:
    """With four people and no bot the creator's line says g starts; x (remove a bot)
    is not offered where no bot sits."""
    app, _ = offline_app()
    async with app.run_test(size=(100, 32)) as pilot:
        say(app, Seated(id=1, table_id=7, chair=0, token="secret-7"), CreateTable)
        say(app, Table(table=table_info(7, "Mine", ("Ann", "Bob", "Cy", "Dee"), creator=0)))
        await pilot.pause()
        assert "All four chairs are filled: g starts the game." in screen_text(app)
        assert "x removes" not in screen_text(app)


async def test_the_lobby_hint_follows_the_tables_as_they_come() -> None:
    """An empty lobby invites a new table; once someone creates one, it says how to sit."""
    app, _ = offline_app()
    async with app.run_test() as pilot:
        say(app, Lobby(tables=[]))
        await pilot.pause()
        assert "No tables yet" in screen_text(app)
        say(app, LobbyTable(table=table_info(1, "Friday", ("Bob", None, None, None))))
        await pilot.pause()
        assert "No tables yet" not in screen_text(app)
        assert "Pick a table" in screen_text(app)


async def test_at_80x24_the_chosen_tables_hint_is_not_cut_off() -> None:
    """A table of one person and three bots, its options in two lines: at 80x24 the
    panel below the list ended "s sits down, w watches; n creates a" (the last line
    fell off the bottom). The way to sit or watch is now said whole, in two lines."""
    app, _ = offline_app()
    names = ("Vic", "Dara", "Mina", "Kian")
    levels = {1: "normal", 2: "normal", 3: "normal"}
    playing = table_info(1, "Vic's table", names, "playing", bots=(1, 2, 3), levels=levels)
    async with app.run_test(size=(80, 24)) as pilot:
        say(app, Lobby(tables=[playing]))
        await pilot.pause()
        text = " ".join(line.split("│")[0].strip() for line in screen_text(app).splitlines())
        assert "Dara (normal bot)" in text  # the chairs, as a person sees them
        # (A table in play: watching is offered, not sitting.)
        assert "Pick a table (arrow keys): w (or enter) watches, n creates one." in text


@pytest.mark.parametrize(
    ("size", "name"),
    [
        ((80, 24), "Kourosh's table 2"),
        ((100, 32), "Friday rummy at Bob's"),
        ((120, 40), "Friday night rummy at Bob's"),
    ],
)
async def test_the_lobby_shows_a_tables_name_and_players_whole(size: tuple[int, int], name: str) -> None:
    """At 80 columns the Table column was 14 wide and cut a default name ("Kourosh's
    table 2"); a wider terminal gives a longer name its room, and the players beside
    it stay whole."""
    app, _ = offline_app()
    async with app.run_test(size=size) as pilot:
        say(app, Lobby(tables=[table_info(2, name, ("Ana", "Bob", None, None))]))
        await pilot.pause()
        row = screen_text(app).splitlines()[2]
        assert f" {name} " in row and " Ana, Bob, 2 free " in row


@pytest.mark.parametrize(
    ("size", "said"),
    [
        ((80, 24), ("seated, waits", "seated, 120s, bot")),
        ((100, 32), ("as seated, no timer, waits", "as seated, 120 s, bot")),
        ((120, 40), ("as seated, no timer, waits", "as seated, 120 s, bot")),
    ],
)
async def test_the_lobby_says_a_tables_options_whole(size: tuple[int, int], said: tuple[str, str]) -> None:
    """The Options column cut "as seated, no timer, waits" to "as seated, no timer, w"
    at 80 columns and at 120: at 80 it says them in fewer words (no time: no timer),
    wider in all of them; four players' names stay whole beside them."""
    app, _ = offline_app()
    seated = TableOptions(seating="chosen")
    timed = TableOptions(seating="chosen", turn_seconds=120, on_drop="bot")
    tables = [
        table_info(1, "Friday", ("Bob", "Cy", "Di", None), options=seated),
        table_info(2, "Pros", ("Eve", None, None, None), options=timed),
    ]
    async with app.run_test(size=size) as pilot:
        say(app, Lobby(tables=tables))
        await pilot.pause()
        rows = screen_text(app).splitlines()[2:4]
        assert rows[0].endswith(f" {said[0]}") and " Bob, Cy, Di, 1 free " in rows[0]
        assert rows[1].endswith(f" {said[1]}")


async def test_the_lobby_panel_names_a_table_whole() -> None:
    """The panel below the list cut a table's name (40 characters at most) at a player
    name's 24: "Your table: Friday night rummy at Bo"."""
    app, _ = offline_app()
    name = "Friday night rummy at Bob's place"
    async with app.run_test(size=(120, 40)) as pilot:
        say(app, Lobby(tables=[table_info(3, name, ("Bob", None, None, None))]))
        await pilot.pause()
        assert f"Table {name}" in screen_text(app)
        say(app, Seated(id=1, table_id=3, chair=1, token="t"), Sit)
        say(app, Table(table=table_info(3, name, ("Bob", "Ann", None, None))))
        await pilot.pause()
        assert f"Your table: {name}" in screen_text(app)


async def test_the_lobby_says_in_words_how_many_watch_a_table() -> None:
    """The list's "playing +2" was said nowhere: the chosen table's panel now says "2
    watching", and the lobby's help what +N means."""
    app, _ = offline_app()
    playing = table_info(1, "Friday", ("Ann", "Bob", "Cy", "Dee"), "playing")
    watched = msgspec.structs.replace(playing, spectators=2)
    async with app.run_test(size=(80, 24)) as pilot:
        say(app, Lobby(tables=[watched]))
        await pilot.pause()
        text = screen_text(app)
        assert "playing +2" in text and "Table Friday  2 watching" in text
        await pilot.press("question_mark")
        await pilot.pause()
        assert "watch the chosen table (+N after its status: N" in screen_text(app)


async def test_watching_a_table_not_yet_started_offers_no_o() -> None:
    """Watching a table still waiting for its players, the lobby said "o opens the
    table", and o did nothing (there is no game to open yet): it now says the table
    opens when its game starts, which it does by itself."""
    app, sent = offline_app()
    waiting = table_info(5, "Ann's table", ("Ann", None, None, None))
    async with app.run_test(size=(80, 24)) as pilot:
        say(app, Lobby(tables=[waiting]))
        await pilot.pause()
        await pilot.press("w")
        assert isinstance(sent.last(), Watch)
        say(app, Watching(id=1, table_id=5), Watch)
        say(app, Table(table=waiting))
        await pilot.pause()
        text = " ".join(line.split("│")[0].strip() for line in screen_text(app).splitlines())
        assert "o opens" not in text
        assert "You are watching: the table opens when its game starts; l leaves." in text


async def test_create_a_table_with_its_options() -> None:
    """n opens the form; the request carries the name, partners, timer, on-drop, chair."""
    app, sent = offline_app()
    async with app.run_test() as pilot:
        say(app, Lobby(tables=[]))
        await pilot.pause()
        assert "No tables yet: n creates one." in screen_text(app)
        await pilot.press("n")
        assert isinstance(app.screen, NewTableScreen)
        await pilot.press(*"Night", "enter")  # typing replaces the proposed name; on to Partners
        await pilot.press("right")  # as seated
        await pilot.press("tab", "right", "right")  # 60 seconds
        await pilot.press("tab", "right")  # a bot plays for them
        await pilot.press("tab", "right", "right")  # chair 3
        assert "as seated" in screen_text(app) and "60 seconds" in screen_text(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
        request = sent.sent[-1]
        assert isinstance(request, CreateTable)
        assert request.name == "Night"
        assert request.options == TableOptions(seating="chosen", turn_seconds=60, on_drop="bot")
        assert request.chair == 2


async def test_the_new_table_form_proposes_a_name_no_listed_table_has() -> None:
    """Friends on one login (every one "Ann") opened tables without naming them and the
    lobby listed "Ann's table" twice: the form now proposes "Ann's table 2"."""
    app, sent = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        say(app, Lobby(tables=[table_info(1, "Ann's table")]))
        await pilot.pause()
        await pilot.press("n")
        assert isinstance(app.screen, NewTableScreen)
        await pilot.press("ctrl+s")
        await pilot.pause()
        request = sent.sent[-1]
        assert isinstance(request, CreateTable) and request.name == "Ann's table 2"


async def test_the_new_table_form_moves_row_to_row_with_the_arrows() -> None:
    """Up and down move between the form's rows as tab and shift+tab do (seen in tmux:
    down did nothing, as if the form had one row), and left and right still change
    the row's choice."""
    app, sent = offline_app()
    async with app.run_test() as pilot:
        say(app, Lobby(tables=[]))
        await pilot.pause()
        await pilot.press("n", "down", "down", "right")  # past Partners to the turn timer
        assert "30 seconds" in screen_text(app) and "as seated" not in screen_text(app)
        await pilot.press("up", "right")  # back to Partners
        assert "as seated" in screen_text(app)
        await pilot.press("down", "down", "down", "right", "right")  # chair 3
        await pilot.press("ctrl+s")
        await pilot.pause()
        request = sent.sent[-1]
        assert isinstance(request, CreateTable)
        assert request.options == TableOptions(seating="chosen", turn_seconds=30, on_drop="wait")
        assert request.chair == 2


async def test_sit_in_a_chosen_chair_or_watch() -> None:
    """Only free chairs are offered, each under its own number (4 is chair 4, not the
    second free one); one taken while the question was open leaves it (seen in tmux:
    three friends sitting at once got "That chair was taken meanwhile" and had to
    start over)."""
    app, sent = offline_app()
    async with app.run_test() as pilot:
        say(app, Lobby(tables=[table_info(4, "Open", ("Bob", None, "Cy", None), creator=0)]))
        await pilot.pause()
        await pilot.press("s")
        assert isinstance(app.screen, ChooseScreen)
        assert [label for label, _ in app.screen.options] == ["Chair 2", "Chair 4"]
        assert "2. Chair 2" in screen_text(app) and "4. Chair 4" in screen_text(app)
        say(app, LobbyTable(table=table_info(4, "Open", ("Bob", "Eve", "Cy", None), creator=0)))
        await pilot.pause()
        chooser = app.screen
        assert isinstance(chooser, ChooseScreen) and [label for label, _ in chooser.options] == ["Chair 4"]
        # Chair 2, highlighted, was taken: the question says so, and enter picks nothing
        # until the player moves (it would have sat them in chair 4 unasked).
        assert "2. Chair 2" not in screen_text(app) and "4. Chair 4" in screen_text(app)
        assert "Chair 2 was taken meanwhile" in screen_text(app) and chooser.choices.highlighted is None
        assert "a number or up/down and enter; escape cancels" in screen_text(app)
        await pilot.press("enter")
        assert app.screen is chooser
        await pilot.press("down")  # on chair 4: enter would take it
        await eventually(lambda: "enter chooses, escape cancels" in screen_text(app), pause=pilot.pause)
        assert chooser.choices.highlighted == 0
        await pilot.press("1", "2", "3")  # no such chairs free: still asking
        assert isinstance(app.screen, ChooseScreen)
        assert not any(isinstance(m, Sit) for m in sent.sent)
        await pilot.press("escape")  # not now after all
        await pilot.pause()
        assert not any(isinstance(m, Sit) for m in sent.sent)
        say(app, LobbyTable(table=table_info(4, "Open", ("Bob", None, "Cy", None), creator=0)))
        await pilot.pause()
        await pilot.press("s")
        await pilot.press("4")  # chair 4
        await pilot.pause()
        assert sent.last() == Sit(id=1, table_id=4, chair=3)
        await pilot.press("w")
        assert isinstance(sent.last(), Watch) and sent.last().table_id == 4


async def test_the_chair_question_follows_the_lobby() -> None:
    """Friends sit down while "Sit in which chair?" is open: each chair taken leaves
    the question, the others keeping their numbers and the highlight staying on its
    chair; the last one taken closes it with the table's news. The list stayed as it
    was opened, and a pick of a taken chair said so and asked again."""
    app, sent = offline_app()
    async with app.run_test(notifications=True) as pilot:
        say(app, Lobby(tables=[table_info(4, "Open", ("Bob", None, None, None), creator=0)]))
        await pilot.pause()
        await pilot.press("s", "down")  # on chair 3
        chooser = app.screen
        assert isinstance(chooser, ChooseScreen)
        say(app, LobbyTable(table=table_info(4, "Open", ("Bob", "Eve", None, None), creator=0)))
        await eventually(lambda: "Chair 2" not in screen_text(app), pause=pilot.pause)
        assert "3. Chair 3" in screen_text(app) and "4. Chair 4" in screen_text(app)
        assert chooser.choices.highlighted == 0  # still chair 3, now the first
        say(app, LobbyTable(table=table_info(4, "Open", ("Bob", "Eve", None, "Fay"), creator=0)))
        await eventually(lambda: "Chair 4" not in screen_text(app), pause=pilot.pause)
        assert app.screen is chooser and "3. Chair 3" in screen_text(app)
        say(app, LobbyTable(table=table_info(4, "Open", ("Bob", "Eve", "Gus", "Fay"), creator=0)))
        await eventually(lambda: "That table is full: w watches it." in toast_text(app), pause=pilot.pause)
        assert not isinstance(app.screen, ChooseScreen) and not any(isinstance(m, Sit) for m in sent.sent)
        # Enter picks the chair the highlight stayed on.
        say(app, LobbyTable(table=table_info(4, "Open", ("Bob", None, None, None), creator=0)))
        await pilot.pause()
        await pilot.press("s", "down")  # on chair 3
        say(app, LobbyTable(table=table_info(4, "Open", ("Bob", "Eve", None, None), creator=0)))
        await eventually(lambda: "Chair 2" not in screen_text(app), pause=pilot.pause)
        await pilot.press("enter")
        await pilot.pause()
        assert sent.last() == Sit(id=1, table_id=4, chair=2)


async def test_the_chair_question_closes_when_the_table_starts() -> None:
    """A table whose game began while the question was open: it closes and says so."""
    app, sent = offline_app()
    async with app.run_test(notifications=True) as pilot:
        say(app, Lobby(tables=[table_info(4, "Open", ("Bob", None, None, None), creator=0)]))
        await pilot.pause()
        await pilot.press("s")
        assert isinstance(app.screen, ChooseScreen)
        playing = table_info(4, "Open", ("Bob", "Eve", "Gus", "Fay"), status="playing", creator=0)
        say(app, LobbyTable(table=playing))
        await eventually(lambda: "That table is playing: w watches it." in toast_text(app), pause=pilot.pause)
        assert not isinstance(app.screen, ChooseScreen) and not any(isinstance(m, Sit) for m in sent.sent)


async def test_sitting_at_a_game_that_holds_ones_name_says_the_chair_is_the_clients() -> None:
    """Seen in tmux: Bob started again with another state directory saw "Bob (away)" at
    a table in play, pressed s and read only "That table is playing", with no word that
    the chair is held for the client that sat in it (its seat token), not for the name."""
    app, sent = offline_app(player_name="Bob")
    async with app.run_test(notifications=True) as pilot:
        playing = table_info(4, "Open", ("Ann", "Bob", "Cy", "Di"), status="playing", creator=0)
        playing.chairs[1].present = False  # the other Bob is away
        say(app, Lobby(tables=[playing]))
        await pilot.pause()
        await pilot.press("s")
        await eventually(lambda: "That table is playing" in toast_text(app), pause=pilot.pause)
        said = " ".join(toast_text(app).split())
        assert "Bob's chair there is held for the client that sat in it" in said
        assert "w watches" in said and not any(isinstance(m, Sit) for m in sent.sent)


async def test_the_creator_seats_bots_and_starts() -> None:
    app, sent = offline_app()
    async with app.run_test() as pilot:
        say(app, Seated(id=1, table_id=7, chair=0, token="secret-7"), CreateTable)
        say(app, Table(table=table_info(7, "Mine", ("Ann", None, None, None), creator=0)))
        await pilot.pause()
        assert "b seats a bot, g starts once" in screen_text(app)  # no bot yet: no word of x
        # b asks for the level: enter takes the one offered (normal at first, then the
        # last chosen); twice before the table changes seats bots in two chairs.
        await pilot.press("b")
        assert isinstance(app.screen, ChooseScreen)
        await pilot.press("3")  # hard
        await pilot.pause()
        await pilot.press("b", "enter")
        await pilot.pause()
        bots = [(m.chair, m.level) for m in sent.sent if isinstance(m, AddBot)]
        assert bots == [(1, "hard"), (2, "hard")]
        await pilot.press("b", "escape")  # no level chosen: no bot
        await pilot.pause()
        assert len([m for m in sent.sent if isinstance(m, AddBot)]) == 2
        keys = screen_text(app).splitlines()[-1]
        assert "b Add bot" in keys and "g Start" not in keys  # a chair is free
        await pilot.press("g")  # asked all the same: the server's refusal says why not
        assert isinstance(sent.last(), Start)
        full = ("Ann", "Bot 2", "Bot 3", "Bot 4")
        say(app, Table(table=table_info(7, "Mine", full, bots=(1, 2, 3), creator=0)))
        await pilot.pause()
        keys = screen_text(app).splitlines()[-1]
        assert "g Start" in keys and "b Add bot" not in keys  # all four chairs are filled
        assert "(x removes a bot)" in screen_text(app)
        told: list[str] = []
        app.screen.notify = lambda message, **kw: told.append(message)  # type: ignore[method-assign]
        await pilot.press("b")  # says why, asks nothing
        assert not isinstance(app.screen, ChooseScreen)
        assert told == ["Every chair is taken: x removes a bot."]
        await pilot.press("g")
        assert isinstance(sent.last(), Start)
        await pilot.press("l")
        assert isinstance(sent.last(), Leave)
        say(app, Ok(id=len(sent.sent)), Leave)
        await pilot.pause()
        assert app.session.table is None and "Your table" not in screen_text(app)
        assert StateStore().seat(seat_key("example.org:7325", "Ann")) is None  # leaving forgets the token


async def test_ones_own_table_says_who_is_away_as_the_list_does() -> None:
    """A player who dropped from one's waiting table showed as "2: Ann" there, as if
    present, while the list above said "Ann (away)"."""
    app, _ = offline_app()
    async with app.run_test(size=(120, 40)) as pilot:  # (room in the list to name her)
        say(app, Seated(id=1, table_id=7, chair=0, token="secret-7"), CreateTable)
        mine = table_info(7, "Mine", ("Bob", "Ann", None, None))
        mine.chairs[1].present = False
        say(app, Lobby(tables=[mine]))
        say(app, Table(table=mine))
        await pilot.pause()
        assert "Bob, Ann (away), 2 free" in " ".join(lobby_rows(app))
        assert " 2: Ann (away)" in screen_text(app)
        assert " 1: Bob (you)" in screen_text(app)


@pytest.mark.parametrize(
    ("size", "cells"),
    [
        ((80, 24), ["2 away, 2 free", "Bob, 1 away, 2 free"]),
        ((100, 32), ["2 away (Bob, Ana), 2 free", "Bob, Ana (away), 2 free"]),
        ((120, 40), ["Bob (away), Ana (away), 2 free", "Bob, Ana (away), 2 free"]),
    ],
)
async def test_the_list_says_who_is_away_in_its_width(size: tuple[int, int], cells: list[str]) -> None:
    """Seen in tmux at 80 columns: the Players cell cut the words of players away,
    "Bob (away), Ana (a…". Where the names do not fit with "(away)" each, the away ones
    are named after their count, then counted only, as bots are; the panel below the
    list names every chair in full."""
    both = table_info(3, "Friday", ("Bob", "Ana", None, None))
    both.chairs[0].present = both.chairs[1].present = False
    one = table_info(4, "Open", ("Bob", "Ana", None, None))
    one.chairs[1].present = False
    app, _ = offline_app()
    async with app.run_test(size=size) as pilot:
        say(app, Lobby(tables=[both, one]))
        await pilot.pause()
        assert [row.split(" | ")[3] for row in lobby_rows(app)] == cells
        text = screen_text(app)
        assert all(cell in text for cell in cells) and "…" not in text  # each whole
        assert "1 Bob (away), 2 Ana (away)" in text  # the chosen table's chairs in full


async def test_bots_show_their_level_in_the_lobby_and_at_the_table() -> None:
    """A bot's level (ChairInfo.level) is shown next to its name: in the lobby's list,
    in one's own table's chairs, and at the table."""
    app, _ = offline_app()
    levels = {1: "easy", 2: "hard", 3: "normal"}
    names = ("Ann", "Bot 2", "Bot 3", "Bot 4")
    async with app.run_test() as pilot:
        say(app, Seated(id=1, table_id=7, chair=0, token="secret-7"), CreateTable)
        mine = table_info(7, "Mine", names, bots=(1, 2, 3), levels=levels)
        say(app, Lobby(tables=[mine]))
        say(app, Table(table=mine))
        await pilot.pause()
        assert "Ann, 3 bots" in " ".join(lobby_rows(app))  # the list counts them
        assert "Bot 2 (easy bot)" in screen_text(app)  # one's own table names them
        game = Game(3, seating="chosen")
        playing = table_info(7, "Mine", names, "playing", bots=(1, 2, 3), seats=(0, 1, 2, 3), levels=levels)
        say(app, Table(table=playing))
        say(app, game_update(7, game, 0))
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        text = screen_text(app)
        assert "Bot 3 (hard bot)" in text and "Bot 4 (normal bot)" in text


async def test_the_seat_token_is_remembered_for_a_rejoin(state_dir: Path) -> None:
    """A token from seated is kept in the state directory (private) and offered again."""
    app, _ = offline_app()
    async with app.run_test() as pilot:
        say(app, Seated(id=1, table_id=3, chair=2, token="tok-3"), Sit)
        await pilot.pause()
    stored = StateStore().seat(seat_key("example.org:7325", "Ann"))
    assert stored is not None and (stored.token, stored.table_id, stored.chair) == ("tok-3", 3, 2)
    assert (state_dir / "client.json").stat().st_mode & 0o077 == 0


async def test_a_game_opens_the_table_and_moves_go_to_the_server() -> None:
    """The first game update shows the table; s sends a move request with ``after``."""
    app, sent = offline_app()
    game = Game(7, seating="chosen")
    events = advance_to(game, 0)
    async with app.run_test() as pilot:
        say(app, Seated(id=1, table_id=3, chair=0, token="t"), Sit)
        say(app, Table(table=table_info(3, "T", ("Ann", "Bob", "Cy", "Di"), "playing", seats=(0, 1, 2, 3))))
        say(app, game_update(3, game, 0, events))
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert "Your turn: s draws from the stock" in screen_text(app)
        await pilot.press("s")
        request = sent.sent[-1]
        assert isinstance(request, MoveRequest)
        assert move_from_wire(request.move) == DrawStock() and request.after == len(game.moves)
        await pilot.press("s")  # a second press before the answer sends nothing more
        assert len(sent.sent) == 1
        say(app, Error(id=request.id, code="stale", text="Someone moved first: look again."), MoveRequest)
        await pilot.pause()
        assert app.table_screen is not None
        assert "Refused: Someone moved first: look again." in app.table_screen.log_view.plain_text
        await pilot.press("s")
        assert len(sent.sent) == 2  # answered: the next move may go


def my_turn_with_its_clock(app: RummyApp) -> None:
    """Ann (seat 0) at table 3, her turn to draw, 42 seconds on her clock."""
    say(app, Table(table=table_info(3, "T", ("Ann", "Bob", "Cy", "Di"), "playing", seats=(0, 1, 2, 3))))
    game = Game(7, seating="chosen")
    advance_to(game, 0)
    say(app, game_update(3, game, 0))
    say(app, Clock(table_id=3, kind="turn", seat=0, remaining=42.0, paused=False))


async def test_the_turn_timer_shows_beside_the_player() -> None:
    app, _ = offline_app()
    async with app.run_test() as pilot:
        my_turn_with_its_clock(app)
        await pilot.pause()
        assert re.search(r"to draw\s+0:4[12]", screen_text(app))
        say(app, Clock(table_id=3, kind="off"))
        await pilot.pause()
        assert not re.search(r"to draw\s+0:", screen_text(app))


async def test_a_lost_connection_shows_a_banner() -> None:
    app, _ = offline_app()
    async with app.run_test() as pilot:
        banner = app.lobby.query_one(ConnectionBanner)
        app.post_message(ConnectionChanged("Connection to example.org:7325 lost. Reconnecting..."))
        await pilot.pause()
        assert banner.display and "lost. Reconnecting..." in screen_text(app)
        app.post_message(ConnectionChanged(""))
        await pilot.pause()
        assert not banner.display


async def test_a_chair_taken_in_the_same_instant_asks_again() -> None:
    """Two friends pick the same chair at once: the server seats the first, and the
    second, whose list had not caught up, is asked again with the chairs still free
    (seen in tmux: the second got "That chair is taken." and had to press s again; then,
    asked again before the list had caught up, was offered the taken chair)."""
    app, sent = offline_app()
    async with app.run_test(notifications=True) as pilot:
        say(app, Lobby(tables=[table_info(4, "Open", ("Bob", None, "Cy", None), creator=0)]))
        await pilot.pause()
        await pilot.press("s", "2")
        await pilot.pause()
        assert sent.last() == Sit(id=1, table_id=4, chair=1)
        # The refusal comes at once; the list says who sat there within half a second.
        say(app, Error(id=1, code="chair-taken", text="That chair is taken."), Sit)
        await eventually(lambda: isinstance(app.screen, ChooseScreen), pause=pilot.pause)
        # (Drawn a frame after it is pushed: asked at once, on a busy machine the screen was blank.)
        took = "Someone took that chair just before you"
        await eventually(lambda: took in screen_text(app), pause=pilot.pause)
        assert [label for label, _ in app.screen.options] == ["Chair 4"]  # type: ignore[attr-defined]
        assert "That chair is taken." not in toast_text(app)
        await pilot.press("4")
        await pilot.pause()
        assert sent.last() == Sit(id=2, table_id=4, chair=3)
        say(app, LobbyTable(table=table_info(4, "Open", ("Bob", "Eve", "Cy", "Fay"), creator=0)))
        say(app, Error(id=2, code="chair-taken", text="That chair is taken."), Sit)
        await eventually(lambda: "That table is full: w watches it." in toast_text(app), pause=pilot.pause)
        assert not isinstance(app.screen, ChooseScreen)


@pytest.mark.parametrize("phase", ["deal_over", "game_over"])
async def test_leaving_just_as_a_deal_ends_keeps_the_client_running(phase: str) -> None:
    """The deal (or the game) ends and, in the same moment, the player's leaving is
    answered: the table screen went while its worker was opening the deal's end, the
    worker was cancelled in the middle of the app's own work, and the app stopped
    without a word (found by telling the app a recorded game out of order)."""
    app, _ = offline_app()
    game = Game(7, seating="draw")
    bot = make_bot("random", random.Random(2))
    play_until(game, lambda g: bot.choose(view_for(g, g.current)), lambda g: g.phase == phase)
    seat = game.partner_draw.seat_of_chair[0]
    async with app.run_test(size=(100, 32)) as pilot:
        say(app, Lobby(tables=[]))
        await pilot.pause()
        say(app, game_update(3, game, seat))
        for _ in range(3):  # the deal's end is being opened...
            await asyncio.sleep(0)
        say(app, Ok(id=2), Leave)  # ...as the leaving is answered
        await eventually(lambda: isinstance(app.screen, LobbyScreen), pause=pilot.pause)
        await pilot.pause()
        assert app.is_running


async def test_errors_are_sentences() -> None:
    app, _ = offline_app()
    async with app.run_test(notifications=True) as pilot:
        say(app, Error(id=3, code="chair-taken", text="That chair is taken."), Sit)
        await pilot.pause()
        assert "That chair is taken." in screen_text(app)
        assert "Traceback" not in screen_text(app)


async def test_a_small_terminal_gets_a_clear_message() -> None:
    """Under 80x24 the client says so; at 80x24 it works."""
    app, _ = offline_app()
    async with app.run_test(size=(70, 20)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        words = " ".join(re.sub("[█▀▄│]", " ", screen_text(app)).split())
        assert "This terminal is 70x20. Persian Rummy needs at least 80x24" in words
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)


async def test_the_small_terminal_message_fits_a_narrow_terminal() -> None:
    """A phone's browser or a narrow window: the message itself was 60 wide and cut
    off at the right edge ("Persian Rummy needs" and no more at 46 columns)."""
    app, _ = offline_app()
    async with app.run_test(size=(46, 29)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        words = " ".join(re.sub("[█▀▄│]", " ", screen_text(app)).split())
        assert "needs at least 80x24" in words
        assert "smaller" in words  # how to get there where the window cannot grow


async def test_quit_from_the_lobby_does_not_ask() -> None:
    app, _ = offline_app()
    async with app.run_test() as pilot:
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


def test_a_bug_ends_with_a_sentence_and_the_traceback_in_a_file(
    state_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Errors are sentences: an unexpected exception leaves a short message on the
    terminal and the traceback in the state directory (as rummy-client runs the app)."""
    app, _ = offline_app()

    async def crash(pilot) -> None:  # type: ignore[no-untyped-def]
        app.call_later(lambda: 1 / 0)
        await pilot.pause()

    code = run(app, state_dir, headless=True, auto_pilot=crash)
    said = "".join(capsys.readouterr().err.split())
    log = state_dir / "client-error.log"
    expected = f"rummy-client stopped on an unexpected error (ZeroDivisionError). The details are in {log}."
    assert code != 0
    assert said == "".join(expected.split())
    assert "Traceback" not in said
    assert "ZeroDivisionError: division by zero" in log.read_text()


async def test_a_player_who_dropped_shows_as_away() -> None:
    """R9.1: everyone sees who is away."""
    app, _ = offline_app()
    async with app.run_test() as pilot:
        info = table_info(3, "T", ("Ann", "Bob", "Cy", "Di"), "playing", seats=(0, 1, 2, 3))
        info.chairs[1].present = False
        say(app, Table(table=info))
        say(app, game_update(3, Game(7, seating="chosen"), 0))
        await pilot.pause()
        assert app.table_screen is not None
        panels = app.table_screen.board.seats
        west = " ".join(line.plain for line in panels["west"].lines(30, 4))
        assert "Bob" in west and "away" in west and panels["west"].has_class("-away")
        assert "away" not in " ".join(line.plain for line in panels["north"].lines(80, 1))
        game = Game(7, seating="chosen")  # on to Bob's turn: the line above the hand says he is away
        while game.current != 1:
            game.apply(DrawStock())
            game.apply(Discard(game.hands[game.current][0]))
        say(app, game_update(3, game, 0))
        await pilot.pause()
        assert "Waiting for Bob, who is away (to draw)." in screen_text(app)
    app, _ = offline_app(player_name="Eve")  # and as a spectator sees it
    async with app.run_test() as pilot:
        say(app, Watching(id=1, table_id=3), Watch)
        say(app, Table(table=info))
        say(app, game_update(3, game, None))
        await pilot.pause()
        assert "You are watching: Bob, who is away, is to draw." in screen_text(app)


async def test_chat_at_a_waiting_table_from_the_lobby() -> None:
    app, sent = offline_app()
    async with app.run_test() as pilot:
        await pilot.press("c")  # no table yet: nothing to chat with
        assert not app.lobby.query_one("#lobby-chat-input").has_focus
        say(app, Seated(id=1, table_id=7, chair=0, token="t"), CreateTable)
        say(app, Table(table=table_info(7, "Mine", ("Ann", None, None, None))))
        say(app, ChatLine(table_id=7, by="player", chair=1, name="Bob", text="[i]hello[/i]", time=0))
        await pilot.pause()
        assert "Bob: [i]hello[/i]" in screen_text(app)
        await pilot.press("c", *"hi bob", "enter")
        request = sent.sent[-1]
        assert isinstance(request, Chat) and request.text == "hi bob"


async def test_watch_a_table_then_go_back_to_the_lobby() -> None:
    """A spectator gets the spectator's view (no hand, R9.2); b, on the line of keys, leaves the table."""
    app, sent = offline_app()
    async with app.run_test() as pilot:
        playing = table_info(
            5, "Busy", ("Bob", "Cy", "Di", "Eve"), "playing", creator=None, seats=(0, 1, 2, 3)
        )
        say(app, Lobby(tables=[playing]))
        await pilot.pause()
        await pilot.press("enter")  # a playing table: enter watches it
        assert isinstance(sent.last(), Watch)
        say(app, Watching(id=1, table_id=5), Watch)
        say(app, Table(table=playing))
        say(app, game_update(5, Game(7, seating="chosen"), None))
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        text = screen_text(app)
        assert "You are watching: " in text and "(the players' hands stay hidden, R9.2)" in text
        assert "b Lobby" in text.splitlines()[-1]  # the way back is on the line of keys
        await pilot.press("b")  # a spectator leaves without being asked
        assert isinstance(sent.last(), Leave)
        say(app, Ok(id=2), Leave)
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)


async def test_sitting_elsewhere_while_a_chair_is_held_asks_first() -> None:
    """Seen in tmux: Vic left his game (his chair held) and created another table; the
    client keeps one seat token per server and name, so the first table listed "Vic
    (away)" and waited for a chair Vic could no longer take back, and nothing had said
    so. A new table, or a chair elsewhere, now asks first; "stay" keeps the token."""
    app, sent = offline_app()
    names = ("Ann", "Bot 2", "Bot 3", "Bot 4")
    async with app.run_test(size=(80, 24)) as pilot:
        say(app, Seated(id=1, table_id=7, chair=0, token="secret-7"), CreateTable)
        mine = table_info(7, "Mine", names, "playing", bots=(1, 2, 3), seats=(0, 1, 2, 3))
        other = table_info(8, "Other", ("Bob", None, None, None))
        say(app, Lobby(tables=[mine, other]))
        say(app, Table(table=mine))
        say(app, game_update(7, Game(7, seating="chosen"), 0))
        await pilot.pause()
        await pilot.press("b", "y")
        leave = sent.last()
        assert isinstance(leave, Leave)
        say(app, Ok(id=leave.id), Leave)
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen) and app.session.held == 7
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question.startswith("Your chair at table 7 (Mine) is held for you")
        await pilot.press("n")  # stay
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen) and app.session.held == 7
        await pilot.press("down", "s")  # a chair at table 8
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await eventually(lambda: isinstance(app.screen, ChooseScreen), pause=pilot.pause)  # which chair
        await pilot.press("enter")
        await eventually(lambda: isinstance(sent.last(), Sit), pause=pilot.pause)
        assert StateStore().seat(seat_key("example.org:7325", "Ann")) is not None  # kept till seated


@pytest.mark.parametrize(
    ("on_drop", "said"),
    [("wait", "after 2 minutes away a bot plays it until you come back."), ("bot", "; a bot plays it until")],
)
async def test_leaving_mid_game_says_a_bot_plays_the_held_chair(on_drop: str, said: str) -> None:
    """Seen in tmux: the question said only "Your chair is held for you (away)", while
    the lobby's line of the table's options (on_drop) said "a bot plays for a player
    away 2 min": one leaving was not told a bot would play their chair."""
    app, _ = offline_app()
    names = ("Ann", "Bob", "Cy", "Di")
    async with app.run_test() as pilot:
        say(app, Seated(id=1, table_id=7, chair=0, token="secret-7"), CreateTable)
        options = TableOptions(on_drop=on_drop)  # type: ignore[arg-type]
        mine = table_info(7, "Mine", names, "playing", seats=(0, 1, 2, 3), options=options)
        say(app, Lobby(tables=[mine]))
        say(app, Table(table=mine))
        say(app, game_update(7, Game(7, seating="chosen"), 0))
        await pilot.pause()
        await pilot.press("b")
        await eventually(lambda: isinstance(app.screen, ConfirmScreen), pause=pilot.pause)
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question.startswith("Leave the table? Your chair is held for you (away)")
        assert said in app.screen.question


async def test_a_player_who_leaves_mid_game_takes_the_held_chair_back_from_the_lobby() -> None:
    """b during a game goes to the lobby with the chair held (away), as the question
    says: the seat token is kept, the lobby says the chair is held, and s on that table
    takes it back with the token (before, the token was forgotten and s said the table
    was playing: the chair could not be had again)."""
    app, sent = offline_app()
    names = ("Ann", "Bot 2", "Bot 3", "Bot 4")
    async with app.run_test() as pilot:
        say(app, Seated(id=1, table_id=7, chair=0, token="secret-7"), CreateTable)
        mine = table_info(7, "Mine", names, "playing", bots=(1, 2, 3), seats=(0, 1, 2, 3))
        say(app, Lobby(tables=[mine]))
        say(app, Table(table=mine))
        say(app, game_update(7, Game(7, seating="chosen"), 0))
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        await pilot.press("b")
        assert isinstance(app.screen, ConfirmScreen) and "held for you" in screen_text(app)
        await pilot.press("y")
        leave = sent.last()
        assert isinstance(leave, Leave)
        say(app, Ok(id=leave.id), Leave)
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)
        assert StateStore().seat(seat_key("example.org:7325", "Ann")) is not None  # kept
        text = " ".join(line.strip(" │") for line in screen_text(app).splitlines())
        assert "Your chair here is held for you: s (or enter) takes it back." in text
        await pilot.press("s")
        rejoin = sent.last()
        assert isinstance(rejoin, Rejoin) and rejoin.token == "secret-7"
        say(app, Seated(id=rejoin.id, table_id=7, chair=0, token="secret-7"), Rejoin)
        say(app, Table(table=mine))
        say(app, game_update(7, Game(7, seating="chosen"), 0))
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and app.session.held is None


async def test_a_new_table_while_a_chair_is_held_asks_before_giving_that_chair_up() -> None:
    """The client keeps one seat token at a server. Before, n in the lobby after b
    mid-game created a table at once: its token replaced the held chair's, which could
    never be had again, its game waiting for that player at each turn. Now it asks;
    keeping the chair sends nothing and keeps the token."""
    app, sent = offline_app()
    names = ("Ann", "Bob", "Bot 3", "Bot 4")
    async with app.run_test() as pilot:
        say(app, Seated(id=1, table_id=7, chair=0, token="secret-7"), CreateTable)
        mine = table_info(7, "Mine", names, "playing", bots=(2, 3), seats=(0, 1, 2, 3))
        say(app, Lobby(tables=[mine]))
        say(app, Table(table=mine))
        say(app, game_update(7, Game(7, seating="chosen"), 0))
        await pilot.pause()
        await pilot.press("b", "y")
        leave = sent.last()
        say(app, Ok(id=leave.id), Leave)
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen) and app.session.held == 7
        await pilot.press("n")
        assert isinstance(app.screen, ConfirmScreen)
        assert "Your chair at table 7 (Mine) is held for you" in screen_text(app)
        await pilot.press("n")  # keep it
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen) and sent.last() is leave
        assert StateStore().seat(seat_key("example.org:7325", "Ann")) is not None
        await pilot.press("n", "y")  # give it up: the new table's dialog
        await pilot.pause()
        assert isinstance(app.screen, NewTableScreen)


def story(game: Game, autos: dict[int, str] | None = None) -> list[PastMove]:
    """The deal so far as the server tells it on joining: each move's events."""
    replay = Game(game.seed, game.seating)
    steps = [PastMove(events=[event_to_wire(e) for e in replay.opening_events])]
    for n, move in enumerate(game.moves):
        auto = (autos or {}).get(n)
        steps.append(PastMove(events=[event_to_wire(e) for e in replay.apply(move)], auto=auto))  # type: ignore[arg-type]
    return steps


async def test_back_at_the_table_the_log_tells_the_deal_so_far() -> None:
    """A rejoin (or a restart) shows every event of the deal so far in the log, the
    server's moves for the player marked, and the last turn marked on the table."""
    app, _ = offline_app()
    game = Game(7, seating="chosen")
    advance_to(game, 0)
    async with app.run_test() as pilot:
        say(app, Welcome(id=1, version=1, name="Ann", server="s", max_frame=1, table_id=3, chair=0))
        say(app, Table(table=table_info(3, "T", ("Ann", "Bob", "Cy", "Di"), "playing", seats=(0, 1, 2, 3))))
        update = game_update(3, game, 0, [])
        update.history = story(game, autos={1: "stand_in"})  # East's discard, played for Di
        say(app, update)
        await pilot.pause()
        assert app.table_screen is not None
        log = app.table_screen.log_view.plain_text
        assert log.startswith("Draw for the first dealer:")
        assert "Deal 1 of 2 begins." in log
        assert "Di drew from the stock, discarded" in log
        assert "(played by a bot while Di is away)" in log
        assert log.endswith("You are back at your seat: the deal so far is above.")
        assert app.table_screen.recent.seat == 3  # Di's turn, marked on the table


async def test_a_turn_the_timer_finished_says_so() -> None:
    app, _ = offline_app()
    game = Game(7, seating="chosen")
    async with app.run_test() as pilot:
        say(app, Table(table=table_info(3, "T", ("Ann", "Bob", "Cy", "Di"), "playing", seats=(0, 1, 2, 3))))
        say(app, game_update(3, game, 0))
        events = game.apply(DrawStock())
        update = game_update(3, game, 0, events)
        update.auto = "timer"
        say(app, update)
        await pilot.pause()
        assert app.table_screen is not None
        assert (
            "Di drew from the stock (time ran out: the server played this)."
            in app.table_screen.log_view.plain_text
        )


async def test_the_turn_clock_is_not_called_paused_while_the_connection_is_down() -> None:
    """Offline, the client cannot read the server's clock, which runs on (it stops only
    when nobody at the table is present): it says so, and claims no pause the server
    did not send. Back online, the server's clock shows again."""
    app, _ = offline_app()
    async with app.run_test() as pilot:
        my_turn_with_its_clock(app)
        await pilot.pause()
        assert app.table_screen is not None and app.table_screen.ticking
        app.post_message(ConnectionChanged("Connection to example.org:7325 lost. Reconnecting..."))
        await pilot.pause()
        shown = screen_text(app)
        assert re.search(r"to draw\s+-:-- offline", shown) and "paused" not in shown
        assert not app.table_screen.ticking
        app.post_message(ConnectionChanged(""))
        say(app, Clock(table_id=3, kind="turn", seat=0, remaining=30.0, paused=False))  # sent on rejoining
        await pilot.pause()
        assert re.search(r"to draw\s+0:(30|29)\b", screen_text(app)) and app.table_screen.ticking


async def test_the_chat_says_what_it_is_for_once_seated() -> None:
    app, _ = offline_app()
    async with app.run_test() as pilot:
        assert "Sit at or watch a table to chat" in screen_text(app)
        say(app, Seated(id=1, table_id=7, chair=0, token="t"), CreateTable)
        say(app, Table(table=table_info(7, "Mine", ("Ann", None, None, None))))
        await pilot.pause()
        text = screen_text(app)
        assert "Sit at or watch a table to chat" not in text and "Chat with the people at your table" in text


async def test_at_80_columns_the_keys_keep_help_and_quit_in_view() -> None:
    """The footer never cuts off q Quit (nor ? Help), in the lobby or at the table."""
    app, _ = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        say(app, Seated(id=1, table_id=7, chair=0, token="t"), CreateTable)
        say(app, Table(table=table_info(7, "Mine", ("Ann", None, None, None), creator=0)))
        await pilot.pause()
        last = screen_text(app).splitlines()[-1]
        assert "? Help" in last and "q Quit" in last and "b Add bot" in last
        say(
            app, Table(table=table_info(7, "Mine", ("Ann", "Bob", "Cy", "Di"), "playing", seats=(0, 1, 2, 3)))
        )
        game = Game(7, seating="chosen")
        advance_to(game, 0)
        say(app, game_update(7, game, 0))
        await pilot.pause()
        last = screen_text(app).splitlines()[-1]
        assert "s Draw" in last and "? Help" in last and "q Quit" in last


async def test_how_to_play_is_offered_once_in_the_first_game_against_bots(state_dir: Path) -> None:
    for first in (True, False):
        app = RummyApp(player_name="Ann", local=True, connect=False)
        async with app.run_test() as pilot:
            say(app, Seated(id=1, table_id=1, chair=0, token="t"), CreateTable)
            say(
                app,
                Table(
                    table=table_info(
                        1, "Game against bots", ("Ann", "A", "B", "C"), "playing", seats=(0, 1, 2, 3)
                    )
                ),
            )
            say(app, game_update(1, Game(7, seating="chosen"), 0))
            await pilot.pause()
            await pilot.pause()
            if first:
                assert isinstance(app.screen, ConfirmScreen) and "New to Persian Rummy?" in screen_text(app)
                await pilot.press("y")
                await pilot.pause()
                assert isinstance(app.screen, HelpScreen) and "How to play, in two minutes" in screen_text(
                    app
                )
                # Its first page lists the table's keys, as ? opens it (it showed a bare title).
                await pilot.press("1")
                await pilot.pause()
                keys = screen_text(app)
                assert "draw from the stock" in keys and "meld the selected cards" in keys
            else:
                assert isinstance(app.screen, TableScreen)


def test_the_bots_option_of_the_local_game() -> None:
    """``--bots hard`` seats three hard bots; three levels give one per chair; other
    words, or --bots with a server's address, are refused with a clear error."""
    from rummy.client.cli import bot_levels, main

    assert bot_levels("hard") == ("hard", "hard", "hard")
    assert bot_levels("Easy, normal,hard") == ("easy", "normal", "hard")
    for bad in ("godlike", "easy,hard", "easy,easy,easy,easy"):
        with pytest.raises(argparse.ArgumentTypeError):
            bot_levels(bad)
    with pytest.raises(SystemExit) as info:
        main(["example.org:7325", "--bots", "hard"])
    assert info.value.code == 2


async def test_a_hand_sorted_by_rank_comes_sorted_by_rank_in_later_games(state_dir: Path) -> None:
    """o sorts the hand by rank: the next game's hand, and the next start's, come in
    that order too (they came by suit again, and o had to be pressed each time)."""
    from rummy.client.widgets.table.hand import sort_cards

    def table_of(table_id: int) -> Table:
        return Table(
            table=table_info(table_id, "T", ("Ann", "Bob", "Cy", "Di"), "playing", seats=(0, 1, 2, 3))
        )

    first, _ = offline_app()
    async with first.run_test(size=(100, 32)) as pilot:
        say(first, Seated(id=1, table_id=3, chair=0, token="t"), Sit)
        say(first, table_of(3))
        say(first, game_update(3, Game(7, seating="chosen"), 0))
        await eventually(
            lambda: isinstance(first.screen, TableScreen) and bool(first.screen.hand.order), pause=pilot.pause
        )
        await pilot.press("o")  # by rank
        await pilot.pause()
    again, _ = offline_app()
    game = Game(8, seating="chosen")  # another game: no order of the player's to keep
    async with again.run_test(size=(100, 32)) as pilot:
        say(again, Seated(id=1, table_id=4, chair=0, token="u"), Sit)
        say(again, table_of(4))
        say(again, game_update(4, game, 0))
        await eventually(
            lambda: isinstance(again.screen, TableScreen) and bool(again.screen.hand.order), pause=pilot.pause
        )
        screen = again.screen
        assert isinstance(screen, TableScreen)
        assert list(screen.hand.order) == sort_cards(game.hands[0], "rank")
        assert list(screen.hand.order) != sort_cards(game.hands[0], "suit")


async def test_hints_turned_off_stay_off_at_the_next_start(state_dir: Path) -> None:
    """h turns the hints on, h again off: the next start keeps what the player chose
    last (a player who had turned them off found them on again), on and off alike."""

    async def start(table_id: int, press: str = "") -> bool:
        app, _ = offline_app()
        async with app.run_test(size=(100, 32)) as pilot:
            say(app, Seated(id=1, table_id=table_id, chair=0, token="t"), Sit)
            say(
                app,
                Table(
                    table=table_info(table_id, "T", ("Ann", "Bob", "Cy", "Di"), "playing", seats=(0, 1, 2, 3))
                ),
            )
            game = Game(7, seating="chosen")
            advance_to(game, 0)  # h works in one's own turn
            say(app, game_update(table_id, game, 0))
            await eventually(
                lambda: isinstance(app.screen, TableScreen) and app.screen.view is not None, pause=pilot.pause
            )
            screen = app.screen
            assert isinstance(screen, TableScreen)
            shown = screen.show_hints
            assert ("h Hide hints" in screen_text(app)) == shown  # the key says it too
            if press:
                await pilot.press(*press)
                await pilot.pause()
            return shown

    assert not await start(3, "h")  # off at first; on
    assert await start(4, "h")  # on, as left; off
    assert not await start(5)  # off, as left
    assert StateStore(state_dir).hints is False


async def test_the_theme_chosen_in_the_palette_is_kept_for_the_next_start(state_dir: Path) -> None:
    """ctrl+p, Theme, a light one for a light terminal: the next start has it too (it
    went back to the dark default each time); a theme no longer there is let be."""
    app, _ = offline_app()
    async with app.run_test() as pilot:
        say(app, Lobby(tables=[]))
        await pilot.press("ctrl+p", *"theme")
        await eventually(lambda: "Change the current theme" in screen_text(app), pause=pilot.pause)
        await pilot.press("enter", *"solarized-light")
        await eventually(lambda: "solarized-light" in screen_text(app), pause=pilot.pause)
        await pilot.press("enter")
        await eventually(lambda: app.theme == "solarized-light", pause=pilot.pause)
        await pilot.pause()
    again, _ = offline_app()
    async with again.run_test() as pilot:
        await pilot.pause()
        assert again.theme == "solarized-light"
    store = StateStore()
    store.theme = "gone-theme"  # say, from a newer version
    later, _ = offline_app()
    async with later.run_test() as pilot:
        await pilot.pause()
        assert later.theme == "textual-dark"  # Textual's default


async def test_the_theme_option_chooses_the_colours_also_in_ascii(
    monkeypatch: pytest.MonkeyPatch, state_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--theme NAME sets the colours and is remembered, as ctrl+p's choice is: with
    --ascii there is no palette, so a player on a light ASCII terminal had no way to
    any theme but the dark default. A name that is no theme is refused, listing them."""
    from rummy.client import cli
    from rummy.client.cli import main

    started: list[RummyApp] = []

    def run(app: RummyApp, directory: Path) -> int:
        started.append(app)
        return 0

    monkeypatch.setattr(cli, "run", run)
    main(["--replay", str(RECORD), "--ascii", "--theme", "textual-light"])
    (app,) = started
    assert StateStore().theme == "textual-light"
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.theme == "textual-light" and app.ascii
    with pytest.raises(SystemExit) as info:
        main(["--replay", str(RECORD), "--theme", "pink"])
    assert info.value.code == 2
    said = capsys.readouterr().err
    assert "no theme 'pink'" in said and "textual-light" in said and "solarized-dark" in said
    assert StateStore().theme == "textual-light"


async def test_a_finished_saved_game_says_another_has_the_same_bots() -> None:
    """Back at a game against bots that is over (its end on the screen) with --bots
    asking for others: another game (a) would have the same bots, and --new has the
    bots asked for; it does not say the finished game "goes on"."""
    app = RummyApp(
        player_name="Ann", local=True, connect=False, bot_levels=("hard", "hard", "hard"), bots_asked=True
    )
    names = ("Ann", "Dara", "Mina", "Kian")
    levels = {1: "normal", 2: "normal", 3: "normal"}
    info = table_info(1, "Game against bots", names, "finished", bots=(1, 2, 3), levels=levels)
    async with app.run_test(size=(100, 32), notifications=True) as pilot:
        say(app, Table(table=info))
        await eventually(lambda: "Your saved game" in screen_text(app), pause=pilot.pause)
        assert "It keeps its normal bots: the log says how to change it." in toast_text(app)
        say(app, game_update(1, Game(7, seating="chosen"), 0))  # its game: the log says it whole
        await eventually(lambda: app.table_screen is not None, pause=pilot.pause)
        assert app.table_screen is not None
        await eventually(lambda: "rummy-client" in app.table_screen.log_view.plain_text, pause=pilot.pause)
        notice = " ".join(app.table_screen.log_view.plain_text.split())
        assert "This game is over, and another one (a) has the same normal bots." in notice
        assert "rummy-client --new --bots hard" in notice
        assert "goes on" not in notice


RECORD = Path(__file__).parents[1] / "fixtures" / "records" / "engine1-server-drawn-partners.json"


class NoLock:
    """A seat lock always had, holding no file."""

    def __init__(self, *_args: object) -> None:
        pass

    def acquire(self) -> bool:
        return True


def test_the_bot_delay_option_sets_the_local_games_pace(
    monkeypatch: pytest.MonkeyPatch, state_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--bot-delay 0.2`` reaches the local game's server as its bots' pause; left out,
    the server keeps its own (0.8 s); with a server's address, or out of range, it is
    refused with a clear error."""
    from rummy.client import cli, local
    from rummy.client.cli import bot_delay, main

    asked: list[dict[str, object] | None] = []

    class Started(Exception):
        pass

    def fork(db_path: Path | None, options: dict[str, object] | None = None) -> None:
        asked.append(options)
        raise Started  # the server would start here: enough is known

    monkeypatch.setattr(local, "fork", fork)
    monkeypatch.setattr(cli, "pause_collector", lambda: None)  # the app would set it going again
    monkeypatch.setattr(cli, "SeatLock", NoLock)  # the app would let go of it as it ends
    for argv, expected in ((["--bot-delay", "0.2"], {"bot_delay": 0.2}), ([], {})):
        with pytest.raises(Started):
            main(["--name", "Ann", *argv])
        assert asked.pop() == expected
    assert bot_delay("0") == 0.0
    for bad in ("soon", "-1", "6", "nan"):
        with pytest.raises(argparse.ArgumentTypeError):
            bot_delay(bad)
    with pytest.raises(SystemExit) as info:
        main(["example.org:7325", "--bot-delay", "0"])
    assert info.value.code == 2
    for local_only in (["--bot-delay", "0"], ["--bots", "hard"], ["--new"]):  # nothing to pace in a file
        with pytest.raises(SystemExit) as info:
            main(["--replay", str(RECORD), *local_only])
        assert info.value.code == 2
        assert "for the game against bots, not a replay" in capsys.readouterr().err


class Cycle:
    """Garbage only the collector frees: it refers to itself."""

    def __init__(self) -> None:
        self.me = self


async def test_the_garbage_is_collected_as_the_table_comes_up_before_it_is_drawn() -> None:
    """What the lobby left for the collector's oldest generation, which it walks only
    now and then, is freed as the table comes up: the table's first frames are drawn
    in that memory instead of growing the client's heap (docs/PERFORMANCE.md)."""
    app, _ = offline_app()
    game = Game(7, seating="chosen")
    events = advance_to(game, 0)
    info = table_info(3, "T", ("Ann", "Bob", "Cy", "Di"), "playing", seats=(0, 1, 2, 3))
    async with app.run_test() as pilot:
        say(app, Lobby(tables=[info]))
        await pilot.pause()
        left = Cycle()
        gone = weakref.ref(left)
        gc.collect()  # it lives through a full collection: in the oldest generation now
        del left
        gc.disable()  # no collection but the app's own from here
        try:
            say(app, Seated(id=1, table_id=3, chair=0, token="t"), Sit)
            say(app, Table(table=info))
            assert gone() is not None
            say(app, game_update(3, game, 0, events))
            await pilot.pause()
            assert isinstance(app.screen, TableScreen)
            assert gone() is None
        finally:
            gc.enable()


async def test_the_collector_is_on_again_as_the_app_mounts_and_the_start_stays_frozen() -> None:
    """The client starts with the garbage collector paused (cli.pause_collector). As the
    app mounts it freezes what the start made and sets the collector going, before it
    draws: drawing makes garbage in cycles, and garbage left to pile up stayed in each
    SSH player's client as the heap's high-water mark (docs/PERFORMANCE.md)."""
    app, _ = offline_app()
    frozen = gc.get_freeze_count()
    pause_collector()
    try:
        async with app.run_test() as pilot:
            assert gc.isenabled()  # at once: the app has only just mounted
            assert gc.get_freeze_count() > frozen  # the start's objects, never walked again
            say(app, Lobby(tables=[table_info(1, "Friday", ("Bob", None, None, None))]))
            await pilot.pause()
            assert "Friday" in screen_text(app)
    finally:
        gc.unfreeze()  # the rest of the tests' objects back in the collector's reach
        gc.enable()


async def test_a_player_leaving_after_the_game_keeps_its_players_in_their_seats() -> None:
    """Seen in tmux: after the game a player left, and the table went back to waiting
    for four; its chairs then played no seat, and the finished game on the screen put
    each name in the seat of its chair's number (Ann's name on another player's
    melds). The game keeps its players; it says who left, and offers no other game."""
    app, sent = offline_app()
    game = Game(7, seating="draw")
    bot = make_bot("random", random.Random(2))
    play_until(game, lambda g: bot.choose(view_for(g, g.current)), lambda g: g.is_over)
    seat_of = tuple(game.partner_draw.seat_of_chair)
    names = ("Ann", "Bob", "Cy", "Di")
    assert seat_of != (0, 1, 2, 3)  # the draw moved people: chair numbers are not seats

    def names_by_seat() -> list[str]:
        screen = app.table_screen
        assert screen is not None
        return [screen.seats.name(seat) for seat in range(4)]

    played = [names[seat_of.index(seat)] for seat in range(4)]
    async with app.run_test(size=(100, 32), notifications=True) as pilot:
        say(app, Seated(id=1, table_id=3, chair=0, token="t"), Sit)
        finished = table_info(3, "T", names, "finished", seats=seat_of)
        for chair in finished.chairs[1:]:
            chair.ready = True  # the other three asked for another game
        say(app, Table(table=finished))
        say(app, game_update(3, game, seat_of[0]))
        await eventually(lambda: "Play again (a)" in screen_text(app), pause=pilot.pause)
        assert isinstance(app.screen, GameEndScreen) and names_by_seat() == played
        say(app, Table(table=table_info(3, "T", ("Ann", None, "Cy", "Di"), "waiting")))  # Bob left
        await eventually(lambda: "Bob left the table" in toast_text(app), pause=pilot.pause)
        assert names_by_seat() == played  # still the game's players, each in their own seat
        screen = app.table_screen
        assert screen is not None and not any(screen.seats.ready(seat) for seat in range(4))
        assert "Play again (a)" not in screen_text(app)
        assert "another game needs four players" in " ".join(screen_text(app).split())
        await pilot.press("escape")
        await eventually(lambda: not isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        assert "a player has left: b for the lobby" in screen_text(app)
        await pilot.press("a")  # no other game to ask for here
        await pilot.pause()
        assert not any(isinstance(m, PlayAgain) for m in sent.sent)
        say(app, Table(table=table_info(3, "T", ("Ann", "Eve", "Cy", "Di"), "waiting")))  # Eve sits
        await pilot.pause()
        assert names_by_seat() == played  # the finished game's, until the next one begins
        # A list of chairs of another length (another server's) does not end the client.
        short = table_info(3, "T", ("Ann", None, "Cy", "Di"), "finished")
        say(app, Table(table=short))
        say(app, Table(table=msgspec.structs.replace(short, status="waiting", chairs=short.chairs[:2])))
        await pilot.pause()
        assert app.is_running


@pytest.mark.parametrize("where", ["game end", "table"])
async def test_after_a_player_left_the_game_b_goes_to_the_lobby_keeping_the_chair(where: str) -> None:
    """Seen in tmux: after the game Di left; Ana, the creator, pressed b as the toast
    said ("b: the lobby") and left the table too: her creator's part went to Bob, still
    on the game's last screen, and the lobby said "Waiting for the creator to start" to
    everyone who sat again. b (at the table, or Lobby on the game's end) now goes to the
    lobby still seated, where the creator starts the next game; l there leaves."""
    app, sent = offline_app()
    game = Game(7, seating="chosen")
    bot = make_bot("random", random.Random(2))
    play_until(game, lambda g: bot.choose(view_for(g, g.current)), lambda g: g.is_over)
    async with app.run_test(size=(100, 32), notifications=True) as pilot:
        say(app, Seated(id=1, table_id=3, chair=0, token="t"), Sit)
        say(app, Table(table=table_info(3, "T", ("Ann", "Bob", "Cy", "Di"), "finished", seats=(0, 1, 2, 3))))
        say(app, game_update(3, game, 0))
        await eventually(lambda: isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        say(app, Table(table=table_info(3, "T", ("Ann", "Bob", "Cy", None), "waiting")))  # Di left
        await eventually(lambda: "Di left the table" in toast_text(app), pause=pilot.pause)
        if where == "table":
            await pilot.press("escape")
            await eventually(lambda: not isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        await pilot.press("b")
        await pilot.pause()
        assert not any(isinstance(m, Leave) for m in sent.sent)  # (it left the table)
        await eventually(lambda: isinstance(app.screen, LobbyScreen), pause=pilot.pause)
        assert app.session.table_id == 3 and app.session.chair == 0
        say(app, Table(table=table_info(3, "T", ("Ann", "Bob", "Cy", "Di"), "waiting")))  # Di is back
        await eventually(lambda: "g Start" in screen_text(app), pause=pilot.pause)
        await pilot.press("g")
        await eventually(lambda: isinstance(sent.last(), Start), pause=pilot.pause)


async def test_the_lobby_names_the_creator_one_waits_for() -> None:
    """Seen in tmux: after a game the creator's part moved to Bob, and the others, seated
    again, read "Waiting for the creator to start" without knowing who that now was."""
    app, _ = offline_app()
    async with app.run_test(size=(100, 32)) as pilot:
        say(app, Seated(id=1, table_id=3, chair=0, token="t"), Sit)
        say(app, Table(table=table_info(3, "T", ("Ann", "Bob", "Cy", None), "waiting", creator=1)))
        await eventually(lambda: "Your table" in screen_text(app), pause=pilot.pause)
        panel = " ".join(line.split("│")[0].strip() for line in screen_text(app).splitlines())
        assert "Waiting for Bob (the creator) to start." in panel


async def test_the_toasts_of_a_game_go_when_a_new_game_begins() -> None:
    """Asking for another game says so in a toast while the others have not asked; when
    the new game begins that toast (and any other of the old game) goes at once, rather
    than saying for its last seconds that the game starts when all four want one."""
    app, sent = offline_app()
    game = Game(7, seating="chosen")
    bot = make_bot("random", random.Random(2))
    play_until(game, lambda g: bot.choose(view_for(g, g.current)), lambda g: g.is_over)  # to its end
    async with app.run_test(size=(100, 32), notifications=True) as pilot:
        say(app, Seated(id=1, table_id=3, chair=0, token="t"), Sit)
        say(app, Table(table=table_info(3, "T", ("Ann", "Bob", "Cy", "Di"), "playing", seats=(0, 1, 2, 3))))
        say(app, game_update(3, game, 0))
        await eventually(lambda: isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        await pilot.press("a")
        request = sent.sent[-1]
        assert isinstance(request, PlayAgain)
        say(app, Ok(id=request.id), PlayAgain)
        await eventually(lambda: "Asked for another game" in screen_text(app), pause=pilot.pause)
        say(app, game_update(3, Game(8, seating="chosen"), 0))  # the other three asked too
        await eventually(lambda: screen_text(app).startswith(" Deal 1 of 2"), pause=pilot.pause)
        assert "Asked for another game" not in screen_text(app)


@pytest.mark.parametrize(
    ("on_drop", "said"),
    [
        ("wait", "a bot plays for a player away 2 min"),
        ("bot", "a bot plays for a player who drops"),
    ],
)
def test_the_lobby_says_what_a_table_does_when_a_player_drops(on_drop: str, said: str) -> None:
    """The chosen table's options in the lobby say what the server does (PROTOCOL.md,
    Dropping): a table that waits does so for 2 minutes, then a bot plays, as the
    new-table form says; the lobby said it waited, full stop."""
    from rummy.client.screens.lobby import options_words
    from rummy.protocol import TableInfo, TableOptions

    options = TableOptions(on_drop=on_drop)  # type: ignore[arg-type]
    info = TableInfo(
        table_id=1,
        name="Ann's",
        options=options,
        status="waiting",
        chairs=[],
        spectators=0,
        creator=0,
        games=0,
    )
    assert options_words(info).endswith(said)


def new_cards(app: RummyApp) -> list[int]:
    """The hand's cards marked "new" on the screen, left to right."""
    assert app.table_screen is not None
    hand = app.table_screen.hand
    return [card for card in hand.order if card in hand.fresh]


async def test_a_client_restarted_after_drawing_marks_the_card_drawn_new_again(state_dir: Path) -> None:
    """A client restarted mid-turn, after drawing from the stock, comes back with the
    card it drew marked new and the cursor on it, as before the restart. The deal's
    story does not say which card that was (R9.2): the client remembered it."""
    game = Game(7, seating="chosen")
    advance_to(game, 0)
    table = Table(table=table_info(3, "T", ("Ann", "Bob", "Cy", "Di"), "playing", seats=(0, 1, 2, 3)))
    app, _ = offline_app()
    async with app.run_test(size=(100, 32)) as pilot:
        say(app, Seated(id=1, table_id=3, chair=0, token="t"), Sit)
        say(app, table)
        say(app, game_update(3, game, 0, []))
        await pilot.pause()
        held = set(view_for(game, 0).hand or ())
        say(app, game_update(3, game, 0, game.apply(DrawStock())))
        (drawn,) = set(view_for(game, 0).hand or ()) - held
        await eventually(lambda: new_cards(app) == [drawn], pause=pilot.pause)
        await pilot.pause()  # (the hand remembered as it is now)
    again, _ = offline_app()  # the client restarted
    async with again.run_test(size=(100, 32)) as pilot:
        say(again, Welcome(id=1, version=1, name="Ann", server="s", max_frame=1, table_id=3, chair=0))
        say(again, table)
        update = game_update(3, game, 0, [])
        update.history = story(game)
        say(again, update)
        await eventually(
            lambda: again.table_screen is not None and again.table_screen.view is not None, pause=pilot.pause
        )
        await pilot.pause()
        assert new_cards(again) == [drawn]
        assert again.table_screen is not None and again.table_screen.hand.current_card == drawn
        assert "new" in screen_text(again)


async def test_a_client_restarted_after_taking_from_the_pile_marks_what_it_took_new() -> None:
    """The cards taken from the discard pile this turn are in the deal's story: a client
    coming back without any memory of its hand marks them new again."""
    game = Game(14, seating="chosen")  # South may take from the pile, keeping a card taken
    advance_to(game, 0)
    events = game.apply(next(m for m in game.legal_moves() if isinstance(m, TakeDiscard)))
    taken = [
        c
        for e in events
        if isinstance(e, DiscardTaken)
        for c in e.taken
        if c in (view_for(game, 0).hand or ())
    ]
    assert taken and game.phase == "meld"
    app, _ = offline_app()
    async with app.run_test(size=(100, 32)) as pilot:
        say(app, Welcome(id=1, version=1, name="Ann", server="s", max_frame=1, table_id=3, chair=0))
        say(app, Table(table=table_info(3, "T", ("Ann", "Bob", "Cy", "Di"), "playing", seats=(0, 1, 2, 3))))
        update = game_update(3, game, 0, [])
        update.history = story(game)
        say(app, update)
        await eventually(
            lambda: app.table_screen is not None and app.table_screen.view is not None, pause=pilot.pause
        )
        await pilot.pause()
        assert sorted(new_cards(app)) == sorted(taken)
        assert app.table_screen is not None and app.table_screen.hand.current_card in taken
