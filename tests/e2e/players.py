"""A player without a screen, built on the client's own connection service
(``rummy.client.connection.Connection``): it keeps the picture the app would
keep and plays its seat with a bot. Used where a test needs several clients."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

from rummy.client.connection import Connection, ConnectionChanged, ServerSaid
from rummy.engine import Event, PlayerView
from rummy.engine.bots import make_bot
from rummy.protocol import (
    Error,
    GameUpdate,
    Lobby,
    LobbyGone,
    LobbyTable,
    MoveRequest,
    Ready,
    Seated,
    Table,
    TableInfo,
    Welcome,
    event_from_wire,
    move_to_wire,
    view_from_wire,
)

TIMEOUT = 30.0


class HeadlessPlayer:
    def __init__(self, host: str, port: int, name: str, seed: int = 0) -> None:
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.token: str | None = None
        self.connection = Connection(host, port, name, self.queue.put_nowait, lambda: self.token)
        self.bot = make_bot("heuristic", random.Random(seed))
        self.welcome: Welcome | None = None
        self.status = "connecting"
        self.table: TableInfo | None = None
        self.lobby: dict[int, TableInfo] | None = None
        self.view: PlayerView | None = None
        self.moves = -1
        self.events: list[Event] = []
        self.errors: list[Error] = []
        self.answers: dict[int, Any] = {}
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> HeadlessPlayer:
        self.task = asyncio.get_running_loop().create_task(self.connection.run())
        await self.until(lambda p: p.welcome is not None)
        return self

    def send(self, kind: str, factory: Any, **fields: Any) -> int:
        request_id = self.connection.request(kind, factory, **fields)
        assert request_id is not None, "not connected"
        return request_id

    async def answer(self, request_id: int) -> Any:
        await self.until(lambda p: request_id in p.answers)
        return self.answers.pop(request_id)

    def _take(self, message: Any) -> None:
        if isinstance(message, ConnectionChanged):
            self.status = message.status or "connected"
            return
        assert isinstance(message, ServerSaid)
        m = message.message
        if getattr(m, "id", None) is not None:
            self.answers[m.id] = m
        match m:
            case Welcome():
                self.welcome = m
            case Seated():
                self.token = m.token
            case Lobby():
                self.lobby = {t.table_id: t for t in m.tables}
            case LobbyTable() if self.lobby is not None:  # the list may be a push behind
                self.lobby[m.table.table_id] = m.table
            case LobbyGone() if self.lobby is not None:
                self.lobby.pop(m.table_id, None)
            case Table():
                self.table = m.table
            case GameUpdate():
                self.view = view_from_wire(m.view)
                self.moves = m.moves
                self.events += [event_from_wire(e) for e in m.events]
            case Error():
                self.errors.append(m)

    async def until(self, done: Callable[[HeadlessPlayer], bool], timeout: float = TIMEOUT) -> None:
        async def wait() -> None:
            while not done(self):
                self._take(await self.queue.get())

        await asyncio.wait_for(wait(), timeout)

    async def play(self) -> None:
        """Play this seat until the game is over: a move on each turn, ready at a deal's end."""
        answered = -1

        def cue(p: HeadlessPlayer) -> bool:
            v = p.view
            return v is not None and (
                v.phase == "game_over" or (p.moves != answered and (v.my_turn or v.phase == "deal_over"))
            )

        while True:
            await self.until(cue, TIMEOUT * 4)
            view = self.view
            assert view is not None
            if view.phase == "game_over":
                return
            answered = self.moves
            if view.phase == "deal_over":
                await self.answer(self.send("ready", Ready))
                continue
            move = self.bot.choose(view)
            reply = await self.answer(
                self.send("move", MoveRequest, move=move_to_wire(move), after=self.moves)
            )
            assert not isinstance(reply, Error), reply

    async def close(self) -> None:
        await self.connection.close()
        if self.task is not None:
            self.task.cancel()
