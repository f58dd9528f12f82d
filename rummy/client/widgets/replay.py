"""What only a replay shows: every hand face up, one line per seat.

A live table shows the other hands as counts (RULES R9.2); a replay is of a game
that is over, so every hand is shown. Each line is the seat, the player, the
team, the dealer's mark and the hand sorted by suit; the player to act has the
arrow, and the cards the last move brought into a hand are underlined.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget

from rummy.engine import SEAT_NAMES, Card, PlayerView, card_text, team_of
from rummy.engine.cards import sort_key_suit

from .. import text
from ..model import Seats

NAME_WIDTH = 12
LABEL = 2 + 6 + NAME_WIDTH + 5 + 1 + 2  # arrow, seat, name, team, dealer mark, gap
SLOT = 4  # a card is at most three columns, then a space


class HandsView(Widget):
    """The four seats with their hands, South first (seat order)."""

    DEFAULT_CSS = "HandsView { height: auto; }"

    def __init__(self, ascii: bool = False, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.ascii = ascii
        self.seats = Seats()
        self.view: PlayerView | None = None
        self.hands: tuple[tuple[Card, ...], ...] = ((), (), (), ())
        self.fresh: Mapping[int, frozenset[Card]] = {}

    def show(
        self,
        view: PlayerView,
        hands: Sequence[Sequence[Card]],
        seats: Seats,
        fresh: Mapping[int, frozenset[Card]] | None = None,
    ) -> None:
        """``fresh``: by seat, the cards the last move put in that hand."""
        self.view = view
        self.hands = tuple(tuple(sorted(h, key=sort_key_suit)) for h in hands)
        self.seats = seats
        self.fresh = fresh or {}
        self.refresh(layout=True)

    def _per_line(self, width: int) -> int:
        return max(1, (width - LABEL) // SLOT)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        per_line = self._per_line(width)
        return sum(max(1, -(-len(h) // per_line)) for h in self.hands)

    def render(self) -> Content:
        view = self.view
        if view is None:
            return Content("")
        per_line = self._per_line(self.content_size.width or 80)
        playing = view.phase in ("draw", "meld")
        lines: list[Content] = []
        for seat in range(4):
            turn = playing and seat == view.current
            arrow = (">" if self.ascii else "▶") if turn else " "
            label = Content.assemble(
                Content.styled(f"{arrow} ", "bold"),
                Content.styled(f"{SEAT_NAMES[seat]:<5} ", "bold" if turn else ""),
                text.plain(self.seats.name(seat), "bold" if turn else "", width=NAME_WIDTH),
                f" {text.team_name(team_of(seat), self.ascii)} ",
                Content.styled("D" if seat == view.dealer else " ", "dim"),
                "  ",
            )
            hand = self.hands[seat]
            fresh = self.fresh.get(seat, frozenset())
            if not hand:
                lines.append(Content.assemble(label, Content.styled("no cards", "dim")))
                continue
            for start in range(0, len(hand), per_line):
                faces: list[Content | str] = [label if start == 0 else " " * LABEL]
                for card in hand[start : start + per_line]:
                    style = text.card_style(card) + (" underline" if card in fresh else "")
                    faces.append(Content.styled(card_text(card, self.ascii), style))
                    faces.append(" " * (SLOT - len(card_text(card, self.ascii))))
                lines.append(Content.assemble(*faces))
        return Content("\n").join(lines)
