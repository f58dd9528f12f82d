"""Random playouts: our engine against OpenSpiel's C++ gin_rummy driven from Python.

    python bench/engine_playouts.py [--games N] [--seed S]

Both engines are driven by the same loop, a uniform choice over the legal
actions until the game ends, in alternating blocks of games (a neighbour's load
on a shared machine then falls on both alike):

    legal = state.legal_actions(); state.apply_action(rng.choice(legal))

OpenSpiel deals through chance nodes (``state.chance_outcomes()``); those
actions are counted apart from the players' actions. Our engine shuffles inside
the game, so it has no chance actions. The ratio compares players' actions per
second, by the wall clock or (``--clock cpu``) this process's CPU time, which
other programs on a shared machine do not lengthen. The heuristic bot's speed
(whole games, through the players' views as ``rummy-sim`` plays them) is measured
too. Figures are printed, never asserted.
Without ``pyspiel`` (``pip install '.[bench]'``) the comparison is skipped.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rummy.engine import Game, view_for
from rummy.engine.bots import make_bot

# What the figures are timed by: the wall clock, or with --clock cpu this process's
# CPU time (which other programs on a shared machine do not lengthen).
CLOCK = time.perf_counter


def ours(games: int, seed: int, first: int = 0) -> tuple[int, float]:
    """Random playouts of our engine (games ``first`` .. ``first + games - 1``):
    (actions, seconds)."""
    rng = random.Random(seed * 7919 + first)
    actions = 0
    start = CLOCK()
    for i in range(first, first + games):
        game = Game(seed * 1_000_003 + i)
        while not game.is_over:
            legal = game.legal_moves()
            game.apply(rng.choice(legal))
            actions += 1
    return actions, CLOCK() - start


def openspiel(games: int, seed: int, first: int = 0) -> tuple[int, int, float] | None:
    """Random playouts of OpenSpiel's gin_rummy: (player actions, chance actions,
    seconds), or None without pyspiel."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("gin_rummy")
    rng = random.Random(seed * 7919 + first)
    actions = chance = 0
    start = CLOCK()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                action = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
                state.apply_action(action)
                chance += 1
            else:
                legal = state.legal_actions()
                state.apply_action(rng.choice(legal))
                actions += 1
    return actions, chance, CLOCK() - start


def heuristic(games: int, seed: int, lineup: tuple[str, str, str, str]) -> tuple[int, int, float]:
    """Whole games of bots through their views: (games, actions, seconds)."""
    actions = 0
    start = CLOCK()
    for i in range(games):
        game = Game(seed * 1_000_003 + i, seating="chosen")
        bots = [make_bot(name, random.Random(seed + 4 * i + s)) for s, name in enumerate(lineup)]
        while not game.is_over:
            seat = game.current
            game.apply(bots[seat].choose(view_for(game, seat)))
            actions += 1
    return games, actions, CLOCK() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="random playouts per engine")
    parser.add_argument("--bot-games", type=int, default=200, help="heuristic bot games")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--blocks", type=int, default=20, help="turns the two engines take (default 20)")
    parser.add_argument(
        "--clock", choices=["wall", "cpu"], default="wall", help="time by the wall clock or CPU time"
    )
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.perf_counter if args.clock == "wall" else time.process_time
    print(f"timed by the {'wall clock' if args.clock == 'wall' else 'CPU time of this process'}")

    n = acts = chance = 0
    secs = ssecs = 0.0
    spiel: tuple[int, int, float] | None = None
    blocks = max(1, min(args.blocks, args.games))
    for b in range(blocks):
        first, size = b * args.games // blocks, (b + 1) * args.games // blocks - b * args.games // blocks
        got, took = ours(size, args.seed, first)
        n, secs = n + got, secs + took
        block = openspiel(size, args.seed, first)
        if block is not None:
            acts, chance, ssecs = acts + block[0], chance + block[1], ssecs + block[2]
            spiel = (acts, chance, ssecs)
    our_rate = n / secs
    print(f"ours       random playouts: {args.games} games, {n} actions in {secs:.2f} s")
    print(f"           {our_rate:,.0f} actions/s ({n / args.games:.0f} actions/game, no chance actions)")

    if spiel is None:
        print("OpenSpiel  pyspiel is not installed (pip install '.[bench]'): comparison skipped")
    else:
        acts, chance, ssecs = spiel
        spiel_rate = acts / ssecs
        print(f"OpenSpiel  gin_rummy random playouts: {args.games} games, {acts} player actions")
        print(f"           + {chance} chance actions in {ssecs:.2f} s")
        print(
            f"           {spiel_rate:,.0f} player actions/s, "
            f"{(acts + chance) / ssecs:,.0f} actions/s with chance actions"
        )
        print(f"ratio      ours / OpenSpiel (player actions/s): {our_rate / spiel_rate:.2f}")
        print(f"           ours / OpenSpiel (all actions/s):    {our_rate * ssecs / (acts + chance):.2f}")

    lineups: list[tuple[str, str, str, str]] = [
        ("heuristic", "heuristic", "heuristic", "heuristic"),
        ("heuristic", "random", "heuristic", "random"),
    ]
    for lineup in lineups:
        games, acts, hsecs = heuristic(args.bot_games, args.seed, lineup)
        print(
            f"bots       {','.join(sorted(set(lineup)))}: {games / hsecs:,.1f} games/s, "
            f"{1000 * hsecs / games:.1f} ms/game, {acts / hsecs:,.0f} actions/s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
