"""What each browser player costs the host: memory per ``--web-port`` session.

    python bench/web_sessions.py [--sessions 8] [--play] [--json]

It starts a ``rummy-server --web-port`` subprocess (temporary database and state
directory), then opens ``--sessions`` browser sessions on it, each its own
browser identity speaking what the page's front end speaks (the name form, then
the game socket at 120x40). Each session's client is waited for until its
screen shows the lobby; with ``--play`` each one then creates a table, seats
three bots and starts, and is waited for until it is at the game. A browser
itself is not needed for the host's side of the bill (tests/e2e/test_browser.py
checks a real one).

Printed, from /proc once every session is there: each client process's resident
memory (RSS) and proportional share (PSS: shared pages such as the Python
binary and libraries divided among the processes that map them, so the sum of
the PSS is what the clients take from the machine), their mean and max, and how
much the server process itself grew (the door's websocket, pty and buffers);
then the CPU the clients and the server use over ``--idle-seconds`` in which
nobody presses a key.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import aiohttp
import pyte

SERVER = Path(sys.executable).parent / "rummy-server"
COLUMNS, ROWS = 120, 40
TIMEOUT = 120.0


def memory_kib(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of a process in KiB, from /proc/PID/smaps_rollup."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        fields[name] = int(value.split()[0])
    return fields["Rss"], fields["Pss"]


def cpu_seconds(pid: int) -> float:
    """User and system CPU a process has used, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found.extend(int(p) for p in (task / "children").read_text().split())
    return found


class Session:
    """One browser: its cookies, its game socket, and what its terminal shows."""

    def __init__(self, base: str, name: str) -> None:
        self.base = base
        self.name = name
        self.http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
        self.screen = pyte.Screen(COLUMNS, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self._reader: asyncio.Task[None] | None = None

    async def open(self) -> None:
        async with self.http.get(self.base + "/"):
            pass
        async with self.http.post(self.base + "/name", data={"name": self.name}, allow_redirects=False):
            pass
        self.ws = await self.http.ws_connect(f"{self.base}/ws?width={COLUMNS}&height={ROWS}")
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.ws is not None
        async for msg in self.ws:
            if msg.type == aiohttp.WSMsgType.BINARY:
                self.stream.feed(msg.data)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def wait_for(self, pattern: str) -> None:
        async def poll() -> None:
            while not re.search(pattern, self.text()):
                await asyncio.sleep(0.1)

        await asyncio.wait_for(poll(), TIMEOUT)

    async def press(self, keys: str) -> None:
        assert self.ws is not None
        await self.ws.send_str(json.dumps(["stdin", keys]))

    async def play(self) -> None:
        """Create a table, seat three bots, start: at the game."""
        await self.press("n")
        await self.wait_for(r"Create \(ctrl\+s\)")
        await self.press("\x13")  # ctrl+s: create
        await self.wait_for("Your table:")
        for _ in range(3):
            await self.press("b")
            await asyncio.sleep(0.2)
        await self.wait_for(r"4: .*\(bot\)")
        await self.press("g")
        await self.wait_for("Deal 1 of 2")

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await self._reader
        await self.http.close()


async def measure(args: argparse.Namespace, base: str, server_pid: int) -> dict[str, object]:
    server_before = memory_kib(server_pid)
    sessions = [Session(base, f"P{i}") for i in range(args.sessions)]
    try:
        for s in sessions:  # one at a time, as players arrive (and within the start rate)
            await s.open()
            await s.wait_for("Persian Rummy lobby")
            if args.play:
                await s.play()
        await asyncio.sleep(2.0)  # let every client settle after its last screen
        clients = children(server_pid)
        assert len(clients) == args.sessions, clients
        figures = [memory_kib(pid) for pid in clients]
        server_after = memory_kib(server_pid)
        # CPU while nobody presses a key (bots may be playing at the tables with --play).
        watched = [*clients, server_pid]
        before = [cpu_seconds(pid) for pid in watched]
        await asyncio.sleep(args.idle_seconds)
        used = [cpu_seconds(pid) - b for pid, b in zip(watched, before, strict=True)]
    finally:
        for s in sessions:
            await s.close()
    rss = [r for r, _ in figures]
    pss = [p for _, p in figures]
    return {
        "sessions": args.sessions,
        "state": "in a game" if args.play else "in the lobby",
        "client_rss_mib_mean": statistics.mean(rss) / 1024,
        "client_rss_mib_max": max(rss) / 1024,
        "client_pss_mib_mean": statistics.mean(pss) / 1024,
        "client_pss_mib_max": max(pss) / 1024,
        "server_rss_growth_mib_per_session": (server_after[0] - server_before[0]) / 1024 / args.sessions,
        "server_rss_mib": server_after[0] / 1024,
        "client_cpu_percent_mean": 100 * statistics.mean(used[:-1]) / args.idle_seconds,
        "server_cpu_percent": 100 * used[-1] / args.idle_seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--play", action="store_true", help="each session starts a game against bots")
    parser.add_argument("--idle-seconds", type=float, default=10.0, help="how long CPU is watched")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rummy-web-bench-") as tmp:
        process = subprocess.Popen(
            [
                str(SERVER),
                *("--host", "127.0.0.1", "--port", "0", "--web-port", "0"),
                *("--db", f"{tmp}/server.db", "--bot-delay", "1"),
                *("--web-max-per-address", str(args.sessions)),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1", "XDG_STATE_HOME": f"{tmp}/state"},
        )
        try:
            assert process.stdout is not None
            process.stdout.readline()
            found = re.search(r"players open: (http://\S+)/", process.stdout.readline())
            assert found
            result = asyncio.run(measure(args, found.group(1), process.pid))
        finally:
            process.terminate()
            process.wait(10)
    print(f"{result['sessions']} browser sessions, {result['state']}:")
    print(
        f"  each client process: PSS {result['client_pss_mib_mean']:.1f} MiB mean,"
        f" {result['client_pss_mib_max']:.1f} max; RSS {result['client_rss_mib_mean']:.1f} MiB mean,"
        f" {result['client_rss_mib_max']:.1f} max"
    )
    print(
        f"  the server process grew {result['server_rss_growth_mib_per_session']:.2f} MiB per session"
        f" (RSS {result['server_rss_mib']:.1f} MiB in all)"
    )
    print(
        f"  CPU over {args.idle_seconds:g} s with no key pressed: {result['client_cpu_percent_mean']:.2f}%"
        f" of a core per client, {result['server_cpu_percent']:.2f}% for the server"
    )
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
