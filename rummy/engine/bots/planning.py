"""Planning a turn's melds: which new melds and lay-offs lay down the most points.

Works on plain cards and a light copy of the table (``TableState``) so that a
bot can try many hands cheaply: the engine's ``Meld`` objects are never touched.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..cards import FIRST_JOKER, JOKER_RANK, POINTS, RANK, SUIT, Card
from ..game import new_melds
from ..melds import Meld

NEW = -1  # the meld id of a meld planned this turn, not yet on the table
GOING_OUT = 25  # R7.3
NODE_CAP = 4000  # search nodes per plan: a huge hand falls back to the best found so far


def meld_value(cards: Sequence[Card]) -> int:
    """Points a new meld scores: its cards (R7.1), twice for four of a kind at once (R7.4)."""
    value = sum(POINTS[c] for c in cards)
    if len(cards) == 4 and RANK[cards[0]] == RANK[cards[1]]:
        value *= 2
    return value


class TableState:
    """The melds on the table reduced to what lay-offs need: how many more cards
    each set takes (by rank, Jokers as rank 15) and each run's suit and ends."""

    __slots__ = ("room", "runs")

    def __init__(self, room: dict[int, tuple[int, int]], runs: list[list[int]]) -> None:
        self.room = room  # rank -> (cards it still takes, meld id)
        self.runs = runs  # [suit, low, high, meld id]

    @classmethod
    def from_melds(cls, melds: Iterable[Meld]) -> TableState:
        room: dict[int, tuple[int, int]] = {}
        runs: list[list[int]] = []
        for meld in melds:
            if meld.kind == "run":
                runs.append([meld.suit, meld.low, meld.high, meld.id])
            else:
                r = JOKER_RANK if meld.kind == "jokers" else meld.rank
                room[r] = (4 - len(meld.cards), meld.id)
        return cls(room, runs)

    def copy(self) -> TableState:
        return TableState(dict(self.room), [list(run) for run in self.runs])

    def add_meld(self, cards: Sequence[Card], meld_id: int = NEW) -> None:
        first = cards[0]
        if len(cards) <= 4 and RANK[first] == RANK[cards[-1]]:
            self.room[RANK[first]] = (4 - len(cards), meld_id)
        else:
            self.runs.append([SUIT[first], RANK[first], RANK[cards[-1]], meld_id])

    def taker(self, card: Card) -> int | None:
        """The id of a meld that ``card`` alone may be laid off on (``NEW`` for a
        planned one), or None."""
        r = RANK[card]
        room = self.room.get(r)
        if room is not None and room[0] > 0:
            return room[1]
        if card < FIRST_JOKER:
            s = SUIT[card]
            for run in self.runs:
                if run[0] == s and (r == run[1] - 1 or r == run[2] + 1):
                    return run[3]
        return None

    def lay_off(self, card: Card) -> int | None:
        """Lay ``card`` off if some meld takes it; the meld's id, or None."""
        r = RANK[card]
        room = self.room.get(r)
        if room is not None and room[0] > 0:
            self.room[r] = (room[0] - 1, room[1])
            return room[1]
        if card < FIRST_JOKER:
            s = SUIT[card]
            for run in self.runs:
                if run[0] == s:
                    if r == run[1] - 1:
                        run[1] = r
                        return run[3]
                    if r == run[2] + 1:
                        run[2] = r
                        return run[3]
        return None

    def run_ends(self, suit: int) -> list[tuple[int, int]]:
        return [(run[1], run[2]) for run in self.runs if run[0] == suit]


def lay_off_all(cards: Iterable[Card], table: TableState) -> tuple[list[tuple[Card, int]], list[Card]]:
    """Lay off every card that fits, again and again as runs grow. Returns the
    lay-offs ``(card, meld id)`` in an order that can be played, and the rest."""
    rest = sorted(cards)
    done: list[tuple[Card, int]] = []
    changed = True
    while changed and rest:
        changed = False
        keep: list[Card] = []
        for card in rest:
            meld_id = table.lay_off(card)
            if meld_id is None:
                keep.append(card)
            else:
                done.append((card, meld_id))
                changed = True
        rest = keep
    return done, rest


@dataclass(slots=True)
class Plan:
    """What to lay down from a hand: new melds, then lay-offs; ``laid`` their points
    (doubled fours counted twice), ``leftover`` the cards that stay in the hand."""

    laid: int = 0
    melds: list[tuple[Card, ...]] = field(default_factory=list)
    layoffs: list[tuple[Card, int]] = field(default_factory=list)
    leftover: list[Card] = field(default_factory=list)
    nodes: int = 0  # search nodes it took

    @property
    def goes_out(self) -> bool:
        return not self.leftover


def best_plan(hand: Sequence[Card], table: TableState, cap: int = NODE_CAP) -> Plan:
    """The melds and lay-offs that lay down the most points from ``hand``.

    A branch-and-bound search over disjoint new melds (each leaf then lays off
    what it can): a branch is cut when even laying every card it has left (four
    of a kind twice) could not beat the best plan found. Richer melds are tried
    first, so that the bound bites early; after ``cap`` nodes the best plan found
    so far is taken (only huge hands get there).
    """
    cards = sorted(hand)
    candidates = new_melds(cards)
    best = Plan(leftover=cards)
    if not candidates:
        layoffs, rest = lay_off_all(cards, table.copy())
        if layoffs:
            best = Plan(sum(POINTS[c] for c, _ in layoffs), [], layoffs, rest)
        return best
    by_card: dict[Card, list[tuple[Card, ...]]] = {}
    bound = {c: POINTS[c] for c in cards}  # the most a card can add to a plan
    for meld in sorted(candidates, key=meld_value, reverse=True):
        for card in meld:
            by_card.setdefault(card, []).append(meld)
        if len(meld) == 4 and RANK[meld[0]] == RANK[meld[1]]:
            for card in meld:
                bound[card] = 2 * POINTS[card]
    best_value = -1
    nodes = 0
    used: set[Card] = set()  # in a chosen meld
    skipped: set[Card] = set()  # decided: in no new meld
    chosen: list[tuple[Card, ...]] = []
    free_bound = sum(bound.values()) + GOING_OUT  # what the cards not yet melded may add

    def leaf(value: int) -> None:
        nonlocal best, best_value
        t = table.copy()
        for meld in chosen:
            t.add_meld(meld)
        layoffs, rest = lay_off_all((c for c in cards if c not in used), t)
        value += sum(POINTS[c] for c, _ in layoffs)
        total = value + (GOING_OUT if not rest else 0)
        if total > best_value:
            best_value = total
            best = Plan(value, list(chosen), layoffs, rest)

    def search(i: int, value: int, free: int) -> None:
        nonlocal nodes
        nodes += 1
        if value + free <= best_value or (nodes > cap and best_value >= 0):
            return
        while i < len(cards) and (cards[i] in used or cards[i] in skipped or cards[i] not in by_card):
            i += 1
        if i == len(cards) or nodes > cap:  # past the cap: the first leaf reached
            leaf(value)
            return
        card = cards[i]
        for meld in by_card[card]:
            if nodes > cap:
                return  # a leaf has been reached below: keep the best found
            if any(c in used or c in skipped for c in meld):
                continue
            used.update(meld)
            chosen.append(meld)
            search(i + 1, value + meld_value(meld), free - sum(bound[c] for c in meld))
            chosen.pop()
            used.difference_update(meld)
        if nodes > cap:
            return
        # Or leave this card out of every new meld (it may still be laid off).
        skipped.add(card)
        search(i + 1, value, free)
        skipped.discard(card)

    search(0, 0, free_bound)
    best.nodes = nodes
    return best
