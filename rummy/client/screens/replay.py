"""A finished game watched again, move by move, on the same table as a live game.

The screen draws each step of a ``Replay`` (``rummy.client.replay``) with the
table's own widgets (score line, discard pile, melds, log, the deal-end
breakdown) and shows every hand (``HandsView``). It moves one move on or back,
to the next or previous deal end, or plays on at a chosen speed, stopping at
each deal's end to show its breakdown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.content import Content
from textual.events import Resize
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Static

from .. import replay as model
from .. import text
from ..commands import ScreenActions
from ..describe import event_line
from ..messages import SaveRecordRequested
from ..replay import Replay
from ..widgets.feed import Feed
from ..widgets.replay import HandsView
from ..widgets.table.melds import MeldsView
from ..widgets.table.pile import DiscardPileView
from ..widgets.table.score import ScoreLine
from .modals import HelpScreen
from .results import DealEndScreen


class ReplayScreen(Screen[None]):
    """``standalone``: opened from a file with no server: closing it ends the app.
    ``can_save``: the record came from a server and may be written to a file."""

    CSS_PATH = "../styles/replay.tcss"
    AUTO_FOCUS = ""  # every key is the replay's: nothing here takes the focus

    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {ScreenActions}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right", "step(1)", "Next"),
        Binding("left", "step(-1)", "Back"),
        Binding("down,pagedown", "deal_end(1)", "Deal end"),
        Binding("up,pageup", "deal_end(-1)", "Previous deal end", show=False),
        Binding("space", "play", "Play"),
        Binding("plus,equals_sign", "speed(1)", "Faster", show=False),
        Binding("minus", "speed(-1)", "Slower", show=False),
        Binding("home", "go(0)", "First move", show=False),
        Binding("end", "go(-1)", "Last move", show=False),
        Binding("r", "results", "Scores"),
        Binding("w", "save", "Save"),
        Binding("question_mark", "help", "Keys"),
        Binding("q,escape", "close", "Close"),
    ]

    playing: reactive[bool] = reactive(False, init=False)
    speed: reactive[int] = reactive(model.DEFAULT_SPEED, init=False)

    def __init__(
        self,
        replay: Replay,
        title: str,
        ascii: bool = False,
        standalone: bool = False,
        can_save: bool = False,
    ) -> None:
        super().__init__()
        self.replay = replay
        self.title_text = title
        self.ascii = ascii
        self.standalone = standalone
        self.can_save = can_save
        self._timer: Timer | None = None
        self._results_open = False
        self._scores_shown = False
        # The log of the whole game, and how many of its lines stand at each step.
        self._lines: list[Content] = []
        self._lines_at: list[int] = []
        for step in replay.steps:
            for event in step.events:
                line = event_line(event, replay.seats, ascii)
                if line is not None:
                    self._lines.append(line)
            self._lines_at.append(len(self._lines))

    def compose(self) -> ComposeResult:
        yield Static(id="replay-title")
        yield ScoreLine(self.ascii, id="score")
        yield HandsView(self.ascii, id="hands")
        areas = (
            DiscardPileView(self.ascii, id="pile"),
            MeldsView(self.ascii, id="melds"),
            Static(id="replay-bar"),
            Feed("", keep=len(self._lines) + 1, id="log"),
        )
        for area in areas:
            area.can_focus = False  # the arrow keys step the replay; the mouse still scrolls
            yield area
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#replay-title", Static).update(
            Content.assemble(Content.styled("Replay: ", "bold"), text.plain(self.title_text, limit=120))
        )
        self._show_step()

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.height >= 32, "-tall")

    # --- drawing ------------------------------------------------------------------------

    def _show_step(self) -> None:
        replay = self.replay
        step = replay.step
        view = step.view
        fresh = {}
        if step.mover is not None and replay.position > 0:
            before = set(replay.steps[replay.position - 1].hands[step.mover])
            fresh[step.mover] = frozenset(c for c in step.hands[step.mover] if c not in before)
        self.query_one(ScoreLine).view = view
        self.query_one(HandsView).show(view, step.hands, replay.seats, fresh)
        pile = self.query_one(DiscardPileView)
        pile.set_pile(view.discard_pile, view.stock_count)
        self.query_one(MeldsView).show(view.melds, replay.seats)
        self.query_one(Feed).set_lines(self._lines[: self._lines_at[replay.position]])
        self._show_bar()
        if bool(view.results) != self._scores_shown:  # the footer's r comes and goes (not each move:
            self._scores_shown = bool(view.results)  # redrawing the footer costs more than a step)
            self.refresh_bindings()

    def _show_bar(self) -> None:
        replay = self.replay
        view = replay.step.view
        where = f"Move {replay.position} of {replay.last}, deal {view.deal} of 2"
        if replay.at_end:
            a, b = view.totals()
            won = view.winner()
            if won is None:
                end = f"the game is over, a tie at {a} each."
            else:
                end = f"the game is over: {text.team_name(won, self.ascii)} win, {max(a, b)} to {min(a, b)}."
            where = f"Move {replay.position} of {replay.last}"  # the deal goes without saying
            state = Content.assemble(f"{where}: ", Content.styled(end, "bold"), "  home: again")
        elif self.playing:
            mark = ">" if self.ascii else "▶"
            state = Content.assemble(
                f"{where}  ",
                Content.styled(f"{mark} playing, {model.speed_words(self.speed)}", "bold"),
                "  space pauses, + - speed",
            )
        else:
            mark = "||" if self.ascii else "❚❚"
            state = Content.assemble(
                f"{where}  ",
                Content.styled(f"{mark} paused", "bold"),
                f"  space plays ({model.speed_words(self.speed)}), arrows step",
            )
        self.query_one("#replay-bar", Static).update(state)

    # --- moving -------------------------------------------------------------------------

    def _moved(self) -> None:
        """The cursor moved: draw the step, and at a deal's end stop and show its breakdown."""
        self._show_step()
        if self.replay.step.deal_end:
            self.playing = False
            self.action_results()
        elif self.replay.at_end:
            self.playing = False

    def action_step(self, moves: int) -> None:
        if self.replay.forward(moves) if moves > 0 else self.replay.back(-moves):
            self._moved()

    def action_deal_end(self, direction: int) -> None:
        moved = self.replay.next_deal_end() if direction > 0 else self.replay.previous_deal_end()
        if moved:
            self._moved()

    def action_go(self, position: int) -> None:
        if self.replay.go(self.replay.last if position < 0 else position):
            self.playing = False
            self._show_step()

    def action_play(self) -> None:
        if not self.playing and self.replay.at_end:
            self.replay.go(0)  # play it again from the start
            self._show_step()
        self.playing = not self.playing

    def action_speed(self, step: int) -> None:
        self.speed = model.faster(self.speed) if step > 0 else model.slower(self.speed)

    def watch_playing(self) -> None:
        self._restart_timer()
        self._show_bar()

    def watch_speed(self) -> None:
        self._restart_timer()
        self._show_bar()

    def _restart_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.playing:
            self._timer = self.set_interval(1 / model.SPEEDS[self.speed], self._tick)

    def _tick(self) -> None:
        if self._results_open:
            return
        if self.replay.forward():
            self._moved()
        else:
            self.playing = False

    # --- everything else ------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "results":
            return bool(self.replay.step.view.results)
        if action == "save":
            return self.can_save
        return True

    @work(exclusive=True, group="replay-results")
    async def action_results(self) -> None:
        """The breakdown of the latest deal that has ended by this step (R7)."""
        view = self.replay.step.view
        if not view.results or self._results_open:
            return
        self._results_open = True
        try:
            await self.app.push_screen_wait(
                DealEndScreen(view.results, self.replay.seats, False, self.ascii, live=False)
            )
        finally:
            self._results_open = False

    def action_save(self) -> None:
        self.post_message(SaveRecordRequested(self.replay.record))

    def action_help(self) -> None:
        keys = [
            ("right / left", "one move on / back"),
            ("down / up (page keys)", "to the next / the previous deal end"),
            ("home / end", "the first / the last move"),
            ("space", "play on, or pause (it stops at each deal end)"),
            ("+ / -", "faster / slower"),
            ("r", "the scores of the last deal ended"),
            ("w", "save this game to a file (rummy-client --replay FILE opens it)"),
            ("ctrl+p", "command palette: every action by name"),
            ("q / escape", "close the replay"),
        ]
        about = [
            ("every hand", "the game is over, so every hand is shown face up"),
            ("underlined", "the cards the last move brought into a hand"),
        ]
        self.app.push_screen(HelpScreen("Keys of the replay", [("Replay", keys), ("On the table", about)]))

    def action_close(self) -> None:
        self.playing = False
        if self.standalone:
            self.app.exit()
        else:
            self.dismiss()
