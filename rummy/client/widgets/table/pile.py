"""The stock's count and the discard pile, spread so that every card shows (R4.3).

A cursor picks the card to take from: that card (the target card) and every card
above it are marked, since taking from the pile takes all of them (R4.1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from rummy.engine import Card, card_text

from ... import text

SLOT = 4
LABEL = 14  # "Stock 27  Pile" then the cards


class DiscardPileView(Widget, can_focus=True):
    """The stock count and the spread discard pile (bottom card first)."""

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

    def __init__(self, ascii: bool = False, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.ascii = ascii

    def set_pile(self, pile: Sequence[Card], stock: int) -> None:
        """Show a new pile; the cursor goes to the top card."""
        changed = tuple(pile) != self.pile
        self.pile = tuple(pile)
        self.stock = stock
        if changed or self.cursor >= len(self.pile):
            self.cursor = max(0, len(self.pile) - 1)

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

    def index_at(self, x: int, y: int) -> int | None:
        per_line = self._per_line()
        if x < LABEL:
            return None
        slot, row = (x - LABEL) // SLOT, y // 2
        if slot >= per_line:
            return None
        index = row * per_line + slot
        return index if 0 <= index < len(self.pile) else None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        index = None if offset is None else self.index_at(offset.x, offset.y)
        if index is None:
            return
        self.focus()
        self.cursor = index
        self.post_message(self.TakeRequested(self, index))

    def _per_line(self) -> int:
        width = self.content_size.width or 80
        return max(1, (width - LABEL) // SLOT)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        per_line = max(1, (width - LABEL) // SLOT)
        return max(1, -(-len(self.pile) // per_line)) * 2

    def render(self) -> Content:
        per_line = self._per_line()
        stock = Content.assemble(("Stock ", "dim"), (f"{self.stock:<3}", "bold"), ("Pile  ", "dim"))
        if not self.pile:
            return Content.assemble(stock, ("(empty)", "dim"))
        lines: list[Content] = []
        mark_taken = "^" if self.ascii else "▔"
        for row, start in enumerate(range(0, len(self.pile), per_line)):
            faces: list[Content | str] = [stock if row == 0 else " " * LABEL]
            arrow = "bottom->top" if self.ascii else "bottom → top"
            marks: list[Content | str] = [Content.styled((arrow if row == 0 else "").ljust(LABEL), "dim")]
            for i in range(start, min(start + per_line, len(self.pile))):
                card = self.pile[i]
                style = text.card_style(card)
                taken = i >= self.cursor and (self.has_focus or self.armed)
                if i == self.cursor and self.has_focus:
                    style += " reverse"
                faces.append(Content.styled(card_text(card, self.ascii).rjust(3) + " ", style))
                hint = ("*" if self.ascii else "•") if i in self.hints else ""
                under = mark_taken if taken else " "
                marks.append(Content.styled(under * 2 + (hint or under) + " ", "bold"))
            lines += [Content.assemble(*faces), Content.assemble(*marks)]
        return Content("\n").join(lines)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
