"""A crowd doing everything at once over the wire: the server never fails a request.

Five people come and go on one server: they open tables, sit, watch, leave, seat and
remove bots (or fill their table with bots), start, move (on their turn from their
own view, or any card at any time), say they are ready, ask for another game, chat,
drop and come back with their seat tokens; now and then the server restarts. Each
sends its requests without waiting for the answers, so requests of different people
meet at the tables in every order, with the bots playing at full speed meanwhile. Whatever happens:

- every request is answered, and never with ``internal`` (the server's own failure:
  a hello that waited behind a leave was answered so);
- the server logs no error;
- who sits where agrees everywhere: the lobby's registry and each table, one chair
  per connection, each chair played only by a person of its name;
- a restart brings back every open table with its chairs, tokens and every move.

``CROWD_RUNS`` sets how many crowds (each its own seed) a run tries: a dozen for
``make test``, 400 for ``make test-long``, or any number by hand
(``CROWD_RUNS=1000 pytest tests/server/test_crowd.py``).
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from rummy.engine import Discard
from rummy.engine.bots import make_bot
from rummy.net import Client
from rummy.protocol import (
    PROTOCOL_VERSION,
    AddBot,
    CreateTable,
    Error,
    Hello,
    Leave,
    PlayAgain,
    Ready,
    Rejoin,
    RemoveBot,
    Seated,
    Sit,
    Start,
    TableOptions,
    Watch,
    Welcome,
    errors,
)
from rummy.protocol.messages import Chat
from rummy.protocol.wire import move_from_wire, move_to_wire
from rummy.server import Server
from rummy.server.master import TableMaster

from .game_helpers import open_client, serve

PEOPLE = ("Ann", "Bob", "Cy", "Di", "Eve")
RUNS = int(os.environ.get("CROWD_RUNS", "400" if os.environ.get("RUMMY_LONG") else "12"))
STEPS = 300
HUNG = 60.0  # seconds after which a crowd that has not finished counts as hung
RESTARTS = 0.005  # the chance, at each step, that the server restarts...
RESTARTS_IN_PLAY = 0.1  # ...and while a game is played


@dataclass
class Person:
    name: str
    client: Client | None = None
    tokens: list[str] = field(default_factory=list)  # every seat token it was given


@dataclass
class Crowd:
    server: Server
    rng: random.Random
    people: list[Person]
    asked: list[asyncio.Future[Any]] = field(default_factory=list)
    bot: Any = None
    clients: list[Client] = field(default_factory=list)  # every connection opened, to close
    restarting: bool = False

    def ask(self, person: Person, kind: type[Any], **fields: Any) -> None:
        """Send a request and go on without its answer (kept to look at later)."""
        assert person.client is not None
        self.asked.append(asyncio.ensure_future(self._answer(person, person.client, kind, fields)))

    async def _answer(self, person: Person, client: Client, kind: type[Any], fields: dict[str, Any]) -> Any:
        try:
            answer = await client.request(kind, **fields)
        except (ConnectionError, asyncio.CancelledError):
            return None  # its connection was dropped meanwhile, on purpose
        except TimeoutError:
            if client.closed or person.client is not client:
                return None  # dropped on purpose: nothing comes back
            raise AssertionError(f"{person.name}'s {kind.__name__} was never answered") from None
        if isinstance(answer, Seated):
            person.tokens.append(answer.token)
        if isinstance(answer, Error):
            assert answer.code != errors.INTERNAL, f"{person.name}'s {kind.__name__}: {answer.text}"
        return answer

    def act(self, person: Person) -> None:
        rng = self.rng
        c = person.client
        if c is None or c.closed:
            token = rng.choice(person.tokens) if person.tokens and rng.random() < 0.8 else None
            self.asked.append(asyncio.ensure_future(self._come(person, token)))
            return
        tables = list(c.lobby) or [1]
        table, chair = rng.choice(tables), rng.randrange(4)
        what = rng.choices(
            ["create", "sit", "watch", "leave", "rejoin", "bot", "unbot", "start", "move", "any card",
             "ready", "again", "chat", "drop", "host"],
            weights=[3, 6, 2, 2, 2, 4, 1, 4, 20, 2, 3, 3, 1, 2, 6],
        )[0]  # fmt: skip
        match what:
            case "create":
                options = TableOptions(
                    seating=rng.choice(["draw", "chosen"]), on_drop=rng.choice(["wait", "bot"])
                )
                self.ask(person, CreateTable, name=f"{person.name}'s", options=options, chair=chair)
            case "sit":
                self.ask(person, Sit, table_id=table, chair=chair)
            case "watch":
                self.ask(person, Watch, table_id=table)
            case "leave":
                self.ask(person, Leave)
            case "rejoin" if person.tokens:
                self.ask(person, Rejoin, token=rng.choice(person.tokens))
            case "bot":
                self.ask(person, AddBot, chair=chair, level="easy")
            case "unbot":
                self.ask(person, RemoveBot, chair=chair)
            case "start":
                self.ask(person, Start)
            case "move" if c.view is not None and c.view.my_turn and c.game is not None:
                move = move_from_wire(move_to_wire(self.bot.choose(c.view)))
                self.asked.append(asyncio.ensure_future(self._move(person, c, move, c.game.moves)))
            case "any card":
                self.asked.append(
                    asyncio.ensure_future(self._move(person, c, Discard(rng.randrange(56)), None))
                )
            case "ready":
                self.ask(person, Ready)
            case "again":
                self.ask(person, PlayAgain)
            case "chat":
                self.ask(person, Chat, text="hi")
            case "host" if c.table is None or c.table.status == "waiting":
                # Open a table (or take the one at hand), fill it with bots and start: the
                # requests go one after another, each answered before the next is read.
                free = [0, 1, 2, 3]
                if c.table is None:
                    self.ask(person, CreateTable, name=f"{person.name}'s", chair=chair)
                    free.remove(chair)
                else:
                    free = [info.chair for info in c.table.chairs if info.name is None]
                for each in free:
                    self.ask(person, AddBot, chair=each, level="easy")  # refused unless the creator
                self.ask(person, Start)
            case "drop":
                person.client = None
                self.asked.append(asyncio.ensure_future(c.close()))

    async def _come(self, person: Person, token: str | None) -> None:
        server = self.server
        c = await open_client(server)
        self.clients.append(c)
        if person.client is not None:  # came twice at once: the first one goes
            await person.client.close()
        person.client = c
        try:
            welcome = await c.request(
                Hello, version=PROTOCOL_VERSION, name=person.name, token=token, lobby=True
            )
        except (ConnectionError, asyncio.CancelledError):
            if person.client is not c or self.restarting or self.server is not server:
                return  # dropped again before the welcome, on purpose, or the server restarted
            raise
        assert isinstance(welcome, Welcome), welcome

    async def _move(self, person: Person, c: Client, move: Any, after: int | None) -> None:
        try:
            answer = await c.move(move, after=after)
        except (ConnectionError, asyncio.CancelledError, TimeoutError):
            if c.closed or person.client is not c:
                return
            raise
        if isinstance(answer, Error):
            assert answer.code != errors.INTERNAL, f"{person.name}'s move: {answer.text}"

    def check(self) -> None:
        """Who sits where agrees everywhere."""
        registry = self.server.lobby.registry
        seen: set[int] = set()
        for table in self.server.lobby.tables.values():
            for c in table.chairs:
                if c is None or c.session is None:
                    continue
                conn = c.session.id
                if conn not in registry.connections:
                    continue  # gone: the table hears it once what it stores now is stored
                assert conn not in seen, f"connection {conn} plays two chairs"
                seen.add(conn)
                assert c.session.name == c.name, f"{c.session.name} plays {c.name}'s chair"
                place = registry.place_of(conn)
                assert place == (table.id, c.index), (
                    f"{c.name} plays table {table.id} chair {c.index}; lobby: {place}"
                )
            for conn in table.spectators:
                assert conn not in registry.connections or registry.place_of(conn) == (table.id, None)

    async def restart(self, db: Path) -> None:
        """The server stops, with whatever is under way, and starts again from its file:
        every open table comes back with the same chairs and tokens, and a game with
        every move it had (nothing told to anyone is lost: a move is told once stored)."""
        old = self.server
        self.restarting = True
        await old.close()
        before = {t.id: t for t in old.lobby.tables.values() if not t.closed}
        self.server = await serve(db)
        self.restarting = False
        for table_id, was in before.items():
            now = self.server.lobby.tables.get(table_id)
            assert now is not None, f"table {table_id} did not come back"
            assert chairs(now) == chairs(was), f"table {table_id} came back with other chairs"
            if was.status == "playing":
                assert was.game is not None and now.game is not None and now.game_id == was.game_id
                assert now.game.moves[: len(was.game.moves)] == was.game.moves, "a move was lost"


def chairs(table: TableMaster) -> list[Any]:
    return [None if c is None else (c.name, c.bot, c.level, c.token_hash) for c in table.chairs]


async def run_crowd(seed: int, db: Path) -> None:
    rng = random.Random(seed)
    crowd = Crowd(
        await serve(db),
        rng,
        [Person(name) for name in PEOPLE],
        bot=make_bot("heuristic", random.Random(seed)),
    )
    try:
        for _ in range(STEPS):
            playing = any(t.status == "playing" for t in crowd.server.lobby.tables.values())
            if rng.random() < (RESTARTS_IN_PLAY if playing else RESTARTS):
                await crowd.restart(db)
            crowd.act(rng.choice(crowd.people))
            for _ in range(rng.randrange(4)):  # let the server get on, more or less far
                await asyncio.sleep(0)
            crowd.check()
        await asyncio.gather(*crowd.asked)
        crowd.check()
    finally:
        for client in crowd.clients:
            await client.close()
        await crowd.server.close()


def waiting() -> str:
    """Where each task still waiting stands: what a hung crowd waits for."""
    out = io.StringIO()
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in sorted(tasks, key=lambda t: "run_crowd" not in repr(t.get_coro())):
        task.print_stack(limit=12, file=out)
    return out.getvalue()


@pytest.mark.parametrize("seed", range(RUNS))
async def test_a_crowd_doing_everything_at_once_never_makes_the_server_fail(
    seed: int, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="rummy"):
        crowd = asyncio.ensure_future(run_crowd(seed, tmp_path / "crowd.db"))
        done, _ = await asyncio.wait({crowd}, timeout=HUNG)
        if not done:
            stuck = waiting()  # (the crowd's own task first: what it waits for)
            crowd.cancel()
            raise AssertionError(f"the crowd hung; still waiting:\n{stuck}")
        crowd.result()
    failed = [
        r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR and r.name.startswith("rummy")
    ]
    assert not failed, failed
