"""A crowd doing everything at once over the wire: the server never fails a request.

Five people come and go on one server: they open tables, sit, watch, leave, seat and
remove bots (or fill their table with bots), start, move (on their turn from their
own view, or any card at any time), say they are ready, ask for another game, chat,
drop and come back with their seat tokens. Each sends its requests without waiting
for the answers, so requests of different people meet at the tables in every order,
with the bots playing at full speed meanwhile. Whatever happens:

- every request is answered, and never with ``internal`` (the server's own failure:
  a hello that waited behind a leave was answered so);
- the server logs no error;
- who sits where agrees everywhere: the lobby's registry and each table, one chair
  per connection, each chair played only by a person of its name.

``CROWD_RUNS`` sets how many crowds (each its own seed) a run tries: a few for
``make test``, many by hand (``CROWD_RUNS=200 pytest tests/server/test_crowd.py``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
from dataclasses import dataclass, field
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

from .game_helpers import open_client, serve

PEOPLE = ("Ann", "Bob", "Cy", "Di", "Eve")
RUNS = int(os.environ.get("CROWD_RUNS", "20"))
STEPS = 150


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
            case "host" if c.table is not None and c.table.status == "waiting":
                for free in (info.chair for info in c.table.chairs if info.name is None):
                    self.ask(person, AddBot, chair=free, level="easy")  # refused unless the creator
                self.ask(person, Start)
            case "drop":
                person.client = None
                self.asked.append(asyncio.ensure_future(c.close()))

    async def _come(self, person: Person, token: str | None) -> None:
        c = await open_client(self.server)
        self.clients.append(c)
        if person.client is not None:  # came twice at once: the first one goes
            await person.client.close()
        person.client = c
        try:
            welcome = await c.request(
                Hello, version=PROTOCOL_VERSION, name=person.name, token=token, lobby=True
            )
        except (ConnectionError, asyncio.CancelledError):
            if person.client is not c:
                return  # dropped again before the welcome, on purpose
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


async def run_crowd(seed: int) -> None:
    server = await serve()
    rng = random.Random(seed)
    crowd = Crowd(
        server, rng, [Person(name) for name in PEOPLE], bot=make_bot("heuristic", random.Random(seed))
    )
    try:
        for _ in range(STEPS):
            crowd.act(rng.choice(crowd.people))
            for _ in range(rng.randrange(4)):  # let the server get on, more or less far
                await asyncio.sleep(0)
            crowd.check()
        await asyncio.gather(*crowd.asked)
        crowd.check()
    finally:
        for client in crowd.clients:
            await client.close()
        await server.close()


@pytest.mark.parametrize("seed", range(RUNS))
async def test_a_crowd_doing_everything_at_once_never_makes_the_server_fail(
    seed: int, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="rummy"):
        await run_crowd(seed)
    failed = [
        r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR and r.name.startswith("rummy")
    ]
    assert not failed, failed
