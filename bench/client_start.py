"""How long ``rummy-client`` takes from its start to the first drawn table, and how
much CPU it uses while it waits.

    python bench/client_start.py [--runs N] [--idle SECONDS] [--size 80x24]

Each run starts ``rummy-client`` (the game against bots: no address) in a fresh
pseudo-terminal of the given size with a fresh state directory, and reads what
it draws until the table is there: its top line, "Deal 1 of 2", drawn in the
same frame as the rest of the table. The time from ``exec`` to that moment is one figure; the median and
the spread of the runs are printed. With ``--idle``, the last run is then left
alone (the bots play, then wait for the player) and its CPU time over that many
seconds is printed, with that of the processes it started (the local game's
server): an idle client should use next to nothing.

Figures are printed, never asserted. On a shared machine compare before and after
in one sitting.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import pty
import re
import select
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path

ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\x1b\][^\x07]*\x07")
CLIENT = Path(sys.executable).parent / "rummy-client"


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of ``pid`` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def children(pid: int) -> list[int]:
    """The processes ``pid`` started (the local game's server, forked by the client)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def family_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and of the processes it started."""
    total = cpu_seconds(pid)
    for child in children(pid):
        with contextlib.suppress(OSError):
            total += cpu_seconds(child)
    return total


def one_run(
    command: list[str], width: int, height: int, idle: float, bytecode: str | None, timeout: float = 30.0
) -> tuple[float, float, float | None]:
    """(seconds to the first drawn table, the client's CPU seconds until then, CPU seconds
    over ``idle`` seconds or None).
    ``bytecode``: a directory where Python keeps compiled modules between runs (as an
    installed package has them); None compiles every module at every start."""
    state = tempfile.mkdtemp(prefix="rummy-bench-")
    env = dict(
        os.environ, RUMMY_STATE_DIR=state, TERM="xterm-256color", COLUMNS=str(width), LINES=str(height)
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if bytecode is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env["PYTHONPYCACHEPREFIX"] = bytecode
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the client, on the pty
        os.execve(command[0], [*command, "--name", "Bench"], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))
    seen = b""
    drawn = None
    cpu = 0.0
    try:
        while time.perf_counter() - start < timeout:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            seen += chunk
            plain = ANSI.sub(b"", seen)
            if b"Deal 1 of 2" in plain:  # the table's top line, drawn with the rest of it
                drawn = time.perf_counter() - start
                cpu = cpu_seconds(pid)
                break
        if drawn is None:
            raise SystemExit(f"no table within {timeout} s; the client drew: {ANSI.sub(b'', seen)[-400:]!r}")
        used = None
        if idle:
            # Drain what it draws while the bots play; then measure while it waits.
            settle = time.perf_counter() + 10.0  # the bots play their turns first
            while time.perf_counter() < settle:
                if select.select([fd], [], [], 0.1)[0]:
                    os.read(fd, 65536)
            before, t0 = family_cpu(pid), time.perf_counter()
            while time.perf_counter() - t0 < idle:
                if select.select([fd], [], [], 0.2)[0]:
                    os.read(fd, 65536)
            used = family_cpu(pid) - before
        return drawn, cpu, used
    finally:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
        os.close(fd)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--idle", type=float, default=0.0, help="seconds of idle CPU to measure after the last run"
    )
    parser.add_argument("--size", default="80x24")
    parser.add_argument(
        "--command",
        action="append",
        help="a client to start (default: this one); give two to compare them, run by run in turn",
    )
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="compile every module at every start (as with PYTHONDONTWRITEBYTECODE); by default the "
        "modules are compiled once, before the runs, as an installed package has them",
    )
    args = parser.parse_args()
    width, height = (int(x) for x in args.size.split("x"))
    commands = [c.split() for c in (args.command or [str(CLIENT)])]
    bytecode = None if args.no_bytecode else tempfile.mkdtemp(prefix="rummy-bench-pyc-")
    if bytecode is not None:
        for command in commands:  # compiles the modules: not counted
            one_run(command, width, height, 0.0, bytecode)
    walls: list[list[float]] = [[] for _ in commands]
    cpus: list[list[float]] = [[] for _ in commands]
    used = None
    for i in range(args.runs):
        for k, command in enumerate(commands):  # in turn, so that both see the same load
            last = i == args.runs - 1 and k == 0
            drawn, cpu, idle = one_run(command, width, height, args.idle if last else 0.0, bytecode)
            walls[k].append(drawn)
            cpus[k].append(cpu)
            used = idle if idle is not None else used
    how = "compiling every module" if bytecode is None else "modules compiled beforehand"
    print(f"start to first drawn table ({args.size}, {args.runs} runs each, {how}):")
    for command, wall, cpu in zip(commands, walls, cpus, strict=True):
        print(f"  {' '.join(command)}")
        print(
            f"    wall: median {statistics.median(wall):.3f} s, min {min(wall):.3f} s, max {max(wall):.3f} s"
        )
        print(
            f"    CPU of the client until then: median {statistics.median(cpu):.3f} s, min {min(cpu):.3f} s"
        )
    if used is not None:
        share = 100 * used / args.idle
        print(
            f"CPU while waiting (the client and the server it started): {used:.3f} s over {args.idle:g} s"
            f" ({share:.1f} % of one core)"
        )


if __name__ == "__main__":
    main()
