"""``rummy-bot HOST:PORT --table N [--chair 1-4] [--bot LEVEL|MODULE:NAME] [--name NAME] [--games N]``

A bot in a chair of a server's table: how a bot author plays against their own bot,
or lets friends do so. Someone opens a table in the lobby (its number is in the
lobby's first column); ``rummy-bot`` connects as one more player, sits in a free
chair (``--chair``, 1 to 4, or the first free one), and plays that seat with the bot
(``--bot``: a level, ``easy``, ``normal``, ``hard``, or the author's ``MODULE:NAME``
as in ``rummy-sim``) once the table's creator starts: ready at each deal's end,
another game at the game's end while ``--games`` asks for more, then it leaves the
table and says how the games went.

It sees what any player sees (its own view, R9) and moves through the protocol
like any client (docs/PROTOCOL.md), so a move the rules refuse is the server's
refusal: the bot's author gets it in one line, and the exit status is 1. A bot that
raises is told as in ``rummy-sim`` (its traceback, then one line), and so is ctrl+c
while it thinks (exit 130); either way it leaves its chair.

It keeps its seat token: when the connection drops (the server restarted, a network
cut) it connects again and takes its chair back with it, as a person's client does,
and says so in one line; it gives up after ``RECONNECT_FOR``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import random
import secrets
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Collection, Iterator
from dataclasses import dataclass
from functools import partial
from typing import TextIO

from .cli_values import why_not_reached
from .engine import SEAT_NAMES, IllegalMove, Move, PlayerView, check_move, team_of
from .engine.bots import BOT_NAMES, Bot
from .net import Client
from .protocol import (
    DEFAULT_PORT,
    PROTOCOL_VERSION,
    Error,
    Hello,
    Leave,
    Ok,
    PlayAgain,
    Ready,
    Seated,
    ServerMessage,
    Sit,
    TableInfo,
    Welcome,
    address_text,
    errors,
    parse_address,
    sanitize,
)
from .protocol.liveness import (
    DEAD,
    FINAL,
    FIRST_PAUSE,
    KEEPALIVE,
    LONGEST_PAUSE,
    QUIET,
    WATCH_EVERY,
    keepalive_every,
)
from .sim import BotInterrupted, BotRaised, ask, make_player, move_shown

STARTED_WITHIN = 3.0  # seconds for the lobby to list the table asked for
LEAVE_WITHIN = 2.0  # seconds for the server to answer a leave when the bot is stopped
RATE_WAIT = 0.25  # seconds before asking again when rate-limited (an over-rate connection is read so often)
# A dropped connection is made anew with a growing pause, as rummy-client does. After
# RECONNECT_FOR seconds it gives up: by then a game whose players were all away has
# been closed by the server (docs/PROTOCOL.md, 15 minutes), and an author's run that
# waits on forever for a server that is gone tells them nothing.
# The pauses, the silences after which it pings a server and connects anew, and the
# pace of its pings (a third of the server's turn silence) are rummy-client's
# (rummy.protocol.liveness); the bot thinks in a thread of its own meanwhile.
RECONNECT_FOR = 900.0


class BotStopped(Exception):
    """The run cannot go on; the message is one sentence for the bot's author, and
    ``details`` the bot's own traceback when it raised."""

    def __init__(self, line: str, details: str = "", interrupted: bool = False) -> None:
        super().__init__(line)
        self.details = details
        self.interrupted = interrupted  # by its author's ctrl+c


@dataclass(frozen=True, slots=True)
class Orders:
    """What ``rummy-bot`` was asked to do."""

    host: str
    port: int
    table_id: int
    chair: int | None  # 0..3, or None: the first free chair
    bot: str  # a level or bot name, or MODULE:NAME
    name: str
    games: int
    seed: int
    reconnect_for: float = RECONNECT_FOR  # seconds of trying to come back after a drop


def free_chair(table: TableInfo, chair: int | None, taken: Collection[int] = ()) -> int:
    """The chair to sit in: ``chair`` if it is free, else the first free one (not one
    of ``taken``, those the server said were taken since the lobby listed the table)."""
    free = [c.chair for c in table.chairs if c.name is None and c.chair not in taken]
    if chair is not None:
        if chair not in free:
            raise BotStopped(
                f"chair {chair + 1} of table {table.table_id} is not free (free: {_chairs(free)})"
            )
        return chair
    if not free:
        raise BotStopped(f"table {table.table_id} ({table.name}) has no free chair")
    return free[0]


def _chairs(free: list[int]) -> str:
    return ", ".join(str(c + 1) for c in free) or "none"


@dataclass(slots=True)
class Seat:
    """The bot's chair on the server: the connection it plays on now, and the token
    that takes the chair back on a new one."""

    client: Client
    chair: int = 0
    token: str | None = None
    silent: str = ""  # why the watcher gave the connection up, if it did (_watch)
    ping_every: float = KEEPALIVE  # with nothing sent for this long, a ping (the server's pace)

    def welcomed(self, welcome: Welcome) -> None:
        """Keep to the pace the server's welcome says (``keepalive_every``)."""
        self.ping_every = keepalive_every(welcome.idle_timeout, welcome.turn_silence)


async def sit(seat: Seat, orders: Orders) -> TableInfo:
    """Say hello and sit at the table (``seat`` then says where, with its token);
    returns the table as it was."""
    client = seat.client
    welcome = await client.request(Hello, version=PROTOCOL_VERSION, name=orders.name, lobby=True)
    if not isinstance(welcome, Welcome):
        raise BotStopped(f"the server refused the name {orders.name!r}: {_said(welcome)}")
    seat.welcomed(welcome)

    with contextlib.suppress(TimeoutError):  # (a table just opened is news to the lobby)
        await client.until(lambda c: c.closed or orders.table_id in c.lobby, STARTED_WITHIN)
    table = client.lobby.get(orders.table_id)
    if table is None:
        listed = ", ".join(str(t) for t in sorted(client.lobby)) or "none"
        raise BotStopped(f"the server has no table {orders.table_id} (its tables: {listed})")
    # The lobby tells of a table's chairs up to half a second late: two rummy-bots
    # started together both saw the same chair free, and the second stopped at "That
    # chair is taken" beside a free one. A chair taken meanwhile is passed over.
    taken: set[int] = set()
    while True:
        chair = free_chair(table, orders.chair, taken)
        seated = await _unhurried(partial(client.request, Sit, table_id=orders.table_id, chair=chair))
        if isinstance(seated, Seated):
            seat.chair, seat.token = seated.chair, seated.token
            return table
        if orders.chair is not None or not (isinstance(seated, Error) and seated.code == errors.CHAIR_TAKEN):
            raise BotStopped(f"cannot sit at table {orders.table_id}: {_said(seated)}")
        taken.add(chair)


async def play(seat: Seat, orders: Orders, out: TextIO) -> list[tuple[int, int, int]]:
    """Play the seat (in ``seat.chair``) until ``orders.games`` games are over; returns
    each game's totals and the bot's team, as ``(ours, theirs, team)``. Stops when
    nobody else is left at the table to start a game. A dropped connection is made
    anew, the chair taken back with its token (``come_back``), and so is one that
    stays silent (``_watch``)."""
    watcher = asyncio.ensure_future(_watch(seat))
    try:
        return await _play(seat, orders, out)
    finally:
        watcher.cancel()


async def _play(seat: Seat, orders: Orders, out: TextIO) -> list[tuple[int, int, int]]:
    results: list[tuple[int, int, int]] = []
    bot: Bot | None = None
    answered = -1
    slow_said = False  # the author was told the turn timer plays for a slow bot
    chair = seat.chair
    client = seat.client
    game_number = (client.table.games if client.table is not None else 0) + 1
    recorded = 0  # the last game whose result is in results (seen again after a drop)

    def alone(c: Client) -> bool:
        """Nobody but the bot left at a table with no game on: none will start."""
        return (
            c.table is not None
            and c.table.status != "playing"
            and not any(ch.name and not ch.bot and ch.chair != chair for ch in c.table.chairs)
        )

    def my_cue(c: Client) -> bool:
        """A game of ours to act in: our turn, a deal's end or the game's end."""
        if c.game is None or c.view is None or c.table is None or c.table.games < game_number:
            return False
        return c.game.moves != answered and (c.view.my_turn or c.view.phase in ("deal_over", "game_over"))

    while True:
        client = seat.client
        # A table waits for its creator as long as it likes: no time limit here.
        with contextlib.suppress(ConnectionError):  # (closed: come back, below)
            await client.until(lambda c: c.closed or my_cue(c) or alone(c), None)
        if client.closed:
            await come_back(seat, orders, out)
            answered = -1  # what was sent may not have arrived: the server's view tells
            continue
        if not my_cue(client):
            raise BotStopped(f"everyone else left table {orders.table_id}: no game will start")
        game, view = client.game, client.view
        assert game is not None and view is not None and view.seat is not None
        answered = game.moves
        try:
            if view.phase == "game_over":
                if recorded != game_number:
                    recorded = game_number
                    ours, theirs = _totals(view)
                    results.append((ours, theirs, team_of(view.seat)))
                    say(_game_line(len(results), ours, theirs), out)
                if len(results) >= orders.games:
                    return results
                await _answer(client, PlayAgain)
                game_number += 1
                bot = None
                continue
            if view.phase == "deal_over":
                await _answer(client, Ready)
                continue
        except (ConnectionError, TimeoutError):
            # Dropped: come back, and answer again. Unanswered (a network cut that
            # stalls the connection): wait on, the watcher gives it up (it was a
            # traceback, and the chair left held "away").
            continue
        if bot is None:  # one bot a game, as a seated bot: its memory is of this game
            bot = make_player(orders.bot, random.Random(f"{orders.seed}/{game_number}"))
        began = time.monotonic()
        seat_name = SEAT_NAMES[view.seat]
        try:
            move = await _think(bot, view)
        except BotRaised as error:  # stopped as for a refused move: its chair is left free
            raise BotStopped(
                f"the bot {orders.bot} ({seat_name}) raised {error.what} in deal {view.deal}", error.details
            ) from None
        except BotInterrupted as stop:  # ctrl+c: it leaves its chair as when stopped waiting
            raise BotStopped(
                f"stopped while the bot {orders.bot} ({seat_name}) had been choosing for"
                f" {time.monotonic() - began:.1f} s, in deal {view.deal}",
                stop.details,
                interrupted=True,
            ) from None
        if not isinstance(move, Move):  # (None, a string...: nothing to send)
            raise BotStopped(_misplayed(orders, view, move, "that is no move"))
        unfit = _unfit(move)
        if unfit is not None:
            raise BotStopped(_misplayed(orders, view, move, unfit))
        try:
            reply = await _unhurried(partial(client.move, move, after=game.moves))
        except (ConnectionError, TimeoutError):  # (as for an answer above)
            continue  # the server's view then shows whether the move was made
        if isinstance(reply, Error) and reply.code in (errors.STALE, errors.NOT_PLAYING):
            # The game moved on as the bot thought: the turn timer played its turn (even
            # the game's last move: not-playing). Said once, or the author sees a bot that
            # plays on and loses without knowing it never played.
            if not slow_said:
                slow_said = _too_slow(client, time.monotonic() - began, out)
            continue  # wait for the news
        if not isinstance(reply, Ok):
            raise BotStopped(_misplayed(orders, view, move, reply))


async def come_back(seat: Seat, orders: Orders, out: TextIO) -> None:
    """The connection dropped: connect again and take the chair back with its token,
    with a growing pause between tries, for up to ``orders.reconnect_for`` seconds.
    Says so in one line; raises ``BotStopped`` when it cannot come back."""
    lost = seat.client
    why, seat.silent = seat.silent or _lost_why(lost), ""
    told = [e for e in lost.errors if e.fatal]
    if seat.token is None or (told and told[-1].code in FINAL):
        raise closed(lost)
    await lost.close()
    where = f"chair {seat.chair + 1} of table {orders.table_id}"
    loop = asyncio.get_running_loop()
    began = loop.time()
    pause = FIRST_PAUSE
    while True:
        reason = await _try_back(seat, orders)
        if reason is None:
            say(f"{why}; back in {where} with its seat token after {loop.time() - began:.1f} s", out)
            return
        if loop.time() - began + pause > orders.reconnect_for:
            raise BotStopped(
                f"{why}; it could not come back to {where} in {orders.reconnect_for:g} s: {reason}"
            )
        await asyncio.sleep(pause)
        pause = min(pause * 2, LONGEST_PAUSE)


async def _try_back(seat: Seat, orders: Orders) -> str | None:
    """One try at taking the chair back: None when the bot is back in it (``seat.client``
    the new connection), else why not. Raises ``BotStopped`` when the server says it
    will never be (the token refused: the chair is no longer held for it)."""
    try:
        client = await Client.connect(orders.host, orders.port, keep_received=False)
    except OSError as error:
        return why_not_reached(error)
    try:
        welcome = await client.request(
            Hello, version=PROTOCOL_VERSION, name=orders.name, token=seat.token, lobby=False
        )
    except (ConnectionError, TimeoutError):
        await client.close()
        return "the server closed the connection"
    except asyncio.CancelledError:  # (stopped by its author as it comes back)
        await client.close()
        raise
    if isinstance(welcome, Welcome) and welcome.table_id == orders.table_id and welcome.chair == seat.chair:
        seat.client = client
        seat.welcomed(welcome)
        return None
    await client.close()
    if isinstance(welcome, Welcome):  # token_refused: its table closed, or its chair was freed
        raise BotStopped(
            f"the server no longer holds chair {seat.chair + 1} of table {orders.table_id} for it"
            " (it refused the seat token)"
        )
    if isinstance(welcome, Error) and welcome.code in FINAL:
        raise BotStopped(f"the server refused it: {welcome.text}")
    return _said(welcome)


async def _watch(seat: Seat) -> None:
    """Ping when the bot has sent nothing for the server's pace (``seat.ping_every``:
    a bot thinking longer than the server's turn silence is not taken for gone), or
    the server has been silent for QUIET seconds; drop the connection after DEAD
    (``play`` then comes back on a new one): a network cut can leave TCP silent for
    many minutes. Time this process spent away from its loop (stopped, or a laptop
    asleep) is not the server's silence."""
    loop = asyncio.get_running_loop()
    last = since = loop.time()
    pinged = since
    while True:
        step = min(WATCH_EVERY, seat.ping_every)
        await asyncio.sleep(step)
        client, now = seat.client, loop.time()
        if now - last > 3 * step:
            since = now  # (what came meanwhile is read first)
        last = now
        if client.closed:
            continue  # (coming back)
        heard = max(since, client.heard)
        if now - heard >= DEAD:
            seat.silent = f"nothing heard from the server for {now - heard:.0f} s"
            client.abort()
        elif (now - heard >= QUIET and pinged <= heard) or now - client.sent >= seat.ping_every:
            pinged = now
            client.ping()


def _lost_why(client: Client) -> str:
    """How the connection ended, in a few words: the server's reason if it gave one."""
    told = [e.text for e in client.errors if e.fatal]
    return "the server closed the connection" + (f" ({told[-1]})" if told else "")


async def _think(bot: Bot, view: PlayerView) -> object:
    """``ask(bot, view)`` in a thread of its own, the loop going on meanwhile: its
    watcher keeps pinging at the server's pace. Asked on the loop, a bot that thought
    longer than the server's turn silence stopped the pings, was cut off (silent-turn),
    came back with its token, and was cut off again at each slow turn. A daemon
    thread: a bot that never answers must not keep the process from ending."""
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[object] = loop.create_future()

    def choose() -> None:
        outcome: tuple[bool, object] = (False, BotInterrupted(""))  # (ctrl+c just as it answered)
        try:
            outcome = (True, ask(bot, view))
        except BotInterrupted as stop:  # ctrl+c: where the bot was
            outcome = (False, stop)
        except KeyboardInterrupt:  # (ctrl+c just before the bot was asked)
            outcome = (False, BotInterrupted(""))
        except BaseException as error:  # BotRaised: the loop's to tell
            outcome = (False, error)
        finally:
            loop.call_soon_threadsafe(_settle, answer, outcome)

    thread = threading.Thread(target=choose, name="rummy-bot's bot", daemon=True)
    with _ctrl_c_stops(thread):
        thread.start()
        return await answer


def _settle(answer: asyncio.Future[object], outcome: tuple[bool, object]) -> None:
    if answer.done():  # (cancelled: the run was stopped as the bot thought)
        return
    answered, value = outcome
    if answered:
        answer.set_result(value)
    else:
        assert isinstance(value, BaseException)
        answer.set_exception(value)


@contextlib.contextmanager
def _ctrl_c_stops(thread: threading.Thread) -> Iterator[None]:
    """Ctrl+c while ``thread`` runs raises KeyboardInterrupt in it, where its bot is
    (``ask`` says where). asyncio's own handler only cancels the run, and a bot that
    never answers thought on: one ctrl+c did nothing, with not a word. A second ctrl+c
    is asyncio's again (a bot stuck in a call that no exception interrupts)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # (signals are the main thread's)
        return
    handler = signal.getsignal(signal.SIGINT)

    def interrupt(signum: int, frame: object) -> None:
        signal.signal(signal.SIGINT, handler)
        if thread.ident is not None:
            # CPython's one way to raise in another thread: at its next instruction.
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(thread.ident), ctypes.py_object(KeyboardInterrupt)
            )

    signal.signal(signal.SIGINT, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)


def _unfit(move: Move) -> str | None:
    """Why the engine refuses ``move`` before any rule (None: it is fit to send), as it
    does in rummy-sim. The wire takes a list of cards as well as a tuple, and a bot
    that built ``NewMeld([...])`` played here, then was refused in rummy-sim."""
    try:
        check_move(move)
    except IllegalMove as refusal:
        return refusal.message
    return None


def _too_slow(client: Client, seconds: float, out: TextIO) -> bool:
    """Tell the author that the table's turn timer played for their bot (True: said)."""
    timer = client.table.options.turn_seconds if client.table is not None else 0
    if not timer:
        return False
    say(
        f"the bot took {seconds:.1f} s to choose, and this table's turn timer gives {timer} s a turn:"
        " the server played that turn for it, and does so each time it is too slow",
        out,
    )
    return True


async def _unhurried(ask: Callable[[], Awaitable[ServerMessage]]) -> ServerMessage:
    """The server's answer to ``ask()``, asked again while it is ``rate-limited``: nothing
    was done (docs/PROTOCOL.md). At a server whose bots wait for nothing (--bot-delay 0)
    a game goes faster than the rate allows, and the bot stopped, its move "refused:
    Too many requests", or waited for a next game it had not been heard to ask for."""
    while True:
        reply = await ask()
        if not (isinstance(reply, Error) and reply.code == errors.RATE_LIMITED):
            return reply
        await asyncio.sleep(RATE_WAIT)


async def _answer(client: Client, kind: type[Ready] | type[PlayAgain]) -> None:
    """Ready, or another game: refused only when the table has moved on already."""
    reply = await _unhurried(lambda: client.request(kind))
    if not isinstance(reply, Ok | Error):
        raise BotStopped(f"the server answered {kind.__name__} with {reply!r}")


def _totals(view: PlayerView) -> tuple[int, int]:
    a, b = view.totals()
    return (a, b) if team_of(view.seat or 0) == 0 else (b, a)


def _game_line(number: int, ours: int, theirs: int) -> str:
    outcome = "won" if ours > theirs else "lost" if ours < theirs else "tied"
    return f"game {number}: the bot's team {outcome}, {ours} to {theirs}"


def _misplayed(orders: Orders, view: PlayerView, move: object, reply: object) -> str:
    seat = SEAT_NAMES[view.seat or 0]
    refused = _said(reply)
    return (
        f"the bot {orders.bot} ({seat}) played {move_shown(move)} in deal {view.deal},"
        f" and it was refused: {refused}"
    )


def closed(client: Client) -> BotStopped:
    """The server closed the connection: with the reason it gave last, if it gave one
    ("The server is shutting down.")."""
    told = [e.text for e in client.errors if e.fatal]
    return BotStopped("the server closed the connection" + (f": {told[-1]}" if told else ""))


def say(line: str, out: TextIO) -> None:
    """A line for the bot's author, with what the server sent (its reasons, table names)
    shown as plain text: a server's escape codes must not reach the terminal."""
    print(sanitize(line, 1000), file=out, flush=True)


def _said(reply: object) -> str:
    return reply.text if isinstance(reply, Error) else str(reply)


async def run(orders: Orders, out: TextIO = sys.stdout) -> None:
    """The whole run: connect, sit, play, leave. Raises ``BotStopped``."""
    try:
        client = await Client.connect(orders.host, orders.port, keep_received=False)  # (it plays for hours)
    except OSError as error:
        where = address_text(orders.host, orders.port)
        raise BotStopped(f"cannot reach {where}: {why_not_reached(error)}") from None
    seat = Seat(client)
    try:
        try:
            table = await sit(seat, orders)
            who = orders.name if orders.bot in orders.name else f"{orders.name} ({orders.bot})"
            say(
                f"{who} sits in chair {seat.chair + 1} of table {orders.table_id} ({table.name}); "
                "it plays once the table's creator starts the game.",
                out,
            )
            results = await play(seat, orders, out)
        except (BotStopped, asyncio.CancelledError):
            # It stops before its games are done, of its own accord (everyone else left, a
            # move refused) or stopped by its author (ctrl+c, even as its chair is given):
            # it leaves its chair as at the end. Gone without a word, it was held "away"
            # for a token nobody would bring back (it ends with the process): a chair the
            # table's creator could not free, at a table kept open with nobody else at it.
            client = seat.client
            if not client.closed:
                with contextlib.suppress(ConnectionError, TimeoutError):
                    await _unhurried(lambda: client.request(Leave, timeout=LEAVE_WITHIN))
            raise
        with contextlib.suppress(ConnectionError, TimeoutError):
            await _unhurried(lambda: seat.client.request(Leave))
        won = sum(ours > theirs for ours, theirs, _ in results)
        say(f"{orders.name} leaves the table: its team won {won} of {len(results)}.", out)
    except ConnectionError:
        raise closed(seat.client) from None
    finally:
        await seat.client.close()


def parse_orders(argv: list[str] | None, make: Callable[[str], object] = lambda spec: None) -> Orders:
    parser = argparse.ArgumentParser(
        prog="rummy-bot",
        description="Seat a bot (one of ours, or your own MODULE:NAME) in a chair of a server's table.",
    )
    parser.add_argument("address", help=f"HOST:PORT of a rummy-server (port {DEFAULT_PORT} if left out)")
    parser.add_argument("--table", type=int, required=True, help="the table's number, as the lobby lists it")
    parser.add_argument(
        "--chair", type=int, choices=range(1, 5), help="the chair, 1 to 4 (default: the first free)"
    )
    parser.add_argument(
        "--bot",
        default="normal",
        help=f"a level or bot ({', '.join(BOT_NAMES)}) or your own MODULE:NAME, "
        "made with a random.Random as in rummy-sim (default normal)",
    )
    parser.add_argument("--name", help="its name at the table (default: the bot's)")
    parser.add_argument("--games", type=int, default=1, help="games to play at the table (default 1)")
    parser.add_argument("--seed", type=int, help="the bot's random seed (default: a new one)")
    args = parser.parse_args(argv)
    try:
        host, port = parse_address(args.address)
    except ValueError as error:
        parser.error(str(error))
    if args.games < 1:
        parser.error("--games: at least 1")
    try:
        make(args.bot)
    except ValueError as error:
        parser.error(str(error))
    if args.name is not None:
        name = args.name
    else:  # "normal bot"; an author's bot by its own name ("GreedyBot")
        name = args.bot.rpartition(":")[2] if ":" in args.bot else f"{args.bot} bot"
    seed = args.seed if args.seed is not None else secrets.randbits(63)
    chair = None if args.chair is None else args.chair - 1
    return Orders(host, port, args.table, chair, args.bot, name, args.games, seed)


async def run_until_terminated(orders: Orders) -> None:
    """``run``, with SIGTERM (``kill``, a service manager's stop) ending it as ctrl+c
    does: it leaves its chair. Left to Python, SIGTERM ended the process on the spot,
    and the chair stayed held "away" for a token that ended with the process."""
    task = asyncio.current_task()
    assert task is not None
    with contextlib.suppress(NotImplementedError):  # (no such signal handlers on Windows)
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    await run(orders)


def main(argv: list[str] | None = None) -> int:
    orders = parse_orders(argv, make=lambda spec: make_player(spec, random.Random(0)))
    try:
        asyncio.run(run_until_terminated(orders))
    except BotStopped as stopped:
        print(stopped.details, end="", file=sys.stderr)  # the bot's traceback: the author's own text
        say(f"rummy-bot: {stopped}", sys.stderr)
        return 130 if stopped.interrupted else 1
    except KeyboardInterrupt:
        print("rummy-bot: stopped", file=sys.stderr)
        return 130
    except asyncio.CancelledError:  # SIGTERM (run_until_terminated)
        print("rummy-bot: stopped (terminated)", file=sys.stderr)
        return 128 + signal.SIGTERM
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
