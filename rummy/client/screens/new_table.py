"""The form for a new table: its name, the partners, the turn timer, what happens
to the seat of a player who drops, and the chair to sit in.

Each choice shows its value in words, so the form reads the same in any colours
and in plain ASCII; tab or the down arrow moves from one to the next (up and shift+tab
back), left and right change one: a form of rows, as a game's settings menu.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Input, Label, Static

from rummy.engine import SEAT_NAMES

from ..messages import CreateTableRequested
from ..text import to_ascii
from ..widgets.choice import Cycle
from .dialog import Dialog

T = TypeVar("T")
SEATING = [("drawn, as the rules say (R2.2)", "draw"), ("as seated: chairs 1+3 against 2+4 (R2.4)", "chosen")]
TIMERS = [("off", 0), ("30 seconds", 30), ("60 seconds", 60), ("2 minutes", 120)]
# "wait" is not for ever: after 2 minutes away (the server's free_away_after) a bot
# stands in while others are at the table, so a player who cannot come back does not
# hold the game up for good.
ON_DROP = [
    ("wait for them (then a bot after 2 minutes)", "wait"),
    ("a bot plays for them until they return", "bot"),
]
CHAIRS = [(f"{c + 1} ({SEAT_NAMES[c]} when seated as chosen)", c) for c in range(4)]


class NewTableScreen(Dialog[CreateTableRequested | None]):
    """Answers with the request to send, or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "create", "Create"),
        Binding("down", "app.focus_next", "Next", show=False),
        Binding("up", "app.focus_previous", "Previous", show=False),
    ]

    def __init__(self, default_name: str, ascii: bool = False) -> None:
        super().__init__()
        self.default_name = default_name
        self.ascii = ascii

    def _words(self, options: Sequence[tuple[str, T]]) -> list[tuple[str, T]]:
        return [(to_ascii(w) if self.ascii else w, v) for w, v in options]

    def contents(self) -> ComposeResult:
        with Vertical(classes="dialog form"):
            yield Static(Content.styled("New table", "bold"))
            with Horizontal(classes="row"):
                yield Label("Name")
                yield Input(value=self.default_name, max_length=40, id="table-name", compact=True)
            with Horizontal(classes="row"):
                yield Label("Partners")
                yield Cycle(self._words(SEATING), "draw", id="seating")
            with Horizontal(classes="row"):
                yield Label("Turn timer")
                yield Cycle(self._words(TIMERS), 0, id="timer")
            with Horizontal(classes="row"):
                yield Label("If one drops")
                yield Cycle(self._words(ON_DROP), "wait", id="on-drop")
            with Horizontal(classes="row"):
                yield Label("Your chair")
                yield Cycle(self._words(CHAIRS), 0, id="chair")
            with Horizontal(classes="buttons"):
                yield Button("Create (ctrl+s)", id="create", variant="primary", compact=True)
                yield Button("Cancel (esc)", id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#table-name", Input).focus()

    def request(self) -> CreateTableRequested:
        def value(select_id: str) -> object:
            return self.query_one(f"#{select_id}", Cycle).value

        name = self.query_one("#table-name", Input).value.strip() or self.default_name
        timer, chair = value("timer"), value("chair")
        return CreateTableRequested(
            name=name,
            seating="chosen" if value("seating") == "chosen" else "draw",
            turn_seconds=timer if isinstance(timer, int) else 0,
            on_drop="bot" if value("on-drop") == "bot" else "wait",
            chair=chair if isinstance(chair, int) else 0,
        )

    def action_create(self) -> None:
        self.dismiss(self.request())

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted, "#table-name")
    def _name_done(self) -> None:
        self.query_one("#seating", Cycle).focus()

    @on(Button.Pressed, "#create")
    def _create(self) -> None:
        self.action_create()

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.action_cancel()
