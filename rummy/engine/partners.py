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

    ``rounds[k]`` lists the ``(player, card)`` pairs drawn in round k: all four
    players in round 0, then only the tied players (R2.3). Players are numbered
    by the chair they took at the table (0..3). ``seat_of_player[p]`` is the seat
    that player p plays from; ``first_dealer`` is a seat.
    """

    seating: Seating
    rounds: tuple[tuple[tuple[int, Card], ...], ...]
    seat_of_player: tuple[int, int, int, int]
    first_dealer: int


def _tied_groups_to_redraw(keys: dict[int, list[int]], boundaries: tuple[int, ...]) -> list[int]:
    """Players whose tie decides something: a group of equal keys that holds the
    lowest place (who deals) or straddles one of ``boundaries`` (who partners)."""
    order = sorted(keys, key=lambda p: keys[p])
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
    highest seat 3. With chosen seats every player keeps their chair as their seat
    and the draw only picks the first dealer.
    """
    pack = list(PACK)
    rng.shuffle(pack)
    keys: dict[int, list[int]] = {p: [] for p in range(4)}
    rounds: list[tuple[tuple[int, Card], ...]] = []
    drawing = [0, 1, 2, 3]
    # A partnership is decided between the 2nd and 3rd place; the dealer at the 1st.
    boundaries = (2,) if seating == "draw" else ()
    while drawing:
        if len(pack) < len(drawing):  # practically never: start a fresh pack
            pack = list(PACK)
            rng.shuffle(pack)
        this_round = tuple((p, pack.pop()) for p in drawing)
        rounds.append(this_round)
        for p, card in this_round:
            keys[p].append(draw_value(card))
        drawing = _tied_groups_to_redraw(keys, boundaries)
    order = sorted(keys, key=lambda p: keys[p])
    if seating == "draw":
        seat_of_player = [0, 0, 0, 0]
        for seat, player in zip((0, 2, 1, 3), order, strict=True):
            seat_of_player[player] = seat
        first_dealer = 0
    else:
        seat_of_player = [0, 1, 2, 3]
        first_dealer = order[0]
    seats = (seat_of_player[0], seat_of_player[1], seat_of_player[2], seat_of_player[3])
    return PartnerDraw(seating, tuple(rounds), seats, first_dealer)
