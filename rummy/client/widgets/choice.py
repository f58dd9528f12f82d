"""A choice among a few values, shown in words on one line: left and right (or enter,
space, a click) go through them. Plain text only, so it reads the same in any
terminal, ASCII ones included."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Generic, TypeVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

T = TypeVar("T")


class Cycle(Widget, Generic[T], can_focus=True):
    DEFAULT_CSS = """
    Cycle { height: 1; width: 1fr; }
    Cycle:focus { background: $accent 30%; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Previous", show=False),
        Binding("right,enter,space", "step(1)", "Next", show=False),
    ]

    class Changed(Message):
        def __init__(self, cycle: Cycle[object]) -> None:
            super().__init__()
            self.cycle = cycle

    index: reactive[int] = reactive(0)

    def __init__(self, options: Sequence[tuple[str, T]], value: T, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.options = list(options)
        self.index = next((i for i, (_, v) in enumerate(self.options) if v == value), 0)

    @property
    def value(self) -> T:
        return self.options[self.index][1]

    def action_step(self, step: int) -> None:
        self.index = (self.index + step) % len(self.options)
        self.post_message(self.Changed(self))  # type: ignore[arg-type]

    def on_click(self, event: events.Click) -> None:
        self.focus()
        self.action_step(1)

    def render(self) -> Content:
        words = self.options[self.index][0]
        return Content.assemble(
            ("< ", "bold"), words, (" >", "bold"), (f"   {self.index + 1}/{len(self.options)}", "dim")
        )
