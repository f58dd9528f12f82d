"""How fast the expert bot decides: its decisions timed over whole games.

    python bench/expert_decisions.py [--games 10] [--iterations N] [--seed 1]

The expert plays seats 0 and 2 against the heuristic bot, one process, as
``rummy-sim`` plays it. Every decision is timed by the wall clock and by the CPU
time of this thread (what one core spends on it, whatever else the machine runs);
the decisions that ran a search are shown apart from those that did not need one
(a single sensible choice, or the next move of a turn already planned). Printed:
the median and 99th percentile of each, decisions and search iterations per CPU
second. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rummy.engine import Game, team_of, view_for
from rummy.engine.bots import Budget, ExpertBot, make_bot
from rummy.sim import percentile


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=None, help="the expert's budget (default its own)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    budget = Budget() if args.iterations is None else Budget(args.iterations)

    searched: list[tuple[float, float]] = []  # (wall, cpu) seconds
    instant: list[tuple[float, float]] = []
    iterations = 0
    for i in range(args.games):
        game = Game(args.seed * 1_000_003 + i, seating="chosen")
        bots = [
            ExpertBot(Random(4 * i + s), budget)
            if team_of(s) == 0
            else make_bot("heuristic", Random(4 * i + s))
            for s in range(4)
        ]
        while not game.is_over:
            seat = game.current
            bot = bots[seat]
            view = view_for(game, seat)
            wall, cpu = time.perf_counter(), time.thread_time()
            move = bot.choose(view)
            took = (time.perf_counter() - wall, time.thread_time() - cpu)
            if isinstance(bot, ExpertBot):
                (searched if bot.last_iterations else instant).append(took)
                iterations += bot.last_iterations
            game.apply(move)

    def line(label: str, times: list[tuple[float, float]]) -> str:
        walls, cpus = [w for w, _ in times], [c for _, c in times]
        return (
            f"{label:<22}{len(times):>6}  wall p50 {1e3 * percentile(walls, 50):7.1f} ms,"
            f" p99 {1e3 * percentile(walls, 99):7.1f} ms | CPU p50 {1e3 * percentile(cpus, 50):7.1f} ms,"
            f" p99 {1e3 * percentile(cpus, 99):7.1f} ms"
        )

    every = searched + instant
    cpu_total = sum(c for _, c in every)
    print(f"expert ({budget.iterations} iterations a search) vs heuristic, {args.games} games")
    print(line("every decision", every))
    print(line("decisions searched", searched))
    print(line("decisions not searched", instant))
    print(
        f"per CPU second: {len(every) / cpu_total:.1f} decisions, {len(searched) / cpu_total:.1f} searches,"
        f" {iterations / cpu_total:,.0f} search iterations (playouts)"
    )
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
