"""The client app: the lobby and table screens, fed by one connection to a server.

The app is the one place that knows the protocol's messages: it turns what the
server says into calls on the screens (``show_tables``, ``update``...), and what
the screens ask for (app-wide messages from ``messages.py``) into requests. For
the game against bots (no address given) it first starts a server inside this
process, on a free loopback port, through ``rummy.server.start_server``.
"""

from __future__ import annotations

import contextlib
import sys
import time
import traceback
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import App
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.events import Resize
from textual.reactive import reactive

from rummy.protocol import (
    AddBot,
    BotLevel,
    Chat,
    ChatLine,
    Clock,
    CreateTable,
    Error,
    GameUpdate,
    Leave,
    Lobby,
    LobbyGone,
    LobbyTable,
    MoveRequest,
    Ok,
    PlayAgain,
    Ready,
    RemoveBot,
    Seated,
    Sit,
    Start,
    Table,
    TableInfo,
    TableOptions,
    Watch,
    Watching,
    Welcome,
    event_from_wire,
    move_to_wire,
    view_from_wire,
)
from rummy.protocol import errors as codes

from . import text
from .connection import Connection, ConnectionChanged, ServerSaid
from .messages import (
    BotRequested,
    CreateTableRequested,
    LeaveTable,
    OpenTable,
    PlayAgainRequested,
    PlayMove,
    ReadyForNextDeal,
    SendChat,
    SitRequested,
    StartRequested,
    WatchRequested,
)
from .model import SeatInfo, Seats, TurnTimer
from .screens.lobby import LobbyScreen
from .screens.modals import MIN_HEIGHT, MIN_WIDTH, NoticeScreen, TooSmallScreen
from .screens.table import TableScreen
from .state import LOCAL, SeatLock, SeatToken, StateStore, seat_key
from .widgets.status import ConnectionBanner

LOCAL_KEY = LOCAL


def seats_of(info: TableInfo | None, me: int | None) -> Seats:
    """Who sits in each engine seat: a chair plays from ``ChairInfo.seat`` once the
    game runs (the draw for partners maps chairs to seats, R2.2), else its own number."""
    seats: list[SeatInfo | None] = [None, None, None, None]
    if info is not None:
        for chair in info.chairs:
            if chair.name is None:
                continue
            seat = chair.seat if chair.seat is not None else chair.chair
            level = text.clean(chair.level, 10) if chair.bot and chair.level else None
            seats[seat] = SeatInfo(text.clean(chair.name, 24), chair.bot, chair.present, chair.ready, level)
    return Seats.of(seats, me)


class RummyApp(App[None]):
    """``address`` (host, port) of a server, or ``local`` for the game against bots."""

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
        store: StateStore | None = None,
        connect: bool = True,
        server_options: dict[str, Any] | None = None,
        bot_levels: tuple[BotLevel, BotLevel, BotLevel] = ("normal", "normal", "normal"),
    ) -> None:
        super().__init__()
        self.player_name = player_name
        self.asked_name = player_name
        self.address = address
        self.local = local
        self.ascii = ascii
        self.store = store if store is not None else StateStore()
        self.connect = connect
        self.server_options = server_options or {}
        self.bot_levels = bot_levels  # the local game's three bots, chairs 1 to 3
        # The seat token is this player's at this server: only one running client may
        # use (and remember) it; a second one plays with a token kept in memory.
        self.seat_lock = SeatLock(self.store.directory, self.store_key)
        self.owns_seat_token = False
        self.token_in_memory: str | None = None
        self.server: Any = None  # the in-process server of the local game
        self.connection: Connection | None = None
        self.lobby = LobbyScreen(player_name, "" if address is None else f"{address[0]}:{address[1]}")
        self.table_screen: TableScreen | None = None
        self.tables: dict[int, TableInfo] = {}
        self.my_table: TableInfo | None = None
        self.my_table_id: int | None = None
        self.my_chair: int | None = None
        self.my_seat: int | None = None
        self.watching = False
        self.moves_seen = 0
        self.move_request: int | None = None
        self.chat: list[Content] = []
        if not connect:  # driven by hand (tests): nothing to wait for
            self.set_reactive(RummyApp.connection_status, "")

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
        if self.owns_seat_token:
            self.store.forget_seat(self.store_key)

    # --- start and stop --------------------------------------------------------------

    def on_mount(self) -> None:
        self.push_screen(self.lobby)
        self.owns_seat_token = self.seat_lock.acquire()
        if not self.owns_seat_token:
            self.lobby.set_notice(self._lock_taken_text())
            if self.local:  # the table comes up at once: say it there too
                self.notify(self._lock_taken_text(), title="Not saved", severity="warning", timeout=15)
        if self.connect:
            if self.local:
                self.run_worker(self._start_local(), name="local-server", group="net", exit_on_error=False)
            elif self.address is not None:
                self._connect(*self.address)
        self._check_size(self.size.width, self.size.height)

    async def _start_local(self) -> None:
        from rummy.server import start_server  # only the local game needs the server

        db_path = None
        if self.owns_seat_token:  # else another local game has the saved one open
            with contextlib.suppress(OSError):
                self.store.directory.mkdir(parents=True, exist_ok=True)
                db_path = self.store.directory / "local.sqlite"
        reason: Exception | None = None
        for path in (db_path, None) if db_path is not None else (None,):
            try:
                self.server = await start_server("127.0.0.1", 0, path, **self.server_options)
                break
            except Exception as e:  # a damaged saved game must not stop a new one
                reason = e
        if self.server is None:
            self.connection_status = f"The local game could not start: {reason}"
            return
        self._connect("127.0.0.1", self.server.port)

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

    def _connect(self, host: str, port: int) -> None:
        self.connection = Connection(host, port, self.player_name, self.post_message, self.remembered_token)
        self.run_worker(self.connection.run(), name="connection", group="net", exit_on_error=False)

    async def on_unmount(self) -> None:
        if self.connection is not None:
            await self.connection.close()
        if self.server is not None:
            await self.server.close()
        self.seat_lock.release()

    # --- the connection ----------------------------------------------------------------

    @on(ConnectionChanged)
    def _connection_changed(self, event: ConnectionChanged) -> None:
        self.connection_status = event.status
        if event.status:
            self.move_request = None

    def watch_connection_status(self, status: str) -> None:
        for screen in self.screen_stack:
            for banner in screen.query(ConnectionBanner):
                banner.show_status(status)

    def send(self, kind: str, factory: Any, **fields: Any) -> int | None:
        """Send a request; says so and returns None while there is no connection."""
        request_id = None if self.connection is None else self.connection.request(kind, factory, **fields)
        if request_id is None:
            self.notify(
                "Not connected to the server: wait for the connection to come back.", severity="warning"
            )
        return request_id

    @on(ServerSaid)
    def _server_said(self, event: ServerSaid) -> None:
        if self._closing or self._exit:
            return  # the app is on its way out; the screens may be gone
        message, kind = event.message, event.kind
        match message:
            case Welcome():
                self._welcome(message)
            case Lobby(tables):
                self.tables = {t.table_id: t for t in tables}
                self.lobby.show_tables(self.tables)
            case LobbyTable(table):
                self.tables[table.table_id] = table
                self.lobby.show_tables(self.tables)
            case LobbyGone(table_id):
                self.tables.pop(table_id, None)
                self.lobby.show_tables(self.tables)
                if table_id == self.my_table_id:
                    self._left_table()
            case Table(table):
                self._table(table)
            case GameUpdate():
                self._game(message)
            case Clock():
                self._clock(message)
            case ChatLine():
                self._chat(message)
            case Seated():
                self._seated(message, kind)
            case Watching(table_id=table_id):
                self.my_table_id, self.my_chair, self.watching = table_id, None, True
            case Ok():
                self._ok(kind, message.id)
            case Error():
                self._error(message, kind)

    def _welcome(self, welcome: Welcome) -> None:
        self.player_name = welcome.name
        self.lobby.set_identity(welcome.name, self.lobby.address)
        if welcome.table_id is not None:  # the remembered token took our chair back
            self.my_table_id, self.my_chair, self.watching = welcome.table_id, welcome.chair, False
            return
        if welcome.token_refused:
            self.forget_token()  # that table is gone
        if self.my_table_id is not None:
            self.notify("Your table is gone: the server no longer has it.", severity="warning")
            self._left_table()
        if self.local:  # the game against bots: one table, three bots, start
            self.send("create", CreateTable, name="Game against bots", options=TableOptions(), chair=0)

    def _seated(self, seated: Seated, kind: str | None) -> None:
        self.remember_token(seated)
        self.my_table_id, self.my_chair, self.watching = seated.table_id, seated.chair, False
        self.chat.clear()
        self.lobby.clear_chat()
        if kind == "create" and self.local:
            for chair, level in zip((1, 2, 3), self.bot_levels, strict=True):
                self.send("bot", AddBot, chair=chair, level=level)
            self.send("start", Start)

    def _table(self, info: TableInfo) -> None:
        if info.table_id != self.my_table_id:
            self.my_table_id = info.table_id
        self.my_table = info
        self.tables[info.table_id] = info
        self.lobby.show_mine(info, self.my_chair, self.watching)
        if self.table_screen is not None:
            self.table_screen.set_seats(seats_of(info, self.my_seat))

    def _game(self, update: GameUpdate) -> None:
        try:
            view = view_from_wire(update.view)
            events = [event_from_wire(e) for e in update.events]
        except (ValueError, TypeError):
            self.notify("The server sent a game this client cannot show.", severity="error")
            return
        self.moves_seen = update.moves
        self.my_seat = update.seat
        fresh = self.table_screen is None
        screen = self._show_table()
        if fresh and not events and update.moves:  # joined (or came back) mid-game
            back = "You are back at your seat." if update.seat is not None else "You are watching this game."
            screen.note(back)
        screen.update(view, seats_of(self.my_table, update.seat), events)

    def _show_table(self) -> TableScreen:
        if self.table_screen is None:
            name = self.my_table.name if self.my_table is not None else ""
            self.table_screen = TableScreen(self.ascii, table_name=name)
            for line in self.chat:
                self.table_screen.add_chat_line(line)
        if self.table_screen not in self.screen_stack:
            self.push_screen(self.table_screen)
        return self.table_screen

    def _clock(self, clock: Clock) -> None:
        timer = None
        if clock.kind != "off":
            timer = TurnTimer(clock.kind, clock.seat, clock.remaining or 0.0, time.monotonic(), clock.paused)
        if self.table_screen is not None:
            self.table_screen.set_clock(timer)

    def _chat(self, line: ChatLine) -> None:
        if line.by == "server" or not line.name:
            who = Content.styled("table", "italic")
        else:
            who = text.plain(line.name, "bold", limit=24)
            if line.by == "spectator":
                who = Content.assemble(who, Content.styled(" (watching)", "dim"))
        content = Content.assemble(who, ": ", text.plain(line.text, limit=400))
        self.chat.append(content)
        del self.chat[:-100]
        self.lobby.add_chat(content)
        if self.table_screen is not None:
            self.table_screen.add_chat_line(content)

    def _ok(self, kind: str | None, request_id: int) -> None:
        if kind == "move" and request_id == self.move_request:
            self.move_request = None
        elif kind == "leave":
            self._left_table()
        elif kind == "again":
            view = None if self.table_screen is None else self.table_screen.view
            if view is not None and view.phase == "game_over":  # not started at once
                self.notify("Asked for another game: it starts when all four want one.")

    def _error(self, error: Error, kind: str | None) -> None:
        if kind == "move":
            if error.id == self.move_request:
                self.move_request = None
            if self.table_screen is not None:
                self.table_screen.refused(error.text)
            return
        if error.code == codes.NOT_AT_TABLE and kind == "leave":
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

    def _left_table(self) -> None:
        self.forget_token()
        self._clear_table()
        if self.local:
            self.exit()

    def _clear_table(self) -> None:
        """Back in the lobby: no table, no chair, no table screen."""
        self.my_table = None
        self.my_table_id = self.my_chair = self.my_seat = None
        self.watching = False
        self.chat.clear()
        self.lobby.clear_chat()
        self.lobby.show_mine(None, None, False)
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
            "move", MoveRequest, move=move_to_wire(message.move), after=self.moves_seen
        )

    @on(SendChat)
    def _send_chat(self, message: SendChat) -> None:
        self.send("chat", Chat, text=message.text)

    @on(ReadyForNextDeal)
    def _ask_ready(self) -> None:
        self.send("ready", Ready)

    @on(PlayAgainRequested)
    def _again(self) -> None:
        self.send("again", PlayAgain)

    @on(LeaveTable)
    def _leave(self) -> None:
        if self.my_table_id is None:
            self._left_table()
        else:
            self.send("leave", Leave)

    @on(CreateTableRequested)
    def _create(self, request: CreateTableRequested) -> None:
        options = TableOptions(
            seating="chosen" if request.seating == "chosen" else "draw",
            turn_seconds=request.turn_seconds,
            on_drop="bot" if request.on_drop == "bot" else "wait",
        )
        self.send("create", CreateTable, name=request.name, options=options, chair=request.chair)

    @on(SitRequested)
    def _sit(self, request: SitRequested) -> None:
        self.send("sit", Sit, table_id=request.table_id, chair=request.chair)

    @on(WatchRequested)
    def _watch(self, request: WatchRequested) -> None:
        self.my_table_id, self.watching = request.table_id, True
        self.send("watch", Watch, table_id=request.table_id)

    @on(BotRequested)
    def _bot(self, request: BotRequested) -> None:
        if request.add:
            self.send("bot", AddBot, chair=request.chair, level=request.level)
        else:
            self.send("bot", RemoveBot, chair=request.chair)

    @on(StartRequested)
    def _start(self) -> None:
        self.send("start", Start)

    @on(OpenTable)
    def _open(self) -> None:
        if self.table_screen is not None:
            self._show_table()

    # --- the terminal's size, quitting, the command palette ---------------------------------

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

    def _fatal_error(self) -> None:
        """A bug: the player gets a sentence, the traceback goes to a file.

        Overrides Textual's handler (which prints the traceback on the terminal);
        Textual still exits, and tests still see the exception (``run_test``)."""
        error = sys.exc_info()[1] or self._exception
        where = self.store.directory / "client-error.log"
        try:
            self.store.directory.mkdir(parents=True, exist_ok=True)
            with where.open("a", encoding="utf-8") as log:
                log.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')}\n{traceback.format_exc()}\n")
            saved = f" The details are in {where}."
        except OSError:
            saved = ""
        self.bell()
        self._exit_renderables.append(
            Text(f"rummy-client stopped on an unexpected error ({type(error).__name__}).{saved}")
        )
        self._close_messages_no_wait()

    async def action_quit(self) -> None:
        """Quitting during a game asks first (the table screen knows whether one runs)."""
        for screen in reversed(self.screen_stack):
            if isinstance(screen, TableScreen):
                screen.action_quit()
                return
        self.exit()
