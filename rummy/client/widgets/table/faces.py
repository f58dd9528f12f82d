"""Card faces, drawn as text: a row of framed cards that share their edges (a fan),
card "chips" for melds, and card backs.

Pure functions from cards to ``Content`` lines, so every widget (and a replay)
draws cards the same way. A face is ivory with a red or black rank and suit
(or four colours, one per suit, for players who prefer them), so it reads on
dark and light terminals alike; ``ascii`` draws the same shapes with ``+ - |``
and suit letters.

A fan of small cards, the second one selected (raised one row), numbered in
its bottom edge, the last one just drawn ("new")::

        ╭───
    ╭───│ 9♥╭new╮
    │ 7♥╰─2─│ K♣│
    ╰─1─    ╰─3─╯
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual.content import Content

from rummy.engine import Card

from ...look import Look

IVORY = "#f4f1e8"
EDGE = "#8c8577"
CURSOR = "#ffd24d"  # the card under the cursor
TAKEN = "#fbe7a1"  # the cards a take from the pile would take with it
RECENT = "#b8dcff"  # just played by the last player
BACK = "#2f5d9e"


@dataclass(frozen=True, slots=True)
class Size:
    """A card's inside: ``inner`` columns between its edges, ``height`` rows with them."""

    inner: int
    height: int

    @property
    def slot(self) -> int:
        """Columns per card in a fan (its left edge and its inside)."""
        return self.inner + 1


SMALL = Size(3, 3)
MEDIUM = Size(4, 4)
LARGE = Size(5, 5)


@dataclass(frozen=True, slots=True)
class Face:
    """One card of a fan and how it is marked. ``card`` None is a card back."""

    card: Card | None
    raised: bool = False
    cursor: bool = False
    background: str = IVORY  # TAKEN, RECENT...
    top: str = ""  # a word in the top edge ("new")
    label: str = ""  # a key in the bottom edge ("1")
    dot: bool = False  # a hint: this card can be played now
    underline: bool = False  # laid off by the other team (R5.5)


@dataclass(frozen=True, slots=True)
class Edges:
    """The characters a card is framed with, and the hint dot."""

    top_left: str
    top_right: str
    bottom_left: str
    bottom_right: str
    across: str
    down: str
    dot: str


ROUNDED = Edges("╭", "╮", "╰", "╯", "─", "│", "•")
PLAIN = Edges("+", "+", "+", "+", "-", "|", "*")


def _edges(look: Look) -> Edges:
    return PLAIN if look.ascii else ROUNDED


def _inside(face: Face, row: int, size: Size, look: Look) -> tuple[str, str]:
    """The text and style of ``face``'s inside on its own ``row`` (0: top edge)."""
    e = _edges(look)
    across, dot = e.across, e.dot
    bg = CURSOR if face.cursor else face.background
    edge_style = f"{EDGE} on {bg}"
    last = size.height - 1
    if face.card is None:  # a back: a blue pattern inside the frame (the stock's count below)
        if row == last and face.label:
            return face.label.center(size.inner, across), f"bold #3b3b3b on {bg}"
        if row in (0, last):
            return across * size.inner, edge_style
        return ("#" if look.ascii else "░") * size.inner, f"#9fb9e0 on {BACK}"
    if row == 0:
        mark = face.top or (dot if face.dot else "")
        text = mark.center(size.inner, across) if mark else across * size.inner
        return text, f"bold {EDGE} on {bg}" if not mark else f"bold #b3261e on {bg}"
    if row == last:
        label = face.label
        if face.dot and face.top:  # the top edge is taken by the word: the dot goes here
            label = (label + dot) if label else dot
        text = label.center(size.inner, across) if label else across * size.inner
        return text, f"{EDGE} on {bg}" if not label else f"bold #3b3b3b on {bg}"
    ink = look.ink(face.card)
    name = look.text(face.card)
    if row == 1:
        text = name.rjust(size.inner) if size.inner <= 3 else (" " + name).ljust(size.inner)
        return text, f"bold {ink} on {bg}{' underline' if face.underline else ''}"
    if row == 2 and size.height >= 4:  # a pip under the corner on taller faces
        pip = "*" if face.card >= 52 and look.ascii else ("★" if face.card >= 52 else name[-1])
        return (" " * (size.inner // 2) + pip).ljust(size.inner), f"{ink} on {bg}"
    return " " * size.inner, f"on {bg}"


def fan(faces: Sequence[Face], size: Size, look: Look, lift: bool = True) -> list[Content]:
    """The rows of a fan of ``faces``, left to right. ``lift``: one more row on top so
    that raised (selected) cards can rise into it."""
    e = _edges(look)
    rows = size.height + (1 if lift else 0)
    last = size.height - 1

    def rows_of(face: Face) -> range:
        start = 0 if (face.raised or not lift) else 1
        return range(start, start + size.height)

    def edge(face: Face, row: int, left: bool) -> tuple[str, str] | None:
        occupied = rows_of(face)
        if row not in occupied:
            return None
        k = row - occupied.start
        bg = CURSOR if face.cursor else face.background
        if left:
            char = e.top_left if k == 0 else e.bottom_left if k == last else e.down
        else:
            char = e.top_right if k == 0 else e.bottom_right if k == last else e.down
        return char, f"{EDGE} on {bg}" if face.card is not None or k in (0, last) else f"{EDGE} on {BACK}"

    lines: list[Content] = []
    for row in range(rows):
        parts: list[tuple[str, str] | str] = []
        for i, face in enumerate(faces):
            prev = faces[i - 1] if i else None
            border = edge(face, row, True) or (edge(prev, row, False) if prev is not None else None)
            parts.append(border or " ")
            if row in rows_of(face):
                parts.append(_inside(face, row - rows_of(face).start, size, look))
            else:
                parts.append(" " * size.inner)
        if faces:
            parts.append(edge(faces[-1], row, False) or " ")
        lines.append(Content.assemble(*parts))
    return lines


def narrowing(size: Size) -> list[Size]:
    """Faces as tall as ``size``, from its width down to a card's corner ("10♥"): what a
    long fan tries in turn, as cards spread on a table overlap more tightly, before it
    gives up the height it has."""
    return [Size(inner, size.height) for inner in range(size.inner, SMALL.inner - 1, -1)]


def fan_width(count: int, size: Size) -> int:
    return count * size.slot + 1 if count else 0


def chip(card: Card, look: Look, background: str = IVORY, extra: str = "") -> Content:
    """A card as a small ivory chip, for melds: ``7♥``."""
    return Content.styled(look.text(card), f"bold {look.ink(card)} on {background} {extra}".strip())


def backs(count: int, look: Look, most: int = 10) -> Content:
    """A hand seen from behind: one back per card (up to ``most``), then the count."""
    if not count:
        return Content.styled("no cards", "dim")
    shown = min(count, most)
    glyph = "#" if look.ascii else "▮"
    return Content.assemble(
        (glyph * shown, f"{BACK}" if not look.ascii else "bold"),
        ("+" if count > most else ""),
        f" {count}",
    )
