"""The table: one game as this player sees it, and every action of a turn.

The screen keeps what the server said (the view, who sits where, the clock, the
last turn's moves) and draws it with a ``TableBoard``; it asks the app (with
``PlayMove``) to play the moves the player chooses, and the server decides. Every
choice offered (which meld a card goes to, what a take from the discard pile
does) is read from ``view.legal_moves()``.

One focus: the hand, the discard pile, the melds, the log or the chat has it
(tab goes round, escape comes back to the hand). The arrow keys act where the
focus is, and it shows there. The number keys always pick cards of the hand, and
the actions on cards (meld, lay off, discard) always act on the hand's cards: from
elsewhere they bring the focus back to the hand first. After every move of one's
own the focus is back on the hand.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar, TypeVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.events import Key, Resize
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input, Static

from rummy.engine import (
    Card,
    Discard,
    DrawStock,
    Event,
    LayOff,
    Move,
    NewMeld,
    Pass,
    PlayerView,
    card_text,
    may_pass,
)
from rummy.engine.cards import is_joker
from rummy.protocol import PlayedBy, TallyLine

from .. import advice, text
from ..commands import ScreenActions
from ..look import Look
from ..messages import (
    HandOrdered,
    HintsChosen,
    LeaveTable,
    PlayAgainRequested,
    PlayMove,
    ReadyForNextDeal,
    ReplayRequested,
    SendChat,
    SortChosen,
)
from ..model import Recent, Seats, TurnTimer
from ..scene import Scene
from ..widgets.feed import Feed
from ..widgets.keys import KeyBar
from ..widgets.status import ConnectionBanner
from ..widgets.table.board import TableBoard
from ..widgets.table.hand import SHORTCUT_KEYS, HandView
from ..widgets.table.log import GameLog
from ..widgets.table.melds import MeldClicked, MeldsView
from ..widgets.table.pile import DiscardPileView
from .modals import ChooseScreen, ConfirmScreen
from .results import DealChoice, DealEndScreen, GameChoice, GameEndScreen

if TYPE_CHECKING:
    from .help import HelpScreen, Page


HAND_KEYS: list[tuple[str, str]] = [
    ("1 … 9, 0", "select or unselect card 1 … 10 of your hand (from anywhere)"),
    ("left / right", "move along the hand (or the pile, or the melds: where the focus is)"),
    ("space", "select or unselect the card under the cursor"),
    ("shift+left/right, < >", "move the card: your own order (kept until you sort)"),
    ("home / end", "first / last card"),
    ("escape", "unselect every card (elsewhere: back to the hand)"),
    ("tab / shift+tab", "hand, discard pile, melds, log (and the chat, at a server's table)"),
    ("mouse", "click a card to select it; a pile card to take; a meld to lay off"),
]


def began_new_game(view: PlayerView, old: PlayerView | None) -> bool:
    """Whether ``view`` is the first of a new game at the table ``old`` showed: a deal
    under way, with fewer deals played than before."""
    return view.phase in ("draw", "meld") and old is not None and len(view.results) < len(old.results)


Answer = TypeVar("Answer")  # what a dialog answers


class TableScreen(Screen[None]):
    """One table. ``update`` shows a new view; the app calls the other public methods."""

    CSS_PATH = "../styles/table.tcss"
    AUTO_FOCUS = "#hand"

    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {ScreenActions}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "draw", "Draw"),
        # With no card of the pile usable the line of keys does not offer t (``offers``),
        # but t and the palette's "Take" still say why, rather than doing nothing.
        Binding("t", "take", "Take"),
        Binding("m", "meld", "Meld"),
        Binding("l", "lay_off", "Lay off"),
        Binding("d", "discard", "Discard"),
        Binding("p", "pass_turn", "Pass"),
        Binding("n", "next_deal", "Next deal"),
        Binding("r", "results", "Scores"),
        Binding("a", "play_again", "Again"),
        Binding("h", "hint", "Hints"),
        Binding("o", "sort", "Sort"),
        Binding("c", "chat", "Chat"),
        # Last before help and quit, so that in a narrow terminal it makes way first.
        Binding("b", "leave", "Lobby"),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit", "Quit"),
        Binding("escape", "clear", "Unselect", show=False),
        Binding("tab", "cycle_focus(1)", "Next area", show=False),
        Binding("shift+tab", "cycle_focus(-1)", "Previous area", show=False),
        *(Binding(key, f"pick({i})", f"Card {i + 1}", show=False) for i, key in enumerate(SHORTCUT_KEYS)),
    ]

    def __init__(
        self,
        look: Look | None = None,
        table_name: str = "",
        bell: bool = False,
        remembered: Sequence[Card] = (),
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.look = look or Look()
        self.table_name = table_name
        # What the table does for a player away (its ``on_drop``: "wait" or "bot"); None
        # when not told (the game against bots has no lobby to leave for).
        self.on_drop: str | None = None
        self.bell = bell
        self.view: PlayerView | None = None
        self.seats = Seats()
        self.timer: TurnTimer | None = None
        self.recent = Recent()
        self.offline = False
        self.show_hints = False
        # The finished game's table went back to waiting for four (someone left): no
        # "play again" any more; a new game at the table begins from the lobby.
        self.broken_up = False
        self.key_words: dict[str, str] = {}  # action: the words its key says now (KeyBar)
        self._ticker: Timer | None = None
        self._pile_usable_in: tuple[PlayerView, bool] | None = None
        # A Joker the player was asked about discarding, in this view: d again discards it.
        self._joker_asked: tuple[PlayerView, Card] | None = None
        # A key of the turn pressed out of its time, and the moment of the game it was
        # pressed in: the line above the hand says why it did nothing while that moment
        # lasts. A toast for each press stacked up during the bots' turns, and still
        # said to wait once the player's turn had come.
        self._out_of_time: tuple[str, advice.Moment] | None = None
        self._shown_results = 0
        self._results_open = False
        self.board = TableBoard(self.look, id="board")
        self.board.remembered = tuple(remembered)
        self.log_view = GameLog(id="log")
        self.chat = Feed("Chat: press c to say something.", id="chat")
        # Who watches the table, told apart as in the chat ("Ana", "Ana (2)"); shown above
        # the chat while anyone watches, from 32 rows (at 24 the chat has two rows only).
        self.watchers_line = Static("", id="watchers", markup=False)
        self.watchers: list[str] = []
        # Short enough to show whole in the narrowest chat column (80x24): the line above
        # says what c does, this one what enter and escape do once there.
        self.chat_input = Input(placeholder="enter sends, esc returns", id="chat-input", compact=True)
        self.keybar = KeyBar()
        self.tally: list[TallyLine] = []  # the table's running tally, shown at the game's end
        self.last_game: int | None = None  # the latest game finished here, to watch again

    @property
    def ascii(self) -> bool:
        return self.look.ascii

    @property
    def hand(self) -> HandView:
        return self.board.hand

    @property
    def pile(self) -> DiscardPileView:
        return self.board.pile

    @property
    def melds(self) -> MeldsView:
        return self.board.melds

    @property
    def on_its_way_out(self) -> bool:
        """Whether this screen has been taken off the app's stack (the player left the
        table), its removal perhaps still pending: no dialog opens over it then, for
        the dialog would stay over the lobby, or be waited for in a worker that the
        removal cancels (``_ask``)."""
        return self not in self.app.screen_stack

    # --- layout -----------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield ConnectionBanner()
        yield self.board
        with Horizontal(id="bottom"):
            yield self.log_view
            with Vertical(id="chat-area"):
                yield self.watchers_line
                yield self.chat
                yield self.chat_input
        yield self.keybar

    def on_resize(self, event: Resize) -> None:
        width, height = event.size
        self.board.fit(width, height)
        self.set_class(32 <= height < 40, "-medium")
        self.set_class(height >= 40, "-large")

    def on_mount(self) -> None:
        # The game against bots has nobody to chat with: its log has the whole width.
        self.set_class(not self.app_has_lobby, "-no-chat")
        self.board.fit(*self.app.size)
        self._draw()

    # --- what the app tells the screen ------------------------------------------------

    def update(
        self,
        view: PlayerView,
        seats: Seats | None = None,
        events: Sequence[Event] = (),
        auto: PlayedBy | None = None,
    ) -> None:
        """Show a new view and tell the events that led to it (``auto``: who played the
        move for its seat, when its player did not)."""
        if seats is not None:
            self.seats = self._plain(seats)
        old, self.view = self.view, view
        self.log_view.tell(events, self.seats, self.look, auto)
        self.recent = self.recent.after(events)
        if old is None or len(view.results) < self._shown_results:
            # The first view (joining, rejoining) or a new game: earlier deals are not
            # news; a deal that has just ended is.
            ended = view.phase in ("deal_over", "game_over")
            self._shown_results = len(view.results) - (1 if ended else 0)
        if view.phase != "game_over":
            self.broken_up = False
        if began_new_game(view, old):  # what the toasts said was of the game before
            self.app.clear_notifications()  # ("Asked for another game...")
        self._ends_moved_on(view, old)
        if self._out_of_time is not None and self._out_of_time[1] != advice.moment(view):
            self._out_of_time = None  # the turn, or its part, has moved on
        if self.bell and old is not None and view.my_turn and view.phase == "draw" and not old.my_turn:
            self.app.bell()  # it has just become this player's turn
        self._draw()
        if len(view.results) > self._shown_results:
            self._shown_results = len(view.results)
            self.call_after_refresh(self.action_results)

    def _ends_moved_on(self, view: PlayerView, old: PlayerView | None) -> None:
        """A deal's or the game's end still open when the game moves on.

        The next deal (or a new game) began: a player's says so and stays, since they
        opened it to read it; a spectator's closes, back to the game they came to watch.
        The game ended: a deal's end closes, so that the game's end does not come up on
        top of it. Only the top screen is closed (dismiss closes the top screen); one
        under another (help, say) is told instead. An end opened again (r) during the
        next deal already says it has begun, and stays until closed."""
        began = view.phase in ("draw", "meld")
        over = view.phase == "game_over" and old is not None and old.phase != "game_over"
        if not (began or over):
            return
        new_game = began_new_game(view, old)
        watching = view.seat is None
        for screen in list(self.app.screen_stack):
            if isinstance(screen, DealEndScreen) and screen.live:  # (a replay's follow the replay)
                closes = over or (watching and not screen.begun)
                if closes and screen is self.app.screen:
                    screen.dismiss("close")
                elif began and not screen.begun:
                    screen.moved_on()
            elif isinstance(screen, GameEndScreen) and new_game and not screen.begun:
                if watching and screen is self.app.screen:
                    screen.dismiss("close")
                else:
                    screen.moved_on()

    def tell_history(self, steps: Sequence[tuple[Sequence[Event], PlayedBy | None]], note: str) -> None:
        """The deal so far, as the server tells it on joining: the log starts again
        with it, then ``note`` (you are back, you are watching)."""
        self.log_view.restart()
        recent = Recent()
        for events, auto in steps:
            self.log_view.tell(events, self.seats, self.look, auto)
            recent = recent.after(events)
        self.recent = recent
        self.log_view.note(Content.styled(note, "italic"))
        self._draw()

    def set_seats(self, seats: Seats) -> None:
        self.seats = self._plain(seats)
        for screen in self.app.screen_stack:
            if isinstance(screen, (DealEndScreen, GameEndScreen)):
                screen.seats_changed(self.seats)
        self._draw()

    def table_broke_up(self, left: Sequence[str]) -> None:
        """After the game, ``left`` left the table, which waits for four players again:
        the game on the screen keeps its players, and no other game can be asked for
        here; the table's creator starts the next one from the lobby."""
        self.broken_up = True
        # Nobody waits for another game here any more ("wants another game" went stale).
        unready = [info if info is None else replace(info, ready=False) for info in self.seats.seats]
        self.seats = replace(self.seats, seats=tuple(unready))
        who = text.plain(", ".join(left) if left else "A player")
        note = Content.assemble(who, " left the table: another game needs four players (b: the lobby).")
        for screen in self.app.screen_stack:
            if isinstance(screen, GameEndScreen):
                screen.broke_up(note)
        self.notify(note.plain, title="The table", timeout=10)
        self._draw()

    def _plain(self, seats: Seats) -> Seats:
        return seats.in_ascii() if self.ascii else seats

    def set_clock(self, timer: TurnTimer | None) -> None:
        """A clock started or stopped; the screen ticks once a second only while one runs."""
        self.timer = timer
        self._schedule_ticks()
        for screen in self.app.screen_stack:
            if isinstance(screen, DealEndScreen) and screen.live:
                screen.set_clock(timer)
        self._draw()

    def set_offline(self, offline: bool) -> None:
        """The connection is down (True) or back: meanwhile no clock is shown ticking,
        since the server's own is not known (it may well run on)."""
        self.offline = offline
        self._schedule_ticks()
        self._draw()

    @property
    def ticking(self) -> bool:
        """Whether the screen wakes every second (only while a clock runs)."""
        return self._ticker is not None

    def _schedule_ticks(self) -> None:
        timer = self.timer
        running = timer is not None and not timer.paused and not self.offline
        if running and self._ticker is None:
            self._ticker = self.set_interval(1.0, self._tick)
        elif not running and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    def set_watchers(self, names: Sequence[str]) -> None:
        """Who watches the table now (each as the chat names them), in the order they came."""
        self.watchers = list(names)
        # How many first: a long list is cut at the chat's width.
        title = Content.styled(f"Watching ({len(names)}): ", "dim")
        words = Content.assemble(title, text.plain(", ".join(names), limit=2000))
        self.watchers_line.update(words)
        self.watchers_line.set_class(bool(names), "-some")

    def add_chat_line(self, line: Content) -> None:
        self.chat.add(line)

    def add_chat(self, who: str, said: str, style: str = "bold") -> None:
        """A chat line; ``who`` and ``said`` are players' text, shown literally."""
        who_part = text.plain(who, style) if who else Content.styled("table", "italic")
        self.add_chat_line(Content.assemble(who_part, ": ", text.plain(said, limit=400)))

    def refused(self, sentence: str) -> None:
        """The server refused a move: say why, in its own words."""
        line = Content.assemble(Content.styled("Refused: ", "bold"), text.plain(sentence, limit=400))
        self.log_view.note(line)
        self.notify(text.clean(sentence, 400), title="Move refused", severity="error")

    def note(self, sentence: str) -> None:
        """A line of the client's own in the log."""
        self.log_view.note(Content.styled(sentence, "italic"))

    # --- drawing -----------------------------------------------------------------------

    @property
    def scene(self) -> Scene | None:
        if self.view is None:
            return None
        hints = advice.hints(self.view) if self.show_hints else advice.Hints()
        return Scene(self.view, self.seats, self.timer, self.recent, self.offline, hints, self.look)

    def _draw(self) -> None:
        scene = self.scene
        if scene is None:
            return
        self.board.show(scene, self.table_name, self._prompt())
        self.keybar.follow()

    def _prompt(self) -> Content:
        chosen = self.hand.chosen if (self.hand.selected or self.hand.has_focus) else []
        prompt = advice.prompt(
            self.view,
            self.seats,
            chosen,
            self.look,
            self.app_has_lobby,
            again=not self.broken_up,
            hinting=self.show_hints,
            pressed=self._out_of_time[0] if self._out_of_time is not None else None,
        )
        asked = self._joker_asked
        if asked is not None and asked[0] is self.view and self.hand.chosen == [asked[1]]:
            joker = card_text(asked[1], self.ascii)
            prompt = Content.assemble(
                Content.styled(f"Discard the {joker}? d again discards it", "bold $warning"),
                " (Jokers meld only with Jokers, R5.3).",
            )
        timer = self.timer
        if timer is not None and timer.kind == "next_deal" and not self.offline:
            left = timer.left(time.monotonic())
            prompt = Content.assemble(prompt, f" The next deal starts in {left} s.")
        return prompt

    def _tick(self) -> None:
        self.board.tick()
        self.board.prompt.update(self._prompt())

    @on(HandView.Changed)
    def _hand_changed(self) -> None:
        if self.view is not None:
            if self.view.my_turn:  # the player chose cards: the line says what they can do
                self._out_of_time = None
            self.board.prompt.update(self._prompt())

    @on(HandView.Reordered)
    def _hand_reordered(self, event: HandView.Reordered) -> None:
        self.post_message(HandOrdered(event.order, tuple(event.fresh)))

    # --- which actions apply now (the footer shows only these) --------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        view = self.view
        turn = view is not None and view.my_turn
        phase = view.phase if view is not None else None
        # Draw, take and pass all answer while it is one's turn to draw: the one R6.1 does
        # not allow now says why (the line of keys offers only the allowed ones, ``offers``).
        if action in ("draw", "take", "pass_turn"):
            return turn and phase == "draw"
        if action in ("meld", "lay_off", "discard"):
            return turn and phase == "meld"
        if action == "next_deal":
            return view is not None and view.seat is not None and phase == "deal_over"
        if action == "results":
            return view is not None and bool(view.results)
        if action == "play_again":
            return view is not None and view.seat is not None and phase == "game_over" and not self.broken_up
        if action in ("leave", "chat"):  # a lobby to go back to, people to chat with
            return self.app_has_lobby
        if action == "hint":
            return turn and phase in ("draw", "meld")
        if action == "sort":
            return view is not None and bool(view.hand)
        return True

    def offers(self, action: str) -> bool:
        """Whether the line of keys shows an action that applies now: t only when some
        card of the pile can be used (R4.1); s while the stock has cards, p once it is
        empty (R6.1)."""
        if action == "take":
            return self._pile_usable()
        if action in ("draw", "pass_turn"):
            empty = self.view is not None and may_pass(self.view.stock_count)
            return empty == (action == "pass_turn")
        return True

    # --- the actions of a turn -----------------------------------------------------------

    def _play(self, move: Move) -> None:
        self.hand.focus()  # whatever the move, the next choice is made in the hand
        self.post_message(PlayMove(move))

    def action_draw(self) -> None:
        if self.view is not None and may_pass(self.view.stock_count):
            self.hand.focus()
            self.notify(
                f"The stock is empty: {advice.draw_keys(self.view)} (R6.1).",
                title="Cannot draw",
                severity="warning",
            )
            return
        self._play(DrawStock())

    def action_pass_turn(self) -> None:
        if self.view is not None and not may_pass(self.view.stock_count):
            self.hand.focus()
            self.notify(
                "Passing is only for when the stock is empty (R6.1): draw from the stock (s)"
                " or take from the discard pile (t).",
                title="Cannot pass",
                severity="warning",
            )
            return
        self._play(Pass())

    def action_take(self) -> None:
        """Take at the marked card; with no card usable, taking explains why (R4.1)."""
        self._take(self.pile.cursor)

    def _pile_usable(self) -> bool:
        """Whether some card of the pile can be taken now, worked out once per view:
        the line of keys asks at every redraw."""
        view = self.view
        if view is None:
            return False
        if self._pile_usable_in is None or self._pile_usable_in[0] is not view:
            self._pile_usable_in = (view, advice.can_take(view))
        return self._pile_usable_in[1]

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
            self.hand.focus()
            self.notify(
                f"The {target} cannot be used now: it makes no meld with your cards and fits no meld "
                "on the table. Taking from the discard pile needs a use for that card (R4.1).",
                title="Cannot take",
                severity="warning",
            )
            return
        move = await self._choose(f"Take from the {target}: use it how?", options)
        if move is None:
            self.hand.focus()
            return
        await self._play_checked(move)

    def _hand_cards(self) -> list[Card] | None:
        """The cards an action on the hand acts on: the selected ones, or the one under
        the hand's cursor while the hand has the focus. From elsewhere with nothing
        selected, the focus goes back to the hand and nothing is played."""
        if self.hand.selected:
            self.hand.focus()
            return self.hand.chosen
        if self.hand.has_focus:
            return self.hand.chosen
        self.hand.focus()
        self.notify("Back in your hand: pick the card (number keys, or arrows and space).")
        return None

    def action_meld(self) -> None:
        """m melds the selected cards. Only the engine says what makes a meld: one or two
        cards selected go to it and its refusal says why (this screen's own "select the
        cards to meld first" told a player who had selected two that they had not)."""
        if not self.hand.selected:
            self.hand.focus()
            self.notify("Select the cards to meld first (space, or the number keys).", severity="warning")
            return
        cards = self._hand_cards()
        if cards is not None:
            self._meld(tuple(cards))

    @work(exclusive=True, group="choose")
    async def _meld(self, cards: tuple[Card, ...]) -> None:
        await self._play_checked(NewMeld(cards))

    def action_lay_off(self) -> None:
        cards = self._hand_cards()
        if cards is None:
            return
        if len(cards) != 1:
            # Several selected (as for a meld): "select one card" read as if none were.
            many = f"Lay off one card at a time: {len(cards)} are selected."
            self.notify(many if cards else "Select one card to lay off.", severity="warning")
            return
        self._lay_off(cards[0], None)

    @on(MeldClicked)
    def _meld_clicked(self, event: MeldClicked) -> None:
        cards = [c for c in self.hand.order if c in self.hand.selected]
        if not self.check_action("lay_off", ()):
            return
        if len(cards) != 1:
            self.notify("Select the one card to lay off in your hand first.", severity="warning")
            return
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
        cards = self._hand_cards()
        if cards is None:
            return
        if len(cards) != 1:
            self.notify("Select one card to discard.", severity="warning")
            return
        if self._asks_first(cards[0]):
            return
        self._play(Discard(cards[0]))

    def _asks_first(self, card: Card) -> bool:
        """A Joker is asked about once before it is discarded, as card sites do: it
        melds only with Jokers (R5.3), so on the pile it is there for the next players
        to take into their set of Jokers, and a d pressed on the wrong card threw it
        away unasked. d again (with the same view: nothing has happened meanwhile)
        discards it; every other card goes at once."""
        view = self.view
        if view is None or not is_joker(card) or self._joker_asked == (view, card):
            return False
        # Asked on the line above the hand, which follows the game: a toast asking it
        # too stayed up for its 3 s after the Joker had gone, "Press d again".
        self._joker_asked = (view, card)
        self.board.prompt.update(self._prompt())
        return True

    async def _ask(self, question: Screen[Answer]) -> Answer | None:
        """``question`` asked in a dialog, and its answer (None if not asked: this table
        screen is on its way out). Waiting for a dialog first runs the app's pending
        callbacks, which may be this very screen's removal (the player left just as a
        deal ended); run in this screen's worker, that removal cancelled the worker and,
        with it, the app's own loop: the client closed without a word."""
        if self.on_its_way_out:
            return None
        return await self.app.push_screen_wait(question)

    async def _choose(self, title: str, options: Sequence[Move]) -> Move | None:
        """One option: that one. Several: the player picks (R4.1's use, R5.4's meld)."""
        view = self.view
        if view is None:
            return None
        if len(options) == 1:
            return options[0]
        labelled = [(advice.move_words(m, view, self.seats, self.look), m) for m in options]
        return await self._ask(ChooseScreen[Move](title, labelled))

    async def _play_checked(self, move: Move) -> None:
        """Play ``move``, asking first when it would end the deal by going out (R4.4)."""
        view = self.view
        if view is not None and advice.goes_out(view, move):
            sure = await self._ask(
                ConfirmScreen(
                    "This empties your hand: you go out and the deal ends now. Go out?", "Go out", "Not yet"
                )
            )
            if not sure:
                self.hand.focus()
                return
        self._play(move)

    # --- a key of the turn out of its time ------------------------------------------------

    def on_key(self, event: Key) -> None:
        """A key of the turn that does not apply now (m before the draw, s after it, any
        of them in another's turn) reached here unbound (``check_action``): it did
        nothing, and a new player could not tell why. The line above the hand says what
        applies now, until the game moves on (``update``)."""
        view = self.view
        if view is not None and advice.not_now(view, self.seats, event.key) is not None:
            event.stop()
            self._out_of_time = (event.key, advice.moment(view))
            self.board.prompt.update(self._prompt())

    # --- everything else --------------------------------------------------------------------

    def action_pick(self, index: int) -> None:
        """A number key: that card of the hand, wherever the focus was."""
        self.hand.focus()
        self.hand.pick(index)

    def action_clear(self) -> None:
        """Escape: back to the hand from anywhere; in the hand, unselect every card."""
        if self.focused is not self.hand:
            self.hand.focus()
            return
        self.hand.unselect_all()

    def _ring(self) -> list[Widget]:
        chat = [self.chat_input] if self.app_has_lobby else []
        return [self.hand, self.pile, self.melds, self.log_view, *chat]

    def action_cycle_focus(self, step: int) -> None:
        """Tab goes round the hand, the discard pile, the melds, the log and the chat line."""
        ring = self._ring()
        focused = self.focused
        index = ring.index(focused) if focused in ring else -1
        ring[(index + step) % len(ring)].focus()

    def action_hint(self) -> None:
        """h shows the hints, and they stay on from turn to turn; h again hides them.
        The key says which it does, and hiding says so: else a player pressing h to ask
        sees nothing happen. What the hints say of this moment (nothing to play) is
        said by the line above the hand, which follows the game: a toast saying it
        stayed up for seconds after the player drew or the turn moved on."""
        self.set_hints(not self.show_hints)
        self.post_message(HintsChosen(self.show_hints))
        if self.show_hints:
            h = advice.hints(self.view) if self.view is not None else advice.Hints()
            if not (h.hand or h.pile or h.melds):  # nothing gets marked: say h did something
                self.notify("Hints are on: what you can play is marked (h hides them).", timeout=3)
        else:
            self.notify("Hints are off: h shows them again.", timeout=3)

    def set_hints(self, on: bool) -> None:
        """Hints on or off (h, or as the player left them last time); the key says
        what pressing it does now."""
        self.show_hints = on
        if on:
            self.key_words["hint"] = "Hide hints"
        else:
            self.key_words.pop("hint", None)
        self._draw()

    def action_sort(self) -> None:
        mode = self.hand.toggle_sort()
        self.post_message(SortChosen(mode))
        self.notify(f"Hand sorted by {mode}: the numbers follow the new order.", timeout=3)

    def action_chat(self) -> None:
        self.chat_input.focus()

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

    def action_results(self) -> None:
        """Show the end of the last deal (and of the game, once it is over).

        The ends are dialogs with a callback, not dialogs waited for in a worker: a
        worker waiting for a dialog first runs the app's pending callbacks, and one
        of them could be this screen's removal (the player left just as the deal
        ended); the removal cancelled the worker and, with it, the app's own loop, and
        the client closed without a word."""
        view = self.view
        if view is None or not view.results or self._results_open or self.on_its_way_out:
            return
        self._results_open = True
        if view.phase == "game_over":
            self._show_game_end(view)
            return
        can_start = view.phase == "deal_over" and view.seat is not None
        # Opened again (r) once the next deal is under way: it says so.
        begun = view.phase != "deal_over"
        # The pause before the next deal starts by itself, as the server counts it (the
        # game against bots has none: its server waits for its one player).
        deal_end = DealEndScreen(
            view.results,
            self.seats,
            can_start,
            self.look,
            begun=begun,
            timer=self.timer,
            order=self.hand.sort_mode,
        )
        self.app.push_screen(deal_end, callback=self._deal_end_closed)

    def _deal_end_closed(self, choice: DealChoice | None) -> None:
        self._results_open = False
        if choice == "next":
            self.action_next_deal()

    def _show_game_end(self, view: PlayerView) -> None:
        game_end = GameEndScreen(
            view.results,
            self.seats,
            self.ascii,
            lobby=self.app_has_lobby,
            tally=self.tally,
            can_replay=self.last_game is not None,
            can_play=view.seat is not None and not self.broken_up,
        )
        self.app.push_screen(game_end, callback=lambda choice: self._game_end_closed(view, choice))

    def _game_end_closed(self, view: PlayerView, choice: GameChoice | None) -> None:
        if choice == "details":  # the last deal's end, then back to the game's
            details = DealEndScreen(view.results, self.seats, False, self.look, order=self.hand.sort_mode)
            self.app.push_screen(details, callback=lambda _: self._details_closed(view))
            return
        self._results_open = False
        if choice == "again":
            self.action_play_again()
        elif choice == "lobby":
            self.post_message(LeaveTable(keep_chair=self.broken_up))
        elif choice == "quit":
            self.app.exit()
        elif choice == "replay" and self.last_game is not None:
            self.post_message(ReplayRequested(self.last_game))

    def _details_closed(self, view: PlayerView) -> None:
        if self.view is not None and self.view.phase != "game_over":
            self._results_open = False  # a new game began meanwhile: its end is not this one's
            return
        self._show_game_end(view)

    @property
    def app_has_lobby(self) -> bool:
        return bool(getattr(self.app, "has_lobby", False))

    def action_help(self, page: Page = "keys") -> None:
        self.app.push_screen(self.help_screen(page))

    def help_screen(self, page: Page = "keys") -> HelpScreen:
        """The help, opened at ``page``: the table's keys, how to play, the rule book."""
        from .help import HelpScreen  # the rule book is read only when asked for

        return HelpScreen("Keys at the table", self.help_keys(), self.ascii, page=page)

    def help_keys(self) -> list[tuple[str, Sequence[tuple[str, str]]]]:
        """The keys of the table, in groups, as the help's first page lists them."""
        actions = [
            ("s", "draw from the stock"),
            (
                "t / enter (on the pile)",
                "take from the discard pile at the marked card (at first the newest one you can use),"
                " with its use",
            ),
            ("m", "meld the selected cards"),
            ("l", "lay off the selected card (you choose the meld if several fit)"),
            (
                "d",
                "discard the selected card (or the one under the cursor, at first the card just drawn):"
                " ends your turn",
            ),
            ("p", "pass (only with the stock empty)"),
            ("n", "ready for the next deal"),
            ("r", "show the scores of the last deal"),
            ("a", "play again, once the game is over"),
        ]
        other = [
            ("h", "hints: mark the cards, pile cards and melds you could play (again: hide them)"),
            ("o", "sort the hand by suit, or by rank"),
            *(
                [
                    ("c", "chat (enter sends, escape returns to the hand)"),
                    # "Back", not "leave": in the lobby, l leaves a table (gives the chair
                    # up), and one word for two keys read as if l left here too (it lays off).
                    ("b", "back to the lobby; your chair is held for you while the game lasts"),
                ]
                if self.app_has_lobby  # (the game against bots has neither)
                else []
            ),
            ("ctrl+p", "command palette: every action by name"),
            ("?", "this help: keys, how to play, the rule book"),
            ("q", "quit (asks first during a game)"),
        ]
        return [("Your turn", actions), ("Your hand", HAND_KEYS), ("Any time", other)]

    @work(exclusive=True, group="quit")
    async def action_leave(self) -> None:
        """Back to the lobby; a player's chair is held for them while the game lasts."""
        view = self.view
        if view is not None and view.seat is not None and view.phase != "game_over":
            sure = await self._ask(ConfirmScreen(self._leave_question(), "Leave", "Stay"))
            if not sure:
                return
        # After the game, a table that waits for four again (a player left) keeps one's
        # chair: b goes to the lobby, where the creator starts the next game.
        self.post_message(LeaveTable(keep_chair=self.broken_up))

    def _leave_question(self) -> str:
        """Leaving asks first, and says what becomes of the chair: held, and played by
        a bot after a while (docs/PROTOCOL.md, dropping). It said only "held", while
        the lobby's line of the table's options said a bot plays for one away."""
        held = "Leave the table? Your chair is held for you (away) while the game lasts"
        if self.on_drop == "bot":
            return f"{held}; a bot plays it until you come back."
        if self.on_drop == "wait":
            return f"{held}; after 2 minutes away a bot plays it until you come back."
        return f"{held}."

    @work(exclusive=True, group="quit")
    async def action_quit(self) -> None:
        view = self.view
        if view is not None and view.seat is not None and view.phase != "game_over":
            # The game against bots waits on this machine; a server's game goes on,
            # with the seat held for whoever comes back by the same door.
            kept = (
                "Your seat is kept for you: come back the same way to take it up again."
                if self.app_has_lobby
                else "The game waits: start rummy-client again to play on from here."
            )
            sure = await self._ask(ConfirmScreen(f"Quit during the game? {kept}", "Quit", "Stay"))
            if not sure:
                return
        self.app.exit()
