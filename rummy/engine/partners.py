"""The draw for partners and for the first dealer (RULES R2.2-R2.4)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from .cards import FIRST_JOKER, PACK, RANK, Card

Seating = Literal["draw", "chosen"]


def draw_value(card: Card) -> int:
    """R2.2: for this draw only Aces are low and Jokers high: A < 2 < ... < K < Joker."""
    if card >= FIRST_JOKER:
        return 14
    r = RANK[card]
    return 1 if r == 14 else r


@dataclass(frozen=True, slots=True)
class PartnerDraw:
    """What the draw showed and decided.

    ``rounds[k]`` lists the ``(chair, card)`` pairs drawn in round k: all four
    chairs in round 0, then only the tied ones (R2.3). A chair (0..3) is where a
    player sat down at the table; ``seat_of_chair[c]`` is the seat that the player
    in chair c plays from; ``first_dealer`` is a seat.
    """

    seating: Seating
    rounds: tuple[tuple[tuple[int, Card], ...], ...]
    seat_of_chair: tuple[int, int, int, int]
    first_dealer: int


def _tied_groups_to_redraw(keys: dict[int, list[int]], boundaries: tuple[int, ...]) -> list[int]:
    """Chairs whose tie decides something: a group of equal keys that holds the
    lowest place (who deals) or straddles one of ``boundaries`` (who partners)."""
    order = sorted(keys, key=lambda c: keys[c])
    redraw: list[int] = []
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and keys[order[j + 1]] == keys[order[i]]:
            j += 1
        if j > i and (i == 0 or any(i <= b - 1 < j for b in boundaries)):
            redraw.extend(order[i : j + 1])
        i = j + 1
    return sorted(redraw)


def draw_for_partners(rng: random.Random, seating: Seating = "draw") -> PartnerDraw:
    """Play out R2.2-R2.3 (or R2.4 with ``seating="chosen"``) with ``rng``.

    With the draw, the two lowest cards are partners and the lowest deals; the
    dealer gets seat 0 and their partner seat 2, the third-lowest seat 1 and the
    highest seat 3. With chosen seats every chair is its own seat and the draw
    only picks the first dealer.
    """
    pack = list(PACK)
    rng.shuffle(pack)
    keys: dict[int, list[int]] = {chair: [] for chair in range(4)}
    rounds: list[tuple[tuple[int, Card], ...]] = []
    drawing = [0, 1, 2, 3]
    # A partnership is decided between the 2nd and 3rd place; the dealer at the 1st.
    boundaries = (2,) if seating == "draw" else ()
    while drawing:
        if len(pack) < len(drawing):  # practically never: start a fresh pack
            pack = list(PACK)
            rng.shuffle(pack)
        this_round = tuple((chair, pack.pop()) for chair in drawing)
        rounds.append(this_round)
        for chair, card in this_round:
            keys[chair].append(draw_value(card))
        drawing = _tied_groups_to_redraw(keys, boundaries)
    order = sorted(keys, key=lambda c: keys[c])
    if seating == "draw":
        seat_of_chair = [0, 0, 0, 0]
        for seat, chair in zip((0, 2, 1, 3), order, strict=True):
            seat_of_chair[chair] = seat
        first_dealer = 0
    else:
        seat_of_chair = [0, 1, 2, 3]
        first_dealer = order[0]
    seats = (seat_of_chair[0], seat_of_chair[1], seat_of_chair[2], seat_of_chair[3])
    return PartnerDraw(seating, tuple(rounds), seats, first_dealer)
