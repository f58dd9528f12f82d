"""What each SSH or browser player costs the host: memory per client, and the time to the lobby.

    python bench/door_sessions.py [--door ssh|web] [--sessions 20] [--play] [--settle 2]
                                  [--breakdown] [--size 120x40] [--port N] [--json]

It starts a ``rummy-server --ssh-port`` (or ``--web-port``) subprocess (temporary
database and state directory), then opens ``--sessions`` sessions on it one
after another, as players arrive: over SSH each one its own connection with its
own key and a 120x40 pty (``--size``); in a browser's place, each one its own browser
identity speaking what the page's front end speaks (the name form, then the game
socket at 120x40; tests/e2e/test_browser.py checks a real browser). Each session
is waited for until its screen shows the lobby; the time from asking for the
session (once logged in, or once the page is loaded) to that screen is one
"first screen" figure. With ``--play`` each one
then creates a table, seats three bots and starts, and is waited for until it is
at the game.

Printed, from /proc once every session is there: each client process's resident
memory (RSS) and proportional share (PSS: pages shared with the other clients and
the door's pre-imported parent, such as Python, Textual and the client's modules,
divided among the processes that map them, so the sum of the PSS is what the
clients take from the machine), their mean and max; the part of it each client
alone holds (USS: what one more player costs, the share of the shared pages
aside); the door's parent's own figures; how much the server
process itself grew (the door's channels, ptys and buffers); the time to the
first screen (median and max); then the CPU the clients and the server use over
``--idle-seconds`` in which nobody presses a key.

With ``--breakdown`` (root only: /proc/PID/pagemap shows page frames to root
alone) it also says what a client's private pages are, from its and its
parent's page frames: pages of the parent the client wrote to, so the kernel
copied them (CPython writes the reference count of every object it uses, and
its specialising interpreter writes into the bytecode it runs), and pages of the
client's own (what it allocated after the fork).
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
import time
from pathlib import Path

import aiohttp
import pyte

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# Before asyncssh: the SSH door's package silences asyncssh's notes on cryptography's
# DSA, ten lines at each start about a key type nobody here uses.
import rummy.doors.ssh  # noqa: F401, I001
import asyncssh
from rummy.doors.web.limits import SESSION_START_BURST, SESSION_START_RATE

SERVER = Path(sys.executable).parent / "rummy-server"
TIMEOUT = 60.0


def ksm_running() -> bool:
    """Whether the host merges same pages (the doors ask for it: rummy/doors/samepage.py)."""
    try:
        return Path("/sys/kernel/mm/ksm/run").read_text().strip() == "1"
    except OSError:
        return False


def ksm_merging_pages(pid: int) -> int:
    """Pages of ``pid`` the kernel keeps merged with same pages elsewhere (Linux 6.x)."""
    try:
        for line in Path(f"/proc/{pid}/ksm_stat").read_text().splitlines():
            if line.startswith("ksm_merging_pages"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def memory_kib(pid: int) -> tuple[int, int, int]:
    """(RSS, PSS, USS) of a process in KiB, from /proc/PID/smaps_rollup. USS, the
    pages it alone maps, is what one more such process costs the machine; PSS adds
    its share of the pages it shares, which falls as more processes share them."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        fields[name] = int(value.split()[0])
    return fields["Rss"], fields["Pss"], fields["Private_Clean"] + fields["Private_Dirty"]


def resident_frames(pid: int) -> dict[int, int]:
    """The page frame behind each resident page of a process's writable private
    mappings (page address -> frame), from /proc/PID/maps and pagemap."""
    frames: dict[int, int] = {}
    page = os.sysconf("SC_PAGE_SIZE")
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
            span, perms = line.split()[:2]
            if perms[1] != "w" or perms[3] != "p":
                continue
            start, end = (int(x, 16) for x in span.split("-"))
            pagemap.seek(start // page * 8)
            entries = pagemap.read((end - start) // page * 8)
            for i in range(len(entries) // 8):
                entry = int.from_bytes(entries[i * 8 : i * 8 + 8], "little")
                if entry >> 63:  # present
                    frames[start + i * page] = entry & ((1 << 55) - 1)
    return frames


def private_breakdown_kib(pid: int, parent: int) -> tuple[int, int]:
    """(copied, own) KiB: a client's private pages that are its parent's pages copied
    on write (same address, another frame), and those the parent does not have."""
    page_kib = os.sysconf("SC_PAGE_SIZE") // 1024
    theirs = resident_frames(parent)
    copied = own = 0
    for address, frame in resident_frames(pid).items():
        if address not in theirs:
            own += 1
        elif theirs[address] != frame:
            copied += 1
    return copied * page_kib, own * page_kib


def parent_pid(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def cpu_seconds(pid: int) -> float:
    """User and system CPU a process has used, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def descendants(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (int(p) for p in (task / "children").read_text().split()):
            found += [child, *descendants(child)]
    return found


def on_a_pty(pid: int) -> bool:
    """A player's client: its terminal is a pty (the server, the door's parent of the
    clients and the bots' worker process have none)."""
    with contextlib.suppress(OSError):
        return os.readlink(f"/proc/{pid}/fd/0").startswith("/dev/pts/")
    return False


def clients_of(server_pid: int) -> list[int]:
    return [pid for pid in descendants(server_pid) if on_a_pty(pid)]


class Screen:
    """What one player's terminal shows, and the keys they press."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.started = 0.0  # when the session (so the client) was asked for, once logged in
        self.size = size  # columns, rows
        self.screen = pyte.Screen(*size)
        self.stream = pyte.ByteStream(self.screen)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def wait_for(self, pattern: str, gone: bool = False) -> None:
        async def poll() -> None:
            while (re.search(pattern, self.text()) is None) != gone:
                await asyncio.sleep(0.01)

        try:
            await asyncio.wait_for(poll(), TIMEOUT)
        except TimeoutError:
            raise TimeoutError(
                f"{'still' if gone else 'no'} {pattern!r} on the screen:\n{self.text()}"
            ) from None

    async def press(self, keys: str) -> None:
        raise NotImplementedError

    async def open(self) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    async def play(self) -> None:
        """Create a table, seat three bots, start: at the game."""
        await self.press("n")
        await self.wait_for(r"Create \(ctrl\+s\)")
        await self.press("\x13")  # ctrl+s: create
        await self.wait_for("Your table:")
        for chair in (2, 3, 4):
            await self.press("b")
            await self.wait_for("Seat a bot: at which level")
            await self.press("\r")  # the level offered first
            await self.wait_for(rf"{chair}: .*bot\)")
            await self.wait_for("Seat a bot: at which level", gone=True)
        await self.press("g")
        await self.wait_for("Deal 1 of 2")


class Browser(Screen):
    """One browser: its cookies and its game socket."""

    def __init__(self, base: str, name: str, size: tuple[int, int]) -> None:
        super().__init__(size)
        self.base = base
        self.name = name
        self.http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self._reader: asyncio.Task[None] | None = None

    async def open(self) -> None:
        async with self.http.get(self.base + "/"):
            pass
        async with self.http.post(self.base + "/name", data={"name": self.name}, allow_redirects=False):
            pass
        self.started = time.perf_counter()
        self.ws = await self.http.ws_connect(f"{self.base}/ws?width={self.size[0]}&height={self.size[1]}")
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.ws is not None
        async for msg in self.ws:
            if msg.type == aiohttp.WSMsgType.BINARY:
                self.stream.feed(msg.data)

    async def press(self, keys: str) -> None:
        assert self.ws is not None
        await self.ws.send_str(json.dumps(["stdin", keys]))

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await self._reader
        await self.http.close()


class SSHPlayer(Screen, asyncssh.SSHClientSession[bytes]):
    """One ssh client with its own key and a pty."""

    def __init__(self, port: int, name: str, size: tuple[int, int]) -> None:
        super().__init__(size)
        self.port = port
        self.name = name
        self.key = asyncssh.generate_private_key("ssh-ed25519")
        self.conn: asyncssh.SSHClientConnection | None = None
        self.chan: asyncssh.SSHClientChannel[bytes] | None = None

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        self.stream.feed(data)

    async def open(self) -> None:
        self.conn = await asyncssh.connect(
            "127.0.0.1", self.port, username=self.name, client_keys=[self.key], known_hosts=None
        )
        self.started = time.perf_counter()
        self.chan, _ = await self.conn.create_session(
            lambda: self, term_type="xterm-256color", term_size=self.size, encoding=None
        )

    async def press(self, keys: str) -> None:
        assert self.chan is not None
        self.chan.write(keys.encode())

    async def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            with contextlib.suppress(Exception):
                await self.conn.wait_closed()


async def measure(args: argparse.Namespace, where: str, server_pid: int) -> dict[str, object]:
    server_before = memory_kib(server_pid)
    columns, rows = args.size.lower().split("x")
    size = (int(columns), int(rows))
    if args.door == "ssh":
        sessions: list[Screen] = [SSHPlayer(int(where), f"P{i}", size) for i in range(args.sessions)]
    else:
        sessions = [Browser(where, f"P{i}", size) for i in range(args.sessions)]
    first_screen: list[float] = []
    try:
        for i, s in enumerate(sessions):  # one at a time, as players arrive (and within the start rate)
            if args.door == "web" and i >= SESSION_START_BURST:
                # One address's browsers may open SESSION_START_BURST games at once, then
                # one every 1/SESSION_START_RATE s (rummy/doors/web/limits.py): a quicker
                # client outran it, and the door refused the 13th.
                await asyncio.sleep(1 / SESSION_START_RATE)
            await s.open()
            await s.wait_for("Persian Rummy lobby")
            first_screen.append(time.perf_counter() - s.started)
            if args.play:
                await s.play()
        await asyncio.sleep(args.settle)  # let every client settle after its last screen (and KSM merge)
        clients = clients_of(server_pid)
        assert len(clients) == args.sessions, clients
        figures = [memory_kib(pid) for pid in clients]
        parents = {parent_pid(pid) for pid in clients}
        assert len(parents) == 1, parents  # the door's pre-imported parent (rummy/doors/zygote.py)
        parent_id = parents.pop()
        parent = memory_kib(parent_id)
        server_after = memory_kib(server_pid)
        merged = sum(ksm_merging_pages(pid) for pid in clients)
        breakdown = [private_breakdown_kib(pid, parent_id) for pid in clients] if args.breakdown else []
        # CPU while nobody presses a key (bots may be playing at the tables with --play).
        watched = [*clients, server_pid]
        before = [cpu_seconds(pid) for pid in watched]
        await asyncio.sleep(args.idle_seconds)
        used = [cpu_seconds(pid) - b for pid, b in zip(watched, before, strict=True)]
    finally:
        for s in sessions:
            await s.close()
    rss = [r for r, _, _ in figures]
    pss = [p for _, p, _ in figures]
    uss = [u for _, _, u in figures]
    copied = (
        {
            "client_private_copied_mib_mean": statistics.mean(c for c, _ in breakdown) / 1024,
            "client_private_own_mib_mean": statistics.mean(o for _, o in breakdown) / 1024,
        }
        if breakdown
        else {}
    )
    return {
        **copied,
        "door": args.door,
        "sessions": args.sessions,
        "state": "in a game" if args.play else "in the lobby",
        "ksm": ksm_running(),
        "client_ksm_merged_mib_mean": merged * os.sysconf("SC_PAGE_SIZE") / 2**20 / len(clients),
        "client_rss_mib_mean": statistics.mean(rss) / 1024,
        "client_rss_mib_max": max(rss) / 1024,
        "client_pss_mib_mean": statistics.mean(pss) / 1024,
        "client_pss_mib_max": max(pss) / 1024,
        "client_uss_mib_mean": statistics.mean(uss) / 1024,
        "client_uss_mib_max": max(uss) / 1024,
        "parent_pss_mib": parent[1] / 1024,
        "parent_rss_mib": parent[0] / 1024,
        "first_screen_s_first": first_screen[0],
        "first_screen_s_median": statistics.median(first_screen),
        "first_screen_s_max": max(first_screen),
        "server_rss_growth_mib_per_session": (server_after[0] - server_before[0]) / 1024 / args.sessions,
        "server_rss_mib": server_after[0] / 1024,
        "client_cpu_percent_mean": 100 * statistics.mean(used[:-1]) / args.idle_seconds,
        "server_cpu_percent": 100 * used[-1] / args.idle_seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--door", choices=["ssh", "web"], default="ssh")
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--play", action="store_true", help="each session starts a game against bots")
    parser.add_argument("--idle-seconds", type=float, default=10.0, help="how long CPU is watched")
    parser.add_argument(
        "--settle",
        type=float,
        default=2.0,
        help="seconds between the last session's screen and the memory figures (default 2; "
        "where the host runs KSM, give it time to merge: 40)",
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="say which private pages are the parent's copied and which the client's own (root)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=0,
        help="the game server's port, the door's the next one (default 0: any free ports)",
    )
    parser.add_argument(
        "--size", default="120x40", help="each player's terminal, COLUMNSxROWS (default 120x40; least 80x24)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    door_port = str(args.port + 1 if args.port else 0)
    game = ("--host", "127.0.0.1", "--port", str(args.port))
    door = ["--ssh-port", door_port, "--ssh-max-per-address", str(args.sessions)]
    if args.door == "web":
        door = ["--web-port", door_port, "--web-max-per-address", str(args.sessions)]
    with tempfile.TemporaryDirectory(prefix="rummy-door-bench-") as tmp:
        process = subprocess.Popen(
            [
                str(SERVER),
                *(*game, "--db", f"{tmp}/server.db", "--bot-delay", "1"),
                *door,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1", "XDG_STATE_HOME": f"{tmp}/state"},
        )
        try:
            assert process.stdout is not None
            process.stdout.readline()
            pattern = r"SSH on port (\d+)" if args.door == "ssh" else r"players open: (http://\S+)/"
            found = re.search(pattern, process.stdout.readline())
            assert found
            result = asyncio.run(measure(args, found.group(1), process.pid))
        finally:
            process.terminate()
            process.wait(10)
    door_name = "SSH" if args.door == "ssh" else "browser"
    print(f"{result['sessions']} {door_name} sessions at {args.size}, {result['state']}:")
    print(
        f"  each client process: PSS {result['client_pss_mib_mean']:.1f} MiB mean,"
        f" {result['client_pss_mib_max']:.1f} max; RSS {result['client_rss_mib_mean']:.1f} MiB mean,"
        f" {result['client_rss_mib_max']:.1f} max"
    )
    print(
        f"  of that its own (USS, what one more player costs): {result['client_uss_mib_mean']:.1f} MiB mean,"
        f" {result['client_uss_mib_max']:.1f} max; the door's parent of the clients:"
        f" PSS {result['parent_pss_mib']:.1f} MiB, RSS {result['parent_rss_mib']:.1f}"
    )
    if result["ksm"]:
        merged = result["client_ksm_merged_mib_mean"]
        print(f"  the host merges same pages (KSM): {merged:.1f} MiB of a client merged")
    else:
        print("  the host does not merge same pages (KSM off: /sys/kernel/mm/ksm/run is not 1)")
    if "client_private_copied_mib_mean" in result:
        print(
            f"  of a client's private pages: {result['client_private_copied_mib_mean']:.1f} MiB its parent's"
            f" that it wrote to (copied on write), {result['client_private_own_mib_mean']:.1f} MiB its own"
        )
    print(
        f"  first screen (the lobby): {result['first_screen_s_first']:.2f} s for the first session,"
        f" {result['first_screen_s_median']:.2f} s median, {result['first_screen_s_max']:.2f} s max"
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
