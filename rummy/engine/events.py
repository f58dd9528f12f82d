"""Events: what a move made happen, for logs and for the screen.

Every event holds only what everyone may see (RULES R9.1), so the same list can
go to every seat and spectator: a card drawn from the stock is not named.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card
from .partners import PartnerDraw
from .scoring import DealResult


@dataclass(frozen=True, slots=True)
class PartnersDrawn:
    draw: PartnerDraw


@dataclass(frozen=True, slots=True)
class DealStarted:
    deal: int
    dealer: int
    first_discard: Card


@dataclass(frozen=True, slots=True)
class StockDrawn:
    seat: int


@dataclass(frozen=True, slots=True)
class DiscardTaken:
    """``taken`` are all the cards taken, the target card first."""

    seat: int
    index: int
    taken: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Melded:
    seat: int
    meld_id: int
    cards: tuple[Card, ...]
    four_at_once: bool


@dataclass(frozen=True, slots=True)
class LaidOff:
    """``owner_seat`` is the seat that laid the meld down (R5.5)."""

    seat: int
    meld_id: int
    cards: tuple[Card, ...]
    owner_seat: int


@dataclass(frozen=True, slots=True)
class Discarded:
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class Passed:
    seat: int
    passes_in_a_row: int


@dataclass(frozen=True, slots=True)
class WentOut:
    seat: int


@dataclass(frozen=True, slots=True)
class DealEnded:
    result: DealResult


@dataclass(frozen=True, slots=True)
class GameEnded:
    totals: tuple[int, int]
    winner: int | None


Event = (
    PartnersDrawn
    | DealStarted
    | StockDrawn
    | DiscardTaken
    | Melded
    | LaidOff
    | Discarded
    | Passed
    | WentOut
    | DealEnded
    | GameEnded
)
