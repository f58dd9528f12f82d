"""The player's hand: a fan of card faces to pick from with the keyboard or the mouse.

The widget owns only how the hand is shown and picked (order, cursor, selection);
which cards the player holds always comes from the engine's view. A card keeps
its place (and so its number key) until the player sorts or moves it: a card
that arrives goes to the right end, marked "new". Selected cards rise one row.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar, Literal

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.geometry import Size as Area
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from rummy.engine import Card
from rummy.engine.cards import sort_key_rank, sort_key_suit

from ...look import Look
from .faces import LARGE, MEDIUM, SMALL, Face, Size, fan, fan_width, narrowing

SortMode = Literal["suit", "rank"]
SHORTCUT_KEYS = "1234567890"
SIZES = (LARGE, MEDIUM, SMALL)


def sort_cards(cards: Iterable[Card], mode: SortMode) -> list[Card]:
    if mode == "rank":
        return sorted(cards, key=sort_key_rank)
    return sorted(cards, key=sort_key_suit)


def fitting(count: int, width: int, wanted: Size) -> tuple[Size, int]:
    """The face whose fan of ``count`` fits ``width`` in one row: the largest face no
    larger than ``wanted``, else as tall but narrower, down to a card's corner, so that
    the table keeps its shape as the hand grows; and how many cards go in one row (all
    of them, unless even those need rows: then small faces, in as many rows as needed)."""
    tallest = next((size for size in SIZES if size.inner <= wanted.inner), SMALL)
    for size in narrowing(tallest):
        if fan_width(count, size) <= width:
            return size, max(1, count)
    return SMALL, max(1, (width - 1) // SMALL.slot)


class HandView(Widget, can_focus=True):
    """The hand. Posts ``Changed`` when the cursor or the selection moves, ``Reordered``
    when the order changes (to remember it across a resume)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "cursor(-1)", "Previous card", show=False),
        Binding("right", "cursor(1)", "Next card", show=False),
        Binding("home", "cursor_to(0)", "First card", show=False),
        Binding("end", "cursor_to(-1)", "Last card", show=False),
        Binding("space", "toggle_card", "Select card", show=False),
        Binding("shift+left,less_than_sign", "shift(-1)", "Move card left", show=False),
        Binding("shift+right,greater_than_sign", "shift(1)", "Move card right", show=False),
    ]

    class Changed(Message):
        """The cursor or the selection moved."""

        def __init__(self, hand: HandView) -> None:
            super().__init__()
            self.hand = hand

        @property
        def control(self) -> HandView:
            return self.hand

    class Reordered(Message):
        """The hand's order changed: ``order`` is the new one."""

        def __init__(
            self, hand: HandView, order: tuple[Card, ...], fresh: frozenset[Card] = frozenset()
        ) -> None:
            super().__init__()
            self.hand = hand
            self.order = order
            self.fresh = fresh

        @property
        def control(self) -> HandView:
            return self.hand

    order: reactive[tuple[Card, ...]] = reactive((), layout=True)
    cursor: reactive[int] = reactive(0)
    selected: reactive[frozenset[Card]] = reactive(frozenset())
    hints: reactive[frozenset[Card]] = reactive(frozenset())
    fresh: reactive[frozenset[Card]] = reactive(frozenset())
    wanted: reactive[Size] = reactive(SMALL, layout=True)  # the face size the screen has room for
    watching: reactive[bool] = reactive(False)  # a spectator's: no hand of one's own (R9.2)
    ended: reactive[bool] = reactive(False)  # the deal is over: its hands are shown (R7)
    numbered: reactive[bool] = reactive(True)  # each card's key (1..0) in its bottom edge

    def __init__(self, look: Look | None = None, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.look = look or Look()
        self.sort_mode: SortMode = "suit"

    # --- what the hand holds ----------------------------------------------------

    def set_cards(
        self,
        cards: Sequence[Card],
        remembered: Sequence[Card] = (),
        keep_fresh: bool = True,
        new_deal: bool = False,
        drawn: Sequence[Card] = (),
    ) -> None:
        """Show ``cards`` (the hand from the view). Cards still held keep their places;
        new ones go to the right end, marked new (``keep_fresh`` False: the turn is
        over, nothing is new any more). A whole new hand (``new_deal``, or no card in
        common) takes the ``remembered`` order for the cards it names, the rest sorted
        by suit; of it, ``drawn`` (this turn's, as a client coming back learns them)
        are marked new as when they came, at the right end unless remembered elsewhere."""
        held = set(cards)
        kept = [] if new_deal else [c for c in self.order if c in held]
        new: list[Card] = []
        again: list[Card] = []
        if not kept:
            base = [c for c in remembered if c in held]
            again = [c for c in dict.fromkeys(drawn) if c in held]
            rest = sort_cards((c for c in cards if c not in set(base) | set(again)), self.sort_mode)
            order = base + rest + [c for c in again if c not in set(base)]
            fresh = frozenset(again)
        else:
            new = [c for c in cards if c not in set(kept)]
            order = kept + new
            fresh = frozenset(new) if new else self.fresh & held
        before = self.order
        self.fresh = fresh if keep_fresh else frozenset()
        self.selected = frozenset(c for c in self.selected if c in held)
        self.order = tuple(order)
        if kept and new and keep_fresh:
            # A card just drawn or taken: the cursor goes to it, so the player sees it
            # and d discards it, the commonest play with a card of no use (it stayed
            # where it was, and d threw away whatever card that was).
            self.cursor = len(kept)
        elif again and keep_fresh:  # back mid-turn: the cursor on the card drawn, as then
            self.cursor = order.index(again[0])
        else:
            self.cursor = min(self.cursor, max(0, len(order) - 1))
        if self.order != before:
            self.post_message(self.Reordered(self, self.order, self.fresh))
        self.post_message(self.Changed(self))

    def toggle_sort(self) -> SortMode:
        """Sort by suit, then by rank, then by suit again."""
        mode: SortMode = "rank" if self.sort_mode == "suit" else "suit"
        current = self.current_card
        self.sort_mode = mode
        self.order = tuple(sort_cards(self.order, mode))
        if current is not None:
            self.cursor = self.order.index(current)
        self.post_message(self.Reordered(self, self.order))
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

    def pick(self, index: int) -> None:
        """Number key ``index + 1``: the cursor goes to that card, which is (un)selected."""
        if 0 <= index < len(self.order):
            self.cursor = index
            self._toggle(self.order[index])

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

    def action_shift(self, step: int) -> None:
        """Move the card under the cursor one place: the player's own order."""
        n = len(self.order)
        j = self.cursor + step
        if n < 2 or not 0 <= j < n:
            return
        order = list(self.order)
        order[self.cursor], order[j] = order[j], order[self.cursor]
        self.order = tuple(order)
        self.cursor = j
        self.post_message(self.Reordered(self, self.order))
        self.post_message(self.Changed(self))

    def _toggle(self, card: Card) -> None:
        self.selected = self.selected ^ {card}
        self.post_message(self.Changed(self))

    # --- the mouse ----------------------------------------------------------------

    def _shape(self, width: int) -> tuple[Size, int]:
        return fitting(len(self.order), max(1, width), self.wanted)

    def index_at(self, x: int, y: int) -> int | None:
        size, per_row = self._shape(self.content_size.width)
        block, slot = y // (size.height + 1), x // size.slot
        if slot >= per_row:
            return None
        index = block * per_row + slot
        return index if 0 <= index < len(self.order) else None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        index = None if offset is None else self.index_at(offset.x, offset.y)
        if index is None:
            return
        self.focus()
        self.pick(index)

    # --- drawing --------------------------------------------------------------------

    def get_content_height(self, container: Area, viewport: Area, width: int) -> int:
        size, per_row = self._shape(width)
        rows = max(1, -(-len(self.order) // per_row))
        return rows * (size.height + 1)

    def faces(self) -> list[Face]:
        focused = self.has_focus
        return [
            Face(
                card,
                raised=card in self.selected,
                cursor=focused and i == self.cursor,
                top="new" if card in self.fresh else "",
                label=SHORTCUT_KEYS[i] if self.numbered and i < len(SHORTCUT_KEYS) else "",
                dot=card in self.hints,
            )
            for i, card in enumerate(self.order)
        ]

    def render(self) -> Content:
        if not self.order:
            if self.watching and self.ended:  # R7 shows them now: "stay hidden" was untrue
                return Content.styled("(the hands at the deal's end: r shows them, R7)", "dim")
            if self.watching:  # not the hand of the seat drawn beside it, which has cards
                return Content.styled("(the players' hands stay hidden, R9.2)", "dim")
            return Content.styled("(no cards in hand)", "dim")
        size, per_row = self._shape(self.content_size.width)
        faces = self.faces()
        lines: list[Content] = []
        for start in range(0, len(faces), per_row):
            lines += fan(faces[start : start + per_row], size, self.look)
        return Content("\n").join(lines)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
