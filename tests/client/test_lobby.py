"""The lobby at the widths a player has: "Sit in which chair?" following the chairs
freed and taken while it is open, the chosen table's chairs each whole on a line of
the panel below the list, and the list's Players cell always whole in its column."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rummy.client.screens.lobby import chairs_text, column_widths, status_words, table_name_cell
from rummy.client.screens.modals import ChooseScreen
from rummy.protocol import (
    NAME_LIMIT,
    CreateTable,
    Error,
    Lobby,
    LobbyTable,
    Seated,
    Sit,
    Table,
    TableInfo,
    TableOptions,
)
from tests.client.conftest import screen_text, toast_text
from tests.client.fakes import offline_app, say, table_info
from tests.support import eventually

SIZES = [(80, 24), (100, 32), (120, 40)]


def panel_lines(app) -> list[str]:  # type: ignore[no-untyped-def]
    """The lines of the panel below the list, left of the chat."""
    lines = screen_text(app).splitlines()
    border = next(i for i, line in enumerate(lines) if line.startswith("────"))
    return [line.split("│")[0] for line in lines[border + 1 : -1]]  # (the keys last)


def panel_words(app) -> str:  # type: ignore[no-untyped-def]
    """The panel's words, one space between them (as read, whatever the lines)."""
    return " ".join(" ".join(panel_lines(app)).split())


WIDTHS = [column_widths(width)[3] for width, _ in SIZES]


def test_the_players_column_is_as_wide_as_the_ladder_expects() -> None:
    assert WIDTHS == [19, 27, 41]


async def test_a_chair_freed_while_the_question_is_open_comes_into_it() -> None:
    """A player leaves the table while "Sit in which chair?" is open: their chair comes
    in, in chair order and under its own number (4 is chair 4 before and after), the
    highlight staying on its chair. It could not be had until the question was asked
    again."""
    app, sent = offline_app()
    async with app.run_test() as pilot:
        say(app, Lobby(tables=[table_info(4, "Open", ("Bob", "Eve", "Cy", None), creator=0)]))
        await pilot.pause()
        await pilot.press("s")  # one chair free: s sits there without asking
        assert sent.last() == Sit(id=1, table_id=4, chair=3)
        say(app, Error(id=1, code="chair-taken", text="That chair is taken."), Sit)
        say(app, LobbyTable(table=table_info(4, "Open", ("Bob", "Eve", None, None), creator=0)))
        await eventually(lambda: isinstance(app.screen, ChooseScreen), pause=pilot.pause)
        chooser = app.screen
        assert isinstance(chooser, ChooseScreen)
        assert [value for _, value in chooser.options] == [2]  # chair 4 lost the race
        # Eve leaves: chair 2 comes in before chair 3, the highlight stays on chair 3.
        say(app, LobbyTable(table=table_info(4, "Open", ("Bob", None, None, "Fay"), creator=0)))
        await eventually(lambda: "2. Chair 2" in screen_text(app), pause=pilot.pause)
        assert [label for label, _ in chooser.options] == ["Chair 2", "Chair 3"]
        assert "3. Chair 3" in screen_text(app)
        assert chooser.choices.highlighted == 1
        # Chair 4, lost in the race and taken since, is offered once freed again.
        say(app, LobbyTable(table=table_info(4, "Open", ("Bob", None, None, None), creator=0)))
        await eventually(lambda: "4. Chair 4" in screen_text(app), pause=pilot.pause)
        assert [value for _, value in chooser.options] == [1, 2, 3]
        await pilot.press("enter")  # the highlight's chair, 3, all along
        await pilot.pause()
        assert sent.last() == Sit(id=2, table_id=4, chair=2)


async def test_a_freed_chair_keeps_the_numbers_of_the_others() -> None:
    """The keys mean the same chairs after a chair comes in: 4 still sits in chair 4."""
    app, sent = offline_app()
    async with app.run_test() as pilot:
        say(app, Lobby(tables=[table_info(4, "Open", ("Bob", "Eve", None, None), creator=0)]))
        await pilot.pause()
        await pilot.press("s")
        assert isinstance(app.screen, ChooseScreen)
        say(app, LobbyTable(table=table_info(4, "Open", (None, "Eve", None, None), creator=0)))
        await eventually(lambda: "1. Chair 1" in screen_text(app), pause=pilot.pause)
        assert "3. Chair 3" in screen_text(app) and "4. Chair 4" in screen_text(app)
        await pilot.press("4")
        await pilot.pause()
        assert sent.last() == Sit(id=1, table_id=4, chair=3)


LONG_NAMES = ("Alexandrina-Konstantina!", "Bartholomew Kingsley III", None, "Zoë Ann-Marie Lavoie")


def long_named_table() -> TableInfo:
    """Names at the server's limit (24 characters), one player away, one bot."""
    info = table_info(1, "Friday night", (*LONG_NAMES[:3], "Kian"), creator=0, bots=(3,))
    info.chairs[1].present = False
    return info


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_the_chosen_tables_chairs_are_whole_on_their_lines(size: tuple[int, int]) -> None:
    """At 80 columns the panel wrapped a chair's number away from its player ("1" at a
    line's end, "Ana" on the next): each chair is kept whole on one line, and the hint
    under them stays in view."""
    assert all(len(name) <= NAME_LIMIT for name in LONG_NAMES if name)
    app, _ = offline_app()
    async with app.run_test(size=size) as pilot:
        say(app, Lobby(tables=[long_named_table()]))
        await pilot.pause()
        panel = panel_lines(app)
        words = "\n".join(panel)
        for chair in (
            "1 Alexandrina-Konstantina!",
            "2 Bartholomew Kingsley III (away)",
            "3 free",
            "4 Kian (bot)",
        ):
            assert chair in words, (chair, words)
        assert not any(re.search(r"(^|, )\d\s*$", line.rstrip()) for line in panel), words
        # The hint under them, not pushed off the panel.
        assert "s sits down, w watches, n creates one." in panel_words(app)


async def test_ones_own_table_keeps_you_and_away_on_the_line() -> None:
    """One's own table at 80 columns: a long name is cut so that "(you)" and "(away)"
    stay on its line (they wrapped onto a line of their own)."""
    app, _ = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        names = (*LONG_NAMES[:2], "Ann Marie-Louise Lavoie", None)
        chosen = TableOptions(seating="chosen")  # (each chair's seat after its number)
        mine = table_info(1, "Friday night", names, creator=0, options=chosen)
        mine.chairs[1].present = False
        say(app, Lobby(tables=[mine]))
        say(app, Seated(id=1, table_id=1, chair=2, token="t"), CreateTable)
        say(app, Table(table=mine))
        await pilot.pause()
        words = screen_text(app)
        assert re.search(r" 2 West: Bartholomew Kingsley… \(away\)", words), words
        assert re.search(r" 3 North: Ann Marie-Louise Lavo… \(you\)", words), words
        assert " 4 East: free" in words


# --- the Players cell ----------------------------------------------------------------

# Names as a server keeps them: up to its limit, with spaces, accents, wide characters.
NAME = (
    st.text(
        st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ -'éøß李明"),
        min_size=1,
        max_size=NAME_LIMIT,
    )
    .map(str.strip)
    .filter(bool)
)
CHAIR = st.one_of(
    st.none(),  # free
    st.tuples(NAME, st.sampled_from(["present", "away", "bot"])),
)
COUNT = re.compile(r"^\d+ (free|bots?|away|seated)$")


def table_of(chairs: list[tuple[str, str] | None], spectators: int = 0) -> TableInfo:
    info = table_info(
        1,
        "T",
        tuple(None if c is None else c[0] for c in chairs),
        bots=tuple(i for i, c in enumerate(chairs) if c is not None and c[1] == "bot"),
    )
    for chair, c in zip(info.chairs, chairs, strict=True):
        chair.present = c is not None and c[1] != "away"
    info.spectators = spectators
    return info


@given(chairs=st.lists(CHAIR, min_size=4, max_size=4), ascii=st.booleans())
def test_the_players_cell_fits_its_column_whole(chairs: list[tuple[str, str] | None], ascii: bool) -> None:
    """For any mix of four chairs (players present and away, bots, free), names up to
    the server's limit, at each width the list has: the cell fits its column (so the
    grid never cuts it: "Bob, Di, 1 away, 1…"), its counts are whole and add up to the
    table's (every chair said once), and an ellipsis, if any, only ever cuts the one
    name the cell starts with."""
    info = table_of(chairs)
    ellipsis = "..." if ascii else "…"
    free = sum(1 for c in chairs if c is None)
    for width in WIDTHS:
        cell = chairs_text(info, ascii, width)
        plain = cell.plain
        assert cell.cell_len <= width, (width, plain)
        if free:
            assert plain.endswith(f"{free} free"), (width, plain)
        if ellipsis in plain:
            head, _, tail = plain.partition(ellipsis)
            assert ellipsis not in tail and "," not in head, (width, plain)
            assert re.fullmatch(r"( \+\d)?(, \d+ free)?", tail), (width, plain)
        # Every chair is accounted for, once: by name, in a count, or in "+N".
        said = plain
        while re.search(r" \([^()]*\)", said):  # "(away)", "(2)", "2 away (Ana, Ana (2))"
            said = re.sub(r" \([^()]*\)", "", said)
        pieces = said.split(", ")
        chairs_said = 0
        for piece in pieces:
            count = COUNT.match(piece)
            more = re.search(r" \+(\d)$", piece)
            chairs_said += int(piece.split()[0]) if count else 1 + (int(more.group(1)) if more else 0)
        assert chairs_said == 4, (width, plain)


def test_the_mixes_once_cut_at_80_columns() -> None:
    """The mixes seen cut in the list at 80 columns, and what each says now."""
    bob_di_away_free = table_of([("Bob", "present"), ("Di", "present"), ("Ana", "away"), None])
    assert chairs_text(bob_di_away_free, width=19).plain == "Bob, Di +1, 1 free"
    assert chairs_text(bob_di_away_free, width=27).plain == "Bob, Di, Ana (away), 1 free"
    bots = table_of([("Bob", "present"), ("Cy", "present"), ("Bot 3", "bot"), None])
    assert chairs_text(bots, width=19).plain == "Bob, Cy +1, 1 free"
    nobody_here = table_of([("Ana", "away"), ("Di", "away"), ("Bot", "bot"), None])
    assert chairs_text(nobody_here, width=19).plain == "3 seated, 1 free"
    long = table_of([("Bartholomew Kingsley III", "present"), ("Cy", "present"), None, None])
    assert chairs_text(long, width=19).plain == "Barthol… +1, 2 free"
    assert chairs_text(long, ascii=True, width=19).plain == "Barth... +1, 2 free"


@pytest.mark.parametrize(
    ("status", "spectators", "words"),
    [
        ("waiting", 3, "waiting +3"),
        ("finished", 1, "over +1"),
        ("playing", 12, "plays +12"),
        ("finished", 0, "game over"),
    ],
)
def test_the_status_fits_its_column_with_the_people_watching(
    status: str, spectators: int, words: str
) -> None:
    """ "game over +1" was cut to "game ove…" in the Status column's 10."""
    info = table_info(1, "T", status=status)
    info.spectators = spectators
    assert status_words(info, column_widths(80)[2]) == words


async def test_the_creators_part_passing_to_a_player_is_said() -> None:
    """The creator left a waiting table: the server gives their part to the next
    player, who was not told (only the panel's last line and the keys changed), and the
    others read "Waiting for the creator to start", with no creator there. Now the
    new one is told, and the others read who it is."""
    app, _ = offline_app()
    async with app.run_test(notifications=True) as pilot:
        say(app, Seated(id=1, table_id=7, chair=1, token="t"), CreateTable)
        say(app, Table(table=table_info(7, "Mine", ("Ann", "Bob", "Cy", None), creator=0)))
        await pilot.pause()
        assert "Waiting for Ann (the creator) to start. l leaves the table." in panel_words(app)
        assert not toast_text(app)
        say(app, Table(table=table_info(7, "Mine", (None, "Bob", "Cy", None), creator=1)))
        await eventually(lambda: "the table is yours to run now" in toast_text(app), pause=pilot.pause)
        assert "b seats a bot, g starts once" in screen_text(app)
    app, _ = offline_app()
    async with app.run_test(notifications=True) as pilot:  # creating a table says nothing
        say(app, Seated(id=1, table_id=7, chair=0, token="t"), CreateTable)
        say(app, Table(table=table_info(7, "Mine", ("Ann", None, None, None), creator=0)))
        say(app, Table(table=table_info(7, "Mine", ("Ann", "Bob", None, None), creator=0)))
        await pilot.pause()
        assert "b seats a bot, g starts once" in screen_text(app) and not toast_text(app)


async def test_the_help_says_what_plus_n_means_in_the_players_column() -> None:
    """'Bob +2' in the Players column, next to 'waiting +2' (two watching) in Status:
    the lobby's help says which is which."""
    app, _ = offline_app()
    async with app.run_test(size=(120, 40)) as pilot:  # (all the keys in view)
        say(app, Lobby(tables=[]))
        await pilot.pause()
        await pilot.press("question_mark")
        await eventually(lambda: "Keys in the lobby" in screen_text(app), pause=pilot.pause)
        words = " ".join(screen_text(app).replace("█", " ").split())
        assert "the list says 'Bob +2, 1 free':" in words and "Bob, two more and a free chair" in words


async def test_the_panel_is_laid_out_anew_when_the_terminal_is_resized() -> None:
    """Made for 120 columns, then the terminal narrowed to 80: the chairs are packed
    for the new width, each still whole on a line."""
    app, _ = offline_app()
    async with app.run_test(size=(120, 40)) as pilot:
        say(app, Lobby(tables=[long_named_table()]))
        await pilot.pause()
        assert any("(away), 3 free, 4 Kian (bot)" in line for line in panel_lines(app))
        await pilot.resize_terminal(80, 24)
        await eventually(
            lambda: any(line.strip() == "3 free, 4 Kian (bot)" for line in panel_lines(app)),
            pause=pilot.pause,
        )


@pytest.mark.parametrize("ascii", [False, True])
def test_a_cut_table_name_keeps_its_number(ascii: bool) -> None:
    """One player's tables, "Alexandrina-Konstantina!'s table" and "... table 2", read
    the same at 80 columns ("Alexandrina-Kons…"): the number a default name ends in
    stays when the name is cut."""
    width = column_widths(80)[1]
    ellipsis = "..." if ascii else "…"
    assert table_name_cell("Alexandrina-Konstantina!'s table 2", width, ascii) == (
        "Alexandrina-Ko… 2" if not ascii else "Alexandrina-... 2"
    )
    assert len(table_name_cell("Alexandrina-Konstantina!'s table 12", width, ascii)) == width
    assert table_name_cell("Alexandrina-Konstantina!'s table 12", width, ascii).endswith(f"{ellipsis} 12")
    assert table_name_cell("Friday night 2", width, ascii) == "Friday night 2"  # whole: as it is
    assert table_name_cell("Alexandrina-Konstantina!'s table", width, ascii) == (
        "Alexandrina-Konstantina!'s table"  # no number: the grid cuts it as before
    )


async def test_a_notice_above_the_chosen_table_leaves_its_chairs_in_view() -> None:
    """A notice (another client plays as this player) over the chosen table at 80x24:
    the panel's own lines give way (the blank line, the hint, the options), not its
    chairs, and none is cut in the middle."""
    app, _ = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        say(app, Lobby(tables=[long_named_table()]))
        await pilot.pause()
        assert app.lobby is not None
        notice = "Another rummy-client here already plays as Ann on this server."  # 2 lines
        app.lobby.set_notice(notice)
        await pilot.pause()
        words = panel_words(app)
        assert words.startswith(f"{notice} Table Friday night") and "3 free, 4 Kian (bot)" in words
        # The options whole or not at all (they were cut after their first line).
        assert ("partners drawn (R2.2)" in words) == ("a bot plays for a player away 2 min" in words)


async def test_the_hint_under_a_table_in_play_offers_watching_not_sitting() -> None:
    """The hint under a chosen table said "s sits down" for a table in play, where s
    only says the table is playing."""
    app, _ = offline_app()
    async with app.run_test(size=(120, 40)) as pilot:
        playing = table_info(1, "On", ("Ann", "Bob", "Cy", "Di"), "playing", creator=None)
        say(app, Lobby(tables=[playing, table_info(2, "Open", ("Eve", None, None, None))]))
        await pilot.pause()
        assert "w (or enter) watches, n creates one." in panel_words(app)
        assert "s sits down" not in panel_words(app)
        await pilot.press("down")
        await eventually(
            lambda: "s sits down, w watches, n creates one." in panel_words(app), pause=pilot.pause
        )


async def test_the_chosen_tables_name_takes_one_line_where_it_can() -> None:
    """At 80 columns "Table Alexandrina-Konstantina!'s table 2" left its "2" alone on
    the next line (and pushed the hint off the panel): the name goes without "Table"."""
    app, _ = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        name = "Alexandrina-Konstantina!'s table 2"
        say(app, Lobby(tables=[table_info(2, name, ("Fay", None, None, None))]))
        await pilot.pause()
        assert panel_lines(app)[0].strip() == name
        assert "s sits down, w watches, n creates one." in panel_words(app)
