"""The load generator (bench/load.py) runs end to end: a real ``rummy-server`` process,
eight real TCP clients, two whole games. Only that it works and what it prints are
checked; its timings are figures for people, never asserted here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

LOAD = Path(__file__).resolve().parents[2] / "bench" / "load.py"
ATTACK = LOAD.with_name("attack.py")
PARTS = LOAD.with_name("parts.py")
ECHO = LOAD.with_name("echo.py")


def run_bench(script: Path, *args: str, says: tuple[str, ...] = (), timeout: float = 90) -> tuple[str, Any]:
    """Run a bench with ``--json``: what it printed (each of ``says`` in it) and its
    figures (the last line)."""
    done = subprocess.run(
        [sys.executable, str(script), *args, "--json"], capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for label in says:
        assert label in done.stdout, f"{label!r} missing from:\n{done.stdout}"
    return done.stdout, json.loads(done.stdout.strip().splitlines()[-1])


def test_load_generator_plays_two_tables_to_the_end_and_prints_its_figures() -> None:
    labels: tuple[str, ...] = ("tables held at once: 2", "connections: 8", "games finished: 2/2")
    labels += (
        "moves/s",
        "p50",
        "p90",
        "p99",
        "max",
        "peak RSS (VmHWM)",
        "CPU",
        "every table played its games",
    )
    _, figures = run_bench(LOAD, "--tables", "2", "--games-per-table", "1", "--duration", "60", says=labels)
    assert figures["games_finished"] == figures["games_wanted"] == 2
    assert figures["connections"] == 8 and figures["lost_connections"] == 0
    assert figures["refused"] == {}  # the bots play only legal moves, the server takes them all
    # Two whole games of Persian Rummy (two deals each): every move was answered and timed.
    assert figures["moves"] >= 2 * 2 * 4
    assert figures["latency_ms"]["n"] == figures["moves"]
    assert figures["latency_ms"]["p50"] <= figures["latency_ms"]["p99"] <= figures["latency_ms"]["max"]
    assert figures["server"]["peak_rss_mib"] > 0 and figures["load_generator"]["peak_rss_mib"] > 0


def test_load_generator_with_a_table_of_hard_bots_reports_it_apart() -> None:
    """--expert-tables: a table of one client and three of the server's hard bots plays
    beside the others; its figures come apart from theirs."""
    _, figures = run_bench(
        LOAD,
        *("--tables", "1", "--expert-tables", "1", "--think", "0.01", "--duration", "60"),
        says=("expert tables: 1 (one client, three hard bots",),
    )
    assert figures["games_finished"] == figures["games_wanted"] == 1  # the other table's game
    assert figures["refused"] == {}
    experts = figures["expert_tables"]
    assert experts["tables"] == 1 and experts["hard_bot_moves"] >= 0


def test_attack_mode_runs_floods_beside_honest_tables_and_prints_its_figures() -> None:
    """bench/attack.py end to end, small: honest tables play while two floods run from
    one address; what the attacker got shows the quota held. No timing is asserted."""
    _, figures = run_bench(
        ATTACK,
        *("--tables", "2", "--lobby-tables", "3", "--phase", "1.5", "--gap", "0.5"),
        *("--connections", "6", "--attacks", "hog,malformed"),
        says=("baseline:", "hog:", "malformed:", "p50", "p99", "worst p99 under attack"),
        timeout=120,
    )
    phases = {p["phase"]: p for p in figures["phases"]}
    assert {"baseline", "hog", "malformed"} <= set(phases)
    hog = phases["hog"]["attack"]["kinds"]["hog"]
    assert hog["answers"].get("seated", 0) <= 16  # the address's table quota
    assert all(p["honest_lost"] == 0 for p in figures["phases"])


def test_the_parts_bench_plays_the_rules_and_stores_every_move_it_played() -> None:
    """bench/parts.py: the masters play moves with no socket, then the storage writes the
    moves they stored (it stops with an error if one write failed); only what it prints
    is checked."""
    _, figures = run_bench(
        PARTS,
        *("--tables", "3", "--seconds", "0.3", "--pace", "20"),
        says=("rules: 3 tables", "ms of CPU a move", "storage:", "writer thread", "commits", "both:"),
    )
    assert figures["rules"]["moves"] > 0 and figures["rules"]["ms_per_move"] > 0
    stored = figures["storage"]
    assert stored["moves"] == min(figures["rules"]["moves"], int(3 * 20 * 0.3))
    assert 1 <= stored["commits"] <= stored["moves"]


def test_the_echo_bench_takes_pairs_in_turn_beside_our_server_and_prints_the_median_ratio() -> None:
    """bench/echo.py --beside-load --pairs 2: our server and the echo server each play
    twice, in turn, at the same tables and pace; each pair's ratio is printed, then
    their median (the figure the goal is judged by)."""
    out, figures = run_bench(
        ECHO,
        # Enough moves that the echo server's CPU is many of the kernel's 10 ms ticks (at 2
        # tables, 0.02 s apart, it is about one, and some runs measured none).
        *("--tables", "8", "--think", "0.005", "--duration", "2", "--beside-load", "--pairs", "2"),
        says=("pair 1 of 2:", "pair 2 of 2:", "rummy-server:", "echo server: 8 tables", "over 2 pairs:"),
        timeout=120,
    )
    runs = figures["runs"]
    assert len(runs) == 2
    for run in runs:
        ours, echo = run["rummy_server"], run["echo"]
        assert ours["moves"] > 0 and echo["moves"] > 0  # both were played, not skipped
        assert run["ratio"] == round(ours["cpu_ms_per_move"] / echo["cpu_ms_per_move"], 2)
    ratios = sorted(run["ratio"] for run in runs)
    assert figures["ratio"] == sum(ratios) / 2  # the median of two
    assert figures["ratio_range"] == ratios
    assert out.count("x the echo server's (goal: at most 2x)") == 2
