"""The melds on the table, grouped by team, with who laid each card (R5.5, R9.1).

A meld stands with the team of the player who laid it down. A card laid off by
anyone else carries that player's seat letter; under the other team's column a
line lists the cards that team laid off on this team's melds, since those score
for the team that laid them.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from rummy.engine import Meld, card_text, team_of

from ... import text
from ...model import Seats


class MeldClicked(Message):
    """A meld was clicked: the screen may lay the chosen card off on it."""

    def __init__(self, meld_id: int) -> None:
        super().__init__()
        self.meld_id = meld_id


class TeamMelds(Widget):
    """One team's column."""

    melds: reactive[tuple[Meld, ...]] = reactive((), layout=True)
    hints: reactive[frozenset[int]] = reactive(frozenset())

    def __init__(self, team: int, ascii: bool = False, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.team = team
        self.ascii = ascii
        self.seats = Seats()
        self._line_melds: list[int | None] = []

    def show(self, melds: Sequence[Meld], seats: Seats, hints: frozenset[int]) -> None:
        self.seats = seats
        self.hints = hints
        self.melds = tuple(melds)
        self.refresh(layout=True)

    def _lines(self) -> list[tuple[Content, int | None]]:
        seats = self.seats
        mine = seats.me is not None and team_of(seats.me) == self.team
        title = f"{text.team_name(self.team, self.ascii)} melds" + (" (your team)" if mine else "")
        lines: list[tuple[Content, int | None]] = [(Content.styled(title, "bold underline"), None)]
        own = [m for m in self.melds if team_of(m.laid_by) == self.team]
        for meld in own:
            hint = ("*" if self.ascii else "•") if meld.id in self.hints else " "
            parts: list[Content | str] = [
                Content.styled(hint, "bold"),
                Content.styled(f"{meld.id:>2} {text.SEAT_LETTERS[meld.laid_by]} ", "dim"),
            ]
            for card, owner in zip(meld.cards, meld.owners, strict=True):
                parts += [" ", text.card(card, self.ascii)]
                if owner != meld.laid_by:
                    parts.append(Content.styled(f"/{text.SEAT_LETTERS[owner]}", "dim"))
            if meld.four_at_once:
                parts.append(Content.styled(" x2", "bold"))
            lines.append((Content.assemble(*parts), meld.id))
        if not own:
            lines.append((Content.styled("  (none yet)", "dim"), None))
        # Cards this team laid off on the other team's melds score for this team (R5.5).
        for meld in self.melds:
            if team_of(meld.laid_by) == self.team:
                continue
            ours = [
                (card, owner)
                for card, owner in zip(meld.cards, meld.owners, strict=True)
                if team_of(owner) == self.team
            ]
            if ours:
                parts = [Content.styled(f"  on {meld.id:>2}:", "dim")]
                for card, owner in ours:
                    parts += [" ", Content.styled(card_text(card, self.ascii), text.card_style(card))]
                    parts.append(Content.styled(f"/{text.SEAT_LETTERS[owner]}", "dim"))
                lines.append((Content.assemble(*parts), meld.id))
        return lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return sum(line.get_height({}, max(1, width)) for line, _ in self._lines())

    def render(self) -> Content:
        lines = self._lines()
        width = max(1, self.content_size.width)
        self._line_melds = []
        for line, meld_id in lines:
            self._line_melds += [meld_id] * line.get_height({}, width)
        return Content("\n").join(line for line, _ in lines)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None and 0 <= offset.y < len(self._line_melds):
            meld_id = self._line_melds[offset.y]
            if meld_id is not None:
                self.post_message(MeldClicked(meld_id))


class MeldsView(VerticalScroll, can_focus=True):
    """Both teams' columns side by side; focus it (tab) to scroll with the arrow keys."""

    def __init__(self, ascii: bool = False, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.ascii = ascii

    def compose(self) -> ComposeResult:
        with Horizontal(id="meld-columns"):
            yield TeamMelds(0, self.ascii, id="melds-0")
            yield TeamMelds(1, self.ascii, id="melds-1")

    def show(self, melds: Sequence[Meld], seats: Seats, hints: frozenset[int] = frozenset()) -> None:
        for team in (0, 1):
            self.query_one(f"#melds-{team}", TeamMelds).show(melds, seats, hints)
