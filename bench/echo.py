"""The yardstick: a bare asyncio server that answers the same frames on the same connections.

    python bench/echo.py [--tables 500] [--think 1] [--duration 60] [--beside-load [--pairs N]] [--json]

How much CPU a move costs our server means little alone: part of it is what any
asyncio server in this language pays on this machine to read a request and write
five frames. This bench measures that part. It starts ``echo`` (this file, as a
subprocess: one process, one stock asyncio loop, as ``rummy-server``), opens four
connections per table, says ``hello`` on each (answered with a ``welcome`` of the
real size), and then plays as ``bench/load.py`` does: one move in flight per
table, each seat in turn waiting ``--think`` seconds on average before sending a
``move`` frame (a real one). The echo server decodes only the frame's ``type`` and
``id``, and answers as ours does: the mover gets ``ok`` and a ``game`` push in one
write, the three others the push (a real mid-deal ``game`` frame, with a hand), one
write each. No rules, no storage, no views: what is left is the floor. It reads its
sockets as ours does, into buffers from its heap (``keep_reads_off_mmap``).

Printed: moves, the latency from a move sent to its ``ok`` (p50, p99), and the echo
server's CPU per move, with the part of it in the kernel (system calls: reading and
writing the sockets, waiting for them). With ``--beside-load`` it first runs ``bench/load.py`` with the
same tables, pace and duration (our server, in the same sitting) and prints both
figures and their ratio: the goal is our CPU per move within 2x of this. One
pair's ratio moves with the machine (the echo server's time in the kernel doubles
from one run to the next): ``--pairs N`` takes N pairs in turn and prints each
ratio, then their median and range.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import msgspec

from rummy.engine import Game, view_for
from rummy.engine.bots import make_bot
from rummy.protocol.codec import MAX_CLIENT_FRAME, MAX_SERVER_FRAME, FrameSplitter, encode
from rummy.protocol.messages import PROTOCOL_VERSION, GameUpdate, Hello, MoveRequest, Ok, Welcome
from rummy.protocol.wire import event_to_wire, move_to_wire, view_to_wire

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter (malloc.h)


class _Head(msgspec.Struct):
    type: str
    id: int | None = None


def real_frames() -> tuple[bytes, bytes, bytes, bytes]:
    """A welcome, a mid-deal game push (a seat's, with its hand), a move request and an
    ``ok``, as our server and clients send them."""
    game = Game(2026)
    bot = make_bot("random", random.Random(1))
    events: list[Any] = []
    for _ in range(20):
        events = game.apply(bot.choose(view_for(game, game.current)))
    seat = game.current
    push = GameUpdate(
        table_id=1,
        seat=seat,
        moves=len(game.moves),
        view=view_to_wire(view_for(game, seat)),
        events=[event_to_wire(e) for e in events],
    )
    welcome = Welcome(id=1, version=PROTOCOL_VERSION, name="load1-0", server="rummy-server", max_frame=65536)
    move = MoveRequest(id=7, move=move_to_wire(game.legal_moves()[0]), after=len(game.moves))
    return encode(welcome), encode(push), encode(move), encode(Ok(id=7))


# --- the echo server ----------------------------------------------------------------------


class EchoConnection(asyncio.Protocol):
    def __init__(self, server: EchoServer) -> None:
        self.server = server
        self.frames = FrameSplitter(MAX_CLIENT_FRAME)  # the protocol's own cutter
        self.transport: asyncio.Transport | None = None
        self.table: list[EchoConnection] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.table = self.server.seat(self)

    def data_received(self, data: bytes) -> None:
        for payload in self.frames.feed(data):
            self.answer(self.server.decoder.decode(payload))

    def answer(self, head: _Head) -> None:
        assert self.transport is not None
        if head.type == "hello":
            self.transport.write(self.server.welcome)
        elif head.type == "move":
            push = self.server.push
            self.transport.write(encode(Ok(id=head.id or 0)) + push)
            for other in self.table:
                if other is not self and other.transport is not None:
                    other.transport.write(push)


class EchoServer:
    def __init__(self) -> None:
        self.welcome, self.push, _, _ = real_frames()
        self.decoder = msgspec.msgpack.Decoder(_Head)
        self.tables: list[list[EchoConnection]] = []

    def seat(self, conn: EchoConnection) -> list[EchoConnection]:
        """Connections are seated four to a table, in the order they come."""
        if not self.tables or len(self.tables[-1]) == 4:
            self.tables.append([])
        self.tables[-1].append(conn)
        return self.tables[-1]


def keep_reads_off_mmap() -> None:
    """asyncio reads a socket into a new 256 KiB buffer each time (``max_size``). glibc
    gives a block that large its own mmap, until a freed block that large has raised
    its threshold: a fresh process maps, shrinks and unmaps a buffer for every read
    (three system calls, and page faults), where ``rummy-server``, whose start frees
    such blocks, takes it from its heap. Those calls made the floor slow in some runs
    and not in others (0.056-0.094 ms a move, the kernel time 0.034-0.067, in turn
    with this: 0.055-0.070). Set so, this server reads as ours does."""
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc: it has no such threshold to set
        return
    mallopt(M_MMAP_THRESHOLD, 1 << 20)


async def serve() -> None:
    keep_reads_off_mmap()
    loop = asyncio.get_running_loop()
    echo = EchoServer()
    server = await loop.create_server(lambda: EchoConnection(echo), "127.0.0.1", 0, backlog=4096)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


# --- the clients --------------------------------------------------------------------------


class Seat(asyncio.Protocol):
    def __init__(self, run: Run, table: int, index: int) -> None:
        self.run, self.table, self.index = run, table, index
        self.frames = FrameSplitter(MAX_SERVER_FRAME)
        self.transport: asyncio.Transport | None = None
        self.waiting: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        for payload in self.frames.feed(data):
            head = self.run.decoder.decode(payload)
            if head.type in ("ok", "welcome") and self.waiting is not None and not self.waiting.done():
                self.waiting.set_result(None)

    async def call(self, frame: bytes) -> float:
        assert self.transport is not None
        self.waiting = asyncio.get_running_loop().create_future()
        sent = time.perf_counter()
        self.transport.write(frame)
        await self.waiting
        return time.perf_counter() - sent


class Run:
    def __init__(self, args: argparse.Namespace, port: int) -> None:
        self.args, self.port = args, port
        self.decoder = msgspec.msgpack.Decoder(_Head)
        _, _, self.move, _ = real_frames()
        self.hello = encode(Hello(id=1, version=PROTOCOL_VERSION, name="load", lobby=False))
        self.latencies: list[float] = []
        self.rng = random.Random(2026)


async def drive(args: argparse.Namespace, port: int, pid: int) -> dict[str, Any]:
    run = Run(args, port)
    loop = asyncio.get_running_loop()
    ready = 0
    go = asyncio.Event()

    async def table(index: int) -> None:
        nonlocal ready
        seats = []
        for i in range(4):
            _, seat = await loop.create_connection(lambda i=i: Seat(run, index, i), "127.0.0.1", port)
            seats.append(seat)
        for seat in seats:
            await seat.call(run.hello)
        ready += 1
        await go.wait()
        turn = index % 4
        while not stop.is_set():
            if args.think:
                await asyncio.sleep(run.rng.expovariate(1 / args.think))
            if stop.is_set():
                break
            run.latencies.append(await seats[turn].call(run.move))
            turn = (turn + 1) % 4
        for seat in seats:
            assert seat.transport is not None
            seat.transport.close()

    stop = asyncio.Event()
    tasks = [asyncio.ensure_future(table(i)) for i in range(args.tables)]
    while ready < args.tables:
        await asyncio.sleep(0.05)
    (cpu0, system0), t0 = _cpu(pid), time.perf_counter()
    go.set()
    await asyncio.sleep(args.duration)
    (cpu1, system1), elapsed = _cpu(pid), time.perf_counter() - t0
    stop.set()
    moves = len(run.latencies)
    await asyncio.gather(*tasks, return_exceptions=True)
    lat = sorted(run.latencies)
    cpu = cpu1 - cpu0
    return {
        "tables": args.tables,
        "think_s": args.think,
        "elapsed_s": round(elapsed, 2),
        "moves": moves,
        "latency_ms": {"p50": _ms(lat, 50), "p99": _ms(lat, 99)},
        "cpu_s": round(cpu, 2),
        "cpu_ms_per_move": round(1e3 * cpu / moves, 3) if moves else None,
        "system_ms_per_move": round(1e3 * (system1 - system0) / moves, 3) if moves else None,
    }


def _ms(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    return round(1e3 * values[min(len(values) - 1, int(len(values) * p / 100))], 2)


def _cpu(pid: int) -> tuple[float, float]:
    """CPU seconds ``pid`` has used (all its threads), and the part of it in the kernel."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick, int(fields[12]) / tick


def echo_run(args: argparse.Namespace) -> dict[str, Any]:
    proc = subprocess.Popen([sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        return asyncio.run(drive(args, port, proc.pid))
    finally:
        proc.terminate()
        proc.wait(10)


def load_run(args: argparse.Namespace) -> dict[str, Any]:
    """Our server under bench/load.py at the same tables, pace and duration."""
    load = Path(__file__).with_name("load.py")
    cmd = [sys.executable, str(load), "--tables", str(args.tables), "--think", str(args.think)]
    cmd += ["--duration", str(args.duration), "--games-per-table", "1000", "--lobby", "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout  # ends at --duration: rc 1
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def ours_figures(args: argparse.Namespace) -> dict[str, Any]:
    """Our server's figures from one ``bench/load.py`` run, printed."""
    ours = load_run(args)
    moves = ours["moves"]
    per_move = 1e3 * ours["server"]["cpu_s"] / moves if moves else None
    system = ours["server"]["cpu_system_s"]
    figures = {
        "moves": moves,
        "latency_ms": ours["latency_ms"],
        "cpu_s": ours["server"]["cpu_s"],
        "cpu_ms_per_move": None if per_move is None else round(per_move, 3),
        "system_ms_per_move": round(1e3 * system / moves, 3) if moves and system is not None else None,
        "peak_rss_mib": ours["server"]["peak_rss_mib"],
    }
    print(
        f"rummy-server: {ours['moves']} moves, latency p50 {ours['latency_ms']['p50']} ms,"
        f" p99 {ours['latency_ms']['p99']} ms, CPU {figures['cpu_ms_per_move']} ms"
        f" per move ({figures['system_ms_per_move']} in the kernel),"
        f" peak RSS {ours['server']['peak_rss_mib']} MiB",
        flush=True,
    )
    return figures


def echo_figures(args: argparse.Namespace) -> dict[str, Any]:
    """The echo server's figures from one run, printed."""
    echo = echo_run(args)
    print(
        f"echo server: {args.tables} tables, think {args.think} s: {echo['moves']} moves in"
        f" {echo['elapsed_s']} s, latency p50 {echo['latency_ms']['p50']} ms, p99"
        f" {echo['latency_ms']['p99']} ms, CPU {echo['cpu_ms_per_move']} ms per move"
        f" ({echo['system_ms_per_move']} in the kernel)",
        flush=True,
    )
    return echo


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=500)
    p.add_argument("--think", type=float, default=1.0, help="mean seconds a seat waits before a move")
    p.add_argument("--duration", type=float, default=60.0, help="seconds of play measured")
    p.add_argument("--beside-load", action="store_true", help="run bench/load.py first, same figures")
    p.add_argument(
        "--pairs", type=int, default=1, help="with --beside-load: this many runs of each, taken in turn"
    )
    p.add_argument("--json", action="store_true")
    p.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.pairs < 1:
        p.error("--pairs must be at least 1")
    if args.serve:
        asyncio.run(serve())
        return
    runs: list[dict[str, Any]] = []
    count = args.pairs if args.beside_load else 1
    for i in range(count):
        if count > 1:
            print(f"pair {i + 1} of {count}:", flush=True)
        run: dict[str, Any] = {}
        if args.beside_load:
            run["rummy_server"] = ours_figures(args)
        run["echo"] = echo = echo_figures(args)
        if args.beside_load and echo["cpu_ms_per_move"] and run["rummy_server"]["cpu_ms_per_move"]:
            run["ratio"] = round(run["rummy_server"]["cpu_ms_per_move"] / echo["cpu_ms_per_move"], 2)
            print(f"our CPU per move is {run['ratio']:.2f}x the echo server's (goal: at most 2x)", flush=True)
        elif args.beside_load:
            # The kernel counts a process's CPU in ticks (10 ms): a short, quiet run can
            # measure none, and no ratio can be made of it.
            print("no ratio: a server's CPU was under the clock's tick (run longer or more tables)")
        runs.append(run)
    figures: dict[str, Any] = {"runs": runs}
    ratios = sorted(r["ratio"] for r in runs if "ratio" in r)
    if ratios:
        # One pair's ratio moves with the machine: mostly with the echo server's time in
        # the kernel, which doubles from run to run. The median of pairs taken in turn
        # is the figure to compare.
        figures["ratio"] = statistics.median(ratios)
        figures["ratio_range"] = [ratios[0], ratios[-1]]
        if count > 1:
            print(
                f"over {count} pairs: our CPU per move is {figures['ratio']:.2f}x the echo server's"
                f" (median; {ratios[0]:.2f}x to {ratios[-1]:.2f}x; goal: at most 2x)"
            )
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
