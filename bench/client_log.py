"""What the table's log costs a client as a game goes on: CPU a turn and memory, by its length.

    python bench/client_log.py [--lines 0,100,300] [--turns 40] [--size 120x40]

A headless app (Textual's ``run_test``, as the client tests run) shows the table's
log (``GameLog``) as wide and as tall as the table screen shows it at ``--size``.
Random bots play games with the engine; their moves are told to the log as a
client tells them, a turn to a line. For each length in ``--lines`` the log is
first filled with that many lines, then ``--turns`` more turns are told one at a
time, each drawn on the screen before the next: printed are the CPU a turn (the
telling and the drawing, median of the turns) and the memory the log holds (the
Python allocations it made while filling, traced by ``tracemalloc``, with its lines).

A client keeps the last 400 lines of the log; a game of two deals tells some 100
to 300. Figures are printed, never asserted; compare before and after in one sitting.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual.app import App, ComposeResult

from rummy.client.model import SeatInfo, Seats
from rummy.client.widgets.table.log import GameLog
from rummy.engine import Game, NextDeal, view_for
from rummy.engine.bots import make_bot

SEATS = Seats.of([SeatInfo(name, bot=i != 0) for i, name in enumerate(("Ann", "Bob", "Cyd", "Dee"))], 0)


def turns(seed: int = 1):  # type: ignore[no-untyped-def]
    """The events of one move after another, games of random bots without end."""
    rng = random.Random(seed)
    while True:
        game = Game(rng.randrange(1 << 30), seating="chosen")
        yield list(game.opening_events)
        while not game.is_over:
            if game.phase == "deal_over":
                yield game.apply(NextDeal())
                continue
            bot = make_bot("random", rng)
            yield game.apply(bot.choose(view_for(game, game.current)))


class LogApp(App[None]):
    """The log alone, as the table screen lays it out at a terminal's size."""

    def __init__(self, width: int, height: int) -> None:
        super().__init__()
        self.log_view = GameLog(id="log")
        self.log_view.styles.width, self.log_view.styles.height = width, height
        self.log_view.styles.padding = (0, 1)

    def compose(self) -> ComposeResult:
        yield self.log_view


async def measure(lines: int, count: int, size: tuple[int, int]) -> tuple[float, float]:
    """(CPU a turn in ms, MiB held) with ``lines`` lines in the log first."""
    width, height = size
    app = LogApp(width * 2 // 3, 8 if height >= 40 else 5 if height >= 32 else 3)
    moves = turns()
    async with app.run_test(size=size) as pilot:
        log = app.log_view
        await pilot.pause()
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        while len(log.lines) < lines:
            log.tell(next(moves), SEATS)
        await pilot.pause()
        await pilot.pause()
        gc.collect()
        held = (tracemalloc.get_traced_memory()[0] - before) / 2**20
        tracemalloc.stop()
        spent = []
        for _ in range(count):
            started = time.process_time()
            log.tell(next(moves), SEATS)
            await pilot.pause()
            spent.append(time.process_time() - started)
    return statistics.median(spent) * 1000, held


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", default="0,100,300", help="log lengths, comma-separated")
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--size", default="120x40")
    args = parser.parse_args()
    size = tuple(int(n) for n in args.size.split("x"))
    print(f"the table's log at {args.size}, {args.turns} turns told at each length:")
    for lines in (int(n) for n in args.lines.split(",")):
        cpu, held = asyncio.run(measure(lines, args.turns, (size[0], size[1])))
        print(
            f"  {lines:4d} lines before: {cpu:6.2f} ms of CPU a turn (median); the log holds {held:5.2f} MiB"
        )


if __name__ == "__main__":
    main()
