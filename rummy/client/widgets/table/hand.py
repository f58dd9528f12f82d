"""The player's hand: a row of cards to pick from with the keyboard or the mouse.

The widget owns only how the hand is shown and picked (order, cursor, selection);
which cards the player holds always comes from the engine's view. Selected cards
are drawn one line higher than the rest, so a selection reads in any colours.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar, Literal

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from rummy.engine import Card, card_text
from rummy.engine.cards import sort_key_rank, sort_key_suit

from ... import text

SortMode = Literal["suit", "rank", "own"]
SLOT = 4  # columns per card: up to three for the card, one space
ROW_LINES = 3  # raised (selected) line, card line, label line
SHORTCUT_KEYS = "1234567890"


def sort_cards(cards: Iterable[Card], mode: SortMode) -> list[Card]:
    if mode == "rank":
        return sorted(cards, key=sort_key_rank)
    return sorted(cards, key=sort_key_suit)


class HandView(Widget, can_focus=True):
    """The hand. Posts ``Changed`` whenever the selection or cursor moves."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "cursor(-1)", "Previous card", show=False),
        Binding("right", "cursor(1)", "Next card", show=False),
        Binding("home", "cursor_to(0)", "First card", show=False),
        Binding("end", "cursor_to(-1)", "Last card", show=False),
        Binding("space", "toggle_card", "Select card", show=False),
        Binding("shift+left,less_than_sign", "shift(-1)", "Move card left", show=False),
        Binding("shift+right,greater_than_sign", "shift(1)", "Move card right", show=False),
        *(
            Binding(key, f"pick({i})", f"Select card {i + 1}", show=False)
            for i, key in enumerate(SHORTCUT_KEYS)
        ),
    ]

    class Changed(Message):
        """The cursor or the selection moved."""

        def __init__(self, hand: HandView) -> None:
            super().__init__()
            self.hand = hand

        @property
        def control(self) -> HandView:
            return self.hand

    order: reactive[tuple[Card, ...]] = reactive((), layout=True)
    cursor: reactive[int] = reactive(0)
    selected: reactive[frozenset[Card]] = reactive(frozenset())
    hints: reactive[frozenset[Card]] = reactive(frozenset())
    fresh: reactive[frozenset[Card]] = reactive(frozenset())
    sort_mode: reactive[SortMode] = reactive("suit")

    def __init__(self, ascii: bool = False, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.ascii = ascii

    # --- what the hand holds ----------------------------------------------------

    def set_cards(self, cards: Sequence[Card]) -> None:
        """Show ``cards`` (the hand from the view), keeping the player's order for the
        cards still held; new cards are sorted in, or put last in an own order."""
        held = set(cards)
        kept = [c for c in self.order if c in held]
        new = [c for c in cards if c not in set(kept)]
        if self.sort_mode == "own":
            order = kept + new
        else:
            order = sort_cards(held, self.sort_mode)
        focus_card = new[-1] if len(new) == 1 and self.order else None
        self.fresh = frozenset(new) if self.order else frozenset()
        self.selected = frozenset(c for c in self.selected if c in held)
        self.order = tuple(order)
        if focus_card is not None:
            self.cursor = order.index(focus_card)
        else:
            self.cursor = min(self.cursor, max(0, len(order) - 1))
        self.post_message(self.Changed(self))

    def toggle_sort(self) -> SortMode:
        """Sort by suit, then by rank, then by suit again (an own order ends)."""
        mode: SortMode = "rank" if self.sort_mode == "suit" else "suit"
        current = self.current_card
        self.sort_mode = mode
        self.order = tuple(sort_cards(self.order, mode))
        if current is not None:
            self.cursor = self.order.index(current)
        return mode

    @property
    def current_card(self) -> Card | None:
        if not self.order:
            return None
        return self.order[min(self.cursor, len(self.order) - 1)]

    @property
    def chosen(self) -> list[Card]:
        """The selected cards in hand order, or the card under the cursor if none are."""
        if self.selected:
            return [c for c in self.order if c in self.selected]
        card = self.current_card
        return [] if card is None else [card]

    def unselect_all(self) -> None:
        self.selected = frozenset()
        self.post_message(self.Changed(self))

    # --- keys -------------------------------------------------------------------

    def action_cursor(self, step: int) -> None:
        if self.order:
            self.cursor = (self.cursor + step) % len(self.order)
            self.post_message(self.Changed(self))

    def action_cursor_to(self, index: int) -> None:
        if self.order:
            self.cursor = index % len(self.order)
            self.post_message(self.Changed(self))

    def action_toggle_card(self) -> None:
        card = self.current_card
        if card is not None:
            self._toggle(card)

    def action_pick(self, index: int) -> None:
        if index < len(self.order):
            self.cursor = index
            self._toggle(self.order[index])

    def action_shift(self, step: int) -> None:
        """Move the card under the cursor: the hand keeps this own order from now on."""
        n = len(self.order)
        j = self.cursor + step
        if n < 2 or not 0 <= j < n:
            return
        order = list(self.order)
        order[self.cursor], order[j] = order[j], order[self.cursor]
        self.sort_mode = "own"
        self.order = tuple(order)
        self.cursor = j
        self.post_message(self.Changed(self))

    def _toggle(self, card: Card) -> None:
        self.selected = self.selected ^ {card}
        self.post_message(self.Changed(self))

    # --- the mouse ----------------------------------------------------------------

    def index_at(self, x: int, y: int) -> int | None:
        per_line = self._per_line()
        slot, row = x // SLOT, y // ROW_LINES
        if slot >= per_line:
            return None
        index = row * per_line + slot
        return index if 0 <= index < len(self.order) else None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = self.index_at(offset.x, offset.y)
        if index is None:
            return
        self.focus()
        self.cursor = index
        self._toggle(self.order[index])

    # --- drawing --------------------------------------------------------------------

    def _per_line(self) -> int:
        width = self.content_size.width or 80
        return max(1, width // SLOT)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        per_line = max(1, width // SLOT)
        rows = max(1, -(-len(self.order) // per_line))
        return rows * ROW_LINES

    def render(self) -> Content:
        if not self.order:
            return Content.styled("(no cards in hand)", "dim")
        per_line = self._per_line()
        lines: list[Content] = []
        for start in range(0, len(self.order), per_line):
            raised: list[Content | str] = []
            base: list[Content | str] = []
            labels: list[Content | str] = []
            for i in range(start, min(start + per_line, len(self.order))):
                card = self.order[i]
                face = card_text(card, self.ascii).rjust(3) + " "
                style = text.card_style(card)
                if i == self.cursor and self.has_focus:
                    style += " reverse"
                if card in self.fresh:
                    style += " underline"
                blank = " " * SLOT
                if card in self.selected:
                    raised.append(Content.styled(face, style))
                    base.append(blank)
                else:
                    raised.append(blank)
                    base.append(Content.styled(face, style))
                label = SHORTCUT_KEYS[i] if i < len(SHORTCUT_KEYS) else " "
                mark = ("*" if self.ascii else "•") if card in self.hints else " "
                labels.append(Content.styled(f" {label}{mark} ", "dim" if card not in self.hints else "bold"))
            lines += [Content.assemble(*raised), Content.assemble(*base), Content.assemble(*labels)]
        return Content("\n").join(lines)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
