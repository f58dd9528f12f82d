"""The history and replays on a big server: how long a page of finished games and a
game's record take to read, and a record to replay into the replay screen's steps.

    python bench/history.py [--games 100000] [--players 2000] [--db PATH]

It fills a fresh SQLite file (``Storage``'s own schema and statements) with
``--games`` finished games among ``--players`` names, every game with the moves of
one real game (bots playing), then times, on the storage's own thread as the server
runs them: the first page for a player with many games and for one with none,
paging on through ten pages, and ``get_record``; then the client's ``Replay`` of
that record (every step's view and hands). Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rummy.client.replay import Replay
from rummy.engine import Game, view_for
from rummy.engine.bots import make_bot
from rummy.protocol.wire import move_to_wire
from rummy.server import archive
from rummy.server import statements as sql
from rummy.server.statements import StoredPlayer
from rummy.server.storage import Storage


def one_game(seed: int) -> Game:
    game = Game(seed, "draw")
    bot = make_bot("heuristic", random.Random(seed))
    while not game.is_over:
        game.apply(bot.choose(view_for(game, game.current)))
    return game


async def fill(storage: Storage, games: int, players: int, game: Game) -> None:
    rng = random.Random(1)
    names = [f"player{i}" for i in range(players)]
    moves = [move_to_wire(m) for m in game.moves]
    batch = []
    for game_id in range(1, games + 1):
        table_id = (game_id - 1) // 5 + 1
        if game_id % 5 == 1:
            batch.append(sql.new_table(table_id, f"table {table_id}", "{}", 0))
        seated = rng.sample(names, 4)
        batch.append(sql.new_game(game_id, table_id, (game_id - 1) % 5 + 1, game.seed, "draw", seated))
        seat_of = game.partner_draw.seat_of_chair
        batch += [sql.game_player(game_id, StoredPlayer(seat_of[c], c, seated[c], False)) for c in range(4)]
        if game_id > games - 100:  # the newest hundred have their moves (the records fetched)
            batch += [sql.add_move(game_id, n, m) for n, m in enumerate(moves)]
        batch.append(sql.finish_game(game_id, game.totals()))
        if len(batch) >= 20_000:
            await storage.write(batch)
            batch = []
    await storage.write(batch)


async def timed(label: str, runs: int, work: Callable[[], Awaitable[object]]) -> None:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        await work()
        times.append(time.perf_counter() - start)
    ms = [t * 1000 for t in times]
    print(f"{label:<46} median {statistics.median(ms):7.2f} ms   max {max(ms):7.2f} ms   ({runs} runs)")


async def main(games: int, players: int, db: Path) -> None:
    game = one_game(7)
    storage = Storage(db, sync="normal")
    start = time.perf_counter()
    await fill(storage, games, players, game)
    print(
        f"{games} finished games among {players} names written in {time.perf_counter() - start:.1f} s ({db})"
    )
    busy = await storage.read(
        lambda c: c.execute(
            "SELECT name, count(*) n FROM game_players GROUP BY name ORDER BY n DESC LIMIT 1"
        ).fetchone()
    )
    name, count = busy
    print(f"the busiest name, {name}, played {count} games")
    await timed(
        f"history, first page (20), {name}", 20, lambda: archive.history_page(storage, name, 20, None, 1)
    )
    await timed(
        "history, first page (20), a newcomer",
        20,
        lambda: archive.history_page(storage, "nobody", 20, None, 1),
    )
    await timed(
        "history, first page (50), a newcomer",
        20,
        lambda: archive.history_page(storage, "nobody", 50, None, 1),
    )

    async def ten_pages() -> None:
        before = None
        for _ in range(10):
            page = await archive.history_page(storage, name, 20, before, 1)
            before = page.games[-1].game_id

    await timed(f"history, ten pages on (20 each), {name}", 5, ten_pages)
    record = (await archive.game_record(storage, games, 1)).record
    await timed(f"get_record ({len(record.moves)} moves)", 20, lambda: archive.game_record(storage, games, 1))

    async def replay() -> None:
        Replay(record)

    await timed(f"client Replay: {len(record.moves) + 1} steps built", 20, replay)
    await storage.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--db", type=Path, default=None, help="the file to fill (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(args.games, args.players, args.db or Path(tmp) / "history.db"))
