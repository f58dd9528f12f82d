"""docs/PROTOCOL.md is enough to write a client: this one uses only the plain ``msgpack``
package and a socket (no msgspec, nothing of ``rummy.protocol``), follows the document's
session order and plays a whole game to the end; it also lists the finished games and
fetches one's record to replay it (docs/PROTOCOL.md "History and replays", docs/RECORDS.md).

It borrows only the engine, as a bot author would, to pick its moves: it turns the
``view`` map into a ``PlayerView`` by hand and writes its moves as the document's
Move maps by hand (``move_map``).
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import msgpack

from rummy.engine import (
    Discard,
    DrawStock,
    Game,
    LayOff,
    Meld,
    Move,
    NewMeld,
    NextDeal,
    PartnerDraw,
    Pass,
    PlayerView,
    TakeDiscard,
    meld_kind,
    rank,
    suit,
)
from rummy.engine.bots import make_bot
from rummy.engine.scoring import DealResult, TeamScore
from rummy.server import Server

from .game_helpers import moves_of_seat, tcp_server

__all__ = ["tcp_server"]


class PlainClient:
    """Frames: 4-byte big-endian length + one MessagePack map (PROTOCOL.md, "Frames")."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.next_id = 0
        self.pushes: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any]) -> int:
        self.next_id += 1
        message = {**message, "id": self.next_id}
        body = msgpack.packb(message)
        self.writer.write(len(body).to_bytes(4, "big") + body)
        await self.writer.drain()
        return self.next_id

    async def receive(self) -> dict[str, Any]:
        size = int.from_bytes(await self.reader.readexactly(4), "big")
        assert size <= 4 * 1024 * 1024
        message: dict[str, Any] = msgpack.unpackb(await self.reader.readexactly(size))
        return message

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send a request; keep the pushes that come first; return the answer with its id."""
        rid = await self.send(message)
        while True:
            m = await asyncio.wait_for(self.receive(), 10)
            if m.get("id") == rid:
                return m
            self.pushes.append(m)

    async def push(self, kind: str) -> dict[str, Any]:
        """The next push of type ``kind`` (earlier ones of other types are kept)."""
        for i, m in enumerate(self.pushes):
            if m["type"] == kind:
                return self.pushes.pop(i)
        while True:
            m = await asyncio.wait_for(self.receive(), 10)
            if m["type"] == kind:
                return m
            self.pushes.append(m)


def move_map(move: Move) -> dict[str, Any]:
    """An engine move as PROTOCOL.md's Move map."""
    match move:
        case DrawStock():
            return {"type": "draw_stock"}
        case TakeDiscard(index, cards, meld_id):
            return {"type": "take_discard", "index": index, "cards": list(cards), "meld_id": meld_id}
        case NewMeld(cards):
            return {"type": "meld", "cards": list(cards)}
        case LayOff(meld_id, card):
            return {"type": "lay_off", "meld_id": meld_id, "card": card}
        case Discard(card):
            return {"type": "discard", "card": card}
        case Pass():
            return {"type": "pass"}
        case NextDeal():
            return {"type": "next_deal"}
    raise TypeError(f"not a move: {move!r}")


def engine_move(m: dict[str, Any]) -> Move:
    """PROTOCOL.md's Move map as an engine move (a record's moves)."""
    kind = m["type"]
    if kind == "take_discard":
        return TakeDiscard(m["index"], tuple(m["cards"]), m.get("meld_id"))
    if kind == "meld":
        return NewMeld(tuple(m["cards"]))
    if kind == "lay_off":
        return LayOff(m["meld_id"], m["card"])
    if kind == "discard":
        return Discard(m["card"])
    return {"draw_stock": DrawStock(), "pass": Pass(), "next_deal": NextDeal()}[kind]


def to_view(v: dict[str, Any]) -> PlayerView:
    """The View map of PROTOCOL.md as the engine's PlayerView."""
    melds = []
    for m in v["melds"]:
        cards = m["cards"]
        kind = meld_kind(cards)
        assert kind == m["kind"]
        low, high, s = (rank(cards[0]), rank(cards[-1]), suit(cards[0])) if kind == "run" else (0, 0, 0)
        melds.append(
            Meld(
                m["id"],
                kind,
                list(cards),
                list(m["owners"]),
                m["laid_by"],
                m["four_at_once"],
                low,
                high,
                s,
                rank(cards[0]) if kind == "set" else 0,
            )
        )
    d = v["partner_draw"]
    draw = PartnerDraw(
        d["seating"],
        tuple(tuple(tuple(p) for p in r) for r in d["rounds"]),
        tuple(d["seat_of_player"]),
        d["first_dealer"],
    )
    results = tuple(
        DealResult(
            r["deal"],
            r["ended_by"],
            r["went_out"],
            tuple(tuple(h) for h in r["hands"]),
            tuple(
                TeamScore(s["laid"], s["doubled_fours"], s["in_hand"], s["going_out"]) for s in r["scores"]
            ),
        )
        for r in v["results"]
    )
    return PlayerView(
        v["seat"],
        v["phase"],
        v["deal"],
        v["dealer"],
        v["current"],
        None if v["hand"] is None else tuple(v["hand"]),
        tuple(v["hand_counts"]),
        v["stock_count"],
        tuple(v["discard_pile"]),
        tuple(melds),
        v["passes"],
        draw,
        results,
    )


async def test_a_plain_msgpack_client_plays_a_whole_game(tcp_server: Server) -> None:
    server = tcp_server  # a client in another language comes by TCP
    reader, writer = await asyncio.open_connection(server.host, server.port)
    c = PlainClient(reader, writer)
    welcome = await c.request({"type": "hello", "version": 1, "name": "Plain", "lobby": True})
    assert welcome["type"] == "welcome" and welcome["name"] == "Plain"
    assert (await c.push("lobby"))["tables"] == []
    options = {"seating": "draw", "turn_seconds": 0, "on_drop": "wait"}
    seated = await c.request({"type": "create_table", "name": "plain", "options": options})
    assert seated["type"] == "seated" and len(seated["token"]) >= 22
    for chair in (1, 2, 3):
        assert (await c.request({"type": "add_bot", "chair": chair}))["type"] == "ok"
    assert (await c.request({"type": "start"}))["type"] == "ok"
    bot = make_bot("heuristic", random.Random(3))
    moves_sent = 0
    while True:
        game = await c.push("game")
        view = to_view(game["view"])
        assert view.seat == game["seat"] and view.hand is not None
        if view.phase == "game_over":
            ended = [e for e in game["events"] if e["type"] == "game_ended"]
            assert ended and ended[0]["totals"] == list(view.totals())
            break
        if view.phase == "deal_over":
            answer = await c.request({"type": "ready"})
            assert answer["type"] in ("ok", "error")
            continue
        if view.my_turn:
            move = move_map(bot.choose(view))
            answer = await c.request({"type": "move", "move": move, "after": game["moves"]})
            assert answer["type"] == "ok", answer
            moves_sent += 1
    # Every move of this seat in the stored game was this client's (not a fixed floor:
    # a game's length varies).
    stored = server.table(seated["table_id"])
    assert stored is not None
    assert moves_sent > 0 and moves_sent == moves_of_seat(server, stored.game_id, game["seat"])
    table = await c.push("table")
    while table["table"]["status"] != "finished":
        table = await c.push("table")
    writer.close()
    await writer.wait_closed()


async def test_a_bot_that_knows_no_rules_plays_from_the_legal_moves_the_server_sends(
    tcp_server: Server,
) -> None:
    """A bot in another language need not know the rules: with ``legal_moves`` in its
    hello, each ``game`` push where its seat is to act lists every move it may make,
    in the wire's move form, and sending any one of them is accepted. Nothing of the
    engine is used to choose."""
    server = tcp_server  # a client in another language comes by TCP
    reader, writer = await asyncio.open_connection(server.host, server.port)
    c = PlainClient(reader, writer)
    hello = {"type": "hello", "version": 1, "name": "Naive", "lobby": False, "legal_moves": True}
    assert (await c.request(hello))["type"] == "welcome"
    options = {"seating": "chosen", "turn_seconds": 0, "on_drop": "wait"}
    seated = await c.request({"type": "create_table", "name": "naive", "options": options})
    assert seated["type"] == "seated"
    for chair in (1, 2, 3):
        assert (await c.request({"type": "add_bot", "chair": chair}))["type"] == "ok"
    assert (await c.request({"type": "start"}))["type"] == "ok"
    rng = random.Random(5)
    moves_sent = 0
    while True:
        game = await c.push("game")
        view = game["view"]
        if view["phase"] == "game_over":
            assert game["legal_moves"] is None
            break
        to_act = view["current"] == game["seat"]
        if not to_act:
            assert game["legal_moves"] is None
            continue
        legal = game["legal_moves"]
        # The very list the engine gives (checked here only, never used to choose).
        assert legal == [move_map(m) for m in to_view(view).legal_moves()]
        move = rng.choice(legal)
        answer = await c.request({"type": "move", "move": move, "after": game["moves"]})
        assert answer["type"] == "ok", answer
        moves_sent += move["type"] != "next_deal"  # counted as moves_of_seat counts
    stored = server.table(seated["table_id"])
    assert stored is not None
    assert moves_sent > 0 and moves_sent == moves_of_seat(server, stored.game_id, game["seat"])
    writer.close()
    await writer.wait_closed()


async def test_a_plain_msgpack_client_lists_the_finished_games_and_replays_one(tcp_server: Server) -> None:
    """The history and a record, read with nothing but msgpack and the documents: the
    record replays with the engine (seed, seating, moves) to exactly its recorded result,
    every deal's hands and scores included (R7, R8)."""
    server = tcp_server  # a client in another language comes by TCP
    reader, writer = await asyncio.open_connection(server.host, server.port)
    c = PlainClient(reader, writer)
    assert (await c.request({"type": "hello", "version": 1, "name": "Plain", "lobby": False}))[
        "type"
    ] == "welcome"
    empty = await c.request({"type": "history"})
    assert empty["type"] == "history_page" and empty["games"] == [] and empty["more"] is False
    # A table of bots: the plain client starts it and leaves; a bot plays its chair (on_drop).
    options = {"seating": "draw", "turn_seconds": 0, "on_drop": "bot"}
    assert (await c.request({"type": "create_table", "name": "replayed", "options": options}))[
        "type"
    ] == "seated"
    for chair in (1, 2, 3):
        assert (await c.request({"type": "add_bot", "chair": chair}))["type"] == "ok"
    assert (await c.request({"type": "start"}))["type"] == "ok"
    assert (await c.request({"type": "leave"}))["type"] == "ok"
    page = empty
    for _ in range(2000):  # poll until the bots have finished the game
        page = await c.request({"type": "history", "limit": 5})
        if page["games"]:
            break
        await asyncio.sleep(0.01)
    (summary,) = page["games"]
    assert summary["table_name"] == "replayed" and summary["mine"] is True and summary["number"] == 1
    assert [p["seat"] for p in summary["players"]] == [0, 1, 2, 3]
    answer = await c.request({"type": "get_record", "game_id": summary["game_id"]})
    assert answer["type"] == "record" and answer["game_id"] == summary["game_id"]
    record = answer["record"]
    assert record["format"] == "persian-rummy-game" and record["version"] == 1 and record["engine"] == 1
    game = Game(int(record["seed"]), record["seating"])
    for move in record["moves"]:
        game.apply(engine_move(move))
    assert game.is_over
    result = record["result"]
    assert list(game.totals()) == result["totals"] == summary["totals"]
    assert game.winner() == result["winner"] == summary["winner"]
    for deal, recorded in zip(game.results, result["deals"], strict=True):
        assert [list(h) for h in deal.hands] == recorded["hands"]
        assert [s.total for s in deal.scores] == [s["total"] for s in recorded["scores"]]
    # Every move of the chair left behind was played by a stand-in bot, and the record says so.
    assert len(record["autos"]) == len(record["moves"]) and "stand_in" in record["autos"]
    assert set(record["autos"]) <= {None, "timer", "stand_in"}
    missing = await c.request({"type": "get_record", "game_id": summary["game_id"] + 1})
    assert missing["type"] == "error" and missing["code"] == "no-such-game"
    writer.close()
    await writer.wait_closed()
