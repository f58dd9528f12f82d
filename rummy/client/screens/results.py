"""The end of a deal (every hand and each team's score, R7) and of the game (R8)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Button, Static

from rummy.engine import SEAT_NAMES, DealResult, points, team_of, team_seats
from rummy.engine.scoring import totals, winner
from rummy.protocol import TallyLine

from .. import text
from ..look import DEFAULT_LOOK, Look
from ..model import Seats, TurnTimer
from ..widgets.table.hand import SortMode, sort_cards
from .dialog import Dialog

DealChoice = Literal["next", "close"]
GameChoice = Literal["again", "lobby", "quit", "details", "replay", "close"]


def _row(label: str, a: int | str, b: int | str, style: str = "") -> Content:
    return Content.styled(f"{label:<22}{a!s:>8}{b!s:>8}", style)


def with_who_asked(sentence: str, seats: Seats) -> Content:
    """``sentence`` and who has asked to go on so far (ready for the next deal, or for
    another game), so that a player sees whom the table waits for."""
    asked = ["you" if seat == seats.me else seats.name(seat) for seat in range(4) if seats.ready(seat)]
    if not asked:
        return Content(f"{sentence}.")
    return Content.assemble(f"{sentence}; so far: ", text.plain(", ".join(asked)), ".")


def awaited(seats: Seats) -> list[str]:
    """Whom the next deal waits for: the people at the table (not a bot, nor one who is
    away: the server waits for neither) who have not said ready; "you" first."""
    who = []
    for seat in range(4):
        info = seats.seats[seat] if seat < len(seats.seats) else None
        if info is None or info.bot or not info.present or info.ready:
            continue
        who.append("you" if seat == seats.me else seats.name(seat))
    who.sort(key=lambda name: name != "you")  # (stable: the others in seat order)
    return who


def _and(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


@dataclass(slots=True)
class _Record:
    """One player's games at the table, whoever their partner was."""

    games: int = 0
    won: int = 0
    tied: int = 0
    points: int = 0  # their teams' totals


def tally_lines(tally: Sequence[TallyLine], me: str | None = None) -> list[Content]:
    """The running tally of the table's games, one line per player, the best first
    (empty until a second game has ended: the first game's summary says it all).

    The server counts partnerships, and partners are drawn anew each game (R2.2):
    a line per partnership grew with every new pairing, up to six lines in which
    each name came back three times. Each player's line sums the partnerships they
    played in: their games, their wins and their teams' points. ``me``: the player's
    name, marked "(you)"."""
    games = sum(line.games for line in tally) // 2
    if games < 2:
        return []
    records: dict[str, _Record] = {}
    for line in tally:
        for name in line.players:
            record = records.setdefault(name, _Record())
            record.games += line.games
            record.won += line.won
            record.tied += line.tied
            record.points += line.points
    lines = [Content.styled(f"At this table, {games} games: each player's record", "bold underline")]
    best = sorted(records.items(), key=lambda item: (-item[1].won, -item[1].points))
    for name, r in best:
        who = text.cut(text.clean(name, 24), 16) + (" (you)" if name == me else "")
        tied = f", tied {r.tied}" if r.tied else ""
        words = f"won {r.won}{tied} of {r.games}"
        lines.append(Content.assemble(text.plain(who, width=23), f" {words:<20}{r.points:>6} points"))
    return lines


def deal_breakdown(
    result: DealResult,
    seats: Seats,
    previous_totals: tuple[int, int],
    look: Look = DEFAULT_LOOK,
    order: SortMode = "suit",
) -> Content:
    """Every hand, then the score table of R7 for both teams. The hands are sorted
    as the player sorts their own (``order``): as held, in the order their players
    happened to keep, they were hard to read at a glance (the pair, the near run)."""
    if result.ended_by == "out" and result.went_out is not None:
        # "you" mid-sentence ("Deal 1 is over: You went out." read as a slip).
        who = "you" if result.went_out == seats.me else seats.name(result.went_out)
        head = Content.assemble(f"Deal {result.deal} is over: ", text.plain(who, "bold"), " went out.")
    else:
        head = Content(f"Deal {result.deal} is over: four passes in a row with the stock empty.")
    lines: list[Content] = [head, Content(""), Content.styled("Hands at the end", "bold underline")]
    for seat in range(4):
        hand = result.hands[seat]
        # Cut with an ellipsis, so that a cut name reads as cut ("Cyrus the Grea" did not).
        name = text.fit(text.plain(seats.name(seat)), 14, look.ascii).truncate(14, pad=True)
        minus = sum(points(c) for c in hand)
        # The points in a column of their own before the cards, and every card in
        # three columns (its rank to the right, as on the hand's cards): after a 10♦,
        # the rest of its row, and its points at the end, stood one column out of line.
        held = (
            Content(" ").join(_card_cell(c, look) for c in sort_cards(hand, order))
            if hand
            else Content.styled("no cards", "dim")
        )
        lines.append(
            Content.assemble(
                f"  {SEAT_NAMES[seat]:<6}",
                name,
                f" {text.team_name(team_of(seat), look.ascii)}",
                Content.styled(f"{f'(-{minus})' if minus else '':>7}", "dim"),
                "  ",
                held,
            )
        )
    a, b = result.scores
    t0, t1 = text.team_name(0, look.ascii), text.team_name(1, look.ascii)
    lines += [
        Content(""),
        _row("", t0, t1, "bold underline"),
        _row("Cards laid", a.laid, b.laid),
        _row("Four-of-a-kind bonus", a.doubled_fours, b.doubled_fours),  # R7.4: the doubling alone
        _row("Cards in hand", a.in_hand, b.in_hand),
        _row("Going-out bonus", a.going_out, b.going_out),
        _row("Deal total", a.total, b.total, "bold"),
        _row("Game totals", previous_totals[0] + a.total, previous_totals[1] + b.total, "bold"),
    ]
    return Content("\n").join(lines)


def _card_cell(card: int, look: Look) -> Content:
    """One card in three columns, so that the cards of the hands stand in columns."""
    shown = text.card(card, look)
    return Content.assemble(" " * max(0, 3 - shown.cell_length), shown)


DEAL_2_BEGUN = "Deal 2 has begun: esc (or n) returns to the table."


class DealEndScreen(Dialog[DealChoice]):
    """Shown when a deal ends. ``can_start``: a player (not a spectator) may say they
    are ready for the next deal. ``live`` False: a replay's, which tells nobody how
    the next deal starts. ``timer``: the server's pause before the next deal starts by
    itself (a ``next_deal`` clock, as the server sent it; None: it sent none, and the
    next deal waits for the people at the table, as in the game against bots). The
    note under the buttons counts that pause down, second by second, and names whom
    the table waits for."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "choose('next')", "Next deal"),
        # n always answers: "ready" while there is a next deal to get ready for, else it
        # closes, as escape does (a key takes the first of its bindings that applies).
        Binding("n", "choose('close')", "Close", show=False),
        Binding("escape,enter", "choose('close')", "Close"),
    ]

    def __init__(
        self,
        results: Sequence[DealResult],
        seats: Seats,
        can_start: bool,
        look: Look = DEFAULT_LOOK,
        live: bool = True,
        begun: bool = False,
        timer: TurnTimer | None = None,
        order: SortMode = "suit",
    ) -> None:
        super().__init__()
        self.results = list(results)
        self.order = order  # the hands' order: the player's own sort (o)
        self.seats = seats
        self.can_start = can_start and not begun
        self.begun = begun  # the next deal has begun (before this opened, or while open)
        self.look = look  # ASCII or not, two colours or four: the hands' cards as chosen
        self.live = live
        self.timer = timer if timer is not None and timer.kind == "next_deal" else None
        self._ticker: Timer | None = None

    def contents(self) -> ComposeResult:
        result = self.results[-1]
        before = totals(self.results[:-1])
        with Vertical(classes="dialog results"):
            yield Static(deal_breakdown(result, self.seats, before, self.look, self.order), id="breakdown")
            with Horizontal(classes="buttons"):
                if self.can_start:
                    yield Button("Ready for the next deal (n)", id="next", variant="primary", compact=True)
                yield Button("Close (esc)", id="close", compact=True)
            if result.deal < 2 and self.live:
                yield Static(self.deal_note(), id="deal-note", classes="dim")

    def on_mount(self) -> None:
        self._schedule_ticks()

    def deal_note(self, now: float | None = None) -> Content:
        if self.begun:
            return Content(DEAL_2_BEGUN)
        n = " (n)" if self.can_start else ""  # a spectator has no n to press
        waiting = awaited(self.seats)
        timer = self.timer
        if timer is not None:
            left = timer.left(time.monotonic() if now is None else now)
            # A spectator is not asked: "everyone here" read as if they were. Alone
            # among bots, "everyone here is ready. Waiting for you." said it twice.
            alone = self.can_start and self.seats.me is not None and waiting in (["you"], [])
            alone = alone and not any(
                info is not None and not info.bot and info.present and seat != self.seats.me
                for seat, info in enumerate(self.seats.seats)
            )
            who = "you are" if alone else "everyone here is" if self.can_start else "the players are"
            when = "paused" if timer.paused else f"in {left} s"
            sentence = f"Deal 2 starts {when}, or as soon as {who} ready{n}."
            if alone:
                return Content(sentence)
        elif self.can_start and waiting in (["you"], []):
            # (The server waits for the people who are here: bots and the away wait for no one.)
            return Content(f"Deal 2 starts when you are ready{n}: the table waits for you.")
        else:
            who = "everyone here is" if self.can_start else "the players are"
            sentence = f"Deal 2 starts when {who} ready{n}."
        if not waiting:
            return Content(sentence)
        return Content.assemble(sentence, " Waiting for ", text.plain(_and(waiting)), ".")

    def set_clock(self, timer: TurnTimer | None) -> None:
        """The server's clock changed while this was open (the pause began, or ended)."""
        self.timer = timer if timer is not None and timer.kind == "next_deal" else None
        self._schedule_ticks()
        self._note_again()

    @property
    def ticking(self) -> bool:
        """Whether the note wakes every second (only while the pause counts down)."""
        return self._ticker is not None

    def _schedule_ticks(self) -> None:
        """Wake once a second only while the pause counts down."""
        timer = self.timer
        running = timer is not None and not timer.paused and not self.begun
        if running and self._ticker is None:
            self._ticker = self.set_interval(1.0, self._note_again)
        elif not running and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    def _note_again(self) -> None:
        for note in self.query("#deal-note").results(Static):
            note.update(self.deal_note())

    def seats_changed(self, seats: Seats) -> None:
        """Someone said ready while this was open (not once the next deal has begun)."""
        self.seats = seats
        if not self.begun:
            self._note_again()

    def moved_on(self) -> None:
        """The next deal began while this was open: nothing to get ready for any more."""
        self.can_start, self.begun = False, True
        for button in self.query("#next"):
            button.remove()
        self._schedule_ticks()
        self._note_again()
        self._keys_follow()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "choose" and parameters == ("next",):
            return self.can_start
        return True

    def action_choose(self, choice: DealChoice) -> None:
        self.dismiss(choice)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss("next" if event.button.id == "next" else "close")


class GameEndScreen(Dialog[GameChoice]):
    """The winner, the totals per deal, and what next."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "choose('again')", "Play again"),
        Binding("b", "choose('lobby')", "Lobby"),  # b, as at the table
        Binding("d", "choose('details')", "Last deal"),
        Binding("w", "choose('replay')", "Watch again"),
        Binding("q", "choose('quit')", "Quit"),
        # Escape closes it, as it does every other dialog: the finished table stays, and
        # its line says what a, b and q do.
        Binding("escape", "choose('close')", "Close"),
    ]

    def __init__(
        self,
        results: Sequence[DealResult],
        seats: Seats,
        ascii: bool = False,
        lobby: bool = True,
        tally: Sequence[TallyLine] = (),
        can_replay: bool = False,
        can_play: bool = True,
    ) -> None:
        super().__init__()
        self.results = list(results)
        self.seats = seats
        self.ascii = ascii
        self.lobby = lobby
        self.can_play = can_play  # a player, not a spectator: may ask for another game
        self.begun = False  # a new game began while this was open
        self.tally = list(tally)
        self.can_replay = can_replay

    def summary(self) -> Content:
        a, b = totals(self.results)
        won = winner(self.results)
        me = self.seats.me
        t0, t1 = text.team_name(0, self.ascii), text.team_name(1, self.ascii)
        if won is None:
            head = f"The game is a tie: {a} to {b}."
        else:
            names = " and ".join(self.seats.name(seat) for seat in team_seats(won))
            you = ""
            if me is not None:
                you = " You win!" if team_of(me) == won else " You lose."
            head = f"{text.team_name(won, self.ascii)} win, {max(a, b)} to {min(a, b)}: {names}.{you}"
        lines = [
            Content.styled(text.clean(head, 300), "bold"),
            Content(""),
            _row("", t0, t1, "bold underline"),
        ]
        for result in self.results:
            lines.append(_row(f"Deal {result.deal}", result.scores[0].total, result.scores[1].total))
        lines.append(_row("Total", a, b, "bold"))
        tally = tally_lines(self.tally, None if me is None else self.seats.name(me))
        if tally:
            lines += [Content(""), *tally]
        return Content("\n").join(lines)

    def contents(self) -> ComposeResult:
        with Vertical(classes="dialog results"):
            yield Static(self.summary(), id="summary")
            with Horizontal(classes="buttons"):
                if self.can_play:
                    yield Button("Play again (a)", id="again", variant="primary", compact=True)
                if self.lobby:
                    yield Button("Lobby (b)", id="lobby", compact=True)
                yield Button("Last deal (d)", id="details", compact=True)
                if self.can_replay:
                    yield Button("Watch again (w)", id="replay", compact=True)
                yield Button("Quit (q)", id="quit", compact=True)
            yield Static(self.again_note(), id="again-note", classes="dim")

    def again_note(self) -> Content:
        """Another game starts when all four want one (the server's rule; a bot always
        does, so in the game against bots, with no lobby, that is when you do)."""
        a = " (a)" if self.can_play else ""
        if not self.lobby and self.can_play:
            return Content(f"Another game starts when you want one{a}.")
        return with_who_asked(f"Another game starts when all four want one{a}", self.seats)

    def seats_changed(self, seats: Seats) -> None:
        """Someone asked for another game (or left) while this was open (not once the
        new game has begun)."""
        self.seats = seats
        if not self.begun:
            for note in self.query("#again-note").results(Static):
                note.update(self.again_note())

    def broke_up(self, note: Content) -> None:
        """Someone left the finished game's table: no other game to ask for here."""
        self.can_play = False
        for button in self.query("#again"):
            button.remove()
        for static in self.query("#again-note").results(Static):
            static.update(note)
        self._keys_follow()

    def moved_on(self) -> None:
        """A new game began while this was open: no other game to ask for now."""
        self.can_play, self.begun = False, True
        for button in self.query("#again"):
            button.remove()
        for note in self.query("#again-note").results(Static):
            note.update(Content("A new game has begun: esc returns to the table."))
        self._keys_follow()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "choose" and parameters == ("again",):
            return self.can_play
        if action == "choose" and parameters == ("lobby",):
            return self.lobby
        if action == "choose" and parameters == ("replay",):
            return self.can_replay
        return True

    def action_choose(self, choice: GameChoice) -> None:
        self.dismiss(choice)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id)  # type: ignore[arg-type]
