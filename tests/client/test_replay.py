"""Watching a finished game again: the history list in the lobby, the replay screen
(one move on or back, deal ends, playing on at a speed, every hand shown, the same
log and deal-end breakdown), saving a game and ``rummy-client --replay FILE``, and
the running tally at the game's end."""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec
import pytest
from rich.cells import cell_len
from textual.pilot import Pilot
from textual.widgets import DataTable

from rummy.client import text
from rummy.client.app import RummyApp, replay_title
from rummy.client.cli import main as client_main
from rummy.client.messages import LeaveTable, OpenHistory, PlayAgainRequested, PlayMove, ReplayRequested
from rummy.client.replay import Replay
from rummy.client.screens.history import HistoryScreen, when_words
from rummy.client.screens.lobby import LobbyScreen
from rummy.client.screens.modals import NoticeScreen
from rummy.client.screens.replay import ReplayScreen
from rummy.client.screens.results import DealEndScreen, GameEndScreen
from rummy.client.screens.table import TableScreen
from rummy.client.state import StateStore, shell_path
from rummy.engine import SEAT_NAMES, DealResult, Game, NewMeld, TeamScore, card_text
from rummy.engine.positions import cards
from rummy.protocol import (
    Error,
    GameSummary,
    GetRecord,
    History,
    HistoryPage,
    Record,
    RecordPlayer,
    TallyLine,
    decode_record,
)
from rummy.protocol import errors as codes
from tests.client.conftest import screen_text
from tests.client.fakes import offline_app, say
from tests.client.harness import LobbyHarness, TableHarness
from tests.client.test_table import meld_position, panel
from tests.support import eventually

RECORDS = Path(__file__).parents[1] / "fixtures" / "records"
SERVER_GAME = RECORDS / "engine1-server-drawn-partners.json"
PASSES_GAME = RECORDS / "engine1-sim-ended-on-passes.json"
NOW = 1_764_582_000.0  # 2025-12-01 09:40 UTC: the screens' clock in these tests


def record(path: Path = SERVER_GAME):  # type: ignore[no-untyped-def]
    return decode_record(path.read_bytes())


def replay_app(path: Path = SERVER_GAME) -> RummyApp:
    """What ``rummy-client --replay FILE`` runs."""
    return RummyApp(player_name="", replay=record(path), replay_title=path.name)


# --- the replay itself --------------------------------------------------------------------


def test_a_replay_has_a_step_per_move_and_ends_with_the_recorded_scores() -> None:
    """R7, R8: the last step's view holds the recorded result of both deals; at every
    step the hands shown are the hands the counts say (R9.1), all four of them."""
    rec = record()
    replay = Replay(rec)
    assert len(replay.steps) == len(rec.moves) + 1
    final = replay.steps[-1].view
    assert rec.result is not None
    assert final.phase == "game_over" and final.totals() == rec.result.totals
    assert len(replay.deal_ends) == 2 and replay.deal_ends[-1] == replay.last
    for step in replay.steps:
        assert step.view.hand is None  # the public view: no seat's
        assert tuple(len(h) for h in step.hands) == step.view.hand_counts
    replay.go(0)
    assert replay.next_deal_end() and replay.position == replay.deal_ends[0]
    assert replay.steps[replay.position].view.phase == "deal_over"
    assert replay.next_deal_end() and replay.at_end
    assert not replay.next_deal_end()
    assert replay.previous_deal_end() and replay.position == replay.deal_ends[0]
    assert replay.previous_deal_end() and replay.position == 0
    assert replay.forward(3) and replay.position == 3 and replay.back() and replay.position == 2


def test_ones_own_game_is_watched_from_ones_own_chair() -> None:
    """The player who played it sits at the bottom, as in the game; a bot of that
    name, or two people of it, leave the replay a spectator's (South at the bottom)."""
    rec = record()  # Bot 3 South, Bob West, Bot 4 North, Ann East
    assert Replay(rec, me="Ann").seats.me == 3
    assert Replay(rec, me="Bob").seats.me == 1
    assert Replay(rec).seats.me is None
    assert Replay(rec, me="Bot 3").seats.me is None  # a bot is nobody watching
    assert Replay(rec, me="Cy").seats.me is None  # not at this table
    rec.players[1].name = "Ann"
    assert Replay(rec, me="Ann").seats.me is None  # which Ann? neither


async def test_a_player_watching_their_game_sees_their_own_hand_at_the_bottom() -> None:
    app = RummyApp(player_name="Ann", replay=record(), replay_title=SERVER_GAME.name)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        lines = screen_text(app).splitlines()
        assert "E–W (you) 0" in lines[1]  # Ann is East: her team is "you"
        bottom = lines[-12:]
        assert any("You, East" in line for line in bottom)
        ann = [card_text(card) for card in screen.replay.step.hands[3]]
        assert any(all(card in line for card in ann) for line in bottom)  # her hand, face up
        await pilot.press("right")
        assert "Bob drew from the stock" in screen_text(app)  # the others are named as in the game


async def test_the_hand_at_the_bottom_of_a_replay_shows_no_card_keys() -> None:
    """The bottom hand's cards bore 1..7 in their edges, as at a live table, but in a
    replay those keys pick nothing and did nothing: the cards carry no number there."""
    app = replay_app()
    async with app.run_test(size=(100, 32)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        drawn = screen.board.hand.render().plain.splitlines()
        edges = [line for line in drawn if "╰" in line]  # the cards' bottom edges
        assert edges and not any(ch.isdigit() for line in edges for ch in line)
        assert not any(face.label for face in screen.board.hand.faces())
        await pilot.press("1")
        assert screen.replay.position == 0


async def test_an_empty_hand_at_the_bottom_of_a_replay_says_no_cards() -> None:
    """Seen in a replay at the end of a deal one had gone out of: the bottom said "(the
    players' hands stay hidden, R9.2)", a spectator's words, where a replay shows every
    hand face up; an empty hand there has no cards, as the side panels say."""
    for me in ("Ann", ""):  # one's own chair, and a spectator's (South)
        app = RummyApp(player_name=me, replay=record(), replay_title=SERVER_GAME.name)
        async with app.run_test(size=(100, 32)) as pilot:
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            bottom = screen.replay.seats.me if me else 0
            empty = next(n for n, step in enumerate(screen.replay.steps) if n and not step.hands[bottom])
            screen.action_go(empty)
            await pilot.pause()
            text = screen_text(app)
            assert "(no cards in hand)" in text and "R9.2" not in text


@pytest.mark.parametrize("size", [(80, 24), (100, 32)])
async def test_a_side_players_name_shows_whole_before_its_tags(size: tuple[int, int]) -> None:
    """Seen in tmux: a replay's side panel read "North  N–S  Mina (b…": with no room
    for the name and its tags ("(bot)"), the name shows whole, without them."""
    data = json.loads(SERVER_GAME.read_text())
    data["players"][1] = {"seat": 1, "name": "Mina", "bot": True}  # West, on the left
    app = RummyApp(player_name="", replay=decode_record(json.dumps(data).encode()), replay_title="t")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen)
        west = app.screen.board.seats["west"]
        head = west.lines(west.content_size.width, west.content_size.height)[0].plain
        assert "West" in head and "Mina" in head
        assert "…" not in head  # not cut: "▶ West  E–W  Mina (bo…"


@pytest.mark.parametrize("ascii", [False, True])
async def test_at_80x24_a_side_players_long_name_goes_before_the_team(ascii: bool) -> None:
    """Seen in tmux at 80x24: four friends' replay said "North  N–S  Cyrus…" and "South
    N–S  Bobby…" on the sides. The team goes (the score line and the melds say it) and
    the name has its room: "Bobby Tables" whole, the longest cut with an ellipsis."""
    data = json.loads(SERVER_GAME.read_text())
    data["players"][0] = {"seat": 0, "name": "Bobby Tables", "bot": False}  # South, on Ann's left
    data["players"][2] = {"seat": 2, "name": "Cyrus the Great of Persi", "bot": False}  # North, right
    rec = decode_record(json.dumps(data).encode())
    app = RummyApp(player_name="Ann", replay=rec, replay_title="t", ascii=ascii)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen)
        heads = {}
        for place in ("west", "east"):
            panel = app.screen.board.seats[place]
            heads[place] = panel.lines(panel.content_size.width, panel.content_size.height)[0].plain
        assert "South" in heads["west"] and "Bobby Tables" in heads["west"]
        assert "North" in heads["east"] and "Cyrus the" in heads["east"]
        assert heads["east"].endswith("..." if ascii else "…")
        assert text.team_name(0, ascii) not in heads["west"] + heads["east"]


@pytest.mark.parametrize("ascii", [False, True])
async def test_a_dealers_name_shows_whole_and_the_word_dealer_below(ascii: bool) -> None:
    """Seen in tmux at 80x24 with --ascii: the dealer's side panel read "South  N-S
    Min...": "dealer" after the name left no room for it. The name shows whole and
    "dealer" goes below, with the hand."""
    data = json.loads(SERVER_GAME.read_text())
    data["players"][0] = {"seat": 0, "name": "Mina", "bot": True}  # South, the first dealer
    rec = decode_record(json.dumps(data).encode())
    app = RummyApp(player_name="Ann", replay=rec, replay_title="t", ascii=ascii)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen)
        south = app.screen.board.seats["west"]  # Ann is East: South sits on her left
        lines = [line.plain for line in south.lines(south.content_size.width, south.content_size.height)]
        assert "South" in lines[0] and "Mina" in lines[0] and "…" not in lines[0] and "..." not in lines[0]
        assert any("dealer" in line for line in lines[1:]), lines


async def test_a_replay_says_each_bots_level_as_its_record_does() -> None:
    """The record keeps a bot's level: the replay's panels say "(hard bot)" as the
    table did; a level this client does not know (from any program's file) is not shown."""
    data = json.loads(SERVER_GAME.read_text())
    data["players"][2] = {"seat": 2, "name": "Kian", "bot": True, "level": "hard"}  # North, across
    data["players"][0] = {"seat": 0, "name": "Dara", "bot": True, "level": "godlike"}  # South
    app = RummyApp(player_name="", replay=decode_record(json.dumps(data).encode()), replay_title="t")
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "Kian (hard bot)" in text
        assert "Dara (bot)" in text and "godlike" not in text


async def test_step_on_and_back_one_move_with_the_log_and_every_hand() -> None:
    app = replay_app()
    async with app.run_test(size=(100, 32)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        replay = screen.replay
        text = screen_text(app)
        assert "Move 0 of" in text and "Deal 1 of 2 begins." in text
        for seat in range(4):  # every hand is shown, face up
            assert SEAT_NAMES[seat] in text
            for card in replay.step.hands[seat]:
                assert card_text(card) in text
        await pilot.press("right")
        assert replay.position == 1
        moved = replay.step
        assert moved.mover is not None
        name = replay.seats.name(moved.mover)
        text = screen_text(app)
        assert "Move 1 of" in text and f"{name} drew from the stock." in text
        await pilot.press("right", "right", "left")
        assert replay.position == 2
        await pilot.press("left", "left")
        assert replay.position == 0
        assert "drew from the stock" not in screen_text(app)  # the log goes back too


async def test_a_deal_end_shows_its_breakdown_and_the_game_end_the_final_scores() -> None:
    """R7: jumping to a deal's end shows every hand and each team's score item by item,
    the same breakdown as a live game; R8: at the end, the winner and the totals."""
    app = replay_app(PASSES_GAME)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        replay = screen.replay
        await pilot.press("down")
        await eventually(lambda: isinstance(app.screen, DealEndScreen), pause=pilot.pause)
        text = screen_text(app)
        assert "Deal 1 is over: four passes in a row" in text  # R6.2
        result = replay.step.view.results[0]
        a, b = result.scores
        assert f"{'Deal total':<22}{a.total:>8}{b.total:>8}" in text
        assert "Ready for the next deal" not in text and "starts once all four" not in text
        await pilot.press("escape")
        # The key after escape must reach the replay, not the dialog still closing (under
        # load the step was lost and the log never said it).
        await eventually(lambda: app.screen is screen, pause=pilot.pause)
        await pilot.press("right")
        await eventually(lambda: "Deal 2 of 2 begins." in screen_text(app), pause=pilot.pause)
        await pilot.press("end")
        assert replay.at_end and isinstance(app.screen, ReplayScreen)
        a, b = replay.step.view.totals()
        rec = replay.record
        assert rec.result is not None and (a, b) == rec.result.totals
        won = "N–S" if a > b else "E–W"
        assert f"the game is over: {won} win, {max(a, b)} to {min(a, b)}." in screen_text(app)
        await pilot.press("r")
        await eventually(lambda: isinstance(app.screen, DealEndScreen), pause=pilot.pause)
        assert f"{'Game totals':<22}{a:>8}{b:>8}" in screen_text(app)
        await pilot.press("escape")
        await eventually(lambda: app.screen is screen, pause=pilot.pause)
        await pilot.press("up")
        assert replay.position == replay.deal_ends[0]


async def test_the_line_of_keys_offers_no_step_past_either_end() -> None:
    """At the last move the footer still offered "→ Next" and "↓ Deal end", which did
    nothing and said nothing, and "space Play", which starts again; at move 0, "← Back".
    Now the keys offered are those that do something, worded for what they do."""
    app = replay_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        keys = screen_text(app).splitlines()[-1]
        assert "Next" in keys and "Deal end" in keys and "Back" not in keys
        await pilot.press("right")
        assert "Back" in screen_text(app).splitlines()[-1]
        await pilot.press("end")
        assert screen.replay.at_end
        keys = screen_text(app).splitlines()[-1]
        assert "Next" not in keys and "Deal end" not in keys
        assert "Back" in keys and "space Play again" in keys
        await pilot.press("space")  # it does as it says: from the first move, playing
        assert screen.replay.position <= 1 and screen.playing


async def test_play_on_at_a_chosen_speed_stops_at_the_deal_end() -> None:
    app = replay_app()
    async with app.run_test(size=(100, 32)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        replay = screen.replay
        await pilot.press("down")  # to the deal's end, and back a few moves: close to it
        await eventually(lambda: isinstance(app.screen, DealEndScreen), pause=pilot.pause)
        await pilot.press("escape")
        await eventually(lambda: app.screen is screen, pause=pilot.pause)  # the keys reach the replay
        await pilot.press(*["left"] * 8)
        assert replay.position == replay.deal_ends[0] - 8
        await pilot.press("plus", "plus", "plus", "plus", "plus")  # the fastest: 16 moves/s
        assert "16 moves/s" in screen_text(app)
        await pilot.press("space")  # plays on (the 8 moves may be over before the press returns)
        await eventually(lambda: isinstance(app.screen, DealEndScreen), pause=pilot.pause)
        assert replay.position == replay.deal_ends[0] and not screen.playing
        await pilot.press("escape")
        await pilot.pause()
        assert replay.position == replay.deal_ends[0]  # it stays stopped there
        await pilot.press("minus", "minus", "minus")
        assert "space plays (2 moves/s)" in screen_text(app)
        await pilot.press("space")
        assert "playing, 2 moves/s" in screen_text(app)
        await eventually(lambda: replay.position > replay.deal_ends[0], pause=pilot.pause)
        await pilot.press("space")
        stopped = replay.position
        assert "paused" in screen_text(app)
        await pilot.pause(0.3)
        assert replay.position == stopped


def test_rummy_client_replay_watches_ones_own_game_from_ones_own_chair(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``rummy-client --replay FILE`` plays under the name the game was played under
    (``--name``, else the one last used): a game one played is watched from one's own
    chair, as the replay opened from the table is."""
    import rummy.client.cli as cli

    opened: list[RummyApp] = []
    monkeypatch.setattr(cli, "run", lambda app, directory, **kw: opened.append(app) or 0)
    client_main(["--replay", str(SERVER_GAME), "--name", "Ann"])
    StateStore().name = "Bob"  # the name the last game was played under
    client_main(["--replay", str(SERVER_GAME)])
    assert [app.player_name for app in opened] == ["Ann", "Bob"]
    assert Replay(record(), me=opened[0].player_name).seats.me == 3  # Ann sat East


async def test_q_ends_a_replay_opened_from_a_file() -> None:
    app = replay_app()
    async with app.run_test() as pilot:
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code in (None, 0)


def test_rummy_client_replay_refuses_a_file_it_cannot_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "persian-rummy-game", "version": 9}')
    # Damaged records: these reached the replay screen, whose refusal ended the app as
    # "stopped on an unexpected error" with the sentence in client-error.log.
    game = json.loads(SERVER_GAME.read_text())
    game["moves"][5] = {"type": "pass"}
    illegal = tmp_path / "illegal.json"
    illegal.write_text(json.dumps(game))
    game = json.loads(SERVER_GAME.read_text())
    game["result"]["totals"] = [1, 2]
    other_end = tmp_path / "other-end.json"
    other_end.write_text(json.dumps(game))
    for path, words in (
        (bad, "newer than this program reads"),
        (tmp_path / "none.json", "cannot read"),
        (illegal, "Move 6 of the record (pass) is not legal there"),
        (other_end, "The record says the game ended 1 to 2, but it replays to "),
    ):
        with pytest.raises(SystemExit) as exit_:
            client_main(["--replay", str(path)])
        assert exit_.value.code == 2
        assert words in capsys.readouterr().err


# --- the history ---------------------------------------------------------------------------


def summary(
    game_id: int, mine: bool, names: tuple[str, ...], totals: tuple[int, int], **kw: object
) -> GameSummary:
    players = [RecordPlayer(seat=s, name=n, bot=n.startswith("Bot")) for s, n in enumerate(names)]
    fields = {
        "table_id": 1,
        "table_name": "Friday night",
        "number": 1,
        "started": NOW - 1800,
        "finished": NOW,
    }
    fields.update(kw)
    a, b = totals
    winner = None if a == b else (0 if a > b else 1)
    return GameSummary(game_id=game_id, players=players, totals=totals, winner=winner, mine=mine, **fields)  # type: ignore[arg-type]


PAGE = [
    summary(12, True, ("Ann", "Bob", "Cyd", "Dee"), (143, 97), finished=NOW - 600),
    summary(9, True, ("Bob", "Ann", "Bot 3", "Bot 4"), (120, 188), finished=NOW - 86_400 * 3, number=2),
    summary(14, False, ("Eve", "Fay", "Gus", "Hal"), (200, 200), table_name="Pros", finished=NOW - 300),
]


def history_rows(app: RummyApp) -> list[str]:
    grid = app.screen.query_one("#history", DataTable)
    return [
        " | ".join(str(getattr(c, "plain", c)) for c in grid.get_row_at(i)) for i in range(grid.row_count)
    ]


async def open_history(app: RummyApp, pilot: Pilot[None]) -> None:
    await pilot.press("h")
    await eventually(
        lambda: isinstance(app.screen, HistoryScreen) and app.history_request is not None, pause=pilot.pause
    )
    await pilot.pause()


async def test_the_lobby_shows_the_finished_games_own_first(utc: None) -> None:
    """h in the lobby: the finished games as the server lists them (the player's own
    first, marked), with the table, when, both teams and their totals, winners in bold."""
    app, sent = offline_app()
    app.clock = lambda: NOW
    async with app.run_test(size=(100, 32)) as pilot:
        await open_history(app, pilot)
        request = sent.last()
        assert isinstance(request, History) and request.before is None
        await eventually(lambda: "Asking the server" in screen_text(app), pause=pilot.pause)
        say(app, HistoryPage(id=request.id, games=PAGE, more=False), History)
        await eventually(lambda: len(history_rows(app)) == 3, pause=pilot.pause)
        rows = history_rows(app)
        assert rows[0] == "• today 09:30 | Friday night | Ann & Cyd 143 | Bob & Dee 97"
        assert rows[1] == "• 28 Nov 09:40 | Friday night | Bob & Bot 3 120 | Ann & Bot 4 188"
        assert rows[2] == "  today 09:35 | Pros | Eve & Gus 200 | Fay & Hal 200"
        grid = app.screen.query_one("#history", DataTable)
        assert grid.get_row_at(0)[2].style == "bold" and grid.get_row_at(0)[3].style == ""  # N–S won
        assert "3 games: every finished game" in screen_text(app)
        await pilot.press("escape")
        assert isinstance(app.screen, LobbyScreen)


async def test_at_80x24_the_history_shows_every_total_whole(utc: None) -> None:
    """Two long names and a total of -210: at 80 columns each name had 7 columns and the
    row read "Bobby T & Cyrus t -21", a total that was not the game's; the table's name
    was cut with no mark of it."""
    app, sent = offline_app()
    app.clock = lambda: NOW
    names = ("Bobby Tables", "Anahita", "Cyrus the Great of Persi", "Dee")
    game = summary(5, True, names, (-210, -207), table_name="Anahita's table 2")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_history(app, pilot)
        say(app, HistoryPage(id=sent.last().id, games=[game], more=False), History)
        await eventually(lambda: len(history_rows(app)) == 1, pause=pilot.pause)
        row = history_rows(app)[0].split(" | ")
        shown = screen_text(app)
        assert row[2].startswith("Bobby") and row[2].endswith(" -210") and row[2] in shown
        assert row[3] == "Anahita & Dee -207" and row[3] in shown
        assert "Anahita's tab…" in shown


async def test_the_history_pages_on_and_says_when_it_is_empty(utc: None) -> None:
    app, sent = offline_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await open_history(app, pilot)
        first = sent.last()
        say(app, HistoryPage(id=first.id, games=[], more=False), History)
        await eventually(lambda: "No finished games yet" in screen_text(app), pause=pilot.pause)
        await pilot.press("r")
        again = sent.last()
        assert isinstance(again, History) and again.id != first.id
        say(app, HistoryPage(id=again.id, games=PAGE[:2], more=True), History)
        await eventually(lambda: len(history_rows(app)) == 2, pause=pilot.pause)
        assert "m (or moving past the last) shows more" in screen_text(app)
        await pilot.press("down")  # onto the last row: the next page is asked for
        await eventually(
            lambda: isinstance(sent.last(), History) and sent.last().id != again.id, pause=pilot.pause
        )
        more = sent.last()
        assert isinstance(more, History) and more.before == 9
        say(app, HistoryPage(id=more.id, games=PAGE[2:], more=False), History)
        await eventually(lambda: len(history_rows(app)) == 3, pause=pilot.pause)
        assert app.screen.query_one("#history", DataTable).cursor_row == 1  # the cursor stays put


async def test_a_game_listed_twice_shows_once(utc: None) -> None:
    """A page that lists a game twice (from some other server) shows it once, as a
    game already shown from an earlier page is. (It ended the client: two rows of one
    key in the list; the hostile-server test.)"""
    app, sent = offline_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await open_history(app, pilot)
        say(app, HistoryPage(id=sent.last().id, games=[*PAGE, PAGE[0]], more=False), History)
        await eventually(lambda: len(history_rows(app)) == 3, pause=pilot.pause)
        assert "3 games" in screen_text(app)
        assert app.is_running


async def close_history_before_its_answer(app: RummyApp, pilot: Pilot[None]) -> int:
    """Open the history and close it again at once: returns the id of the request it made."""
    await open_history(app, pilot)
    history, asked = app.screen, app.history_request
    assert isinstance(history, HistoryScreen) and asked is not None
    await pilot.press("escape")
    await eventually(lambda: not history.query("#history"), pause=pilot.pause)  # its list is gone
    return asked[0]


async def test_an_answer_for_a_history_closed_before_it_came_is_let_go(utc: None) -> None:
    """The history closed before its page came (escape at once, a slow server): the page,
    or the server's refusal, that comes then is dropped, and the client stays up. (It
    ended on either, looking for the closed screen's list: the hostile-server test.)"""
    app, sent = offline_app()
    async with app.run_test(size=(100, 32)) as pilot:
        late = await close_history_before_its_answer(app, pilot)
        say(app, HistoryPage(id=late, games=PAGE, more=False), History)
        late = await close_history_before_its_answer(app, pilot)
        say(app, Error(id=late, code=codes.RATE_LIMITED, text="Too many requests."), History)
        await open_history(app, pilot)  # and the next one shows its page
        assert isinstance(app.screen, HistoryScreen)
        say(app, HistoryPage(id=sent.last().id, games=PAGE, more=False), History)
        await eventually(lambda: len(history_rows(app)) == 3, pause=pilot.pause)
        assert app.is_running


@pytest.mark.parametrize("ascii", [False, True])
async def test_at_80_columns_a_replays_title_has_a_line_of_its_own(utc: None, ascii: bool) -> None:
    """The title shared the score line with the deal and both teams' points, and at 80
    columns read "Replay: Fri…". It has a line of its own; a long table name is cut so
    that which game it was and when it ended still show."""
    rec = msgspec.structs.replace(
        record(), table="Friday night rummy at Bob's place, upstairs", game_id=1234567
    )
    assert rec.finished is not None
    app = RummyApp(player_name="Ann", replay=rec, replay_title=replay_title(rec, NOW), ascii=ascii)
    async with app.run_test(size=(80, 24)):
        lines = screen_text(app).splitlines()
        cut = "..." if ascii else "…"
        when = when_words(rec.finished, NOW)
        assert lines[0] == f" Replay: Friday night rummy at Bob's p{cut}, game #1234567, finished {when}"
        assert lines[1].startswith(" Deal 1 of 2  ") and "E-W (you) 0" in text.to_ascii(lines[1])


async def test_a_game_from_the_history_opens_its_replay_and_can_be_saved(utc: None, state_dir: Path) -> None:
    """enter on a game fetches its record and opens the replay; w saves it to a file
    that ``rummy-client --replay`` opens; escape goes back to the list."""
    rec = record()
    app, sent = offline_app()
    app.clock = lambda: NOW
    async with app.run_test(size=(100, 32)) as pilot:
        await open_history(app, pilot)
        say(app, HistoryPage(id=sent.last().id, games=PAGE, more=False), History)
        await eventually(lambda: len(history_rows(app)) == 3, pause=pilot.pause)
        await pilot.press("enter", "enter")  # twice: one request
        asked = [m for m in sent.sent if isinstance(m, GetRecord)]
        assert len(asked) == 1 and asked[0].game_id == 12
        assert rec.game_id is not None
        say(app, Record(id=asked[0].id, game_id=rec.game_id, record=rec), GetRecord)
        await eventually(lambda: isinstance(app.screen, ReplayScreen), pause=pilot.pause)
        # The whole title, up to when it ended (it was cut at 40 characters, mid-word).
        assert rec.finished is not None
        title = f"Replay: {rec.table}, game #{rec.game_id}, finished {when_words(rec.finished, NOW)}"
        assert title in screen_text(app)
        await pilot.press("w")
        await eventually(lambda: any((state_dir / "replays").glob("*.json")), pause=pilot.pause)
        saved = next((state_dir / "replays").glob("*.json"))
        assert saved.name == f"example.org-7325-game-{rec.game_id}.json"
        assert decode_record(saved.read_bytes()) == rec
        # It says where, in a dialog that stays until closed (a toast went in 10 s and
        # cut the path mid-word), with the command that plays it back, ready to copy.
        await eventually(lambda: isinstance(app.screen, NoticeScreen), pause=pilot.pause)
        notice = app.screen
        assert isinstance(notice, NoticeScreen) and "Game saved" in screen_text(app)
        assert f"rummy-client --replay {shell_path(saved)}" in notice.text  # (the test's path wraps)
        await pilot.press("enter")
        assert isinstance(app.screen, ReplayScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, HistoryScreen)


async def test_a_record_that_does_not_replay_is_refused_in_words() -> None:
    rec = record()
    assert rec.result is not None
    rec.result.totals = (1, 2)
    app, sent = offline_app()
    async with app.run_test(size=(100, 32), notifications=True) as pilot:
        app.post_message(ReplayRequested(5))
        await eventually(lambda: bool(sent.sent), pause=pilot.pause)
        say(app, Record(id=sent.last().id, game_id=5, record=rec), GetRecord)
        await eventually(lambda: "This game cannot be replayed" in screen_text(app), pause=pilot.pause)
        assert not isinstance(app.screen, ReplayScreen)
        app.post_message(ReplayRequested(6))  # and the next request goes out
        await eventually(lambda: len(sent.sent) == 2, pause=pilot.pause)
        say(
            app,
            Error(id=sent.last().id, code=codes.NO_SUCH_GAME, text="There is no finished game."),
            GetRecord,
        )
        await eventually(lambda: "There is no finished game." in screen_text(app), pause=pilot.pause)
        app.post_message(ReplayRequested(7))
        await eventually(lambda: len(sent.sent) == 3, pause=pilot.pause)


async def test_history_is_offered_in_the_lobby_footer() -> None:
    app, _ = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "h History" in screen_text(app)
        app.post_message(OpenHistory())
        await eventually(lambda: isinstance(app.screen, HistoryScreen), pause=pilot.pause)


def test_when_words_read_as_a_player_would(utc: None) -> None:
    assert when_words(NOW - 60, NOW) == "today 09:39"
    assert when_words(NOW - 86_400 * 40, NOW) == "22 Oct 09:40"
    assert when_words(NOW - 86_400 * 400, NOW) == "27 Oct 2024"


# --- the tally at the game's end -----------------------------------------------------------


def game_end_harness(harness: type[TableHarness] = TableHarness) -> TableHarness:
    """South (the player) goes out with 7h 8h 9h (keys 1 2 3 m y) and ends deal 2."""
    game = meld_position("7h 8h 9h", deal=2)
    game.results = [
        DealResult(1, "passes", None, ((),) * 4, (TeamScore(30, 0, -10, 0), TeamScore(50, 0, -5, 0)))
    ]
    return harness(game, bots=False)


TALLY = [
    TallyLine(players=("Ann", "Cyd"), games=3, won=2, tied=0, points=412),
    TallyLine(players=("Bob", "Dee"), games=3, won=1, tied=0, points=301),
]


async def test_at_80x24_a_long_name_in_the_tally_keeps_a_space_before_its_record() -> None:
    """A long name is cut, and the records stand in one column (a pair of two long
    names once read "Bobby Tables & Cyrus the Grwon 1 of 2")."""
    app = game_end_harness()
    long_pair = ("Bobby Tables", "Cyrus the Great of Persi")
    app.table.tally = [
        TallyLine(players=long_pair, games=2, won=1, tied=0, points=-9),
        TallyLine(players=("Ann", "Dee"), games=2, won=1, tied=0, points=-8),
    ]
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("1", "2", "3", "m", "y")
        await eventually(lambda: isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        text = screen_text(app)
        assert "Cyrus the Great         won 1 of 2" in text
        assert "Ann (you)               won 1 of 2" in text  # the records in one column


async def test_the_tally_has_a_line_per_player_however_the_partners_were_drawn() -> None:
    """R2.2 draws partners anew each game: seen in tmux, after two games against bots
    the tally had four lines of pairs ("root & Dara", "Mina & Kian", "Dara & Kian",
    "root & Mina"), each name twice, and two more were to come with the next pairings.
    It has one line per player, each once, the best first, with their games, wins
    and their teams' points summed."""
    app = game_end_harness()
    app.table.tally = [
        TallyLine(players=("Ann", "Cyd"), games=1, won=0, tied=0, points=-44),
        TallyLine(players=("Bob", "Dee"), games=1, won=1, tied=0, points=370),
        TallyLine(players=("Cyd", "Dee"), games=1, won=1, tied=0, points=436),
        TallyLine(players=("Ann", "Bob"), games=1, won=0, tied=0, points=52),
    ]
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("1", "2", "3", "m", "y")
        await eventually(lambda: isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        text = screen_text(app)
        assert "At this table, 2 games" in text
        rows = [line for line in text.splitlines() if " points" in line]
        assert len(rows) == 4
        named = [row.split()[1] for row in rows]
        assert named == ["Dee", "Bob", "Cyd", "Ann"]  # most won, then most points
        assert re.search(r"Dee +won 2 of 2 +806 points", rows[0])
        assert re.search(r"Ann \(you\) +won 0 of 2 +8 points", rows[3])


async def test_the_game_end_shows_the_running_tally_and_offers_the_replay() -> None:
    """After play again, the game's end shows every game played at the table so far:
    games won by each partnership and the points it scored; w watches the game again."""
    app = game_end_harness()
    app.table.tally, app.table.last_game = TALLY, 31
    posted: list[object] = []
    async with app.run_test(size=(100, 40), message_hook=posted.append) as pilot:
        await pilot.press("1", "2", "3", "m", "y")
        await eventually(lambda: isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        text = screen_text(app)
        assert "At this table, 3 games" in text
        assert re.search(r"Ann \(you\) +won 2 of 3 +412 points", text)
        assert re.search(r"Cyd +won 2 of 3 +412 points", text)
        assert re.search(r"Bob +won 1 of 3 +301 points", text)
        await pilot.press("w")
        await eventually(lambda: any(isinstance(m, ReplayRequested) for m in posted), pause=pilot.pause)
        asked = {id(m): m.game_id for m in posted if isinstance(m, ReplayRequested)}  # seen as it bubbles
        assert list(asked.values()) == [31]


async def test_escape_closes_the_game_end_and_leaves_the_finished_table() -> None:
    app = game_end_harness()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("1", "2", "3", "m", "y")
        await eventually(lambda: isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        await pilot.press("escape")
        await eventually(lambda: not isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        await eventually(lambda: "The game is over" in screen_text(app), pause=pilot.pause)
        assert app.is_running  # escape did not quit


async def test_the_game_end_says_who_wants_another_game() -> None:
    """Another game starts when all four ask (a): a server game's end says who has so
    far, as the table tells it, and each such seat's panel says so once it is closed."""
    from dataclasses import replace

    app = game_end_harness(LobbyHarness)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("1", "2", "3", "m", "y")
        await eventually(lambda: isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        assert "Another game starts when all four want one (a)." in screen_text(app)
        seats = app.table.seats
        wanting = tuple(
            replace(info, ready=True) if info is not None and seat in (0, 1) else info
            for seat, info in enumerate(seats.seats)
        )
        app.table.set_seats(replace(seats, seats=wanting))  # the table says: South and West asked
        west = seats.name(1)
        await eventually(lambda: f"so far: you, {west}." in screen_text(app), pause=pilot.pause)
        await pilot.press("escape")
        await eventually(lambda: not isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        assert "wants another game" in panel(app, "west") and "wants another game" not in panel(app, "north")


async def test_the_game_against_bots_ends_saying_another_starts_when_you_want_one() -> None:
    """The bots always want another game: with them, the note says what the player can
    do ("when you want one (a)"), not whom a table of four waits for, and a starts it."""
    app = game_end_harness()  # no lobby: the game against bots
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("1", "2", "3", "m", "y")
        await eventually(lambda: isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        text = screen_text(app)
        assert "Another game starts when you want one (a)." in text and "all four" not in text
        await pilot.press("a")
        await eventually(lambda: not isinstance(app.screen, GameEndScreen), pause=pilot.pause)


async def test_a_spectators_game_end_offers_no_play_again() -> None:
    """Only the four players play again: a spectator's game end neither offers it nor
    answers a (the server would refuse), and its note has no key to press."""
    app = game_end_harness()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("1", "2", "3", "m", "y")
        await eventually(lambda: isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        assert "Play again (a)" in screen_text(app)
        await pilot.press("escape")
        await eventually(lambda: not isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        app.seat = None  # the same table as a spectator sees it
        app.show()
        await pilot.press("r")
        await eventually(lambda: isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        text = screen_text(app)
        assert "Play again" not in text and "Another game starts when all four want one." in text
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, GameEndScreen)  # a does nothing here


async def test_the_game_end_comes_up_alone_over_a_deal_end_left_open() -> None:
    """A deal's end left open through the next deal (a player away from the keys) closes
    when the game ends: the game's end is not stacked on top of it."""
    app = game_end_harness()
    async with app.run_test(size=(100, 40)) as pilot:
        stale = DealEndScreen(app.game.results, app.table.seats, can_start=True)
        app.push_screen(stale)
        await pilot.pause()
        stale.moved_on()  # deal 2 began while it was open
        app.post_message(PlayMove(NewMeld(tuple(cards("7h 8h 9h")))))  # (as the timer would play)
        await eventually(lambda: isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        assert not any(isinstance(screen, DealEndScreen) for screen in app.screen_stack)


async def test_a_spectators_game_end_closes_when_a_new_game_begins() -> None:
    """The players started another game: a spectator's game end (and its last deal)
    closes, back to the new game they came to watch (it stayed over the new game)."""
    app = game_end_harness()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("1", "2", "3", "m", "y")
        await eventually(lambda: isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        await pilot.press("escape")
        await eventually(lambda: not isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        app.seat = None  # the same table as a spectator sees it
        app.show()
        for keys in ((), ("d",)):  # the game's end, then its last deal opened from it
            await pilot.press("r", *keys)
            opened = DealEndScreen if keys else GameEndScreen
            await eventually(lambda: isinstance(app.screen, opened), pause=pilot.pause)  # noqa: B023
            app.game = Game(8 + len(keys), seating="chosen")  # the four asked: a new game
            app.show()
            # Done with the ends once the screen's showing of them has ended (it does not
            # bring the game's end back when its last deal closes).
            await eventually(lambda: not any(w.group == "results" for w in app.workers), pause=pilot.pause)
            assert isinstance(app.screen, TableScreen) and "Deal 1 of 2" in screen_text(app)
            app.game = game_end_harness().game  # that game over again, for the next round
            app.game.apply(NewMeld(tuple(cards("7h 8h 9h"))), 0)
            app.show()
            await pilot.pause()
            if isinstance(app.screen, GameEndScreen):
                await pilot.press("escape")


async def test_a_players_game_end_says_when_a_new_game_has_begun() -> None:
    """A player who reopened the game's end (r) after asking for another game, when it
    begins: it stays, since they are reading it, says the new game has begun and no
    longer offers another; the last deal opened from it returns to the new game, not to
    the old game's end."""
    app = game_end_harness()
    posted: list[object] = []
    async with app.run_test(size=(100, 40), message_hook=posted.append) as pilot:
        await pilot.press("1", "2", "3", "m", "y")
        await eventually(lambda: isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        await pilot.press("escape")
        await eventually(lambda: not isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        await pilot.press("r")
        await eventually(lambda: isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        app.game = Game(8, seating="chosen")  # the four asked: a new game
        app.show()
        await eventually(lambda: "A new game has begun: esc returns" in screen_text(app), pause=pilot.pause)
        assert isinstance(app.screen, GameEndScreen)
        await eventually(lambda: "Play again" not in screen_text(app), pause=pilot.pause)
        await pilot.press("a")
        await pilot.pause()
        assert not any(isinstance(m, PlayAgainRequested) for m in posted)
        await pilot.press("d")  # the old game's last deal, still there to read
        await eventually(lambda: isinstance(app.screen, DealEndScreen), pause=pilot.pause)
        await pilot.press("escape")
        await eventually(lambda: isinstance(app.screen, TableScreen), pause=pilot.pause)
        assert "Deal 1 of 2" in screen_text(app)


async def test_the_first_game_end_has_no_tally_yet() -> None:
    app = game_end_harness()
    app.table.tally = [TallyLine(players=("Ann", "Cyd"), games=1, won=1, tied=0, points=50)]
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("1", "2", "3", "m", "y")
        await eventually(lambda: isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        assert "At this table" not in screen_text(app) and "Watch again" not in screen_text(app)


def test_the_state_store_saves_records_beside_the_seat_tokens(state_dir: Path) -> None:
    from rummy.client.state import save_record

    path = save_record(StateStore().directory, "local", record())
    assert path.parent == state_dir / "replays" and decode_record(path.read_bytes()) == record()


def test_a_saved_file_is_named_as_a_shell_takes_it() -> None:
    """The path shown after saving is typed after ``--replay``: ``~/`` for the home
    directory (short enough for a line at 80 columns), quoted where it has spaces."""
    home = Path("/home/ann")
    assert shell_path(home / ".local/share/persian-rummy/replays/x.json", home) == (
        "~/.local/share/persian-rummy/replays/x.json"
    )
    spaced = home / "Library/Application Support/r.json"
    assert shell_path(spaced, home) == "~/'Library/Application Support/r.json'"
    assert shell_path(Path("/srv/my games/r.json"), home) == "'/srv/my games/r.json'"


async def test_a_client_run_by_a_door_saves_no_file(state_dir: Path) -> None:
    """Through the SSH or web door the client runs on the server's machine for a player
    far away: a file saved there would be out of their reach, so w is not offered."""
    from rummy.doors.client_env import default_client_command

    assert "--hosted" in default_client_command("127.0.0.1:7325", "Ann")
    rec = record()
    app, sent = offline_app(hosted=True)
    async with app.run_test(size=(100, 32)) as pilot:
        app.post_message(ReplayRequested(5))
        await eventually(lambda: bool(sent.sent), pause=pilot.pause)
        say(app, Record(id=sent.last().id, game_id=5, record=rec), GetRecord)
        await eventually(
            lambda: isinstance(app.screen, ReplayScreen) and "q Close" in screen_text(app), pause=pilot.pause
        )
        assert "w Save" not in screen_text(app)
        await pilot.press("w")
        await pilot.pause()
        assert not (state_dir / "replays").exists()


async def test_the_replays_log_says_which_moves_a_stand_in_or_the_timer_played() -> None:
    """As at a live table: a move the server made for a player says so on its line."""
    rec = record()
    rec.autos = [None] * len(rec.moves)
    rec.autos[0] = "stand_in"
    rec.autos[2] = "timer"
    app = RummyApp(player_name="", replay=rec, replay_title="autos")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        first = screen.replay.steps[1].mover
        assert first is not None
        await pilot.press("right")
        assert f"played by a bot while {screen.replay.seats.name(first)}" in screen_text(app)
        await pilot.press("right", "right")
        assert "time ran out: the server played this" in screen_text(app)


async def test_back_from_watching_the_game_again_the_table_says_how_to_reach_the_lobby() -> None:
    """Seen in tmux: w at the game's end, then q closed the replay onto the finished
    table, whose line said only "a for another game, q to quit" (q quits at once). It
    names b for the lobby, and b goes there."""
    game = meld_position("7h 8h 9h", deal=2)
    game.results = [
        DealResult(1, "passes", None, ((),) * 4, (TeamScore(30, 0, -10, 0), TeamScore(50, 0, -5, 0)))
    ]
    app = LobbyHarness(game, bots=False)
    app.table.last_game = 31
    posted: list[object] = []
    async with app.run_test(size=(100, 40), message_hook=posted.append) as pilot:
        await pilot.press("1", "2", "3", "m", "y")
        await eventually(lambda: isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        await pilot.press("w")  # watch again (the replay itself is the app's): then the table
        await eventually(lambda: not isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        assert "The game is over: a for another game, b for the lobby, q to quit." in screen_text(app)
        await pilot.press("b")
        await eventually(lambda: any(isinstance(m, LeaveTable) for m in posted), pause=pilot.pause)


async def test_the_local_game_names_no_lobby_at_its_end() -> None:
    app = game_end_harness()  # the game against bots: no lobby to go back to
    app.table.last_game = 31
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("1", "2", "3", "m", "y")
        await eventually(lambda: isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        await pilot.press("w")
        await eventually(lambda: not isinstance(app.screen, GameEndScreen), pause=pilot.pause)
        assert "The game is over: a for another game, q to quit." in screen_text(app)


@pytest.mark.parametrize("ascii", [False, True])
def test_a_long_name_in_a_deals_hands_ends_in_an_ellipsis(ascii: bool) -> None:
    """Seen in tmux at 80x24: the deal's hands said "North Cyrus the Grea N–S", a name
    cut with nothing to say it was."""
    from rummy.client.look import Look
    from rummy.client.model import SeatInfo, Seats
    from rummy.client.screens.results import deal_breakdown

    names = ("Bobby Tables", "Anahita", "Cyrus the Great of Persi", "Dee")
    seats = Seats(tuple(SeatInfo(n) for n in names), me=1)
    hands = (tuple(cards("7h 8h")), (), tuple(cards("Ks")), ())
    result = DealResult(1, "passes", None, hands, (TeamScore(30, 0, -15, 0), TeamScore(50, 0, -10, 0)))
    lines = deal_breakdown(result, seats, (0, 0), Look(ascii=ascii)).plain.splitlines()
    north = next(line for line in lines if "North" in line)
    assert ("Cyrus the G..." if ascii else "Cyrus the Gre…") in north
    assert any("South Bobby Tables " in line for line in lines)  # a name that fits: whole


def test_names_in_wide_characters_keep_the_columns() -> None:
    """A name in Chinese, or with emoji, takes two columns a character: names are cut
    by columns, not characters, so the deal's hands stay in line and each team's total
    still shows in the history (a name cut to 14 characters took 28 columns)."""
    from rummy.client.model import SeatInfo, Seats
    from rummy.client.screens.history import team_text
    from rummy.client.screens.results import deal_breakdown

    wide = "张伟张伟张伟张伟张伟"
    seats = Seats((SeatInfo(wide), SeatInfo("Bob"), SeatInfo("李🙂李🙂李🙂李🙂"), SeatInfo("Dee")), me=0)
    hands = (tuple(cards("7h 8h")), (), tuple(cards("Ks")), ())
    result = DealResult(1, "passes", None, hands, (TeamScore(30, 0, -15, 0), TeamScore(50, 0, -10, 0)))
    lines = deal_breakdown(result, seats, (0, 0)).plain.splitlines()
    rows = [line for line in lines if line.strip().startswith(SEAT_NAMES)]
    assert len(rows) == 4
    columns = {cell_len(row.split("N–S")[0].split("E–W")[0]) for row in rows}  # where the team starts
    assert len(columns) == 1
    summary_row = summary(3, True, (wide, "Bob", wide, "Dee"), (143, 97))
    shown = team_text(summary_row, 0, width=23)
    assert shown.plain.endswith(" 143") and cell_len(shown.plain) <= 23
