"""The expert bot: information-set Monte Carlo tree search (IS-MCTS).

Each iteration of a search draws one *world*: the cards this seat cannot see (the
other hands and the stock) dealt at random among the unseen cards, except the cards
it saw others take from the discard pile, which stay with them (``PileMemory``).
Every world agrees with all this seat has seen (R9), and only with that. The world is
played down the tree and then out to the end of the deal with the quick greedy
policy (``playout``); the result goes back up the tree.

The tree is that of single-observer IS-MCTS (as OpenSpiel's ``is_mcts.cc``): a node
is an information set of the seat to act (the public moves since the search began,
and that seat's own hand), so worlds that the seat to act cannot tell apart share
it. A node's actions are whole parts of a turn: a draw or a take (R4.1), or a *turn
plan*, the melds and lay-offs to lay down (R4.2) and the card to discard (R4.3).
A new node is scored by one playout; a node seen again is expanded one action at a
time, then chosen among by UCB1. The action tried most often at the root is played;
a plan's later moves are played on the seat's next calls in the same turn. The root's
actions share their worlds (common random numbers): each action's n-th world is the
same deal of the unseen cards, played out with the same randomness, so the actions
are compared on the same luck.

A playout is scored by the chance that the seat's team wins the game (R8): after
the second deal by who won (and a share by the deal's own score, so that a decided
game is still played for its points), after the first by the lead it leaves (a deal's
score difference varies by about a hundred points between sensible teams).

The budget is a number of iterations (``iterations``), optionally cut short by
``seconds``; with no time limit the bot is deterministic for its seed and budget.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..cards import PACK, RANK, Card, of_rank
from ..game import DEALS, Game
from ..moves import DISCARDS, Discard, DrawStock, LayOff, Move, NewMeld, NextDeal, Pass
from ..scoring import score_deal, totals
from ..seats import SEATS, team_of
from ..views import PlayerView, world_from_view
from .base import legal_or_raise
from .memory import PileMemory
from .planning import TableState, best_plan, lay_off_all
from .playout import draw_choice_scores, meld_choice, play_deal_out

Action = tuple[Move, ...]  # a draw or take (one move), or a turn plan (melds, lay-offs, discard)

# 250 wins about 73% of games against the heuristic bot, at a median decision of
# ~40 ms and a 99th percentile under ~200 ms; 400 would win more but is too slow.
# (About 71% against the heuristic bot that no longer feeds the pile's melds, with
# playouts that shed high cards near the deal's end: README.)
DEFAULT_ITERATIONS = 250
UCB_C = 0.7
TAKES_KEPT = 5  # takes tried per draw, the best by the greedy count
# After the first deal the lead is worth a win probability of about
# 1 / (1 + exp(-lead / LEAD_SCALE)) (the second deal's difference has sd ~105).
LEAD_SCALE = 62.0
# Another seat holding this many cards or fewer may go out at its next turn: three of a
# kind are then laid, not held back for the fourth (as the heuristic bot's rule).
SHORT_HOLD = 3
# In the last deal a playout scores by who wins the game (R8), and this share of it by
# the deal's own score difference (as a first deal's lead is scored): a decided game
# is still played for its points. Small, so that in a close game winning comes first:
# at 0.2 a 100-point deal weighed as much as 8% of the game (167 of 256 games against
# normal, where 0.05 won 179: README's ladder).
POINTS_SHARE = 0.05


@dataclass(frozen=True, slots=True)
class Budget:
    """How long one search may take: ``iterations`` worlds, and if ``seconds`` is set,
    no more than that of wall time (then the result depends on the machine's speed)."""

    iterations: int = DEFAULT_ITERATIONS
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.iterations < 1:
            raise ValueError("a search needs at least one iteration")


@dataclass(slots=True)
class _Node:
    actions: list[Action] | None = None  # None until the node is seen a second time
    visits: dict[Action, int] = field(default_factory=dict)
    value: dict[Action, float] = field(default_factory=dict)
    total: int = 0


class WorldSampler:
    """Deals the cards one seat cannot see, consistently with what it has seen."""

    def __init__(self, view: PlayerView, memory: PileMemory) -> None:
        seat = view.seat
        assert seat is not None and view.hand is not None
        self.view = view
        seen: set[Card] = set(view.hand)
        seen.update(view.discard_pile)
        for meld in view.melds:
            seen.update(meld.cards)
        known: list[list[Card]] = [[], [], [], []]
        for other in range(4):
            if other == seat:
                continue
            cards = sorted(memory.known(other, view, seen))
            cards = [c for c in cards if c not in seen][: view.hand_counts[other]]
            seen.update(cards)
            known[other] = cards
        unseen = [c for c in PACK if c not in seen]
        need = [0 if s == seat else view.hand_counts[s] - len(known[s]) for s in range(4)]
        if sum(need) + view.stock_count != len(unseen):  # memory out of step: forget it
            unseen = sorted(set(unseen).union(*known))
            known = [[], [], [], []]
            need = [0 if s == seat else view.hand_counts[s] for s in range(4)]
        self.known = known
        self.unseen = unseen  # sorted, so that a world depends only on the view and the rng
        self.need = need

    def sample(self, rng: random.Random | None) -> Game:
        """A world drawn with ``rng`` (None: the unseen cards dealt in order, for what
        does not depend on them)."""
        view = self.view
        pool = list(self.unseen)
        if rng is not None:
            rng.shuffle(pool)
        hands: list[Sequence[Card]] = []
        k = 0
        for seat in range(4):
            if seat == view.seat:
                assert view.hand is not None
                hands.append(view.hand)
            else:
                n = self.need[seat]
                hands.append(self.known[seat] + pool[k : k + n])
                k += n
        return world_from_view(view, hands, pool[k:])


def draw_actions(game: Game) -> list[Action]:
    """The draw (or pass) and the best few takes of the seat to act."""
    seat = game.current
    hand = game.hands[seat]
    base: Move = DrawStock() if game.stock else Pass()
    takes = draw_choice_scores(hand, game.discard_pile, game.melds)
    takes.sort(key=lambda pair: -pair[0])
    actions: list[Action] = [(base,)]
    actions.extend((take,) for _, take in takes[:TAKES_KEPT])
    return actions


def turn_plans(game: Game) -> list[Action]:
    """The turn plans of the seat to act, in the meld phase: lay down what the greedy
    policy would (or hold back a set of three, hoping for the fourth: R7.4), then
    discard any card left; a plan that empties the hand goes out (R4.4). When the
    greedy policy cannot go out and another choice of melds can, that plan is one
    more: the richest meld first can spoil it (four Kings at once from J-Q-K♥ K♣ K♦
    K♠ leave J♥ Q♥ in the hand, where K-K-K and J-Q-K♥ go out)."""
    hand = game.hands[game.current]
    plans: list[Action] = []
    full, left = _lay_down(game, frozenset())
    if left:
        out = _going_out(game)
        if out:
            plans.append(out)
    variants = [(full, left)]
    seen_now = set(game.discard_pile)
    for meld in game.melds:
        seen_now.update(meld.cards)
    # Held back, a set waits for a draw that brings its fourth. With fewer cards in the
    # stock than seats, this seat draws from it no more (the others draw first), and a
    # deal that ends on passes leaves the three in its hand (R6.1, R6.2, R7.2): JK JK JK held
    # so cost 60 where laid they scored 60, and the search, whose playouts meld them
    # on the next turn, did not see it.
    # Nor while another seat holds SHORT_HOLD cards or fewer: it may go out at its next
    # turn (R4.4), and the three held would then cost their points (R7.2) where laid they
    # scored them. A hard bot held 9-9-9 back with an opponent down to no cards (R4.5),
    # who went out at once: -27 where +27 was to be had (normal holds none back so).
    seat = game.current
    shortest = min(len(game.hands[s]) for s in SEATS if s != seat)
    hoping = len(game.stock) >= len(SEATS) and shortest > SHORT_HOLD
    for move in full if hoping else ():
        if isinstance(move, NewMeld) and len(move.cards) == 3 and RANK[move.cards[0]] == RANK[move.cards[1]]:
            r = RANK[move.cards[0]]
            fourth = [c for c in of_rank(r) if c not in move.cards]
            if fourth and fourth[0] not in seen_now and fourth[0] not in hand:
                variants.append(_lay_down(game, frozenset(move.cards)))
    for moves, rest in variants:
        if not rest:
            plans.append(moves)
            continue
        for card in sorted(set(rest)):
            plans.append((*moves, DISCARDS[card]))
    return plans


def _going_out(game: Game) -> Action:
    """The melds and lay-offs with which the seat to act goes out (R4.4), the most
    points first (``best_plan``); empty when no choice of melds empties its hand."""
    plan = best_plan(game.hands[game.current], TableState.from_melds(game.melds))
    if not plan.goes_out:
        return ()
    seat = game.current
    trial = game.clone()
    moves: list[Move] = [NewMeld(meld) for meld in plan.melds]
    for move in moves:
        trial.apply(move)
    if trial.phase != "meld":  # its melds alone went out
        return tuple(moves)
    # The plan's lay-offs may go on its own new melds: their ids are known only now.
    layoffs, rest = lay_off_all(trial.hands[seat], TableState.from_melds(trial.melds))
    if rest:  # cannot happen: the same cards on the same table
        return ()
    moves.extend(LayOff(meld_id, card) for card, meld_id in layoffs)
    return tuple(moves)


def _lay_down(game: Game, keep: frozenset[Card]) -> tuple[Action, list[Card]]:
    """The greedy melds and lay-offs of the seat to act, leaving ``keep`` in the hand,
    tried on a copy: (the moves, the cards left)."""
    trial = game.clone()
    seat = trial.current
    moves: list[Move] = []
    while trial.phase == "meld":
        hand = [c for c in trial.hands[seat] if c not in keep]
        move = meld_choice(hand, trial.melds)
        if move is None:
            break
        trial.apply(move)
        moves.append(move)
    return tuple(moves), list(trial.hands[seat]) if trial.phase == "meld" else []


class Search:
    """One IS-MCTS search from a seat's view. ``run`` returns the action to play."""

    def __init__(self, view: PlayerView, memory: PileMemory, rng: random.Random, budget: Budget) -> None:
        self.view = view
        self.sampler = WorldSampler(view, memory)
        self.rng = rng
        self.budget = budget
        self.nodes: dict[tuple[object, ...], _Node] = {}
        self.iterations = 0
        self.root_deal = view.deal
        self.last_deal = view.deal >= DEALS
        a, b = totals(view.results)
        self.lead_before = a - b  # team 0's lead from the deals before this one
        self.world_seeds: list[int] = []  # the n-th world of every root action (_world_rng)

    def root_actions(self) -> list[Action]:
        world = self.sampler.sample(None)  # any world: the seat's own choices are the same in all
        return draw_actions(world) if world.phase == "draw" else turn_plans(world)

    def run(self, actions: list[Action]) -> Action:
        seat = self.view.seat
        assert seat is not None and self.view.hand is not None
        root = _Node(actions=actions)
        self.nodes[self._key((), seat, self.view.hand, self.view.phase)] = root
        deadline = None if self.budget.seconds is None else time.perf_counter() + self.budget.seconds
        for _ in range(self.budget.iterations):
            if deadline is not None and self.iterations and time.perf_counter() > deadline:
                break
            self._iterate(root)
            self.iterations += 1
        return max(actions, key=lambda a: (root.visits.get(a, 0), root.value.get(a, 0.0)))

    @staticmethod
    def _key(path: tuple[Action, ...], seat: int, hand: Sequence[Card], phase: str) -> tuple[object, ...]:
        return (path, seat, phase, tuple(sorted(hand)))

    def _world_rng(self, root: _Node, action: Action) -> random.Random:
        """The randomness of the next world for a root action: its n-th world is every
        root action's n-th world (the same hands, stock and playout draws), so that the
        actions are compared on the same luck rather than each on its own; their
        differences are then far less noisy for the same budget."""
        n = root.visits.get(action, 0)
        while len(self.world_seeds) <= n:
            self.world_seeds.append(self.rng.getrandbits(64))
        return random.Random(self.world_seeds[n])

    def _iterate(self, root: _Node) -> None:
        first = self._select(root, self.rng)  # the root's actions are the same in every world
        rng = self._world_rng(root, first)
        world = self.sampler.sample(rng)
        path: tuple[Action, ...] = ()
        visited: list[tuple[_Node, Action, int]] = []
        deal = world.deal
        while world.deal == deal and world.phase in ("draw", "meld"):
            seat = world.current
            key = self._key(path, seat, world.hands[seat], world.phase)
            node = self.nodes.get(key)
            if node is None:
                self.nodes[key] = _Node()  # new: scored by this playout, expanded when seen again
                break
            if node.actions is None:
                node.actions = draw_actions(world) if world.phase == "draw" else turn_plans(world)
            action = first if node is root else self._select(node, rng)
            for move in action:
                world.apply(move)
            path = (*path, action)
            visited.append((node, action, team_of(seat)))
        play_deal_out(world, rng)
        win0 = self._score(world)
        for node, action, team in visited:
            reward = win0 if team == 0 else 1.0 - win0
            node.total += 1
            node.visits[action] = node.visits.get(action, 0) + 1
            node.value[action] = node.value.get(action, 0.0) + reward

    def _select(self, node: _Node, rng: random.Random) -> Action:
        actions = node.actions
        assert actions is not None
        if len(actions) == 1:
            return actions[0]
        untried = [a for a in actions if a not in node.visits]
        if untried:
            return untried[rng.randrange(len(untried))]
        log_total = math.log(node.total)
        best = actions[0]
        best_ucb = -1.0
        for action in actions:
            n = node.visits[action]
            ucb = node.value[action] / n + UCB_C * math.sqrt(log_total / n)
            if ucb > best_ucb:
                best, best_ucb = action, ucb
        return best

    def _score(self, world: Game) -> float:
        """Team 0's chance of winning the game, as this playout leaves it."""
        if len(world.results) > len(self.view.results):
            a, b = totals(world.results)
        else:  # the playout was cut short: count the deal as it stands
            a, b = totals(world.results)
            s0, s1 = score_deal(world.melds, world.hands, None)
            a, b = a + s0.total, b + s1.total
        lead = a - b
        if self.last_deal:
            won = 1.0 if lead > 0 else (0.5 if lead == 0 else 0.0)
            # A share for the deal's own score difference: when the game is decided
            # either way every playout wins (or loses) alike, and the search played
            # anything (it drew with JK JK in hand and JK JK on the pile, 160 for four
            # at once, R7.4, and ended the deal holding them: -40).
            deal_lead = lead - self.lead_before
            return (1.0 - POINTS_SHARE) * won + POINTS_SHARE / (1.0 + math.exp(-deal_lead / LEAD_SCALE))
        return 1.0 / (1.0 + math.exp(-lead / LEAD_SCALE))


class ExpertBot:
    """See the module docstring. ``budget`` may be changed between moves."""

    name = "expert"

    def __init__(self, rng: random.Random, budget: Budget | None = None) -> None:
        self._rng = rng
        self.budget = budget or Budget()
        self._memory = PileMemory()
        self._plan: list[Move] = []  # the rest of this turn's plan
        self.last_iterations = 0  # iterations the last search ran (0: no search was needed)

    def choose(self, view: PlayerView) -> Move:
        moves = legal_or_raise(view)
        self.last_iterations = 0
        if view.phase == "draw":
            self._plan = []
            self._memory.observe(view)
            move = self._decide(view, moves)
            if isinstance(move, Pass):
                self._memory.left_pile(view, None)
            return move
        if view.phase == "meld":
            if self._plan and self._plan[0] in moves:
                move = self._plan.pop(0)
            else:
                move = self._decide(view, moves)
            if isinstance(move, Discard):
                self._plan = []
                self._memory.left_pile(view, move.card)
            return move
        return NextDeal() if NextDeal() in moves else moves[0]

    def _decide(self, view: PlayerView, moves: list[Move]) -> Move:
        search = Search(view, self._memory, self._rng, self.budget)
        actions = [a for a in search.root_actions() if a[0] in moves]
        if not actions:  # cannot happen: the plans are made of legal moves
            return moves[0]
        action = actions[0] if len(actions) == 1 else search.run(actions)
        self.last_iterations = search.iterations
        self._plan = list(action[1:])
        return action[0]


__all__ = ["DEFAULT_ITERATIONS", "Budget", "ExpertBot", "Search", "WorldSampler"]
