"""``rummy-sim``: bots against bots, headless, with results per team and per bot.

    rummy-sim --games 200 --seed 7 --bots heuristic,random [--json]

One bot name plays all four seats; two names play team 0 (seats 0 and 2) and
team 1 (seats 1 and 3); four names play one seat each. Every other game the
line-up moves one seat to the left, so each side plays the other's seats; the
two games of such a pair are dealt from the same seed (a duplicate match: both
sides get the same cards), which cancels most of the luck of the deal. Each
game's seed is derived from ``--seed``: the same seed plays the same games.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import secrets
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any

from .engine import Game, view_for
from .engine.bots import BOT_NAMES, make_bot


def derive_seed(seed: int, *parts: object) -> int:
    """A 63-bit seed for one game or bot, derived from the run's seed."""
    text = "/".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1


def lineups(names: Sequence[str]) -> tuple[tuple[str, str, str, str], tuple[str, str, str, str]]:
    """The bots per seat for even games and for odd games (moved one seat left)."""
    if len(names) == 1:
        seats = (names[0],) * 4
    elif len(names) == 2:
        seats = (names[0], names[1], names[0], names[1])
    elif len(names) == 4:
        seats = (names[0], names[1], names[2], names[3])
    else:
        raise ValueError("give 1, 2 or 4 bot names")
    moved = (seats[3], seats[0], seats[1], seats[2])
    return (seats[0], seats[1], seats[2], seats[3]), moved


@dataclass(slots=True)
class GameOutcome:
    seed: int
    seats: tuple[str, str, str, str]
    totals: tuple[int, int]
    winner: int | None
    actions: int


def play_game(seed: int, seats: Sequence[str], bot_seed: int) -> GameOutcome:
    """One complete game; seats as chosen so that each bot keeps its seat (R2.4)."""
    game = Game(seed, seating="chosen")
    bots = [make_bot(name, Random(derive_seed(bot_seed, seat))) for seat, name in enumerate(seats)]
    actions = 0
    while not game.is_over:
        seat = game.current
        game.apply(bots[seat].choose(view_for(game, seat)))
        actions += 1
    a, b, c, d = seats
    return GameOutcome(seed, (a, b, c, d), game.totals(), game.winner(), actions)


@dataclass(slots=True)
class Tally:
    """Wins, ties, losses and the sum of scores, from one side's point of view."""

    played: int = 0
    wins: int = 0
    ties: int = 0
    losses: int = 0
    score_sum: int = 0

    def add(self, own: int, other: int) -> None:
        self.played += 1
        self.score_sum += own
        if own > other:
            self.wins += 1
        elif own == other:
            self.ties += 1
        else:
            self.losses += 1

    def as_dict(self) -> dict[str, Any]:
        n = self.played or 1
        return {
            "played": self.played,
            "wins": self.wins,
            "ties": self.ties,
            "losses": self.losses,
            "win_rate": round(self.wins / n, 4),
            "mean_score": round(self.score_sum / n, 2),
        }


@dataclass(slots=True)
class SimResult:
    seed: int
    bots: list[str]
    games: int = 0
    actions: int = 0
    seconds: float = 0.0
    teams: tuple[Tally, Tally] = field(default_factory=lambda: (Tally(), Tally()))
    per_bot: dict[str, Tally] = field(default_factory=dict)

    def add(self, outcome: GameOutcome) -> None:
        self.games += 1
        self.actions += outcome.actions
        t0, t1 = outcome.totals
        self.teams[0].add(t0, t1)
        self.teams[1].add(t1, t0)
        # A bot counts once per team it plays on: a team of two different bots
        # counts for both, and a bot on both teams counts twice (a win and a loss).
        for team, (own, other) in enumerate(((t0, t1), (t1, t0))):
            for name in sorted({outcome.seats[team], outcome.seats[team + 2]}):
                self.per_bot.setdefault(name, Tally()).add(own, other)

    def as_dict(self) -> dict[str, Any]:
        seconds = self.seconds or 1e-9
        return {
            "games": self.games,
            "actions": self.actions,
            "seconds": round(self.seconds, 4),
            "games_per_second": round(self.games / seconds, 2),
            "actions_per_second": round(self.actions / seconds, 1),
            "seed": self.seed,
            "bots": self.bots,
            "teams": [self.teams[0].as_dict(), self.teams[1].as_dict()],
            "results": {name: self.per_bot[name].as_dict() for name in sorted(self.per_bot)},
        }


def simulate(
    games: int, seed: int, names: Sequence[str], progress: Callable[[int], None] | None = None
) -> SimResult:
    """Play ``games`` games; ``progress(done)`` is called after each one."""
    even, odd = lineups(names)
    duplicate = even != odd  # both line-ups play each deal
    result = SimResult(seed, list(names))
    for i in range(games):
        game_seed = derive_seed(seed, "game", i // 2 if duplicate else i)
        seats = even if i % 2 == 0 else odd
        start = time.perf_counter()
        outcome = play_game(game_seed, seats, derive_seed(seed, "bots", i))
        result.seconds += time.perf_counter() - start
        result.add(outcome)
        if progress is not None:
            progress(i + 1)
    return result


def report(result: SimResult) -> str:
    """The human-readable summary."""
    lines = [
        f"{result.games} games, seed {result.seed}, bots {','.join(result.bots)}",
        f"{'':<14}{'played':>8}{'wins':>8}{'ties':>7}{'losses':>8}{'win %':>8}{'mean score':>12}",
    ]

    def row(label: str, t: Tally) -> str:
        d = t.as_dict()
        return (
            f"{label:<14}{d['played']:>8}{d['wins']:>8}{d['ties']:>7}{d['losses']:>8}"
            f"{100 * d['win_rate']:>7.1f}%{d['mean_score']:>12.1f}"
        )

    lines.append(row("team 0 (S+N)", result.teams[0]))
    lines.append(row("team 1 (W+E)", result.teams[1]))
    for name in sorted(result.per_bot):
        lines.append(row(name, result.per_bot[name]))
    d = result.as_dict()
    lines.append(
        f"{result.actions} moves in {result.seconds:.2f} s: "
        f"{d['games_per_second']:.1f} games/s, {d['actions_per_second']:.0f} moves/s"
    )
    return "\n".join(lines)


def _whole_number(text: str, minimum: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < minimum:
        least = "must not be negative" if minimum == 0 else f"must be at least {minimum}"
        raise argparse.ArgumentTypeError(f"{least}, not {value}")
    return value


def _positive(text: str) -> int:
    return _whole_number(text, 1)


def _seed(text: str) -> int:
    return _whole_number(text, 0)


def _bots(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",")]
    if len(names) not in (1, 2, 4):
        raise argparse.ArgumentTypeError(f"give 1, 2 or 4 bot names separated by commas, not {len(names)}")
    for name in names:
        if name not in BOT_NAMES:
            raise argparse.ArgumentTypeError(f"unknown bot {name!r}; known bots: {', '.join(BOT_NAMES)}")
    return names


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rummy-sim",
        description="Play Persian Rummy games between bots, headless, and report the results.",
    )
    parser.add_argument("--games", type=_positive, default=100, help="number of games (default 100)")
    parser.add_argument(
        "--seed", type=_seed, default=None, help="seed of the whole run (default: a random one, printed)"
    )
    parser.add_argument(
        "--bots",
        type=_bots,
        default=["heuristic", "random"],
        metavar="NAME[,NAME[,NAME,NAME]]",
        help=f"1 name: all seats; 2: team 0 and team 1; 4: one per seat. Known: {', '.join(BOT_NAMES)}",
    )
    parser.add_argument("--json", action="store_true", help="end with one line of JSON with the results")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar even on a terminal")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    seed: int = secrets.randbits(32) if args.seed is None else args.seed
    games: int = args.games
    names: list[str] = args.bots
    if sys.stderr.isatty() and not args.no_progress:
        from rich.console import Console
        from rich.progress import Progress  # only on a terminal: the bar is for people

        with Progress(console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task("playing", total=games)
            result = simulate(games, seed, names, lambda done: bar.update(task, completed=done))
    else:
        result = simulate(games, seed, names)
    print(report(result))
    if args.json:
        print(json.dumps(result.as_dict(), sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
