"""``rummy-sim``: bots against bots, headless, with results per team and per bot.

    rummy-sim --games 200 --seed 7 --bots heuristic,random [--jobs 2] [--iterations N] [--json] [--save DIR]

One bot name plays all four seats; two names play team 0 (seats 0 and 2) and
team 1 (seats 1 and 3); four names play one seat each. Every other game the
line-up moves one seat to the left, so each side plays the other's seats; the
two games of such a pair are dealt from the same seed (a duplicate match: both
sides get the same cards), which cancels most of the luck of the deal. Each
game's seed is derived from ``--seed``: the same seed plays the same games, on
one process or on ``--jobs`` of them. ``--save DIR`` writes every game as a record
file (docs/RECORDS.md) that ``rummy-client --replay FILE`` plays back, move by move.

A bot author's own bot plays as ``MODULE:NAME`` (``--bots mybot:GreedyBot,hard``):
``NAME`` in the module ``MODULE`` (importable from the current directory), called
with a ``random.Random`` to make the bot, as docs/ENGINE.md's example bot is. A move
the rules refuse stops the run with one line that names the bot, the move and why; a
bot that raises, with its own traceback and one line that names the bot, the error and
the line of the author's file it came from (ctrl+c as it thinks, likewise). Ctrl+C
shows the results of the games finished until then, how many of the games asked for
they are, and the seed that plays them again.

Win rates come with a 95% confidence interval: the mean plus or minus 1.96
standard errors, the standard error taken from the spread of the duplicate pairs
(the two games of a pair are one sample, since they share their cards), or of
single games when there are no pairs. Each bot's decisions are timed
(``decision_ms``: the median and the 99th percentile, in milliseconds, of the wall
clock) and their CPU time measured (``decision_cpu_ms``: what one core spends on a
decision, the same on a busy machine as on an idle one).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import math
import multiprocessing
import os
import secrets
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any

from .cli_values import at_least_one, not_negative
from .engine import (
    SEAT_NAMES,
    Game,
    GameRecord,
    IllegalMove,
    Move,
    PlayerView,
    check_move,
    move_text,
    team_seats,
    view_for,
)
from .engine.bots import BOT_NAMES, LEVELS, Bot, Budget, make_bot
from .protocol.record import RecordPlayer, encode_record_file, record_of_game


class BotMisplayed(Exception):
    """A bot answered with something the rules refuse, or raised: the run cannot go on.
    ``str()`` is the one line for its author; ``details`` the bot's own traceback when
    it raised (where the line alone cannot show which of its calls went wrong)."""

    def __init__(self, line: str, details: str = "") -> None:
        super().__init__(line, details)  # (both in args: it crosses from a --jobs process)
        self.line, self.details = line, details

    def __str__(self) -> str:
        return self.line


class BotRaised(Exception):
    """A bot's ``choose`` raised: ``what`` (type, message, where) and its traceback."""

    def __init__(self, what: str, details: str) -> None:
        super().__init__(what, details)
        self.what, self.details = what, details


_OURS = str(Path(__file__).resolve().parent)
BATCH_MOST = 20  # games a --jobs process plays before its results are counted


def raised(error: BaseException) -> str:
    """An exception out of a bot author's code in a few words: its type, its message and
    the line it came from, the innermost one of theirs (not of the engine they called)."""
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__  # (a bare assert)
    if isinstance(error, SyntaxError):
        return text  # (its message names the file and the line already)
    frames = traceback.extract_tb(error.__traceback__)
    theirs = [f for f in frames if not f.filename.startswith((_OURS, "<"))]
    if not theirs:
        return text  # (raised by the call itself: a constructor that takes no random.Random)
    frame = theirs[-1]
    return f"{text} ({Path(frame.filename).name}, line {frame.lineno}, in {frame.name})"


class BotInterrupted(KeyboardInterrupt):
    """Ctrl+C while a bot was choosing (still a ``KeyboardInterrupt``): ``details`` is
    where the bot was, and ``line`` which bot, for how long and in which game, so that
    a bot that takes too long, or never answers, is found."""

    def __init__(self, details: str, line: str = "") -> None:
        super().__init__(details, line)
        self.details, self.line = details, line


def _their_traceback(error: BaseException) -> str:
    """``error``'s traceback from the bot's ``choose`` down: the frame that called it is ours."""
    tb = error.__traceback__.tb_next if error.__traceback__ is not None else None
    return "".join(traceback.format_exception(type(error), error, tb))


def ask(bot: Bot, view: PlayerView) -> object:
    """The bot's answer to ``view``. A bot that raises is ``BotRaised``, with its own
    traceback (from its ``choose`` down): an author's bug is theirs to read, not ours.
    Ctrl+C as it chooses is ``BotInterrupted``, with where it was."""
    try:
        return bot.choose(view)
    except Exception as error:
        raise BotRaised(raised(error), _their_traceback(error)) from None
    except KeyboardInterrupt as stop:
        raise BotInterrupted(_their_traceback(stop)) from None


def bot_factory(spec: str) -> Callable[[Random], Bot]:
    """What makes a bot author's bot, ``MODULE:NAME``: ``NAME`` of the module ``MODULE``,
    called with a ``random.Random``. Raises ``ValueError`` (one sentence) when there
    is no such module or name, or what it makes is no bot."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"a bot of your own is MODULE:NAME (mybot:GreedyBot), not {spec!r}")
    if module_name.endswith(".py") or "/" in module_name or os.sep in module_name:
        # A file's path is what an author tries first; import would say only "No module
        # named 'bots/mybot'", with nothing of what to write instead.
        file = Path(module_name)
        where = "" if str(file.parent) == "." else f"run from {file.parent} with "
        raise ValueError(
            f"{spec!r}: MODULE is a module's name as Python imports it from the current directory,"
            f" not a file: {where}{file.stem}:{attribute}"
        )
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # as python -m does: the author's module is here
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"cannot import {module_name!r} for the bot {spec!r}: {error}") from None
    except Exception as error:  # a SyntaxError in it, or its own code raising as it loads
        raise ValueError(f"cannot import {module_name!r} for the bot {spec!r}: {raised(error)}") from None
    factory = getattr(module, attribute, None)
    if not callable(factory):
        _shadowed(module_name, module.__file__)
        raise ValueError(f"{module_name!r} has no {attribute!r} to call with a random.Random")
    return factory  # type: ignore[no-any-return]


def _shadowed(module_name: str, imported: str | None) -> None:
    """Raise ``ValueError`` when the author's ``MODULE.py`` here is not what ``MODULE``
    imports: a module already loaded by that name (``rummy.py``, ``random.py``) comes
    first, and "has no 'GreedyBot'" would send them looking in their own file."""
    theirs = Path.cwd() / f"{module_name}.py"
    if theirs.is_file() and (imported is None or Path(imported).resolve() != theirs.resolve()):
        raise ValueError(
            f"{module_name!r} imports {imported or 'a module already loaded'}, not your {theirs.name} here:"
            " give your file another name"
        )


def make_player(name: str, rng: Random, budget: Budget | None = None) -> Bot:
    """One of our bots by name (``make_bot``), or a bot author's ``MODULE:NAME``."""
    if ":" not in name:
        if name not in BOT_NAMES:  # (make_bot's sentence does not know of an author's own bots)
            raise ValueError(
                f"unknown bot {name!r}; known bots: {', '.join(BOT_NAMES)}, or MODULE:NAME for your own"
            )
        return make_bot(name, rng, budget)
    factory = bot_factory(name)
    try:
        bot = factory(rng)
    except TypeError as error:
        # A class written to take no random.Random, say: argparse shows a TypeError
        # from the check of --bots only as "invalid _bots value", and rummy-bot as
        # a traceback, so it is said here in words.
        raise ValueError(f"{name} cannot be made with a random.Random: {raised(error)}") from None
    except Exception as error:  # its constructor's own bug: said as one line, not a traceback
        raise ValueError(f"{name} raised {raised(error)} when made with a random.Random") from None
    if not callable(getattr(bot, "choose", None)):
        raise ValueError(f"{name} made {bot!r}, which has no choose(view) method")
    return bot


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
    moves: tuple[Move, ...] = ()
    seconds: float = 0.0
    # Wall-clock seconds of every decision, per bot name, and the CPU seconds of each.
    decisions: dict[str, list[float]] = field(default_factory=dict)
    decisions_cpu: dict[str, list[float]] = field(default_factory=dict)


def play_game(seed: int, seats: Sequence[str], bot_seed: int, budget: Budget | None = None) -> GameOutcome:
    """One complete game; seats as chosen so that each bot keeps its seat (R2.4).
    ``budget``: how long the searching bots think (their default if None)."""
    start = time.perf_counter()
    game = Game(seed, seating="chosen")
    bots = [make_player(name, Random(derive_seed(bot_seed, seat)), budget) for seat, name in enumerate(seats)]
    decisions: dict[str, list[float]] = {name: [] for name in seats}
    cpu: dict[str, list[float]] = {name: [] for name in seats}
    clock, cpu_clock = time.perf_counter, time.thread_time
    while not game.is_over:
        seat = game.current
        view = view_for(game, seat)
        began, began_cpu = clock(), cpu_clock()
        try:
            move = ask(bots[seat], view)
        except BotRaised as error:
            raise BotMisplayed(
                f"the bot {seats[seat]} ({SEAT_NAMES[seat]}) raised {error.what} {_when(game, seed)}",
                error.details,
            ) from None
        except BotInterrupted as stop:
            stop.line = (
                f"while the bot {seats[seat]} ({SEAT_NAMES[seat]}) had been choosing for"
                f" {clock() - began:.1f} s, {_when(game, seed)}"
            )
            raise
        decisions[seats[seat]].append(clock() - began)
        cpu[seats[seat]].append(cpu_clock() - began_cpu)
        why = _play(game, move)
        if why is not None:
            played = move_shown(move)
            raise BotMisplayed(
                f"the bot {seats[seat]} ({SEAT_NAMES[seat]}) played {played} {_when(game, seed)}: {why}"
            )
    a, b, c, d = seats
    moves = tuple(game.moves)
    seconds = time.perf_counter() - start
    return GameOutcome(
        seed, (a, b, c, d), game.totals(), game.winner(), len(moves), moves, seconds, decisions, cpu
    )


def move_shown(move: object) -> str:
    """A bot's answer as its author should see it: the text form (``discard 7h``) of a
    move the engine can read, else the object itself. A card given as "7h" made the
    text form raise (a traceback out of rummy-sim), and 99 read "discard Jk48"."""
    try:
        check_move(move)
    except IllegalMove:
        return repr(move)
    return move_text(move)  # type: ignore[arg-type]  # (check_move let only moves by)


def _when(game: Game, seed: int) -> str:
    """Where in the run a bot went wrong, to find it again."""
    return f"in deal {game.deal} of the game of seed {seed}, {len(game.moves)} moves in"


def _play(game: Game, move: object) -> str | None:
    """Play a bot's answer; what is wrong with it if the rules refuse it (None: played)."""
    if not isinstance(move, Move):
        return "that is no move (one of rummy.engine's)"
    try:
        game.apply(move)
    except IllegalMove as refusal:
        return refusal.message
    return None


def level_of(bot: str) -> str | None:
    """The level a player would choose to meet ``bot`` ("heuristic": "normal"), if any
    (a random bot, or a bot author's own, has none)."""
    if bot in LEVELS:
        return bot
    return next((level for level, name in LEVELS.items() if name == bot), None)


def save_game(directory: Path, number: int, outcome: GameOutcome, run_seed: int) -> Path:
    """Write game ``number`` of a run as a record file, ``sim-<run seed>-<number>.json``
    (replayed from its moves for each deal's result); returns its path."""
    game = Game.replay(GameRecord(outcome.seed, "chosen", outcome.moves))
    # A bot is named by its kind and seat ("heuristic S"): both partners may be one kind.
    players = [
        RecordPlayer(seat=seat, name=f"{name} {SEAT_NAMES[seat][0]}", bot=True, level=level_of(name))
        for seat, name in enumerate(outcome.seats)
    ]
    record = record_of_game(game, players, table=f"rummy-sim --seed {run_seed}, game {number}")
    path = directory / f"sim-{run_seed}-{number:04d}.json"
    path.write_bytes(encode_record_file(record))
    return path


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
class Samples:
    """Win rates per sample (a duplicate pair, or one game), for the confidence interval."""

    rates: list[float] = field(default_factory=list)
    _wins: int = 0
    _played: int = 0

    def add(self, won: bool) -> None:
        self._wins += won
        self._played += 1

    def close(self) -> None:
        """The sample under way is complete."""
        if self._played:
            self.rates.append(self._wins / self._played)
        self._wins = self._played = 0

    def ci95(self) -> tuple[float, float]:
        """The mean win rate plus or minus 1.96 standard errors, within [0, 1]."""
        n = len(self.rates)
        if n == 0:
            return (0.0, 1.0)
        mean = sum(self.rates) / n
        if n == 1:
            return (0.0, 1.0)
        variance = sum((r - mean) ** 2 for r in self.rates) / (n - 1)
        half = 1.96 * math.sqrt(variance / n)
        return (max(0.0, mean - half), min(1.0, mean + half))


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100) of ``values``, by the nearest rank."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass(slots=True)
class SimResult:
    seed: int
    bots: list[str]
    games: int = 0
    actions: int = 0
    seconds: float = 0.0
    teams: tuple[Tally, Tally] = field(default_factory=lambda: (Tally(), Tally()))
    per_bot: dict[str, Tally] = field(default_factory=dict)
    team_samples: tuple[Samples, Samples] = field(default_factory=lambda: (Samples(), Samples()))
    bot_samples: dict[str, Samples] = field(default_factory=dict)
    decisions: dict[str, list[float]] = field(default_factory=dict)
    decisions_cpu: dict[str, list[float]] = field(default_factory=dict)

    def add(self, outcome: GameOutcome) -> None:
        self.games += 1
        self.actions += outcome.actions
        t0, t1 = outcome.totals
        self.teams[0].add(t0, t1)
        self.teams[1].add(t1, t0)
        self.team_samples[0].add(t0 > t1)
        self.team_samples[1].add(t1 > t0)
        # A bot counts once per team it plays on: a team of two different bots
        # counts for both, and a bot on both teams counts twice (a win and a loss).
        for team, (own, other) in enumerate(((t0, t1), (t1, t0))):
            for name in sorted({outcome.seats[seat] for seat in team_seats(team)}):
                self.per_bot.setdefault(name, Tally()).add(own, other)
                self.bot_samples.setdefault(name, Samples()).add(own > other)
        for name, times in outcome.decisions.items():
            self.decisions.setdefault(name, []).extend(times)
        for name, times in outcome.decisions_cpu.items():
            self.decisions_cpu.setdefault(name, []).extend(times)

    def close_sample(self) -> None:
        """The games added since the last call are one sample (a duplicate pair)."""
        for samples in (*self.team_samples, *self.bot_samples.values()):
            samples.close()

    def decision_ms(self, name: str, cpu: bool = False) -> dict[str, float | int]:
        times = (self.decisions_cpu if cpu else self.decisions).get(name, [])
        return {
            "decisions": len(times),
            "p50": round(1000 * percentile(times, 50), 2),
            "p99": round(1000 * percentile(times, 99), 2),
            "max": round(1000 * max(times, default=0.0), 2),
        }

    def as_dict(self) -> dict[str, Any]:
        seconds = self.seconds or 1e-9
        teams = []
        for tally, samples in zip(self.teams, self.team_samples, strict=True):
            teams.append({**tally.as_dict(), "win_rate_ci95": [round(x, 4) for x in samples.ci95()]})
        results = {}
        for name in sorted(self.per_bot):
            results[name] = {
                **self.per_bot[name].as_dict(),
                "win_rate_ci95": [round(x, 4) for x in self.bot_samples[name].ci95()],
                "decision_ms": self.decision_ms(name),
                "decision_cpu_ms": self.decision_ms(name, cpu=True),
            }
        return {
            "games": self.games,
            "actions": self.actions,
            "seconds": round(self.seconds, 4),
            "games_per_second": round(self.games / seconds, 2),
            "actions_per_second": round(self.actions / seconds, 1),
            "seed": self.seed,
            "bots": self.bots,
            "teams": teams,
            "results": results,
        }


def _game_plan(seed: int, names: Sequence[str], i: int) -> tuple[int, tuple[str, str, str, str], int]:
    """Game ``i`` of a run: its deal seed, its seats, its bots' seed."""
    even, odd = lineups(names)
    duplicate = even != odd  # both line-ups play each deal
    game_seed = derive_seed(seed, "game", i // 2 if duplicate else i)
    return game_seed, even if i % 2 == 0 else odd, derive_seed(seed, "bots", i)


def _play_games(
    seed: int, names: Sequence[str], first: int, count: int, budget: Budget | None
) -> list[GameOutcome]:
    """Games ``first`` .. ``first + count - 1`` of a run (a worker's share)."""
    return [play_game(*_game_plan(seed, names, i), budget) for i in range(first, first + count)]


def _outcomes(
    games: int, seed: int, names: Sequence[str], jobs: int, budget: Budget | None
) -> Iterator[list[GameOutcome]]:
    """The games' outcomes in order, in batches (of whole duplicate pairs)."""
    if jobs <= 1:
        for i in range(games):
            yield _play_games(seed, names, i, 1, budget)
        return
    # Small batches of whole pairs keep every process busy to the end; and a batch is
    # counted only once whole and in order, so a large one (624 games of 20,000 on 2
    # jobs) left nothing to show when ctrl+c stopped the run.
    batch = min(BATCH_MOST, max(2, 2 * (games // (jobs * 32))))
    starts = list(range(0, games, batch))
    counts = [min(batch, games - start) for start in starts]
    context = multiprocessing.get_context("spawn")  # no fork of a process with threads (the progress bar)
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        n = len(starts)
        yield from pool.map(_play_games, [seed] * n, [names] * n, starts, counts, [budget] * n)


def simulate(
    games: int,
    seed: int,
    names: Sequence[str],
    progress: Callable[[int], None] | None = None,
    jobs: int = 1,
    budget: Budget | None = None,
    save: Path | None = None,
    into: SimResult | None = None,
) -> SimResult:
    """Play ``games`` games on ``jobs`` processes (the same results on any number);
    ``progress(done)`` is called as games finish. With ``save``, each game is written
    there as a record file. ``into``: the result to fill as games finish, so that a
    caller stopped by ctrl+c still has the games played until then."""
    even, odd = lineups(names)
    pairs = even != odd
    result = into if into is not None else SimResult(seed, list(names))
    start = time.perf_counter()
    try:
        for batch in _outcomes(games, seed, names, jobs, budget):
            for outcome in batch:
                result.add(outcome)
                if save is not None:
                    save_game(save, result.games, outcome, seed)
                if not pairs or result.games % 2 == 0:
                    result.close_sample()
            if progress is not None:
                progress(result.games)
    finally:  # (stopped too: the games finished are a result of their own)
        result.close_sample()
        result.seconds = time.perf_counter() - start
    return result


def report(result: SimResult) -> str:
    """The human-readable summary."""
    w = max(14, *(len(name) + 1 for name in result.per_bot))  # a bot of one's own may be long
    lines = [
        f"{result.games} games, seed {result.seed}, bots {','.join(result.bots)}",
        f"{'':<{w}}{'played':>8}{'wins':>8}{'ties':>7}{'losses':>8}{'win %':>8}"
        f"{'95% CI':>15}{'mean score':>12}",
    ]

    def row(label: str, t: Tally, samples: Samples) -> str:
        d = t.as_dict()
        lo, hi = samples.ci95()
        ci = f"{100 * lo:.1f}-{100 * hi:.1f}%"
        return (
            f"{label:<{w}}{d['played']:>8}{d['wins']:>8}{d['ties']:>7}{d['losses']:>8}"
            f"{100 * d['win_rate']:>7.1f}%{ci:>15}{d['mean_score']:>12.1f}"
        )

    lines.append(row("team 0 (S+N)", result.teams[0], result.team_samples[0]))
    lines.append(row("team 1 (W+E)", result.teams[1], result.team_samples[1]))
    for name in sorted(result.per_bot):
        lines.append(row(name, result.per_bot[name], result.bot_samples[name]))
    for name in sorted(result.per_bot):
        ms, cpu = result.decision_ms(name), result.decision_ms(name, cpu=True)
        lines.append(
            f"{name:<{w}}{ms['decisions']:>8} decisions: median {ms['p50']:.2f} ms, "
            f"p99 {ms['p99']:.2f} ms, longest {ms['max']:.2f} ms"
            f" (CPU: median {cpu['p50']:.2f} ms, p99 {cpu['p99']:.2f} ms)"
        )
    d = result.as_dict()
    lines.append(
        f"{result.actions} moves in {result.seconds:.2f} s: "
        f"{d['games_per_second']:.1f} games/s, {d['actions_per_second']:.0f} moves/s"
    )
    return "\n".join(lines)


def _bots(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",")]
    if len(names) not in (1, 2, 4):
        raise argparse.ArgumentTypeError(f"give 1, 2 or 4 bot names separated by commas, not {len(names)}")
    for name in names:
        if ":" in name:  # a bot of the author's own: made once now, so a mistake shows at once
            try:
                make_player(name, Random(0))
            except ValueError as error:
                raise argparse.ArgumentTypeError(str(error)) from None
        elif name not in BOT_NAMES:
            raise argparse.ArgumentTypeError(
                f"unknown bot {name!r}; known bots: {', '.join(BOT_NAMES)}, or MODULE:NAME for your own"
            )
    return names


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rummy-sim",
        description="Play Persian Rummy games between bots, headless, and report the results.",
    )
    parser.add_argument("--games", type=at_least_one, default=100, help="number of games (default 100)")
    parser.add_argument(
        "--seed",
        type=not_negative,
        default=None,
        help="seed of the whole run (default: a random one, printed)",
    )
    parser.add_argument(
        "--bots",
        type=_bots,
        default=["heuristic", "random"],
        metavar="NAME[,NAME[,NAME,NAME]]",
        help=f"1 name: all seats; 2: team 0 and team 1; 4: one per seat. Known: {', '.join(BOT_NAMES)};"
        " or MODULE:NAME, a bot of your own (NAME called with a random.Random)",
    )
    parser.add_argument(
        "--jobs", type=at_least_one, default=1, help="play on this many processes (same results; default 1)"
    )
    parser.add_argument(
        "--iterations",
        type=at_least_one,
        default=None,
        help="search iterations per decision of the expert bot (default: its own budget)",
    )
    parser.add_argument("--json", action="store_true", help="end with one line of JSON with the results")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar even on a terminal")
    parser.add_argument(
        "--save",
        type=Path,
        metavar="DIR",
        help="write every game to DIR as a record file, to watch with rummy-client --replay FILE",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    seed: int = secrets.randbits(32) if args.seed is None else args.seed
    games: int = args.games
    names: list[str] = args.bots
    budget = None if args.iterations is None else Budget(args.iterations)
    save: Path | None = args.save
    result = SimResult(seed, list(names))  # filled as games finish: ctrl+c shows what was played
    if save is not None:
        try:
            save.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            build_parser().error(f"cannot make the directory {save}: {error.strerror or error}")
    try:
        if sys.stderr.isatty() and not args.no_progress:
            from rich.console import Console
            from rich.progress import Progress  # only on a terminal: the bar is for people

            with Progress(console=Console(stderr=True), transient=True) as bar:
                task = bar.add_task("playing", total=games)
                simulate(
                    games,
                    seed,
                    names,
                    lambda done: bar.update(task, completed=done),
                    args.jobs,
                    budget,
                    save,
                    into=result,
                )
        else:
            simulate(games, seed, names, jobs=args.jobs, budget=budget, save=save, into=result)
    except BotMisplayed as error:
        print(error.details, end="", file=sys.stderr)  # the bot's traceback, when it raised
        print(f"rummy-sim: {error} (--seed {seed} plays the same games again)", file=sys.stderr)
        return 1
    except KeyboardInterrupt as stop:  # ctrl+c: no traceback through the run, only the bot's
        # What an author needs to go on: the games finished so far and their results (on
        # one process or on --jobs N alike: under --jobs it said only "stopped"), and
        # the seed that plays them again.
        where = ""
        if isinstance(stop, BotInterrupted) and stop.line:
            print(stop.details, end="", file=sys.stderr)
            where = f"{stop.line}, "
        done = result.games
        if done:
            print(report(result))
            if args.json:
                print(json.dumps(result.as_dict(), sort_keys=True))
        those = f"; the results above are of those {done}" if done else ""
        again = f"--seed {seed} plays the same games again"
        again += f", --games {done} these {done}" if done else ""
        finished = f"with {done} of {games} games finished{those}"
        print(f"rummy-sim: stopped {where}{finished} ({again})", file=sys.stderr)
        return 130
    print(report(result))
    if save is not None:
        print(f"{games} game records written to {save}/ (watch one: rummy-client --replay FILE)")
    if args.json:
        print(json.dumps(result.as_dict(), sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
