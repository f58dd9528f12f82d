"""The client app: the lobby and table screens, fed by one connection to a server.

The app is the one place that knows the protocol's messages: it turns what the
server says into changes of the ``Session`` (where this client stands) and calls
on the screens (``show_tables``, ``update``...), and what the screens ask for
(app-wide messages from ``messages.py``) into requests. An answer is matched to
its request by the request's type. For the game against bots (no address given)
it plays on a server of its own on a free loopback port (``local.py``: forked by
the command line before Textual loads, else started in this process), and shows no
lobby at all.
"""

from __future__ import annotations

import gc
import shlex
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.events import Resize
from textual.reactive import reactive
from textual.theme import Theme

from rummy.engine import PlayerView
from rummy.protocol import (
    AddBot,
    BotLevel,
    Chat,
    ChatLine,
    ClientMessage,
    Clock,
    CreateTable,
    Error,
    GameRecordWire,
    GameUpdate,
    GetRecord,
    History,
    HistoryPage,
    Leave,
    Lobby,
    LobbyGone,
    LobbyTable,
    MoveRequest,
    Ok,
    PlayAgain,
    Ready,
    Record,
    RecordError,
    Rejoin,
    RemoveBot,
    Seated,
    Sit,
    SpectatorInfo,
    Start,
    Table,
    TableInfo,
    TableOptions,
    TallyLine,
    Watch,
    Watching,
    Welcome,
    address_text,
    event_from_wire,
    move_to_wire,
    view_from_wire,
)
from rummy.protocol import errors as codes

from . import local, text
from .ascii_mode import use_ascii
from .connection import Connection, ConnectionChanged, ServerSaid
from .local import Early, LocalServer, Request
from .look import Look
from .messages import (
    BotRequested,
    CreateTableRequested,
    HandOrdered,
    HintsChosen,
    HistoryWanted,
    LeaveTable,
    OpenHistory,
    OpenTable,
    PlayAgainRequested,
    PlayMove,
    ReadyForNextDeal,
    RejoinRequested,
    ReplayRequested,
    SaveRecordRequested,
    SendChat,
    SitRequested,
    SortChosen,
    StartRequested,
    WatchRequested,
)
from .model import Recent, SeatInfo, Seats, TurnTimer
from .names import chair_names, watcher_names
from .screens.modals import MIN_HEIGHT, MIN_WIDTH, ConfirmScreen, NoticeScreen, TooSmallScreen
from .screens.table import TableScreen
from .session import Session
from .state import (
    HOW_TO_PLAY_OFFERED,
    LOCAL,
    HandMemory,
    SeatLock,
    SeatToken,
    StateStore,
    save_record,
    seat_key,
    shell_path,
)
from .widgets.status import ConnectionBanner

if TYPE_CHECKING:  # the history and replay screens load when first opened: not at the start
    from .screens.history import HistoryScreen

LOCAL_KEY = LOCAL


def seats_of(info: TableInfo | None, me: int | None) -> Seats:
    """Who sits in each engine seat: a chair plays from ``ChairInfo.seat`` once the
    game runs (the draw for partners maps chairs to seats, R2.2), else its own number."""
    seats: list[SeatInfo | None] = [None, None, None, None]
    if info is not None:
        names = chair_names(info)  # two players of one name: "Ana" and "Ana (2)"
        for chair in info.chairs:
            if chair.name is None:
                continue
            seat = chair.seat if chair.seat is not None else chair.chair
            level = text.clean(chair.level, 10) if chair.bot and chair.level else None
            seats[seat] = SeatInfo(names[chair.chair], chair.bot, chair.present, chair.ready, level)
    return Seats.of(seats, me)


def replay_title(record: GameRecordWire, now: float) -> str:
    """What the replay screen says it shows: the table, the game, when it ended."""
    from .screens.history import when_words

    # The replay's own line at 80 columns holds "Replay: " and 70 more: a table name of 30
    # columns leaves the rest ("game #1234567, finished 30 Dec 23:59") its room, whole.
    name = text.fit(text.plain(record.table, limit=40), 30).plain
    parts = [name or "A game"]
    if record.game_id is not None:
        parts.append(f"game #{record.game_id}")
    if record.finished is not None:
        parts.append(f"finished {when_words(record.finished, now)}")
    return ", ".join(parts)


# The screens with CSS of their own (styles/NAME.tcss), in the order a player meets them.
SCREEN_STYLES = ("lobby", "table", "history", "replay")


class RummyApp(App[None]):
    """``address`` (host, port) of a server, or ``local`` for the game against bots;
    or a ``replay`` to watch, with no server at all. ``bell``: ring the terminal's
    bell when it becomes the player's turn."""

    CSS_PATH = "styles/app.tcss"
    TITLE = "Persian Rummy"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+q", "quit", "Quit", show=False, priority=True)]

    connection_status: reactive[str] = reactive("Connecting...", init=False)

    def __init__(
        self,
        *,
        player_name: str,
        address: tuple[str, int] | None = None,
        local: bool = False,
        ascii: bool = False,
        four_colour: bool = False,
        bell: bool = True,
        store: StateStore | None = None,
        connect: bool = True,
        server_options: dict[str, Any] | None = None,
        bot_levels: tuple[BotLevel, BotLevel, BotLevel] = ("normal", "normal", "normal"),
        bots_asked: bool = False,
        replay: GameRecordWire | None = None,
        replay_title: str = "",
        hosted: bool = False,
        seat_lock: SeatLock | None = None,
        local_server: LocalServer | None = None,
        early: Early | None = None,
    ) -> None:
        # Every screen's CSS is read with the app's own, the first screen's first: a
        # screen whose CSS is new to the app has Textual parse all of the app's CSS again
        # (each widget's too) and restyle every widget when it is pushed: some 50 ms
        # before the first table, and about 0.6 MiB more in each SSH player's client
        # (docs/PERFORMANCE.md). So each screen's rules name their screen (styles/*.tcss).
        first = "replay" if replay is not None else "table" if local else "lobby"
        screens = [first, *(name for name in SCREEN_STYLES if name != first)]
        super().__init__(css_path=[self.CSS_PATH, *(f"styles/{name}.tcss" for name in screens)])
        self.player_name = player_name
        self.asked_name = player_name
        self.address = address
        self.local = local
        self.look = Look(ascii, four_colour)
        self.bell_on_turn = bell
        self.store = store if store is not None else StateStore()
        self.connect = connect
        self.server_options = server_options or {}
        # The palette's search field has an icon no ASCII terminal can show.
        self.use_command_palette = not ascii
        self.bot_levels = bot_levels  # the local game's three bots, chairs 1 to 3
        # Asked for on the command line (--bots), not the default: a saved game with
        # other bots says so (it goes on with its own).
        self.bots_asked = bots_asked
        # The seat token is this player's at this server: only one running client may
        # use (and remember) it; a second one plays with a token kept in memory.
        # (The command line takes the local game's lock before it forks its server.)
        self.seat_lock = seat_lock or SeatLock(self.store.directory, self.store_key)
        self.owns_seat_token = False
        self.token_in_memory: str | None = None
        # The local game's server: forked by the command line, or started in _start_local.
        self.local_server = local_server
        self.early = early  # its connection, made before the app started (cli.py)
        self.local_game_asked = False  # on this connection: its table, bots and start
        self.connection: Connection | None = None
        self.session = Session()
        self.leaving = False  # exit() was called: the screens may be going
        self.lobby: Any = None  # the LobbyScreen (none in the game against bots)
        if not local:
            from .screens.lobby import LobbyScreen  # the local game needs no lobby (nor its import)

            self.lobby = LobbyScreen(
                self.session, player_name, "" if address is None else address_text(*address)
            )
        self.table_screen: TableScreen | None = None
        self.move_request: int | None = None
        self.sit_request: tuple[int, int, int] | None = None  # (request id, table id, chair)
        self._offer_pending = False  # how to play is to be offered once the table shows
        # The first game against bots is not started until its player has answered the
        # offer of how to play (and closed it, if they read it): the bots played on
        # under the offer, and a new player missed their first moves. Then the game is
        # started (``start_owed``), as it is when a saved table was left before its start.
        self.start_held = local and connect and replay is None and not self.store.seen(HOW_TO_PLAY_OFFERED)
        self.start_owed = False  # the table was asked for without its start: the client starts it
        self._bots_asked: set[int] = set()  # chairs of a saved table this client filled with bots
        self._saved_game_notes: list[str] = []  # for the log, once the table shows (see _table)
        self.chat: list[Content] = []
        self.tally: list[TallyLine] = []  # the running tally of my table's games
        self.watchers: list[SpectatorInfo] = []  # who watches my table, in the order they came
        self.last_game: int | None = None  # the latest game finished at my table
        self.replay = replay
        self.replay_title = replay_title
        # Run by a door (SSH, web) on the server's machine for a player far away: a
        # file saved here would be out of their reach, so replays offer no saving.
        self.hosted = hosted
        self.history_screen: HistoryScreen | None = None
        self.clock: Callable[[], float] = time.time  # for "finished today 14:05" (tests fix it)
        self.history_request: tuple[int, int | None] | None = None  # (request id, before)
        self.record_request: int | None = None
        if not connect or replay is not None:  # driven by hand, or a file: nothing to wait for
            self.set_reactive(RummyApp.connection_status, "")

    @property
    def ascii(self) -> bool:
        return self.look.ascii

    def get_key_display(self, binding: Binding) -> str:
        """Keys as the key bars show them; in plain ASCII with ``--ascii`` (-> for →)."""
        shown = super().get_key_display(binding)
        return text.to_ascii(shown) if self.ascii else shown

    @property
    def has_lobby(self) -> bool:
        return not self.local

    @property
    def store_key(self) -> str:
        """Where this player's seat token at this server is kept (the name as asked
        for on the command line, before the server cleans it)."""
        if self.local or self.address is None:
            return LOCAL_KEY
        return seat_key(f"{self.address[0]}:{self.address[1]}", self.asked_name)

    def remembered_token(self) -> str | None:
        if not self.owns_seat_token:
            return self.token_in_memory
        seat = self.store.seat(self.store_key)
        return self.token_in_memory if seat is None else seat.token

    def remember_token(self, seated: Seated) -> None:
        self.token_in_memory = seated.token
        if self.owns_seat_token:
            self.store.remember_seat(self.store_key, SeatToken(seated.token, seated.table_id, seated.chair))

    def forget_token(self) -> None:
        self.token_in_memory = None
        self.session.held = None
        if self.owns_seat_token:
            self.store.forget_seat(self.store_key)

    # --- start and stop --------------------------------------------------------------

    def on_mount(self) -> None:
        if not gc.isenabled():  # paused for the start (cli.pause_collector)
            self._collect_again()
        if self.store.theme in self.available_themes:  # the colours chosen last time
            self.theme = self.store.theme
        self.theme_changed_signal.subscribe(self, self._theme_chosen)
        if self.ascii:
            self._plain_scrollbars_off = use_ascii(self)
        if self.replay is not None:
            self._open_replay(self.replay, self.replay_title, standalone=True)
            self._check_size(self.size.width, self.size.height)
            return
        if self.lobby is not None:
            self.push_screen(self.lobby)
        # The game against bots has no lobby: its table comes with its first game, drawn
        # once, with it (the game is all but there: cli.py asked for it before Textual
        # loaded), or with a word on why there is none.
        self.owns_seat_token = self.seat_lock.acquire()
        if not self.owns_seat_token:
            if self.lobby is not None:
                self.lobby.set_notice(self._lock_taken_text())
            else:  # the table comes up at once: say it there
                self.notify(self._lock_taken_text(), title="Not saved", severity="warning", timeout=15)
        if self.connect:
            if self.local:
                if self.start_held:  # the offer of how to play comes first, over the table
                    self._show_table()
                self.run_worker(self._start_local(), name="local-server", group="net", exit_on_error=False)
            elif self.address is not None:
                self._connect(*self.address)
        self._check_size(self.size.width, self.size.height)

    def _theme_chosen(self, theme: Theme) -> None:
        """A theme chosen (ctrl+p, Theme) is remembered for the next start."""
        self.store.theme = theme.name

    def _collect_again(self) -> None:
        """The collector on again, before the first screen is drawn: what the start made
        (modules, the app) stays and is frozen, so the collector never walks it; what
        drawing makes is collected as it goes. Drawing makes garbage in cycles (each of
        Textual's rendered lines keeps itself in its own caches), and the high-water
        mark of the heap stays the client's for good: left to pile up until two seconds
        after mounting, it kept 3 MiB more in each SSH player's client (docs/PERFORMANCE.md)."""
        gc.freeze()
        gc.enable()

    def _collect_before_the_table(self) -> None:
        """A full collection as the table comes up, before it is drawn: the garbage the
        lobby's drawing left in the oldest generation (which the collector walks only
        now and then) is freed, so the table's first frames, the most a client draws at
        once, are drawn in that memory instead of growing the heap past it. 5-8 ms of
        3-5,000 objects in an SSH player's client; 0.4-0.5 MiB less a client (docs/PERFORMANCE.md)."""
        gc.collect()

    async def _start_local(self) -> None:
        if self.local_server is None:  # none forked for this app: one in this process
            saved = local.saved_game(self.store.directory) if self.owns_seat_token else None
            self.local_server = local.InProcess(saved, self.server_options)
        early, self.early = self.early, None
        try:
            port = await self.local_server.ready()
        except local.LocalServerError as e:
            if early is not None:
                early.sock.close()
            self.connection_status = f"The local game could not start: {e}"
            self._show_table()  # its banner says so
            return
        self.local_game_asked = early is not None and early.game
        if early is not None and early.game:
            self.start_owed = not any(isinstance(sent, Start) for sent in early.sent)
        self._connect(local.HOST, port, early)

    def _lock_taken_text(self) -> str:
        if self.local:
            return (
                "Another game against bots is running from this state directory: this one is "
                "not saved. Set RUMMY_STATE_DIR to play a second saved game."
            )
        return (
            f"Another rummy-client here already plays as {self.asked_name} on this server, so this "
            "one will not take that seat. Use another --name (or RUMMY_STATE_DIR) for a second player."
        )

    def _connect(self, host: str, port: int, early: Early | None = None) -> None:
        self.connection = Connection(
            host, port, self.player_name, self.post_message, self.remembered_token, self._opening, early
        )
        self.run_worker(self.connection.run(), name="connection", group="net", exit_on_error=False)

    def exit(self, *args: Any, **kwargs: Any) -> None:
        self.leaving = True
        super().exit(*args, **kwargs)

    async def on_unmount(self) -> None:
        self.leaving = True
        if self.connection is not None:
            await self.connection.close()
        if self.local_server is not None:
            await self.local_server.close()
        self.seat_lock.release()
        if self.ascii:
            self._plain_scrollbars_off()

    # --- the connection ----------------------------------------------------------------

    @on(ConnectionChanged)
    def _connection_changed(self, event: ConnectionChanged) -> None:
        self.connection_status = event.status
        if event.status:
            self.move_request = None
            if self.local:
                self._show_table()  # its banner says what is wrong
        if self.table_screen is not None:
            self.table_screen.set_offline(bool(event.status))

    def watch_connection_status(self, status: str) -> None:
        for screen in self.screen_stack:
            for banner in screen.query(ConnectionBanner):
                banner.show_status(status)

    def send(self, kind: type[ClientMessage], **fields: Any) -> int | None:
        """Send a request; says so and returns None while there is no connection."""
        request_id = None if self.connection is None else self.connection.request(kind, **fields)
        if request_id is None:
            self.notify(
                "Not connected to the server: wait for the connection to come back.", severity="warning"
            )
        return request_id

    @on(ServerSaid)
    def _server_said(self, event: ServerSaid) -> None:
        if self.leaving:
            return  # the app is on its way out; the screens may be gone
        message, request = event.message, event.request
        session = self.session
        match message:
            case Welcome():
                self._welcome(message)
            case Lobby(tables):
                session.tables = {t.table_id: t for t in tables}
                self._show_lobby()
            case LobbyTable(table):
                session.tables[table.table_id] = table
                self._show_lobby()
            case LobbyGone(table_id):
                session.tables.pop(table_id, None)
                if table_id == session.held:  # the chair held for us went with its table
                    self.forget_token()
                self._show_lobby()
                if table_id == session.table_id:
                    self._left_table()
            case Table():
                self._table(message)
            case GameUpdate():
                self._game(message)
            case Clock():
                self._clock(message)
            case ChatLine():
                self._chat(message)
            case Seated():
                self._seated(message, request)
            case Watching(table_id=table_id, spectator=spectator):
                session.watch(table_id, spectator)
            case Ok():
                self._ok(request, message.id)
            case Error():
                self._error(message, request)
            case HistoryPage():
                self._history_page(message)
            case Record():
                self._record(message)

    def _show_lobby(self) -> None:
        if self.lobby is not None:
            self.lobby.show_tables()

    def _welcome(self, welcome: Welcome) -> None:
        self.player_name = welcome.name
        if self.lobby is not None:
            self.lobby.set_identity(welcome.name, self.lobby.address)
        if welcome.table_id is not None and welcome.chair is not None:  # our chair is ours again
            self.session.sit(welcome.table_id, welcome.chair)
            return
        if welcome.token_refused:
            self.forget_token()  # that table is gone
        if self.session.table_id is not None:
            self.notify("Your table is gone: the server no longer has it.", severity="warning")
            self._left_table()
        if self.local and not self.local_game_asked:
            self._ask_for_local_game()

    def _ask_for_local_game(self) -> None:
        for kind, fields in self._local_game():
            self.send(kind, **fields)

    def _local_game(self) -> list[Request]:
        self.local_game_asked = True
        self.start_owed = self.start_held
        return local.game_requests(self.bot_levels, start=not self.start_held)

    def _start_if_owed(self) -> None:
        """Start the game against bots once its table has its four and the player has
        answered the offer of how to play (``start_held``)."""
        info = self.session.table
        if not self.start_owed or self.start_held or info is None or info.status != "waiting":
            return
        if not self.session.seated:
            return
        empty = [chair.chair for chair in info.chairs if chair.name is None]
        if empty and not self.local_game_asked:
            # Back at a saved table left at once under the offer, before all its bots
            # sat (their requests went unread with the closed connection): its empty
            # chairs are filled at the levels asked for, then it starts. (On the
            # connection that asked for the table, its bots' requests are in flight.)
            for chair in empty:
                if chair not in self._bots_asked and 1 <= chair <= 3:
                    self._bots_asked.add(chair)
                    self.send(AddBot, chair=chair, level=self.bot_levels[chair - 1])
        if empty:
            return
        if self.send(Start) is not None:
            self.start_owed = False

    def _release_start(self) -> None:
        """The offer of how to play is answered (and how to play closed): the game starts."""
        self.start_held = False
        self._start_if_owed()

    def _opening(self) -> list[Request]:
        """What the connection asks for with its hello: the game against bots when there
        is no chair to come back to (without waiting for the welcome to say so)."""
        self.local_game_asked = False
        if not self.local or self.remembered_token() is not None:
            return []
        return self._local_game()

    def _seated(self, seated: Seated, request: type[ClientMessage] | None) -> None:
        self.session.held = None
        self.remember_token(seated)
        self.session.sit(seated.table_id, seated.chair)
        self.chat.clear()
        if self.lobby is not None:
            self.lobby.clear_chat()

    def _table(self, message: Table) -> None:
        info = message.table
        old = self.session.table
        if self.local and old is None and not self.local_game_asked:
            self._say_what_the_saved_game_keeps(info)  # back at the saved game
        self.session.arrive(info)
        if self.local and info.status == "waiting" and not self.local_game_asked:
            self.start_owed = True  # a saved table left before its start (quit under the offer)
        self.tally, self.last_game = message.tally, message.last_game
        self.watchers = message.watchers
        if self.lobby is not None:
            self.lobby.show_mine()
        if self.table_screen is not None:
            self.table_screen.table_name = self._table_name(info)
            self.table_screen.on_drop = info.options.on_drop
            self.table_screen.set_watchers(self._watcher_labels())
            self.table_screen.tally, self.table_screen.last_game = message.tally, message.last_game
            view = self.table_screen.view
            if info.status == "waiting" and view is not None and view.phase == "game_over":
                # Someone left after the game: the table waits for four again, and its
                # chairs play no seat. The game on the screen keeps its players (placed
                # by chair numbers, they went to the wrong seats: seen in tmux).
                if old is not None and old.status == "finished":
                    # Chairs by their numbers: a list of another length (from some other
                    # server) must not end the client.
                    sitting = {c.chair for c in info.chairs if c.name is not None}
                    left = [c.name for c in old.chairs if c.name and c.chair not in sitting]
                    self.table_screen.table_broke_up([text.clean(name, 24) for name in left])
            else:
                self.table_screen.set_seats(seats_of(info, self.session.seat))
        self._start_if_owed()

    def _say_what_the_saved_game_keeps(self, info: TableInfo) -> None:
        """The saved game against bots goes on with the bots and the name it began
        with, whatever the command line asked for: the log says so in full, and how to
        have what was asked (a new game); a short toast points there. The full words in
        toasts, one for the bots and one for the name, covered half of an 80x24 table,
        the line of what to do next among it, for 20 s."""
        notes = [note for note in (self._whose_bots(info), self._whose_name(info)) if note is not None]
        if not notes:
            return
        self._saved_game_notes = [sentence for _short, sentence in notes]
        kept = " and ".join(short for short, _sentence in notes)
        them = "them" if len(notes) > 1 else "it"
        said = f"It keeps {kept}: the log says how to change {them}."
        self.notify(said, title="Your saved game", timeout=8)

    def _whose_bots(self, info: TableInfo) -> tuple[str, str] | None:
        """When the command line asked for other bots than the saved game's: a few
        words for the toast, and the full sentence for the log (how to have them)."""
        levels = tuple(chair.level for chair in info.chairs if chair.bot)
        if not self.bots_asked or levels == self.bot_levels:
            return None
        asked = self.bot_levels[0] if len(set(self.bot_levels)) == 1 else ",".join(self.bot_levels)
        had = f"{levels[0]} bots" if len(set(levels)) == 1 else f"{', '.join(map(str, levels))} bots"
        if info.status == "finished":  # its end is on the screen: another (a) has the same bots
            now = f"This game is over, and another one (a) has the same {had}."
        else:
            now = f"This game goes on with the {had} it began with."
        how = (
            f"To play {asked} bots, quit and run rummy-client --new --bots {asked}: "
            "a new game, giving this one up."
        )
        return f"its {had}", f"{now} {how}"

    def _whose_name(self, info: TableInfo) -> tuple[str, str] | None:
        """When the name asked for is not the one the saved game's chair was taken
        with (the server keeps a chair's name for the game: its replays and tally are
        by name; seen in tmux, ``--name Ann`` came back as "root", unexplained): a few
        words for the toast, and the full sentence for the log."""
        chair = self.session.chair
        mine = next((c.name for c in info.chairs if c.chair == chair), None) if chair is not None else None
        if not mine or mine == self.player_name:
            return None
        had, asked = text.clean(mine, 24), text.clean(self.player_name, 24)
        if info.status == "finished":  # its end is on the screen: another (a) keeps the name
            now = f"This game is over, and another one (a) is played as {had} too."
        else:
            now = f"This saved game goes on as {had}, the name it began with."
        how = (
            f"To play as {asked}, quit and run rummy-client --new --name {shlex.quote(asked)}: "
            "a new game, giving this one up."
        )
        return f"the name {had}", f"{now} {how}"

    def _watcher_labels(self) -> list[str]:
        """The names of my table's spectators, as the screens show them (told apart)."""
        labels = watcher_names(self.session.table, self.watchers)
        me = self.session.spectator if self.session.watching else None
        shown = [
            labels[w.spectator] + (" (you)" if w.spectator == me else "")
            for w in sorted(self.watchers, key=lambda w: w.spectator)
        ]
        return [text.to_ascii(label) for label in shown] if self.ascii else shown

    def _table_name(self, info: TableInfo) -> str:
        name = text.clean(info.name, 40)
        return text.to_ascii(name) if self.ascii else name

    def _game(self, update: GameUpdate) -> None:
        try:
            view = view_from_wire(update.view)
            events = [event_from_wire(e) for e in update.events]
            history = (
                None
                if update.history is None
                else [([event_from_wire(e) for e in step.events], step.auto) for step in update.history]
            )
        except (ValueError, TypeError):
            self.notify("The server sent a game this client cannot show.", severity="error")
            return
        session = self.session
        session.moves_seen = update.moves
        session.seat = update.seat
        screen = self._show_table()
        first = screen.view is None
        memory = self._hand_memory(view.deal) if first else None
        if memory is not None:  # the first view: the hand as the player kept it before
            screen.board.remembered = memory.order
        seats = seats_of(session.table, update.seat)
        if history is not None:  # joined or came back: the deal so far, told again
            screen.set_seats(seats)
            back = "You are back at your seat" if update.seat is not None else "You are watching this game"
            screen.tell_history(history, f"{back}: the deal so far is above.")
            if first:
                screen.board.drawn = self._drawn_this_turn(view, screen.recent, memory)
        screen.update(view, seats, events, update.auto)
        for note in self._saved_game_notes:  # after the deal so far, told again above
            screen.note(note)
        self._saved_game_notes = []
        if self._offer_pending:  # once the first game is on the table
            self._offer_pending = False
            self.call_after_refresh(self._offer_how_to_play)

    def _show_table(self) -> TableScreen:
        if self.table_screen is None:
            info = self.session.table
            name = self._table_name(info) if info is not None else ""
            self.table_screen = TableScreen(self.look, table_name=name, bell=self.bell_on_turn)
            self.table_screen.on_drop = info.options.on_drop if info is not None else None
            self.table_screen.hand.sort_mode = "rank" if self.store.sort == "rank" else "suit"
            self.table_screen.set_hints(self.store.hints)  # as the player left them
            self.table_screen.tally, self.table_screen.last_game = self.tally, self.last_game
            self.table_screen.set_watchers(self._watcher_labels())
            for line in self.chat:
                self.table_screen.add_chat_line(line)
            self.table_screen.set_offline(bool(self.connection_status))
            if self.local and not self.store.seen(HOW_TO_PLAY_OFFERED):
                if self.start_held:  # at once, over the table: the game waits for the answer
                    self.call_after_refresh(self._offer_how_to_play)
                else:  # (a game begun without the offer: once it is on the table)
                    self._offer_pending = True
        if self.table_screen not in self.screen_stack:
            if self.lobby is not None:  # the game against bots has had no screen before
                self._collect_before_the_table()
            too_small = isinstance(self.screen, TooSmallScreen)
            if too_small:  # it stays on top, over the table
                self.pop_screen()
            self.push_screen(self.table_screen)
            if too_small:
                self._check_size(self.size.width, self.size.height)
        return self.table_screen

    # --- the hand's order, across a resume -------------------------------------------------

    def _hand_place(self, deal: int) -> tuple[int, int, int] | None:
        info = self.session.table
        if info is None or self.session.watching:
            return None
        return (info.table_id, info.games, deal)

    def _hand_memory(self, deal: int) -> HandMemory | None:
        place = self._hand_place(deal)
        memory = self.store.hand(self.store_key) if self.owns_seat_token else None
        if place is None or memory is None or memory.place != place:
            return None
        return memory

    @staticmethod
    def _drawn_this_turn(view: PlayerView, recent: Recent, memory: HandMemory | None) -> tuple[int, ...]:
        """Back at the seat in the middle of its turn: the cards it drew or took, to be
        marked new again. What it took from the pile is in the deal's story (R9.1); a
        card drawn from the stock is not, nor should the server tell anyone but the
        seat (R9.2), so only the hand this client remembered (marked new then) says it."""
        if not view.my_turn or view.phase != "meld" or recent.seat != view.seat or view.hand is None:
            return ()
        held = set(view.hand)
        drawn = [c for c in recent.took if c in held]
        if recent.drew and memory is not None:
            drawn += [c for c in memory.fresh if c in held]
        return tuple(drawn)

    @on(SortChosen)
    def _sort_chosen(self, message: SortChosen) -> None:
        self.store.sort = message.mode  # for later deals and starts, not only this hand

    @on(HintsChosen)
    def _hints_chosen(self, message: HintsChosen) -> None:
        self.store.hints = message.on  # for the next start too

    @on(HandOrdered)
    def _hand_ordered(self, message: HandOrdered) -> None:
        screen = self.table_screen
        view = None if screen is None else screen.view
        place = None if view is None else self._hand_place(view.deal)
        if place is not None and self.owns_seat_token:
            self.store.remember_hand(self.store_key, HandMemory(place, message.order, message.fresh))

    @work(exclusive=True, group="how-to-play")
    async def _offer_how_to_play(self) -> None:
        """The first game against bots offers the short how-to-play, once."""
        self.store.mark_seen(HOW_TO_PLAY_OFFERED)
        # Said when the game waits for the answer: the table under the offer is empty.
        waits = " The cards are dealt once you choose." if self.start_held else ""
        read = await self.push_screen_wait(
            ConfirmScreen(
                f"New to Persian Rummy? Read how to play first (two minutes; later it is under ?).{waits}",
                "Read it",
                "Play now",
            )
        )
        if read and self.table_screen is not None:
            # The table's own help, opened at how to play: its first page lists the
            # table's keys (it was opened with none, and "1 Keys" showed a bare title).
            await self.push_screen_wait(self.table_screen.help_screen(page="how"))
        self._release_start()  # the first deal is dealt now, before the player's eyes

    # --- clocks and chat -------------------------------------------------------------------

    def _clock(self, clock: Clock) -> None:
        timer = None
        if clock.kind != "off":
            timer = TurnTimer(clock.kind, clock.seat, clock.remaining or 0.0, time.monotonic(), clock.paused)
        if self.table_screen is not None:
            self.table_screen.set_clock(timer)

    def _chat(self, line: ChatLine) -> None:
        name, said = text.clean(line.name, 24), text.clean(line.text, 400)
        table = self.session.table
        if line.by == "player" and table is not None and table.table_id == line.table_id:
            # The player in that chair (if still there), by the name the table shows them
            # by: two of one name are "Ana" and "Ana (2)" here as at the table.
            chair = next((c for c in table.chairs if c.chair == line.chair), None)
            if chair is not None and chair.name == line.name:
                name = chair_names(table)[chair.chair]
        elif line.by == "spectator" and line.spectator is not None and table is not None:
            # The spectator by their number: two watchers of one name are "Ana" and
            # "Ana (2)" here as in the list of watchers, and neither is the player "Ana".
            # One not in the list (gone, or come since its last push) is named as if
            # they were in it: numbers are given in turn, so they rank as they came.
            watchers = [w for w in self.watchers if w.spectator != line.spectator]
            watchers.append(SpectatorInfo(spectator=line.spectator, name=line.name))
            name = watcher_names(table, watchers)[line.spectator]
        if self.ascii:
            name, said = text.to_ascii(name), text.to_ascii(said)
        if line.by == "server" or not name:
            who = Content.styled("table", "italic")
        else:
            who = text.plain(name, "bold", limit=24)
            if line.by == "spectator":
                who = Content.assemble(who, Content.styled(" (watching)", "dim"))
        content = Content.assemble(who, ": ", text.plain(said, limit=400))
        self.chat.append(content)
        del self.chat[:-100]
        if self.lobby is not None:
            self.lobby.add_chat(content)
        if self.table_screen is not None:
            self.table_screen.add_chat_line(content)

    # --- answers -------------------------------------------------------------------------------

    def _ok(self, request: type[ClientMessage] | None, request_id: int) -> None:
        if request is MoveRequest and request_id == self.move_request:
            self.move_request = None
        elif request is Leave:
            # During a game the server holds the chair (away) for its token: keep it.
            table, seated = self.session.table, self.session.seated
            held = table.table_id if table is not None and seated and table.status == "playing" else None
            self._left_table(held=held)
        elif request is PlayAgain:
            view = None if self.table_screen is None else self.table_screen.view
            if view is not None and view.phase == "game_over":  # not started at once
                self.notify("Asked for another game: it starts when all four want one.")

    def _error(self, error: Error, request: type[ClientMessage] | None) -> None:
        if request is History and self.history_request is not None and error.id == self.history_request[0]:
            self.history_request = None
            if (history := self._history_shown()) is not None:
                history.failed()
        if request is GetRecord and error.id == self.record_request:
            self.record_request = None
        if request is MoveRequest:
            if error.id == self.move_request:
                self.move_request = None
            if self.table_screen is not None:
                self.table_screen.refused(error.text)
            return
        if request is Sit and self.sit_request is not None and error.id == self.sit_request[0]:
            (_, table_id, chair), self.sit_request = self.sit_request, None
            if error.code == codes.CHAIR_TAKEN and self.lobby is not None:
                # Someone sat there in the same instant: ask again with the chairs still
                # free, rather than leave it at an error. The list may not say so yet
                # (it follows within half a second): that chair is left out anyway.
                self.lobby.choose_chair(
                    table_id, "Someone took that chair just before you. Sit in which chair?", taken=chair
                )
                return
        if error.code == codes.NOT_AT_TABLE and request is Leave:
            self._left_table()
            return
        if error.code == codes.REPLACED:
            self._replaced()
            return
        if error.code == codes.BAD_TOKEN:
            self.forget_token()
        self.notify(text.clean(error.text, 300), title="The server says", severity="error")

    def _replaced(self) -> None:
        """Another connection took this chair with its token: this client is no longer
        at the table and must not look as if it were."""
        self._clear_table()  # the token stays: it is the other client's now too
        local = self.local  # the local game quits, but only once the player has read why
        where = "Quit" if local else "Back to the lobby"
        self.push_screen(
            NoticeScreen(
                "Your chair was taken over",
                "Another connection came back to your chair with its seat token: another "
                "rummy-client playing as you (in another window, or on another machine with a "
                "copy of your state directory). This window is no longer at that table; the "
                "other one plays your hand now. To play two players from one machine, give each "
                "its own --name.",
                where,
            ),
            callback=lambda _: self.exit() if local else None,
        )

    def _left_table(self, held: int | None = None) -> None:
        """No table any more; ``held``: the table that holds our chair (keep its token)."""
        if held is None:
            self.forget_token()
        self._clear_table()
        self.session.held = held
        if self.local:
            self.exit()

    def _clear_table(self) -> None:
        """Back in the lobby: no table, no chair, no table screen."""
        self.session.leave()
        self.tally, self.last_game = [], None
        self.watchers = []
        self.chat.clear()
        if self.lobby is not None:
            self.lobby.clear_chat()
            self.lobby.show_mine()
        self._drop_table_screen()

    def _drop_table_screen(self) -> None:
        screen, self.table_screen = self.table_screen, None
        if screen is not None and screen in self.screen_stack:
            while self.screen is not screen:
                self.pop_screen()
            self.pop_screen()

    # --- what the screens ask for --------------------------------------------------------

    @on(PlayMove)
    def _play(self, message: PlayMove) -> None:
        if self.move_request is not None:
            return  # one move at a time: a second key press waits for the first answer
        self.move_request = self.send(
            MoveRequest, move=move_to_wire(message.move), after=self.session.moves_seen
        )

    @on(SendChat)
    def _send_chat(self, message: SendChat) -> None:
        self.send(Chat, text=message.text)

    @on(ReadyForNextDeal)
    def _ask_ready(self) -> None:
        self.send(Ready)

    @on(PlayAgainRequested)
    def _again(self) -> None:
        self.send(PlayAgain)

    @on(LeaveTable)
    def _leave(self, message: LeaveTable) -> None:
        table = self.session.table
        if self.session.table_id is None:
            self._left_table()
        elif message.keep_chair and self.session.seated and table is not None and table.status == "waiting":
            # Seen in tmux: after a game a player left, b ("b: the lobby") left the table
            # as well, its creator's part went to one still on the game's last screen,
            # and no one in the lobby could start the next game.
            self._drop_table_screen()
            if self.lobby is not None:
                self.lobby.show_mine()
        else:
            self.send(Leave)

    @on(CreateTableRequested)
    def _create(self, request: CreateTableRequested) -> None:
        options = TableOptions(
            seating="chosen" if request.seating == "chosen" else "draw",
            turn_seconds=request.turn_seconds,
            on_drop="bot" if request.on_drop == "bot" else "wait",
        )
        self.send(CreateTable, name=request.name, options=options, chair=request.chair)

    @on(SitRequested)
    def _sit(self, request: SitRequested) -> None:
        request_id = self.send(Sit, table_id=request.table_id, chair=request.chair)
        self.sit_request = None if request_id is None else (request_id, request.table_id, request.chair)

    @on(RejoinRequested)
    def _rejoin(self) -> None:
        token = self.remembered_token()  # kept while a chair is held (forgetting it clears ``held``)
        if token is not None:
            self.send(Rejoin, token=token)

    @on(WatchRequested)
    def _watch(self, request: WatchRequested) -> None:
        self.session.watch(request.table_id)
        self.send(Watch, table_id=request.table_id)

    @on(BotRequested)
    def _bot(self, request: BotRequested) -> None:
        if request.add:
            self.send(AddBot, chair=request.chair, level=request.level)
        else:
            self.send(RemoveBot, chair=request.chair)

    @on(StartRequested)
    def _start(self) -> None:
        self.send(Start)

    @on(OpenTable)
    def _open(self) -> None:
        if self.table_screen is not None:
            self._show_table()

    # --- the history and replays -----------------------------------------------------------

    @on(OpenHistory)
    def _open_history(self) -> None:
        if self.history_screen is not None and self.history_screen in self.screen_stack:
            return
        from .screens.history import HistoryScreen

        self.history_screen = HistoryScreen(self.ascii, self.clock)
        self.push_screen(self.history_screen)  # it asks for its first page once mounted

    @on(HistoryWanted)
    def _history_wanted(self, wanted: HistoryWanted) -> None:
        request_id = self.send(History, before=wanted.before)
        self.history_request = None if request_id is None else (request_id, wanted.before)
        if request_id is None and (history := self._history_shown()) is not None:
            history.failed()

    def _history_page(self, page: HistoryPage) -> None:
        asked = self.history_request
        if asked is None or page.id != asked[0]:
            return  # an answer to a request made before the last one
        self.history_request = None
        if (history := self._history_shown()) is not None:
            history.show_page(page, first=asked[1] is None)

    def _history_shown(self) -> HistoryScreen | None:
        """The history screen while it has its widgets: mounted, and not closed. (A
        closed one still says it is mounted, but its list is gone: an answer that came
        after it was closed, told to it, ended the client.)"""
        history = self.history_screen
        if history is None or not history.is_mounted or history not in self.screen_stack:
            return None
        return history

    @on(ReplayRequested)
    def _replay_requested(self, wanted: ReplayRequested) -> None:
        if self.record_request is None:  # one at a time: enter pressed twice opens one replay
            self.record_request = self.send(GetRecord, game_id=wanted.game_id)

    def _record(self, answer: Record) -> None:
        if answer.id != self.record_request:
            return
        self.record_request = None
        self._open_replay(answer.record, replay_title(answer.record, self.clock()), standalone=False)

    def _open_replay(self, record: GameRecordWire, title: str, standalone: bool) -> None:
        """Open the replay of ``record`` (it is checked as it is replayed)."""
        from .replay import Replay
        from .screens.replay import ReplayScreen

        try:
            replay = Replay(record, me=self.player_name)
        except RecordError as error:
            self.notify(str(error), title="This game cannot be replayed", severity="error")
            if standalone:
                self.exit(return_code=1, message=str(error))
            return
        self.push_screen(
            ReplayScreen(
                replay, title, self.look, standalone=standalone, can_save=not (standalone or self.hosted)
            )
        )

    @on(SaveRecordRequested)
    def _save_record(self, request: SaveRecordRequested) -> None:
        try:
            server = (
                LOCAL_KEY if self.local or self.address is None else f"{self.address[0]}:{self.address[1]}"
            )
            path = save_record(self.store.directory, server, request.record)
        except OSError as error:
            self.notify(f"The game could not be saved: {error.strerror or error}", severity="error")
            return
        # A dialog, not a toast: it stays until closed, so the path can be copied, and it
        # is wide enough for the path on a line of its own (a toast cut it mid-word).
        shown = shell_path(path)
        self.push_screen(
            NoticeScreen(
                "Game saved",
                f"It is in {shown}\n\nWatch it again with:\nrummy-client --replay {shown}",
                "Close",
            )
        )

    # --- the terminal's size, quitting ---------------------------------------------------------

    def on_resize(self, event: Resize) -> None:
        self._check_size(event.size.width, event.size.height)

    def _check_size(self, width: int, height: int) -> None:
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        top = self.screen
        if small and isinstance(top, TooSmallScreen):
            top.show_size(width, height)
        elif small:
            self.push_screen(TooSmallScreen())
        elif isinstance(top, TooSmallScreen):
            self.pop_screen()

    async def action_quit(self) -> None:
        """Quitting during a game asks first (the table screen knows whether one runs),
        and so does quitting the lobby while in a chair (the lobby knows)."""
        for screen in reversed(self.screen_stack):
            if isinstance(screen, TableScreen):
                screen.action_quit()
                return
        if self.lobby is not None and self.lobby.is_current:
            self.lobby.action_quit()
            return
        self.exit()
