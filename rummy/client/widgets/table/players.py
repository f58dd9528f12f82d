"""The four players: seat, name, team, cards held, away or present, whose turn it
is and what part of it, and the turn timer when the table has one (R9.1)."""

from __future__ import annotations

import time

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from rummy.engine import SEAT_NAMES, PlayerView, team_of

from ... import text
from ...model import Seats, TurnTimer

NAME_WIDTH = 14


def turn_part(view: PlayerView) -> str:
    """What the player to act is doing, in words."""
    if view.phase == "draw":
        return "to draw" if view.stock_count else "to take or pass"
    if view.phase == "meld":
        return "to meld or discard"
    return ""


class PlayersView(Widget):
    """One line per seat, in seat order South, West, North, East."""

    DEFAULT_CSS = "PlayersView { height: 4; }"

    view: reactive[PlayerView | None] = reactive(None)
    timer: reactive[TurnTimer | None] = reactive(None)

    def __init__(self, ascii: bool = False, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.ascii = ascii
        self.seats = Seats()

    def show(self, view: PlayerView, seats: Seats, timer: TurnTimer | None) -> None:
        self.seats = seats
        self.view = view
        self.timer = timer
        self.refresh()

    def render(self) -> Content:
        view = self.view
        if view is None:
            return Content("")
        lines: list[Content] = []
        playing = view.phase in ("draw", "meld")
        for seat in range(4):
            info = self.seats.seats[seat] if seat < len(self.seats.seats) else None
            turn = playing and seat == view.current
            arrow = (">" if self.ascii else "▶") if turn else " "
            parts: list[Content | str] = [
                Content.styled(arrow, "bold"),
                Content.styled(f" {SEAT_NAMES[seat]:<5} ", "bold" if turn else ""),
            ]
            name = self.seats.name(seat) if info is not None else "(empty seat)"
            if info is not None and info.bot and info.level:
                name = f"{name} ({info.level})"  # the bot's level, next to its name
            parts.append(text.plain(name, "bold" if turn else "", width=NAME_WIDTH))
            tags = []
            if seat == self.seats.me:
                tags.append("you")
            if info is not None and info.bot:
                tags.append("bot")
            if seat == view.dealer:
                tags.append("dealer")
            parts.append(Content.styled(f" {','.join(tags):<14}", "dim"))
            parts.append(f" {text.team_name(team_of(seat), self.ascii)} ")
            count = view.hand_counts[seat]
            parts.append(f"{count:>2} card{'s' if count != 1 else ' '}")
            if info is not None and not info.present:
                parts.append(Content.styled("  away", "bold reverse"))
            if view.phase == "deal_over" and info is not None and info.ready:
                parts.append(Content.styled("  ready for the next deal", "bold"))
            if turn:
                parts.append(Content.styled(f"  {turn_part(view)}", "bold"))
                timer = self.timer
                if timer is not None and timer.kind == "turn" and timer.seat == seat:
                    left = timer.left(time.monotonic())
                    paused = " paused" if timer.paused else ""
                    parts.append(Content.styled(f" {left // 60}:{left % 60:02d}{paused}", "bold"))
            lines.append(Content.assemble(*parts))
        return Content("\n").join(lines)
