"""Attack mode: floods from one address against a server while honest tables play.

    python bench/attack.py [--tables 20] [--think 0.5] [--phase 15] [--gap 5]
                           [--lobby-tables 300] [--connections 64]
                           [--attacks lobby,watch,chat,fanout,idle,malformed,hog,all]
                           [--server-src DIR] [--keep] [--json]

It starts a ``rummy-server`` with its default limits (only the database is a
temporary one) and fills its lobby with ``--lobby-tables`` waiting tables, each
opened from its own loopback address (127.2.x.y). Then ``--tables`` honest
tables of four bot clients play whole games at a person's pace (``--think``
seconds on average before each move), each table from its own address
(127.1.x.y), as the load generator's clients do (bench/load.py).

After a baseline of ``--phase`` seconds, each attack runs for as long from one
address, 127.0.0.1, in a process of its own at a lower priority (so that its
work, which would be on another machine, delays neither the server nor the
honest clients' figures much), on up to ``--connections`` connections, each
sending at the documented rate of 20 requests a second and reconnecting when
the server cuts it off; then ``--gap`` seconds pass before the next:

- ``lobby``: asks for the whole table list (``lobby_subscribe``) again and again;
- ``watch``: watches an honest table and leaves it, again and again;
- ``chat``: watches an honest table and says 2,000 combining marks to it;
- ``fanout``: as ``chat``, but only as many connections at each honest table as the
  server lets one address watch it from (``spectators_per_address``, 4): the chat's
  fan-out as one address can load it (the connections past 4 a table sit it out);
- ``idle``: says hello and nothing more; half leave a frame three bytes short;
- ``malformed``: frames nested 5,000 deep, and ``type``s that are lists and maps;
- ``hog``: opens a table, seats three bots, starts it and leaves it to them;
- ``all``: all of the above at once, the connections shared among them.

Printed for each phase: the honest moves answered, their latency from move sent
to reply (p50, p99, max), moves left unanswered, honest connections lost, the
server's CPU and the log it wrote, and what the attacker got (connections,
answers by kind, cut-offs); the same once ``--gap`` seconds after each attack
(recovery). The goal: p99 under every attack within twice the baseline.

Every attacker comes from one address, and the server takes at most 4 spectators of a
table from one address (``spectator-quota``): with fewer than a quarter as many honest
tables as connections, most ``watch`` and ``chat`` connections are refused at the
watch. That refusal is their result, and is printed as such ("refused at watch by
spectator-quota: N of M"); a ``chat`` connection refused there stops, as an attacker
would (its chat would only be refused: it is at no table). The server is not run with
a raised cap to let them in: the bench measures the server as it runs, and a cap
raised for one address would measure a flood that server refuses. What the chat's
fan-out costs within the quota is ``fanout``'s to measure.

``--server-src DIR`` runs the server from another source tree (for example an
export of an older commit: ``git archive COMMIT | tar -x -C DIR``), to compare
before and after in one sitting. Every loop is bounded by the phase's time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import re
import resource
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import load
import msgspec
from load import Run, Usage, percentile, raise_fd_limit, stop_process, vm_hwm

from rummy.protocol import (
    PROTOCOL_VERSION,
    AddBot,
    Chat,
    CreateTable,
    Hello,
    Leave,
    LobbySubscribe,
    Start,
    TableOptions,
    Watch,
    encode,
    frame,
)
from rummy.server.options import ServerOptions

ATTACKER = "127.0.0.1"
# The spectators of one table the server takes from one address (its default: the
# server runs with its default limits here): fanout keeps within it.
QUOTA = ServerOptions().spectators_per_address
RATE = 20.0  # requests a second per connection: the documented rate limit
KINDS = ("lobby", "watch", "chat", "fanout", "idle", "malformed", "hog")
WATCHING = ("watch", "chat", "fanout")  # the attacks that watch a table: their watches are told
ZALGO = "Z" + "\u0301" * 1999  # the longest chat line allowed, all combining marks
DEEP = frame(b"\x91" * 5000 + b"\xc0")


def address(pool: int, i: int) -> str:
    """The ``i``-th loopback address of a pool: 127.<pool>.x.y."""
    return f"127.{pool}.{i // 250}.{1 + i % 250}"


# --- the attacker (a process of its own) ---------------------------------------------


class _Answer(msgspec.Struct):
    type: str = "?"
    code: str | None = None
    id: int | None = None


_answer = msgspec.msgpack.Decoder(_Answer)


class Flood(asyncio.Protocol):
    """One attacking connection: sends what it is told, reads everything (a peer that
    does not read is simply dropped) and counts the small answers by type or code."""

    def __init__(self, answers: Counter[str], watches: Counter[str]) -> None:
        self.answers = answers
        self.watches = watches  # each watch's answer: "watching", or the error's code
        self._watch_ids: set[int] = set()  # watches sent, not answered yet
        self.watch_answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()  # the first
        self.transport: asyncio.Transport | None = None
        self.closed = asyncio.get_running_loop().create_future()
        self._buffer = bytearray()
        self._ids = itertools.count(1)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)

    def data_received(self, data: bytes) -> None:
        buf = self._buffer
        buf += data
        pos = 0
        while len(buf) - pos >= 4:
            size = int.from_bytes(buf[pos : pos + 4], "big")
            if len(buf) - pos - 4 < size:
                break
            if size < 4096:  # answers are small; table lists are only skipped
                with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
                    m = _answer.decode(bytes(buf[pos + 4 : pos + 4 + size]))
                    if m.type in ("error", "seated", "watching"):
                        self.answers[m.code or m.type] += 1
                    if m.id is not None and m.id in self._watch_ids:
                        self._watch_ids.discard(m.id)
                        self.watches[m.code or m.type] += 1
                        if not self.watch_answer.done():
                            self.watch_answer.set_result(m.code or m.type)
            pos += 4 + size
        del buf[:pos]

    def send(self, kind: type[Any], **fields: Any) -> None:
        request_id = next(self._ids)
        if kind is Watch:
            self._watch_ids.add(request_id)
        self.send_raw(encode(kind(id=request_id, **fields)))

    def send_raw(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    @property
    def open(self) -> bool:
        return not self.closed.done()


@dataclass
class AttackStats:
    connections: int = 0
    refused_connect: int = 0
    cut_off: int = 0  # connections the server closed
    sent: int = 0
    answers: Counter[str] = field(default_factory=Counter)
    watches: Counter[str] = field(default_factory=Counter)  # the watches' answers
    stopped: int = 0  # connections that stopped, refused at their watch
    spare: int = 0  # fanout's connections past the quota at every table: not used


async def _paced(flood: Flood, stop_at: float, requests: Any, stats: AttackStats) -> None:
    """Send ``requests`` (an iterator of (kind, fields) or raw bytes) at RATE a second."""
    for item in requests:
        if not flood.open or time.monotonic() >= stop_at:
            return
        if isinstance(item, bytes):
            flood.send_raw(item)
        else:
            kind, fields = item
            flood.send(kind, **fields)
        stats.sent += 1
        await asyncio.sleep(1 / RATE)


def _fanout_target(j: int, targets: list[int], quota: int) -> int | None:
    """The table the ``j``-th fanout connection watches: ``quota`` connections a table,
    each table in turn; None past that (the server would refuse it: spectator-quota)."""
    return targets[j // quota] if j < quota * len(targets) else None


def _script(kind: str, i: int, targets: list[int]) -> Any:
    """What connection ``i`` of an attack sends, for ever (the caller stops it); chat
    and fanout say what they send once their watch is answered (``_attack_one``)."""
    target = targets[i % len(targets)]
    if kind == "lobby":
        return itertools.repeat((LobbySubscribe, {"on": True}))
    if kind == "watch":
        return itertools.cycle([(Watch, {"table_id": target}), (Leave, {})])
    if kind in ("chat", "fanout"):
        return itertools.repeat((Chat, {"text": ZALGO}))
    if kind == "malformed":
        unhashable = frame(msgspec.msgpack.encode({"type": [1, 2], "id": 3}))
        return itertools.cycle([DEEP, unhashable, frame(msgspec.msgpack.encode({"type": {"a": 1}}))])
    if kind == "hog":
        one = [
            (CreateTable, {"name": "mine", "options": TableOptions(on_drop="wait")}),
            (AddBot, {"chair": 1}),
            (AddBot, {"chair": 2}),
            (AddBot, {"chair": 3}),
            (Start, {}),
            (Leave, {}),
        ]
        return itertools.cycle(one)
    raise ValueError(kind)


async def _watched(flood: Flood, table_id: int, stop_at: float, stats: AttackStats) -> str | None:
    """Watch ``table_id`` and wait for the answer (at most until the phase ends or the
    connection does): ``watching``, the refusal's code, or None (no answer)."""
    flood.send(Watch, table_id=table_id)
    stats.sent += 1
    left = max(0.0, stop_at - time.monotonic())
    await asyncio.wait([flood.watch_answer, flood.closed], timeout=left, return_when="FIRST_COMPLETED")
    return flood.watch_answer.result() if flood.watch_answer.done() else None


async def _attack_one(kind: str, i: int, j: int, host: str, port: int, targets: list[int], stop_at: float,
                      stats: AttackStats, quota: int) -> None:  # fmt: skip
    """Connection ``i`` of the attacker (the ``j``-th of its ``kind``), for the phase."""
    loop = asyncio.get_running_loop()
    target: int | None = targets[i % len(targets)]
    if kind == "fanout":
        target = _fanout_target(j, targets, quota)
        if target is None:
            stats.spare += 1
            return
    while time.monotonic() < stop_at:
        flood = Flood(stats.answers, stats.watches)
        try:
            await asyncio.wait_for(
                loop.create_connection(lambda f=flood: f, host, port, local_addr=(ATTACKER, 0)), 5
            )
        except (OSError, TimeoutError):
            stats.refused_connect += 1
            await asyncio.sleep(0.2)
            continue
        stats.connections += 1
        flood.send(Hello, version=PROTOCOL_VERSION, name=f"mallory{i}", lobby=False)
        if kind == "idle":
            if i % 2:
                flood.send_raw((100).to_bytes(4, "big") + b"\x81" + b"x" * 96)  # 3 bytes short
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(flood.closed), max(0.0, stop_at - time.monotonic()))
        elif kind in ("chat", "fanout"):
            assert target is not None
            answer = await _watched(flood, target, stop_at, stats)
            if answer is not None and answer != "watching":
                # Refused (spectator-quota, most likely): the attack stops there, as the
                # server means it to. Chatting on would only be refused (not-at-table).
                if flood.transport is not None:
                    flood.transport.close()
                stats.stopped += 1
                return
            await _paced(flood, stop_at, _script(kind, i, targets), stats)
        else:
            await _paced(flood, stop_at, _script(kind, i, targets), stats)
        if flood.open:
            assert flood.transport is not None
            flood.transport.close()
        else:
            stats.cut_off += 1
            await asyncio.sleep(0.1)


async def attacker(kind: str, host: str, port: int, targets: list[int], duration: float,
                   connections: int, quota: int) -> dict[str, Any]:  # fmt: skip
    stop_at = time.monotonic() + duration
    kinds = KINDS if kind == "all" else (kind,)
    per_kind: dict[str, AttackStats] = {k: AttackStats() for k in kinds}
    tasks = [
        _attack_one(k, i, i // len(kinds), host, port, targets, stop_at, per_kind[k], quota)
        for i in range(connections)
        for k in [kinds[i % len(kinds)]]
    ]
    await asyncio.wait_for(asyncio.gather(*tasks), duration + 30)
    used = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "kinds": {k: {**vars(s), "answers": dict(s.answers)} for k, s in per_kind.items()},
        "cpu_s": round(used.ru_utime + used.ru_stime, 2),
    }


# --- the honest side -----------------------------------------------------------------


class Honest(Run):
    """Honest tables: each from its own loopback address (127.1.x.y)."""

    def source(self, table_index: int) -> str | None:
        return address(1, table_index)


async def lobby_tables(host: str, port: int, count: int) -> list[asyncio.StreamWriter]:
    """``count`` waiting tables, each opened by its own connection from its own address;
    the connections are kept (the tables close when their owner leaves)."""
    writers = []
    for i in range(count):
        reader, writer = await asyncio.open_connection(host, port, local_addr=(address(2, i), 0))
        writer.write(encode(Hello(id=1, version=PROTOCOL_VERSION, name=f"owner{i}", lobby=False)))
        writer.write(encode(CreateTable(id=2, name=f"Waiting table {i} " + "x" * 20)))
        writers.append(writer)
        asyncio.get_running_loop().create_task(_drain(reader))
    return writers


async def _drain(reader: asyncio.StreamReader) -> None:
    with contextlib.suppress(ConnectionError, OSError):
        while await reader.read(65536):
            pass


# --- the server ----------------------------------------------------------------------


class Server:
    def __init__(self, src: Path | None, db: Path, log: Path) -> None:
        self.src, self.db, self.log = src, db, log
        self.port = 0
        self.pid = 0

    async def start(self) -> None:
        env = dict(os.environ)
        if self.src is not None:
            env["PYTHONPATH"] = str(self.src)  # ahead of this tree's installed copy
        cmd = [
            sys.executable, "-m", "rummy.server.cli", "--host", "127.0.0.1", "--port", "0",
            "--db", str(self.db), "--log-level", "info",
        ]  # fmt: skip
        self._log = self.log.open("wb")
        self.proc = await asyncio.create_subprocess_exec(
            *cmd, stdout=asyncio.subprocess.PIPE, stderr=self._log, env=env, cwd=self.db.parent
        )
        self.pid = self.proc.pid
        assert self.proc.stdout is not None
        line = (await asyncio.wait_for(self.proc.stdout.readline(), 30)).decode()
        found = re.search(r"listening on [0-9.]+:(\d+)", line)
        if not found:
            raise SystemExit(f"the server did not start: {line!r} (see {self.log})")
        self.port = int(found.group(1))

    def log_bytes(self) -> int:
        return self.log.stat().st_size

    async def stop(self) -> None:
        await stop_process(self.proc)
        self._log.close()


# --- phases ---------------------------------------------------------------------------


@dataclass
class Window:
    name: str
    start: float
    end: float
    cpu: float | None = None
    log_bytes: int = 0
    unanswered: int = 0
    lost: int = 0
    attack: dict[str, Any] | None = None


def figures(run: Run, w: Window) -> dict[str, Any]:
    stats = run.stats
    lat = sorted(
        lat for lat, sent in zip(stats.latencies, stats.sent_at, strict=True) if w.start <= sent < w.end
    )
    span = w.end - w.start
    return {
        "phase": w.name,
        "seconds": round(span, 1),
        "moves": len(lat),
        "p50_ms": round(percentile(lat, 50) * 1e3, 1) if lat else None,
        "p99_ms": round(percentile(lat, 99) * 1e3, 1) if lat else None,
        "max_ms": round(lat[-1] * 1e3, 1) if lat else None,
        "unanswered": w.unanswered,
        "honest_lost": w.lost,
        "server_cpu_pct": None if w.cpu is None else round(100 * w.cpu / span),
        "server_log_kib": round(w.log_bytes / 1024, 1),
        "attack": w.attack,
    }


async def measure(run: Run, server: Server, name: str, seconds: float, during: Any = None) -> Window:
    """A window of ``seconds`` (while ``during`` runs, if given)."""
    u0, log0, lost0 = Usage.of(server.pid), server.log_bytes(), run.stats.lost
    w = Window(name, time.perf_counter(), 0.0)
    attack = None
    if during is not None:
        attack = await during
    else:
        await asyncio.sleep(seconds)
    w.end = time.perf_counter()
    u1 = Usage.of(server.pid)
    w.cpu = None if u0.cpu is None or u1.cpu is None else u1.cpu - u0.cpu
    w.log_bytes = server.log_bytes() - log0
    w.lost = run.stats.lost - lost0
    w.attack = attack
    return w


async def run_attacker(kind: str, port: int, targets: list[int], args: argparse.Namespace) -> dict[str, Any]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--role", "attacker", "--kind", kind, "--port", str(port),
        "--targets", ",".join(map(str, targets)), "--phase", str(args.phase),
        "--connections", str(args.connections), "--quota", str(args.quota),
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, _ = await asyncio.wait_for(proc.communicate(), args.phase + 60)
    lines = out.decode().strip().splitlines()
    return dict(json.loads(lines[-1])) if lines else {"error": f"attacker exited {proc.returncode}"}


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    raise_fd_limit(4 * args.tables + args.lobby_tables + 4 * args.connections + 256)
    tmp = Path(tempfile.mkdtemp(prefix="rummy-attack-"))
    server = Server(args.server_src, tmp / "attack.db", tmp / "server.log")
    await server.start()
    try:
        print(
            f"server pid {server.pid} on port {server.port}"
            f" ({'source ' + str(args.server_src) if args.server_src else 'this tree'}), log {server.log}",
            flush=True,
        )
        owners = await lobby_tables("127.0.0.1", server.port, args.lobby_tables)
        honest = load.build_parser().parse_args(  # the load generator's own defaults otherwise
            [
                "--tables",
                str(args.tables),
                "--think",
                str(args.think),
                "--lobby",
                "--games-per-table",
                "1000000",
            ]
        )
        run = Honest(honest, "127.0.0.1", server.port)
        await asyncio.wait_for(asyncio.gather(*(t.seat_everyone() for t in run.tables)), 60)
        targets = [t.table_id for t in run.tables if t.table_id is not None]
        for t in run.tables:
            t.start()
        print(
            f"{args.lobby_tables} waiting tables in the lobby; {args.tables} honest tables playing"
            f" (think {args.think} s); each phase {args.phase:g} s, then {args.gap:g} s to recover",
            flush=True,
        )
        await asyncio.sleep(3)  # the games under way
        windows = [await measure(run, server, "baseline", args.phase)]
        print(_line(figures(run, windows[-1])), flush=True)
        for kind in args.attacks:
            w = await measure(run, server, kind, args.phase, run_attacker(kind, server.port, targets, args))
            after = await measure(run, server, f"  {args.gap:g} s after", args.gap)
            pending = run.pending_moves()
            w.unanswered = sum(w.start <= sent < w.end for sent in pending)
            after.unanswered = sum(after.start <= sent < after.end for sent in pending)
            windows += [w, after]
            print(_line(figures(run, w)), flush=True)
            print(_line(figures(run, after)), flush=True)
        run.stopping = True
        results = [figures(run, w) for w in windows]
        hwm = vm_hwm(server.pid)
        for t in run.tables:
            t.close()
        for writer in owners:
            writer.close()
        await asyncio.sleep(0.2)
    finally:
        await server.stop()
    base = results[0]["p99_ms"] or float("nan")
    attacked = [r for r in results[1:] if not r["phase"].startswith(" ")]
    worst = max(attacked, key=lambda r: r["p99_ms"] if r["p99_ms"] is not None else float("inf"))
    ratio = (worst["p99_ms"] or float("inf")) / base
    print(
        f"worst p99 under attack: {worst['p99_ms']} ms ({worst['phase']}) = {ratio:.1f}x the baseline's"
        f" {base} ms; goal within 2x: {'met' if ratio <= 2 else 'NOT met'}; server peak RSS"
        f" {None if hwm is None else round(hwm / 2**20)} MiB",
        flush=True,
    )
    if args.keep:
        print(f"the server's database and log are kept in {tmp}", flush=True)
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"phases": results, "worst_ratio": round(ratio, 2), "server_peak_rss_mib": hwm}


def _line(r: dict[str, Any]) -> str:
    text = (
        f"{r['phase']:>14}: {r['moves']:5d} moves, p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms,"
        f" max {r['max_ms']} ms; unanswered {r['unanswered']}, honest lost {r['honest_lost']};"
        f" server CPU {r['server_cpu_pct']}%, log {r['server_log_kib']} KiB"
    )
    attack = r["attack"] or {}
    if "cpu_s" in attack:
        text += f"; the attacker used {100 * attack['cpu_s'] / r['seconds']:.0f}% of a core"
    for kind, a in attack.get("kinds", {}).items():
        answers = ", ".join(f"{k} {v}" for k, v in sorted(a["answers"].items(), key=lambda kv: -kv[1])[:4])
        text += (
            f"\n{'':>16}{kind}: {a['connections']} connections ({a['cut_off']} cut off,"
            f" {a['refused_connect']} not made), {a['sent']} sent; {answers or 'no answers'}"
        )
        if kind in WATCHING:
            text += "\n" + _watches_line(kind, a)
    return text


def _watches_line(kind: str, a: dict[str, Any]) -> str:
    """What the attack's watches came to: refused by the spectator quota, the result
    itself for a flood from one address, is said first and in so many words."""
    watches = Counter(a.get("watches", {}))
    asked, quota = watches.total(), watches["spectator-quota"]
    others = ", ".join(
        f"{k} {v}" for k, v in watches.most_common() if k not in ("watching", "spectator-quota")
    )
    text = (
        f"{'':>18}refused at watch by spectator-quota: {quota} of {asked} watches answered"
        f" ({watches['watching']} watching{', ' + others if others else ''})"
    )
    if a.get("stopped"):
        text += f"; {a['stopped']} connections refused there stopped, the attack ending at the watch"
    if a.get("spare"):
        text += f"; {a['spare']} connections not used (4 a table from one address is the quota)"
    return text


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--tables", type=int, default=20, help="honest tables of four clients (default 20)")
    p.add_argument("--think", type=float, default=0.5, help="honest clients' mean seconds before a move")
    p.add_argument("--phase", type=float, default=15.0, help="seconds each phase lasts (default 15)")
    p.add_argument("--gap", type=float, default=5.0, help="seconds measured after each attack (default 5)")
    p.add_argument("--lobby-tables", type=int, default=300, help="waiting tables in the lobby (default 300)")
    p.add_argument("--connections", type=int, default=64, help="attacking connections (default 64)")
    p.add_argument(
        "--attacks",
        type=lambda s: [k for k in s.split(",") if k],
        default=[*KINDS, "all"],
        help=f"which, in order (default {','.join([*KINDS, 'all'])})",
    )
    p.add_argument("--server-src", type=Path, help="run the server from this source tree")
    p.add_argument("--keep", action="store_true", help="keep the server's database and log")
    p.add_argument("--json", action="store_true", help="end with the figures as one line of JSON")
    # The attacker process's own arguments.
    p.add_argument("--role", choices=["bench", "attacker"], default="bench", help=argparse.SUPPRESS)
    p.add_argument("--kind", help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, help=argparse.SUPPRESS)
    p.add_argument("--targets", help=argparse.SUPPRESS)
    p.add_argument("--quota", type=int, default=QUOTA, help=argparse.SUPPRESS)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.role == "attacker":
        # On one machine the attacker's own work takes CPU from the server, which an
        # attacker elsewhere would not: it runs at a lower priority.
        os.nice(10)
        targets = [int(t) for t in args.targets.split(",")]
        result = asyncio.run(
            attacker(args.kind, "127.0.0.1", args.port, targets, args.phase, args.connections, args.quota)
        )
        print(json.dumps(result), flush=True)
        return 0
    unknown = set(args.attacks) - {*KINDS, "all"}
    if unknown:
        raise SystemExit(f"unknown attacks: {', '.join(sorted(unknown))}")
    result = asyncio.run(main_async(args))
    if args.json:
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
