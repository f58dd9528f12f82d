"""The leak test (RULES R9): in whole games, no frame sent to a seat or a spectator ever
holds a card hidden from them.

Every frame each client received is decoded with the plain ``msgpack`` package (not
the protocol's own types, so nothing the server added unasked escapes the check). The
game is then rebuilt from storage (seed + moves) so the true state after every move
is known, and each frame is checked twice:

- exactly: a ``game`` frame equals the wire form of ``view_for(true state, seat)`` and
  the move's events, field for field;
- independently: no card in it (hands, pile, melds, events) is one the recipient could
  not see both before and after that move (the stock, and other players' hands while
  a deal is on); every other frame holds no card at all.

A ``game`` frame sent on joining also tells the deal so far (``history``): it must be
exactly the true events of the deal's moves, and each step is checked against what
was hidden when that move was made.
"""

from __future__ import annotations

from typing import Any

import msgpack
import msgspec

from rummy.engine import DealStarted, Game, GameRecord, view_for
from rummy.net import Client
from rummy.protocol import Watch, Watching, event_to_wire, view_to_wire
from rummy.server import Server

from .game_helpers import close_all, connect, play_again, play_all, server, table_of_four

__all__ = ["server"]

CARD_KEYS = {"hand", "discard_pile", "cards", "taken", "card", "first_discard", "hands"}


def cards_in(node: Any, skip: frozenset[str] = frozenset()) -> set[int]:
    """Every card under a card-bearing key, anywhere in a decoded message."""
    found: set[int] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key in skip:
                continue
            if key in CARD_KEYS:
                found |= _ints(value)
            else:
                found |= cards_in(value, skip)
    elif isinstance(node, list):
        for item in node:
            found |= cards_in(item, skip)
    return found


def _ints(value: Any) -> set[int]:
    if isinstance(value, int) and not isinstance(value, bool):
        return {value}
    if isinstance(value, list):
        return set().union(*(_ints(v) for v in value)) if value else set()
    return set()


class Truth:
    """The true game after each move, rebuilt from what the server stored."""

    def __init__(self, record: GameRecord) -> None:
        game = Game(record.seed, record.seating)
        self.states = [game.clone()]
        self.events = [list(game.opening_events)]
        for move in record.moves:
            self.events.append(game.apply(move))
            self.states.append(game.clone())

    def moves_from(self, first: int) -> list[int]:
        """The move numbers from ``first`` to the game's last (0: its opening)."""
        return list(range(first, len(self.states)))

    def deal_so_far(self, n: int) -> range:
        """The steps of the deal under way after ``n`` moves: from the one that started
        it (the opening, or a next deal) to move ``n``."""
        start = max(k for k in range(n + 1) if any(isinstance(e, DealStarted) for e in self.events[k]))
        return range(start, n + 1)

    def hidden(self, n: int, seat: int | None) -> set[int]:
        """R9.2: the stock always; the other hands while the deal is being played."""
        g = self.states[n]
        hidden = set(g.stock)
        if g.phase not in ("deal_over", "game_over"):
            for s, hand in enumerate(g.hands):
                if s != seat:
                    hidden |= set(hand)
        return hidden


def plain(struct: Any) -> Any:
    return msgpack.unpackb(msgspec.msgpack.encode(struct))


def check_frames(frames: list[bytes], seat: int | None, truth: Truth) -> list[int]:
    """Check every frame of one game a client received; returns the moves after which
    each ``game`` frame was sent, in order."""
    checked: list[int] = []
    for frame in frames:
        message = msgpack.unpackb(frame[4:])
        if message["type"] != "game":
            assert cards_in(message) == set(), message
            continue
        n = message["moves"]
        assert message["seat"] == seat
        expected = plain(view_to_wire(view_for(truth.states[n], seat)))
        assert message["view"] == expected, f"frame after move {n} differs from the view R9 allows"
        if message["events"]:
            assert message["events"] == [plain(event_to_wire(e)) for e in truth.events[n]]
        # The partner draw uses a pack of its own, and deal results belong to ended deals.
        skip = frozenset({"rounds", "results", "result", "history"})
        history = message.get("history")
        if history is not None:  # sent on joining: the deal so far
            steps = truth.deal_so_far(n)
            assert [step["events"] for step in history] == [
                [plain(event_to_wire(e)) for e in truth.events[k]] for k in steps
            ]
            for step, k in zip(history, steps, strict=True):
                then = truth.hidden(k, seat) & truth.hidden(max(k - 1, 0), seat)
                assert not cards_in(step, skip) & then, f"history step {k} shows hidden cards"
        secret = truth.hidden(n, seat) & truth.hidden(max(n - 1, 0), seat)
        shown = cards_in(message, skip=skip)
        assert not shown & secret, f"hidden cards {sorted(shown & secret)} sent to seat {seat}"
        checked.append(n)
    return checked


def split_by_game(frames: list[bytes]) -> list[list[bytes]]:
    """A client's frames, cut where each game starts (a game frame with moves 0 and events)."""
    parts: list[list[bytes]] = [[]]
    seen_game = False
    for frame in frames:
        message = msgpack.unpackb(frame[4:])
        if message["type"] == "game":
            if message["moves"] == 0 and message["events"] and seen_game:
                parts.append([])
            seen_game = True
        parts[-1].append(frame)
    return parts


def truth_of(server: Server, game_id: int) -> Truth:
    data = server.storage.game_record(game_id)
    assert data is not None
    return Truth(data)


async def _watch(server: Server, table_id: int) -> Client:
    watcher = await connect(server, "Eve", keep_frames=True)
    assert isinstance(await watcher.request(Watch, table_id=table_id), Watching)
    return watcher


async def test_no_frame_holds_a_card_hidden_from_its_recipient(server: Server) -> None:
    """R9.1, R9.2 over two whole games of four people, watched by a spectator."""
    clients, _, table_id = await table_of_four(server, keep_frames=True)
    watcher = await _watch(server, table_id)
    table = server.table(table_id)
    await play_all(clients)
    first = table.game_id
    await play_again(clients)
    for c in clients:
        await c.until(lambda c: c.table is not None and c.table.games == 2)
    await play_all(clients, game_number=2)
    await watcher.until(lambda c: c.table is not None and c.table.status == "finished")
    truths = [truth_of(server, first), truth_of(server, table.game_id)]
    for chair, c in enumerate(clients):
        parts = split_by_game(c.frames)
        assert len(parts) == 2
        for part, truth in zip(parts, truths, strict=True):
            seat = truth.states[0].partner_draw.seat_of_chair[chair]  # new draw, maybe new seat
            # Every move's frame was checked, whatever the game's length (a count would not say).
            assert check_frames(part, seat, truth) == truth.moves_from(0)
    parts = split_by_game(watcher.frames)
    assert len(parts) == 2
    for part, truth in zip(parts, truths, strict=True):
        assert check_frames(part, None, truth) == truth.moves_from(0)
    await close_all([*clients, watcher])


async def test_no_leak_to_a_player_among_bots_or_to_a_late_spectator(server: Server) -> None:
    """R9.2 with bots seated and a spectator who joins mid-game (its first view has no events)."""
    clients, _, table_id = await table_of_four(server, names=("Ann",), bots=3, keep_frames=True)
    table = server.table(table_id)
    await play_all(clients, stop_after=20)
    watcher = await _watch(server, table_id)
    await play_all(clients)
    await watcher.until(lambda c: c.view is not None and c.view.phase == "game_over")
    truth = truth_of(server, table.game_id)
    seat = truth.states[0].partner_draw.seat_of_chair[0]
    assert check_frames(clients[0].frames, seat, truth) == truth.moves_from(0)
    seen = check_frames(watcher.frames, None, truth)
    # The spectator's first frame comes mid-deal, with the deal so far; then every move's.
    assert seen[0] > 0 and seen == truth.moves_from(seen[0])
    await close_all([*clients, watcher])
