"""Seats, teams and the order of play (RULES R2.1), and what an empty stock allows (R6.1).

Everything outside the engine asks these instead of doing the arithmetic itself,
so that the seating is written down once.
"""

from __future__ import annotations

SEATS = (0, 1, 2, 3)
TEAMS = (0, 1)


def team_of(seat: int) -> int:
    """R2.1: seats 0 and 2 are team 0, seats 1 and 3 team 1."""
    return seat % 2


def team_seats(team: int) -> tuple[int, int]:
    """R2.1: the two seats of ``team``, who sit opposite each other."""
    return (team, team + 2)


def partner_of(seat: int) -> int:
    """R2.1: the seat opposite."""
    return (seat + 2) % 4


def opponents_of(seat: int) -> tuple[int, int]:
    """R2.1: the seat to the left (who plays next) and the seat to the right."""
    return ((seat + 1) % 4, (seat + 3) % 4)


def next_seat(seat: int, steps: int = 1) -> int:
    """R2.1: play goes clockwise, to the left; ``steps`` seats on from ``seat``."""
    return (seat + steps) % 4


def may_pass(stock_count: int) -> bool:
    """R6.1: at the start of a turn the player may pass (and not draw) exactly when
    the stock is empty; else they draw from the stock (or take from the pile)."""
    return stock_count == 0
