"""The turn timer and the pause between deals, kept by the server and shown to all."""

from __future__ import annotations

import random

from rummy.engine.bots import make_bot
from rummy.net import Client
from rummy.protocol import Clock, GameUpdate, Ok, Rejoin, TableOptions, Watch, Watching
from rummy.protocol.wire import DealStartedWire
from rummy.server.clock import TurnClock

from .game_helpers import close_all, connect, serve, table_of_four


def _cue(c: Client, answered: int) -> bool:
    """Ann's turn came (a new one), or the second deal has started."""
    if c.view is None or c.game is None or c.game.moves == answered:
        return False
    return c.view.my_turn or c.view.deal == 2


def clocks(c: Client) -> list[Clock]:
    return [m for m in c.received if isinstance(m, Clock)]


async def test_when_the_turn_timer_runs_out_the_server_plays_the_turn() -> None:
    server = await serve()
    try:
        clients, _, _ = await table_of_four(
            server, names=("Ann",), bots=3, options=TableOptions(turn_seconds=1)
        )
        ann = clients[0]
        await ann.until(lambda c: c.game is not None)
        assert ann.game is not None
        seat = ann.game.seat
        # Ann never moves: when her turn comes her clock runs, then the server plays it.
        await ann.until(lambda c: any(k.kind == "turn" and k.seat == seat for k in clocks(c)), timeout=10)
        shown = next(k for k in clocks(ann) if k.kind == "turn" and k.seat == seat)
        assert shown.remaining is not None and 0 < shown.remaining <= 1
        assert shown.deadline is not None and not shown.paused
        await ann.until(lambda c: any(line.by == "server" and "Time is up" in line.text for line in c.chat))
        await ann.until(
            lambda c: c.view is not None and (c.view.current != seat or c.view.phase != "draw"), timeout=10
        )
        # The moves the server made for her say so; the seated bots' moves are their own.
        games = [m for m in ann.received if isinstance(m, GameUpdate) and m.events]
        hers = [g for g in games if any(getattr(e, "seat", None) == seat for e in g.events)]
        assert hers and all(g.auto == "timer" for g in hers)
        assert all(g.auto is None for g in games if g not in hers)
        await close_all(clients)
    finally:
        await server.close()


async def test_the_turn_clock_pauses_while_no_player_is_present() -> None:
    server = await serve()
    try:
        clients, tokens, table_id = await table_of_four(
            server, names=("Ann",), bots=3, options=TableOptions(turn_seconds=60)
        )
        ann = clients[0]
        watcher = await connect(server, "Eve")
        assert isinstance(await watcher.request(Watch, table_id=table_id), Watching)
        await watcher.until(lambda c: c.clock is not None and c.clock.kind == "turn" and not c.clock.paused)
        await ann.close()  # the only player is gone: nobody can act, the clock stops
        await watcher.until(lambda c: c.clock is not None and c.clock.paused)
        assert watcher.clock is not None and watcher.clock.remaining is not None
        frozen = watcher.clock.remaining
        assert 0 < frozen <= 60 and watcher.clock.deadline is None
        back = await connect(server, "Ann")
        await back.request(Rejoin, token=tokens[0])
        await watcher.until(lambda c: c.clock is not None and not c.clock.paused)
        await close_all([back, watcher])
    finally:
        await server.close()


async def test_the_next_deal_starts_by_itself_after_the_pause() -> None:
    """R3.1: a game is two deals; nobody has to say ready for the second to come."""
    server = await serve(**{"deal_pause": 0.2})
    try:
        clients, _, _ = await table_of_four(server, names=("Ann",), bots=3)
        ann = clients[0]
        bot = make_bot("heuristic", random.Random(1))
        answered = -1
        while True:  # Ann plays her turns but never says ready
            await ann.until(lambda c, n=answered: _cue(c, n))
            assert ann.view is not None and ann.game is not None
            if ann.view.deal == 2:
                break
            answered = ann.game.moves
            assert isinstance(await ann.move(bot.choose(ann.view), after=answered), Ok)
        assert any(k.kind == "next_deal" and k.remaining is not None for k in clocks(ann))
        started = [e for m in ann.received if hasattr(m, "events") for e in m.events]  # type: ignore[union-attr]
        assert [e.deal for e in started if isinstance(e, DealStartedWire)] == [1, 2]
        await close_all(clients)
    finally:
        await server.close()


def test_turn_clock_counts_down_pauses_and_resumes() -> None:
    now = [100.0]
    clock = TurnClock(lambda: now[0])
    assert clock.remaining() is None
    clock.start(2, 30)
    now[0] += 10
    assert clock.remaining() == 20
    clock.pause()
    now[0] += 50
    assert clock.remaining() == 20 and clock.deadline() is None
    clock.resume()
    now[0] += 5
    assert clock.remaining() == 15
    now[0] += 100
    assert clock.remaining() == 0
    clock.stop()
    assert not clock.running
