"""A panel whose words are laid out for its width: the lobby's chosen table, whose
chairs are packed whole into lines (a chair's number never at one line's end and its
player at the next's), and one's own table, a chair a line."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.content import Content
from textual.widget import Widget


class FittedPanel(Widget):
    """Shows what ``build`` makes for the panel's size (its columns inside the padding,
    and its lines), made anew whenever it is resized or ``rebuild`` is called."""

    def __init__(self, build: Callable[[int, int], Content], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.build = build

    def render(self) -> Content:
        size = self.content_size
        return self.build(max(1, size.width), max(1, size.height))

    def rebuild(self) -> None:
        self.refresh()


def pack(units: Sequence[Content], width: int, sep: str = ", ") -> list[Content]:
    """``units`` (a chair and its player, each never broken) in as few lines of at most
    ``width`` columns as they fit, in order, ``sep`` between them: a line that goes on
    at the next ends in ``sep`` stripped (a comma). A unit wider than ``width`` gets a
    line of its own (its maker cuts it to fit)."""
    lines: list[Content] = []
    line: Content | None = None
    end = sep.rstrip()
    for index, unit in enumerate(units):
        comma = len(end) if index < len(units) - 1 else 0  # if a unit follows it
        if line is None:
            line = unit
        elif line.cell_length + len(sep) + unit.cell_length + comma <= width:
            line = Content.assemble(line, sep, unit)
        else:
            lines.append(Content.assemble(line, end))
            line = unit
    if line is not None:
        lines.append(line)
    return lines
