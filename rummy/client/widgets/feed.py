"""A scrolling list of lines (the log of moves, the chat) that keeps the newest in view."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static


class Feed(VerticalScroll, can_focus=True):
    """Lines of content, newest last; only the last ``keep`` are kept."""

    def __init__(self, placeholder: str = "", keep: int = 300, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.placeholder = placeholder
        self.keep = keep
        self.lines: list[Content] = []

    def compose(self) -> ComposeResult:
        yield Static(Content.styled(self.placeholder, "dim"), classes="feed-lines")

    def add(self, line: Content) -> None:
        self.lines.append(line)
        del self.lines[: -self.keep]
        self._show()

    def clear_lines(self) -> None:
        self.lines.clear()
        self._show()

    def on_mount(self) -> None:
        self._show()

    def _show(self) -> None:
        body = next(iter(self.query(".feed-lines").results(Static)), None)
        if body is None:  # lines added before the feed is composed are shown on mount
            return
        if self.lines:
            body.update(Content("\n").join(self.lines))
        else:
            body.update(Content.styled(self.placeholder, "dim"))
        self.call_after_refresh(self.scroll_end, animate=False)

    @property
    def plain_text(self) -> str:
        """The lines as plain text (what a reader of the screen would read)."""
        return "\n".join(line.plain for line in self.lines)
