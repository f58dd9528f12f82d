"""Scoring a deal (RULES R7) and the game's winner (R8)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .cards import POINTS, Card
from .melds import Meld
from .seats import team_of


@dataclass(frozen=True, slots=True)
class TeamScore:
    """One team's score for one deal, item by item; ``total`` is their sum.

    ``laid`` (R7.1) counts every card the team laid, ``doubled_fours`` (R7.4) the
    second count of four-of-a-kind laid down at once, ``in_hand`` (R7.2) is minus
    the points still held, ``going_out`` (R7.3) is 25 or 0.
    """

    laid: int
    doubled_fours: int
    in_hand: int
    going_out: int

    @property
    def total(self) -> int:
        return self.laid + self.doubled_fours + self.in_hand + self.going_out


@dataclass(frozen=True, slots=True)
class DealResult:
    """The end of one deal: every hand shown to all (R7), and both teams' scores."""

    deal: int
    ended_by: Literal["out", "passes"]
    went_out: int | None
    hands: tuple[tuple[Card, ...], ...]
    scores: tuple[TeamScore, TeamScore]


def score_deal(
    melds: Sequence[Meld], hands: Sequence[Sequence[Card]], went_out: int | None
) -> tuple[TeamScore, TeamScore]:
    """R7.1-R7.4: each card scores for the team of the seat that laid it (R5.5)."""
    laid = [0, 0]
    doubled = [0, 0]
    for meld in melds:
        for card, owner in zip(meld.cards, meld.owners, strict=True):
            laid[team_of(owner)] += POINTS[card]
        if meld.four_at_once:
            # R7.4 ruling: only the four cards of that one meld, for the team that laid it.
            doubled[team_of(meld.laid_by)] += sum(POINTS[c] for c in meld.cards[:4])
    in_hand = [0, 0]
    for seat, hand in enumerate(hands):
        in_hand[team_of(seat)] -= sum(POINTS[c] for c in hand)
    bonus = [0, 0]
    if went_out is not None:
        bonus[team_of(went_out)] = 25
    return (
        TeamScore(laid[0], doubled[0], in_hand[0], bonus[0]),
        TeamScore(laid[1], doubled[1], in_hand[1], bonus[1]),
    )


def totals(results: Sequence[DealResult]) -> tuple[int, int]:
    """R7.5: deal scores add up."""
    return (
        sum(r.scores[0].total for r in results),
        sum(r.scores[1].total for r in results),
    )


def winner(results: Sequence[DealResult]) -> int | None:
    """R8: the team with the higher total, or None for a tie."""
    return winner_of(totals(results))


def winner_of(game_totals: tuple[int, int]) -> int | None:
    """R8 from a finished game's two totals: the higher wins; equal totals tie (R8.2)."""
    a, b = game_totals
    if a == b:
        return None
    return 0 if a > b else 1
