"""One table as a sans-I/O master: four chairs, its spectators, its game, its bots' turns.

Like boardgame.io's master and h11's connection, a ``TableMaster`` does no I/O:
it takes a request from a connection at the table (or a timer firing, or a bot's
decision) and says what to do about it. Each entry checks the request against
the table as it is and either raises ``Refused`` (nothing changed) or returns a
``Change``: the statements to store, and ``apply``, which makes the change and
returns its ``Outcome`` — the frames to send to whom (each seat its own view,
R9), the seat tokens and places for the lobby's registry, the timers to set and
the bot turns to think about. The shell (``runner.TableRunner``) stores the
statements, calls ``apply`` only once they are committed (so a failed write
changes nothing), and does the sending and the timing. It runs one change at a
time, so a change is always checked against the state it will be applied to.

Connections are known by their id (``Visitor``): the master never holds a
socket, and tests drive it with plain values (``tests/server/test_master.py``).

Chairs and seats: chair c is the partner draw's chair c, so it plays from seat
``game.partner_draw.seat_of_chair[c]``.

What moves when no person does (bots, stand-ins, the clock, the next deal) is
worked out by ``_replan`` after every change:

- a bot's chair is played by a bot of its level, and an away player's chair at a
  table whose ``on_drop`` is ``bot`` by a normal one, a move every ``bot_delay``
  seconds (so people can follow; the thinking counts towards that pause); the
  player takes the chair back on return, and a move decided for an away player
  who came back meanwhile is dropped;
- with a turn timer, the seat to act has ``turn_seconds`` for its turn. The clock
  is paused while no player is present (nobody could act on it). When it runs
  out the server plays the rest of that turn with the bot and says so in the chat;
- at a deal's end the next deal starts when every present player has said
  ``ready``, or after ``deal_pause`` seconds (None: only when all are ready).
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from typing import Any, Literal, cast

import msgspec

from ..engine import (
    ENGINE_VERSION,
    SEAT_NAMES,
    DealStarted,
    Game,
    GameRecord,
    IllegalMove,
    Move,
    NextDeal,
    view_for,
)
from ..engine.bots import Bot
from ..engine.events import Event
from ..protocol import errors as E
from ..protocol.codec import encode, encode_payload
from ..protocol.messages import (
    BotLevel,
    ChairInfo,
    ChatLine,
    Clock,
    Error,
    GameUpdate,
    LobbyGone,
    Ok,
    PastMove,
    PlayedBy,
    RequestId,
    Seated,
    SpectatorInfo,
    TableInfo,
    TableOptions,
    Watching,
)
from ..protocol.messages import Table as TableMessage
from ..protocol.ratelimit import TokenBucket
from ..protocol.wire import EventWire, MoveWire, event_to_wire, move_to_wire, result_to_wire, view_to_wire
from . import statements as sql
from .changes import Chair, Change, Context, Outcome, Status, Think, Timer, Visitor, WaitedOn
from .clock import TurnClock
from .refused import Refused
from .statements import Statement, StoredPlayer, token_hash
from .tally import Tally

log = logging.getLogger(__name__)

# Seated bots get people's names (Persian ones, for Persian Rummy): "Bot 2" read as a
# chair number. The first name not taken at the table is used.
BOT_NAMES = ("Dara", "Mina", "Kian", "Shirin", "Omid", "Leila", "Babak")
STAND_IN: BotLevel = "normal"  # the level of the bot that plays for an away player


class TableMaster:
    # Slots, as the session's: no dictionary beside each of thousands of tables.
    __slots__ = (
        "_alarm_for",
        "_bots",
        "_engine",
        "_expired",
        "_idle",
        "_moving",
        "_next_deal_at",
        "_out",
        "_players_chat_budget",
        "_push_pending",
        "_shown",
        "_spectator_frame",
        "_spectators_chat_budget",
        "_told_waited_out",
        "_turn",
        "_turn_since",
        "_watch_numbers",
        "_watches",
        "chairs",
        "clock",
        "closed",
        "context",
        "creator",
        "game",
        "game_id",
        "games",
        "id",
        "idle_since",
        "last_finished",
        "name",
        "options",
        "recent_chat",
        "spectators",
        "status",
        "story",
        "tally",
    )

    def __init__(
        self, context: Context, table_id: int, name: str, options: TableOptions, creator: int | None
    ) -> None:
        self.context = context
        self.id = table_id
        self.name = name
        self.options = options
        self.creator = creator
        self.chairs: list[Chair | None] = [None, None, None, None]
        self.spectators: dict[int, Visitor] = {}
        # Each watch's number at this table (connection id -> number), given in turn from
        # 1 and never again here: two watchers of one name are told apart by it, and it
        # tells nothing of the connection (its id, address or token) behind it.
        self._watch_numbers: dict[int, int] = {}
        self._watches = 0  # numbers given so far
        self.status: Status = "waiting"
        self.game: Game | None = None
        self.game_id = 0
        self._engine = ENGINE_VERSION  # the engine revision that plays the game (a restored one's own)
        # The current deal's story, told to whoever joins: each move's public events
        # and who played it when the seat's player did not (the opening counts as one),
        # each a ``PastMove`` encoded once, when it is told. Kept as objects (a list, a
        # tuple and the events for every move of every table's deal), they were most of
        # what each of the garbage collector's middle collections walked, at 2,000
        # tables 50-80 ms of a stalled loop each; bytes are not walked.
        self.story: list[bytes] = []
        self.games = 0
        self.recent_chat: deque[bytes] = deque(maxlen=context.options.chat_history)  # encoded chat lines
        self.closed = False
        # Since when nobody has been present (for the lobby's sweeper).
        self.idle_since = context.now()
        self.tally = Tally()  # the games finished here, by partnership
        self.last_finished: int | None = None  # the id of the latest of them
        self._push_pending = False  # a table push is due (see _push_table_soon)
        self._spectator_frame: tuple[tuple[int, int], bytes] | None = None  # see _spectator_view
        # The chat's budgets: one the spectators share, one the players'. Spectators
        # (anyone may watch) spending one budget of the table's silenced the four
        # people playing for as long as they chatted.
        limits = context.options
        self._spectators_chat_budget = TokenBucket(limits.chat_rate, limits.chat_burst, context.now)
        self._players_chat_budget = TokenBucket(limits.chat_rate, limits.chat_burst, context.now)
        # What moves by itself (see the module's docstring).
        self.clock = TurnClock(context.now)
        self._turn: tuple[int, int, int] | None = None  # (game id, deal, seat) of the turn under way
        self._turn_since = 0.0  # when it began
        self._expired: tuple[int, int, int] | None = None  # a turn whose time ran out
        self._alarm_for: tuple[int, int, int] | None = None  # the turn the time_up timer is for
        self._next_deal_at: float | None = None
        self._bots: dict[tuple[int, int], Bot] = {}  # by (game id, seat), each with its memory
        self._moving: tuple[int, int] | None = None  # (seat, moves) of the bot move being thought
        self._told_waited_out: set[int] = set()  # chairs whose stand-in was said (stand_in_for_waited_out)
        self._shown: tuple[object, ...] | None = None  # the clock as last pushed
        # The outcome being built: a change's own while it is applied; between changes,
        # one that nothing carries out. (A fresh one after every change, living until
        # the table's next, was one more young object for every move.)
        self._idle = self._out = Outcome()

    # --- what people see ---------------------------------------------------------------

    def seat_of_chair(self, chair: int) -> int | None:
        return None if self.game is None else self.game.partner_draw.seat_of_chair[chair]

    def chair_of_seat(self, seat: int) -> Chair:
        assert self.game is not None
        chair = self.chairs[self.game.partner_draw.seat_of_chair.index(seat)]
        assert chair is not None  # a game runs only with four chairs filled
        return chair

    def where(self, conn: int) -> int | None:
        """The chair connection ``conn`` sits in here (None: watching, or not here)."""
        for c in self.chairs:
            if c is not None and c.session is not None and c.session.id == conn:
                return c.index
        return None

    def info(self) -> TableInfo:
        chairs = []
        for i, c in enumerate(self.chairs):
            if c is None:
                chairs.append(ChairInfo(chair=i))
            else:
                chairs.append(
                    ChairInfo(
                        chair=i,
                        name=c.name,
                        bot=c.bot,
                        present=c.present,
                        ready=c.ready,
                        seat=self.seat_of_chair(i),
                        level=c.level,
                    )
                )
        return TableInfo(
            table_id=self.id,
            name=self.name,
            options=self.options,
            status=self.status,
            chairs=chairs,
            spectators=len(self.spectators),
            creator=self.creator,
            games=self.games,
        )

    def waiting_on(self) -> WaitedOn | None:
        """The connection whose move the game waits for, for how many seconds it has, and
        its seat (None: no game under way, between deals, or a bot plays the seat to act). The
        lobby's sweeper asks it whether it has said anything meanwhile (``turn_silence``)."""
        turn = self._turn
        if turn is None or self.game is None or self.status != "playing":
            return None
        if self._played_by_bot(turn[2], turn):
            return None
        session = self.chair_of_seat(turn[2]).session
        if session is None:
            return None
        return WaitedOn(session.id, self.context.now() - self._turn_since, turn[2])

    def someone_away(self) -> bool:
        return any(c is not None and not c.present for c in self.chairs)

    def humans_present(self) -> bool:
        return any(c is not None and not c.bot and c.session is not None for c in self.chairs)

    def clock_message(self) -> Clock:
        if self._next_deal_at is not None:
            left = max(0.0, self._next_deal_at - self.context.now())
            return Clock(
                table_id=self.id, kind="next_deal", remaining=left, deadline=self.context.wall() + left
            )
        if self.clock.running:
            remaining = self.clock.remaining()
            return Clock(
                table_id=self.id,
                kind="turn",
                seat=self.clock.seat,
                remaining=remaining,
                deadline=None if self.clock.paused or remaining is None else self.context.wall() + remaining,
                paused=self.clock.paused,
            )
        return Clock(table_id=self.id, kind="off")

    # --- the outcome being built --------------------------------------------------------

    def _change(self, writes: list[Statement], failed: str, make: Callable[[], Any]) -> Change:
        return Change(writes, failed, lambda: self._applied(make))

    def _now(self, make: Callable[[], Any]) -> Change:
        """A change that stores nothing."""
        return self._change([], "", make)

    def _applied(self, make: Callable[[], Any]) -> Outcome:
        self._out = out = Outcome()
        try:
            out.result = make()
        finally:
            self._out = self._idle
        return out

    def _send(self, conn: int, data: bytes) -> None:
        self._out.frames.append((conn, data))

    def _present(self) -> list[int]:
        seated = [c.session.id for c in self.chairs if c is not None and c.session is not None]
        return seated + list(self.spectators)

    def _broadcast(self, data: bytes) -> None:
        for conn in self._present():
            self._send(conn, data)

    def _place(self, conn: int, chair: int | None) -> None:
        self._out.places.append((conn, chair))

    def _unplace(self, conn: int) -> None:
        self._out.gone.append(conn)

    def _push_table(self) -> None:
        """Tell everyone at the table, and the lobby, that the table changed."""
        if self._push_pending:  # this push carries what that one would have
            self._push_pending = False
            self._out.timers["table_push"] = None
        self._broadcast(encode(self._table_message()))
        self._out.lobby = True
        if self.humans_present() or self.spectators:
            self.idle_since = self.context.now()

    def _table_message(self) -> TableMessage:
        """The table as everyone at it is told of it, a spectator arriving too: without
        the tally and the last game's id, one who came after a game's end was offered
        no "watch again"."""
        return TableMessage(
            table=self.info(),
            tally=self.tally.lines(),
            last_game=self.last_finished,
            watchers=[
                SpectatorInfo(spectator=self._watch_numbers[conn], name=visitor.name)
                for conn, visitor in self.spectators.items()  # in the order they came
            ],
        )

    def _push_table_soon(self) -> None:
        """Tell everyone of a small change (who watches, who is ready), within
        ``lobby_interval``, with whatever else changes meanwhile: pushing the table to
        every spectator at each watch or leave made 1,000 watchers cost half a million
        frames (the square of their number) and froze the table."""
        if not self._push_pending and not self.closed:
            self._push_pending = True
            self._out.timers["table_push"] = self.context.options.lobby_interval

    def _joining_message(self, visitor: Visitor | None, seat: int | None) -> GameUpdate:
        """The game for someone who just sat, came back or started watching: no events
        of its own, but the story of the deal so far (``history``)."""
        assert self.game is not None
        return GameUpdate(
            table_id=self.id,
            seat=seat,
            moves=len(self.game.moves),
            view=view_to_wire(view_for(self.game, seat)),
            events=[],
            legal_moves=self._legal_moves_for(visitor, seat),
            # Encoded already: msgspec writes a Raw as it is.
            history=cast(list[PastMove], [msgspec.Raw(past) for past in self.story]),
        )

    def _legal_moves_for(self, visitor: Visitor | None, seat: int | None) -> list[MoveWire] | None:
        """The legal moves of ``seat`` when its connection asked for them and it is to
        act: the engine's own list, so a bot need not know the rules to play."""
        game = self.game
        if game is None or seat is None or visitor is None or not visitor.legal_moves or game.current != seat:
            return None
        moves = game.legal_moves()
        return [move_to_wire(m) for m in moves] if moves else None

    def _tell(self, events: list[Event], auto: PlayedBy | None) -> list[EventWire]:
        """Add a move's events to the deal's story (a new deal starts a new story); they
        are returned as everyone is told them."""
        if any(isinstance(e, DealStarted) for e in events):
            self.story = []
        told = [event_to_wire(e) for e in events]
        self.story.append(encode_payload(PastMove(events=told, auto=auto)))
        return told

    def resume(self, game_id: int, record: GameRecord, engine: int, autos: list[PlayedBy | None]) -> None:
        """A stored game, replayed from its seed by the engine revision that played it
        (a newer one than ours is refused: ValueError): the table's game again, with
        its deal's story (``autos``: who played each move, when not its seat's player)."""
        game = Game.replay(GameRecord(record.seed, record.seating, ()), engine)
        self._engine = engine
        self._tell(list(game.opening_events), None)
        for move, auto in zip(record.moves, autos, strict=True):
            self._tell(game.apply(move), auto)
        self.game, self.game_id = game, game_id
        self.status = "finished" if game.is_over else "playing"
        for c in self.chairs:
            if c is not None:
                c.ready = c.bot and game.is_over

    def _push_game(self, told: list[EventWire], auto: PlayedBy | None = None) -> None:
        """Each seat gets its own view (R9.2); spectators get one view without a hand.

        The view and events are built once per move, as a spectator sees them; each
        seat's message is that with the seat and its own hand swapped in (a shallow
        copy), so a move costs one view and five encodings, not five views.
        ``told``: the move's public events, as ``_tell`` gave them; ``auto``: who
        played the move, if not the seat's player.
        """
        game = self.game
        assert game is not None
        public = GameUpdate(
            table_id=self.id,
            seat=None,
            moves=len(game.moves),
            view=view_to_wire(view_for(game, None, shared_melds=True)),  # encoded below
            events=told,
            auto=auto,
        )
        for i, chair in enumerate(self.chairs):
            if chair is not None and chair.session is not None:
                seat = self.seat_of_chair(i)
                assert seat is not None
                view = msgspec.structs.replace(public.view, seat=seat, hand=list(game.hands[seat]))
                legal = self._legal_moves_for(chair.session, seat)
                self._send(
                    chair.session.id,
                    encode(msgspec.structs.replace(public, seat=seat, view=view, legal_moves=legal)),
                )
        if self.spectators:
            data = encode(public)
            for conn in self.spectators:
                self._send(conn, data)

    def _say(self, text: str) -> None:
        """The server speaks at the table (a chat line with an empty name)."""
        self._add_chat(
            ChatLine(table_id=self.id, by="server", chair=None, name="", text=text, time=self.context.wall())
        )

    def _add_chat(self, line: ChatLine) -> None:
        data = encode(line)
        self.recent_chat.append(data)
        self._broadcast(data)

    def _arrived(self, visitor: Visitor) -> None:
        """Someone just sat, came back or started watching (and was answered): tell the
        table, then give them the game as their seat sees it, the clock and recent chat.
        A new spectator is told at once; the others hear of it with the next push."""
        chair = self.where(visitor.id)
        spectator = chair is None
        if spectator:
            self._push_table_soon()
        else:
            self._push_table()
        frames = [encode(self._table_message())] if spectator else []
        if self.game is not None:
            if spectator:
                frames.append(self._spectator_view())
            else:
                assert chair is not None
                frames.append(encode(self._joining_message(visitor, self.seat_of_chair(chair))))
            frames.append(encode(self.clock_message()))
        self._send(visitor.id, b"".join([*frames, *self.recent_chat]))

    def _spectator_view(self) -> bytes:
        """The game as a spectator arriving now sees it (with the deal's story), encoded
        once per move: watching and leaving again and again built it anew each time."""
        assert self.game is not None
        key = (self.game_id, len(self.game.moves))
        if self._spectator_frame is None or self._spectator_frame[0] != key:
            self._spectator_frame = (key, encode(self._joining_message(None, None)))
        return self._spectator_frame[1]

    # --- joining and leaving ---------------------------------------------------------------

    def _open_or_refuse(self) -> None:
        """A request that waited its turn behind the table's closing finds it closed, and
        changes nothing: a sit queued behind the last person's leave seated someone at a
        table gone from the lobby, where they could neither leave nor sit elsewhere."""
        if self.closed:
            raise Refused(E.NO_SUCH_TABLE, "That table has closed.")

    def _free_chair_or_refuse(self, chair: int) -> None:
        self._open_or_refuse()
        if self.status != "waiting":
            raise Refused(E.NOT_WAITING, "This table is not waiting for players.")
        if self.chairs[chair] is not None:
            raise Refused(E.CHAIR_TAKEN, "That chair is taken.")

    def sit(
        self, visitor: Visitor, chair: int, request_id: RequestId, also: list[Statement] | None = None
    ) -> Change:
        """Seat ``visitor`` in a free chair; the outcome's result is the seat token.
        ``also``: statements stored with it (the new table's own, when it creates one)."""
        self._free_chair_or_refuse(chair)
        token = self.context.new_token()

        def apply() -> str:
            seat = Chair(chair, visitor.name, token_hash=token_hash(token), session=visitor)
            self.chairs[chair] = seat
            self._out.tokens.append((token_hash(token), chair))
            self._place(visitor.id, chair)
            self._send(visitor.id, encode(Seated(id=request_id, table_id=self.id, chair=chair, token=token)))
            self._arrived(visitor)
            return token

        writes = [*(also or []), sql.put_chair(self.id, chair, visitor.name, token, False)]
        return self._change(writes, "Your seat could not be saved; try again.", apply)

    def reclaim(
        self, visitor: Visitor, chair: int, token: str, answer: bytes | Callable[[], bytes]
    ) -> Change:
        """``visitor`` came back with the chair's ``token``: the chair is theirs again.
        ``answer`` (their ``seated``, or ``welcome`` and the lobby, made as it is sent)
        goes before the table's news. The token is checked here, not only where the lobby found its
        chair: the request waited behind others, and the chair may have been freed and
        taken by someone else meanwhile (it was then handed to the token's holder)."""
        c = self.chairs[chair]
        if self.closed or c is None or c.token_hash != token_hash(token):
            raise Refused(E.BAD_TOKEN, "No chair has this token (the table may have closed).")

        def apply() -> None:
            old = c.session
            if old is not None and old.id != visitor.id:
                self._send(
                    old.id,
                    encode(
                        Error(
                            id=None,
                            code=E.REPLACED,
                            text="Your chair was taken back from another connection.",
                        )
                    ),
                )
                self._unplace(old.id)
            c.session = visitor
            self._place(visitor.id, chair)
            self._send(visitor.id, answer if isinstance(answer, bytes) else answer())
            self._replan()
            self._arrived(visitor)

        return self._now(apply)

    def watch(self, visitor: Visitor, request_id: RequestId) -> Change:
        self._open_or_refuse()
        if len(self.spectators) >= self.context.options.max_spectators:
            raise Refused(E.TOO_MANY_SPECTATORS, "As many people watch this table as it allows.")
        self._spectator_quota_or_refuse(visitor.origin)

        def apply() -> None:
            self.spectators[visitor.id] = visitor
            self._watches += 1
            self._watch_numbers[visitor.id] = number = self._watches
            self._place(visitor.id, None)
            self._send(visitor.id, encode(Watching(id=request_id, table_id=self.id, spectator=number)))
            self._arrived(visitor)

        return self._now(apply)

    def _spectator_quota_or_refuse(self, origin: str) -> None:
        """The connections of one address may take only so many of the table's spectator
        places: one address could take them all and keep everyone else from watching.
        Counted here, when the watch's turn comes, so two watches in flight cannot both
        pass; a table has at most ``max_spectators``, so the count is a short walk."""
        options = self.context.options
        cap = options.per_address(origin, options.spectators_per_address)
        if sum(v.origin == origin for v in self.spectators.values()) >= cap:
            raise Refused(
                E.SPECTATOR_QUOTA, f"Your address watches this table from {cap} connections already."
            )

    def detach(self, conn: int) -> Change:
        """Connection ``conn`` is gone (dropped, or left during a game): a chair is held
        for its token."""
        return self._now(lambda: self._detach(conn))

    def _detach(self, conn: int) -> None:
        chair = self.where(conn)
        if chair is None and conn not in self.spectators:
            return
        self._unplace(conn)
        self.idle_since = self.context.now()  # the lobby's sweeper counts from the last to go
        if chair is None:
            del self.spectators[conn]
            del self._watch_numbers[conn]
            self._push_table_soon()
            return
        c = self.chairs[chair]
        assert c is not None
        c.session = None
        c.away_since = self.context.now()
        self._told_waited_out.discard(chair)  # a new spell away: its stand-in is said again
        if self.status == "playing":
            c.ready = False
        self._push_table()
        self._replan()

    def leave(self, visitor: Visitor, request_id: RequestId) -> Change:
        """Leave: a spectator goes; a player's chair is freed, except during a game,
        when it is held (away) for its token. The last person to leave closes the table."""
        ok = encode(Ok(id=request_id))
        if self.closed:  # closed while this waited: nobody is here any more
            return self._now(lambda: self._send(visitor.id, ok))
        chair = self.where(visitor.id)
        if chair is None or self.status == "playing":

            def go() -> None:
                self._detach(visitor.id)
                self._send(visitor.id, ok)

            return self._now(go)
        return self._free(chair, lambda: self._send(visitor.id, ok))

    def free_away_chair(self, after: float) -> Change:
        """At a table waiting for players, or whose game is over, a player away for
        ``after`` seconds while someone else is here loses the chair. No game is under
        way, and the chair's token may have gone with the connection (its ``seated``
        answer lost in a cut, an SSH player without a key): a chair nobody could ever
        take back, that the others could neither fill nor start (or play again)
        without. One chair a call (the lobby's sweeper calls again)."""
        if self.status not in ("waiting", "finished") or self.closed or not self.humans_present():
            return self._now(lambda: None)
        now = self.context.now()
        for c in self.chairs:
            if c is not None and not c.present and c.away_since is not None and now - c.away_since >= after:
                log.info(
                    "table %s: chair %s freed, its player away %.0f s", self.id, c.index, now - c.away_since
                )
                return self._free(c.index, lambda: None)
        return self._now(lambda: None)

    def _free(self, chair: int, then: Callable[[], None]) -> Change:
        """Free ``chair`` (not during a game): the creator's part goes to another person,
        and the table closes when no person is left. ``then``: once it is done."""
        c = self.chairs[chair]
        assert c is not None
        people = [o for o in self.chairs if o is not None and o is not c and not o.bot]
        creator = self.creator
        if creator == chair:
            creator = people[0].index if people else None
        writes = [sql.free_chair(self.id, chair)]
        if creator != self.creator:
            writes.append(sql.set_creator(self.id, creator))
        if not people:  # nobody left to play here
            writes.append(sql.close_table(self.id))

        def apply() -> None:
            self.chairs[chair] = None
            if c.session is not None:
                self._unplace(c.session.id)
            if c.token_hash:
                self._out.untokens.append(c.token_hash)
            self.creator = creator
            if self.status == "finished":
                self.status = "waiting"
                self.game = None  # a new four will draw for partners again
                for other in self.chairs:
                    if other is not None:
                        other.ready = False
            if people:
                self._push_table()
            else:
                self._forget()
            then()

        return self._change(writes, "Your leaving could not be saved; you are still at the table.", apply)

    def close(self) -> Change:
        """Nobody is left to play here: the table goes (its games stay in storage)."""
        if self.closed:
            return self._now(lambda: None)
        return self._change([sql.close_table(self.id)], "The table could not be closed.", self._forget)

    def _forget(self) -> None:
        """The memory side of closing, once storage says the table is closed."""
        self.closed = True
        self._push_pending = False
        self._out.timers = {"table_push": None, "next_deal": None, "time_up": None}
        for c in self.chairs:
            if c is not None and c.token_hash:
                self._out.untokens.append(c.token_hash)
        gone = encode(LobbyGone(table_id=self.id))
        for conn in self._present():
            self._send(conn, gone)
            self._unplace(conn)
        for c in self.chairs:
            if c is not None:
                c.session = None
        self.spectators.clear()
        self._watch_numbers.clear()
        self._out.closed = True  # the lobby says so in its log

    # --- the creator's tools ------------------------------------------------------------

    def _creator_or_refuse(self, visitor: Visitor) -> None:
        self._open_or_refuse()
        chair = self.where(visitor.id)
        if chair is None or chair != self.creator:
            raise Refused(E.NOT_CREATOR, "Only the table's creator may do that.")

    def add_bot(self, visitor: Visitor, chair: int, level: BotLevel, request_id: RequestId) -> Change:
        self._creator_or_refuse(visitor)
        self._free_chair_or_refuse(chair)
        taken = {c.name for c in self.chairs if c is not None}
        name = next((n for n in BOT_NAMES if n not in taken), f"Bot {chair + 1}")

        def apply() -> None:
            self.chairs[chair] = Chair(chair, name, bot=True, level=level)
            self._push_table()
            self._send(visitor.id, encode(Ok(id=request_id)))

        writes = [sql.put_chair(self.id, chair, name, None, True, level)]
        return self._change(writes, "The bot could not be saved; try again.", apply)

    def remove_bot(self, visitor: Visitor, chair: int, request_id: RequestId) -> Change:
        self._creator_or_refuse(visitor)
        if self.status != "waiting":
            raise Refused(E.NOT_WAITING, "Bots can be removed only before a game.")
        c = self.chairs[chair]
        if c is None or not c.bot:
            raise Refused(E.NOT_A_BOT, "There is no bot in that chair.")

        def apply() -> None:
            self.chairs[chair] = None
            self._push_table()
            self._send(visitor.id, encode(Ok(id=request_id)))

        return self._change(
            [sql.free_chair(self.id, chair)], "The bot could not be removed; try again.", apply
        )

    def start(self, visitor: Visitor, request_id: RequestId) -> Change:
        self._creator_or_refuse(visitor)
        if self.status != "waiting":
            raise Refused(E.NOT_WAITING, "The game has already started.")
        if any(c is None for c in self.chairs):
            raise Refused(E.NOT_FULL, "Four chairs must be filled to start.")
        return self._new_game(visitor.id, request_id)

    def _new_game(self, to: int, request_id: RequestId, before: Callable[[], None] | None = None) -> Change:
        """Start a game with the four chairs: a secret seed (R3.4), stored before anyone
        sees the partner draw (R2.2), which everyone is then shown; then ``to`` is
        answered. ``before``: what to change first (the last "play again")."""
        seed = self.context.new_seed()
        game = Game(seed, self.options.seating)
        game_id = self.context.next_game_id()
        names = [c.name for c in self.chairs if c is not None]
        seat_of = game.partner_draw.seat_of_chair
        players = [
            StoredPlayer(seat_of[c.index], c.index, c.name, c.bot, c.level)
            for c in self.chairs
            if c is not None
        ]
        writes = [
            sql.new_game(game_id, self.id, self.games + 1, seed, game.seating, names),
            *(sql.game_player(game_id, p) for p in players),
        ]

        def apply() -> None:
            if before is not None:
                before()
            self.game, self.game_id, self._engine = game, game_id, ENGINE_VERSION
            self.story = []
            told = self._tell(list(game.opening_events), None)
            self.games += 1
            log.info("table %s: game %s started (%s)", self.id, game_id, ", ".join(names))
            self.status = "playing"
            for c in self.chairs:
                if c is not None:
                    c.ready = False
            self._push_table()
            self._push_game(told)
            self._replan()
            self._send(to, encode(Ok(id=request_id)))

        return self._change(writes, "The game could not be saved; try again.", apply)

    # --- the game ------------------------------------------------------------------------

    def _chair_or_refuse(self, visitor: Visitor) -> int:
        """The chair ``visitor`` plays. One that is not here is not told it watches: its
        request waited behind its leaving, or its chair was taken back by its token."""
        self._open_or_refuse()
        chair = self.where(visitor.id)
        if chair is None:
            if visitor.id in self.spectators:
                raise Refused(E.SPECTATOR, "Spectators do not play.")
            raise Refused(E.NOT_AT_TABLE, "You are no longer at this table.")
        return chair

    def _seat_or_refuse(self, visitor: Visitor) -> int:
        chair = self._chair_or_refuse(visitor)
        if self.status != "playing" or self.game is None:
            raise Refused(E.NOT_PLAYING, "No game is being played at this table.")
        seat = self.seat_of_chair(chair)
        assert seat is not None
        return seat

    def play(self, visitor: Visitor, move: Move, after: int | None, request_id: RequestId) -> Change:
        """A player's move for their own seat (never another's: the seat comes from the
        connection, not from the message)."""
        seat = self._seat_or_refuse(visitor)
        if isinstance(move, NextDeal):
            return self.ready(visitor, request_id)
        return self._move(seat, move, after, (visitor.id, request_id), None)

    def _move(
        self,
        seat: int | None,
        move: Move,
        after: int | None,
        reply_to: tuple[int, RequestId] | None,
        auto: PlayedBy | None,
    ) -> Change:
        """Make ``move`` for ``seat`` (the engine checks it: an illegal move changes
        nothing); the change stores it, then tells everyone (or, if it cannot be
        stored, is undone). ``auto``: the server plays it for the seat (the timer ran
        out, or a stand-in)."""
        game = self.game
        if game is None or self.status != "playing":
            raise Refused(E.NOT_PLAYING, "No game is being played at this table.")
        n = len(game.moves)
        if after is not None and after != n:
            raise Refused(E.STALE, "The game has moved on since; look again.")
        was_deal_over = game.phase == "deal_over"
        try:
            events = game.apply(move, seat)
        except IllegalMove as illegal:
            raise Refused(illegal.code, illegal.message) from None
        # The move as the engine records it (R1.1: the Jokers actually used, the cards
        # sorted), not as it was sent, so that the stored game is the engine's own record.
        writes = [sql.add_move(self.game_id, n, move_to_wire(game.moves[-1]), auto)]
        if game.is_over:
            results = msgspec.to_builtins([result_to_wire(r) for r in game.results])
            writes.append(sql.finish_game(self.game_id, game.totals(), results))

        def undo() -> None:  # the game as it was, replayed from its seed and first n moves
            before = GameRecord(game.seed, game.seating, tuple(game.moves[:n]))
            self.game = Game.replay(before, self._engine)

        def apply() -> None:
            told = self._tell(events, auto)
            if reply_to is not None:  # the mover's ok goes out first, in one write with its push
                self._send(reply_to[0], encode(Ok(id=reply_to[1])))
            if game.is_over:
                self.status = "finished"
                self.tally.add([self.chair_of_seat(seat).name for seat in range(4)], game.totals())
                self.last_finished = self.game_id
                log.info("table %s: game %s over, totals %s", self.id, self.game_id, game.totals())
            if game.phase in ("deal_over", "game_over") or was_deal_over:
                for c in self.chairs:
                    if c is not None:
                        c.ready = c.bot and game.is_over
                self._push_table()
            self._push_game(told, auto=auto)
            self._replan()

        change = self._change(writes, "The move could not be saved; nothing changed.", apply)
        change.undo = undo
        return change

    def ready(self, visitor: Visitor, request_id: RequestId) -> Change:
        """At a deal's end: this player is ready for the next deal."""
        self._seat_or_refuse(visitor)
        assert self.game is not None
        if self.game.phase != "deal_over":
            raise Refused(E.NOT_DEAL_OVER, "The deal is not over.")
        chair = self.where(visitor.id)
        assert chair is not None
        c = self.chairs[chair]
        assert c is not None

        def apply() -> None:
            if not c.ready:
                c.ready = True
                # Who is ready shows within lobby_interval; when all are at once (as
                # they mostly are), the next deal's push carries it instead: a push to
                # all four at each of their readies was 16 frames at every deal's end.
                self._push_table_soon()
                self._replan()
            self._send(visitor.id, encode(Ok(id=request_id)))

        return self._now(apply)

    def _all_present_ready(self) -> bool:
        """Every human who is here has said ready (R3.1: on to the next deal)."""
        humans = [c for c in self.chairs if c is not None and not c.bot and c.session is not None]
        return bool(humans) and all(c.ready for c in humans)

    def play_again(self, visitor: Visitor, request_id: RequestId) -> Change:
        chair = self._chair_or_refuse(visitor)
        if self.status != "finished":
            raise Refused(E.NOT_FINISHED, "The game is not over.")
        c = self.chairs[chair]
        assert c is not None

        def say_ready() -> None:
            c.ready = True
            self._push_table()

        if all(o is not None and (o.ready or o is c) for o in self.chairs):
            return self._new_game(visitor.id, request_id, before=say_ready)  # the last to say so

        def apply() -> None:
            say_ready()
            self._send(visitor.id, encode(Ok(id=request_id)))

        return self._now(apply)

    def chat(self, visitor: Visitor, text: str, request_id: RequestId) -> Change:
        """A line of the table's chat (``text`` already cleaned; empty: nothing said)."""
        self._open_or_refuse()

        def apply() -> None:
            if text:
                chair = self.where(visitor.id)
                by: Literal["player", "spectator"] = "spectator" if chair is None else "player"
                line = ChatLine(
                    table_id=self.id,
                    by=by,
                    chair=chair,
                    name=visitor.name,
                    text=text,
                    time=self.context.wall(),
                    spectator=None if chair is not None else self._watch_numbers.get(visitor.id),
                )
                self._add_chat(line)
            self._send(visitor.id, encode(Ok(id=request_id)))

        return self._now(apply)

    def chat_or_refuse(self, conn: int) -> None:
        """Take one line of the table's chat budget (``chat_rate`` lines a second, in
        bursts of ``chat_burst``): a line goes to everyone at the table, so fifty
        spectators chatting at their own allowed rate would flood it. The spectators
        share one budget and the players have another, so that no spectator can
        leave the players without a word."""
        budget = self._spectators_chat_budget if self.where(conn) is None else self._players_chat_budget
        if not budget.allow():
            raise Refused(E.RATE_LIMITED, "This table's chat is busy: say it again in a moment.")

    # --- what moves by itself -------------------------------------------------------------

    def replan(self) -> Change:
        """Set the bots and clocks going (a restored table, at the server's start)."""
        return self._now(self._replan)

    def timer(self, which: Timer) -> Change:
        """A timer the master asked for has fired."""
        if self.closed:
            return self._now(lambda: None)
        if which == "table_push":
            return self._now(self._push_table if self._push_pending else lambda: None)
        if which == "time_up":
            return self._now(self._time_up)
        try:  # next_deal
            return self._move(None, NextDeal(), None, None, None)
        except Refused as refused:  # someone else started it already
            log.debug("table %s: next deal not applied: %s", self.id, refused.text)
            return self._now(lambda: None)

    def bot_moved(self, think: Think, move: Move, bot: Bot) -> Change:
        """A bot decided ``move`` for the turn ``think`` asked about (``bot``: as it is after
        deciding, its memory and random state kept for its next move). Played if that
        seat is still the bot's to play at that point of the game; dropped otherwise."""
        if self._moving == (think.seat, think.moves):
            self._moving = None
        game = self.game
        if game is None or self.closed or self.game_id != think.game_id:
            return self._now(lambda: None)
        self._bots[(think.game_id, think.seat)] = bot
        if len(game.moves) != think.moves:
            return self._now(lambda: None)  # the game moved on meanwhile
        if self._turn is None or not self._played_by_bot(think.seat, self._turn):
            return self._now(lambda: None)  # the player came back meanwhile
        # Who plays: the seat's own bot, or the server for a person (said in the push).
        auto: PlayedBy | None = None
        if not self.chair_of_seat(think.seat).bot:
            auto = "timer" if self._expired == self._turn else "stand_in"
        return self._move(think.seat, move, think.moves, None, auto)

    def _replan(self) -> None:
        """After every change: arrange the one thing that moves by itself next."""
        if self.closed:
            return
        out = self._out
        out.timers["next_deal"] = out.timers["time_up"] = None
        game = self.game
        options = self.context.options
        if game is None or self.status != "playing":
            self._turn = self._expired = self._next_deal_at = None
            self.clock.stop()
        elif game.phase == "deal_over":
            self._turn = None
            self.clock.stop()
            now = self.context.now()
            if self._next_deal_at is None and options.deal_pause is not None:
                self._next_deal_at = now + options.deal_pause
            if self._all_present_ready():
                out.timers["next_deal"] = 0.0
            elif self._next_deal_at is not None:
                out.timers["next_deal"] = max(0.0, self._next_deal_at - now)
        else:
            self._next_deal_at = None
            seat = game.current
            turn = (self.game_id, game.deal, seat)
            chair = self.chair_of_seat(seat)
            if turn != self._turn:
                self._turn, self._expired = turn, None
                self._turn_since = self.context.now()
                if self.options.turn_seconds and not chair.bot:
                    self.clock.start(seat, self.options.turn_seconds)
                else:
                    self.clock.stop()
            stand_in = self._played_by_bot(seat, turn)
            n = len(game.moves)
            if stand_in and self._moving != (seat, n):  # not when that very move is under way
                self._moving = (seat, n)
                view = view_for(game, seat)
                out.think.append(Think(self.game_id, seat, n, self._bot(seat), view, options.bot_delay))
            if self.clock.running:
                if stand_in or not self.humans_present():
                    self.clock.pause()
                else:
                    self.clock.resume()
                    self._alarm_for = turn
                    out.timers["time_up"] = self.clock.remaining() or 0.0
        shown = (self._next_deal_at, self._turn if self.clock.running else None, self.clock.paused)
        if shown != self._shown:
            self._shown = shown
            self._broadcast(encode(self.clock_message()))

    def _played_by_bot(self, seat: int, turn: tuple[int, int, int]) -> bool:
        """Whether a bot plays ``seat`` now: a bot's chair, an away player's at a table
        where bots stand in (or waited out: ``_waited_out``), or a turn whose time ran out."""
        chair = self.chair_of_seat(seat)
        away = chair.session is None and not chair.bot
        return (
            chair.bot
            or (away and (self.options.on_drop == "bot" or self._waited_out(chair)))
            or self._expired == turn
        )

    def _waited_out(self, chair: Chair) -> bool:
        """At a table that waits for an away player: whether they have been away
        ``free_away_after`` seconds while someone else is here. Then a stand-in plays
        their seat until they come back (the chair stays theirs). Without this, a
        player who could never come back (an SSH player without a key, a browser whose
        cookies went) held the game of the three others up for good, with no timer."""
        after = self.context.options.free_away_after
        return (
            chair.away_since is not None
            and self.humans_present()
            and self.context.now() - chair.away_since >= after
        )

    def stand_in_for_waited_out(self) -> Change:
        """During a game: a stand-in for each player waited out (``_waited_out``), said
        once at the table. Called by the lobby's sweeper: time passing is no change the
        master would notice by itself."""
        if self.status != "playing" or self.closed or self.options.on_drop == "bot":
            return self._now(lambda: None)

        def apply() -> None:
            for c in self.chairs:
                if c is None or c.present:
                    continue
                if self._waited_out(c) and c.index not in self._told_waited_out:
                    self._told_waited_out.add(c.index)
                    self._say(f"{c.name} has been away a while: a bot plays for them until they come back.")
            self._replan()

        return self._now(apply)

    def _bot(self, seat: int) -> Bot:
        """The bot of this game's ``seat``: of the chair's level, or a stand-in."""
        key = (self.game_id, seat)
        bot = self._bots.get(key)
        if bot is None:
            if any(k[0] != self.game_id for k in self._bots):  # a new game: new bots
                self._bots.clear()
            chair = self.chair_of_seat(seat)
            level = chair.level if chair.bot and chair.level is not None else STAND_IN
            bot = self._bots[key] = self.context.new_bot(level)
        return bot

    def _time_up(self) -> None:
        turn = self._alarm_for
        if turn is None or self._turn != turn:
            return
        self._expired = turn
        self.clock.stop()
        # By name first, as every screen shows the players: "South" alone meant nothing
        # to a player who sees their seats as partner and opponents; the seat tells two
        # of one name apart.
        seat = turn[2]
        name = self.chair_of_seat(seat).name
        self._say(f"Time is up: the server plays {name}'s turn ({SEAT_NAMES[seat]}).")
        self._replan()
