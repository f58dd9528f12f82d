"""A table screen over a real engine ``Game``, with no network: for Pilot and
snapshot tests of the screen itself.

``TableHarness`` plays the server's part the simplest way: a move the screen asks
for is applied to the game (a refusal shows the engine's sentence, as the server
would send it), and the other seats are played by seeded random bots when
``bots`` is set. Everything is seeded, so a test sees the same table every run.
"""

from __future__ import annotations

import random
from pathlib import Path

from textual import on
from textual.app import App

from rummy.client.ascii_mode import use_ascii
from rummy.client.look import Look
from rummy.client.messages import PlayMove, ReadyForNextDeal, SendChat
from rummy.client.model import SeatInfo, Seats
from rummy.client.screens.table import TableScreen
from rummy.engine import Game, IllegalMove, Move, NextDeal, view_for
from rummy.engine.bots import make_bot

CSS = Path(__file__).parents[2] / "rummy" / "client" / "styles" / "app.tcss"
NAMES = ("Ann", "Bob", "Cyd", "Dee")


class TableHarness(App[None]):
    CSS_PATH = CSS

    def __init__(
        self,
        game: Game | None = None,
        seat: int | None = 0,
        bots: bool = True,
        ascii: bool = False,
        names: tuple[str, ...] = NAMES,
        four_colour: bool = False,
        theme: str | None = None,
    ) -> None:
        super().__init__()
        if theme is not None:  # (as --theme does: the app starts in it)
            self.theme = theme
        self.game = game if game is not None else Game(7, seating="chosen")
        self.seat = seat
        self.bots = bots
        self.ascii = ascii
        self.seats = Seats.of([SeatInfo(n, bot=(i != seat)) for i, n in enumerate(names)], seat)
        self.sent: list[Move] = []
        self.chat: list[str] = []
        self.rng = random.Random(3)
        self.table = TableScreen(Look(ascii, four_colour))

    def on_mount(self) -> None:
        if self.ascii:
            self.restore_scrollbars = use_ascii(self)
        self.push_screen(self.table)
        self.table.update(view_for(self.game, self.seat), self.seats, self.game.opening_events)
        self.play_bots()

    def on_unmount(self) -> None:
        if self.ascii:
            self.restore_scrollbars()

    def show(self, events: list = ()) -> None:  # type: ignore[assignment]
        self.table.update(view_for(self.game, self.seat), self.seats, events)

    @on(PlayMove)
    def handle_move(self, message: PlayMove) -> None:
        self.sent.append(message.move)
        try:
            events = self.game.apply(message.move, self.seat)
        except IllegalMove as refusal:
            self.table.refused(refusal.message)
            return
        self.show(events)
        self.play_bots()

    @on(ReadyForNextDeal)
    def handle_ready(self) -> None:
        if self.game.phase == "deal_over":
            self.show(self.game.apply(NextDeal()))
            self.play_bots()

    @on(SendChat)
    def handle_chat(self, message: SendChat) -> None:
        self.chat.append(message.text)
        self.table.add_chat(self.seats.name(self.seat or 0), message.text)

    def play_bots(self) -> None:
        """Let the bots play until it is this seat's turn again (or the deal ends)."""
        if not self.bots or self.seat is None:  # a spectator watches a position
            return
        while self.game.phase in ("draw", "meld") and self.game.current != self.seat:
            bot = make_bot("random", self.rng)
            self.show(self.game.apply(bot.choose(view_for(self.game, self.game.current))))


class LobbyHarness(TableHarness):
    """A table as a server's client shows it: the screen offers the way back to the
    lobby, and the server's own pause may start the next deal (the harness's game,
    like the game against bots, goes on when its one player is ready)."""

    has_lobby = True
