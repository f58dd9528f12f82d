"""``rummy-bot``: a bot (one of ours, or an author's MODULE:NAME) in a chair of a
server's table, over a real socket, as a bot author runs it: it sits, plays its seat
once the creator starts, says how the game went and leaves; what it cannot do (no
such table, no free chair, a move the rules refuse) it says in one line, exit 1."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from rummy.engine import Move, PlayerView
from rummy.engine.bots import HeuristicBot
from rummy.net import Client
from rummy.netbot import BotStopped, Orders, parse_orders, run, say
from rummy.protocol import (
    PROTOCOL_VERSION,
    AddBot,
    CreateTable,
    GetRecord,
    Hello,
    Leave,
    Ok,
    Ping,
    PlayAgain,
    Record,
    Seated,
    Start,
    TableOptions,
    Welcome,
    errors,
)
from rummy.server import Server, start_server
from tests.relay import Relay
from tests.server.game_helpers import FAST, TIMEOUT, play
from tests.server.test_restart import hello, server_process
from tests.support import eventually
from tests.test_sim import GREEDY

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    s = await start_server(host="127.0.0.1", port=0, db_path=None, **FAST)
    yield s
    await s.close()


async def ann_at_a_table(
    server: Server, bots: tuple[int, ...] = (2, 3), options: TableOptions | None = None
) -> tuple[Client, int]:
    """Ann opens a table and seats server bots in ``bots`` (chairs 0..3)."""
    ann = await Client.connect("127.0.0.1", server.port)
    assert isinstance(await ann.request(Hello, version=PROTOCOL_VERSION, name="Ann"), Welcome)
    seated = await ann.request(CreateTable, name="Ann's", options=options or TableOptions())
    assert isinstance(seated, Seated)
    for chair in bots:
        assert isinstance(await ann.request(AddBot, chair=chair), Ok)
    return ann, seated.table_id


async def test_a_request_on_a_closed_connection_fails_at_once(server: Server) -> None:
    """The client a bot author drives (rummy.net.Client): a request once the connection
    is closed raises ConnectionError at once; it waited its whole timeout for an answer
    that could not come."""
    ann, _ = await ann_at_a_table(server, bots=())
    await ann.close()
    with pytest.raises(ConnectionError):
        await ann.request(Ping, timeout=0.5)


def orders(server: Server, table_id: int, bot: str = "normal", chair: int | None = None) -> Orders:
    return Orders("127.0.0.1", server.port, table_id, chair, bot, f"{bot} bot", 1, 7)


async def test_the_bot_sits_plays_the_game_out_and_leaves(server: Server) -> None:
    ann, table_id = await ann_at_a_table(server)
    out = io.StringIO()
    bot = asyncio.create_task(run(orders(server, table_id), out))
    await ann.until(lambda c: c.table is not None and c.table.chairs[1].name == "normal bot", TIMEOUT)
    await eventually(lambda: f"normal bot sits in chair 2 of table {table_id} (Ann's)" in out.getvalue())
    assert isinstance(await ann.request(Start), Ok)
    await asyncio.wait_for(asyncio.gather(play(ann), bot), TIMEOUT * 3)
    said = out.getvalue().splitlines()
    assert said[1].startswith("game 1: the bot's team ")
    assert said[2].startswith("normal bot leaves the table: its team won ")
    record = await ann.request(GetRecord, game_id=server.table(table_id).game_id)
    assert isinstance(record, Record)
    (seated,) = [p for p in record.record.players if p.name == "normal bot"]
    assert not seated.bot  # a player like any other, to the server
    await ann.until(lambda c: c.table is not None and c.table.chairs[1].name is None, TIMEOUT)  # it left
    await ann.close()


async def test_a_server_that_limits_its_rate_slows_it_down_and_stops_nothing() -> None:
    """At a server whose bots wait for nothing (``--bot-delay 0``, as a bot author runs
    one) a game goes faster than the rate limit allows. rummy-bot stopped there, its move
    "refused: Too many requests" (nothing had been done): now it asks again, a little later."""
    limited = {**FAST, "rate": 4.0, "burst": 16}  # (hello with the lobby costs 10)
    server = await start_server(host="127.0.0.1", port=0, db_path=None, **limited)
    ann, table_id = await ann_at_a_table(server, options=TableOptions(on_drop="bot"))
    out = io.StringIO()
    bot = asyncio.create_task(run(orders(server, table_id, "easy"), out))
    await ann.until(lambda c: c.table is not None and c.table.chairs[1].name is not None, TIMEOUT)
    assert isinstance(await ann.request(Start), Ok)
    assert isinstance(await ann.request(Leave), Ok)  # a stand-in plays Ann's seat, at its pace
    await asyncio.wait_for(bot, TIMEOUT * 3)
    assert out.getvalue().splitlines()[1].startswith("game 1: the bot's team ")
    await ann.close()
    await server.close()


async def test_two_started_at_once_sit_in_the_two_free_chairs(server: Server) -> None:
    """Both saw the same chair free in the lobby (it tells of chairs up to half a second
    late); the second stopped at "That chair is taken" beside a free chair."""
    ann, table_id = await ann_at_a_table(server, bots=(3,))
    outs = [io.StringIO(), io.StringIO()]
    bots = [asyncio.create_task(run(orders(server, table_id, "easy"), out)) for out in outs]
    table = server.table(table_id)
    assert table is not None
    await eventually(lambda: all(table.chairs) or any(b.done() for b in bots))
    assert not any(b.done() for b in bots), [b.exception() for b in bots if b.done()]
    assert isinstance(await ann.request(Start), Ok)
    await asyncio.wait_for(asyncio.gather(play(ann), *bots), TIMEOUT * 3)
    assert {out.getvalue().split(" sits in chair ")[1][0] for out in outs} == {"2", "3"}
    await ann.close()


async def test_it_keeps_no_message_it_has_read(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """An author's statistics run (``--games 1000``) plays for hours: its client kept
    every message, and rummy-bot grew by some 0.4 MiB a game (25 MiB in 60 games)."""
    made: list[Client] = []
    connect = Client.connect

    async def kept(*args: Any, **kwargs: Any) -> Client:
        made.append(await connect(*args, **kwargs))
        return made[-1]

    ann, table_id = await ann_at_a_table(server)
    monkeypatch.setattr("rummy.netbot.Client.connect", kept)  # (Ann's is made: only the bot's now)
    bot = asyncio.create_task(run(orders(server, table_id, "easy"), io.StringIO()))
    await ann.until(lambda c: c.table is not None and c.table.chairs[1].name is not None, TIMEOUT)
    assert isinstance(await ann.request(Start), Ok)
    await asyncio.wait_for(asyncio.gather(play(ann), bot), TIMEOUT * 3)
    (client,) = made
    assert client.received == [] and client.game is not None  # read, and let go
    await ann.close()


async def test_it_asks_for_another_game_while_games_wants_more(server: Server) -> None:
    ann, table_id = await ann_at_a_table(server)
    out = io.StringIO()
    two = Orders("127.0.0.1", server.port, table_id, 1, "easy", "Easy", 2, 3)
    bot = asyncio.create_task(run(two, out))
    await ann.until(lambda c: c.table is not None and c.table.chairs[1].name == "Easy", TIMEOUT)
    assert isinstance(await ann.request(Start), Ok)
    await asyncio.wait_for(play(ann), TIMEOUT * 3)
    await ann.until(lambda c: c.table is not None and c.table.chairs[1].ready, TIMEOUT)  # it asked
    assert isinstance(await ann.request(PlayAgain), Ok)
    await asyncio.wait_for(asyncio.gather(play(ann, game_number=2), bot), TIMEOUT * 3)
    said = out.getvalue().splitlines()
    assert said[1].startswith("game 1: ") and said[2].startswith("game 2: ")
    assert said[3].startswith("Easy leaves the table: its team won ") and said[3].endswith(" of 2.")
    await ann.close()


async def test_left_alone_after_a_game_it_leaves_its_chair_and_the_table_closes(server: Server) -> None:
    """Ann leaves after the first game of two: the bot stops, and leaves its chair as
    it would at the end. It used to go without a word, and a finished table holds a
    gone player's chair ("away"): the table stayed open with nobody at it."""
    ann, table_id = await ann_at_a_table(server)
    two = Orders("127.0.0.1", server.port, table_id, 1, "easy", "Easy", 2, 3)
    bot = asyncio.create_task(run(two, io.StringIO()))
    await ann.until(lambda c: c.table is not None and c.table.chairs[1].name == "Easy", TIMEOUT)
    assert isinstance(await ann.request(Start), Ok)
    await asyncio.wait_for(play(ann), TIMEOUT * 3)
    assert isinstance(await ann.request(Leave), Ok)
    with pytest.raises(BotStopped, match=rf"everyone else left table {table_id}: no game will start"):
        await asyncio.wait_for(bot, TIMEOUT)
    await eventually(lambda: server.table(table_id) is None)
    await ann.close()


async def test_stopped_by_its_author_it_leaves_its_chair_free(server: Server) -> None:
    """ctrl+c (asyncio.run cancels the run) while the bot waits for the game: its chair
    is free again for the creator to fill. It was held for the bot, "away", and only a
    token rummy-bot never keeps could take it back."""
    ann, table_id = await ann_at_a_table(server)
    bot = asyncio.create_task(run(orders(server, table_id), io.StringIO()))
    await ann.until(lambda c: c.table is not None and c.table.chairs[1].name is not None, TIMEOUT)
    bot.cancel()
    with pytest.raises(asyncio.CancelledError):
        await bot
    await ann.until(lambda c: c.table is not None and c.table.chairs[1].name is None, TIMEOUT)
    await ann.close()


async def test_terminated_it_leaves_its_chair_free(server: Server) -> None:
    """SIGTERM (kill, a service manager's stop) ended rummy-bot on the spot, its chair
    held "away" for a token it never keeps; now it leaves as for ctrl+c, and says so."""
    ann, table_id = await ann_at_a_table(server)
    bot = await rummy_bot_process(server, table_id)
    try:
        await ann.until(lambda c: c.table is not None and c.table.chairs[1].name is not None, TIMEOUT)
        bot.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(bot.communicate(), TIMEOUT)
    finally:
        if bot.returncode is None:
            bot.kill()
            await bot.wait()
    assert bot.returncode == 128 + signal.SIGTERM
    assert err.decode().strip() == "rummy-bot: stopped (terminated)"
    await ann.until(lambda c: c.table is not None and c.table.chairs[1].name is None, TIMEOUT)
    await ann.close()


async def test_what_it_cannot_do_it_says_in_one_sentence(server: Server) -> None:
    ann, table_id = await ann_at_a_table(server, bots=(1, 2, 3))
    with pytest.raises(BotStopped, match=rf"no table 99 \(its tables: {table_id}\)"):
        await run(orders(server, 99), io.StringIO())
    with pytest.raises(BotStopped, match=rf"table {table_id} \(Ann's\) has no free chair"):
        await run(orders(server, table_id), io.StringIO())
    await ann.close()
    ann, table_id = await ann_at_a_table(server, bots=(2, 3))
    alone = asyncio.create_task(run(orders(server, table_id), io.StringIO()))
    await ann.until(lambda c: c.table is not None and c.table.chairs[1].name is not None, TIMEOUT)
    assert isinstance(await ann.request(Leave), Ok)  # nobody left to start a game
    with pytest.raises(BotStopped, match=rf"everyone else left table {table_id}: no game will start"):
        await asyncio.wait_for(alone, TIMEOUT)
    with pytest.raises(BotStopped, match=r"cannot reach 127\.0\.0\.1:1"):
        await run(Orders("127.0.0.1", 1, 1, None, "normal", "x", 1, 0), io.StringIO())
    await ann.close()


async def test_a_server_that_stops_is_named_with_its_reason_and_its_words_are_plain() -> None:
    """The server stopping under the bot: it says why, as the server put it (it said
    only "the server closed the connection"); and what the server says reaches the
    terminal as plain text, its escape codes left out."""
    server = await start_server(host="127.0.0.1", port=0, db_path=None, **FAST)
    ann, table_id = await ann_at_a_table(server)
    at_once = dataclasses.replace(orders(server, table_id), reconnect_for=0)  # (one try to come back)
    waiting = asyncio.create_task(run(at_once, io.StringIO()))
    await ann.until(lambda c: c.table is not None and c.table.chairs[1].name is not None, TIMEOUT)
    await server.close()
    with pytest.raises(
        BotStopped,
        match=r"the server closed the connection \(The server is shutting down\.\); it could not come back"
        rf" to chair 2 of table {table_id} in 0 s: nobody is listening there",
    ):
        await asyncio.wait_for(waiting, TIMEOUT)
    await ann.close()
    out = io.StringIO()
    say("table 1 (\x1b]0;owned\x07\x1b[31mAnn's\x1b[0m)", out)
    assert out.getvalue() == "table 1 (Ann's)\n"


@pytest.mark.parametrize(
    ("bot", "said"),
    [
        ("Cheat", r"the bot my_bots:Cheat \(\w+\) played discard \w+ in deal 1, and it was refused: You do"),
        # The server took the list (the wire has no tuples), and the same bot was then
        # refused in rummy-sim: now it is refused here too, in the engine's words.
        (
            "Sloppy",
            r"the bot my_bots:Sloppy \(\w+\) played NewMeld\(cards=\[.*\]\) in deal 1,"
            r" and it was refused: The cards must be a tuple, not a list\.",
        ),
        # It was a traceback through rummy-bot, and the chair was left as if dropped.
        (
            "Clumsy",
            r"the bot my_bots:Clumsy \(\w+\) raised AttributeError: 'Clumsy' object has no attribute"
            r" 'tally' \(my_bots\.py, line \d+, in choose\) in deal 1$",
        ),
    ],
)
async def test_a_move_the_rules_refuse_stops_it_with_the_servers_reason(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bot: str, said: str
) -> None:
    (tmp_path / "my_bots.py").write_text(GREEDY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the bot's module is found here
    ann, table_id = await ann_at_a_table(server)
    cheat = asyncio.create_task(run(orders(server, table_id, f"my_bots:{bot}"), io.StringIO()))
    await ann.until(lambda c: c.table is not None and c.table.chairs[1].name is not None, TIMEOUT)
    assert isinstance(await ann.request(Start), Ok)
    play_on = asyncio.create_task(play(ann))
    with pytest.raises(BotStopped, match=said) as stopped:
        await asyncio.wait_for(cheat, TIMEOUT)
    if bot == "Clumsy":  # the bot's own traceback, for its author to read
        assert stopped.value.details.startswith("Traceback (most recent call last):\n")
        assert "my_bots.py" in stopped.value.details and "netbot" not in stopped.value.details
    await ann.until(lambda c: c.table is not None and not c.table.chairs[1].present, TIMEOUT)  # it left
    play_on.cancel()  # Ann waits for a turn that will not come
    with contextlib.suppress(asyncio.CancelledError, ConnectionError):
        await play_on
    await ann.close()


def dawdler(seconds: float) -> str:
    """A bot author's module, ``slow_bots``: its Dawdler's first decision takes ``seconds``."""
    return f"""
import time

from my_bots import GreedyBot


class Dawdler(GreedyBot):  # its first decision outlasts a turn timer, or the turn silence
    def choose(self, view):
        if not getattr(self, "waited", False):
            self.waited = True
            time.sleep({seconds})
        return super().choose(view)
"""


async def slow_bot_game(
    server: Server, tmp_path: Path, seconds: float, options: TableOptions | None = None
) -> list[str]:
    """Ann plays a game at a table of ``options`` against rummy-bot's Dawdler (in chair 1,
    its first decision ``seconds`` long) and two server bots, to its end: what rummy-bot
    printed, line by line, once it has left (exit 0). A process of its own: a bot that
    sleeps on the test's loop would stop the server's timers too."""
    (tmp_path / "my_bots.py").write_text(GREEDY, encoding="utf-8")
    (tmp_path / "slow_bots.py").write_text(dawdler(seconds), encoding="utf-8")
    ann, table_id = await ann_at_a_table(server, options=options)
    bot = await rummy_bot_process(server, table_id, "--bot", "slow_bots:Dawdler", "--seed", "1", cwd=tmp_path)
    try:
        await ann.until(lambda c: c.table is not None and c.table.chairs[1].name is not None, TIMEOUT)
        assert isinstance(await ann.request(Start), Ok)
        await asyncio.wait_for(play(ann), TIMEOUT * 3)
        out, err = await asyncio.wait_for(bot.communicate(), TIMEOUT)
    finally:
        await ann.close()
        if bot.returncode is None:  # (the test failed first: no bot left playing on)
            bot.kill()
            await bot.wait()
    assert bot.returncode == 0, err.decode()
    return out.decode().splitlines()


async def test_a_bot_slower_than_the_turn_timer_is_told_so(server: Server, tmp_path: Path) -> None:
    """The table's turn timer plays the turn of a bot that thinks too long; its move
    then comes too late (stale, or not-playing once the game is over). rummy-bot went
    on without a word, and its author saw a bot that lost without knowing it had not
    played."""
    said = await slow_bot_game(server, tmp_path, 1.6, TableOptions(turn_seconds=1))
    assert said[1].startswith("the bot took 1.")  # (1.6 s and what choosing took)
    assert said[1].endswith(
        " s to choose, and this table's turn timer gives 1 s a turn:"
        " the server played that turn for it, and does so each time it is too slow"
    )
    assert said[2].startswith("game 1: the bot's team ")


async def test_a_bot_thinking_longer_than_the_turn_silence_is_not_taken_for_gone(tmp_path: Path) -> None:
    """A server takes a player silent for its turn silence while the game waits for
    their move for gone. rummy-bot's bot thought on the loop, where no ping went out:
    a bot slower than that was cut off (silent-turn) and came back, turn after slow
    turn. Now it thinks in a thread of its own, and rummy-bot pings meanwhile at a
    third of the silence, as rummy-client does."""
    server = await start_server(host="127.0.0.1", port=0, db_path=None, **{**FAST, "turn_silence": 1.5})
    try:
        said = await slow_bot_game(server, tmp_path, 4.0)
        assert said[1].startswith("game 1: the bot's team "), said  # no "back in chair 2..." before
        assert server.stats[errors.SILENT_TURN] == 0
    finally:
        await server.close()


HANG = """
class Hang:
    def __init__(self, rng):
        pass

    def choose(self, view):
        while True:
            pass
"""


async def test_one_ctrl_c_stops_a_bot_that_never_answers(server: Server, tmp_path: Path) -> None:
    """asyncio's ctrl+c only cancels the run at its next await, which a bot looping in
    ``choose`` never reaches: one ctrl+c did nothing, without a word. Now it stops the
    bot where it is, says where (its traceback) and for how long, and leaves (exit 130)."""
    (tmp_path / "hang_bots.py").write_text(HANG, encoding="utf-8")
    ann, table_id = await ann_at_a_table(server, options=TableOptions(on_drop="bot"))
    bot = await rummy_bot_process(server, table_id, "--bot", "hang_bots:Hang", cwd=tmp_path)
    await ann.until(lambda c: c.table is not None and c.table.chairs[1].name is not None, TIMEOUT)
    assert isinstance(await ann.request(Start), Ok)
    assert isinstance(await ann.request(Leave), Ok)  # a stand-in plays Ann's seat
    seat = server.table(table_id).seat_of_chair(1)  # type: ignore[union-attr]
    await ann.close()
    await eventually(lambda: server.table(table_id).game.current == seat)  # type: ignore[union-attr]
    await asyncio.sleep(0.5)  # (it thinks)
    bot.send_signal(signal.SIGINT)
    try:
        _, err = await asyncio.wait_for(bot.communicate(), TIMEOUT)
    finally:
        if bot.returncode is None:  # (it did not stop: it must not spin on after the test)
            bot.kill()
            await bot.wait()
    assert bot.returncode == 130
    *traceback, line = err.decode().strip().splitlines()
    assert traceback[0] == "Traceback (most recent call last):" and traceback[-1] == "KeyboardInterrupt"
    assert re.fullmatch(
        r"rummy-bot: stopped while the bot hang_bots:Hang \(\w+\) had been choosing for"
        r" \d+\.\d s, in deal 1",
        line,
    )


async def rummy_bot_process(
    server: Server | int, table_id: int, *options: str, cwd: Path | None = None
) -> asyncio.subprocess.Process:
    """``rummy-bot`` at ``server``'s table ``table_id`` (``server``: or a server's port),
    a process of its own (to be signalled, or to keep its bot's sleeps off the test's
    loop), its output piped."""
    port = server if isinstance(server, int) else server.port
    return await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "rummy.netbot", f"127.0.0.1:{port}", "--table", str(table_id)),
        *options,
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def test_a_server_restarted_under_it_gets_it_back_in_its_chair(tmp_path: Path) -> None:
    """The server restarted mid-game on the same database (a real process, stopped and
    started again on its port): rummy-bot kept no seat token and stopped, "the server
    closed the connection", its chair held "away" for a token nobody had. Now it comes
    back to its chair with its token as a person's client does, says so in one line,
    and plays the game out."""
    db = tmp_path / "rummy.db"
    async with server_process(db) as (first, port):
        ann, _ = await hello(port, "Ann")
        seated = await ann.request(CreateTable, name="Ann's", options=TableOptions())
        assert isinstance(seated, Seated)
        for chair in (2, 3):
            assert isinstance(await ann.request(AddBot, chair=chair), Ok)
        bot = await rummy_bot_process(port, seated.table_id, "--bot", "easy", "--seed", "1")
        assert bot.stdout is not None
        try:
            sits = await asyncio.wait_for(bot.stdout.readline(), TIMEOUT)
            assert b" sits in chair 2 of table " in sits
            assert isinstance(await ann.request(Start), Ok)
            await asyncio.wait_for(play(ann, stop_after=12), TIMEOUT)  # (the bot has played too)
            first.send_signal(signal.SIGTERM)
            await asyncio.wait_for(first.wait(), TIMEOUT)
            await ann.close()
            async with server_process(db, port=port):
                ann, welcome = await hello(port, "Ann", token=seated.token)
                assert welcome.chair == 0
                back = await asyncio.wait_for(bot.stdout.readline(), TIMEOUT)
                assert re.fullmatch(
                    r"the server closed the connection \(The server is shutting down\.\);"
                    rf" back in chair 2 of table {seated.table_id} with its seat token after \d+\.\d s\n",
                    back.decode(),
                ), back
                await asyncio.wait_for(play(ann), TIMEOUT * 3)
                out, err = await asyncio.wait_for(bot.communicate(), TIMEOUT)
                await ann.close()
        finally:
            if bot.returncode is None:
                bot.kill()
                await bot.wait()
    assert bot.returncode == 0, err.decode()
    said = out.decode().splitlines()
    assert said[0].startswith("game 1: the bot's team ")
    assert said[1].startswith("easy bot leaves the table: its team won ")


async def test_a_connection_gone_silent_is_made_anew_and_it_comes_back(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A network cut that leaves TCP silent (here a relay that holds what the server
    sends): rummy-bot waited for a turn that never came, for as long as the cut
    lasted. Now it pings when the server is quiet, gives the connection up when
    nothing comes, and comes back to its chair on a new one, in one line."""
    monkeypatch.setattr("rummy.netbot.QUIET", 0.3)
    monkeypatch.setattr("rummy.netbot.DEAD", 1.0)
    monkeypatch.setattr("rummy.netbot.WATCH_EVERY", 0.1)
    relay = await Relay("127.0.0.1", server.port).start()
    ann, table_id = await ann_at_a_table(server)
    out = io.StringIO()
    bot = asyncio.create_task(run(dataclasses.replace(orders(server, table_id), port=relay.port), out))
    await eventually(lambda: " sits in chair 2 " in out.getvalue())
    assert isinstance(await ann.request(Start), Ok)
    await asyncio.wait_for(play(ann, stop_after=12), TIMEOUT)
    relay.stall()
    await asyncio.wait_for(asyncio.gather(play(ann), bot), TIMEOUT * 3)  # (the game waits for the bot)
    said = out.getvalue().splitlines()
    assert re.fullmatch(
        rf"nothing heard from the server for \d+ s; back in chair 2 of table {table_id} with its seat token"
        r" after \d+\.\d s",
        said[1],
    ), said
    assert said[2].startswith("game 1: the bot's team ")
    assert said[3].startswith("normal bot leaves the table: its team won ")
    await ann.close()
    await relay.close()


async def test_back_at_a_server_that_no_longer_holds_its_chair_it_says_so(tmp_path: Path) -> None:
    """The server came back without its table (here: started on another database):
    its token is refused, and it says so in one line (exit 1), not trying on."""
    async with server_process(tmp_path / "first.db") as (first, port):
        ann, _ = await hello(port, "Ann")
        seated = await ann.request(CreateTable, name="Ann's", options=TableOptions())
        assert isinstance(seated, Seated)
        bot = await rummy_bot_process(port, seated.table_id, "--bot", "easy")
        try:
            assert bot.stdout is not None
            assert b" sits in chair 2 " in await asyncio.wait_for(bot.stdout.readline(), TIMEOUT)
            first.kill()
            await first.wait()
            await ann.close()
            async with server_process(tmp_path / "other.db", port=port):
                _, err = await asyncio.wait_for(bot.communicate(), TIMEOUT)
        finally:
            if bot.returncode is None:
                bot.kill()
                await bot.wait()
    assert bot.returncode == 1
    assert err.decode() == (
        f"rummy-bot: the server no longer holds chair 2 of table {seated.table_id} for it"
        " (it refused the seat token)\n"
    )


class Cut(HeuristicBot):
    """A heuristic bot whose network is cut (``cut()``) as it sends its first move."""

    cut: Callable[[], None] = staticmethod(lambda: None)

    def choose(self, view: PlayerView) -> Move:
        Cut.cut()
        Cut.cut = staticmethod(lambda: None)
        return super().choose(view)


async def test_a_move_left_unanswered_by_a_cut_network_is_no_traceback(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The network cut as the bot sent its move: the answer never came, and rummy-bot
    ended in a traceback (TimeoutError) after 10 s, its chair held "away". Now it
    waits on, gives the silent connection up and comes back to its chair."""
    monkeypatch.setattr("rummy.netbot.QUIET", 0.3)
    monkeypatch.setattr("rummy.netbot.DEAD", 12.0)  # (after the move's 10 s without an answer)
    monkeypatch.setattr("rummy.netbot.WATCH_EVERY", 0.1)
    relay = await Relay("127.0.0.1", server.port).start()
    monkeypatch.setattr(Cut, "cut", staticmethod(relay.stall))
    ann, table_id = await ann_at_a_table(server)
    out = io.StringIO()
    cut = dataclasses.replace(orders(server, table_id, "tests.test_netbot:Cut"), port=relay.port)
    bot = asyncio.create_task(run(cut, out))
    await eventually(lambda: " sits in chair 2 " in out.getvalue())
    assert isinstance(await ann.request(Start), Ok)
    await asyncio.wait_for(asyncio.gather(play(ann), bot), TIMEOUT * 3)
    said = out.getvalue().splitlines()
    assert re.fullmatch(
        rf"nothing heard from the server for 1\d s; back in chair 2 of table {table_id} with its seat token"
        r" after \d+\.\d s",
        said[1],
    ), said
    assert said[2].startswith("game 1: the bot's team ")
    await ann.close()
    await relay.close()


def rummy_bot(*options: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``rummy-bot 127.0.0.1:1 --table 1 OPTIONS`` run as its author would (nothing listens
    on port 1: it stops at the first thing it cannot do)."""
    return subprocess.run(
        [sys.executable, "-m", "rummy.netbot", "127.0.0.1:1", "--table", "1", *options],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_command_line_reads_its_orders_and_refuses_bad_ones(tmp_path: Path) -> None:
    made = parse_orders(["example.org", "--table", "3", "--chair", "2", "--bot", "hard", "--seed", "5"])
    assert made == Orders("example.org", 7325, 3, 1, "hard", "hard bot", 1, 5)
    mine = parse_orders(["h:1", "--table", "1", "--bot", "mybot:GreedyBot"])
    assert mine.name == "GreedyBot" and mine.chair is None
    for bad in (["h:1"], ["h:1", "--table", "1", "--chair", "5"], ["h:1", "--table", "1", "--games", "0"]):
        with pytest.raises(SystemExit):
            parse_orders(bad)
    run_ = rummy_bot("--bot", "godlike", cwd=tmp_path)
    assert run_.returncode == 2 and "godlike" in run_.stderr
    assert "or MODULE:NAME for your own" in run_.stderr  # as rummy-sim says it
    (tmp_path / "my_bots.py").write_text(GREEDY, encoding="utf-8")
    run_ = rummy_bot("--bot", "my_bots:Aloof", cwd=tmp_path)  # (it was a traceback)
    assert run_.returncode == 2 and "my_bots:Aloof cannot be made with a random.Random: " in run_.stderr
    (tmp_path / "typo_bots.py").write_text("class Bot\n", encoding="utf-8")
    run_ = rummy_bot("--bot", "typo_bots:Bot", cwd=tmp_path)  # (so was this)
    assert run_.returncode == 2 and "Traceback" not in run_.stderr
    assert "cannot import 'typo_bots' for the bot 'typo_bots:Bot': SyntaxError: expected ':'" in run_.stderr
    run_ = rummy_bot()
    # (It said "Connect call failed ('127.0.0.1', 1)", asyncio's words; now rummy-client's.)
    assert run_.returncode == 1
    assert run_.stderr == "rummy-bot: cannot reach 127.0.0.1:1: nobody is listening there\n"
