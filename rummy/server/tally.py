"""A table's running tally: the games finished there, by partnership.

"Play again" draws partners anew (RULES R2.2), so the teams of one game need not
be those of the next: the tally counts each partnership (the two players of a
team, by name) on its own line, with the games it played, won and tied (R8) and
the points its team scored. The latest game's two partnerships come first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..engine import team_seats, winner_of
from ..protocol.messages import TallyLine

MAX_LINES = 6  # four players make three partnerships; newcomers at the table add more


@dataclass(slots=True)
class _Partnership:
    players: tuple[str, str]  # in seat order of the game they last played together
    games: int = 0
    won: int = 0
    tied: int = 0
    points: int = 0
    last: int = 0  # orders the lines: the latest game first


class Tally:
    def __init__(self) -> None:
        self._lines: dict[tuple[str, str], _Partnership] = {}
        self.games = 0

    def add(self, names: Sequence[str], totals: tuple[int, int]) -> None:
        """A game ended: ``names`` of the players by seat (0..3), the two teams' totals."""
        self.games += 1
        won = winner_of(totals)
        for team in (0, 1):
            first, second = team_seats(team)
            pair = (names[first], names[second])
            line = self._lines.setdefault(tuple(sorted(pair)), _Partnership(pair))  # type: ignore[arg-type]
            line.players = pair
            line.games += 1
            line.won += won == team
            line.tied += won is None
            line.points += totals[team]
            line.last = self.games * 2 + (1 - team)  # the latest game's first, its team 0 on top

    def lines(self) -> list[TallyLine]:
        latest = sorted(self._lines.values(), key=lambda p: p.last, reverse=True)[:MAX_LINES]
        return [
            TallyLine(players=p.players, games=p.games, won=p.won, tied=p.tied, points=p.points)
            for p in latest
        ]
