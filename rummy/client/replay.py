"""A finished game watched again: its record replayed by the engine into every step.

``Replay`` plays the record's moves once, through the engine, and keeps the table
after each move: the public view (what a spectator saw then), every hand (the game
is over, so RULES R9 hides nothing any more) and the events of that move. The
replay screen only moves a cursor over these steps: one move on or back, to the
next or previous deal end, or on at a chosen speed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rummy.engine import Card, DealEnded, Event, Move, PlayerView, view_for
from rummy.protocol import BOT_LEVELS, NAME_LIMIT, sanitize
from rummy.protocol.record import GameRecordWire, RecordPlayer, apply_recorded, check_result, opening
from rummy.protocol.wire import PlayedBy, move_from_wire

from .model import SeatInfo, Seats
from .names import distinct

# Moves per second when playing on; the screen starts at DEFAULT_SPEED.
SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
DEFAULT_SPEED = 2


@dataclass(frozen=True, slots=True)
class Step:
    """The table after ``number`` moves (0: after the draw for partners and the deal)."""

    number: int
    view: PlayerView  # the public view: no hand (a spectator's)
    hands: tuple[tuple[Card, ...], ...]  # every seat's hand, by seat
    events: tuple[Event, ...]  # what the move made happen (the opening events at 0)
    move: Move | None  # the move that led here
    mover: int | None  # the seat that made it (None for the server's next deal)
    auto: PlayedBy | None = None  # who played it for that seat when its player did not

    @property
    def deal_end(self) -> bool:
        return any(isinstance(e, DealEnded) for e in self.events)


class Replay:
    """The steps of one record, and a cursor on them. Raises ``RecordError`` (with a
    sentence) if the record does not replay or does not end as it says."""

    def __init__(self, record: GameRecordWire, me: str | None = None) -> None:
        self.record = record
        game = opening(record)
        steps = [Step(0, view_for(game, None), _hands(game.hands), tuple(game.opening_events), None, None)]
        for number, wire in enumerate(record.moves, 1):
            move = move_from_wire(wire)
            mover = game.current if game.phase in ("draw", "meld") else None
            events = apply_recorded(game, number, move)
            auto = record.autos[number - 1] if record.autos else None
            steps.append(
                Step(number, view_for(game, None), _hands(game.hands), tuple(events), move, mover, auto)
            )
        check_result(record, game)
        self.steps: tuple[Step, ...] = tuple(steps)
        self.deal_ends: tuple[int, ...] = tuple(s.number for s in steps if s.deal_end)
        self.position = 0
        players = sorted(record.players, key=lambda p: p.seat)
        # One's own game is watched from one's own chair, as it was played: the player
        # named ``me`` (if exactly one person of that name played) sits at the bottom.
        mine = [p.seat for p in players if p.name == me and not p.bot]
        # Two players of one name are "Ana" and "Ana (2)" by their chairs, as they were
        # at the table: the record has seats, and the partner draw (replayed from the
        # seed, R2.2) says which chair played from each.
        chairs = game.partner_draw.seat_of_chair
        by_chair = sorted(players, key=lambda p: chairs.index(p.seat) if p.seat in chairs else p.seat)
        shown = distinct([sanitize(p.name, NAME_LIMIT) for p in by_chair])
        names = {p.seat: name or "" for p, name in zip(by_chair, shown, strict=True)}
        self.seats = Seats.of(
            [SeatInfo(names[p.seat], bot=p.bot, level=_level(p)) for p in players],
            mine[0] if len(mine) == 1 else None,
        )

    # --- where the cursor is --------------------------------------------------------

    @property
    def step(self) -> Step:
        return self.steps[self.position]

    @property
    def last(self) -> int:
        return len(self.steps) - 1

    @property
    def at_end(self) -> bool:
        return self.position == self.last

    def events_until(self, position: int) -> list[Event]:
        """Every event from the start up to and including step ``position``."""
        return [e for s in self.steps[: position + 1] for e in s.events]

    # --- moving it: each returns whether the cursor moved ---------------------------

    def go(self, position: int) -> bool:
        position = max(0, min(self.last, position))
        moved = position != self.position
        self.position = position
        return moved

    def forward(self, moves: int = 1) -> bool:
        return self.go(self.position + moves)

    def back(self, moves: int = 1) -> bool:
        return self.go(self.position - moves)

    def next_deal_end(self) -> bool:
        """To the next deal's end (the game's end is the last one)."""
        later = [n for n in self.deal_ends if n > self.position]
        return self.go(later[0] if later else self.last)

    def previous_deal_end(self) -> bool:
        """Back to the previous deal's end, or to the start if none came yet."""
        earlier = [n for n in self.deal_ends if n < self.position]
        return self.go(earlier[-1] if earlier else 0)


def _hands(hands: Sequence[Sequence[Card]]) -> tuple[tuple[Card, ...], ...]:
    return tuple(tuple(h) for h in hands)


def faster(speed: int) -> int:
    return min(len(SPEEDS) - 1, speed + 1)


def slower(speed: int) -> int:
    return max(0, speed - 1)


def speed_words(speed: int) -> str:
    per_second = SPEEDS[speed]
    if per_second < 1:
        return f"a move every {1 / per_second:g} s"
    return f"{per_second:g} move{'s' if per_second != 1 else ''}/s"


def _level(player: RecordPlayer) -> str | None:
    """A bot's level as the record says it, if it is one of ours: a file may come from
    any program, and what it says is shown."""
    return player.level if player.bot and player.level in BOT_LEVELS else None
