"""The finished games (the lobby's history): the player's own first, then everyone's,
newest first, page by page; enter watches one again.

The screen asks the app for pages (``HistoryWanted``) and to open a replay
(``ReplayRequested``); the server decides what is listed, and never lists a game
still being played (RULES R9).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.content import Content
from textual.coordinate import Coordinate
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import DataTable, Static

from rummy.engine import team_seats
from rummy.protocol import GameSummary, HistoryPage

from .. import text
from ..commands import ScreenActions
from ..messages import HistoryWanted, ReplayRequested
from ..widgets.keys import KeyBar
from .help import HelpScreen

WHEN_WIDTH = 14  # "• 28 Nov 09:40"


def when_words(moment: float, now: float) -> str:
    """A finished time as a player reads it: "today 14:05", "3 Mar 14:05", "3 Mar 2024"."""
    then, today = time.localtime(moment), time.localtime(now)
    if (then.tm_year, then.tm_yday) == (today.tm_year, today.tm_yday):
        return time.strftime("today %H:%M", then)
    if then.tm_year == today.tm_year:
        return f"{then.tm_mday} {time.strftime('%b %H:%M', then)}"
    return f"{then.tm_mday} {time.strftime('%b %Y', then)}"


def column_widths(width: int) -> tuple[int, int]:
    """The table's and each team's column for a screen ``width`` wide (the rest of the
    room goes to the names: each cell is padded by one column on each side)."""
    room = max(40, width - 8 - WHEN_WIDTH - 2)
    table = max(12, room // 4)
    return table, (room - table) // 2


def team_text(game: GameSummary, team: int, width: int = 23) -> Text:
    """The two partners of ``team`` (R2.1) and their total, within ``width`` columns; the
    winners' in bold (R8). The total is whole and the names share what is left: each
    name had a fixed 7 columns at 80, and "Bobby T & Cyrus t -210" lost the total's 0."""
    names = {p.seat: p.name for p in game.players}
    first, second = (text.clean(names.get(seat, "?"), 24) for seat in team_seats(team))
    total = f" {game.totals[team]}"
    room = max(2, width - len(total) - len(" & "))
    # A short name leaves its room to its partner's ("Anahita & Dee", not "Anahit & Dee").
    first_width = min(cell_len(first), max(room // 2, room - cell_len(second)))
    pair = f"{text.cut(first, first_width)} & {text.cut(second, room - first_width)}"
    style = "bold" if game.winner == team else ""
    out = Text(pair, style)
    out.append(total, style or "dim")
    return out


class HistoryScreen(Screen[None]):
    CSS_PATH = "../styles/history.tcss"
    AUTO_FOCUS = "#history"

    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {ScreenActions}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "watch", "Watch again", priority=True),  # before the list's own enter
        Binding("m", "more", "More"),
        Binding("r", "refresh", "Refresh"),
        Binding("question_mark", "help", "Help"),
        Binding("q", "close", "Lobby"),
        Binding("escape", "close", "Lobby", show=False),
    ]

    def __init__(self, ascii: bool = False, clock: Callable[[], float] = time.time) -> None:
        super().__init__()
        self.ascii = ascii
        self.clock = clock
        self.games: list[GameSummary] = []
        self._widths = (0, 0)
        self.more = False
        self.asking = False

    def compose(self) -> ComposeResult:
        yield Static(id="history-title")
        grid: DataTable[Text] = DataTable(id="history", cursor_type="row", zebra_stripes=True)
        yield grid
        yield Static(id="history-status")
        yield KeyBar()

    def on_mount(self) -> None:
        mark = "*" if self.ascii else "•"
        self.query_one("#history-title", Static).update(
            Content.assemble(
                Content.styled("Finished games", "bold"),
                f": yours first ({mark}), newest first; the winners in bold",
            )
        )
        self.action_refresh()

    def on_resize(self, event: Resize) -> None:
        """The columns follow the screen's width: more room, longer names."""
        widths = column_widths(event.size.width)
        if widths == self._widths:
            return
        self._widths = widths
        table, team = widths
        grid = self.query_one("#history", DataTable)
        grid.clear(columns=True)
        grid.add_column("When", key="when", width=WHEN_WIDTH)
        grid.add_column("Table", key="table", width=table)
        grid.add_column(f"{text.team_name(0, self.ascii)} (South & North)", key="team0", width=team)
        grid.add_column(f"{text.team_name(1, self.ascii)} (West & East)", key="team1", width=team)
        self._show_rows(keep_cursor=True)

    # --- what the app tells the screen ---------------------------------------------------

    def show_page(self, page: HistoryPage, first: bool) -> None:
        """A page arrived: the first one (the list starts again) or the next one."""
        self.asking = False
        if first:
            self.games = []
        # Each game once (it is its row's key): one already shown from an earlier page,
        # or listed twice in this one (some other server), is not added again.
        known = {g.game_id for g in self.games}
        for game in page.games:
            if game.game_id not in known:
                known.add(game.game_id)
                self.games.append(game)
        self.more = page.more
        self._show_rows(keep_cursor=not first)

    def failed(self) -> None:
        """The server refused a page (it said why): nothing is loading any more."""
        self.asking = False
        self._show_status()

    def _show_rows(self, keep_cursor: bool) -> None:
        grid = self.query_one("#history", DataTable)
        row = grid.cursor_row if keep_cursor else 0
        grid.clear()
        now = self.clock()
        mark = "*" if self.ascii else "•"
        for game in self.games:
            when = Text.assemble((f"{mark if game.mine else ' '} ", "bold"), when_words(game.finished, now))
            grid.add_row(
                when,
                text.fit_cell(Text(text.clean(game.table_name, 40)), self._widths[0], self.ascii),
                team_text(game, 0, self._widths[1]),
                team_text(game, 1, self._widths[1]),
                key=str(game.game_id),
            )
        if self.games:
            grid.move_cursor(row=min(row, len(self.games) - 1))
        self._show_status()
        self.query_one(KeyBar).follow()

    def _show_status(self) -> None:
        if self.asking:
            words = "Asking the server for the finished games..."
        elif not self.games:
            words = "No finished games yet: a game shows here once its second deal ends."
        elif self.more:
            words = f"{len(self.games)} games shown; m (or moving past the last) shows more."
        else:
            many = len(self.games)
            words = f"{many} game{'s' if many != 1 else ''}: every finished game the server keeps."
        self.query_one("#history-status", Static).update(Content.styled(words, "dim"))

    @property
    def selected(self) -> GameSummary | None:
        grid = self.query_one("#history", DataTable)
        if not self.games or not 0 <= grid.cursor_row < grid.row_count:
            return None
        key = grid.coordinate_to_cell_key(Coordinate(grid.cursor_row, 0)).row_key.value
        return next((g for g in self.games if str(g.game_id) == key), None)

    # --- actions ---------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "watch":
            return bool(self.games)
        if action == "more":
            return self.more and not self.asking
        return True

    def action_refresh(self) -> None:
        self.asking = True
        self._show_status()
        self.post_message(HistoryWanted(None))

    def action_more(self) -> None:
        if self.more and not self.asking and self.games:
            self.asking = True
            self._show_status()
            self.post_message(HistoryWanted(self.games[-1].game_id))

    @on(DataTable.RowHighlighted, "#history")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row == len(self.games) - 1:
            self.action_more()  # at the last row: the next page comes by itself

    def action_watch(self) -> None:
        game = self.selected
        if game is not None:
            self.post_message(ReplayRequested(game.game_id))

    def action_help(self) -> None:
        keys = [
            ("up / down", "choose a game (the next page comes at the last one)"),
            ("enter", "watch the game again, move by move"),
            ("m", "show more games"),
            ("r", "ask the server again (games finished since)"),
            ("escape / q", "back to the lobby"),
        ]
        self.app.push_screen(HelpScreen("Keys of the history", [("Finished games", keys)], self.ascii))

    def action_close(self) -> None:
        self.dismiss()
