"""Seats never go to the wrong player, whatever people do in whatever order.

A hypothesis state machine drives one table's master (sans-I/O, as in
``test_master.py``) the way the lobby and the runner do: people open connections,
sit, watch, leave, drop and come back with their seat tokens, the creator seats and
removes bots and starts, players move (legally or not), bots think, timers fire, any
write may fail or its connection be lost while it is stored, and the server may
restart from storage. A rejoin's token is looked up when the request comes and the
chair taken back only when its turn comes, with anything in between, as a request
waits behind others in the runner's queue. After every step:

- the chair a connection plays is one its person sat in (a chair is only ever played
  by the person whose name it shows), and no connection is in two places;
- the lobby's registry, fed with the outcomes as the runner feeds it, agrees with
  the table on who is where, and each live token opens exactly its own chair;
- every game push to a seated connection is its own seat's, with its own hand, and a
  spectator's has none (R9.1, R9.2);
- a refused request, or a change whose write fails, changes nothing.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec
from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from rummy.engine import Discard, view_for
from rummy.engine.bots import make_bot
from rummy.protocol import GameUpdate, TableOptions
from rummy.protocol.codec import server_decoder
from rummy.protocol.wire import move_from_wire, move_to_wire
from rummy.server import statements as sql
from rummy.server import storage as storage_module
from rummy.server.changes import Change, Context, Outcome, Think, Visitor
from rummy.server.lobby import Lobby
from rummy.server.master import TableMaster
from rummy.server.options import ServerOptions
from rummy.server.refused import Refused
from rummy.server.registry import Registry
from rummy.server.statements import token_hash
from rummy.server.storage import Storage

TABLE = 1
PEOPLE = ("Ann", "Bob", "Cy", "Di", "Eve")
WRITES = ("stored", "fails", "is lost meanwhile")  # a request's write, and its connection meanwhile


@dataclass
class Line:
    """A connection as the registry knows it: it only needs to take frames."""

    id: int

    def send_frame(self, data: bytes) -> None:  # the frames are read from the outcomes
        pass


class FakeTime:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@dataclass
class Pending:
    """A rejoin the lobby has looked up, waiting for its turn at the table."""

    visitor: Visitor
    chair: int
    token: str


class Seats(RuleBasedStateMachine):
    @initialize(
        options=st.builds(
            TableOptions,
            seating=st.sampled_from(["draw", "chosen"]),
            turn_seconds=st.sampled_from([0, 30]),
            on_drop=st.sampled_from(["wait", "bot"]),
        ),
        seed=st.integers(0, 2**32),
        full=st.booleans(),
    )
    def open_table(self, options: TableOptions, seed: int, full: bool) -> None:
        self.now = FakeTime()
        self.loop = asyncio.new_event_loop()
        self.gather, storage_module.GATHER = storage_module.GATHER, 0.0  # no wait for company
        self.storage = Storage(None)
        rng = random.Random(seed)
        ids = iter(range(1, 10_000))
        tokens = iter(f"token-{i}" for i in range(10_000))
        self.options = ServerOptions(bot_delay=0.0, deal_pause=5.0)
        self.context = context = Context(
            self.options,
            next_game_id=lambda: next(ids),
            new_bot=lambda level: make_bot(level, random.Random(7)),
            new_seed=lambda: rng.getrandbits(64),
            new_token=lambda: next(tokens),
            now=self.now,
            wall=self.now,
        )
        self.table = TableMaster(context, TABLE, "t", options, creator=0)
        self.registry = Registry()
        self.lines: dict[int, Visitor] = {}  # open connections
        self.person_of: dict[int, str] = {}
        self.tokens: dict[str, tuple[str, int]] = {}  # every token given: its person and chair
        self.pending: list[Pending] = []
        self.thinking: list[Think] = []
        self.timers: dict[str, float] = {}
        self.chooser = make_bot("heuristic", random.Random(seed))
        self._next_line = 0
        creator = self._connect("Ann")
        created = sql.new_table(TABLE, "t", msgspec.json.encode(options).decode(), 0)
        self._do(self.table.sit, creator, 0, request_id=1, also=[created], fail=False)
        if full:  # half the tables start at once, watched, so that games are played in most runs
            self._do(self.table.watch, self._connect("Eve"), request_id=1, fail=False)
            self.fill_the_table_and_start([rng.random() < 0.4 for _ in range(4)], fail=False)

    # --- the shell: what the lobby and the runner do around the master --------------

    def _connect(self, person: str) -> Visitor:
        self._next_line += 1
        visitor = Visitor(self._next_line, person)
        self.lines[visitor.id] = visitor
        self.person_of[visitor.id] = person
        self.registry.connect(Line(visitor.id))  # type: ignore[arg-type]
        return visitor

    def _snapshot(self) -> Any:
        t = self.table
        return (
            repr(t.chairs),
            sorted(t.spectators),
            t.status,
            t.creator,
            t.games,
            t.game_id,
            None if t.game is None else t.game.snapshot(),
            t.closed,
        )

    def _do(
        self,
        entry: Callable[..., Change],
        *args: Any,
        fail: bool,
        drop: Visitor | None = None,
        **kwargs: Any,
    ) -> Outcome | None:
        """Run one change, ``entry(*args, **kwargs)``, as the runner does: a refusal or
        a failed write changes nothing; else it is applied and carried out. ``drop``:
        that connection is lost while the write is being stored."""
        before = self._snapshot()
        try:
            change = entry(*args, **kwargs)
        except Refused as refused:
            event(f"refused: {refused.code}")
            assert self._snapshot() == before, "a refused request changed the table"
            return None
        if change.writes and fail:
            if change.undo is not None:
                change.undo()
            assert self._snapshot() == before, "a change whose write failed changed the table"
            self._do(self.table.replan, fail=False)  # as the runner does after a failed write
            return None
        if change.writes:
            self.loop.run_until_complete(self.storage.write(change.writes))
        place = self._disconnect(drop) if drop is not None else None
        outcome = change.apply()
        self._carry_out(outcome)
        if drop is not None and place is not None:  # the lobby's word that it left, queued behind
            self._do(self.table.detach, drop.id, fail=False)
        if self.table.game is not None:
            event(f"reached: {self.table.game.phase}")
        return outcome

    def _carry_out(self, outcome: Outcome) -> None:
        registry = self.registry
        for conn in outcome.gone:
            registry.unplace(conn, TABLE)
        gone = []
        for conn, chair in outcome.places:
            registry.place(conn, TABLE, chair)
            if conn not in registry.connections:  # lost while this was stored: the chair is held
                gone.append(conn)
        for hashed in outcome.untokens:
            registry.drop_token(hashed)
        for hashed, chair in outcome.tokens:
            registry.add_token(hashed, TABLE, chair)
        if isinstance(outcome.result, str):  # a seat token, for the person who sat
            (_, chair), *_ = outcome.tokens
            (conn, _), *_ = outcome.places
            self.tokens[outcome.result] = (self.person_of[conn], chair)
        for which, delay in outcome.timers.items():
            if delay is None:
                self.timers.pop(which, None)
            else:
                self.timers[which] = self.now.t + delay
        self.thinking.extend(outcome.think)
        self._check_pushes(outcome)
        for conn in gone:
            self._do(self.table.detach, conn, fail=False)

    def _check_pushes(self, outcome: Outcome) -> None:
        """R9: every game push goes to someone at the table, a player's with their own
        seat and hand, a spectator's with no hand."""
        t = self.table
        decoder = server_decoder()
        last: dict[int, GameUpdate] = {}
        for conn, data in outcome.frames:
            for message in decoder.feed(data):
                if isinstance(message, GameUpdate):
                    last[conn] = message
        for conn, update in last.items():
            chair = t.where(conn)
            if conn in t.spectators:
                assert update.seat is None and not update.view.hand, "a spectator was shown a hand"
            elif chair is not None:
                seat = t.seat_of_chair(chair)
                assert update.seat == seat, f"chair {chair} was sent seat {update.seat}'s game"
                assert t.game is not None and seat is not None
                assert update.view.hand == list(t.game.hands[seat]), "a player was sent another hand"
            else:
                assert conn in outcome.gone, "a game push went to someone not at the table"

    def _visitor(self, index: int) -> Visitor | None:
        """An open connection that may send a request: not one whose rejoin waits (a
        connection's requests are answered one at a time, in order; and one that drops
        meanwhile is let go only once it is answered)."""
        waiting = {p.visitor.id for p in self.pending}
        free = [v for v in self.lines.values() if v.id not in waiting]
        return free[index % len(free)] if free else None

    # --- people --------------------------------------------------------------------------

    @rule(person=st.sampled_from(PEOPLE))
    def connect(self, person: str) -> None:
        if len(self.lines) < 8:
            self._connect(person)

    @rule(who=st.integers(0, 7))
    def drop(self, who: int) -> None:
        visitor = self._visitor(who)
        if visitor is None:
            return
        if self._disconnect(visitor) is not None:
            self._do(self.table.detach, visitor.id, fail=False)

    def _disconnect(self, visitor: Visitor) -> Any:
        """The connection is lost: the lobby forgets it and says where it was."""
        del self.lines[visitor.id]
        return self.registry.disconnect(visitor.id)

    @rule(who=st.integers(0, 7), chair=st.integers(0, 3), write=st.sampled_from(WRITES))
    def sit(self, who: int, chair: int, write: str) -> None:
        visitor = self._visitor(who)
        if visitor is not None and self.registry.place_of(visitor.id) is None:  # the lobby's check
            self._do(self.table.sit, visitor, chair, request_id=2, **self._write(write, visitor))

    @rule(who=st.integers(0, 7))
    def watch(self, who: int) -> None:
        visitor = self._visitor(who)
        if visitor is not None and self.registry.place_of(visitor.id) is None:
            self._do(self.table.watch, visitor, request_id=3, fail=False)

    @rule(who=st.integers(0, 7), write=st.sampled_from(WRITES))
    def leave(self, who: int, write: str) -> None:
        visitor = self._visitor(who)
        if visitor is not None and self.registry.place_of(visitor.id) is not None:
            self._do(self.table.leave, visitor, request_id=4, **self._write(write, visitor))

    @staticmethod
    def _write(write: str, visitor: Visitor) -> dict[str, Any]:
        return {"fail": write == "fails", "drop": visitor if write == "is lost meanwhile" else None}

    @rule(who=st.integers(0, 7), token=st.integers(0, 20))
    def ask_to_rejoin(self, who: int, token: int) -> None:
        """The lobby's half of a rejoin: the token found, the request queued."""
        visitor = self._visitor(who)
        known = [k for k, (person, _) in self.tokens.items() if visitor and person == visitor.name]
        if visitor is None or not known:
            return
        chosen = known[token % len(known)]
        found = self.registry.find_token(chosen)
        place = self.registry.place_of(visitor.id)
        if found is not None and (place is None or place == found):
            self.pending.append(Pending(visitor, found[1], chosen))

    @rule(which=st.integers(0, 3))
    def rejoin_turn(self, which: int) -> None:
        """The table's half: the chair taken back when the request's turn comes."""
        if not self.pending:
            return
        asked = self.pending.pop(which % len(self.pending))
        self._do(self.table.reclaim, asked.visitor, asked.chair, asked.token, answer=b"", fail=False)

    # --- the creator ---------------------------------------------------------------------

    @rule(who=st.integers(0, 7), chair=st.integers(0, 3), level=st.sampled_from(["easy", "normal"]))
    def add_bot(self, who: int, chair: int, level: Any) -> None:
        visitor = self._visitor(who)
        if visitor is not None and self.table.where(visitor.id) is not None:
            self._do(self.table.add_bot, visitor, chair, level, request_id=5, fail=False)

    @rule(who=st.integers(0, 7), chair=st.integers(0, 3))
    def remove_bot(self, who: int, chair: int) -> None:
        visitor = self._visitor(who)
        if visitor is not None and self.table.where(visitor.id) is not None:
            self._do(self.table.remove_bot, visitor, chair, request_id=6, fail=False)

    @rule(who=st.integers(0, 7), fail=st.booleans())
    def start(self, who: int, fail: bool) -> None:
        visitor = self._visitor(who)
        if visitor is not None and self.table.where(visitor.id) is not None:
            self._do(self.table.start, visitor, request_id=7, fail=fail)

    @rule(bots=st.lists(st.booleans(), min_size=4, max_size=4), fail=st.sampled_from([False] * 4 + [True]))
    def fill_the_table_and_start(self, bots: list[bool], fail: bool) -> None:
        """What friends do most: each free chair gets a person (a new connection) or,
        from the creator, a bot, and the creator starts."""
        t = self.table
        creator = next(
            (v for v in self.lines.values() if t.creator is not None and t.where(v.id) == t.creator), None
        )
        if creator is None or t.status != "waiting" or self.pending:
            return
        for chair, bot in enumerate(bots):
            if t.chairs[chair] is not None:
                continue
            if bot:
                self._do(t.add_bot, creator, chair, "easy", request_id=12, fail=False)
            else:
                person = self._connect(next(p for p in PEOPLE if p not in {c.name for c in t.chairs if c}))
                self._do(t.sit, person, chair, request_id=13, fail=False)
        self._do(t.start, creator, request_id=14, fail=fail)

    @rule(who=st.integers(0, 7))
    def play_again(self, who: int) -> None:
        visitor = self._visitor(who)
        if visitor is not None and self.table.where(visitor.id) is not None:
            self._do(self.table.play_again, visitor, request_id=8, fail=False)

    # --- the game ------------------------------------------------------------------------

    @precondition(lambda self: self.table.game is not None)
    @rule(turns=st.integers(1, 40), fail=st.sampled_from([False] * 9 + [True]))
    def play_turns(self, turns: int, fail: bool) -> None:
        """Whoever is to act plays, for up to ``turns`` moves: people from their own
        view, bots when they have thought, the ready at a deal's end."""
        t = self.table
        for _ in range(turns):
            game = t.game
            if game is None or t.status != "playing" or t.closed:
                return
            if self.thinking:
                think = self.thinking.pop(0)
                move = think.bot.choose(think.view)
                self._do(t.bot_moved, think, move, think.bot, fail=fail)
                continue
            if game.phase == "deal_over":
                for visitor in list(self.lines.values()):
                    if t.where(visitor.id) is not None:
                        self._do(t.ready, visitor, request_id=9, fail=False)
                if "next_deal" in self.timers:
                    self.now.t = max(self.now.t, self.timers.pop("next_deal"))
                    self._do(t.timer, "next_deal", fail=fail)
                return
            chair = t.chair_of_seat(game.current)
            if chair.session is None:
                return  # a bot's or an away player's turn: its think, a timer or a return moves it
            move = self.chooser.choose(view_for(game, game.current))
            wire = move_to_wire(move)  # as a client sends it
            self._do(t.play, chair.session, move_from_wire(wire), None, request_id=10, fail=fail)

    @rule(who=st.integers(0, 7), card=st.integers(0, 55))
    def play_a_card_out_of_turn(self, who: int, card: int) -> None:
        """Anyone tries to discard any card: refused unless it is that player's turn to
        discard it, and then it is simply played."""
        visitor = self._visitor(who)
        if visitor is not None:
            self._do(self.table.play, visitor, Discard(card), None, request_id=11, fail=False)

    @rule(which=st.sampled_from(["time_up", "next_deal", "table_push"]))
    def a_timer_fires(self, which: str) -> None:
        due = self.timers.pop(which, None)
        if due is not None:
            self.now.t = max(self.now.t, due)
            self._do(self.table.timer, which, fail=False)

    def teardown(self) -> None:
        if hasattr(self, "loop"):
            self.loop.run_until_complete(self.storage.close())
            self.loop.close()
            storage_module.GATHER = self.gather

    # --- the server restarts -------------------------------------------------------------

    @rule()
    def the_server_restarts(self) -> None:
        """Everyone is cut off; the table comes back from storage as it was (less who is
        present and ready, and the deal's pause), every player away until they return
        with their token, and the game goes on where it was."""
        live = self.table
        lobby = Lobby(self.storage, self.options)
        lobby.context = self.context  # the same bots and clock, so a run can be repeated
        lobby.restore(self.storage.load())
        restored = lobby.tables.get(TABLE)
        if live.closed:
            assert restored is None, "a closed table came back"
            return
        assert restored is not None, "an open table did not come back"

        def chairs(t: TableMaster) -> list[Any]:
            return [None if c is None else (c.name, c.bot, c.level, c.token_hash) for c in t.chairs]

        assert chairs(restored) == chairs(live)
        assert (restored.creator, restored.games, restored.tally.lines()) == (
            live.creator,
            live.games,
            live.tally.lines(),
        )
        if live.status == "playing":
            assert live.game is not None and restored.game is not None
            assert restored.status == "playing" and restored.game_id == live.game_id
            assert restored.game.snapshot() == live.game.snapshot(), "a stored move was lost or added"
        self.table, self.registry = restored, lobby.registry
        self.lines.clear()
        self.pending.clear()
        self.thinking.clear()
        self.timers.clear()
        self._do(self.table.replan, fail=False)  # as the lobby sets restored tables going

    # --- what must always hold -----------------------------------------------------------

    @invariant()
    def a_chair_is_played_only_by_the_person_who_sat_in_it(self) -> None:
        t = self.table
        players = [c.session.id for c in t.chairs if c is not None and c.session is not None]
        assert len(players) == len(set(players)), "a connection plays two chairs"
        assert not set(players) & set(t.spectators), "a player also watches"
        for c in t.chairs:
            if c is not None and c.session is not None:
                assert c.session.name == c.name, f"{c.session.name} plays {c.name}'s chair"
                assert not c.bot

    @invariant()
    def the_registry_agrees_with_the_table(self) -> None:
        t = self.table
        for conn in self.lines:
            place = self.registry.place_of(conn)
            chair = t.where(conn)
            if chair is not None:
                assert place == (TABLE, chair), f"connection {conn}: table says chair {chair}, lobby {place}"
            elif conn in t.spectators:
                assert place == (TABLE, None)
            else:
                assert place is None, f"connection {conn} is nowhere but the lobby places it at {place}"

    @invariant()
    def each_live_token_opens_its_own_chair_only(self) -> None:
        t = self.table
        for token, (person, chair) in self.tokens.items():
            found = self.registry.find_token(token)
            c = t.chairs[chair]
            if found is not None:
                assert found == (TABLE, chair) and not t.closed
                assert c is not None and c.token_hash == token_hash(token) and c.name == person
            else:
                assert c is None or c.token_hash != token_hash(token) or t.closed

    @invariant()
    def a_bots_turn_is_being_thought_about(self) -> None:
        """The table never stalls on a turn nobody present can play: a bot's, or an away
        player's where bots stand in, is always being thought about."""
        t = self.table
        game = t.game
        if game is None or t.closed or t.status != "playing" or game.phase in ("deal_over", "game_over"):
            return
        chair = t.chair_of_seat(game.current)
        if chair.bot or (chair.session is None and t.options.on_drop == "bot"):
            asked = [(k.game_id, k.seat, k.moves) for k in self.thinking]
            assert (t.game_id, game.current, len(game.moves)) in asked, f"nobody thinks for {chair.name}"


TestSeats = Seats.TestCase
# Four times the profile's examples: each is quick (2,000 or so steps a second).
TestSeats.settings = settings(settings(), stateful_step_count=40, max_examples=4 * settings().max_examples)

__all__ = ["TestSeats"]
