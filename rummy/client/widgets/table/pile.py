"""The stock (a card back with its count) and the discard pile, spread so that every
card is readable and can be picked (R4.3), bottom card on the left.

A cursor picks the card to take from: that card (the target card) and every card
above it are marked, since taking from the pile takes all of them (R4.1). The
card the last player discarded is marked until another player moves.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.geometry import Size as Area
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from rummy.engine import Card

from ...look import Look
from .faces import (
    CURSOR,
    IVORY,
    LARGE,
    MEDIUM,
    RECENT,
    SMALL,
    TAKEN,
    Face,
    Size,
    chip,
    fan,
    fan_width,
    narrowing,
)

GAP = 2  # columns between the stock and the pile


class DiscardPileView(Widget, can_focus=True):
    """The stock and the spread discard pile. Framed faces while they fit in one row;
    then narrower faces of the same height, down to a card's corner, as a spread pile on
    a table overlaps more tightly (so the table keeps its shape); and only a pile longer
    still as small chips over as many lines as it needs."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "cursor(-1)", "Lower card", show=False),
        Binding("right", "cursor(1)", "Higher card", show=False),
        Binding("home", "cursor_to(0)", "Bottom card", show=False),
        Binding("end", "cursor_to(-1)", "Top card", show=False),
        Binding("enter", "take", "Take from here", show=False),
    ]

    class TakeRequested(Message):
        """The player wants to take the pile from ``index`` up."""

        def __init__(self, pile: DiscardPileView, index: int) -> None:
            super().__init__()
            self.pile = pile
            self.index = index

        @property
        def control(self) -> DiscardPileView:
            return self.pile

    class Moved(Message):
        """The cursor moved."""

    pile: reactive[tuple[Card, ...]] = reactive((), layout=True)
    stock: reactive[int] = reactive(0)
    cursor: reactive[int] = reactive(0)
    hints: reactive[frozenset[int]] = reactive(frozenset())
    armed: reactive[bool] = reactive(False)  # the player may take now: mark what t would take
    recent: reactive[Card | None] = reactive(None)  # just discarded by the last player
    wanted: reactive[Size] = reactive(SMALL, layout=True)

    def __init__(self, look: Look | None = None, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.look = look or Look()

    def set_pile(self, pile: Sequence[Card], stock: int, takes: Collection[int] = ()) -> None:
        """Show a new pile. ``takes`` are the cards the player may take from now (R4.1):
        while there are any, what t would take is marked. When the pile changes, or the
        player comes to draw, the cursor goes to the highest card that can be taken (so
        that t takes a card with a use, and the fewest cards), else to the top card."""
        changed = tuple(pile) != self.pile
        arming = bool(takes) and not self.armed
        self.pile = tuple(pile)
        self.stock = stock
        if changed or arming or self.cursor >= len(self.pile):
            self.cursor = max(takes) if takes else max(0, len(self.pile) - 1)
        self.armed = bool(takes)

    def action_cursor(self, step: int) -> None:
        if self.pile:
            self.cursor = max(0, min(len(self.pile) - 1, self.cursor + step))
            self.post_message(self.Moved())

    def action_cursor_to(self, index: int) -> None:
        if self.pile:
            self.cursor = index % len(self.pile)
            self.post_message(self.Moved())

    def action_take(self) -> None:
        if self.pile:
            self.post_message(self.TakeRequested(self, self.cursor))

    # --- shape ------------------------------------------------------------------------

    def _face_size(self) -> Size:
        """The face size of the stock and of a framed pile (at most ``wanted``)."""
        for size in (LARGE, MEDIUM, SMALL):
            if size.inner <= self.wanted.inner and size.height <= max(self.wanted.height, 3):
                return size
        return SMALL

    def _pile_size(self, width: int) -> Size | None:
        """The faces of a framed pile in ``width``: the stock's, else as tall but narrower,
        down to a corner ("10♥"), so that the table keeps its shape as the pile grows;
        None when even those do not fit in one row (chips)."""
        room = self._room(width)
        return next((f for f in narrowing(self._face_size()) if fan_width(len(self.pile), f) <= room), None)

    def _room(self, width: int) -> int:
        """The columns the pile has in ``width``, right of the stock."""
        return width - fan_width(1, self._face_size()) - GAP

    def _chips_per_line(self, width: int) -> int:
        # "10♥•" is the widest chip with its mark (a hint's dot, else a space): a line's
        # last mark counts too, else a marked last chip wrapped onto the next line.
        return max(1, self._room(width) // 4)

    def get_content_height(self, container: Area, viewport: Area, width: int) -> int:
        size = self._face_size()
        if self._pile_size(width) is not None:
            return size.height
        lines = -(-len(self.pile) // self._chips_per_line(width))
        return max(size.height, lines)

    def index_at(self, x: int, y: int) -> int | None:
        width = self.content_size.width
        left = fan_width(1, self._face_size()) + GAP
        if x < left:
            return None
        framed = self._pile_size(width)
        if framed is not None:
            index = (x - left) // framed.slot
        else:
            index = y * self._chips_per_line(width) + (x - left) // 4
        return index if 0 <= index < len(self.pile) else None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        index = None if offset is None else self.index_at(offset.x, offset.y)
        if index is None:
            return
        self.focus()
        self.cursor = index
        self.post_message(self.TakeRequested(self, index))

    # --- drawing ------------------------------------------------------------------------

    def _background(self, i: int) -> str:
        marking = self.has_focus or self.armed
        if marking and i == self.cursor:
            return CURSOR
        if marking and i > self.cursor:
            return TAKEN
        if self.recent is not None and i == len(self.pile) - 1 and self.pile[i] == self.recent:
            return RECENT
        return IVORY

    def render(self) -> Content:
        width = self.content_size.width or 80
        size = self._face_size()
        if self.stock:
            stock = fan([Face(None, label=str(self.stock))], size, self.look, lift=False)
        else:  # the same room, so that the pile does not move
            stock = [Content.styled("empty" if r == 1 else "", "dim") for r in range(size.height)]
        stock = [line.pad_right(fan_width(1, size) + GAP - line.cell_length) for line in stock]
        if not self.pile:
            body = [
                Content.styled("(the discard pile is empty)" if r == 1 else "", "dim")
                for r in range(size.height)
            ]
        elif (framed := self._pile_size(width)) is not None:
            faces = [
                Face(card, background=self._background(i), dot=i in self.hints)
                for i, card in enumerate(self.pile)
            ]
            body = fan(faces, framed, self.look, lift=False)
        else:
            per_line = self._chips_per_line(width)
            dot = "*" if self.look.ascii else "•"
            body = []
            for start in range(0, len(self.pile), per_line):
                parts: list[Content | str] = []
                for i in range(start, min(start + per_line, len(self.pile))):
                    face = chip(self.pile[i], self.look, self._background(i)).pad_left(
                        3 - len(self.look.text(self.pile[i]))
                    )
                    parts += [face, dot if i in self.hints else " "]
                body.append(Content.assemble(*parts))
        rows = max(len(stock), len(body))
        stock += [Content(" " * (fan_width(1, size) + GAP))] * (rows - len(stock))
        body += [Content("")] * (rows - len(body))
        return Content("\n").join(Content.assemble(s, b) for s, b in zip(stock, body, strict=True))

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
