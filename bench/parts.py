"""Where a move's CPU goes: the two parts of ours the echo server does not have, each alone.

    python bench/parts.py [--tables 2000] [--seconds 20] [--pace 1.0] [--json]

``bench/echo.py`` measures the floor: what any asyncio server in this language pays on
this machine to read a move and write its five frames. What our server does beyond
that is the rules and the storage, and the connection handling between them
(sessions, handlers, the runner, the registry, timers). This bench measures the
first two with no socket at all, so that the third is what is left:

- **rules**: ``--tables`` tables' masters (``rummy/server/master.py``) taken in
  turn, as the load's moves come to a server: each move checked and applied by the
  engine, its events told, each seat's view built and every frame encoded (all that
  ``TableMaster.play`` and its change's ``apply`` do), for ``--seconds`` of moves.
  The moves are chosen by random bots from each seat's view; their choosing is not
  counted.
- **storage**: those moves' statements, written through the server's ``Storage`` (a
  SQLite file in a temporary directory, ``synchronous=full`` as the server runs it)
  from an event loop at ``--pace`` moves a second a table, as many as ``--seconds``
  of them: the CPU of its writer thread a move (gathering, committing, handing each
  batch back), the part of it in the kernel, and the loop's own share (handing the
  writes over and hearing of their commits; the CPU of this bench's own pacing,
  measured alone first, is taken off it: on these machines a thread is charged about
  0.1 ms of CPU for each sleep of 10 ms it wakes from).

Printed: each part's CPU a move, and their sum. Beside ``python bench/echo.py
--tables N --think 1``'s figure for the floor, the sum says how much of our server's
CPU a move (``bench/load.py``) is left for handling the connections.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import json
import os
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rummy.engine import view_for
from rummy.engine.bots import make_bot
from rummy.protocol import TableOptions
from rummy.server.changes import Change, Context, Visitor
from rummy.server.master import TableMaster
from rummy.server.options import ServerOptions
from rummy.server.statements import Statement
from rummy.server.storage import Storage

PLAYERS = tuple(Visitor(i, name) for i, name in enumerate(("Ann", "Bob", "Cy", "Dee"), 1))


class Tables:
    """``count`` tables of four people, each with a game under way; a table whose game
    ends is replaced by a new one. Every change's statements are kept, in order."""

    def __init__(self, count: int, seed: int = 1) -> None:
        game_ids = itertools.count(1)
        self.table_ids = itertools.count(1)
        self.context = Context(
            ServerOptions(),
            next_game_id=lambda: next(game_ids),
            new_bot=lambda level: make_bot(level, random.Random(seed)),
        )
        self.bot = make_bot("random", random.Random(seed))
        self.setup: list[list[Statement]] = []  # sitting down and starting: not timed
        self.moves: list[list[Statement]] = []  # each move's statements
        self.tables = [self._new_table() for _ in range(count)]

    def _stored(self, change: Change, into: list[list[Statement]]) -> None:
        into.append(list(change.writes))
        change.apply()

    def _new_table(self) -> TableMaster:
        table = TableMaster(self.context, next(self.table_ids), "bench", TableOptions(), creator=0)
        for chair, player in enumerate(PLAYERS):
            self._stored(table.sit(player, chair, request_id=chair + 1), self.setup)
        self._stored(table.start(PLAYERS[0], request_id=9), self.setup)
        return table

    def play(self, seconds: float, keep: int) -> tuple[int, float]:
        """Moves for ``seconds`` of the masters' own time: (moves, that time); the
        statements of the first ``keep`` are kept."""
        moves, spent = 0, 0.0
        clock = time.thread_time  # CPU, not wall time: a neighbour on the core does not count
        while spent < seconds:
            for i, table in enumerate(self.tables):
                game = table.game
                if table.status != "playing" or game is None:
                    self.tables[i] = self._new_table()
                    continue
                if game.phase == "deal_over":
                    self._stored(table.timer("next_deal"), self.setup)
                    continue
                seat = game.current
                player = PLAYERS[game.partner_draw.seat_of_chair.index(seat)]
                move = self.bot.choose(view_for(game, seat))
                started = clock()
                change = table.play(player, move, None, request_id=moves)
                change.apply()
                spent += clock() - started
                if len(self.moves) < keep:
                    self.moves.append(list(change.writes))
                moves += 1
        return moves, spent


def thread_cpu(name: str) -> tuple[float, float]:
    """(user, system) CPU seconds of this process's thread called ``name`` (Linux)."""
    for thread in threading.enumerate():
        if thread.name == name and thread.native_id is not None:
            fields = Path(f"/proc/self/task/{thread.native_id}/stat").read_text().rsplit(")", 1)[1].split()
            tick = os.sysconf("SC_CLK_TCK")
            return int(fields[11]) / tick, int(fields[12]) / tick
    return 0.0, 0.0


async def paced(count: int, rate: float, send: Callable[[int], None]) -> None:
    """``send(i)`` for i in 0..count-1 at ``rate`` a second: the sends of each 10 ms
    together, as they would come in one turn of a server's loop."""
    tick = 0.01
    per_tick = rate * tick
    due = 0.0
    for i in range(count):
        send(i)
        due += 1
        if due >= per_tick:
            due -= per_tick
            await asyncio.sleep(tick)


async def store(
    path: Path, setup: list[list[Statement]], moves: list[list[Statement]], rate: float
) -> dict[str, Any]:
    """Write ``setup``, then ``moves`` at ``rate`` a second, through the server's Storage."""
    loop = asyncio.get_running_loop()
    # The pacing alone first: on these machines a thread's CPU grows with every sleep
    # it wakes from (about 0.1 ms for a sleep of 10 ms), which is this bench's, not the
    # storage's: it is taken off the loop's figure below.
    pacing0 = time.thread_time()
    await paced(len(moves), rate, lambda i: None)
    pacing = time.thread_time() - pacing0

    storage = Storage(path)
    for writes in setup[:-1]:
        storage.write_soon(writes, lambda error: None)
    await storage.write(setup[-1])  # committed after all those before it
    committed = loop.create_future()
    left = len(moves)
    failed: list[BaseException] = []

    def heard(error: BaseException | None) -> None:
        nonlocal left
        if error is not None:
            failed.append(error)
        left -= 1
        if left == 0:
            committed.set_result(None)

    user0, system0 = thread_cpu("rummy-db")
    commits0 = storage.commits
    loop0, wall0 = time.thread_time(), time.perf_counter()
    await paced(len(moves), rate, lambda i: storage.write_soon(moves[i], heard))
    await committed
    user1, system1 = thread_cpu("rummy-db")
    loop1, wall1 = time.thread_time(), time.perf_counter()
    commits = storage.commits - commits0
    await storage.close()
    if failed:
        raise RuntimeError(f"{len(failed)} writes failed, the first: {failed[0]}")
    writer = (user1 - user0) + (system1 - system0)
    return {
        "moves": len(moves),
        "seconds": round(wall1 - wall0, 2),
        "writer_ms_per_move": round(1e3 * writer / len(moves), 4),
        "writer_system_ms_per_move": round(1e3 * (system1 - system0) / len(moves), 4),
        "loop_ms_per_move": round(1e3 * max(0.0, loop1 - loop0 - pacing) / len(moves), 4),
        "pacing_ms_per_move": round(1e3 * pacing / len(moves), 4),
        "commits": commits,
        "moves_per_commit": round(len(moves) / max(1, commits), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=20.0, help="of moves, for each part")
    parser.add_argument("--pace", type=float, default=1.0, help="moves a second a table, for the storage")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    tables = Tables(args.tables)
    # The collector as rummy-server sets it (rummy/server/cli.py): what is there at the
    # start frozen, the young generation collected every 10,000 objects.
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 3, 3_000)
    rate = args.tables * args.pace
    moves, spent = tables.play(args.seconds, keep=max(1, int(rate * args.seconds)))
    rules = {"tables": args.tables, "moves": moves, "ms_per_move": round(1e3 * spent / moves, 4)}
    with tempfile.TemporaryDirectory(prefix="rummy-parts-") as tmp:
        storage = asyncio.run(store(Path(tmp) / "parts.db", tables.setup, tables.moves, rate))
    both = rules["ms_per_move"] + storage["writer_ms_per_move"] + storage["loop_ms_per_move"]

    print(
        f"rules: {args.tables} tables, {moves} moves: {rules['ms_per_move']:.3f} ms of CPU a move"
        " (the engine, the events told, every seat's view, every frame encoded)"
    )
    print(
        f"storage: {storage['moves']} moves at {rate:g} a second ({args.pace:g} a table):"
        f" writer thread {storage['writer_ms_per_move']:.3f} ms a move"
        f" ({storage['writer_system_ms_per_move']:.3f} in the kernel),"
        f" the loop's side {storage['loop_ms_per_move']:.3f} (handing the writes over, hearing back;"
        f" this bench's own pacing, {storage['pacing_ms_per_move']:.3f}, taken off);"
        f" {storage['commits']} commits, {storage['moves_per_commit']:g} moves each"
    )
    print(
        f"both: {both:.3f} ms a move; beside the floor of `python bench/echo.py --tables {args.tables}"
        " --think 1`, what is left of bench/load.py's CPU a move is the handling of the connections"
    )
    if args.json:
        print(json.dumps({"rules": rules, "storage": storage, "both_ms_per_move": round(both, 4)}))


if __name__ == "__main__":
    main()
