"""One player at the table, drawn where they sit: place, name, team, the cards they
hold (as backs), away or present, dealer, whose turn and what part of it with the
turn clock, and what they just did (R9.1).

``place`` is where on the screen: ``south`` (oneself, at the bottom), ``north``
(the partner, across), ``west`` and ``east`` (the opponents, left and right).
"""

from __future__ import annotations

import time
from typing import Literal

from textual.content import Content
from textual.widget import Widget

from rummy.engine import SEAT_NAMES, team_of
from rummy.engine.cards import sort_key_suit

from ... import text
from ...describe import turn_part
from ...scene import Scene
from .faces import backs, chip

Place = Literal["south", "west", "north", "east"]


def seat_title(seat: int, me: int | None) -> str:
    """The seat as a player knows it: who it is to them, then the rule book's name
    of the seat (R2.1). The seats' compass names alone confused players: the player
    sits at the bottom of the screen, yet may be West, with "East" across the table
    as their partner and "North" on their left."""
    name = SEAT_NAMES[seat]
    if me is None:  # a spectator: nobody's partner
        return name
    if seat == me:
        return f"You, {name}"
    return f"{'Partner' if team_of(seat) == team_of(me) else 'Opponent'}, {name}"


def clock_text(scene: Scene, seat: int, now: float) -> str:
    """The turn clock of ``seat`` when it runs for them: '0:25', '0:25 paused' (as
    the server said), '-:-- offline' (the client cannot know)."""
    timer = scene.timer
    if timer is None or timer.kind != "turn" or timer.seat != seat:
        return ""
    if scene.offline:
        # The server cannot be reached, and its clock runs on (it stops only when nobody
        # at the table is present): "paused" here was a pause it never made, and a turn
        # the player thought safe ran out. Its time is unknown until the server says.
        return "-:-- offline"
    left = timer.left(now)
    return f"{_mmss(left)}{' paused' if timer.paused else ''}"


def _mmss(seconds: float) -> str:
    s = max(0, int(seconds + 0.999))
    return f"{s // 60}:{s % 60:02d}"


def last_action(scene: Scene, seat: int, width: int | None = None) -> Content | None:
    """What ``seat`` did on the turn just played, while it is marked on the table: in
    full ('took 3♠ +2, melded, discarded 10♦') when it fits ``width``, else shortened
    with the least telling words first. 'melded' and 'laid off' go first (the new melds
    are marked on the table), then the discard (it is the marked top of the pile), so
    that the card taken from the pile, which nothing else on the table shows, stays."""
    r = scene.recent
    if r.seat != seat:
        return None
    look = scene.look
    start = discarded = None  # start: how the turn began (drew, took ..., passed)
    if r.took:
        more = f" +{len(r.took) - 1}" if len(r.took) > 1 else ""
        start = Content.assemble("took ", text.card(r.took[0], look), more)
    laid = [Content(word) for word, done in (("melded", r.melded), ("laid off", r.laid_off)) if done]
    if r.discarded is not None:
        discarded = Content.assemble("discarded ", text.card(r.discarded, look))
    if r.drew and not (laid or discarded):
        start = Content("drew")  # once more happened, the draw goes without saying
    if r.passed:
        start = Content("passed")
    forms = [[start, *laid, discarded], [start, discarded], [start or discarded]]
    shown = None
    for form in forms:
        shown = Content(", ").join(phrase for phrase in form if phrase is not None)
        if width is None or shown.cell_length <= width:
            break
    return shown or None


class SeatPanel(Widget):
    """One seat. The screen gives it a scene (``show``) and its height; the panel says
    as much as fits. The seat to act is marked (class ``-turn``), an away player too
    (``-away``)."""

    DEFAULT_CSS = """
    SeatPanel { height: 3; padding: 0 1; }
    SeatPanel.-turn { background: $accent 25%; }
    """

    def __init__(self, place: Place, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.place = place
        self.scene: Scene | None = None

    @property
    def seat(self) -> int:
        return 0 if self.scene is None else self.scene.seat_at(self.place)

    def show(self, scene: Scene) -> None:
        self.scene = scene
        view, seat = scene.view, scene.seat_at(self.place)
        info = scene.seats.seats[seat] if seat < len(scene.seats.seats) else None
        self.set_class(view.phase in ("draw", "meld") and view.current == seat, "-turn")
        self.set_class(info is not None and not info.present, "-away")
        self.refresh()

    def open_hand(self) -> tuple[int, ...] | None:
        """The hand to show face up here (a replay's), sorted by suit; None at a live
        table, and at the bottom, where the hand itself is drawn."""
        scene = self.scene
        if scene is None or scene.open_hands is None or self.place == "south":
            return None
        return tuple(sorted(scene.open_hands[scene.seat_at(self.place)], key=sort_key_suit))

    def lines(self, width: int, height: int, now: float | None = None) -> list[Content]:
        """The panel's text: ``height`` lines at most, each at most ``width`` cells."""
        if self.scene is None:
            return []
        hand = self.open_hand()
        if hand is not None and height >= 3:
            return self._open_lines(hand, width, height, now)
        return self._panel_lines(width, height, now, hand)

    def _panel_lines(
        self, width: int, height: int, now: float | None, hand: tuple[int, ...] | None = None
    ) -> list[Content]:
        """The panel as at a live table (with ``hand``: that hand face up in place of the
        backs, on a panel of one or two lines)."""
        scene = self.scene
        assert scene is not None
        now = time.monotonic() if now is None else now
        view, seats, look = scene.view, scene.seats, scene.look
        seat = scene.seat_at(self.place)
        info = seats.seats[seat] if seat < len(seats.seats) else None
        turn = view.phase in ("draw", "meld") and view.current == seat
        mine = seat == seats.me
        arrow = (">" if look.ascii else "▶") if turn else " "
        where = Content.assemble(
            (arrow, "bold"),
            (f" {seat_title(seat, seats.me)}", "bold"),
            (f"  {text.team_name(team_of(seat), look.ascii)}", "dim"),
        )
        if where.cell_length > width:  # the team goes first: the score line and the melds say it
            where = Content.assemble((arrow, "bold"), (f" {seat_title(seat, seats.me)}", "bold"))
        if info is None:
            name = Content.styled("(empty seat)", "dim")
        else:
            tags = []
            if info.bot:
                tags.append(f"{info.level} bot" if info.level else "bot")  # its level, if any
            name = Content.assemble(
                text.plain(info.name, "bold", limit=24), (f" ({', '.join(tags)})" if tags else "", "dim")
            )
            if not info.present:
                name = Content.assemble(name, " ", ("away", "bold reverse"))
        held = view.hand_counts[seat]
        if hand is not None:
            cards = Content(" ").join(chip(card, look) for card in hand) if hand else Content("no cards")
        elif (mine and view.hand is not None) or scene.open_hands is not None:  # the hand is drawn
            cards = Content(f"{held} card{'s' if held != 1 else ''}")
        else:
            cards = backs(held, look, most=min(10, max(3, width - 6)))
        if seat == view.dealer and view.phase in ("draw", "meld"):
            cards = Content.assemble(cards, ("  dealer", "dim"))
        status: Content | None = None
        if turn:
            clock = clock_text(scene, seat, now)
            status = Content.assemble((turn_part(view), "bold"), (f"  {clock}" if clock else "", "bold"))
        elif view.phase == "deal_over" and info is not None and info.ready:
            status = Content.styled("ready for the next deal", "bold")
        elif view.phase == "game_over" and info is not None and info.ready:
            status = Content.styled("wants another game", "bold")  # (a bot always does)
        else:
            status = last_action(scene, seat, width if height != 3 else width - cards.cell_length - 2)
        if height <= 1:
            pieces = [where, name, cards] + ([status] if status is not None else [])
            return [text.fit(Content("  ").join(pieces), width, look.ascii)]
        if height == 2:
            rows = [Content("  ").join([where, name, cards])]
            rows.append(status or Content(""))
        elif height == 3:
            rows = [where, name, Content("  ").join([cards] + ([status] if status is not None else []))]
            if status is not None and Content("  ").join([cards, status]).cell_length > width:
                rows[2] = status if turn else cards
        else:
            rows = [where, name, cards, status or Content("")]
        return [text.fit(row, width, look.ascii) for row in rows[:height]]

    def _open_lines(self, hand: tuple[int, ...], width: int, height: int, now: float | None) -> list[Content]:
        """A replay's panel: seat and name on one line, the hand face up on as many
        lines as it needs (the last marked +N if it needs more), then the status."""
        assert self.scene is not None
        look = self.scene.look
        where, name, _cards, status = self._panel_lines(width, 4, now)
        view = self.scene.view
        dealer = self.seat == view.dealer and view.phase in ("draw", "meld")
        head = Content.assemble(where, "  ", name, ("  dealer" if dealer else "", "dim"))
        seats = self.scene.seats.seats
        info = seats[self.seat] if self.seat < len(seats) else None
        if head.cell_length > width and info is not None:
            # The name whole before its tags ("Mina (b…" was all a replay said of her).
            name = text.plain(info.name, "bold", limit=24)
            head = Content.assemble(where, "  ", name, ("  dealer" if dealer else "", "dim"))
        if head.cell_length > width and dealer:
            # Then before "dealer", which goes below ("South  N-S  Min..." at 80 columns).
            head = Content.assemble(where, "  ", name)
            status = Content.assemble(status, ("  " if status.cell_length else "", ""), ("dealer", "dim"))
        if head.cell_length > width:
            # Then before the team, which the score line and the melds' headings say, with
            # one space: at 80x24 a side's panel read "North  N–S  Cyrus…", "South  N–S  Bobby…".
            arrow = Content.styled(where.plain[:1], "bold")  # the turn's mark, or a space
            head = Content.assemble(arrow, (f" {SEAT_NAMES[self.seat]}", "bold"), " ", name)
        rows: list[Content] = [text.fit(head, width, look.ascii)]
        room = height - 1 - (1 if status.cell_length else 0)
        per_row = max(1, width // 4)  # a chip is at most three cells, then a space
        chunks = [hand[i : i + per_row] for i in range(0, len(hand), per_row)]
        for i, chunk in enumerate(chunks[:room]):
            line = Content(" ").join(chip(card, look) for card in chunk)
            if i == room - 1 and len(chunks) > room:
                line = Content.assemble(line, (f" +{sum(len(c) for c in chunks[room:])}", "bold"))
            rows.append(line)
        if not hand:
            rows.append(Content.styled("no cards", "dim"))
        if status.cell_length:
            rows.append(status)
        return [text.fit(row, width, look.ascii) for row in rows[:height]]

    def render(self) -> Content:
        size = self.content_size
        return Content("\n").join(self.lines(max(1, size.width), max(1, size.height)))
