"""A server that says anything: the client never fails on it.

What our server says to one player through a whole game (recorded over an in-memory
pipe) is told to the app again, out of order and over again, with numbers, names and
lists changed at random and names full of escape codes, while keys are pressed; only
messages that pass the protocol's own checks are told, as only those get past the
client's reading of the wire. Whatever comes, the app stays up and the screen shows
no escape code. (A handler that raised would end the app, and ``run_test`` raises it.)
It found the client closing without a word when the player's leaving was answered
just as a deal ended, and a dialog failing to find its line of keys.

Besides the game, the recording holds what the lobby, the history and a replay are
told (the table list, a page of finished games, a game's record) and the server's
refusals of a chair. Now and then the player asks for what keys seldom reach (the
history, a replay, a chair...), and at half the steps an answer told answers the app's
latest request (its id), often with what that request waits for, as a server's would:
so the history and replay screens open, and the keys pressed there work them. It
found the client ending on a history page that came after the history was closed, and
on a page that listed a game twice.

``HOSTILE_SEEDS`` sets how many seeds a run tries: three for ``make test``, 40 for
``make test-long``, or any number by hand
(``HOSTILE_SEEDS=40 pytest tests/client/test_hostile_server.py``).
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from textual.message import Message

from rummy.client.app import RummyApp
from rummy.client.messages import (
    LeaveTable,
    OpenHistory,
    OpenTable,
    RejoinRequested,
    ReplayRequested,
    SitRequested,
    StartRequested,
    WatchRequested,
)
from rummy.protocol import Ok, ServerMessage, errors
from rummy.protocol.codec import encode_payload, frame, server_decoder
from rummy.protocol.messages import (
    CreateTable,
    GetRecord,
    History,
    HistoryPage,
    Leave,
    LobbySubscribe,
    MoveRequest,
    Rejoin,
    Seated,
    Sit,
    Start,
    Watch,
)
from tests.client.conftest import screen_text
from tests.client.fakes import RecordingConnection, offline_app, say
from tests.server.game_helpers import close_all, connect, play_all, serve, table_of_four

NUMBERS = (-1, 0, 1, 2, 3, 4, 5, 7, 13, 55, 56, 57, 999, 2**31, 2**63 - 1)
WORDS = ("\x1b[31mEve\x1b[0m", "\x1b]0;owned\x07", "\u202eevil", "", " ", "x" * 300, "Ann", "\n\n\n")
KEYS = (
    "s",
    "d",
    "t",
    "m",
    "l",
    "p",
    "n",
    "a",
    "r",
    "o",
    "1",
    "2",
    "7",
    "tab",
    "escape",
    # The lobby's (history, watch, bots, start, chat), the table's (hints, back to the
    # lobby, moving a card), a game end's (watch again) and a replay's:
    "h",
    "w",
    "b",
    "x",
    "g",
    "c",
    "y",
    "0",
    "question_mark",
    "less_than_sign",
    "greater_than_sign",
    "space",
    "shift+tab",
    "plus",
    "minus",
    "home",
    "end",
    "pagedown",
    "pageup",
)
RATES = (0.0, 0.005, 0.02, 0.05)  # the chance that each part of a message is changed
# (No q, enter or arrows: at a game's end they choose Quit, and the app would end as
# asked, not as failed.)
REQUESTS = (None, MoveRequest, Sit, Rejoin, Leave, Start, CreateTable, Watch, History, GetRecord)
# What a player asks for on screens the keys seldom reach (the lobby's, the history's, a
# game end's), as those screens ask the app: the history, a replay, a chair...
ASKS: tuple[Callable[[], Message], ...] = (
    OpenHistory,
    lambda: ReplayRequested(1),
    lambda: SitRequested(2, 1),
    lambda: WatchRequested(1),
    LeaveTable,
    RejoinRequested,
    StartRequested,
    OpenTable,
)
# What answers a request of these kinds (other answers come too: refusals, wrong ones).
ANSWERS: dict[type[Any], str] = {History: "history_page", GetRecord: "record", Sit: "seated"}
SEEDS = int(os.environ.get("HOSTILE_SEEDS", "40" if os.environ.get("RUMMY_LONG") else "3"))


_recorded: dict[str, list[Any]] = {}


async def recorded_game() -> tuple[list[Any], list[Any]]:
    """Every message our server sends Ann in a game against three bots, and then in
    the lobby (``game``, and the whole recording), as builtins (played once for all
    the seeds)."""
    if _recorded:
        return _recorded["game"], _recorded["all"]
    server = await serve()
    clients, _, _ = await table_of_four(server, names=("Ann",), bots=3, keep_frames=True)
    await play_all(clients)
    ann = clients[0]
    played = len(ann.frames)
    # The lobby, the history and the game's record; then the chair refusals: a bad
    # token, not at a table, a chair taken, and the chair taken over by another
    # connection with Ann's token.
    assert isinstance(await ann.request(LobbySubscribe), Ok)
    page = await ann.request(History)
    assert isinstance(page, HistoryPage) and page.games, page
    await ann.request(GetRecord, game_id=page.games[0].game_id)
    await ann.request(Rejoin, token="A" * 43)
    await ann.request(Leave)
    await ann.request(Leave)
    bob = await connect(server, "Bob")
    bobs = await bob.request(CreateTable, name="Bob's")
    assert isinstance(bobs, Seated), bobs
    await ann.until(lambda c: bobs.table_id in c.lobby)
    await ann.request(Sit, table_id=bobs.table_id, chair=0)
    seated = await ann.request(Sit, table_id=bobs.table_id, chair=1)
    assert isinstance(seated, Seated), seated
    other = await connect(server, "Ann")
    await other.request(Rejoin, token=seated.token)
    await ann.until(lambda c: any(e.code == errors.REPLACED for e in c.errors))
    frames = list(ann.frames)
    await close_all([*clients, bob, other])
    await server.close()
    decoder = server_decoder()
    game, lobby = (
        [msgspec.to_builtins(m) for f in chunk for m in decoder.feed(f) if isinstance(m, msgspec.Struct)]
        for chunk in (frames[:played], frames[played:])
    )
    _recorded.update(game=game, all=game + lobby)
    return game, game + lobby


def mutated(value: Any, rng: random.Random, rate: float) -> Any:
    """``value`` with some of its parts changed: numbers, strings, lists, nils."""
    if rng.random() < rate:
        if isinstance(value, bool) or value is None:
            return rng.choice((True, False, None, 0))
        if isinstance(value, int):
            return rng.choice(NUMBERS)
        if isinstance(value, str):
            return rng.choice(WORDS)
        if isinstance(value, list):
            items = [mutated(v, rng, rate) for v in value]
            rng.shuffle(items)
            return items[: rng.randrange(len(items) + 1)] + items[: rng.randrange(2)]
    if isinstance(value, dict):
        return {k: (v if k == "type" else mutated(v, rng, rate)) for k, v in value.items()}
    if isinstance(value, list):
        return [mutated(v, rng, rate) for v in value]
    return value


def answered(recorder: RecordingConnection, rng: random.Random) -> type[Any] | None:
    """The kind of the app's latest request, half the time: the message told next (if
    an answer) answers it."""
    if not recorder.sent or rng.random() < 0.5:
        return None
    return type(recorder.sent[-1])


def as_read(value: Any) -> list[ServerMessage]:
    """``value`` as the client would read it off the wire: nothing if the protocol's
    checks refuse it."""
    data = frame(encode_payload(value))
    return [m for m in server_decoder().feed(data) if isinstance(m, msgspec.Struct)]


@pytest.mark.parametrize("seed", range(SEEDS))
async def test_whatever_a_server_says_the_client_stays_up(seed: int) -> None:
    game, everything = await recorded_game()
    rng = random.Random(seed)
    answers = [m for m in everything if "id" in m]
    app: RummyApp
    app, recorder = offline_app()
    told = 0
    async with app.run_test(size=(100, 32)) as pilot:
        for step in range(400):
            # Anything, or the game in its order.
            message = rng.choice(everything) if rng.random() < 0.7 else game[min(step, len(game) - 1)]
            asked = answered(recorder, rng)
            if asked is not None and rng.random() < 0.5:  # what that request waits for
                kind = ANSWERS.get(asked)
                message = rng.choice([m for m in answers if m["type"] == kind] or answers)
            # A game push has hundreds of parts: a few changed is already most of them
            # refused by the protocol's checks; some go as they were, out of order.
            message = mutated(message, rng, rate=rng.choice(RATES))
            request = rng.choice(REQUESTS)
            if asked is not None and "id" in message:  # an answer to the app's request
                message, request = {**message, "id": recorder.sent[-1].id}, asked
            for m in as_read(message):
                say(app, m, request)
                told += 1
            if step % 15 == 0:
                app.simulate_key(rng.choice(KEYS))
            if step % 15 == 7:
                app.post_message(rng.choice(ASKS)())
            # Let the app take it in. (Not ``pilot.pause``: it waits for every widget to
            # say it is idle, and under this flood one that was just unmounted never did.)
            for _ in range(3):
                await asyncio.sleep(0)
        await pilot.pause()  # the keys pressed taken in before the app is closed
        assert app.is_running
        assert "\x1b" not in screen_text(app)
    assert told > 200  # most of it passed the protocol's checks, and was told
