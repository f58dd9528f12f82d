"""``--ascii``: what changes in the app as a whole (our own widgets take ``Look.ascii``).

Textual draws some things itself: frames (our CSS gives them ``ascii`` borders under
the app's class ``-ascii``) and scrollbars, whose ends use block characters; in
ASCII mode they are plain coloured spaces.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from textual.app import App
from textual.scrollbar import ScrollBar, ScrollBarRender


class AsciiScrollBarRender(ScrollBarRender):
    """Scrollbars of plain spaces (their colours show the thumb)."""

    VERTICAL_BARS: ClassVar[list[str]] = [" "] * 8
    HORIZONTAL_BARS: ClassVar[list[str]] = [" "] * 8


def use_ascii(app: App[Any]) -> Callable[[], None]:
    """Put ``app`` in ASCII mode; returns what puts Textual's scrollbars back (the
    renderer is Textual's class-wide setting, so it is restored when the app ends)."""
    app.add_class("-ascii")
    before = ScrollBar.renderer
    ScrollBar.renderer = AsciiScrollBarRender

    def restore() -> None:
        ScrollBar.renderer = before

    return restore
