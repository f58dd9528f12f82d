"""What every dialog shares: it sits over another screen, and its own line of keys
covers that screen's.

While a dialog is open only its keys work; the screen underneath still shows through,
dimmed, and without a line of its own the dialog would leave that screen's keys at the
bottom ("s Draw", "c Chat"), which do nothing until it closes.
"""

from __future__ import annotations

from typing import TypeVar

from textual.app import ComposeResult
from textual.screen import ModalScreen

from ..widgets.keys import KeyBar

T = TypeVar("T")


class Dialog(ModalScreen[T]):
    """A dialog: ``contents`` composes what it shows; the line of its keys comes after."""

    def __init__(self) -> None:
        super().__init__(classes="modal")
        self.key_words: dict[str, str] = {}  # action: the words its key says, if not its binding's

    def compose(self) -> ComposeResult:
        yield from self.contents()
        # The palette offers the screen underneath's actions, which wait for this to close.
        yield KeyBar(palette=False, classes="dialog-keys")

    def contents(self) -> ComposeResult:
        raise NotImplementedError

    def _keys_follow(self) -> None:
        """The line of keys says what they do now. (Told before the dialog has drawn
        its line, as the table may change the moment it opens, there is no line yet: it
        is drawn as things are then. Asking for the one line failed there, and ended
        the client.)"""
        for bar in self.query(KeyBar).results(KeyBar):
            bar.follow()
