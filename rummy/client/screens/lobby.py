"""The lobby: every table with its chairs and status (kept live by the server's
pushes), and one's own table while it waits for players."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.coordinate import Coordinate
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from rummy.engine import SEAT_NAMES
from rummy.protocol import BotLevel, ChairInfo, TableInfo

from .. import text
from ..commands import ScreenActions
from ..messages import (
    BotRequested,
    LeaveTable,
    OpenTable,
    SendChat,
    SitRequested,
    StartRequested,
    WatchRequested,
)
from ..widgets.feed import Feed
from ..widgets.status import ConnectionBanner
from .modals import ChooseScreen, HelpScreen
from .new_table import NewTableScreen

STATUS_WORDS = {"waiting": "waiting", "playing": "playing", "finished": "game over"}


def options_words(info: TableInfo) -> str:
    o = info.options
    seating = "drawn partners" if o.seating == "draw" else "seated partners"
    timer = f"{o.turn_seconds} s turns" if o.turn_seconds else "no timer"
    drop = "bot on drop" if o.on_drop == "bot" else "waits on drop"
    return f"{seating}, {timer}, {drop}"


def bot_word(chair: ChairInfo) -> str:
    """What a bot's chair says after its name: its level, if the server gives one."""
    return f"{text.clean(chair.level, 10)} bot" if chair.level else "bot"


# The levels the creator chooses from when seating a bot, with what each means.
BOT_LEVEL_CHOICES: tuple[tuple[str, BotLevel], ...] = (
    ("Easy: a beginner can beat it", "easy"),
    ("Normal: plays a sensible game", "normal"),
    ("Hard: thinks ahead, a real opponent", "hard"),
)


def chairs_text(info: TableInfo) -> Text:
    """The players in chair order. A Rich ``Text`` built piece by piece: the grid measures
    it for the column's width, and a name in it is never read as markup."""
    out = Text()
    for i, chair in enumerate(info.chairs):
        if i:
            out.append(", ")
        if chair.name is None:
            out.append("free", "dim")
        else:
            out.append(text.clean(chair.name, 24), "" if chair.present else "dim")
            if chair.bot:
                out.append(f" ({bot_word(chair)})", "dim")
            elif not chair.present:
                out.append(" (away)", "dim")
    return out


class LobbyScreen(Screen[None]):
    CSS_PATH = "../styles/lobby.tcss"
    AUTO_FOCUS = "#tables"

    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {ScreenActions}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new_table", "New table"),
        Binding("s", "sit", "Sit"),
        Binding("w", "watch", "Watch"),
        Binding("b", "add_bot", "Add bot"),
        Binding("x", "remove_bot", "Remove bot", show=False),
        Binding("g", "start", "Start"),
        Binding("o", "open_table", "Open table"),
        Binding("l", "leave", "Leave"),
        Binding("c", "chat", "Chat"),
        Binding("escape", "focus_tables", "Tables", show=False),
        Binding("question_mark", "help", "Keys"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, player_name: str = "", address: str = "") -> None:
        super().__init__()
        self.player_name = player_name
        self.address = address
        self.tables: dict[int, TableInfo] = {}
        self.my_table: TableInfo | None = None
        self.my_chair: int | None = None
        self.watching = False
        self._bots_asked: set[int] = set()  # chairs a bot was asked for, until the table changes
        self.bot_level: BotLevel = "normal"  # the level last chosen: offered first next time
        self.notice = ""  # a warning that stays in view (another client plays as this player)

    def compose(self) -> ComposeResult:
        yield ConnectionBanner()
        yield Static(id="lobby-title")
        table: DataTable[Text] = DataTable(id="tables", cursor_type="row", zebra_stripes=True)
        yield table
        with Horizontal(id="lobby-bottom"):
            yield Static(id="my-table")
            with Vertical(id="lobby-chat-area"):
                yield Feed("Sit at or watch a table to chat with the people there.", id="lobby-chat")
                yield Input(placeholder="Say something to your table", id="lobby-chat-input", compact=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        table = self.query_one("#tables", DataTable)
        table.add_column("#", key="id", width=4)
        table.add_column("Table", key="name", width=18)
        table.add_column("Status", key="status", width=10)
        table.add_column("Players (chairs 1-4)", key="chairs")
        table.add_column("Options", key="options")
        self._show_title()
        self.show_tables(self.tables)
        self._show_mine()

    def _show_title(self) -> None:
        parts: list[Content | str] = [Content.styled("Persian Rummy lobby", "bold")]
        if self.player_name:
            parts += ["  you are ", text.plain(self.player_name, "bold")]
        if self.address:
            parts.append(f" at {self.address}")
        self.query_one("#lobby-title", Static).update(Content.assemble(*parts))

    def set_identity(self, player_name: str, address: str) -> None:
        self.player_name, self.address = player_name, address
        if self._live:
            self._show_title()

    # --- what the app tells the lobby ------------------------------------------------

    @property
    def _live(self) -> bool:
        """Composed and not being taken down (pushes can arrive while the app exits)."""
        return self.is_mounted and not self._closing and bool(self.query("#tables"))

    def show_tables(self, tables: Mapping[int, TableInfo]) -> None:
        self.tables = dict(tables)
        if not self._live:
            return
        grid = self.query_one("#tables", DataTable)
        selected = self.selected_id
        grid.clear()
        for table_id in sorted(self.tables):
            info = self.tables[table_id]
            mine = self.my_table is not None and self.my_table.table_id == table_id
            status = STATUS_WORDS.get(info.status, info.status)
            if info.spectators:
                status += f" +{info.spectators}"
            grid.add_row(
                Text(str(table_id), "bold" if mine else ""),
                Text(text.clean(info.name, 40), "bold" if mine else ""),
                Text(status),
                chairs_text(info),
                Text(options_words(info), "dim"),
                key=str(table_id),
            )
        if selected is not None and selected in self.tables:
            grid.move_cursor(row=sorted(self.tables).index(selected))
        if self.my_table is None:  # the hint depends on whether there are tables to pick
            self.query_one("#my-table", Static).update(self._mine_content())
        self.refresh_bindings()

    def show_mine(self, info: TableInfo | None, chair: int | None, watching: bool) -> None:
        self.my_table, self.my_chair, self.watching = info, chair, watching
        self._bots_asked.clear()  # the table as it is now: no bot request is pending
        if self._live:
            self._show_mine()
            self.show_tables(self.tables)

    def add_chat(self, line: Content) -> None:
        if self._live:
            self.query_one("#lobby-chat", Feed).add(line)

    def clear_chat(self) -> None:
        if self._live:
            self.query_one("#lobby-chat", Feed).clear_lines()

    def set_notice(self, notice: str) -> None:
        self.notice = notice
        if self._live:
            self._show_mine()

    def _mine_content(self) -> Content:
        content = self._table_content()
        if self.notice:
            return Content.assemble(Content.styled(self.notice, "bold $warning"), "\n\n", content)
        return content

    def _table_content(self) -> Content:
        info = self.my_table
        if info is None:
            if not self.tables:
                return Content("No tables yet: n creates one.")
            return Content("Pick a table with the arrow keys: s sits down, w watches; n creates a table.")
        lines: list[Content] = [Content.assemble(("Your table: ", "bold"), text.plain(info.name, "bold", 40))]
        creator = info.creator is not None and info.creator == self.my_chair
        for chair in info.chairs:
            you = " (you)" if chair.chair == self.my_chair and not self.watching else ""
            who: Content = (
                Content.styled("free", "dim")
                if chair.name is None
                else Content.assemble(
                    text.plain(chair.name, limit=24), f" ({bot_word(chair)})" if chair.bot else "", you
                )
            )
            seat = ""
            if info.options.seating == "chosen":
                seat = f" {SEAT_NAMES[chair.chair]}"
            lines.append(Content.assemble(f" {chair.chair + 1}{seat}: ", who))
        if self.watching:
            lines.append(Content("You are watching: o opens the table, l leaves."))
        elif info.status == "waiting":
            if creator:
                lines.append(
                    Content("b seats a bot, x removes one, g starts once all four chairs are filled.")
                )
            else:
                lines.append(Content("Waiting for the creator to start. l leaves the table."))
        else:
            lines.append(Content("The game is on: o opens the table."))
        return Content("\n").join(lines)

    def _show_mine(self) -> None:
        self.query_one("#my-table", Static).update(self._mine_content())
        self.refresh_bindings()

    @property
    def selected_id(self) -> int | None:
        if not self.is_mounted:
            return None
        grid = self.query_one("#tables", DataTable)
        if not self.tables or grid.cursor_row < 0 or grid.cursor_row >= grid.row_count:
            return None
        key = grid.coordinate_to_cell_key(Coordinate(grid.cursor_row, 0)).row_key.value
        return int(key) if key is not None else None

    # --- actions -----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        at_table = self.my_table is not None
        seated = at_table and not self.watching
        creator = (
            seated
            and self.my_table is not None
            and self.my_table.creator == self.my_chair
            and self.my_table.status == "waiting"
        )
        if action in ("new_table", "sit", "watch"):
            return not at_table and (action == "new_table" or bool(self.tables))
        if action in ("add_bot", "remove_bot", "start"):
            return creator
        if action == "open_table":
            return at_table and self.my_table is not None and self.my_table.status != "waiting"
        if action == "leave":
            return at_table
        return True

    @work(exclusive=True, group="lobby-dialog")
    async def action_new_table(self) -> None:
        request = await self.app.push_screen_wait(NewTableScreen(f"{self.player_name}'s table"[:40]))
        if request is not None:
            self.post_message(request)

    @work(exclusive=True, group="lobby-dialog")
    async def action_sit(self) -> None:
        table_id = self.selected_id
        info = self.tables.get(table_id) if table_id is not None else None
        if info is None:
            return
        if info.status != "waiting":
            self.notify("That table is playing: w watches it.", severity="warning")
            return
        free = [c.chair for c in info.chairs if c.name is None]
        if not free:
            self.notify("That table is full: w watches it.", severity="warning")
            return
        chair = free[0]
        if len(free) > 1:
            seated = info.options.seating == "chosen"
            options = [(f"Chair {c + 1}" + (f" ({SEAT_NAMES[c]})" if seated else ""), c) for c in free]
            picked = await self.app.push_screen_wait(ChooseScreen[int]("Sit in which chair?", options))
            if picked is None:
                return
            chair = picked
        self.post_message(SitRequested(info.table_id, chair))

    def action_watch(self) -> None:
        table_id = self.selected_id
        if table_id is not None:
            self.post_message(WatchRequested(table_id))

    @work(exclusive=True, group="lobby-dialog")
    async def action_add_bot(self) -> None:
        """Seat a bot in the first free chair, at the level the creator picks."""
        if not self._free_for_bot():
            self.notify("Every chair is taken.", severity="warning")
            return
        levels = [level for _, level in BOT_LEVEL_CHOICES]
        chooser = ChooseScreen[BotLevel](
            "Seat a bot: at which level?", BOT_LEVEL_CHOICES, highlight=levels.index(self.bot_level)
        )
        level = await self.app.push_screen_wait(chooser)
        free = self._free_for_bot()  # the table may have changed while the question was open
        if level is None or not free:
            return
        self.bot_level = level
        self._bots_asked.add(free[0])
        self.post_message(BotRequested(free[0], add=True, level=level))

    def _free_for_bot(self) -> list[int]:
        info = self.my_table
        free = [] if info is None else [c.chair for c in info.chairs if c.name is None]
        return [c for c in free if c not in self._bots_asked]  # b pressed again before the answer

    def action_remove_bot(self) -> None:
        info = self.my_table
        bots = [] if info is None else [c.chair for c in info.chairs if c.bot]
        if not bots:
            self.notify("No bot sits at your table.", severity="warning")
            return
        self.post_message(BotRequested(bots[-1], add=False))

    def action_start(self) -> None:
        self.post_message(StartRequested())

    def action_open_table(self) -> None:
        self.post_message(OpenTable())

    def action_leave(self) -> None:
        self.post_message(LeaveTable())

    def action_chat(self) -> None:
        if self.my_table is None:
            self.notify("Sit at or watch a table first: chat goes to the people at your table.")
            return
        self.query_one("#lobby-chat-input", Input).focus()

    def action_focus_tables(self) -> None:
        self.query_one("#tables", DataTable).focus()

    @on(Input.Submitted, "#lobby-chat-input")
    def _chat_submitted(self, event: Input.Submitted) -> None:
        said = event.value.strip()
        event.input.value = ""
        if said and self.my_table is not None:
            self.post_message(SendChat(said))
        self.action_focus_tables()

    @on(DataTable.RowSelected, "#tables")
    def _row_chosen(self) -> None:
        """Enter on a table: sit if it waits for players, else watch (or open one's own)."""
        table_id = self.selected_id
        if table_id is None:
            return
        if self.my_table is not None and self.my_table.table_id == table_id:
            if self.my_table.status != "waiting":
                self.action_open_table()
            return
        info = self.tables[table_id]
        if self.my_table is None:
            if info.status == "waiting" and any(c.name is None for c in info.chairs):
                self.action_sit()
            else:
                self.action_watch()

    def action_help(self) -> None:
        keys = [
            ("up / down", "choose a table"),
            ("enter", "sit at the table (watch it if it is playing or full)"),
            ("n", "create a table: name, partners, turn timer, on drop"),
            ("s", "sit at the chosen table (you pick the chair)"),
            ("w", "watch the chosen table"),
            ("b / x", "creator: seat a bot (easy, normal or hard) in a free chair / remove a bot"),
            ("g", "creator: start the game (four chairs filled)"),
            ("o", "open your table once its game runs"),
            ("l", "leave your table"),
            ("c", "chat with the people at your table (enter sends, escape returns)"),
            ("ctrl+p", "command palette: every action by name"),
            ("?", "this help"),
            ("q", "quit"),
        ]
        self.app.push_screen(HelpScreen("Keys in the lobby", [("Lobby", keys)]))
