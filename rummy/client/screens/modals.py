"""Small screens: confirm, choose one of several, a notice, too small."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import ClassVar, Generic, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from .dialog import Dialog

T = TypeVar("T")

MIN_WIDTH, MIN_HEIGHT = 80, 24
# The widest the too-small message gets: a line much longer reads badly.
TOO_SMALL_TEXT_WIDTH = 60


class ConfirmScreen(Dialog[bool]):
    """A yes/no question; y or enter says yes, n or escape says no."""

    AUTO_FOCUS = "#yes"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
        Binding("left,right", "app.focus_next", "Move", show=False),
    ]

    def __init__(self, question: str, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self.question = question
        self.yes, self.no = yes, no
        self.key_words = {"answer(True)": yes, "answer(False)": no}  # the buttons' words

    def contents(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Content(self.question), classes="question")
            with Horizontal(classes="buttons"):
                yield Button(f"{self.yes} (y)", id="yes", variant="primary", compact=True)
                yield Button(f"{self.no} (n)", id="no", compact=True)

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


CHOOSE_KEYS = "enter chooses, escape cancels"
# With nothing highlighted (the option it was on went: ``follow``), enter does nothing.
CHOOSE_KEYS_UNHIGHLIGHTED = "a number or up/down and enter; escape cancels"


class ChooseScreen(Dialog[T | None], Generic[T]):
    """Pick one of several options (up/down and enter, a number key, or the mouse);
    escape picks none. The options are numbered 1, 2, 3... unless ``numbers`` gives
    each its own (a chair's number, so that 4 picks chair 4 whichever chairs are free)."""

    AUTO_FOCUS = "#choices"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        *(Binding(str(n), f"number({n})", f"Option {n}", show=False) for n in range(1, 10)),
    ]

    def __init__(
        self,
        title: str,
        options: Sequence[tuple[Content | str, T]],
        highlight: int = 0,
        numbers: Sequence[int] | None = None,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.options = list(options)
        self.highlight = highlight  # the option enter picks at first
        self.numbers = list(numbers) if numbers is not None else list(range(1, len(self.options) + 1))

        self.choices = OptionList(*self._option_rows(), id="choices")

    def _option_rows(self) -> list[Option]:
        return [
            Option(Content.assemble(f"{n}. " if 1 <= n <= 9 else "   ", label))
            for (label, _), n in zip(self.options, self.numbers, strict=True)
        ]

    def contents(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Content(self.title_text), classes="question")
            yield self.choices
            yield Static(Content(CHOOSE_KEYS), classes="dim")

    def on_mount(self) -> None:
        self.choices.highlighted = self.highlight

    def on_screen_resume(self) -> None:
        if not self.options:  # every option went while a screen was over this one
            self.dismiss(None)

    @on(OptionList.OptionHighlighted)
    def _highlighted(self) -> None:
        if self.is_mounted:
            self.query_one(".dim", Static).update(Content(CHOOSE_KEYS))

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.action_pick(event.option_index)

    def action_number(self, number: int) -> None:
        """A number key: the option shown with that number, if any."""
        if number in self.numbers:
            self.action_pick(self.numbers.index(number))

    def action_pick(self, index: int) -> None:
        if 0 <= index < len(self.options):
            self.dismiss(self.options[index][1])

    def action_cancel(self) -> None:
        self.dismiss(None)

    def keep_only(self, values: Collection[T]) -> None:
        """The options whose values are no longer to be had (a chair someone sat in while
        the question was open) go; the rest keep their numbers (``follow``)."""
        kept = [
            (option, n) for option, n in zip(self.options, self.numbers, strict=True) if option[1] in values
        ]
        self.follow([option for option, _ in kept], [n for _, n in kept])

    def follow(self, options: Sequence[tuple[Content | str, T]], numbers: Sequence[int]) -> bool:
        """The question offers ``options`` now, each under its own number (a chair
        freed while it was open comes in, in its place; one taken goes): a number key
        means the same option before and after, and the highlight stays on the option
        it was on. If that option went, nothing is highlighted (enter does nothing
        until the player moves), not its neighbour, which enter would then have picked
        unasked; True tells the caller so. With no options left the question closes
        as if cancelled, its ``options`` empty: the caller tells why."""
        highlighted = self.choices.highlighted
        was = self.options[highlighted][1] if highlighted is not None and self.options else None
        values = [value for _, value in options]
        if values == [value for _, value in self.options] and list(numbers) == self.numbers:
            return False
        self.options, self.numbers = list(options), list(numbers)
        self.choices.clear_options()
        self.choices.add_options(self._option_rows())
        if not self.options:
            if self.is_active:  # else when it is on top again (``on_screen_resume``)
                self.dismiss(None)
        elif was in values:
            self.choices.highlighted = values.index(was)
        else:
            self.choices.highlighted = None
            if self.is_mounted:
                self.query_one(".dim", Static).update(Content(CHOOSE_KEYS_UNHIGHLIGHTED))
        return was is not None and was not in values

    def set_title(self, title: str) -> None:
        self.title_text = title
        if self.is_mounted:
            self.query_one(".question", Static).update(Content(title))


class NoticeScreen(Dialog[None]):
    """Something the player must read, or copy, before going on (a chair taken over,
    where a game was saved); enter, escape or the button closes it."""

    AUTO_FOCUS = "#close"

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter,escape", "close", "Close")]

    def __init__(self, title: str, text: str, button: str) -> None:
        super().__init__()
        self.title_text, self.text, self.button = title, text, button

    def contents(self) -> ComposeResult:
        with Vertical(classes="dialog notice"):
            yield Static(Content.styled(self.title_text, "bold"), classes="question")
            yield Static(Content(self.text), classes="question")
            with Horizontal(classes="buttons"):
                yield Button(f"{self.button} (enter)", id="close", variant="primary", compact=True)

    def action_close(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed)
    def _pressed(self) -> None:
        self.dismiss(None)


class TooSmallScreen(Screen[None]):
    """Shown instead of everything else while the terminal is under 80x24."""

    def compose(self) -> ComposeResult:
        yield Static(id="too-small-text")

    def on_mount(self) -> None:
        self.show_size(self.app.size.width, self.app.size.height)

    def show_size(self, width: int, height: int) -> None:
        text = self.query_one("#too-small-text", Static)
        # Never wider than the terminal: a box 60 wide on a phone's 46 columns cut the
        # sentence off before it said what is needed.
        text.styles.max_width = max(1, min(TOO_SMALL_TEXT_WIDTH, width))
        text.update(
            Content(
                f"This terminal is {width}x{height}. Persian Rummy needs at least "
                f"{MIN_WIDTH}x{MIN_HEIGHT}: please make the window larger, or the text "
                "smaller (ctrl and - in a browser and most terminals)."
            )
        )
