"""The table: one game as this player sees it, and every action of a turn.

The screen shows what the engine's ``PlayerView`` holds and asks the app (with
``PlayMove``) to play the moves the player chooses; the server decides. Every
choice offered (which meld a card goes to, what a take from the discard pile
does) is read from ``view.legal_moves()``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.events import Resize
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Footer, Input, Static

from rummy.engine import (
    Card,
    Discard,
    DrawStock,
    Event,
    LayOff,
    MeldMove,
    Move,
    Pass,
    PlayerView,
    card_text,
)

from .. import advice, text
from ..commands import ScreenActions
from ..describe import event_line
from ..messages import LeaveTable, PlayAgainRequested, PlayMove, ReadyForNextDeal, SendChat
from ..model import Seats, TurnTimer
from ..widgets.feed import Feed
from ..widgets.status import ConnectionBanner
from ..widgets.table.hand import HandView
from ..widgets.table.melds import MeldClicked, MeldsView
from ..widgets.table.pile import DiscardPileView
from ..widgets.table.players import PlayersView
from ..widgets.table.score import ScoreLine
from .modals import ChooseScreen, ConfirmScreen, HelpScreen
from .results import DealEndScreen, GameEndScreen

HAND_KEYS: list[tuple[str, str]] = [
    ("left / right", "move along the hand (or the discard pile)"),
    ("space", "select or unselect the card"),
    ("1 … 9, 0", "select or unselect card 1 … 10"),
    ("shift+left/right, < >", "move the card: your own order"),
    ("home / end", "first / last card"),
    ("escape", "unselect every card (elsewhere: back to the hand)"),
    ("tab / shift+tab", "hand, discard pile, melds, log, chat (arrows scroll)"),
    ("mouse", "click a card to select it; a pile card to take; a meld to lay off"),
]


class TableScreen(Screen[None]):
    """One table. ``update`` shows a new view; ``ready``/``play_again`` are app hooks."""

    CSS_PATH = "../styles/table.tcss"
    AUTO_FOCUS = "HandView"

    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {ScreenActions}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "draw", "Draw"),
        Binding("t", "take", "Take"),
        Binding("m", "meld", "Meld"),
        Binding("l", "lay_off", "Lay off"),
        Binding("d", "discard", "Discard"),
        Binding("p", "pass_turn", "Pass"),
        Binding("n", "next_deal", "Next deal"),
        Binding("r", "results", "Scores"),
        Binding("a", "play_again", "Play again"),
        Binding("h", "hint", "Hints"),
        Binding("o", "sort", "Sort"),
        Binding("escape", "clear", "Unselect", show=False),
        Binding("tab", "cycle_focus(1)", "Next area", show=False),
        Binding("shift+tab", "cycle_focus(-1)", "Previous area", show=False),
        Binding("c", "chat", "Chat"),
        Binding("b", "leave", "Lobby", show=False),
        Binding("question_mark", "help", "Keys"),
        Binding("q", "quit", "Quit"),
    ]

    view: reactive[PlayerView | None] = reactive(None, init=False)
    show_hints: reactive[bool] = reactive(False, init=False)

    def __init__(self, ascii: bool = False, table_name: str = "", name: str | None = None) -> None:
        super().__init__(name=name)
        self.ascii = ascii
        self.table_name = table_name
        self.seats = Seats()
        self.timer: TurnTimer | None = None
        self._ticker: Timer | None = None
        self._shown_results = 0
        self._results_open = False
        self._pending: list[tuple[str, Content]] = []
        self._composed = False  # composed and mounted: the widgets can be queried

    # --- layout -----------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield ConnectionBanner()
        yield ScoreLine(self.ascii, id="score")
        yield PlayersView(self.ascii, id="players")
        yield DiscardPileView(self.ascii, id="pile")
        yield MeldsView(self.ascii, id="melds")
        yield Static(id="prompt")
        yield HandView(self.ascii, id="hand")
        with Horizontal(id="bottom"):
            yield Feed("Moves appear here.", id="log")
            with Vertical(id="chat-area"):
                yield Feed("Chat: press c to say something.", id="chat")
                yield Input(
                    placeholder="Say something (enter sends, escape leaves)", id="chat-input", compact=True
                )
        yield Footer(compact=True)

    @property
    def hand(self) -> HandView:
        return self.query_one(HandView)

    @property
    def pile(self) -> DiscardPileView:
        return self.query_one(DiscardPileView)

    # --- what the app tells the screen ------------------------------------------------

    def update(self, view: PlayerView, seats: Seats | None = None, events: Sequence[Event] = ()) -> None:
        """Show a new view (and the events that led to it)."""
        if seats is not None:
            self.seats = seats
        for event in events:
            line = event_line(event, self.seats, self.ascii)
            if line is not None:
                self._feed_line(line)
        self.view = view

    @property
    def _live(self) -> bool:
        """Composed and not being taken down: the widgets can be queried."""
        return self._composed and not self._closing and not self._pruning

    def _feed_line(self, line: Content, feed: str = "log") -> None:
        target = next(iter(self.query(f"#{feed}").results(Feed)), None) if self._live else None
        if target is not None:
            target.add(line)
        elif not self._composed:  # lines that arrive before the screen is up wait for it
            self._pending.append((feed, line))
        # else the screen is being taken down: nobody will read the line

    def on_resize(self, event: Resize) -> None:
        # More rows go to the log and chat; the rest to the melds (1fr).
        self.set_class(event.size.height >= 32, "-tall")

    def on_mount(self) -> None:
        # The widgets' own children are mounted by the next refresh, not yet now: a view
        # that arrives with the screen (a client back at its seat) waits until then.
        self.call_after_refresh(self._ready)

    def _ready(self) -> None:
        self._composed = True
        for feed, line in self._pending:
            self.query_one(f"#{feed}", Feed).add(line)
        self._pending.clear()
        self._render_view()

    def set_seats(self, seats: Seats) -> None:
        self.seats = seats
        self._render_view()

    def set_clock(self, timer: TurnTimer | None) -> None:
        """A clock started or stopped; the screen ticks once a second only while one runs."""
        self.timer = timer
        running = timer is not None and not timer.paused
        if running and self._ticker is None:
            self._ticker = self.set_interval(1.0, self._tick)
        elif not running and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        self._tick()

    def add_chat(self, who: str, said: str, style: str = "bold") -> None:
        """A chat line; ``who`` and ``said`` are players' text, shown literally."""
        who_part = text.plain(who, style) if who else Content.styled("table", "italic")
        self.add_chat_line(Content.assemble(who_part, ": ", text.plain(said, limit=400)))

    def add_chat_line(self, line: Content) -> None:
        self._feed_line(line, "chat")

    def refused(self, sentence: str) -> None:
        """The server refused a move: say why, in its own words."""
        line = Content.assemble(Content.styled("Refused: ", "bold"), text.plain(sentence, limit=400))
        self._feed_line(line)
        self.notify(text.clean(sentence, 400), title="Move refused", severity="error")

    def note(self, sentence: str) -> None:
        """A line of the client's own in the log."""
        self._feed_line(Content.styled(sentence, "italic"))

    # --- drawing -----------------------------------------------------------------------

    def watch_view(self, old: PlayerView | None, view: PlayerView | None) -> None:
        self._render_view()
        if view is None:
            return
        if old is None or len(view.results) < self._shown_results:
            # The first view (joining, rejoining) or a new game: earlier deals are
            # not news; a deal that has just ended is.
            ended = view.phase in ("deal_over", "game_over")
            self._shown_results = len(view.results) - (1 if ended else 0)
        if view.phase in ("draw", "meld"):
            for screen in self.app.screen_stack:
                if isinstance(screen, DealEndScreen) and screen.can_start:
                    screen.moved_on()
        if len(view.results) > self._shown_results:
            self._shown_results = len(view.results)
            self.call_after_refresh(self.action_results)

    def watch_show_hints(self) -> None:
        self._render_view()

    def _render_view(self) -> None:
        view = self.view
        if view is None or not self._live:
            return
        hand = self.hand
        hand.set_cards(view.hand or ())
        self.pile.set_pile(view.discard_pile, view.stock_count)
        self.pile.armed = view.my_turn and view.phase == "draw"
        hints = advice.hints(view) if self.show_hints else advice.Hints()
        hand.hints = hints.hand
        self.pile.hints = hints.pile
        self.query_one(MeldsView).show(view.melds, self.seats, hints.melds)
        self.query_one(PlayersView).show(view, self.seats, self.timer)
        self.query_one(ScoreLine).view = view
        self._show_prompt()
        self.refresh_bindings()

    def _show_prompt(self) -> None:
        prompt = advice.prompt(
            self.view, self.seats, self.hand.chosen if self.hand.selected else [], self.ascii
        )
        timer = self.timer
        if timer is not None and timer.kind == "next_deal":
            left = timer.left(time.monotonic())
            prompt = Content.assemble(prompt, f" The next deal starts in {left} s.")
        self.query_one("#prompt", Static).update(prompt)

    def _tick(self) -> None:
        if self.view is not None and self._live:
            players = self.query_one(PlayersView)
            players.timer = self.timer
            players.refresh()
            self._show_prompt()

    @on(HandView.Changed)
    def _hand_changed(self) -> None:
        self._show_prompt()

    # --- which actions apply now (the footer shows only these) --------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        view = self.view
        turn = view is not None and view.my_turn
        phase = view.phase if view is not None else None
        if action in ("draw", "take"):
            if action == "draw":
                return turn and phase == "draw" and view is not None and view.stock_count > 0
            return turn and phase == "draw"
        if action == "pass_turn":
            return turn and phase == "draw" and view is not None and view.stock_count == 0
        if action in ("meld", "lay_off", "discard"):
            return turn and phase == "meld"
        if action == "next_deal":
            return view is not None and view.seat is not None and phase == "deal_over"
        if action == "results":
            return view is not None and bool(view.results)
        if action == "play_again":
            return view is not None and view.seat is not None and phase == "game_over"
        if action == "leave":
            return self.app_has_lobby
        if action == "hint":
            return turn and phase in ("draw", "meld")
        return True

    # --- the actions of a turn -----------------------------------------------------------

    def _play(self, move: Move) -> None:
        self.post_message(PlayMove(move))

    def action_draw(self) -> None:
        self._play(DrawStock())

    def action_pass_turn(self) -> None:
        self._play(Pass())

    def action_take(self) -> None:
        self._take(self.pile.cursor)

    @on(DiscardPileView.TakeRequested)
    def _take_requested(self, event: DiscardPileView.TakeRequested) -> None:
        if self.check_action("take", ()):
            self._take(event.index)

    @work(exclusive=True, group="choose")
    async def _take(self, index: int) -> None:
        view = self.view
        if view is None or not view.discard_pile:
            return
        index = max(0, min(index, len(view.discard_pile) - 1))
        options = advice.take_options(view, index, self.hand.selected)
        target = card_text(view.discard_pile[index], self.ascii)
        if not options:
            self.notify(
                f"The {target} cannot be used now: it makes no meld with your cards and fits no meld "
                "on the table. Taking from the discard pile needs a use for that card (R4.1).",
                title="Cannot take",
                severity="warning",
            )
            return
        move = await self._choose(f"Take from the {target}: use it how?", options)
        if move is not None:
            await self._play_checked(move)

    def action_meld(self) -> None:
        cards = self.hand.chosen if self.hand.selected else []
        if not cards:
            self.notify("Select the cards to meld first (space, or the number keys).", severity="warning")
            return
        self._meld(tuple(cards))

    @work(exclusive=True, group="choose")
    async def _meld(self, cards: tuple[Card, ...]) -> None:
        await self._play_checked(MeldMove(cards))

    def action_lay_off(self) -> None:
        cards = self.hand.chosen
        if len(cards) != 1:
            self.notify("Select one card to lay off.", severity="warning")
            return
        self._lay_off(cards[0], None)

    @on(MeldClicked)
    def _meld_clicked(self, event: MeldClicked) -> None:
        cards = self.hand.chosen
        if self.check_action("lay_off", ()) and len(cards) == 1:
            self._lay_off(cards[0], event.meld_id)

    @work(exclusive=True, group="choose")
    async def _lay_off(self, card: Card, meld_id: int | None) -> None:
        view = self.view
        if view is None:
            return
        if meld_id is not None:
            await self._play_checked(LayOff(meld_id, card))
            return
        options = advice.lay_off_options(view, card)
        if not options:
            self.notify(f"The {card_text(card, self.ascii)} fits no meld on the table.", severity="warning")
            return
        move = await self._choose(f"Lay off the {card_text(card, self.ascii)} on which meld?", options)
        if move is not None:
            await self._play_checked(move)

    def action_discard(self) -> None:
        cards = self.hand.chosen
        if len(cards) != 1:
            self.notify("Select one card to discard.", severity="warning")
            return
        self._play(Discard(cards[0]))

    async def _choose(self, title: str, options: Sequence[Move]) -> Move | None:
        """One option: that one. Several: the player picks (R4.1's use, R5.4's meld)."""
        view = self.view
        if view is None:
            return None
        if len(options) == 1:
            return options[0]
        labelled = [(advice.move_words(m, view, self.seats, self.ascii), m) for m in options]
        return await self.app.push_screen_wait(ChooseScreen[Move](title, labelled))

    async def _play_checked(self, move: Move) -> None:
        """Play ``move``, asking first when it would end the deal by going out (R4.4)."""
        view = self.view
        if view is not None and advice.goes_out(view, move):
            sure = await self.app.push_screen_wait(
                ConfirmScreen(
                    "This empties your hand: you go out and the deal ends now. Go out?", "Go out", "Not yet"
                )
            )
            if not sure:
                return
        self._play(move)

    # --- everything else --------------------------------------------------------------------

    def action_clear(self) -> None:
        """Escape: back to the hand from anywhere; in the hand, unselect every card."""
        if self.focused is not self.hand:
            self.hand.focus()
            return
        self.hand.unselect_all()

    def action_cycle_focus(self, step: int) -> None:
        """Tab goes round the hand, the discard pile, the melds, the log and the chat line;
        the melds and the log scroll with the arrow keys while they have the focus."""
        ring: list[Widget] = [
            self.hand,
            self.pile,
            self.query_one(MeldsView),
            self.query_one("#log", Feed),
            self.query_one("#chat-input", Input),
        ]
        focused = self.focused
        index = ring.index(focused) if focused in ring else -1
        ring[(index + step) % len(ring)].focus()

    def action_hint(self) -> None:
        self.show_hints = not self.show_hints
        if self.show_hints:
            h = advice.hints(self.view) if self.view is not None else advice.Hints()
            if not (h.hand or h.pile or h.melds):
                self.notify("Nothing to meld or lay off now.", title="Hints")

    def action_sort(self) -> None:
        mode = self.hand.toggle_sort()
        self.notify(f"Hand sorted by {mode}.", timeout=2)

    def action_chat(self) -> None:
        self.query_one("#chat-input", Input).focus()

    @on(Input.Submitted, "#chat-input")
    def _chat_submitted(self, event: Input.Submitted) -> None:
        said = event.value.strip()
        event.input.value = ""
        if said:
            self.post_message(SendChat(said))
        self.hand.focus()

    def action_next_deal(self) -> None:
        self.post_message(ReadyForNextDeal())

    def action_play_again(self) -> None:
        self.post_message(PlayAgainRequested())

    @work(exclusive=True, group="results")
    async def action_results(self) -> None:
        """Show the end of the last deal (and of the game, once it is over)."""
        view = self.view
        if view is None or not view.results or self._results_open:
            return
        self._results_open = True
        try:
            if view.phase == "game_over":
                while True:
                    choice = await self.app.push_screen_wait(
                        GameEndScreen(view.results, self.seats, self.ascii, lobby=self.app_has_lobby)
                    )
                    if choice != "details":
                        break
                    await self.app.push_screen_wait(
                        DealEndScreen(view.results, self.seats, False, self.ascii)
                    )
                if choice == "again":
                    self.action_play_again()
                elif choice == "lobby":
                    self.post_message(LeaveTable())
                elif choice == "quit":
                    self.app.exit()
            else:
                can_start = view.phase == "deal_over" and view.seat is not None
                deal_choice = await self.app.push_screen_wait(
                    DealEndScreen(view.results, self.seats, can_start, self.ascii)
                )
                if deal_choice == "next":
                    self.action_next_deal()
        finally:
            self._results_open = False

    @property
    def app_has_lobby(self) -> bool:
        return bool(getattr(self.app, "has_lobby", False))

    def action_help(self) -> None:
        actions = [
            ("s", "draw from the stock"),
            ("t / enter (on the pile)", "take from the discard pile at the marked card, with its use"),
            ("m", "meld the selected cards"),
            ("l", "lay off the selected card (you choose the meld if several fit)"),
            ("d", "discard the selected card: ends your turn"),
            ("p", "pass (only with the stock empty)"),
            ("n", "ready for the next deal"),
            ("r", "show the scores of the last deal"),
            ("a", "play again, once the game is over"),
        ]
        other = [
            ("h", "hints: mark the cards, pile cards and melds you could play"),
            ("o", "sort the hand by suit or by rank"),
            ("c", "chat (enter sends, escape returns to the hand)"),
            ("b", "leave the table, back to the lobby"),
            ("ctrl+p", "command palette: every action by name"),
            ("?", "this help"),
            ("q", "quit (asks first during a game)"),
        ]
        self.app.push_screen(
            HelpScreen(
                "Keys at the table", [("Your turn", actions), ("Your hand", HAND_KEYS), ("Any time", other)]
            )
        )

    @work(exclusive=True, group="quit")
    async def action_leave(self) -> None:
        """Back to the lobby; a player's chair is held for them while the game lasts."""
        view = self.view
        if view is not None and view.seat is not None and view.phase != "game_over":
            sure = await self.app.push_screen_wait(
                ConfirmScreen(
                    "Leave the table? Your chair is held for you (away) while the game lasts.",
                    "Leave",
                    "Stay",
                )
            )
            if not sure:
                return
        self.post_message(LeaveTable())

    @work(exclusive=True, group="quit")
    async def action_quit(self) -> None:
        view = self.view
        if view is not None and view.seat is not None and view.phase != "game_over":
            sure = await self.app.push_screen_wait(
                ConfirmScreen(
                    "Quit during the game? Your seat is kept for you:"
                    " come back the same way (rummy-client or ssh) to take it up again.",
                    "Quit",
                    "Stay",
                )
            )
            if not sure:
                return
        self.app.exit()
