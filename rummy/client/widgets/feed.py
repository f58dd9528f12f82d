"""A scrolling list of lines (the log of moves, the chat) that keeps the newest in view."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static


class Feed(VerticalScroll, can_focus=True):
    """Lines of content, newest last; only the last ``keep`` are kept. Lines may be
    added before the feed is mounted: they show once it is."""

    def __init__(self, placeholder: str = "", keep: int = 300, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.placeholder = placeholder
        self.keep = keep
        self.lines: list[Content] = []
        self.body = Static(Content.styled(placeholder, "dim"), classes="feed-lines")

    def compose(self) -> ComposeResult:
        yield self.body

    def add(self, line: Content) -> None:
        self.lines.append(line)
        del self.lines[: -self.keep]
        self._show()

    def replace_last(self, line: Content) -> None:
        """The last line again, grown (a turn told move by move)."""
        if self.lines:
            self.lines[-1] = line
            self._show()
        else:
            self.add(line)

    def clear_lines(self) -> None:
        self.lines.clear()
        self._show()

    def set_placeholder(self, placeholder: str) -> None:
        """What an empty feed says."""
        self.placeholder = placeholder
        if not self.lines:
            self._show()

    def set_lines(self, lines: list[Content]) -> None:
        """Show exactly ``lines`` (the last ``keep``), in one update."""
        self.lines = lines[-self.keep :]
        self._show()

    def _show(self) -> None:
        if self.lines:
            self.body.update(Content("\n").join(self.lines))
        else:
            self.body.update(Content.styled(self.placeholder, "dim"))
        if self.is_mounted:
            self.call_after_refresh(self.scroll_end, animate=False)

    def on_mount(self) -> None:
        self.call_after_refresh(self.scroll_end, animate=False)

    @property
    def plain_text(self) -> str:
        """The lines as plain text (what a reader of the screen would read)."""
        return "\n".join(line.plain for line in self.lines)
