"""A server that says anything: the client never fails on it.

What our server says to one player through a whole game (recorded over an in-memory
pipe) is told to the app again, out of order and over again, with numbers, names and
lists changed at random and names full of escape codes, while keys are pressed; only
messages that pass the protocol's own checks are told, as only those get past the
client's reading of the wire. Whatever comes, the app stays up and the screen shows
no escape code. (A handler that raised would end the app, and ``run_test`` raises it.)
It found the client closing without a word when the player's leaving was answered
just as a deal ended, and a dialog failing to find its line of keys.

``HOSTILE_SEEDS`` sets how many seeds a run tries: three for ``make test``, 40 for
``make test-long``, or any number by hand
(``HOSTILE_SEEDS=40 pytest tests/client/test_hostile_server.py``).
"""

from __future__ import annotations

import asyncio
import os
import random
from typing import Any

import msgspec
import pytest

from rummy.client.app import RummyApp
from rummy.protocol import ServerMessage
from rummy.protocol.codec import encode_payload, frame, server_decoder
from rummy.protocol.messages import CreateTable, Leave, MoveRequest, Rejoin, Sit, Start, Watch
from tests.client.conftest import screen_text
from tests.client.fakes import offline_app, say
from tests.server.game_helpers import close_all, play_all, serve, table_of_four

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
)
RATES = (0.0, 0.005, 0.02, 0.05)  # the chance that each part of a message is changed
# (No q, enter or arrows: at a game's end they choose Quit, and the app would end as
# asked, not as failed.)
REQUESTS = (None, MoveRequest, Sit, Rejoin, Leave, Start, CreateTable, Watch)
SEEDS = int(os.environ.get("HOSTILE_SEEDS", "40" if os.environ.get("RUMMY_LONG") else "3"))


_recorded: list[Any] = []


async def recorded_game() -> list[Any]:
    """Every message our server sends Ann in a game against three bots, as builtins
    (played once for all the seeds)."""
    if _recorded:
        return _recorded
    server = await serve()
    clients, _, _ = await table_of_four(server, names=("Ann",), bots=3, keep_frames=True)
    await play_all(clients)
    frames = list(clients[0].frames)
    await close_all(clients)
    await server.close()
    decoder = server_decoder()
    _recorded.extend(
        msgspec.to_builtins(m) for f in frames for m in decoder.feed(f) if isinstance(m, msgspec.Struct)
    )
    return _recorded


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


def as_read(value: Any) -> list[ServerMessage]:
    """``value`` as the client would read it off the wire: nothing if the protocol's
    checks refuse it."""
    data = frame(encode_payload(value))
    return [m for m in server_decoder().feed(data) if isinstance(m, msgspec.Struct)]


@pytest.mark.parametrize("seed", range(SEEDS))
async def test_whatever_a_server_says_the_client_stays_up(seed: int) -> None:
    game = await recorded_game()
    rng = random.Random(seed)
    app: RummyApp
    app, _ = offline_app()
    told = 0
    async with app.run_test(size=(100, 32)) as pilot:
        for step in range(400):
            message = rng.choice(game) if rng.random() < 0.7 else game[min(step, len(game) - 1)]
            # A game push has hundreds of parts: a few changed is already most of them
            # refused by the protocol's checks; some go as they were, out of order.
            for m in as_read(mutated(message, rng, rate=rng.choice(RATES))):
                say(app, m, rng.choice(REQUESTS))
                told += 1
            if step % 15 == 0:
                app.simulate_key(rng.choice(KEYS))
            # Let the app take it in. (Not ``pilot.pause``: it waits for every widget to
            # say it is idle, and under this flood one that was just unmounted never did.)
            for _ in range(3):
                await asyncio.sleep(0)
        await pilot.pause()  # the keys pressed taken in before the app is closed
        assert app.is_running
        assert "\x1b" not in screen_text(app)
    assert told > 200  # most of it passed the protocol's checks, and was told
