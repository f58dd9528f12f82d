"""Two players of the same name are told apart, the same way on every screen: the
first (by chair; by seat in a record) as "Ana", the next as "Ana (2)" (rummy.client.names)."""

from __future__ import annotations

import msgspec

from rummy.client.app import RummyApp
from rummy.client.names import distinct, watcher_names
from rummy.client.screens.replay import ReplayScreen
from rummy.client.screens.results import DealEndScreen
from rummy.engine import Game
from rummy.protocol import (
    ChatLine,
    CreateTable,
    Lobby,
    Seated,
    SpectatorInfo,
    Table,
    Watch,
    Watching,
    Welcome,
)
from rummy.protocol.record import opening
from tests.client.conftest import screen_text
from tests.client.fakes import game_update, offline_app, say, table_info
from tests.client.test_app import lobby_rows
from tests.client.test_replay import record
from tests.support import eventually


def test_a_name_again_is_numbered_and_never_another_players_own() -> None:
    assert distinct(["Ana", None, "Bob", "Ana"]) == ["Ana", None, "Bob", "Ana (2)"]
    assert distinct(["Ana", "Ana", "Ana (2)", "Ana"]) == ["Ana", "Ana (3)", "Ana (2)", "Ana (4)"]
    long = "Bartholomew Longname-Jo"  # 23 characters: the label keeps within 24, number whole
    assert distinct([long, long]) == [long, "Bartholomew Longname (2)"]


async def test_two_players_of_one_name_in_the_lobby_at_the_table_and_in_its_chat() -> None:
    """Two "Ana"s at one table read "Ana, Bob, Ana, Cy" in the list, and at the table
    and in the chat nobody could tell which Ana spoke or played."""
    app, _ = offline_app()
    names = ("Ana", "Bob", "Ana", "Cy")
    async with app.run_test(size=(80, 24)) as pilot:
        say(app, Lobby(tables=[table_info(1, "Ana's table", names, creator=0)]))
        await pilot.pause()
        # The list at 80 columns names the first two (the rest did not fit whole); the
        # panel below it names all four.
        assert "Ana, Bob +2" in lobby_rows(app)[0]
        assert "1 Ana, 2 Bob, 3 Ana (2), 4 Cy" in screen_text(app)
        # The second Ana sits (chair 3): her own table's panel names her as the list does.
        say(app, Seated(id=1, table_id=1, chair=2, token="t"), CreateTable)
        say(app, Table(table=table_info(1, "Ana's table", names, creator=0)))
        await pilot.pause()
        assert " 3: Ana (2) (you)" in screen_text(app)
        say(app, Welcome(id=2, version=1, name="Ana", server="s", max_frame=1, table_id=1, chair=2))
        playing = table_info(1, "Ana's table", names, "playing", creator=None, seats=(0, 1, 2, 3))
        say(app, Table(table=playing))
        say(app, game_update(1, Game(5, seating="chosen"), 2))
        say(app, ChatLine(table_id=1, by="player", chair=0, name="Ana", text="hi", time=0))
        say(app, ChatLine(table_id=1, by="player", chair=2, name="Ana", text="hello", time=0))
        await pilot.pause()
        text = screen_text(app)
        assert " Ana: hi" in text and " Ana (2): hello" in text
        assert "Ana (2)" in text.split("You, North")[1]  # her own seat's panel
        assert "Partner, South  N–S  Ana " in text  # the first Ana, across the table


async def test_two_players_of_one_name_in_a_replay_and_its_results() -> None:
    """A replay numbers them by chair, as the table did (not by seat, which the partner
    draw decides, R2.2): Ann in chair 1 plays East and is "Ann"; Ann in chair 2, West,
    is "Ann (2)", in the seats, the log and the deal's results."""
    rec = record()
    players = [msgspec.structs.replace(p, name="Ann") if p.seat == 1 else p for p in rec.players]
    rec = msgspec.structs.replace(rec, players=players)  # Ann in seats 1 and 3 (both E–W)
    assert opening(rec).partner_draw.seat_of_chair[:2] == (3, 1)  # chair 1 East, chair 2 West
    app = RummyApp(player_name="", replay=rec, replay_title="t")
    async with app.run_test(size=(100, 32)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        assert [screen.replay.seats.name(seat) for seat in range(4)] == ["Bot 3", "Ann (2)", "Bot 4", "Ann"]
        await pilot.press("right")
        assert "Ann (2) drew from the stock" in screen_text(app)
        await pilot.press("down")
        await eventually(lambda: isinstance(app.screen, DealEndScreen), pause=pilot.pause)
        text = screen_text(app)
        assert "West  Ann (2) " in text and "East  Ann " in text


def test_spectators_are_told_apart_by_their_numbers_and_never_take_a_players_name() -> None:
    players = table_info(1, "t", ("Ana", "Bob", None, None))
    watchers = [SpectatorInfo(spectator=7, name="Ana"), SpectatorInfo(spectator=3, name="Cy")]
    watchers.append(SpectatorInfo(spectator=9, name="Ana"))
    assert watcher_names(players, watchers) == {3: "Cy", 7: "Ana (2)", 9: "Ana (3)"}
    alone = table_info(1, "t", ("Bob", None, None, None))
    assert watcher_names(alone, watchers) == {3: "Cy", 7: "Ana", 9: "Ana (2)"}
    # The players keep their own names whoever watches.
    assert watcher_names(None, [SpectatorInfo(spectator=1, name="Ana (2)")]) == {1: "Ana (2)"}


async def test_two_spectators_of_one_name_in_the_list_of_watchers_and_in_the_chat() -> None:
    """Two people watching as "Ana" were one "Ana (watching)" in the chat, and the
    player Ana's lines differed from theirs only by that word. Each spectator is named
    by the number the table gave them: the first "Ana" watching is "Ana (2)" (the player
    is "Ana"), the next "Ana (3)", in the line of who watches and in the chat."""
    app, _ = offline_app(player_name="Eve")
    names = ("Ana", "Bob", "Cy", "Di")
    playing = table_info(1, "Ana's table", names, "playing", creator=None, seats=(0, 1, 2, 3))
    watchers = [SpectatorInfo(spectator=n, name=name) for n, name in ((1, "Ana"), (2, "Eve"), (4, "Ana"))]
    async with app.run_test(size=(140, 40)) as pilot:  # the line of watchers whole
        say(app, Watching(id=1, table_id=1, spectator=2), Watch)
        say(app, Table(table=playing, watchers=watchers))
        say(app, game_update(1, Game(5, seating="chosen"), None))
        say(
            app,
            ChatLine(table_id=1, by="spectator", chair=None, name="Ana", text="first", time=0, spectator=1),
        )
        say(
            app,
            ChatLine(table_id=1, by="spectator", chair=None, name="Ana", text="second", time=0, spectator=4),
        )
        say(app, ChatLine(table_id=1, by="player", chair=0, name="Ana", text="playing", time=0))
        await pilot.pause()
        text = screen_text(app)
        assert "Watching (3): Ana (2), Eve (you), Ana (3)" in text  # Eve is number 2
        assert " Ana (2) (watching): first" in text
        assert " Ana (3) (watching): second" in text
        assert " Ana: playing" in text
        # The second Ana leaves: the first keeps her name, here and in the chat.
        say(app, Table(table=playing, watchers=watchers[:2]))
        say(
            app,
            ChatLine(table_id=1, by="spectator", chair=None, name="Ana", text="still", time=0, spectator=1),
        )
        await pilot.pause()
        text = screen_text(app)
        watching = next(line for line in text.splitlines() if "Watching" in line)
        assert "Watching (2): Ana (2), Eve (you)" in watching and "Ana (3)" not in watching
        assert " Ana (2) (watching): still" in text
