"""The lobby: every table with its chairs and status (kept live by the server's
pushes), the chosen table in words, and one's own table while it waits for players.

It reads where this client stands from the app's ``Session`` and changes nothing
there itself: what the player asks for goes to the app as a message.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.coordinate import Coordinate
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static

from rummy.engine import SEAT_NAMES
from rummy.protocol import NAME_LIMIT, TABLE_NAME_LIMIT, BotLevel, ChairInfo, TableInfo, default_table_name

from .. import text
from ..commands import ScreenActions
from ..messages import (
    BotRequested,
    LeaveTable,
    OpenHistory,
    OpenTable,
    RejoinRequested,
    SendChat,
    SitRequested,
    StartRequested,
    WatchRequested,
)
from ..names import chair_names
from ..session import Session
from ..widgets.feed import Feed
from ..widgets.keys import KeyBar
from ..widgets.lobby.panel import FittedPanel, pack
from ..widgets.status import ConnectionBanner
from .modals import ChooseScreen, ConfirmScreen
from .new_table import NewTableScreen

STATUS_WORDS = {"waiting": "waiting", "playing": "playing", "finished": "game over"}
# The same, shorter, where the people watching do not fit after the word in the column
# (10 columns: "game over +1" was cut to "game ove…").
STATUS_SHORT = {"waiting": "waits", "playing": "plays", "finished": "over"}
NO_CHAT = "Sit at or watch a table to chat with the people there."
CHAT = "Chat with the people at your table: c, then type (enter sends)."


def options_short(info: TableInfo, width: int = 26) -> str:
    """The options in a few words, for the list's column ``width`` wide: 'as seated, no
    timer, waits' where it fits (100 columns and more), else the same in fewer words,
    'seated, 60s, waits' or 'drawn, bot' (no time: no timer), which fit the 19 columns
    the list has at 80. The chosen table's panel says them in full (``options_words``)."""
    o = info.options
    drop = "bot" if o.on_drop == "bot" else "waits"
    timer = f"{o.turn_seconds} s" if o.turn_seconds else "no timer"
    words = f"{'drawn' if o.seating == 'draw' else 'as seated'}, {timer}, {drop}"
    if len(words) <= width:
        return words
    timer = f"{o.turn_seconds}s, " if o.turn_seconds else ""
    return f"{'drawn' if o.seating == 'draw' else 'seated'}, {timer}{drop}"


def status_words(info: TableInfo, width: int) -> str:
    """The table's status, with '+N' after it while N people watch: 'playing +2', or in
    a shorter word where that does not fit ``width``, 'over +2'."""
    if not info.spectators:
        return STATUS_WORDS.get(info.status, info.status)
    for words in (STATUS_WORDS, STATUS_SHORT):
        status = f"{words.get(info.status, info.status)} +{info.spectators}"
        if len(status) <= width:
            break
    return status


def options_words(info: TableInfo) -> str:
    """The options in full, for the chosen table."""
    o = info.options
    seating = (
        "partners drawn (R2.2)" if o.seating == "draw" else "partners as seated, chairs 1+3 and 2+4 (R2.4)"
    )
    timer = f"{o.turn_seconds} s per turn" if o.turn_seconds else "no turn timer"
    drop = (
        "a bot plays for a player who drops" if o.on_drop == "bot" else "a bot plays for a player away 2 min"
    )
    return f"{seating}; {timer}; {drop}"


def bot_word(chair: ChairInfo) -> str:
    """What a bot's chair says after its name: its level, if the server gives one."""
    return f"{text.clean(chair.level, 10)} bot" if chair.level else "bot"


# The levels the creator chooses from when seating a bot, with what each means.
BOT_LEVEL_CHOICES: tuple[tuple[str, BotLevel], ...] = (
    ("Easy: a beginner can beat it", "easy"),
    ("Normal: plays a sensible game", "normal"),
    ("Hard: thinks ahead, a real opponent", "hard"),
)


def _name(name: str, ascii: bool, limit: int = NAME_LIMIT) -> str:
    """A player's name as shown (``limit``: TABLE_NAME_LIMIT for a table's)."""
    clean = text.clean(name, limit)
    return text.to_ascii(clean) if ascii else clean


def chairs_text(info: TableInfo, ascii: bool = False, width: int | None = None) -> Text:
    """Who is at the table, short, for the list: the people (the away ones dim), then how
    many bots and free chairs: 'Bob, Cy, 1 bot, 1 free'. Within ``width`` it is said
    shorter, a step at a time, until it fits; each step whole words:

    - the away players after their count, 'Cy, 2 away (Bob, Ana), 1 free';
    - counted only, as bots are: 'Cy, 2 away, 1 free';
    - the first players present by name, as many as fit, every other taken chair as
      '+N': 'Bob, Di +1, 1 free' (at 80 columns 'Bob, Di, 1 away, 1…' was cut);
    - the first name cut, the counts after it whole: 'Alexandr… +3, 1 free' (a name
      may have 24 characters, more than the column at 80);
    - no names: '3 seated, 1 free', which fits any column the list has.

    The panel below the list names every chair in full. A Rich ``Text`` built piece by
    piece: the grid measures it, and a name in it is never read as markup."""
    each = _chairs_text(info, ascii, "each")
    if width is None or each.cell_len <= width:
        return each
    for away in ("grouped", "counted"):
        shown = _chairs_text(info, ascii, away)
        if shown.cell_len <= width:
            return shown
    named = _first_and_more(info, ascii, width)
    return named if named is not None else _seated(info)


# The fewest columns a name cut in the list keeps (its ellipsis included): fewer say
# nothing ("Al…"), and the list says '3 seated' instead.
MIN_CUT_NAME = 6


def _first_and_more(info: TableInfo, ascii: bool, width: int | None = None) -> Text | None:
    """The first players present by name, every other taken chair as '+N', the free ones
    counted: 'Cy, Di +2, 1 free', with as many names as fit ``width`` (all of them
    without it). Where not even the first name fits, it is cut (the rest whole): None if
    there is nobody present to name, or no room for a name worth showing."""
    present = [c for c in info.chairs if c.name is not None and not c.bot and c.present]
    if not present:
        return None
    taken = sum(1 for c in info.chairs if c.name is not None)
    free = len(info.chairs) - taken
    names = chair_names(info)
    shown = [_name(names[c.chair], ascii) for c in present]
    for count in range(len(shown), 0, -1):
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append(", ".join(shown[:count]))
        if taken > count:
            out.append(f" +{taken - count}", "dim")
        if free:
            out.append(", ")
            out.append(f"{free} free", "dim")
        if width is None or out.cell_len <= width:
            return out
    # Not even the first name fits: cut it, the counts after it whole.
    assert width is not None
    room = width - (out.cell_len - Text(shown[0]).cell_len)
    if room < MIN_CUT_NAME:
        return None
    return Text(fit_name(shown[0], room, ascii)) + out[len(shown[0]) :]


def _seated(info: TableInfo) -> Text:
    """Only how many chairs are taken and free: '3 seated, 1 free' (16 columns at most)."""
    taken = sum(1 for c in info.chairs if c.name is not None)
    free = len(info.chairs) - taken
    words = [f"{n} {what}" for n, what in ((taken, "seated"), (free, "free")) if n]
    return Text(", ".join(words), "dim", no_wrap=True, overflow="ellipsis")


def fit_name(name: str, width: int, ascii: bool) -> str:
    """A name as shown, cut to ``width`` columns if need be: its last word's letters
    before the ellipsis ("Bartholomew Kingsley…", not "Bartholomew Kingsley …")."""
    if Text(name).cell_len <= width:
        return name
    ellipsis = "..." if ascii else "…"
    return text.cut(name, max(0, width - len(ellipsis))) + ellipsis


def table_name_cell(name: str, width: int, ascii: bool) -> str:
    """A table's name for the list's column ``width`` wide: cut before the number it
    ends in, if any, which stays ("Alexandrina-Ko… 2"): the default names of one
    player's tables differ only there, and two rows read "Alexandrina-Kons…"."""
    number = re.search(r" \d+$", name)
    if Text(name).cell_len <= width or number is None or len(number.group()) > width // 2:
        return name
    head = name[: number.start()]
    return fit_name(head, width - len(number.group()), ascii) + number.group()


def _chairs_text(info: TableInfo, ascii: bool, away: str) -> Text:
    """``chairs_text`` with the away players said ``away``: 'Bob (away)' each, or
    together after their count, '2 away (Bob, Ana)', or counted only, '2 away'."""
    out = Text(no_wrap=True, overflow="ellipsis")
    people = [c for c in info.chairs if c.name is not None and not c.bot]
    gone = [c for c in people if not c.present]
    bots = sum(1 for c in info.chairs if c.bot)
    free = sum(1 for c in info.chairs if c.name is None)
    names = chair_names(info)
    for chair in people if away == "each" else [c for c in people if c.present]:
        if len(out):
            out.append(", ")
        out.append(_name(names[chair.chair], ascii), "" if chair.present else "dim")
        if not chair.present:
            out.append(" (away)", "dim")
    counts = [(bots, "bot"), (free, "free")]
    if away != "each":
        counts.insert(0, (len(gone), "away"))
    for count, what in counts:
        if count:
            if len(out):
                out.append(", ")
            out.append(f"{count} {what}{'s' if count > 1 and what == 'bot' else ''}", "dim")
            if what == "away" and away == "grouped":
                out.append(f" ({', '.join(_name(names[c.chair], ascii) for c in gone)})", "dim")
    return out


def chairs_words(info: TableInfo, ascii: bool = False, width: int | None = None) -> Content:
    """Every chair in full, for the chosen table: '1 Bob, 2 Dara (bot), 3 free, 4 Di'.
    Within ``width``, in lines, each chair whole on one (at 80 columns "1" ended a line
    and "Bob" began the next); a name too long for a line is cut, what follows it whole."""
    names = chair_names(info)
    units: list[Content] = []
    for chair in info.chairs:
        number = f"{chair.chair + 1} "
        if chair.name is None:
            units.append(Content.assemble(number, Content.styled("free", "dim")))
            continue
        after = (
            Content.styled(f" ({bot_word(chair)})", "dim")
            if chair.bot
            else Content.styled(" (away)", "dim")
            if not chair.present
            else Content("")
        )
        name = _name(names[chair.chair], ascii)
        if width is not None:  # room for it with its number, what follows and a comma
            name = fit_name(name, max(1, width - len(number) - after.cell_length - 1), ascii)
        units.append(Content.assemble(number, text.plain(name), after))
    if width is None:
        return Content(", ").join(units)
    return Content("\n").join(pack(units, width))


def _chair_options(info: TableInfo, free: list[int]) -> tuple[list[tuple[str, int]], list[int]]:
    """The options of "Sit in which chair?" for the ``free`` chairs of ``info``, and
    their numbers: each chair its own, so 4 is chair 4 whichever chairs are free."""
    seated = info.options.seating == "chosen"
    options = [(f"Chair {c + 1}" + (f" ({SEAT_NAMES[c]})" if seated else ""), c) for c in free]
    return options, [c + 1 for c in free]


def column_widths(width: int) -> tuple[int, int, int, int, int]:
    """Widths of the columns (#, table, status, players, options) for a terminal
    ``width`` wide: each cell has a column of padding on both sides. At 80 columns a
    default name ("Kourosh's table 2") is whole, the players column holds three short
    names and the free chairs ("Bob, Cy, Di, 1 free"), and the options are said in
    fewer words; wider terminals give the names more, and the options all their words."""
    room = max(68, width - 2 - 10)  # the grid's edges, and two padding columns per cell
    number, status = 3, 10
    name = 17 if room < 88 else 22 if room < 108 else 28
    options = 19 if room < 88 else 26  # options_short's fewer words, or its whole ones
    players = room - number - status - name - options
    return number, name, status, players, options


class LobbyScreen(Screen[None]):
    CSS_PATH = "../styles/lobby.tcss"
    AUTO_FOCUS = "#tables"

    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {ScreenActions}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new_table", "New table"),
        Binding("s", "sit", "Sit"),
        Binding("w", "watch", "Watch"),
        # The line of keys offers b only while a chair is free and g only once all four
        # are filled (``offers``); at other times the same key still says why not (g: the
        # server).
        Binding("b", "add_bot", "Add bot"),
        Binding("x", "remove_bot", "Remove bot", show=False),
        Binding("g", "start", "Start"),
        Binding("o", "open_table", "Open table"),
        Binding("l", "leave", "Leave"),
        Binding("c", "chat", "Chat"),
        Binding("h", "history", "History"),
        Binding("escape", "focus_tables", "Tables", show=False),
        Binding("question_mark", "help", "Help"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, session: Session | None = None, player_name: str = "", address: str = "") -> None:
        super().__init__()
        self.session = session if session is not None else Session()
        self.player_name = player_name
        self.address = address
        self._bots_asked: set[int] = set()  # chairs a bot was asked for, until the table changes
        # One's table (None: none) and whether one ran it, when last shown (``show_mine``).
        self._ran: tuple[int | None, bool] = (None, False)
        self.bot_level: BotLevel = "normal"  # the level last chosen: offered first next time
        self.notice = ""  # a warning that stays in view (another client plays as this player)
        self.title_line = Static(id="lobby-title")
        self.grid: DataTable[Text] = DataTable(id="tables", cursor_type="row", zebra_stripes=True)
        self.mine = FittedPanel(self._mine_content, id="my-table")
        self.chat = Feed(NO_CHAT, id="lobby-chat")
        self.chat_input = Input(
            placeholder="Say something to your table", id="lobby-chat-input", compact=True
        )
        self._widths: tuple[int, ...] = ()
        # The open "Sit in which chair?": its table, the chair left out (taken in the same
        # instant, ``choose_chair``) and the dialog, which follows the lobby's updates.
        self._chair_question: tuple[int, int | None, ChooseScreen[int]] | None = None
        self.keybar = KeyBar()

    @property
    def ascii(self) -> bool:
        return bool(getattr(self.app, "ascii", False))

    def compose(self) -> ComposeResult:
        yield ConnectionBanner()
        yield self.title_line
        yield self.grid
        with Horizontal(id="lobby-bottom"):
            yield self.mine
            with Vertical(id="lobby-chat-area"):
                yield self.chat
                yield self.chat_input
        yield self.keybar

    def on_mount(self) -> None:
        self._columns(self.app.size.width)
        self._show_title()
        self.show_mine()

    def on_resize(self, event: Resize) -> None:
        self._columns(event.size.width)

    def _columns(self, width: int) -> None:
        """The grid's columns, as wide as the terminal allows (none is cut off)."""
        widths = column_widths(width)
        if widths == self._widths:
            return
        self._widths = widths
        self.grid.clear(columns=True)
        labels = ("#", "Table", "Status", "Players", "Options")
        for (key, label), w in zip(
            zip(("id", "name", "status", "chairs", "options"), labels, strict=True), widths, strict=True
        ):
            # A Text, as each cell is: a str would be parsed as Rich markup, which loads
            # Rich's emoji table (half a MiB in every client) to look for :codes:.
            self.grid.add_column(Text(label), key=key, width=w)
        self.show_tables()

    def _show_title(self) -> None:
        parts: list[Content | str] = [Content.styled("Persian Rummy lobby", "bold")]
        if self.player_name:
            # At most 24 columns (a name's 24 characters may take 48): the address after
            # it must still fit in 80.
            name = text.cut(_name(self.player_name, self.ascii), 24)
            parts += ["  you are ", text.plain(name, "bold")]
        if self.address:
            parts.append(f" at {self.address}")
        self.title_line.update(Content.assemble(*parts))

    def set_identity(self, player_name: str, address: str) -> None:
        self.player_name, self.address = player_name, address
        self._show_title()

    # --- what the app tells the lobby ------------------------------------------------

    def show_tables(self) -> None:
        """The session's tables changed: show them (the chosen one stays chosen)."""
        if not self._widths:
            return  # not mounted yet: on_mount shows them
        grid, session = self.grid, self.session
        selected = self.selected_id
        grid.clear()
        for table_id in sorted(session.tables):
            info = session.tables[table_id]
            mine = session.table_id == table_id and session.at_table
            status = status_words(info, self._widths[2])
            name = table_name_cell(
                _name(info.name, self.ascii, TABLE_NAME_LIMIT), self._widths[1], self.ascii
            )
            grid.add_row(
                Text(str(table_id), "bold" if mine else ""),
                text.fit_cell(Text(name, "bold" if mine else ""), self._widths[1], self.ascii),
                Text(status),
                text.fit_cell(chairs_text(info, self.ascii, self._widths[3]), self._widths[3], self.ascii),
                Text(options_short(info, self._widths[4]), "dim"),
                key=str(table_id),
            )
        if selected is not None and selected in session.tables:
            grid.move_cursor(row=sorted(session.tables).index(selected))
        self.mine.rebuild()
        self.keybar.follow()
        self._follow_chair_question()

    def show_mine(self) -> None:
        """One's own table changed (or one left it). The creator's part passed to this
        player (the creator left a waiting table): said, as nothing else on screen changed
        but a line of the panel and the keys."""
        session = self.session
        runs = (
            session.table_id if session.table is not None else None,
            session.seated and session.table is not None and session.table.creator == session.chair,
        )
        if runs[0] is not None and runs[1] and self._ran == (runs[0], False) and session.creator:
            self.notify("The creator left: the table is yours to run now (b seats a bot, g starts the game).")
        self._ran = runs
        self._bots_asked.clear()  # the table as it is now: no bot request is pending
        self.chat.set_placeholder(CHAT if self.session.at_table else NO_CHAT)
        self.show_tables()

    def add_chat(self, line: Content) -> None:
        self.chat.add(line)

    def clear_chat(self) -> None:
        self.chat.clear_lines()

    def set_notice(self, notice: str) -> None:
        self.notice = notice
        self.mine.rebuild()

    @on(DataTable.RowHighlighted, "#tables")
    def _row_highlighted(self) -> None:
        self.mine.rebuild()

    def _mine_content(self, width: int, height: int) -> Content:
        """The panel below the list, for its size: the chosen table, or one's own."""
        if not self.notice:
            return self._table_content(width, height)
        notice = Content.styled(self.notice, "bold $warning")
        # The table's part has the lines the notice and a blank line leave it.
        content = self._table_content(width, max(1, height - len(notice.wrap(width)) - 1))
        return Content.assemble(notice, "\n\n", content)

    def _table_content(self, width: int, height: int) -> Content:
        session = self.session
        info = session.table
        if info is None:
            if not session.tables:
                return Content("No tables yet: n creates one.")
            chosen = session.tables.get(self.selected_id or -1)
            # Two lines at most at 80 columns: with a table's chairs and options above it, a
            # third fell off the panel's bottom at 80x24 ("...; n creates a").
            hint = Content("Pick a table (arrow keys): s sits down, w watches, n creates one.")
            if chosen is None:
                return hint
            if chosen.table_id == session.held:
                hint = Content.styled("Your chair here is held for you: s (or enter) takes it back.", "bold")
            elif chosen.status != "waiting" or all(c.name is not None for c in chosen.chairs):
                # No chair to sit in (s says so, and enter watches): not "s sits down".
                hint = Content("Pick a table (arrow keys): w (or enter) watches, n creates one.")
            words = options_words(chosen)
            # The list's "+2" after the status, in words.
            watching = f"  {chosen.spectators} watching" if chosen.spectators else ""
            table_name = text.plain(_name(chosen.name, self.ascii, TABLE_NAME_LIMIT), "bold", 40)
            title = Content.assemble(("Table ", "bold"), table_name, (watching, "dim"))
            if title.cell_length > width:
                # On one line without its first word where that fits: at 80 columns
                # "Table Alexandrina-Konstantina!'s table" left its "2" alone on a line.
                bare = Content.assemble(table_name, (watching, "dim"))
                title = min((title, bare), key=lambda t: len(t.wrap(width)))  # "Table" if a tie
            chairs = chairs_words(chosen, self.ascii, width).split("\n")
            options = Content.styled(text.to_ascii(words) if self.ascii else words, "dim").wrap(width)
            hints = hint.wrap(width)
            parts = [title.wrap(width), chairs, options, [Content("")], hints]
            # Long names at 80x24 took the lines of the hint under them ("Pick a table
            # (arrow keys): s sits" and no more): as the panel fills, the blank line goes,
            # then the hint (the line of keys says the same), then the options; for a held
            # chair the options before the hint (they were chosen when the player sat).
            held = chosen.table_id == session.held
            for drop in (3, 2, 4) if held else (3, 4, 2):
                if sum(map(len, parts)) > height:
                    parts[drop] = []
            return Content("\n").join(line for part in parts for line in part)
        lines: list[Content] = [
            Content.assemble(
                ("Your table: ", "bold"),
                text.plain(_name(info.name, self.ascii, TABLE_NAME_LIMIT), "bold", 40),
            )
        ]
        names = chair_names(info)
        for chair in info.chairs:
            you = " (you)" if chair.chair == session.chair and not session.watching else ""
            seat = f" {SEAT_NAMES[chair.chair]}" if info.options.seating == "chosen" else ""
            number = f" {chair.chair + 1}{seat}: "
            if chair.name is None:
                lines.append(Content.assemble(number, Content.styled("free", "dim")))
                continue
            after = Content.assemble(
                f" ({bot_word(chair)})" if chair.bot else "",
                you,
                # As the list above says it: a dropped player's chair, freed after
                # 2 minutes at a waiting table, looked taken by someone here.
                Content.styled(" (away)", "dim") if not chair.present else "",
            )
            # On one line, what follows the name whole: a long name wrapped "(you)" or
            # "(away)" onto a line of its own at 80 columns.
            room = max(1, width - len(number) - after.cell_length)
            name = fit_name(_name(names[chair.chair], self.ascii), room, self.ascii)
            lines.append(Content.assemble(number, text.plain(name), after))
        if session.watching and info.status == "waiting":
            # No game to open yet (o did nothing): the table opens by itself at the start.
            lines.append(Content("You are watching: the table opens when its game starts; l leaves."))
        elif session.watching:
            lines.append(Content("You are watching: o opens the table, l leaves."))
        elif info.status == "waiting":
            bots = any(c.bot for c in info.chairs)  # x is worth saying only with a bot there
            if session.creator and all(c.name is not None for c in info.chairs):
                x = " (x removes a bot)" if bots else ""
                lines.append(Content(f"All four chairs are filled: g starts the game{x}."))
            elif session.creator:
                x = ", x removes one" if bots else ""
                lines.append(Content(f"b seats a bot{x}, g starts once all four chairs are filled."))
            else:
                # By name: the creator's part passes to another player when the creator
                # leaves, and players who sat again after a game waited on "the creator"
                # without knowing which of them it had become.
                creator = names.get(info.creator) if info.creator is not None else None
                who = (
                    Content.assemble(text.plain(_name(creator, self.ascii), limit=24), " (the creator)")
                    if creator
                    else Content("the creator")
                )
                lines.append(Content.assemble("Waiting for ", who, " to start. l leaves the table."))
        else:
            lines.append(Content("The game is on: o opens the table."))
        return Content("\n").join(lines)

    @property
    def selected_id(self) -> int | None:
        grid = self.grid
        if (
            not self.session.tables
            or not self._widths
            or grid.cursor_row < 0
            or grid.cursor_row >= grid.row_count
        ):
            return None
        key = grid.coordinate_to_cell_key(Coordinate(grid.cursor_row, 0)).row_key.value
        return int(key) if key is not None else None

    # --- actions -----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        session = self.session
        at_table = session.at_table
        if action in ("new_table", "sit", "watch"):
            return not at_table and (action == "new_table" or bool(session.tables))
        if action in ("add_bot", "remove_bot", "start"):
            return session.creator
        if action == "open_table":
            return at_table and session.table is not None and session.table.status != "waiting"
        if action in ("leave", "chat"):
            return at_table
        return True

    def offers(self, action: str) -> bool:
        """Whether the line of keys shows an action that applies now: b while a chair
        is free, g once all four are filled."""
        if action == "add_bot":
            return bool(self._free_chairs())
        if action == "start":
            return not self._free_chairs()
        return True

    async def _give_up_held_chair(self, table_id: int | None = None) -> bool:
        """A chair held for us (we left its game) is ours only by the one seat token this
        client keeps at a server: sitting anywhere else (``table_id``, None for a new
        table) replaces it, and the chair could never be had again (its game waiting for
        us at our turn; the old table went on listing "Vic (away)"). Ask first; True: go on."""
        held = self.session.held
        if held is None or held == table_id:
            return True
        info = self.session.tables.get(held)
        where = f"table {held}" + (f" ({text.clean(info.name, 40)})" if info is not None else "")
        waiting = info is not None and info.status == "playing" and info.options.on_drop == "wait"
        waits = " and its game waits for you at your turn" if waiting else ""
        question = (
            f"Your chair at {where} is held for you{waits}. Sitting at another table gives "
            "it up for good: this client could not take it back. (s on that table takes it back.)"
        )
        give_up: bool = await self.app.push_screen_wait(ConfirmScreen(question, "Give it up", "Keep it"))
        return give_up

    @work(exclusive=True, group="lobby-dialog")
    async def action_new_table(self) -> None:
        if not await self._give_up_held_chair():
            return
        taken = {info.name for info in self.session.tables.values()}
        request = await self.app.push_screen_wait(
            NewTableScreen(default_table_name(self.player_name, taken), self.ascii)
        )
        if request is not None:
            self.post_message(request)

    def action_sit(self) -> None:
        table_id = self.selected_id
        info = self.session.tables.get(table_id) if table_id is not None else None
        if info is None:
            return
        if info.table_id == self.session.held:  # our chair, held since we left: take it back
            self.post_message(RejoinRequested())
            return
        self.choose_chair(info.table_id)

    def _playing_words(self, info: TableInfo) -> str:
        """Why one cannot sit at a table in play. Seen in tmux: Bob started anew with
        another state directory saw "Bob (away)" there and only "That table is playing",
        with no word that his chair is held for the client that sat in it (its seat
        token), not for his name."""
        mine = [c for c in info.chairs if c.name == self.player_name and not c.bot and not c.present]
        if not mine or not self.player_name:
            return "That table is playing: w watches it."
        name = text.clean(self.player_name, 24)
        return (
            f"That table is playing. {name}'s chair there is held for the client that sat in it "
            "(by the seat token in its state directory), not for the name: from here, w watches."
        )

    @work(exclusive=True, group="lobby-dialog")
    async def choose_chair(
        self, table_id: int, question: str | None = None, taken: int | None = None
    ) -> None:
        """Ask which free chair of ``table_id`` to sit in (none asked when one is free),
        and sit there. ``question``: chair ``taken``, asked for, was taken first (friends
        starting a table together): ask again, with the chairs still free, even if one is
        left."""
        if question is None and not await self._give_up_held_chair(table_id):
            return
        question, asked = question or "Sit in which chair?", question is not None
        while True:
            # The list may move on while the question is open: each round reads it anew.
            latest = self.session.tables.get(table_id)
            if latest is None:
                self.notify("That table has closed.", severity="warning")
                return
            if latest.status != "waiting":
                self.notify(self._playing_words(latest), severity="warning", markup=False)
                return
            free = [c.chair for c in latest.chairs if c.name is None and c.chair != taken]
            if not free:
                self.notify("That table is full: w watches it.", severity="warning")
                return
            if len(free) == 1 and not asked:
                chair = free[0]  # one chair to offer, and nothing asked yet: that one
                break
            options, numbers = _chair_options(latest, free)
            chooser = ChooseScreen[int](question, options, numbers=numbers)
            self._chair_question = (table_id, taken, chooser)
            try:
                picked = await self.app.push_screen_wait(chooser)
            finally:  # (a question asked anew meanwhile is the new one's to clear)
                if self._chair_question is not None and self._chair_question[2] is chooser:
                    self._chair_question = None
            if picked is None:
                if not chooser.options:  # every chair offered went meanwhile: the loop
                    asked = True  # says why (and never sits the player unasked)
                    continue
                return
            latest = self.session.tables.get(table_id)
            if latest is not None and any(c.chair == picked and c.name is None for c in latest.chairs):
                chair = picked
                break
            # Someone sat there while the question was open (friends starting a table
            # together): ask again with the chairs still free, not leave it at a warning.
            question, asked = f"Chair {picked + 1} was taken meanwhile. Sit in which chair?", True
        self.post_message(SitRequested(table_id, chair))

    def _follow_chair_question(self) -> None:
        """The lobby moved on while "Sit in which chair?" is open: the question offers
        the chairs free now. A chair taken meanwhile leaves it; one freed (a player left
        the table) comes in, in chair order. Each is offered under its own number, so
        the key a player is about to press means the same chair before and after; the
        highlight stays on its chair, and if that chair was taken, nothing is
        highlighted and the question says so (enter picked its neighbour unasked). A
        table gone, started or full closes it (``choose_chair`` says which). Picking
        from a stale list said "Chair 2 was taken meanwhile" and asked again, when
        friends sat down at once; a chair freed meanwhile could not be had."""
        if self._chair_question is None:
            return
        table_id, taken, chooser = self._chair_question
        latest = self.session.tables.get(table_id)
        free: list[int] = []
        if latest is not None and latest.status == "waiting":
            if any(c.chair == taken and c.name is not None for c in latest.chairs):
                # The chair lost in a race shows as taken now: freed again later, it is
                # offered as any other.
                taken = None
                self._chair_question = (table_id, taken, chooser)
            free = [c.chair for c in latest.chairs if c.name is None and c.chair != taken]
        if latest is None or not free:
            chooser.keep_only([])
            return
        highlighted = chooser.choices.highlighted
        was = chooser.options[highlighted][1] if highlighted is not None and chooser.options else None
        if chooser.follow(*_chair_options(latest, free)) and was is not None:
            chooser.set_title(f"Chair {was + 1} was taken meanwhile. Sit in which chair?")

    def action_watch(self) -> None:
        table_id = self.selected_id
        if table_id is not None:
            self.post_message(WatchRequested(table_id))

    @work(exclusive=True, group="lobby-dialog")
    async def action_add_bot(self) -> None:
        """Seat a bot in the first free chair, at the level the creator picks."""
        if not self._free_for_bot():
            info = self.session.table
            bots = info is not None and any(c.bot for c in info.chairs)
            self.notify("Every chair is taken" + (": x removes a bot." if bots else "."), severity="warning")
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

    def _free_chairs(self) -> list[int]:
        info = self.session.table
        return [] if info is None else [c.chair for c in info.chairs if c.name is None]

    def _free_for_bot(self) -> list[int]:
        # Not a chair a bot was asked for already (b pressed again before the answer).
        return [c for c in self._free_chairs() if c not in self._bots_asked]

    def action_remove_bot(self) -> None:
        info = self.session.table
        bots = [] if info is None else [c.chair for c in info.chairs if c.bot]
        if not bots:
            self.notify("No bot sits at your table.", severity="warning")
            return
        self.post_message(BotRequested(bots[-1], add=False))

    def action_start(self) -> None:
        """Asked even with a chair free: the server's refusal says why."""
        self.post_message(StartRequested())

    def action_open_table(self) -> None:
        self.post_message(OpenTable())

    def action_leave(self) -> None:
        self.post_message(LeaveTable())

    def action_history(self) -> None:
        self.post_message(OpenHistory())

    def action_chat(self) -> None:
        if not self.session.at_table:
            self.notify("Sit at or watch a table first: chat goes to the people at your table.")
            return
        self.chat_input.focus()

    def action_focus_tables(self) -> None:
        self.grid.focus()

    @on(Input.Submitted, "#lobby-chat-input")
    def _chat_submitted(self, event: Input.Submitted) -> None:
        said = event.value.strip()
        event.input.value = ""
        if said and self.session.at_table:
            self.post_message(SendChat(said))
        self.action_focus_tables()

    @on(DataTable.RowSelected, "#tables")
    def _row_chosen(self) -> None:
        """Enter on a table: sit if it waits for players, else watch (or open one's own)."""
        table_id = self.selected_id
        session = self.session
        if table_id is None:
            return
        if session.table is not None and session.table.table_id == table_id:
            if session.table.status != "waiting":
                self.action_open_table()
            return
        info = session.tables[table_id]
        if session.table is None:
            if table_id == session.held or (
                info.status == "waiting" and any(c.name is None for c in info.chairs)
            ):
                self.action_sit()
            else:
                self.action_watch()

    @work(exclusive=True, group="lobby-dialog")
    async def action_quit(self) -> None:
        """Quitting while in a chair asks first: the others at that table wait for it (it
        stays the player's, by its seat token, until they come back or leave it)."""
        session = self.session
        if session.seated and session.table is not None:
            where = f"table {session.table.table_id} ({text.clean(session.table.name, 40)})"
            question = (
                f"Quit while in a chair at {where}? It is kept for you: come back the same way"
                " to take it up again, or leave the table first (l) to free it."
            )
            if not await self.app.push_screen_wait(ConfirmScreen(question, "Quit", "Stay")):
                return
        self.app.exit()

    def action_help(self) -> None:
        from .help import HelpScreen  # the rule book is read only when asked for

        keys = [
            ("up / down", "choose a table"),
            ("enter", "sit at the table (watch it if it is playing or full)"),
            ("n", "create a table: name, partners, turn timer, on drop"),
            (
                "s",
                "sit at the chosen table (you pick the chair); at the table you left"
                " during its game, take your held chair back",
            ),
            ("w", "watch the chosen table (+N after its status: N people watch it)"),
            ("b / x", "creator: seat a bot (easy, normal or hard) in a free chair / remove a bot"),
            ("g", "creator: start the game (four chairs filled)"),
            ("o", "open your table once its game runs"),
            ("l", "leave your table"),
            ("c", "chat with the people at your table (enter sends, escape returns)"),
            ("h", "the finished games: watch any of them again, move by move"),
            ("ctrl+p", "command palette: every action by name"),
            ("?", "this help: keys, how to play, the rule book"),
            ("q", "quit (in a chair, asks first: the chair is kept for you)"),
            # Not a key: what the list's "+N" means in its Players column (last, as the
            # keys at 80x24 fill the help's first page).
            (
                "Players",
                "short of room, the list says 'Bob +2, 1 free': Bob, two more and a free"
                " chair (the panel below it names every chair)",
            ),
        ]
        self.app.push_screen(HelpScreen("Keys in the lobby", [("Lobby", keys)], self.ascii))
