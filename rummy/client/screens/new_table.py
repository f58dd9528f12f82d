"""The form for a new table: its name, the seating, the turn timer, what happens
to the seat of a player who drops, and the chair to sit in."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Static

from rummy.engine import SEAT_NAMES

from ..messages import CreateTableRequested

TIMERS = (0, 30, 60, 120)


class NewTableScreen(ModalScreen[CreateTableRequested | None]):
    """Answers with the request to send, or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "create", "Create"),
    ]

    def __init__(self, default_name: str) -> None:
        super().__init__(classes="modal")
        self.default_name = default_name

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog form"):
            yield Static(Content.styled("New table", "bold"))
            yield Label("Name")
            yield Input(value=self.default_name, max_length=40, id="table-name", compact=True)
            yield Label("Partners")
            with RadioSet(id="seating", compact=True):
                yield RadioButton("drawn (R2.2)", value=True, id="seating-draw")
                yield RadioButton("as seated (R2.4)", id="seating-chosen")
            yield Label("Turn timer")
            with RadioSet(id="timer", compact=True):
                for i, seconds in enumerate(TIMERS):
                    yield RadioButton(
                        "off" if not seconds else f"{seconds} s", value=i == 0, id=f"timer-{seconds}"
                    )
            yield Label("When a player drops")
            with RadioSet(id="on-drop", compact=True):
                yield RadioButton("wait for them", value=True, id="drop-wait")
                yield RadioButton("a bot plays for them", id="drop-bot")
            yield Label("Your chair (when partners are as seated, chair 1 is South, 2 West, 3 North, 4 East)")
            with RadioSet(id="chair", compact=True):
                for chair in range(4):
                    yield RadioButton(
                        f"{chair + 1} {SEAT_NAMES[chair]}", value=chair == 0, id=f"chair-{chair}"
                    )
            with Horizontal(classes="buttons"):
                yield Button("Create (ctrl+s)", id="create", variant="primary", compact=True)
                yield Button("Cancel (esc)", id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#table-name", Input).focus()

    def _pressed_index(self, set_id: str) -> int:
        return max(0, self.query_one(f"#{set_id}", RadioSet).pressed_index)

    def request(self) -> CreateTableRequested:
        name = self.query_one("#table-name", Input).value.strip() or self.default_name
        return CreateTableRequested(
            name=name,
            seating="chosen" if self._pressed_index("seating") == 1 else "draw",
            turn_seconds=TIMERS[self._pressed_index("timer")],
            on_drop="bot" if self._pressed_index("on-drop") == 1 else "wait",
            chair=self._pressed_index("chair"),
        )

    def action_create(self) -> None:
        self.dismiss(self.request())

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted, "#table-name")
    def _name_done(self) -> None:
        self.query_one("#seating", RadioSet).focus()

    @on(Button.Pressed, "#create")
    def _create(self) -> None:
        self.action_create()

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.action_cancel()
