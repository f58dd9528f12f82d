"""A finished game watched again, move by move, on the same table as a live game.

The screen draws each step of a ``Replay`` (``rummy.client.replay``) with the
live table's own board (``TableBoard``: the players where they sit, the pile,
the melds, what the last player did), its log and its deal-end breakdown, with
every hand face up (``Scene.open_hands``). It moves one move on or back, to the
next or previous deal end, or plays on at a chosen speed, stopping at each
deal's end to show its breakdown.
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
from textual.widgets import Static

from .. import replay as model
from .. import text
from ..commands import ScreenActions
from ..look import Look
from ..messages import SaveRecordRequested
from ..model import Recent
from ..replay import Replay
from ..scene import Scene
from ..widgets.keys import KeyBar
from ..widgets.table.board import TableBoard
from ..widgets.table.log import GameLog
from .help import HelpScreen
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
        Binding("down", "deal_end(1)", "Deal end"),
        Binding("pagedown", "deal_end(1)", "Next deal end", show=False),
        Binding("up", "deal_end(-1)", "Previous deal end", show=False),
        Binding("pageup", "deal_end(-1)", "Previous deal end", show=False),
        Binding("space", "play", "Play"),
        Binding("plus", "speed(1)", "Faster", show=False),
        Binding("equals_sign", "speed(1)", "Faster", show=False),
        Binding("minus", "speed(-1)", "Slower", show=False),
        Binding("home", "go(0)", "First move", show=False),
        Binding("end", "go(-1)", "Last move", show=False),
        Binding("r", "results", "Scores"),
        Binding("w", "save", "Save"),
        Binding("question_mark", "help", "Help"),
        Binding("q", "close", "Close"),
        Binding("escape", "close", "Close", show=False),
    ]

    playing: reactive[bool] = reactive(False, init=False)
    speed: reactive[int] = reactive(model.DEFAULT_SPEED, init=False)

    def __init__(
        self,
        replay: Replay,
        title: str,
        look: Look | None = None,
        standalone: bool = False,
        can_save: bool = False,
    ) -> None:
        super().__init__()
        self.replay = replay
        self.title_text = title
        # Its own line, above the board: on the score line beside the deal and both
        # teams' points it was cut to "Replay: Fri…" at 80 columns.
        self.title_line = Static(id="replay-title")
        self.look = look or Look()
        self.standalone = standalone
        self.can_save = can_save
        self._timer: Timer | None = None
        self._results_open = False
        self.board = TableBoard(self.look, id="board")
        self.log_view = GameLog("", id="log")
        self.keybar = KeyBar()
        # The log at each step (told as the live log tells it, a turn to a line) and
        # what the last player did then (marked on the table as at a live table).
        story = GameLog("")
        self._lines_at: list[tuple[Content, ...]] = []
        self._recent: list[Recent] = []
        recent = Recent()
        for step in replay.steps:
            story.tell(step.events, replay.seats, self.look, step.auto)
            self._lines_at.append(tuple(story.lines))
            recent = recent.after(step.events)
            self._recent.append(recent)

    @property
    def ascii(self) -> bool:
        return self.look.ascii

    def compose(self) -> ComposeResult:
        yield self.title_line
        yield self.board
        yield self.log_view
        yield self.keybar

    def on_mount(self) -> None:
        board = self.board
        for area in (board.hand, board.pile, board.melds, self.log_view):
            area.can_focus = False  # the arrow keys step the replay; the mouse still scrolls
        board.fit(*self.app.size)
        self._show_title(self.app.size.width)
        self._show_step()

    def on_resize(self, event: Resize) -> None:
        width, height = event.size
        self.board.fit(width, height)
        self._show_title(width)
        self.set_class(32 <= height < 40, "-medium")
        self.set_class(height >= 40, "-large")

    # --- drawing ------------------------------------------------------------------------

    def _show_title(self, width: int) -> None:
        """'Replay: NAME, game #N, finished WHEN', cut to the line (its padding aside)."""
        name = text.clean(self.title_text)
        title = Content.assemble(
            ("Replay: ", "bold"), text.plain(text.to_ascii(name) if self.ascii else name)
        )
        self.title_line.update(text.fit(title, max(1, width - 2), self.ascii))

    def _show_step(self) -> None:
        replay = self.replay
        step = replay.step
        view = step.view
        scene = Scene(
            view, replay.seats, recent=self._recent[replay.position], look=self.look, open_hands=step.hands
        )
        self.board.show(scene, "", self._bar())
        self.log_view.set_lines(list(self._lines_at[replay.position]))
        self.keybar.follow()  # the footer's r comes and goes

    def _bar(self) -> Content:
        """The board's prompt line: where the replay stands and what the keys do."""
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
            return Content.assemble(f"{where}: ", end, Content.styled("  home: again", "not bold"))
        if self.playing:
            mark = ">" if self.ascii else "▶"
            return Content.assemble(
                f"{where}  {mark} playing, {model.speed_words(self.speed)}",
                Content.styled("  space pauses, + - speed", "not bold"),
            )
        mark = "||" if self.ascii else "❚❚"
        return Content.assemble(
            f"{where}  {mark} paused",
            Content.styled(f"  space plays ({model.speed_words(self.speed)}), arrows step", "not bold"),
        )

    def _show_bar(self) -> None:
        self.board.prompt.update(self._bar())

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
        self.keybar.follow()  # space's words: "Play again" once it stopped at the end

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
        if action in ("step", "deal_end") and parameters:
            # No step past either end: the footer offered "→ Next" at the last move and
            # "← Back" at the first, keys that did nothing and said nothing.
            replay = self.replay
            return not (replay.at_end if int(str(parameters[0])) > 0 else replay.position == 0)
        return True

    @property
    def key_words(self) -> dict[str, str]:
        """space at the last move plays the game again from its first (action_play)."""
        return {"play": "Play again"} if self.replay.at_end and not self.playing else {}

    @work(exclusive=True, group="replay-results")
    async def action_results(self) -> None:
        """The breakdown of the latest deal that has ended by this step (R7)."""
        view = self.replay.step.view
        if not view.results or self._results_open:
            return
        self._results_open = True
        try:
            await self.app.push_screen_wait(
                DealEndScreen(view.results, self.replay.seats, False, self.look, live=False)
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
            ("marked", "what the last player did, as at a live table"),
        ]
        self.app.push_screen(
            HelpScreen("Keys of the replay", [("Replay", keys), ("On the table", about)], self.ascii)
        )

    def action_close(self) -> None:
        self.playing = False
        if self.standalone:
            self.app.exit()
        else:
            self.dismiss()
