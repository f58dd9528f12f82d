"""A scrolling list of lines (the log of moves, the chat) that keeps the newest in view."""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual import events
from textual.cache import LRUCache
from textual.content import Content
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip
from textual.visual import Visual

# How many lines keep their drawn rows: more than a tall terminal's feed shows.
DRAWN_LINES = 64


class Feed(ScrollView, can_focus=True):
    """Lines of content, newest last; only the last ``keep`` are kept. Lines may be
    added before the feed is mounted: they show once it is.

    A line is wrapped and drawn when it comes, and again only when it is in view
    after the width or the look changed; only the lines drawn last keep their rows.
    The whole feed drawn again as one text at every line made a client's turn twice
    as slow with 300 lines in the log, and kept about 5 KiB of drawn rows a line
    (README).
    """

    DEFAULT_CSS = """
    Feed {
        overflow-x: hidden;
    }
    """

    def __init__(self, placeholder: str = "", keep: int = 300, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.placeholder = placeholder
        self.keep = keep
        self.lines: list[Content] = []
        self._shown: list[Content] = []  # what is shown: the lines, or the placeholder
        self._line_heights: list[int] = []  # the rows of each line shown, at ``_width``
        self._starts: list[int] = []  # the row each line shown starts at
        self._width = 0
        # id of a line -> (the line, its rows), for the lines drawn last at this width and
        # look. By identity: Content compares its text alone, and a line's styles count here.
        self._drawn: LRUCache[int, tuple[Content, list[Strip]]] = LRUCache(DRAWN_LINES)

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

    @property
    def plain_text(self) -> str:
        """The lines as plain text (what a reader of the screen would read)."""
        return "\n".join(line.plain for line in self.lines)

    # --- drawing --------------------------------------------------------------------------

    def _show(self) -> None:
        """Measure the lines not measured yet at this width and keep the newest in view.
        The lines kept from before are those the new list goes on with (the oldest may
        have gone): a new line, a grown last line or a replay's next step draws one or
        two lines, not all of them."""
        if not self.is_mounted or not self.is_attached:  # off any screen: drawn when mounted again
            return
        width = self.scrollable_content_region.width
        shown = self.lines or [Content.styled(self.placeholder, "dim")]
        if width != self._width:
            self._width, self._shown, self._line_heights = width, [], []
            self._drawn.clear()
        start, kept = _kept(self._shown, shown)
        heights = self._line_heights[start : start + kept]
        heights.extend(len(self._rows(line)) for line in shown[kept:])
        self._shown, self._line_heights = list(shown), heights
        self._starts = list(accumulate(heights, initial=0))
        self.virtual_size = Size(width, self._starts[-1])
        self.refresh()
        self.call_after_refresh(self.scroll_end, animate=False)

    def _rows(self, line: Content) -> list[Strip]:
        """``line`` wrapped at the feed's width and drawn in its look."""
        drawn = self._drawn.get(id(line))
        if drawn is not None and drawn[0] is line:
            return drawn[1]
        rows = self._draw(line)
        self._drawn[id(line)] = (line, rows)
        return rows

    def _draw(self, line: Content) -> list[Strip]:
        # The selection is marked on the rows as they are put on the screen (render_line):
        # a line is drawn alone, so its rows do not know where they are in the feed.
        style = self.visual_style
        return Visual.to_strips(self, line, self._width, None, style, apply_selection=False, pad=True)

    def render_line(self, y: int) -> Strip:
        row = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        if self._shown and width == self._width and 0 <= row < self._starts[-1]:
            i = bisect_right(self._starts, row) - 1
            rows, at = self._rows(self._shown[i]), row - self._starts[i]
            if at < len(rows):
                strip = rows[at]
                selection = self.text_selection
                if selection is not None and (span := selection.get_span(row)) is not None:
                    strip = self._selected(strip, *span)
                return strip.crop_extend(0, width, self.rich_style).apply_offsets(0, row)
        return Strip.blank(width, self.rich_style)

    # --- the text selected with the mouse (to copy), as in any of Textual's widgets ---------

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        rows = (row.text.rstrip() for line in self._shown for row in self._draw(line))
        return selection.extract("\n".join(rows)), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    def _selected(self, row: Strip, start: int, end: int) -> Strip:
        """``row`` with its cells from ``start`` to ``end`` (-1: its end) marked selected."""
        # Its background alone: the theme's selection colour for text is "unchanged"
        # (transparent), which Rich would take as the background's colour.
        style = RichStyle(bgcolor=self.screen.get_component_rich_style("screen--selection").bgcolor)
        end = row.cell_length if end == -1 else end
        chosen = row.crop(start, end)
        marked = Strip(Segment.apply_style(chosen, post_style=style), chosen.cell_length)
        return Strip.join([row.crop(0, start), marked, row.crop(end)])

    def on_mount(self) -> None:
        self._show()

    def on_resize(self, _: events.Resize) -> None:
        self._show()

    def watch_show_vertical_scrollbar(self) -> None:
        """The scrollbar came or went: the rows are as wide as what is left of the feed."""
        self._show()

    def notify_style_update(self) -> None:
        """The look changed (focus, the theme): the lines in view are drawn again in it
        (their heights stay: the look does not change the width of a character)."""
        super().notify_style_update()
        self._drawn.clear()
        self.refresh()


def _kept(old: list[Content], new: list[Content]) -> tuple[int, int]:
    """(start, count): ``new`` begins with ``count`` lines of ``old`` from its line
    ``start`` on, the very same ones (the oldest gone as the feed keeps its last lines)."""
    start = next((i for i, line in enumerate(old) if new and line is new[0]), 0)
    count = 0
    while count < len(new) and start + count < len(old) and old[start + count] is new[count]:
        count += 1
    return start, count
