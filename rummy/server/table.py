"""One table: four chairs, its spectators, its options, its game.

The table is the master of its game (as boardgame.io's master is): it alone
holds the true ``Game``; every move is tried on a clone, written to storage,
and only then made the table's state and told to each seat in its own view
(R9) with the move's public events. Moves, starts, deal changes and every change
of the chairs run one at a time under ``lock``, and each changes the table only
once its storage write has succeeded (a failed write changes nothing).

Chairs and seats: chair p is player p of the engine's partner draw, so it
plays from seat ``game.partner_draw.seat_of_player[p]``.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import sqlite3
import time
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import msgspec

from ..engine import (
    SEAT_NAMES,
    DealStarted,
    Game,
    IllegalMove,
    Move,
    NextDeal,
    move_to_data,
    new_seed,
    view_for,
)
from ..engine.events import Event
from ..protocol import errors as E
from ..protocol.codec import encode
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
    TableInfo,
    TableOptions,
)
from ..protocol.messages import (
    Table as TableMessage,
)
from ..protocol.wire import MoveWire, event_to_wire, move_to_wire, result_to_wire, view_to_wire
from .peer import Peer, Refused
from .ratelimit import TokenBucket
from .seated_bots import Autoplay
from .storage import Statement, Storage, StoredPlayer, token_hash
from .tally import Tally

if TYPE_CHECKING:
    from .lobby import Lobby

log = logging.getLogger(__name__)

Status = Literal["waiting", "playing", "finished"]
# Seated bots get people's names (Persian ones, for Persian Rummy): "Bot 2" read as a
# chair number. The first name not taken at the table is used.
BOT_NAMES = ("Dara", "Mina", "Kian", "Shirin", "Omid", "Leila", "Babak")


@dataclass(slots=True, eq=False)
class Chair:
    index: int
    name: str
    bot: bool = False
    token_hash: str | None = None
    session: Peer | None = None
    ready: bool = False
    level: BotLevel | None = None  # a bot's level (None for a person)

    @property
    def present(self) -> bool:
        return self.bot or self.session is not None


def new_token() -> str:
    """A seat token: 192 random bits (the issue asks for at least 128)."""
    return secrets.token_urlsafe(24)


class Table:
    def __init__(
        self, lobby: Lobby, table_id: int, name: str, options: TableOptions, creator: int | None
    ) -> None:
        self.lobby = lobby
        self.id = table_id
        self.name = name
        self.options = options
        self.creator = creator
        self.chairs: list[Chair | None] = [None, None, None, None]
        self.spectators: set[Peer] = set()
        self.status: Status = "waiting"
        self.game: Game | None = None
        self.game_id = 0
        # The current deal's story, told to whoever joins: each move's public events
        # and who played it when the seat's player did not (the opening counts as one).
        self.story: list[tuple[list[Event], PlayedBy | None]] = []
        self.games = 0
        self.lock = asyncio.Lock()
        self.chat: deque[bytes] = deque(maxlen=lobby.options.chat_history)  # encoded chat lines
        self.auto = Autoplay(self)
        self.closed = False
        # Since when nobody has been present (kept by ``detach`` and the lobby's sweeper).
        self.idle_since = time.monotonic()
        self.opened_by: tuple[Peer, str] | None = None  # (connection, origin) for the quotas
        self._push_soon: asyncio.TimerHandle | None = None  # see push_table_soon
        self._spectator_frame: tuple[tuple[int, int], bytes] | None = None  # see _spectator_view
        self._chat_budget = TokenBucket(lobby.options.chat_rate, lobby.options.chat_burst)
        self.tally = Tally()  # the games finished here, by partnership
        self.last_finished: int | None = None  # the id of the latest of them

    @property
    def storage(self) -> Storage:
        return self.lobby.storage

    # --- what people see ----------------------------------------------------------

    def seat_of_chair(self, chair: int) -> int | None:
        return None if self.game is None else self.game.partner_draw.seat_of_player[chair]

    def chair_of_seat(self, seat: int) -> Chair:
        assert self.game is not None
        chair = self.chairs[self.game.partner_draw.seat_of_player.index(seat)]
        assert chair is not None  # a game runs only with four chairs filled
        return chair

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

    def peers(self) -> list[Peer]:
        seated = [c.session for c in self.chairs if c is not None and c.session is not None]
        return seated + list(self.spectators)

    def humans_present(self) -> bool:
        return any(c is not None and not c.bot and c.session is not None for c in self.chairs)

    def _broadcast(self, data: bytes) -> None:
        for peer in self.peers():
            peer.send_frame(data)

    def push_table(self) -> None:
        """Tell everyone at the table, and the lobby, that the table changed."""
        if self._push_soon is not None:  # this push carries what that one would have
            self._push_soon.cancel()
            self._push_soon = None
        info = self.info()
        message = TableMessage(table=info, tally=self.tally.lines(), last_game=self.last_finished)
        self._broadcast(encode(message))
        self.lobby.table_changed(info)
        if self.humans_present() or self.spectators:
            self.idle_since = time.monotonic()

    def _joining_message(self, peer: Peer, seat: int | None) -> GameUpdate:
        """The game for someone who just sat, came back or started watching: no events
        of its own, but the story of the deal so far (``history``)."""
        assert self.game is not None
        return GameUpdate(
            table_id=self.id,
            seat=seat,
            moves=len(self.game.moves),
            view=view_to_wire(view_for(self.game, seat)),
            events=[],
            legal_moves=self._legal_moves_for(peer, seat),
            history=[
                PastMove(events=[event_to_wire(e) for e in events], auto=auto) for events, auto in self.story
            ],
        )

    def _legal_moves_for(self, peer: Peer, seat: int | None) -> list[MoveWire] | None:
        """The legal moves of ``seat`` when its peer asked for them and it is to act:
        the engine's own list, so a bot need not know the rules to play."""
        game = self.game
        if game is None or seat is None or not peer.wants_legal_moves or game.current != seat:
            return None
        moves = game.legal_moves()
        return [move_to_wire(m) for m in moves] if moves else None

    def _tell(self, events: list[Event], auto: PlayedBy | None) -> None:
        """Add a move's events to the deal's story; a new deal starts a new story."""
        if any(isinstance(e, DealStarted) for e in events):
            self.story = []
        self.story.append((events, auto))

    def resume(self, game_id: int, game: Game, moves: list[Move], autos: list[PlayedBy | None]) -> None:
        """A stored game, replayed from its seed (``game`` is new, no move made yet):
        the table's game again, with its deal's story."""
        self._tell(list(game.opening_events), None)
        for move, auto in zip(moves, autos, strict=True):
            self._tell(game.apply(move), auto)
        self.game, self.game_id = game, game_id

    def push_game(
        self, events: list[Event], first: tuple[Peer, bytes] | None = None, auto: PlayedBy | None = None
    ) -> None:
        """Each seat gets its own view (R9.2); spectators get one view without a hand.

        The view and events are built once per move, as a spectator sees them; each
        seat's message is that with the seat and its own hand swapped in (a shallow
        copy), so a move costs one view and five encodings, not five views.
        ``first``: a frame (the mover's ``ok``) sent to that peer in the same write
        as its push. ``auto``: who played the move, if not the seat's player.
        """
        game = self.game
        assert game is not None
        public = GameUpdate(
            table_id=self.id,
            seat=None,
            moves=len(game.moves),
            view=view_to_wire(view_for(game, None)),
            events=[event_to_wire(e) for e in events],
            auto=auto,
        )
        pending = first
        for i, chair in enumerate(self.chairs):
            if chair is not None and chair.session is not None:
                seat = self.seat_of_chair(i)
                assert seat is not None
                view = msgspec.structs.replace(public.view, seat=seat, hand=list(game.hands[seat]))
                legal = self._legal_moves_for(chair.session, seat)
                data = encode(msgspec.structs.replace(public, seat=seat, view=view, legal_moves=legal))
                if pending is not None and pending[0] is chair.session:
                    data, pending = pending[1] + data, None
                chair.session.send_frame(data)
        if pending is not None:  # the mover was not seated here any more
            pending[0].send_frame(pending[1])
        if self.spectators:
            data = encode(public)
            for peer in self.spectators:
                peer.send_frame(data)

    def clock_message(self) -> Clock:
        return self.auto.clock_message()

    def push_clock(self) -> None:
        self._broadcast(encode(self.clock_message()))

    def say(self, text: str) -> None:
        """The server speaks at the table (a chat line with an empty name)."""
        self._add_chat(
            ChatLine(table_id=self.id, by="server", chair=None, name="", text=text, time=time.time())
        )

    def _add_chat(self, line: ChatLine) -> None:
        data = encode(line)
        self.chat.append(data)
        self._broadcast(data)

    def push_table_soon(self) -> None:
        """Tell everyone of a change in who watches, within ``lobby_interval``: pushing
        the table to every spectator at each watch or leave made 1,000 watchers cost
        half a million frames (the square of their number) and froze the table."""
        if self._push_soon is None and not self.closed:
            loop = asyncio.get_running_loop()
            self._push_soon = loop.call_later(self.lobby.options.lobby_interval, self.push_table)

    def arrived(self, peer: Peer) -> None:
        """Someone just sat, came back or started watching (and was answered): tell the
        table, then give them the game as their seat sees it, the clock and recent chat.
        A new spectator is told at once; the others hear of it with the next push."""
        spectator = peer.table is self and peer.chair is None
        if spectator:
            self.push_table_soon()
        else:
            self.push_table()
        if peer.table is not self:
            return
        frames = [encode(TableMessage(table=self.info()))] if spectator else []
        if self.game is not None:
            if spectator:
                frames.append(self._spectator_view(peer))
            else:
                assert peer.chair is not None
                frames.append(encode(self._joining_message(peer, self.seat_of_chair(peer.chair))))
            frames.append(encode(self.clock_message()))
        peer.send_frame(b"".join([*frames, *self.chat]))  # one write

    def _spectator_view(self, peer: Peer) -> bytes:
        """The game as a spectator arriving now sees it (with the deal's story), encoded
        once per move: watching and leaving again and again built it anew each time."""
        assert self.game is not None
        key = (self.game_id, len(self.game.moves))
        if self._spectator_frame is None or self._spectator_frame[0] != key:
            self._spectator_frame = (key, encode(self._joining_message(peer, None)))
        return self._spectator_frame[1]

    # --- joining and leaving ---------------------------------------------------------

    def _free_chair_or_refuse(self, chair: int) -> None:
        if self.status != "waiting":
            raise Refused(E.NOT_WAITING, "This table is not waiting for players.")
        if self.chairs[chair] is not None:
            raise Refused(E.CHAIR_TAKEN, "That chair is taken.")

    async def sit(self, peer: Peer, chair: int) -> str:
        """Seat ``peer`` in a free chair; returns the seat token (the caller answers,
        then calls ``arrived``)."""
        async with self.lock:
            self._free_chair_or_refuse(chair)
            token = new_token()
            await self._write(
                [self.storage.put_chair(self.id, chair, peer.name, token, False)],
                "Your seat could not be saved; try again.",
            )
            seat = Chair(chair, peer.name, token_hash=token_hash(token), session=peer)
            self.chairs[chair] = seat
            self.lobby.register_token(seat.token_hash or "", self, chair)
            if peer.closed:  # gone while we wrote: the chair is held for the token
                seat.session = None
            else:
                peer.table, peer.chair = self, chair
            return token

    def reclaim(self, peer: Peer, chair: int) -> None:
        """``peer`` came back with the chair's token: the chair is theirs again (the
        caller answers, then calls ``arrived``)."""
        c = self.chairs[chair]
        assert c is not None
        old = c.session
        if old is not None and old is not peer:
            old.send(
                Error(id=None, code=E.REPLACED, text="Your chair was taken back from another connection.")
            )
            old.table = old.chair = None
        c.session = peer
        peer.table, peer.chair = self, chair
        self.auto.replan()

    def watch(self, peer: Peer) -> None:
        if len(self.spectators) >= self.lobby.options.max_spectators:
            raise Refused(E.TOO_MANY_SPECTATORS, "As many people watch this table as it allows.")
        self.spectators.add(peer)
        peer.table, peer.chair = self, None

    def detach(self, peer: Peer) -> None:
        """``peer`` is gone (dropped, or left during a game): a chair is held for its token."""
        if peer.table is not self:
            return
        chair = peer.chair
        peer.table = peer.chair = None
        self.idle_since = time.monotonic()  # the lobby's sweeper counts from the last to go
        if chair is None:
            self.spectators.discard(peer)
            self.push_table_soon()
            return
        c = self.chairs[chair]
        if c is None or c.session is not peer:
            return
        c.session = None
        if self.status == "playing":
            c.ready = False
        self.push_table()
        self.auto.replan()

    async def leave(self, peer: Peer) -> None:
        """Leave: a spectator goes; a player's chair is freed, except during a game,
        when it is held (away) for its token. The last person to leave closes the table.
        Nothing changes unless the storage write succeeds."""
        async with self.lock:  # not while a game starts, a chair is taken or a bot goes
            chair = peer.chair
            if peer.table is not self:
                return
            if chair is None or self.status == "playing":
                self.detach(peer)
                return
            c = self.chairs[chair]
            assert c is not None
            people = [o for o in self.chairs if o is not None and o is not c and not o.bot]
            creator = self.creator
            if creator == chair:
                creator = people[0].index if people else None
            statements = [self.storage.free_chair(self.id, chair)]
            if creator != self.creator:
                statements.append(self.storage.set_creator(self.id, creator))
            if not people:  # nobody left to play here
                statements.append(self.storage.close_table(self.id))
            await self._write(statements, "Your leaving could not be saved; you are still at the table.")
            self.chairs[chair] = None
            peer.table = peer.chair = None
            if c.token_hash:
                self.lobby.unregister_token(c.token_hash)
            self.creator = creator
            if self.status == "finished":
                self.status = "waiting"
                self.game = None  # a new four will draw for partners again
                for other in self.chairs:
                    if other is not None:
                        other.ready = False
            if not people:
                self._forget()
                return
            self.push_table()

    async def close(self) -> None:
        """Nobody is left to play here: the table goes (its games stay in storage).
        Raises ``sqlite3.Error`` (and stays open) if that cannot be stored."""
        async with self.lock:
            if self.closed:
                return
            await self.storage.write([self.storage.close_table(self.id)])
            self._forget()

    def _forget(self) -> None:
        """The memory side of closing, once storage says the table is closed."""
        self.closed = True
        if self._push_soon is not None:
            self._push_soon.cancel()
            self._push_soon = None
        self.auto.cancel()
        for c in self.chairs:
            if c is not None and c.token_hash:
                self.lobby.unregister_token(c.token_hash)
        gone = LobbyGone(table_id=self.id)
        for peer in self.peers():
            peer.send(gone)
            peer.table = peer.chair = None
        self.spectators.clear()
        self.lobby.remove_table(self)
        log.info("table %s closed", self.id)

    async def _write(self, statements: list[Statement], failed: str) -> None:
        """Store ``statements``, or refuse (``internal``, with the sentence ``failed``):
        the caller changes its state only after this returns."""
        try:
            await self.storage.write(statements)
        except sqlite3.Error as error:
            log.error("table %s: storage write failed: %s", self.id, error)
            raise Refused(E.INTERNAL, failed) from None

    # --- the creator's tools -------------------------------------------------------

    def _creator_or_refuse(self, peer: Peer) -> None:
        if peer.chair is None or peer.chair != self.creator:
            raise Refused(E.NOT_CREATOR, "Only the table's creator may do that.")

    async def add_bot(self, peer: Peer, chair: int, level: BotLevel = "normal") -> None:
        async with self.lock:
            self._creator_or_refuse(peer)
            self._free_chair_or_refuse(chair)
            taken = {c.name for c in self.chairs if c is not None}
            name = next((n for n in BOT_NAMES if n not in taken), f"Bot {chair + 1}")
            await self._write(
                [self.storage.put_chair(self.id, chair, name, None, True, level)],
                "The bot could not be saved; try again.",
            )
            self.chairs[chair] = Chair(chair, name, bot=True, level=level)
        self.push_table()

    async def remove_bot(self, peer: Peer, chair: int) -> None:
        async with self.lock:
            self._creator_or_refuse(peer)
            if self.status != "waiting":
                raise Refused(E.NOT_WAITING, "Bots can be removed only before a game.")
            c = self.chairs[chair]
            if c is None or not c.bot:
                raise Refused(E.NOT_A_BOT, "There is no bot in that chair.")
            await self._write(
                [self.storage.free_chair(self.id, chair)], "The bot could not be removed; try again."
            )
            self.chairs[chair] = None
        self.push_table()

    async def start(self, peer: Peer) -> None:
        self._creator_or_refuse(peer)
        if self.status != "waiting":
            raise Refused(E.NOT_WAITING, "The game has already started.")
        if any(c is None for c in self.chairs):
            raise Refused(E.NOT_FULL, "Four chairs must be filled to start.")
        await self.new_game()

    async def new_game(self) -> None:
        """Start a game with the four chairs: a secret seed (R3.4), stored before anyone
        sees the partner draw (R2.2), which everyone is then shown."""
        async with self.lock:
            if self.status == "playing" or any(c is None for c in self.chairs):
                return
            seed = new_seed()  # R3.4: 256 secret bits
            game = Game(seed, self.options.seating)
            game_id = self.lobby.next_game_id()
            names = [c.name for c in self.chairs if c is not None]
            seat_of = game.partner_draw.seat_of_player
            players = [
                StoredPlayer(seat_of[c.index], c.index, c.name, c.bot) for c in self.chairs if c is not None
            ]
            await self.storage.write(
                [
                    self.storage.new_game(game_id, self.id, self.games + 1, seed, game.seating, names),
                    *(self.storage.game_player(game_id, p) for p in players),
                ]
            )
            self.game, self.game_id = game, game_id
            self.story = []
            self._tell(list(game.opening_events), None)
            self.games += 1
            log.info("table %s: game %s started (%s)", self.id, game_id, ", ".join(names))
            self.status = "playing"
            for c in self.chairs:
                if c is not None:
                    c.ready = False
            self.push_table()
            self.push_game(list(game.opening_events))
            self.auto.replan()

    # --- the game ------------------------------------------------------------------

    def _seat_of(self, peer: Peer) -> int:
        if peer.chair is None:
            raise Refused(E.SPECTATOR, "Spectators do not play.")
        if self.status != "playing" or self.game is None:
            raise Refused(E.NOT_PLAYING, "No game is being played at this table.")
        seat = self.seat_of_chair(peer.chair)
        assert seat is not None
        return seat

    async def play(self, peer: Peer, move: Move, after: int | None, request_id: int) -> None:
        """A player's move for their own seat (never another's: the seat comes from the
        connection, not from the message)."""
        seat = self._seat_of(peer)
        if isinstance(move, NextDeal):
            await self.ready(peer)
            peer.send(Ok(id=request_id))
            return
        await self.apply(seat, move, after=after, reply_to=(peer, request_id))

    async def apply(
        self,
        seat: int | None,
        move: Move,
        after: int | None = None,
        reply_to: tuple[Peer, int] | None = None,
        auto: PlayedBy | None = None,
    ) -> None:
        """Try ``move`` for ``seat`` on a clone, store it, then make it the state and
        tell everyone. Raises ``Refused`` (nothing changed) for an illegal move.
        ``auto``: the server plays it for the seat (the timer ran out, or a stand-in)."""
        async with self.lock:
            game = self.game
            if game is None or self.status != "playing":
                raise Refused(E.NOT_PLAYING, "No game is being played at this table.")
            if after is not None and after != len(game.moves):
                raise Refused(E.STALE, "The game has moved on since; look again.")
            trial = game.clone()
            try:
                events = trial.apply(move, seat)
            except IllegalMove as illegal:
                raise Refused(illegal.code, illegal.message) from None
            # Shielded: once the write is under way, the state must follow it even if
            # the caller is cancelled (a connection closing mid-move).
            await asyncio.shield(self._commit(game, trial, move, events, reply_to, auto))

    async def _commit(
        self,
        game: Game,
        trial: Game,
        move: Move,
        events: list[Event],
        reply_to: tuple[Peer, int] | None,
        auto: PlayedBy | None,
    ) -> None:
        statements = [self.storage.add_move(self.game_id, len(game.moves), move_to_data(move), auto)]
        if trial.is_over:
            results = msgspec.to_builtins([result_to_wire(r) for r in trial.results])
            statements.append(self.storage.finish_game(self.game_id, trial.totals(), results))
        try:
            await self.storage.write(statements)
        except sqlite3.Error:
            raise Refused(E.INTERNAL, "The move could not be saved; nothing changed.") from None
        self.game = trial
        self._tell(events, auto)
        # The mover's ``ok`` goes out with its ``game`` push, in one write (below).
        ok = None if reply_to is None else (reply_to[0], encode(Ok(id=reply_to[1])))
        table_changed = trial.phase in ("deal_over", "game_over") or game.phase == "deal_over"
        if trial.is_over:
            self.status = "finished"
            self.tally.add([self.chair_of_seat(seat).name for seat in range(4)], trial.totals())
            self.last_finished = self.game_id
            log.info("table %s: game %s over, totals %s", self.id, self.game_id, trial.totals())
        if table_changed:
            if ok is not None:  # the ok still comes before the table push (the rare case)
                ok[0].send_frame(ok[1])
                ok = None
            for c in self.chairs:
                if c is not None:
                    c.ready = c.bot and trial.is_over
            self.push_table()
        self.push_game(events, first=ok, auto=auto)
        self.auto.replan()

    async def ready(self, peer: Peer) -> None:
        """At a deal's end: this player is ready for the next deal."""
        self._seat_of(peer)
        assert self.game is not None and peer.chair is not None
        if self.game.phase != "deal_over":
            raise Refused(E.NOT_DEAL_OVER, "The deal is not over.")
        c = self.chairs[peer.chair]
        assert c is not None
        if not c.ready:
            c.ready = True
            self.push_table()
            self.auto.replan()

    def all_present_ready(self) -> bool:
        """Every human who is here has said ready (R3.1: on to the next deal)."""
        humans = [c for c in self.chairs if c is not None and not c.bot and c.session is not None]
        return bool(humans) and all(c.ready for c in humans)

    async def next_deal(self) -> None:
        try:
            await self.apply(None, NextDeal())
        except Refused as refused:  # someone else started it already
            log.debug("table %s: next deal not applied: %s", self.id, refused.text)

    async def play_again(self, peer: Peer) -> None:
        if peer.chair is None:
            raise Refused(E.SPECTATOR, "Spectators do not play.")
        if self.status != "finished":
            raise Refused(E.NOT_FINISHED, "The game is not over.")
        c = self.chairs[peer.chair]
        assert c is not None
        c.ready = True
        self.push_table()
        if all(c is not None and c.ready for c in self.chairs):
            await self.new_game()

    def chat_or_refuse(self) -> None:
        """Take one line of the table's chat budget (``chat_rate`` lines a second, in
        bursts of ``chat_burst``): a line goes to everyone at the table, so fifty
        spectators chatting at their own allowed rate would flood it."""
        if not self._chat_budget.allow():
            raise Refused(E.RATE_LIMITED, "This table's chat is busy: say it again in a moment.")

    def post_chat(self, peer: Peer, text: str) -> None:
        by: Literal["player", "spectator"] = "spectator" if peer.chair is None else "player"
        self._add_chat(
            ChatLine(table_id=self.id, by=by, chair=peer.chair, name=peer.name, text=text, time=time.time())
        )

    def announce_timeout(self, seat: int) -> None:
        self.say(f"Time is up: the server plays {SEAT_NAMES[seat]}'s turn.")
