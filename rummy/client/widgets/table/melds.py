"""The melds on the table, by team: every meld of the deal stays in view.

Each team's melds (those its players laid down) flow in its own column, each meld
as its number (from 1) and its cards. When there is little room the melds are
drawn more tightly (no names, then no spaces between the cards) rather than
hidden. A card laid off by the other team is underlined: it scores for that team
(R5.5). Cards the last player melded or laid off are marked until another
player moves; hints mark the melds a card of the hand fits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from rummy.engine import Meld, team_of

from ... import text
from ...look import Look
from ...scene import Scene
from .faces import CURSOR, IVORY, RECENT, SMALL, Face, chip, fan

SPACING = ("framed", "named", "spaced", "tight")  # from the roomiest form to the tightest
LEGEND = "underlined: laid off by the other team, and scores for it (R5.5)"


class MeldClicked(Message):
    """A meld was chosen (clicked, or enter on it): the screen may lay the chosen card
    off on it."""

    def __init__(self, meld_id: int) -> None:
        super().__init__()
        self.meld_id = meld_id


@dataclass(frozen=True, slots=True)
class Placed:
    """Where a meld was drawn: its line and columns, to find it under the mouse."""

    meld_id: int
    line: int
    start: int
    end: int


Token = list[Content]  # a meld as drawn: one line, or the three lines of small faces


def meld_token(meld: Meld, scene: Scene, form: str, cursor: int | None) -> Token:
    """One meld as drawn: framed faces, '3 Cyd: 7♥ 8♥ 9♥', '3 7♥ 8♥ 9♥' or '3 7♥8♥9♥'."""
    look = scene.look
    dot = ("*" if look.ascii else "•") if meld.id in scene.hints.melds else " "
    number = Content.styled(f"{meld.id + 1}", f"bold #1b1b1b on {CURSOR}" if meld.id == cursor else "bold")
    label = Content.assemble(Content.styled(dot, "bold"), number)
    if form == "framed" and meld.id < 9:  # numbers line up over the faces
        label = Content.assemble(" ", label)
    recent = scene.recent
    fresh = meld.id in recent.melded
    marks = [
        (card, RECENT if fresh or card in recent.laid_off else IVORY, team_of(owner) != team_of(meld.laid_by))
        for card, owner in zip(meld.cards, meld.owners, strict=True)
    ]
    double = Content.styled(" x2", "bold") if meld.four_at_once else Content("")
    if form == "framed":
        faces = [Face(card, background=bg, underline=foreign) for card, bg, foreign in marks]
        rows = fan(faces, SMALL, look, lift=False)
        pad = Content(" " * (label.cell_length + 1))
        return [
            Content.assemble(pad, rows[0]),
            Content.assemble(label, " ", rows[1], double),
            Content.assemble(pad, rows[2]),
        ]
    parts: list[Content | str] = [label, " "]
    if form == "named":
        parts += [text.plain(scene.seats.name(meld.laid_by), "dim", limit=12), Content.styled(": ", "dim")]
    for i, (card, bg, foreign) in enumerate(marks):
        if i and form != "tight":
            parts.append(" ")
        parts.append(chip(card, look, bg, "underline" if foreign else ""))
    return [Content.assemble(*parts, double)]


def flow(tokens: Sequence[tuple[int, Token]], width: int) -> list[list[tuple[int, Token]]]:
    """Tokens left to right, two spaces apart, a new line when one would not fit."""
    lines: list[list[tuple[int, Token]]] = [[]]
    used = 0
    for meld_id, token in tokens:
        size = max(line.cell_length for line in token)
        need = size + (2 if lines[-1] else 0)
        if lines[-1] and used + need > width:
            lines.append([])
            used, need = 0, size
        lines[-1].append((meld_id, token))
        used += need
    return lines if lines[0] else []


def _rows(line: list[tuple[int, Token]]) -> int:
    return max(len(token) for _, token in line)


def _widest(columns: Sequence[list[list[tuple[int, Token]]]]) -> int:
    """The widest meld drawn: a long run wider than its column in one form was cut at
    the column's edge (seen at 80x24: a run of nine framed faces lost its ninth card),
    so a form fits only when every meld fits its column whole."""
    pieces = (piece for c in columns for line in c for _, token in line for piece in token)
    return max((piece.cell_length for piece in pieces), default=0)


def layout(
    scene: Scene, width: int, height: int, cursor: int | None = None
) -> tuple[list[Content], list[Placed]]:
    """The melds in ``width`` x ``height``: the roomiest form in which all of them fit.
    Returns the lines and where each meld went."""
    melds = scene.view.melds
    by_team = [[m for m in melds if team_of(m.laid_by) == team] for team in (0, 1)]
    foreign = any(team_of(o) != team_of(m.laid_by) for m in melds for o in m.owners)
    rows = max(1, height - (1 if foreign else 0))
    column = max(10, (width - 3) // 2)
    columns: list[list[list[tuple[int, Token]]]] = [[], []]
    gap = 0
    for form in SPACING:
        columns = [
            flow([(m.id, meld_token(m, scene, form, cursor)) for m in team], column) for team in by_team
        ]
        gap = 1 if form == "framed" else 0  # a blank line between rows of faces
        tall = 1 + max(sum(_rows(line) + gap for line in c) - gap for c in columns)
        if tall <= rows and _widest(columns) <= column:
            break
    me = scene.seats.me
    heads = []
    for team in (0, 1):
        title = f"{text.team_name(team, scene.look.ascii)} melds"
        if me is not None and team_of(me) == team:
            title += " (your team)"
        heads.append(Content.styled(title, "bold underline"))
    # Each column as lines of text, and where its melds are in it.
    cells: list[list[Content]] = []
    spots: list[list[Placed]] = []
    for team in (0, 1):
        lines = [heads[team]]
        found: list[Placed] = []
        x0 = 0 if team == 0 else column + 3
        for k, line in enumerate(columns[team]):
            if k and gap:
                lines.append(Content(""))
            height_of = _rows(line)
            for r in range(height_of):
                parts: list[Content] = []
                x = x0
                for meld_id, token in line:
                    size = max(t.cell_length for t in token)
                    if parts:
                        parts.append(Content("  "))
                        x += 2
                    piece = token[r] if r < len(token) else Content("")
                    parts.append(piece.pad_right(size - piece.cell_length))
                    found.append(Placed(meld_id, len(lines), x, x + size))
                    x += size
                lines.append(Content.assemble(*parts))
        if len(lines) == 1:
            lines.append(Content.styled("  (none yet)", "dim"))
        cells.append(lines)
        spots.append(found)
    bar = "|" if scene.look.ascii else "│"
    out: list[Content] = []
    for row in range(max(len(c) for c in cells)):
        left = cells[0][row] if row < len(cells[0]) else Content("")
        right = cells[1][row] if row < len(cells[1]) else Content("")
        out.append(
            Content.assemble(
                left.truncate(column, pad=True), Content.styled(f" {bar} ", "dim"), right.truncate(column)
            )
        )
    if foreign:
        out.append(Content.styled(LEGEND, "dim italic").truncate(width, ellipsis=True))
    return out, spots[0] + spots[1]


class MeldsView(Widget, can_focus=True):
    """Both teams' melds. With the focus (tab), the arrow keys pick a meld and enter
    lays the chosen card of the hand off on it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,up", "cursor(-1)", "Previous meld", show=False),
        Binding("right,down", "cursor(1)", "Next meld", show=False),
        Binding("enter", "choose", "Lay off here", show=False),
    ]

    cursor: reactive[int | None] = reactive(None)

    def __init__(self, look: Look | None = None, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.look = look or Look()
        self.scene: Scene | None = None
        self.placed: list[Placed] = []  # where each meld was drawn last

    def show(self, scene: Scene) -> None:
        self.scene = scene
        ids = [m.id for m in self._order()]
        if self.cursor not in ids:
            self.cursor = ids[0] if ids else None
        self.refresh()

    def _order(self) -> list[Meld]:
        """The melds in the order they are drawn: team by team."""
        if self.scene is None:
            return []
        melds = self.scene.view.melds
        return [m for team in (0, 1) for m in melds if team_of(m.laid_by) == team]

    def action_cursor(self, step: int) -> None:
        ids = [m.id for m in self._order()]
        if ids:
            at = ids.index(self.cursor) if self.cursor in ids else 0
            self.cursor = ids[(at + step) % len(ids)]

    def action_choose(self) -> None:
        if self.cursor is not None:
            self.post_message(MeldClicked(self.cursor))

    def lines(self) -> list[Content]:
        if self.scene is None:
            return []
        size = self.content_size
        cursor = self.cursor if self.has_focus else None
        lines, self.placed = layout(self.scene, max(20, size.width), max(2, size.height), cursor)
        return lines

    def render(self) -> Content:
        return Content("\n").join(self.lines())

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        for spot in self.placed:
            if spot.line == offset.y and spot.start <= offset.x < spot.end:
                self.cursor = spot.meld_id
                self.post_message(MeldClicked(spot.meld_id))
                return

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
