"""The table's top line: the deal, the table's name, the points on the table this deal
and the totals.

The points are counted by the engine's own scoring (R7.1, R7.4) over the melds in
view; cards still in hands count only at the deal's end (R7.2).
"""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget

from rummy.engine import PlayerView, score_deal, team_of

from ... import text
from ...scene import Scene


def on_table(view: PlayerView) -> tuple[int, int]:
    """Each team's points laid this deal so far (cards laid and doubled fours)."""
    if view.phase in ("deal_over", "game_over"):
        return (0, 0)
    a, b = score_deal(view.melds, [[], [], [], []], None)
    return (a.laid + a.doubled_fours, b.laid + b.doubled_fours)


def score_line(scene: Scene, table_name: str, width: int) -> Content:
    view, look = scene.view, scene.look
    me = scene.seats.me
    laid = on_table(view)
    totals = view.totals()
    deal = Content.styled(f"Deal {view.deal} of 2", "bold")
    teams: list[Content] = []
    for team in (0, 1):
        name = text.team_name(team, look.ascii) + (" (you)" if me is not None and team_of(me) == team else "")
        teams.append(
            Content.assemble(
                (name, "bold"),
                f" {totals[team]}",
                (f"  +{laid[team]} on the table" if laid[team] else "", "dim"),
            )
        )
    sep = Content.styled("  |  " if look.ascii else "  │  ", "dim")
    right = Content.assemble(teams[0], sep, teams[1])
    # No 40-character cut here (a table name is cut so already): fit() below cuts it to
    # the room left, with an ellipsis, instead of mid-word at any width. (A replay's
    # longer title has a line of its own, above the board.)
    title = text.plain(table_name, "dim") if table_name else Content("")
    room = width - deal.cell_length - right.cell_length - 4
    if title.cell_length and room >= 8:
        left = Content.assemble(deal, "  ", text.fit(title, room, look.ascii))
    else:
        left = deal
    gap = max(2, width - left.cell_length - right.cell_length)
    return Content.assemble(left, " " * gap, right).truncate(width)


class ScoreLine(Widget):
    DEFAULT_CSS = "ScoreLine { height: 1; }"

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.scene: Scene | None = None
        self.table_name = ""

    def show(self, scene: Scene, table_name: str = "") -> None:
        self.scene, self.table_name = scene, table_name
        self.refresh()

    def render(self) -> Content:
        if self.scene is None:
            return Content("")
        return score_line(self.scene, self.table_name, max(1, self.content_size.width))
