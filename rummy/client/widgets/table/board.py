"""The table itself, laid out as the players sit: oneself at the bottom with the hand,
the partner across the top, the opponents left and right, the stock and the spread
discard pile between them, the melds by team, and a line saying what to do now.

``TableBoard`` draws a ``Scene`` and nothing else: it needs no connection, so a
replay can drive it as well as the live table screen does. It picks the size of
the card faces from the room it has (``fit``).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Static

from ... import advice
from ...look import Look
from ...scene import Scene
from .faces import LARGE, MEDIUM, SMALL, Size
from .hand import HandView
from .melds import MeldsView
from .pile import DiscardPileView
from .score import ScoreLine
from .seat import SeatPanel


def face_size(width: int, height: int) -> Size:
    """The card faces a terminal of ``width`` x ``height`` has room for."""
    if height >= 40 and width >= 110:
        return LARGE
    if height >= 32 and width >= 90:
        return MEDIUM
    return SMALL


class TableBoard(Vertical):
    """Everything on the table. ``show`` draws a scene; ``fit`` the terminal's size."""

    DEFAULT_CSS = """
    TableBoard { height: 1fr; }
    TableBoard #score { height: 1; padding: 0 1; background: $boost; }
    TableBoard #north { height: 1; padding: 0 1; }
    TableBoard #band { height: auto; }
    TableBoard #west, TableBoard #east { width: 22; height: 4; }
    TableBoard #pile { width: 1fr; height: auto; min-height: 3; padding: 0 1; }
    TableBoard #melds { height: 1fr; min-height: 3; padding: 0 1; background: $surface; }
    TableBoard #prompt { height: auto; max-height: 2; padding: 0 1; background: $boost; text-style: bold; }
    TableBoard #hand-row { height: auto; }
    TableBoard #hand { width: 1fr; height: auto; padding: 0 1; }
    TableBoard #south { width: 26; height: 4; }
    TableBoard #pile:focus, TableBoard #melds:focus { background: $accent 15%; }
    TableBoard.-medium #north { height: 2; }
    TableBoard.-medium #west, TableBoard.-medium #east { width: 24; height: 4; }
    TableBoard.-medium #south { height: 5; }
    TableBoard.-large #north { height: 2; }
    TableBoard.-large #west, TableBoard.-large #east { width: 28; height: 5; }
    TableBoard.-large #south { width: 30; height: 6; }
    """

    def __init__(self, look: Look | None = None, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.look = look or Look()
        self.score = ScoreLine(id="score")
        self.seats = {place: SeatPanel(place, id=place) for place in ("north", "west", "east", "south")}
        self.pile = DiscardPileView(self.look, id="pile")
        self.melds = MeldsView(self.look, id="melds")
        self.prompt = Static(id="prompt")
        self.hand = HandView(self.look, id="hand")
        self.scene: Scene | None = None
        self.remembered: tuple[int, ...] = ()  # the hand's order as kept before a resume
        self.drawn: tuple[int, ...] = ()  # ...and the cards drawn on the turn it resumes in
        self._deal: int | None = None  # the deal shown last

    def compose(self) -> ComposeResult:
        yield self.score
        yield self.seats["north"]
        with Horizontal(id="band"):
            yield self.seats["west"]
            yield self.pile
            yield self.seats["east"]
        yield self.melds
        yield self.prompt
        with Horizontal(id="hand-row"):
            yield self.hand
            yield self.seats["south"]

    def fit(self, width: int, height: int) -> None:
        """Larger faces and panels where the terminal has room for them."""
        size = face_size(width, height)
        self.set_class(size is MEDIUM, "-medium")
        self.set_class(size is LARGE, "-large")
        self.hand.wanted = size
        self.pile.wanted = size

    def show(self, scene: Scene, table_name: str = "", prompt: Content | None = None) -> None:
        """Draw ``scene``. The hand shows the view's cards (in the order the player keeps)."""
        self.scene = scene
        view = scene.view
        self.score.show(scene, table_name)
        for panel in self.seats.values():
            panel.show(scene)
        self.pile.set_pile(view.discard_pile, view.stock_count, advice.take_indexes(view))
        self.pile.hints = scene.hints.pile
        self.pile.recent = scene.recent.discarded
        self.melds.show(scene)
        # A new deal (or a new game) deals a new hand: sorted afresh, numbered afresh.
        new_deal = self._deal is not None and self._deal != view.deal
        self._deal = view.deal
        # A replay's keys step the game: 1..0 pick no card there, so no card shows one.
        self.hand.numbered = scene.open_hands is None
        if scene.open_hands is not None:  # a replay: the bottom seat's hand, sorted as dealt
            self.pile.armed = False
            self.hand.order = ()
            self.hand.set_cards(scene.open_hands[scene.seat_at("south")], keep_fresh=False)
        else:
            self.hand.set_cards(
                view.hand or (), self.remembered, keep_fresh=view.my_turn, new_deal=new_deal, drawn=self.drawn
            )
        # A spectator's empty hand is R9.2's; a replay's, face up, is only empty.
        self.hand.watching = view.seat is None and scene.open_hands is None
        self.hand.ended = view.phase in ("deal_over", "game_over")
        if view.hand is not None:
            self.remembered = self.drawn = ()  # used once: for the hand of the game resumed
        self.hand.hints = scene.hints.hand
        if prompt is not None:
            self.prompt.update(prompt)

    def tick(self) -> None:
        """A second went by: the clocks in the panels."""
        for panel in self.seats.values():
            panel.refresh()
