"""Load generator: N tables of four bot clients over real TCP on loopback, playing whole games.

    python bench/load.py [--tables 100] [--games-per-table 1] [--duration 300] [--bot random]
                         [--think 0] [--lobby] [--expert-tables 0] [--bot-workers 1]
                         [--in-process | --connect HOST:PORT] [--json]

It starts the server itself: a ``rummy-server`` subprocess on a free port with a
temporary ``--db`` (so the server and the load generator run in separate
processes, on separate cores), no bot pause, and connection caps and rate limits
lifted for loopback. ``--in-process`` runs the server in this process instead
(one core for both; storage commits are then reported too); ``--connect`` uses
a server started by hand (under a profiler, say).

Every one of the 4*N clients is its own TCP connection speaking the documented
protocol (docs/PROTOCOL.md), seated as a person: hello, the first creates the
table and the others sit, all tables are seated before any starts (so they are
all held at once), then each creator sends ``start``. Each seat picks its moves
with an engine bot from its own view, so every move crosses the network; it
says ``ready`` at a deal's end and ``play_again`` after a game until
``--games-per-table`` games are played. ``--think`` makes each client wait that
long on average before each move (a person's pace); with 0 the server is
saturated (a closed loop: one move in flight per table, so the latency is the
time a move queues behind the other tables' moves). Clients say ``lobby: false``
in their hello unless ``--lobby``: rummy-client follows the lobby, and then the
server gathers table changes and pushes them at most every half second to
every follower not busy playing at a table.

``--expert-tables K`` adds K tables where one client plays with three of the
server's own hard bots (the expert, which searches): they play game after game
until the other tables are done, so the hard bots think all through the run. Their
figures are printed apart (the hard bots' moves per second, the CPU of the server's
worker processes); every other figure, the move latency first, is that of the other
tables, so a run with and one without expert tables show whether thinking bots hold
the other tables up. ``--bot-workers`` sets the server's worker processes for the
hard bots (0: they think on the event loop, as they did before the pool).

Printed: tables held at once, connections, games finished, moves/s, the latency
from a move sent to its reply (p50, p90, p99, max), peak memory (the server's
VmHWM from /proc, and the load generator's), the CPU both used and how long
their event loops waited for a CPU while ready to run, this process's
event-loop lag (if that is high, the latency figures include time spent waiting
in the load generator, not only in the server), and the CPU other programs on
the machine took meanwhile (they compete for the same cores). The run is
bounded: it stops when every table has played its games, after ``--duration``
seconds, or when no move was made for ``--stall`` seconds.

All clients share one process and one plain asyncio loop (no uvloop, so the
figures hold for a stock Python): each is an ``asyncio.Protocol`` whose frames the
protocol's own ``FrameSplitter`` cuts, and which decodes only the few fields it needs
to see whose turn it is (``type``, ``id``, ``seat``, ``moves``, ``view.phase``,
``view.current``); the
whole view is decoded only when it is this seat's turn.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import itertools
import json
import os
import random
import re
import resource
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import msgspec

from rummy.engine.bots import BOT_NAMES, Bot, make_bot
from rummy.protocol import (
    MAX_SERVER_FRAME,
    PROTOCOL_VERSION,
    AddBot,
    CreateTable,
    FrameSplitter,
    GameUpdate,
    Hello,
    MoveRequest,
    PlayAgain,
    Ready,
    Sit,
    Start,
    TableOptions,
    encode,
    move_to_wire,
    view_from_wire,
)

# --- decoding only what a seat needs to know -----------------------------------------


class _LightView(msgspec.Struct):
    phase: str
    current: int


class _Light(msgspec.Struct):
    """Any server message, with only the fields a bot client looks at (msgspec skips the
    rest without building it)."""

    type: str
    id: int | None = None
    code: str | None = None
    text: str | None = None
    fatal: bool = False
    table_id: int | None = None
    seat: int | None = None
    moves: int = 0
    view: _LightView | None = None


_light = msgspec.msgpack.Decoder(_Light)
_full = msgspec.msgpack.Decoder(GameUpdate)


# --- figures -------------------------------------------------------------------------


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # seconds, move sent -> its answer
    sent_at: list[float] = field(default_factory=list)  # perf_counter when each of those was sent
    moves: int = 0  # moves accepted
    refused: Counter[str] = field(default_factory=Counter)  # error codes, answers and pushes
    games_finished: int = 0
    playing: int = 0
    peak_playing: int = 0
    open_connections: int = 0
    peak_connections: int = 0
    lost: int = 0  # connections the server closed before the run ended
    last_move_at: float = 0.0
    first_start_at: float = 0.0
    all_playing_until: float | None = None  # when the first table finished its games
    moves_while_all_playing: int = 0
    lag: list[float] = field(default_factory=list)  # this loop's lateness, seconds
    # The tables whose other three chairs are the server's hard bots (--expert-tables).
    expert_latencies: list[float] = field(default_factory=list)
    expert_own_moves: int = 0
    expert_games: int = 0

    def table_playing(self, delta: int) -> None:
        self.playing += delta
        self.peak_playing = max(self.peak_playing, self.playing)


def percentile(sorted_values: list[float], p: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, round(p / 100 * len(sorted_values)) - 1))
    return sorted_values[k]


class SetupFailed(Exception):
    """The tables could not all be seated (within --duration, or the server refused)."""


# --- one client: one TCP connection, one chair ------------------------------------------


class Seat(asyncio.Protocol):
    def __init__(self, run: Run, table: TableRun, chair: int, bot: Bot, rng: random.Random) -> None:
        self.run = run
        self.stats = run.stats
        self.table = table
        self.chair = chair
        self.bot = bot
        self.rng = rng
        self.transport: asyncio.Transport | None = None
        self._frames = FrameSplitter(MAX_SERVER_FRAME)
        self._ids = itertools.count(1)
        # id -> (kind, time sent, future for setup requests)
        self._pending: dict[int, tuple[str, float, asyncio.Future[_Light] | None]] = {}
        self._answered = -1  # the ``moves`` count last acted on in this game
        self.game_over = True  # no game under way for this seat
        self.closed = False

    # --- the connection ----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.stats.open_connections += 1
        self.stats.peak_connections = max(self.stats.peak_connections, self.stats.open_connections)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.stats.open_connections -= 1
        if not self.run.stopping:
            self.stats.lost += 1
        for _, _, fut in self._pending.values():
            if fut is not None and not fut.done():
                fut.set_exception(ConnectionError("the server closed the connection"))
        self._pending.clear()

    def data_received(self, data: bytes) -> None:
        for payload in self._frames.feed(data):
            self._frame(payload)
        if self._frames.error is not None and self.transport is not None:  # out of step: give up
            self.stats.refused[f"push:{self._frames.error.code}"] += 1
            self.transport.close()

    # --- requests ------------------------------------------------------------------------

    def send(
        self, kind: str, message: type[Any], want_answer: bool = False, **fields: Any
    ) -> asyncio.Future[_Light] | None:
        """Send the request ``message(id=<next id>, **fields)``; ``kind`` names it in the
        figures."""
        if self.closed or self.transport is None:
            return None
        rid = next(self._ids)
        fut = asyncio.get_running_loop().create_future() if want_answer else None
        self._pending[rid] = (kind, time.perf_counter(), fut)
        self.transport.write(encode(message(id=rid, **fields)))
        return fut

    async def call(self, message: type[Any], **fields: Any) -> _Light:
        fut = self.send("setup", message, want_answer=True, **fields)
        if fut is None:
            raise ConnectionError("not connected")
        answer = await fut  # bounded by --duration around the whole setup
        if answer.type == "error":
            raise RuntimeError(f"setup refused: {answer.code}: {answer.text}")
        return answer

    # --- what arrives --------------------------------------------------------------------

    def _frame(self, payload: bytes) -> None:
        m = _light.decode(payload)
        if m.id is not None:
            pending = self._pending.pop(m.id, None)
            if pending is None:
                return
            kind, sent, fut = pending
            if kind == "move" and self.table.experts:
                self.stats.expert_latencies.append(time.perf_counter() - sent)
                if m.type == "error":
                    self._refused(m)
                else:
                    self.stats.expert_own_moves += 1
            elif kind == "move":
                self.stats.latencies.append(time.perf_counter() - sent)
                self.stats.sent_at.append(sent)
                if m.type == "error":
                    self._refused(m)
                else:
                    self.stats.moves += 1
                    self.stats.last_move_at = time.perf_counter()
                    if self.run.all_playing:
                        self.stats.moves_while_all_playing += 1
            elif m.type == "error" and kind != "ready":  # a ready may come after the deal moved on
                self.stats.refused[f"{kind}:{m.code}"] += 1
            if fut is not None and not fut.done():
                fut.set_result(m)
            return
        if m.type == "game":
            self._game(m, payload)
        elif m.type == "error":
            self.stats.refused[f"push:{m.code}"] += 1

    def _refused(self, m: _Light) -> None:
        # A bot picks from the view's legal moves, so a refusal is a fault (or a rate
        # limit): it is counted, and a table that is stuck ends the run as stalled.
        self.stats.refused[f"move:{m.code}"] += 1

    def _game(self, m: _Light, payload: bytes) -> None:
        view = m.view
        if m.seat is None or view is None:
            return
        self.table.moves_now = m.moves
        if view.phase == "game_over":
            if not self.game_over:
                self.game_over = True
                self._answered = -1
                self.table.seat_done(self)
            return
        if self.game_over:  # the first push of a new game
            self.game_over = False
            self.table.seat_started(self)
        if m.moves <= self._answered:
            return
        if view.phase == "deal_over":
            self._answered = m.moves
            self.send("ready", Ready)
            return
        if view.current != m.seat:
            return
        self._answered = m.moves
        think = self.run.think
        if think > 0:
            delay = think * (0.5 + self.rng.random())
            asyncio.get_running_loop().call_later(delay, self._move, payload, m.moves)
        else:
            self._move(payload, m.moves)

    def _move(self, payload: bytes, moves: int) -> None:
        if self.closed or self.run.stopping:
            return
        view = view_from_wire(_full.decode(payload).view)
        move = move_to_wire(self.bot.choose(view))
        self.send("move", MoveRequest, move=move, after=moves)


# --- one table: four seats -----------------------------------------------------------------


def _same(seat: Seat) -> Seat:
    return seat


class TableRun:
    def __init__(self, run: Run, index: int, experts: bool = False) -> None:
        self.run = run
        self.index = index
        self.experts = experts  # one client and three of the server's hard bots
        self.moves_done = 0  # moves of this table's finished games
        self.moves_now = 0  # moves of its game under way
        self.seats: list[Seat] = []
        self.games_done = 0
        self.seated = False
        self.table_id: int | None = None
        self._started = 0
        self._done = 0

    async def seat_everyone(self) -> None:
        run = self.run
        loop = asyncio.get_running_loop()
        for chair in range(1 if self.experts else 4):
            rng = random.Random(run.seed * 10_007 + self.index * 4 + chair)
            seat = Seat(run, self, chair, make_bot(run.bot, random.Random(rng.getrandbits(64))), rng)
            source = run.source(self.index)
            async with run.connecting:
                await loop.create_connection(
                    functools.partial(_same, seat),
                    run.host,
                    run.port,
                    local_addr=None if source is None else (source, 0),
                )
            self.seats.append(seat)
        for i, seat in enumerate(self.seats):
            await seat.call(Hello, version=PROTOCOL_VERSION, name=f"load{self.index}-{i}", lobby=run.lobby)
        seated = await self.seats[0].call(
            CreateTable, name=f"load {self.index}", options=TableOptions(seating="draw")
        )
        table_id = seated.table_id
        assert table_id is not None
        self.table_id = table_id
        await asyncio.gather(
            *(s.call(Sit, table_id=table_id, chair=c) for c, s in enumerate(self.seats) if c)
        )
        if self.experts:
            for chair in (1, 2, 3):
                await self.seats[0].call(AddBot, chair=chair, level="hard")
        self.seated = True

    def start(self) -> None:
        self.seats[0].send("start", Start)

    def seat_started(self, seat: Seat) -> None:
        self._started += 1
        if self._started == 1 and not self.experts:
            self.run.stats.table_playing(+1)

    def seat_done(self, seat: Seat) -> None:
        self._done += 1
        if self._done < len(self.seats):
            return
        self._started = self._done = 0
        run = self.run
        self.moves_done += self.moves_now
        self.moves_now = 0
        if self.experts:  # they play on until the other tables are done
            run.stats.expert_games += 1
            if not run.stopping:
                self.seats[0].send("play_again", PlayAgain)
            return
        self.games_done += 1
        run.stats.games_finished += 1
        run.stats.table_playing(-1)
        if run.all_playing:
            run.all_playing = False
            run.stats.all_playing_until = time.perf_counter()
        if self.games_done < run.games_per_table and not run.stopping:
            for s in self.seats:
                s.send("play_again", PlayAgain)
        else:
            run.table_finished()

    def close(self) -> None:
        for s in self.seats:
            if s.transport is not None:
                s.transport.close()


# --- the run -----------------------------------------------------------------------------


class Run:
    def __init__(self, args: argparse.Namespace, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.bot: str = args.bot
        self.think: float = args.think
        self.lobby: bool = args.lobby
        self.seed: int = args.seed
        self.games_per_table: int = args.games_per_table
        self.stats = Stats()
        self.stopping = False
        self.all_playing = False
        self.connecting = asyncio.Semaphore(64)  # connects in flight (the listen backlog is finite)
        self.tables = [TableRun(self, i) for i in range(args.tables)]
        self._unfinished = len(self.tables)
        self.tables += [TableRun(self, args.tables + i, experts=True) for i in range(args.expert_tables)]
        self.finished = asyncio.Event()

    def source(self, table_index: int) -> str | None:
        """The address table ``table_index``'s clients connect from (None: any)."""
        return None

    def pending_moves(self) -> list[float]:
        """When each move still unanswered was sent (perf_counter)."""
        return [
            sent
            for t in self.tables
            for seat in t.seats
            for kind, sent, _ in seat._pending.values()
            if kind == "move"
        ]

    def table_finished(self) -> None:
        self._unfinished -= 1
        if self._unfinished == 0:
            self.finished.set()

    async def measure_lag(self) -> None:
        """How late this loop wakes up for a 10 ms timer: the load generator's own delay."""
        loop = asyncio.get_running_loop()
        while not self.stopping:
            t = loop.time()
            await asyncio.sleep(0.01)
            self.stats.lag.append(loop.time() - t - 0.01)


# --- the server under test ---------------------------------------------------------------


class ServerUnderTest:
    """Where the server runs, and what /proc says about it."""

    pid = 0
    host = "127.0.0.1"
    port = 0
    describe = ""
    sync: str | None = None  # the storage's sync mode, None: the server's default
    bot_workers: int | None = None  # the hard bots' worker processes, None: the server's default

    async def start(self, connections: int, db: Path) -> None: ...

    async def stop(self) -> None: ...

    def commits(self) -> int | None:
        """Storage commits so far (known only in-process)."""
        return None

    def slow_commits(self) -> tuple[int, float] | None:
        """Once stopped: the storage's commits of 100 ms or more and the slowest, in ms
        (the server says them in its log as it stops); None where that is not known."""
        return None


def connection_cap(connections: int) -> int:
    """The connection cap to start the server with for ``connections`` clients: they all
    say hello before they sit, and the server keeps a tenth of its cap for people in a
    chair (``ServerOptions.player_reserve``), so the cap is that much larger."""
    return connections * 10 // 9 + 16


def _server_flags(connections: int, db: Path) -> list[str]:
    cap = str(connection_cap(connections))
    flags = [
        "--host", "127.0.0.1", "--port", "0", "--db", str(db), "--log-level", "warning",
        "--bot-delay", "0", "--deal-pause", "1",
        "--max-connections", cap, "--max-per-address", cap,
    ]  # fmt: skip
    if _cli_has("--tables-per-address"):  # every table is opened from loopback
        flags += ["--tables-per-address", str(connections)]
    if _cli_has("--hello-timeout"):  # thousands connect at once: their hellos queue up
        flags += ["--hello-timeout", "60"]
    return flags


# The rate limit (20 requests/s a connection) guards against hostile peers; a bot at zero
# think time is faster than that, so the bench lifts it with ``--rate``/``--burst``. A
# ``rummy-server`` without those flags is started through its own ``main`` with the limit
# passed to ``start_server`` (the same code path as the command, plus these options).
_LIFTED = {"rate": 1e9, "burst": 1_000_000_000, "flood_limit": 1_000_000_000, "hello_timeout": 60.0}
_SHIM = (
    "import functools, sys\n"
    "from rummy.server import cli\n"
    f"cli.start_server = functools.partial(cli.start_server, **{_LIFTED!r})\n"
    "cli.main(sys.argv[1:])\n"
)


def _cli_has(flag: str) -> bool:
    from rummy.server.cli import build_parser

    return any(flag in a.option_strings for a in build_parser()._actions)


class Subprocess(ServerUnderTest):
    async def start(self, connections: int, db: Path) -> None:
        flags = _server_flags(connections, db)
        if self.sync is not None:
            if not _cli_has("--sync"):
                raise SetupFailed("this rummy-server has no --sync option")
            flags += ["--sync", self.sync]
        if self.bot_workers is not None:
            if not _cli_has("--bot-workers"):
                raise SetupFailed("this rummy-server has no --bot-workers option")
            flags += ["--bot-workers", str(self.bot_workers)]
        beside = Path(sys.executable).parent / "rummy-server"  # this venv's, not another on PATH
        exe = str(beside) if beside.exists() else shutil.which("rummy-server") or "rummy-server"
        if _cli_has("--rate") and _cli_has("--burst"):
            cmd = [exe, *flags, "--rate", "1e9", "--burst", "1000000000"]
            self.describe = "rummy-server " + " ".join(cmd[1:])
        else:
            cmd = [sys.executable, "-c", _SHIM, *flags]
            self.describe = f"rummy-server {' '.join(flags)} (rate limit lifted: {_LIFTED})"
        self.proc = await asyncio.create_subprocess_exec(
            *cmd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        self.pid = self.proc.pid
        self._log: list[str] = []
        self._log_reader = asyncio.create_task(self._read_log())
        assert self.proc.stdout is not None
        line = (await asyncio.wait_for(self.proc.stdout.readline(), 30)).decode()
        # "rummy-server listening on 127.0.0.1:PORT; players join with: ..."
        if "listening on" not in line:
            raise RuntimeError(f"rummy-server did not start: {line!r}")
        address = line.split("listening on", 1)[1].split(";", 1)[0].strip()
        self.port = int(address.rsplit(":", 1)[1])

    async def _read_log(self) -> None:
        """The server's log, passed on to this one's stderr as it comes, and kept."""
        assert self.proc.stderr is not None
        async for raw in self.proc.stderr:
            line = raw.decode(errors="replace")
            self._log.append(line)
            sys.stderr.write(line)

    async def stop(self) -> None:
        if getattr(self, "proc", None) is not None:
            await stop_process(self.proc)
            await self._log_reader

    def slow_commits(self) -> tuple[int, float] | None:
        if not hasattr(self, "_log"):
            return None
        said = re.compile(r"storage: (\d+) of \d+ commits took \d+ ms or more, the slowest (\d+) ms")
        for line in self._log:  # rummy/server/storage.py, Storage.close
            found = said.search(line)
            if found:
                return int(found.group(1)), float(found.group(2))
        return 0, 0.0


async def stop_process(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM, as a host stops the server; SIGKILL if it is not gone within 30 s."""
    if proc.returncode is None:
        proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(proc.wait(), 30)
        except TimeoutError:
            proc.kill()
            await proc.wait()


class InProcess(ServerUnderTest):
    async def start(self, connections: int, db: Path) -> None:
        from rummy.server import start_server

        self.server = await start_server(
            "127.0.0.1", 0, db, bot_delay=0.0, deal_pause=1.0,
            max_connections=connection_cap(connections), max_per_address=connection_cap(connections),
            tables_per_address=connections, **_LIFTED,
            **({} if self.sync is None else {"sync": self.sync}),
            **({} if self.bot_workers is None else {"bot_workers": self.bot_workers}),
        )  # fmt: skip
        self.pid = os.getpid()
        self.port = self.server.port
        self.describe = f"in this process (start_server, db {db})"

    def commits(self) -> int | None:
        return self.server.storage.commits

    def slow_commits(self) -> tuple[int, float] | None:
        storage = self.server.storage
        return storage.slow_commits, round(storage.slowest_commit * 1000, 1)

    async def stop(self) -> None:
        if getattr(self, "server", None) is not None:
            await self.server.close()


class Running(ServerUnderTest):
    """A server started by someone else (``--connect``), e.g. under a profiler; its
    memory and CPU are read only if ``--server-pid`` is given. It must allow the
    connections (``--max-per-address``) and requests (``--rate``) of the run."""

    def __init__(self, address: str, pid: int | None) -> None:
        host, _, port = address.rpartition(":")
        self.host, self.port = host or "127.0.0.1", int(port)
        self.pid = pid or 0
        self.describe = f"already running at {self.host}:{self.port}"


def vm_hwm(pid: int) -> int | None:
    """Peak resident memory (bytes) of a process, from /proc."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


_TICK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Usage:
    """CPU figures at one moment, from /proc: what a process (all its threads) used, how
    long its main thread (the event loop) waited for a CPU while ready to run, and what
    the whole machine used. Two of them give the figures of the time between."""

    at: float
    cpu: float | None
    system: float | None  # of ``cpu``, the part in the kernel (system calls: mostly the sockets)
    waited: float | None  # seconds runnable but not running (a busy machine)
    machine_busy: float  # CPU seconds used by everything on the machine
    stolen: float  # CPU seconds the hypervisor gave to other machines (steal)

    @classmethod
    def of(cls, pid: int) -> Usage:
        cpu = system = waited = None
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            cpu, system = (int(fields[11]) + int(fields[12])) / _TICK, int(fields[12]) / _TICK
            waited = int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            pass
        busy = stolen = 0.0
        try:  # cpu  user nice system idle iowait irq softirq steal ...
            ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
            busy = sum(ticks[:7]) - ticks[3] - ticks[4]
            busy, stolen = busy / _TICK, ticks[7] / _TICK
        except (OSError, ValueError, IndexError):
            pass
        return cls(time.perf_counter(), cpu, system, waited, busy, stolen)


def children_cpu(pid: int) -> float:
    """CPU seconds used so far by the child processes of ``pid`` (the server's workers)."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 12 and fields[1] == str(pid):  # field 4 of stat: the parent's pid
            total += (int(fields[11]) + int(fields[12])) / _TICK
    return total


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(b - a, 2)


def raise_fd_limit(need: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < need:
        new = need if hard == resource.RLIM_INFINITY else min(need, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))  # the server subprocess inherits it
        if new < need:
            print(f"warning: only {new} file descriptors allowed; {need} wanted", file=sys.stderr)


# --- main --------------------------------------------------------------------------------


async def run_load(args: argparse.Namespace) -> dict[str, Any]:
    connections = 4 * args.tables
    raise_fd_limit(2 * connections + 256)  # both ends live in this process with --in-process
    tmp = Path(tempfile.mkdtemp(prefix="rummy-load-"))
    server: ServerUnderTest
    if args.connect:
        server = Running(args.connect, args.server_pid)
    else:
        server = InProcess() if args.in_process else Subprocess()
        server.sync = args.sync
        server.bot_workers = args.bot_workers
    try:
        await server.start(connections, tmp / "load.db")
        result = await _drive(args, server)
    finally:
        await server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    # Known once the server has stopped: commits the disk was slow to sync hold every
    # move waiting on them, the usual cause of a run's slowest moves.
    slow = result["server"]["storage_slow_commits"] = server.slow_commits()
    if slow is not None:
        count, slowest = slow
        told = f", the slowest {slowest:.0f} ms (every move waiting on one waited as long)" if count else ""
        print(f"server's storage: {count} commits of 100 ms or more{told}", flush=True)
    return result


async def _drive(args: argparse.Namespace, server: ServerUnderTest) -> dict[str, Any]:
    run = Run(args, server.host, server.port)
    stats = run.stats
    print(
        f"load: {args.tables} tables x 4 clients, bot {args.bot}, think {args.think} s,"
        f" {args.games_per_table} game(s) per table, lobby {'on' if args.lobby else 'off'}\n"
        f"server pid {server.pid}: {server.describe}",
        flush=True,
    )
    deadline = time.perf_counter() + args.duration
    t0 = time.perf_counter()
    lag_task = asyncio.get_running_loop().create_task(run.measure_lag())
    seating = asyncio.gather(*(t.seat_everyone() for t in run.tables))
    try:
        await asyncio.wait_for(seating, max(1.0, deadline - time.perf_counter()))
    except (TimeoutError, ConnectionError, RuntimeError) as failure:
        seated = sum(t.seated for t in run.tables)
        raise SetupFailed(
            f"setup failed after {time.perf_counter() - t0:.1f} s ({failure!r}): {seated} of"
            f" {len(run.tables)} tables seated, {stats.peak_connections} connections, {stats.lost} lost"
        ) from None
    setup_s = time.perf_counter() - t0
    print(
        f"setup: {stats.peak_connections} connections, {args.tables} tables seated in {setup_s:.1f} s",
        flush=True,
    )

    server0, self0 = Usage.of(server.pid), Usage.of(os.getpid())
    workers0 = children_cpu(server.pid) if server.pid else 0.0
    stats.latencies.clear()
    stats.sent_at.clear()
    stats.lag.clear()
    stats.first_start_at = stats.last_move_at = time.perf_counter()
    run.all_playing = True
    for t in run.tables:
        t.start()
    ended = "every table played its games"
    while not run.finished.is_set():
        now = time.perf_counter()
        if now >= deadline:
            ended = f"--duration {args.duration:g} s reached"
            break
        if now - stats.last_move_at > args.stall:
            ended = f"stalled: no move for {args.stall:g} s"
            break
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(run.finished.wait(), min(1.0, deadline - now))
    t_end = time.perf_counter()
    run.stopping = True
    elapsed = t_end - stats.first_start_at
    server1, self1 = Usage.of(server.pid), Usage.of(os.getpid())
    workers_cpu = (children_cpu(server.pid) - workers0) if server.pid else 0.0
    server_hwm, self_hwm = vm_hwm(server.pid), vm_hwm(os.getpid())
    lag_task.cancel()
    for t in run.tables:
        t.close()
    await asyncio.sleep(0.1)  # let the closes go out before the server stops

    lat = sorted(stats.latencies)
    lag = sorted(stats.lag)
    all_until = stats.all_playing_until or t_end
    window = all_until - stats.first_start_at
    result: dict[str, Any] = {
        "tables": args.tables,
        "connections": stats.peak_connections,
        "tables_playing_peak": stats.peak_playing,
        "games_finished": stats.games_finished,
        "games_wanted": args.tables * args.games_per_table,
        "ended": ended,
        "setup_s": round(setup_s, 2),
        "elapsed_s": round(elapsed, 2),
        "moves": stats.moves,
        "moves_per_s": round(stats.moves / elapsed, 1) if elapsed > 0 else 0.0,
        "moves_per_s_all_playing": round(stats.moves_while_all_playing / window, 1) if window > 0 else 0.0,
        "all_playing_s": round(window, 2),
        "latency_ms": {
            "n": len(lat),
            "p50": round(percentile(lat, 50) * 1e3, 2),
            "p90": round(percentile(lat, 90) * 1e3, 2),
            "p99": round(percentile(lat, 99) * 1e3, 2),
            "max": round(lat[-1] * 1e3, 2) if lat else None,
            "mean": round(statistics.fmean(lat) * 1e3, 2) if lat else None,
        },
        "refused": dict(stats.refused),
        "lost_connections": stats.lost,
        "server": {
            "pid": server.pid,
            "in_process": args.in_process,
            "peak_rss_mib": None if server_hwm is None else round(server_hwm / 2**20, 1),
            "cpu_s": _delta(server0.cpu, server1.cpu),
            "cpu_system_s": _delta(server0.system, server1.system),
            "loop_waited_for_cpu_s": _delta(server0.waited, server1.waited),
            "storage_commits": server.commits(),
        },
        "load_generator": {
            "peak_rss_mib": None if self_hwm is None else round(self_hwm / 2**20, 1),
            "cpu_s": _delta(self0.cpu, self1.cpu),
            "loop_waited_for_cpu_s": _delta(self0.waited, self1.waited),
            "loop_lag_ms_p50": round(percentile(lag, 50) * 1e3, 2),
            "loop_lag_ms_p99": round(percentile(lag, 99) * 1e3, 2),
            "loop_lag_ms_max": round(lag[-1] * 1e3, 2) if lag else None,
        },
    }
    experts = [t for t in run.tables if t.experts]
    if experts:
        elat = sorted(stats.expert_latencies)
        # Every move at those tables but the client's own and the server's next deal
        # (one a finished game) is a hard bot's.
        total = sum(t.moves_done + t.moves_now for t in experts)
        bot_moves = max(0, total - stats.expert_own_moves - stats.expert_games)
        result["expert_tables"] = {
            "tables": len(experts),
            "games_finished": stats.expert_games,
            "hard_bot_moves": bot_moves,
            "hard_bot_moves_per_s": round(bot_moves / elapsed, 2) if elapsed > 0 else 0.0,
            "own_move_latency_ms_p50": round(percentile(elat, 50) * 1e3, 2),
            "own_move_latency_ms_p99": round(percentile(elat, 99) * 1e3, 2),
            "bot_workers": args.bot_workers,
            "workers_cpu_s": round(workers_cpu, 2),
            "hard_bot_moves_per_cpu_s": round(bot_moves / workers_cpu, 2) if workers_cpu > 0 else None,
        }
    busy = self1.machine_busy - self0.machine_busy
    ours = (
        (result["server"]["cpu_s"] or 0.0)
        + workers_cpu
        + (0.0 if args.in_process else result["load_generator"]["cpu_s"] or 0.0)
    )
    result["machine"] = {
        "cores": os.cpu_count(),
        "others_cpu_s": round(max(0.0, busy - ours), 2),  # other programs on this machine
        "stolen_cpu_s": round(self1.stolen - self0.stolen, 2),  # by the hypervisor
        "load_average": os.getloadavg()[0],
    }
    _print(result, elapsed)
    return result


def _pct(cpu: float | None, elapsed: float) -> str:
    return "?" if cpu is None or elapsed <= 0 else f"{cpu:.1f} s CPU = {100 * cpu / elapsed:.0f}% of one core"


def _waited(s: float | None) -> str:
    return "" if s is None else f", its loop waited {s:.1f} s for a CPU"


def _print(r: dict[str, Any], elapsed: float) -> None:
    lat = r["latency_ms"]
    srv, gen, m = r["server"], r["load_generator"], r["machine"]
    refused = ", ".join(f"{k} x{v}" for k, v in sorted(r["refused"].items())) or "none"
    lines = [
        f"ended: {r['ended']} after {r['elapsed_s']} s of play",
        f"tables held at once: {r['tables_playing_peak']} playing (of {r['tables']} seated)",
        f"connections: {r['connections']} (lost before the end: {r['lost_connections']})",
        f"games finished: {r['games_finished']}/{r['games_wanted']}",
        f"moves: {r['moves']}, {r['moves_per_s']} moves/s"
        f" ({r['moves_per_s_all_playing']} moves/s in the {r['all_playing_s']} s all tables played)",
        f"move latency, sent -> reply (ms): p50 {lat['p50']}, p90 {lat['p90']}, p99 {lat['p99']},"
        f" max {lat['max']}, mean {lat['mean']} (n={lat['n']})",
        f"refused: {refused}",
        f"server: peak RSS (VmHWM) {srv['peak_rss_mib']} MiB, {_pct(srv['cpu_s'], elapsed)}"
        + ("" if srv["cpu_system_s"] is None else f" ({srv['cpu_system_s']:.1f} s of it in the kernel)")
        + _waited(srv["loop_waited_for_cpu_s"])
        + ("" if srv["storage_commits"] is None else f", {srv['storage_commits']} storage commits")
        + (" (load generator included: --in-process)" if srv["in_process"] else ""),
        f"load generator: peak RSS (VmHWM) {gen['peak_rss_mib']} MiB, {_pct(gen['cpu_s'], elapsed)}"
        + _waited(gen["loop_waited_for_cpu_s"])
        + f"; loop lag p50 {gen['loop_lag_ms_p50']} ms, p99 {gen['loop_lag_ms_p99']} ms,"
        f" max {gen['loop_lag_ms_max']} ms",
        f"machine: {m['cores']} cores; other programs used {_pct(m['others_cpu_s'], elapsed)};"
        f" stolen by the hypervisor {m['stolen_cpu_s']} s; load average {m['load_average']:.1f}",
    ]
    e = r.get("expert_tables")
    if e is not None:
        workers = "the server's default" if e["bot_workers"] is None else e["bot_workers"]
        lines.append(
            f"expert tables: {e['tables']} (one client, three hard bots; bot workers: {workers}):"
            f" {e['games_finished']} games, {e['hard_bot_moves']} hard-bot moves ="
            f" {e['hard_bot_moves_per_s']} a second ({e['hard_bot_moves_per_cpu_s']} per CPU second of"
            f" the workers); worker processes used {_pct(e['workers_cpu_s'], elapsed)};"
            f" the client's own moves p50 {e['own_move_latency_ms_p50']} ms,"
            f" p99 {e['own_move_latency_ms_p99']} ms (the figures above are the other tables')"
        )
    print("\n".join(lines), flush=True)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--tables", type=int, default=100, help="tables of four clients (default 100)")
    p.add_argument("--games-per-table", type=int, default=1, help="games each table plays (default 1)")
    p.add_argument("--duration", type=float, default=300.0, help="stop after this many seconds (default 300)")
    p.add_argument("--stall", type=float, default=20.0, help="stop when no move was made for this long")
    p.add_argument("--bot", choices=BOT_NAMES, default="random", help="the clients' bot (default random)")
    p.add_argument("--think", type=float, default=0.0, help="mean seconds a client waits before a move")
    p.add_argument("--lobby", action="store_true", help="clients follow the lobby, as rummy-client does")
    p.add_argument(
        "--expert-tables",
        type=int,
        default=0,
        help="more tables, each of one client and three of the server's hard bots (default 0)",
    )
    p.add_argument(
        "--bot-workers",
        type=int,
        default=None,
        help="the server's worker processes for hard bots (0: on its event loop; default: its own)",
    )
    p.add_argument("--in-process", action="store_true", help="run the server in this process")
    p.add_argument(
        "--sync", choices=["full", "normal"], help="the server's storage sync mode (default: its own)"
    )
    p.add_argument("--connect", metavar="HOST:PORT", help="use a server that is already running")
    p.add_argument("--server-pid", type=int, help="with --connect: its pid, for its memory and CPU")
    p.add_argument(
        "--seed", type=int, default=1, help="seeds the clients' bots (the server deals from secrets)"
    )
    p.add_argument("--json", action="store_true", help="end with the figures as one line of JSON")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.tables < 1 or args.games_per_table < 1:
        raise SystemExit("--tables and --games-per-table must be at least 1")
    if args.expert_tables < 0 or (args.bot_workers is not None and args.bot_workers < 0):
        raise SystemExit("--expert-tables and --bot-workers must not be negative")
    try:
        result = asyncio.run(run_load(args))
    except SetupFailed as failure:
        print(failure, file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result), flush=True)
    return 0 if result["games_finished"] == result["games_wanted"] else 1


if __name__ == "__main__":
    sys.exit(main())
