"""rummy-sim: bots against bots, headless; the same seed plays the same games."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rummy.engine.bots import BOT_NAMES
from rummy.sim import lineups, main

TIMING = {"seconds", "games_per_second", "actions_per_second"}


def games_of(d: dict[str, Any]) -> dict[str, Any]:
    """A run's results without its timings (wall-clock, so never the same twice)."""
    out = {k: v for k, v in d.items() if k not in TIMING and k != "seed"}
    out["results"] = {
        name: {k: v for k, v in r.items() if k not in ("decision_ms", "decision_cpu_ms")}
        for name, r in d["results"].items()
    }
    return out


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[str, dict[str, Any]]:
    assert main([*args, "--json"]) == 0
    out = capsys.readouterr().out
    last = out.strip().splitlines()[-1]
    return out, json.loads(last)


def test_json_last_line_has_the_results(capsys: pytest.CaptureFixture[str]) -> None:
    out, data = run_json(capsys, "--games", "6", "--seed", "11", "--bots", "heuristic,random")
    assert data["games"] == 6
    assert data["seed"] == 11
    assert data["bots"] == ["heuristic", "random"]
    assert data["actions"] > 6 * 20  # whole games of two deals
    assert data["seconds"] > 0
    assert data["actions_per_second"] > 0 and data["games_per_second"] > 0
    results = data["results"]
    assert set(results) == {"heuristic", "random"}
    for name, r in results.items():
        assert r["played"] == 6, name
        assert r["wins"] + r["ties"] + r["losses"] == 6
    # Two bots, one per team: one's wins are the other's losses.
    assert results["heuristic"]["wins"] == results["random"]["losses"]
    assert results["heuristic"]["ties"] == results["random"]["ties"]
    teams = data["teams"]
    assert len(teams) == 2 and teams[0]["wins"] == teams[1]["losses"]
    # The human summary comes first, per team and per bot, with the throughput.
    assert "team 0" in out and "team 1" in out and "heuristic" in out and "moves/s" in out


def test_same_seed_same_games(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--games", "4", "--seed", "3", "--bots", "heuristic,random")
    _, first = run_json(capsys, *args)
    _, second = run_json(capsys, *args)
    _, other = run_json(capsys, "--games", "4", "--seed", "4", "--bots", "heuristic,random")
    assert games_of(first) == games_of(second)
    assert games_of(first) != games_of(other)


def test_jobs_play_the_same_games_as_one_process(capsys: pytest.CaptureFixture[str]) -> None:
    """--jobs N shares the games among N processes: the results are those of one."""
    args = ("--games", "10", "--seed", "21", "--bots", "heuristic,random")
    _, one = run_json(capsys, *args)
    _, two = run_json(capsys, *args, "--jobs", "2")
    assert two["games"] == 10
    assert games_of(one) == games_of(two)


def test_win_rates_come_with_a_95_percent_interval(capsys: pytest.CaptureFixture[str]) -> None:
    """Each team's and each bot's win rate has its 95% confidence interval around it,
    from the duplicate pairs; the summary shows it."""
    out, data = run_json(capsys, "--games", "12", "--seed", "5", "--bots", "heuristic,random")
    for entry in [*data["teams"], *data["results"].values()]:
        lo, hi = entry["win_rate_ci95"]
        assert 0.0 <= lo <= entry["win_rate"] <= hi <= 1.0
    heuristic = data["results"]["heuristic"]
    random_bot = data["results"]["random"]
    # One bot's wins are the other's losses, so the intervals mirror each other.
    assert heuristic["win_rate_ci95"][0] == pytest.approx(1 - random_bot["win_rate_ci95"][1], abs=1e-3)
    assert "95% CI" in out


def test_decision_times_per_bot(capsys: pytest.CaptureFixture[str]) -> None:
    """--json gives each bot's decision time in milliseconds: median and 99th percentile."""
    out, data = run_json(
        capsys, "--games", "2", "--seed", "8", "--bots", "expert,heuristic", "--iterations", "3"
    )
    for name in ("expert", "heuristic"):
        for kind in ("decision_ms", "decision_cpu_ms"):
            ms = data["results"][name][kind]
            assert ms["decisions"] > 20
            assert 0 <= ms["p50"] <= ms["p99"] <= ms["max"]
    assert "decisions: median" in out


def test_lineups_swap_the_teams_every_other_game() -> None:
    """Two names: team 0 and team 1, then swapped; four names: one per seat, then
    every bot one seat to the left (so on the other team)."""
    assert lineups(["a", "b"]) == (("a", "b", "a", "b"), ("b", "a", "b", "a"))
    even, odd = lineups(["a", "b", "c", "d"])
    assert even == ("a", "b", "c", "d") and odd == ("d", "a", "b", "c")
    assert lineups(["a"]) == (("a",) * 4, ("a",) * 4)


def test_results_are_per_bot_not_per_seat(capsys: pytest.CaptureFixture[str]) -> None:
    _, one = run_json(capsys, "--games", "3", "--seed", "1", "--bots", "random")
    assert one["results"]["random"]["played"] == 6  # on both teams in every game
    _, four = run_json(capsys, "--games", "4", "--seed", "1", "--bots", "heuristic,random,random,random")
    assert four["results"]["heuristic"]["played"] == 4
    assert four["results"]["random"]["played"] == 8  # on its own team and as a partner


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--bots", "clever"], "known bots: " + ", ".join(BOT_NAMES)),
        (["--bots", "random,random,random"], "1, 2 or 4"),
        (["--bots", ""], "unknown bot"),
        (["--games", "0"], "at least 1"),
        (["--games", "many"], "not a whole number"),
        (["--seed", "-1"], "negative"),
        (["--seed", "x"], "not a whole number"),
        (["--jobs", "0"], "at least 1"),
        (["--iterations", "0"], "at least 1"),
        (["--frobnicate"], "unrecognized arguments"),
    ],
)
def test_bad_arguments_give_a_clear_error_and_exit_code_2(
    capsys: pytest.CaptureFixture[str], args: list[str], needle: str
) -> None:
    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert needle in captured.err
    assert captured.out == ""


def _console_script() -> str:
    script = Path(sys.executable).parent / "rummy-sim"
    if not script.exists():
        pytest.skip("the rummy-sim console script is not installed next to this Python")
    return str(script)


def test_console_script() -> None:
    script = _console_script()
    bad = subprocess.run([script, "--bots", "nobody"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert "unknown bot 'nobody'" in bad.stderr and "random" in bad.stderr
    good = subprocess.run(
        [script, "--games", "2", "--seed", "9", "--bots", "heuristic", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert good.returncode == 0, good.stderr
    data = json.loads(good.stdout.strip().splitlines()[-1])
    assert data["games"] == 2 and data["results"]["heuristic"]["played"] == 4
    assert good.stderr == ""  # no progress bar when stderr is not a terminal


def test_save_writes_every_game_as_a_record_that_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--save DIR: one record file per game (docs/RECORDS.md), each replaying to the
    totals the run reported; the same seed writes the very same files."""
    from rummy.protocol.record import decode_record, replay_record

    out = tmp_path / "games"
    _, data = run_json(
        capsys, "--games", "3", "--seed", "9", "--bots", "heuristic,random", "--save", str(out)
    )
    files = sorted(out.glob("*.json"))
    assert [f.name for f in files] == ["sim-9-0001.json", "sim-9-0002.json", "sim-9-0003.json"]
    totals = 0
    for f in files:
        record = decode_record(f.read_bytes())
        kinds = ["heuristic", "random"] * 2 if f.name != "sim-9-0002.json" else ["random", "heuristic"] * 2
        assert [p.name for p in record.players] == [f"{k} {s}" for k, s in zip(kinds, "SWNE", strict=True)]
        assert all(p.bot for p in record.players) and record.seating == "chosen"
        # The level a player would choose to meet each (a random bot has none).
        assert [p.level for p in record.players] == [{"heuristic": "normal"}.get(k) for k in kinds]
        game = replay_record(record)
        assert record.result is not None and game.totals() == record.result.totals
        totals += sum(game.totals())
    teams = data["teams"]
    assert totals == round(3 * (teams[0]["mean_score"] + teams[1]["mean_score"]))
    again = tmp_path / "again"
    assert main(["--games", "3", "--seed", "9", "--bots", "heuristic,random", "--save", str(again)]) == 0
    assert [f.read_bytes() for f in sorted(again.glob("*.json"))] == [f.read_bytes() for f in files]


GREEDY = """
import random

from rummy.engine import Discard, LayOff, Move, NewMeld, PlayerView, TakeDiscard, points


class GreedyBot:  # docs/ENGINE.md's example bot
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: PlayerView) -> Move:
        moves = view.legal_moves()
        for kind in (NewMeld, LayOff, TakeDiscard):
            useful = [m for m in moves if isinstance(m, kind)]
            if useful:
                return self.rng.choice(useful)
        discards = [m for m in moves if isinstance(m, Discard)]
        if discards:
            return max(discards, key=lambda m: points(m.card))
        return moves[0]


class Cheat(GreedyBot):  # throws away a card it may not hold
    def choose(self, view: PlayerView) -> Move:
        move = super().choose(view)
        if isinstance(move, Discard):
            return Discard(next(c for c in range(52) if c not in (view.hand or ())))
        return move


class Mute(GreedyBot):
    def choose(self, view: PlayerView) -> Move:
        return None  # type: ignore[return-value]


def not_a_bot(rng: random.Random) -> int:
    return 3


class Aloof(GreedyBot):  # made with nothing: not as rummy-sim makes a bot
    def __init__(self) -> None:
        super().__init__(random.Random(0))


class Clumsy(GreedyBot):  # a bug of its own at its first meld phase
    def choose(self, view: PlayerView) -> Move:
        if view.phase == "meld":
            return self.tally[view.seat]  # type: ignore[attr-defined]
        return super().choose(view)


class Fragile(GreedyBot):  # a bug of its own as it is made
    def __init__(self, rng: random.Random) -> None:
        raise KeyError("weights")


class Brittle(GreedyBot):  # a bare assert as it is made
    def __init__(self, rng: random.Random) -> None:
        assert rng is None


class Stuck(GreedyBot):  # thinks until its author presses ctrl+c (here, at its second meld phase)
    def choose(self, view: PlayerView) -> Move:
        if view.phase == "meld" and len(view.hand or ()) < 8:
            raise KeyboardInterrupt
        return super().choose(view)


class Patient(GreedyBot):  # its author presses ctrl+c as it thinks in the tenth game of its process
    made = 0

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        Patient.made += 1  # (two a game: it plays one team's two seats)
        self.last = Patient.made > 18

    def choose(self, view: PlayerView) -> Move:
        if self.last:
            raise KeyboardInterrupt
        return super().choose(view)


class Wordy(GreedyBot):  # discards a card by its text
    def choose(self, view: PlayerView) -> Move:
        move = super().choose(view)
        return Discard("7h") if isinstance(move, Discard) else move  # type: ignore[arg-type]


class Sloppy(GreedyBot):  # its meld's cards in a list, not the tuple the engine's moves have
    def choose(self, view: PlayerView) -> Move:
        if view.phase == "meld":
            return NewMeld(list(view.hand or ())[:3])  # type: ignore[arg-type]
        return super().choose(view)
"""


def test_a_bot_authors_own_bot_plays_as_module_and_name(tmp_path: Path) -> None:
    """A bot author benchmarks their bot against ours: ``--bots mybot:GreedyBot,hard``
    imports ``GreedyBot`` from ``mybot.py`` in the current directory and calls it with
    a random.Random, on one process or on several (each imports it too)."""
    (tmp_path / "greedy_bot.py").write_text(GREEDY, encoding="utf-8")
    args = ["--games", "4", "--seed", "5", "--bots", "greedy_bot:GreedyBot,heuristic", "--json"]
    run = subprocess.run(
        [_console_script(), *args, "--jobs", "2"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout.strip().splitlines()[-1])
    assert data["games"] == 4 and set(data["results"]) == {"greedy_bot:GreedyBot", "heuristic"}
    assert data["results"]["greedy_bot:GreedyBot"]["played"] == 4
    assert data["results"]["greedy_bot:GreedyBot"]["decision_ms"]["decisions"] > 0
    table = run.stdout.splitlines()[1:6]  # the heading, both teams, both bots
    assert table[3].startswith("greedy_bot:GreedyBot ")
    assert len({len(line) for line in table}) == 1  # columns aligned, however long the name


@pytest.mark.parametrize(
    ("bot", "said"),
    [
        ("Cheat", "played discard 2c in deal 1 of the game of seed "),
        ("Mute", "played None in deal 1 of the game of seed "),
        # Shown as it is: the text form of it raised (a traceback out of rummy-sim).
        ("Wordy", "played Discard(card='7h') in deal 1 of the game of seed "),
    ],
)
def test_a_move_the_rules_refuse_stops_the_run_with_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], bot: str, said: str
) -> None:
    """Not a traceback out of the engine: which bot, in which seat, what it played,
    why the rules refuse it, and how to play the same games again; exit status 1."""
    (tmp_path / "my_bots.py").write_text(GREEDY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the run adds the current directory
    assert main(["--games", "2", "--seed", "8", "--bots", f"my_bots:{bot},random"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("rummy-sim: ") and said in err and err.count("\n") == 1
    assert err.rstrip().endswith("(--seed 8 plays the same games again)")
    assert f"the bot my_bots:{bot} (" in err  # its seat's name in the parentheses
    if bot == "Cheat":
        assert "4 moves in: You do not hold the 2♣." in err  # the rules' own reason


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_bot_that_raises_stops_the_run_with_its_traceback_and_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], jobs: str
) -> None:
    """An author's bug in ``choose``: the bot's own traceback (from its ``choose``
    down, none of ours), then one line naming the bot, its seat, the error and its
    line, and the seed; exit status 1. It was a traceback through rummy-sim alone (and
    under --jobs, through the process pool's), with nothing to find the game again."""
    (tmp_path / "my_bots.py").write_text(GREEDY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    assert main(["--games", "2", "--seed", "8", "--bots", "my_bots:Clumsy,random", "--jobs", jobs]) == 1
    err = capsys.readouterr().err
    *traceback, line = err.strip().splitlines()
    assert traceback[0] == "Traceback (most recent call last):"
    assert "my_bots.py" in traceback[1] and "in choose" in traceback[1]
    assert traceback[-1] == "AttributeError: 'Clumsy' object has no attribute 'tally'"
    assert "sim.py" not in err
    assert line.startswith("rummy-sim: the bot my_bots:Clumsy (")
    assert ") raised AttributeError: 'Clumsy' object has no attribute 'tally' (my_bots.py, line " in line
    assert ", in choose) in deal 1 of the game of seed " in line
    assert line.endswith("(--seed 8 plays the same games again)")


def test_ctrl_c_as_a_bot_thinks_says_which_bot_and_where_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bot slow to answer, or that never does: its author stops the run. It was a
    traceback through rummy-sim; now the bot's own (where it was), then one line:
    which bot, for how long, which game; exit status 130."""
    (tmp_path / "my_bots.py").write_text(GREEDY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    assert main(["--games", "2", "--seed", "8", "--bots", "my_bots:Stuck,random"]) == 130
    err = capsys.readouterr().err
    *traceback, line = err.strip().splitlines()
    assert traceback[0] == "Traceback (most recent call last):" and "sim.py" not in err
    assert "my_bots.py" in traceback[1] and traceback[-1] == "KeyboardInterrupt"
    assert line.startswith("rummy-sim: stopped while the bot my_bots:Stuck (")
    assert re.search(r"\) had been choosing for \d+\.\d s, in deal 1 of the game of seed \d+, ", line)
    assert line.endswith("(--seed 8 plays the same games again)")


def test_ctrl_c_under_jobs_says_the_games_finished_their_results_and_the_seed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A long ``--jobs 2`` run stopped by its author: it said only "stopped", and the
    hour's games were lost. Now the results of the games finished, then one line: which
    bot was thinking, how many of the games asked for were finished, and the seed."""
    (tmp_path / "my_bots.py").write_text(GREEDY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    assert main(["--games", "40", "--seed", "8", "--bots", "my_bots:Patient,random", "--jobs", "2"]) == 130
    out, err = capsys.readouterr()
    line = err.strip().splitlines()[-1]
    said = re.fullmatch(
        r"rummy-sim: stopped while the bot my_bots:Patient \(\w+\) had been choosing for \d+\.\d s,"
        r" in deal 1 of the game of seed \d+, \d+ moves in, with (\d+) of 40 games finished;"
        r" the results above are of those \1 \(--seed 8 plays the same games again, --games \1 these \1\)",
        line,
    )
    assert said is not None, line
    done = int(said[1])
    assert 0 < done < 40  # (another process had finished the first games long before)
    assert out.startswith(f"{done} games, seed 8, bots my_bots:Patient,random\n")
    for bot in ("my_bots:Patient", "random"):
        (row,) = [r for r in out.splitlines() if r.startswith(f"{bot} ") and "decisions" not in r]
        assert row.split()[1] == str(done)  # played


def test_cards_in_a_list_are_refused_as_the_engine_refuses_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "my_bots.py").write_text(GREEDY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    assert main(["--games", "2", "--seed", "8", "--bots", "my_bots:Sloppy,random"]) == 1
    assert "The cards must be a tuple, not a list." in capsys.readouterr().err


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        # These three were tracebacks out of the import or of the bot's constructor.
        ("broken_bots:Bot", "cannot import 'broken_bots' for the bot 'broken_bots:Bot': SyntaxError: "),
        (
            "loud_bots:Bot",
            "cannot import 'loud_bots' for the bot 'loud_bots:Bot': "
            "RuntimeError: no weights file (loud_bots.py, line 2, in <module>)",
        ),
        ("spec_bots:Fragile", "spec_bots:Fragile raised KeyError: 'weights' (spec_bots.py, line "),
        # A bare assert: its type alone, not "AssertionError: ".
        ("spec_bots:Brittle", "spec_bots:Brittle raised AssertionError (spec_bots.py, line "),
        # A file's path for MODULE: it said only "No module named 'bots/spec_bots'".
        ("spec_bots.py:GreedyBot", "not a file: spec_bots:GreedyBot"),
        ("bots/spec_bots.py:GreedyBot", "not a file: run from bots with spec_bots:GreedyBot"),
        # A bot in rummy.py: it said "'rummy' has no 'GreedyBot'", of our package.
        ("rummy:GreedyBot", "not your rummy.py here: give your file another name"),
        ("no_such_module_here:Bot", "cannot import 'no_such_module_here' for the bot"),
        ("spec_bots:Nobody", "'spec_bots' has no 'Nobody' to call with a random.Random"),
        ("spec_bots:not_a_bot", "spec_bots:not_a_bot made 3, which has no choose(view) method"),
        ("spec_bots:", "a bot of your own is MODULE:NAME"),
        # It said only "invalid _bots value: 'spec_bots:Aloof,random'".
        ("spec_bots:Aloof", "spec_bots:Aloof cannot be made with a random.Random: "),
    ],
)
def test_a_bot_of_ones_own_that_cannot_be_made_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], spec: str, said: str
) -> None:
    (tmp_path / "spec_bots.py").write_text(GREEDY, encoding="utf-8")
    (tmp_path / "broken_bots.py").write_text("class Bot\n    pass\n", encoding="utf-8")
    (tmp_path / "rummy.py").write_text(GREEDY, encoding="utf-8")
    loud = "import os\nraise RuntimeError('no weights file')\n"
    (tmp_path / "loud_bots.py").write_text(loud, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "spec_bots", raising=False)  # this test's own, not an earlier one's
    with pytest.raises(SystemExit) as info:
        main(["--bots", f"{spec},random"])
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert said in captured.err and captured.out == ""
