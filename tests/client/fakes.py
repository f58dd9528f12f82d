"""Server messages for app tests, built with the protocol's own types, and a
connection stand-in that records the requests the app sends."""

from __future__ import annotations

import random
from typing import Any

from rummy.client.app import RummyApp
from rummy.client.connection import ServerSaid
from rummy.engine import Game, view_for
from rummy.engine.bots import make_bot
from rummy.protocol import (
    ChairInfo,
    ClientMessage,
    GameUpdate,
    TableInfo,
    TableOptions,
    event_to_wire,
    view_to_wire,
)
from tests.support import play_until


class RecordingConnection:
    """Takes the place of ``Connection``: every request is kept, none is sent."""

    def __init__(self) -> None:
        self.sent: list[ClientMessage] = []

    def request(self, kind: type[ClientMessage], **fields: Any) -> int:
        request_id = len(self.sent) + 1
        self.sent.append(kind(id=request_id, **fields))
        return request_id

    def last(self) -> ClientMessage:
        return self.sent[-1]

    async def close(self) -> None:
        pass


def offline_app(**kw: Any) -> tuple[RummyApp, RecordingConnection]:
    app = RummyApp(
        player_name=kw.pop("player_name", "Ann"),
        address=kw.pop("address", ("example.org", 7325)),
        connect=False,
        **kw,
    )
    recorder = RecordingConnection()
    app.connection = recorder  # type: ignore[assignment]
    return app, recorder


def say(app: RummyApp, message: Any, request: type[ClientMessage] | None = None) -> None:
    """The server says ``message``; for an answer, ``request`` is the type of the
    request it answers."""
    app.post_message(ServerSaid(message, request))


def table_info(
    table_id: int,
    name: str,
    names: tuple[str | None, ...] = ("Ann", None, None, None),
    status: str = "waiting",
    creator: int | None = 0,
    bots: tuple[int, ...] = (),
    seats: tuple[int, ...] | None = None,
    options: TableOptions | None = None,
    levels: dict[int, str] | None = None,
) -> TableInfo:
    chairs = [
        ChairInfo(
            chair=i,
            name=n,
            bot=i in bots,
            present=n is not None,
            seat=None if seats is None else seats[i],
            level=(levels or {}).get(i),
        )
        for i, n in enumerate(names)
    ]
    return TableInfo(
        table_id=table_id,
        name=name,
        options=options or TableOptions(),
        status=status,  # type: ignore[arg-type]
        chairs=chairs,
        spectators=0,
        creator=creator,
        games=0 if status == "waiting" else 1,
    )


def advance_to(game: Game, seat: int) -> list[Any]:
    """Let seeded random bots play until it is ``seat``'s turn; returns the events."""
    rng = random.Random(1)
    return list(
        play_until(
            game,
            lambda g: make_bot("random", rng).choose(view_for(g, g.current)),
            lambda g: g.phase not in ("draw", "meld") or g.current == seat,
        )
    )


def game_update(table_id: int, game: Game, seat: int | None, events: list[Any] | None = None) -> GameUpdate:
    return GameUpdate(
        table_id=table_id,
        seat=seat,
        moves=len(game.moves),
        view=view_to_wire(view_for(game, seat)),
        events=[event_to_wire(e) for e in (events if events is not None else game.opening_events)],
    )
