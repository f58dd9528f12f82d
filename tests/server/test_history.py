"""History and replays over the wire: finished games are listed (the asker's own
first, paged) and their records fetched; a game still in play is never listed and
has no record (RULES R9); a record replays to exactly the scores the game ended
with (R7, R8); "play again" keeps a running tally of the table's games."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

from rummy.engine import team_of
from rummy.net import Client
from rummy.protocol import (
    AddBot,
    CreateTable,
    Error,
    GameSummary,
    GetRecord,
    History,
    HistoryPage,
    Ok,
    Record,
    Seated,
    Sit,
    Start,
    Table,
    TableOptions,
    Watch,
    Watching,
    errors,
    replay_record,
)
from rummy.protocol.record import RECORD_FORMAT
from rummy.protocol.wire import result_to_wire
from rummy.server import Server
from rummy.server import statements as sql
from rummy.server.storage import Storage

from .game_helpers import (
    close_all,
    connect,
    play_again,
    play_all,
    serve,
    server,
    table_of_four,
)

__all__ = ["server"]


async def finished_game(server: Server, name: str) -> tuple[list[Client], int]:
    """``name`` and three bots play a whole game; returns the clients and the game's id."""
    clients, _, table_id = await table_of_four(server, names=(name,), bots=3)
    await play_all(clients)
    return clients, server.table(table_id).game_id


async def history(c: Client, **fields: object) -> HistoryPage:
    page = await c.request(History, **fields)
    assert isinstance(page, HistoryPage), page
    return page


async def test_finished_games_are_listed_own_first_with_players_teams_and_result(server: Server) -> None:
    ann, ann_game = await finished_game(server, "Ann")
    bob, bob_game = await finished_game(server, "Bob")
    page = await history(ann[0])
    assert [g.game_id for g in page.games] == [ann_game, bob_game]  # Ann's own first, though older
    assert [g.mine for g in page.games] == [True, False]
    assert not page.more
    mine = page.games[0]
    table = server.table(mine.table_id)
    assert mine.table_name == "test" and mine.number == 1
    assert table.game is not None
    assert mine.totals == table.game.totals() and mine.winner == table.game.winner()
    assert mine.started <= mine.finished
    # Players by seat: the partner draw put Ann (chair 0) in her seat; the others are bots.
    assert [p.seat for p in mine.players] == [0, 1, 2, 3]
    ann_seat = table.game.partner_draw.seat_of_chair[0]
    assert [(p.name, p.bot) for p in mine.players if p.seat == ann_seat] == [("Ann", False)]
    assert sum(p.bot for p in mine.players) == 3
    # Bob sees the same two games, his own first.
    assert [g.game_id for g in (await history(bob[0])).games] == [bob_game, ann_game]
    await close_all([*ann, *bob])


async def test_a_game_in_play_is_never_listed_and_has_no_record(server: Server) -> None:
    """R9: the hands and the stock of a game being played are secret, so it has no
    record to give and is in no list, not even for its own players; once it is over it
    is there for everyone."""
    clients, first = await finished_game(server, "Ann")
    await play_again(clients)
    await clients[0].until(
        lambda c: c.table is not None and c.table.games == 2 and c.table.status == "playing"
    )
    table = server.open_tables()[0]
    running = table.game_id
    assert running != first and table.status == "playing"
    for asker in (clients[0], await connect(server, "Eve")):
        page = await history(asker)
        assert [g.game_id for g in page.games] == [first]
        refused = await asker.request(GetRecord, game_id=running)
        assert isinstance(refused, Error) and refused.code == errors.NO_SUCH_GAME
        never = await asker.request(GetRecord, game_id=running + 1000)
        assert isinstance(never, Error) and never.code == errors.NO_SUCH_GAME
        assert refused.text == never.text  # not even whether it exists
        page_after = await asker.request(History, before=running)
        assert isinstance(page_after, Error) and page_after.code == errors.NO_SUCH_GAME
    await play_all(clients, game_number=2)
    assert running in [g.game_id for g in (await history(clients[0])).games]
    await close_all(clients)


async def test_a_record_replays_to_exactly_the_scores_the_game_ended_with(server: Server) -> None:
    """R7, R8: every deal's result (each hand at its end, each item of both teams'
    scores) and the totals, replayed from the record's seed and moves."""
    clients, game_id = await finished_game(server, "Ann")
    answer = await clients[0].request(GetRecord, game_id=game_id)
    assert isinstance(answer, Record) and answer.game_id == game_id
    record = answer.record
    table = server.open_tables()[0]
    live = table.game
    assert live is not None and live.is_over
    assert record.format == RECORD_FORMAT and record.game_id == game_id and record.table == "test"
    assert int(record.seed) == live.seed and record.seating == live.seating
    assert len(record.moves) == len(live.moves)
    assert record.result is not None
    assert record.result.totals == live.totals() and record.result.winner == live.winner()
    assert record.result.deals == [result_to_wire(r) for r in live.results]
    replayed = replay_record(record)
    assert replayed.snapshot() == live.snapshot()
    view = clients[0].view  # what Ann saw at the end
    assert view is not None and view.phase == "game_over"
    assert replayed.totals() == view.totals() and tuple(replayed.results) == view.results
    await close_all(clients)


async def test_history_pages_through_every_game_with_limits(server: Server) -> None:
    ids = []
    everyone = []
    for name in ("Ann", "Bob", "Ann", "Cy"):
        clients, game_id = await finished_game(server, name)
        ids.append(game_id)
        everyone += clients
    ann = everyone[0]
    expected = [ids[2], ids[0], ids[3], ids[1]]  # Ann's two, newest first; then the others
    seen: list[GameSummary] = []
    before = None
    for _ in range(10):
        page = await history(ann, limit=1, before=before)
        seen += page.games
        assert len(page.games) == 1
        if not page.more:
            break
        before = page.games[-1].game_id
    assert [g.game_id for g in seen] == expected
    assert [g.mine for g in seen] == [True, True, False, False]
    page = await history(ann, limit=3)
    assert [g.game_id for g in page.games] == expected[:3] and page.more
    page = await history(ann, limit=3, before=page.games[-1].game_id)
    assert [g.game_id for g in page.games] == expected[3:] and not page.more
    for bad in (0, 51):
        refused = await ann.request(History, limit=bad)
        assert isinstance(refused, Error) and refused.code == errors.BAD_FIELD
    for fields in ({"before": 0}, {"before": 2**60}):
        refused = await ann.request(History, **fields)
        assert isinstance(refused, Error) and refused.code == errors.BAD_FIELD
    for game_id in (0, -3, 2**60):
        refused = await ann.request(GetRecord, game_id=game_id)
        assert isinstance(refused, Error) and refused.code == errors.BAD_FIELD
    await close_all(everyone)


async def test_play_again_keeps_a_running_tally_by_partnership(tmp_path: Path) -> None:
    """The tally counts every game finished at the table, per partnership (partners are
    drawn again for each game, R2.2), and comes back after a restart."""
    db = tmp_path / "tally.db"
    server = await serve(db)
    try:
        clients, _, table_id = await table_of_four(server, names=("Ann",), bots=3)
        await play_all(clients)
        ann = clients[0]
        await ann.until(lambda c: len(c.tally) == 2)
        await play_again(clients)
        await play_all(clients, game_number=2)
        await ann.until(lambda c: sum(line.games for line in c.tally) == 4)
        table = server.table(table_id)
        assert table.game is not None
        seat_names = [table.chair_of_seat(s).name for s in range(4)]
        latest = ann.tally[:2]  # the game just ended: its team 0, then its team 1
        for team, line in enumerate(latest):
            assert line.players == (seat_names[team], seat_names[team + 2])
        # Everything adds up: two games, each counted once per team.
        assert sum(line.won for line in ann.tally) + sum(line.tied for line in ann.tally) // 2 == 2
        assert sum(line.points for line in ann.tally) == sum(
            g.totals[0] + g.totals[1] for g in (await history(ann)).games
        )
        tally = ann.tally
        await close_all(clients)
    finally:
        await server.close()
    server = await serve(db)
    try:
        assert server.table(table_id).tally.lines() == tally
    finally:
        await server.close()
    assert team_of(2) == 0  # the pairs above are seats 0+2 and 1+3 (R2.1)


async def test_a_spectator_arriving_after_a_game_is_told_that_game_and_the_tally(server: Server) -> None:
    """A spectator who came to a table after its game ended got a table message without
    the game's id or the tally: the game's end offered them no "watch again" (one
    watching all along was offered it). The first table message now carries both."""
    clients, game_id = await finished_game(server, "Ann")
    table = clients[0].table
    assert table is not None
    wes = await connect(server, "Wes")
    watching = await wes.request(Watch, table_id=table.table_id)
    assert isinstance(watching, Watching), watching
    await wes.until(lambda c: c.view is not None)
    first = next(m for m in wes.received if isinstance(m, Table))
    assert first.last_game == game_id
    assert first.tally and sum(line.games for line in first.tally) == 2  # one game, two teams
    await close_all([*clients, wes])


async def test_a_record_says_each_bots_level(tmp_path: Path) -> None:
    """A replay says which bots were easy or hard, as the table did: the record keeps
    each bot's level (nil for a person); a database from before game_players kept
    levels is brought up to date, its games' bots with no level."""
    db = tmp_path / "levels.db"
    server = await serve(db)
    try:
        ann, bob = await connect(server, "Ann"), await connect(server, "Bob")
        seated = await ann.request(CreateTable, name="test", options=TableOptions())
        assert isinstance(seated, Seated)
        assert isinstance(await bob.request(Sit, table_id=seated.table_id, chair=1), Seated)
        assert isinstance(await ann.request(AddBot, chair=2, level="easy"), Ok)
        assert isinstance(await ann.request(AddBot, chair=3, level="normal"), Ok)
        assert isinstance(await ann.request(Start), Ok)
        await play_all([ann, bob])
        game_id = server.table(seated.table_id).game_id
        answer = await ann.request(GetRecord, game_id=game_id)
        assert isinstance(answer, Record)
        by_name = {p.name: (p.bot, p.level) for p in answer.record.players}
        assert by_name["Ann"] == by_name["Bob"] == (False, None)
        assert sorted(level for bot, level in by_name.values() if bot) == ["easy", "normal"]
        await close_all([ann, bob])
    finally:
        await server.close()
    with sqlite3.connect(db) as con:  # back to the schema before levels were kept
        con.execute("ALTER TABLE game_players DROP COLUMN level")
    server = await serve(db)
    try:
        ann = await connect(server, "Ann")
        answer = await ann.request(GetRecord, game_id=game_id)
        assert isinstance(answer, Record)
        assert [p.level for p in answer.record.players] == [None] * 4
        assert sum(p.bot for p in answer.record.players) == 2
        await ann.close()
    finally:
        await server.close()


async def test_games_stored_before_the_history_existed_are_listed(tmp_path: Path) -> None:
    """A database written by the previous version (no seats per game, no engine
    revision) is brought up to date when opened: its finished games are listed."""
    db = tmp_path / "old.db"
    server = await serve(db)
    try:
        clients, game_id = await finished_game(server, "Ann")
        await close_all(clients)
    finally:
        await server.close()
    with sqlite3.connect(db) as con:  # back to the old schema
        con.execute("DROP TABLE game_players")
        con.execute("ALTER TABLE games DROP COLUMN engine")
        con.execute("ALTER TABLE games DROP COLUMN results")
    server = await serve(db)
    try:
        ann = await connect(server, "Ann")
        page = await history(ann)
        assert [g.game_id for g in page.games] == [game_id] and page.games[0].mine
        answer = await ann.request(GetRecord, game_id=game_id)
        assert isinstance(answer, Record) and answer.record.result is not None
        replay_record(answer.record)  # the totals still check (no deal results kept then)
        await ann.close()
    finally:
        await server.close()


async def test_reading_the_history_never_holds_up_a_move(tmp_path: Path) -> None:
    """The archive is read through its own connection and thread: a read that takes
    long (a flood of history requests) leaves the writes, which every move waits for,
    free to commit meanwhile."""
    storage = Storage(tmp_path / "apart.db")
    release = threading.Event()
    started = threading.Event()

    def slow(db: sqlite3.Connection) -> int:
        started.set()
        release.wait(10)
        return int(db.execute("SELECT count(*) FROM games").fetchone()[0])

    reading = asyncio.ensure_future(storage.read(slow))
    await asyncio.get_running_loop().run_in_executor(None, started.wait, 10)
    await asyncio.wait_for(storage.write([sql.new_game(1, 1, 1, 5, "draw", ["a", "b", "c", "d"])]), 10)
    assert not reading.done()  # the move was committed while the read still ran
    release.set()
    assert await reading in (0, 1)
    await storage.close()


def test_history_and_records_cost_as_much_as_a_table_list() -> None:
    """Each reads the archive and answers at length: ten requests of the rate limit."""
    from rummy.server.handlers import cost
    from rummy.server.options import ServerOptions

    options = ServerOptions()
    assert cost(History(id=1), options) == cost(GetRecord(id=2, game_id=1), options) == options.lobby_cost
