"""The score line: the deal, the points on the table this deal, and the totals.

The points are counted by the engine's own scoring (R7.1, R7.4) over the melds
in view; cards still in hands count only at the deal's end (R7.2).
"""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from rummy.engine import PlayerView, score_deal

from ... import text


def on_table(view: PlayerView) -> tuple[int, int]:
    """Each team's points laid this deal so far (cards laid and doubled fours)."""
    if view.phase in ("deal_over", "game_over"):
        return (0, 0)
    a, b = score_deal(view.melds, [[], [], [], []], None)
    return (a.laid + a.doubled_fours, b.laid + b.doubled_fours)


class ScoreLine(Widget):
    DEFAULT_CSS = "ScoreLine { height: 1; }"

    view: reactive[PlayerView | None] = reactive(None)

    def __init__(self, ascii: bool = False, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.ascii = ascii

    def render(self) -> Content:
        view = self.view
        if view is None:
            return Content("")
        t0, t1 = text.team_name(0, self.ascii), text.team_name(1, self.ascii)
        a, b = on_table(view)
        ta, tb = view.totals()
        return Content.assemble(
            (f"Deal {view.deal} of 2", "bold"),
            ("   on the table ", "dim"),
            f"{t0} {a}  {t1} {b}",
            ("   totals ", "dim"),
            (f"{t0} {ta}  {t1} {tb}", "bold"),
        )
