"""A table's master without sockets, storage or a loop: requests in, outcomes out.

The master says what to store, and changes nothing until it is told the write
succeeded (``apply``); these tests play that part by hand, with a clock they move
themselves, so every branch is reached without waiting for anything.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import msgspec
import pytest

from rummy.engine import ENGINE_VERSION, Discard, DrawStock, Game, GameRecord, Move, NewMeld, view_for
from rummy.engine.bots import make_bot
from rummy.engine.cards import FIRST_JOKER
from rummy.protocol import GameUpdate, Ok, Seated, TableOptions, errors, move_to_wire
from rummy.protocol.codec import server_decoder
from rummy.protocol.messages import ChatLine, Clock, Error, LobbyGone
from rummy.protocol.messages import Table as TableMessage
from rummy.server.changes import Change, Context, Outcome, Visitor
from rummy.server.master import TableMaster
from rummy.server.options import ServerOptions
from rummy.server.refused import Refused

ANN, BOB, CY, DEE, WES = (Visitor(i, name) for i, name in enumerate(("Ann", "Bob", "Cy", "Dee", "Wes"), 1))


class FakeTime:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def table(options: TableOptions | None = None, **server: Any) -> tuple[TableMaster, FakeTime]:
    now = FakeTime()
    ids = iter(range(1, 1000))
    tokens = iter(f"token-{i}" for i in range(1000))
    context = Context(
        ServerOptions(**server),
        next_game_id=lambda: next(ids),
        new_bot=lambda level: make_bot(level, random.Random(7)),
        new_seed=lambda: 2026,
        new_token=lambda: next(tokens),
        now=now,
        wall=now,
    )
    return TableMaster(context, 1, "Ann's", options or TableOptions(), creator=0), now


def stored(change: Change) -> Outcome:
    """The storage said yes: apply the change."""
    return change.apply()


def frames_to(outcome: Outcome, conn: int) -> list[Any]:
    decoder = server_decoder()
    return [m for c, data in outcome.frames if c == conn for m in decoder.feed(data)]


def four_seated(options: TableOptions | None = None, **server: Any) -> tuple[TableMaster, FakeTime]:
    t, now = table(options, **server)
    for chair, v in enumerate((ANN, BOB, CY, DEE)):
        stored(t.sit(v, chair, request_id=chair + 1))
    return t, now


def test_a_seat_is_only_taken_once_the_storage_has_it() -> None:
    t, _ = table()
    change = t.sit(ANN, 0, request_id=5)
    assert change.writes and t.chairs[0] is None  # asked to store; nothing changed yet
    outcome = stored(change)
    assert outcome.result == "token-0" and outcome.places == [(ANN.id, 0)]
    seated, pushed = frames_to(outcome, ANN.id)[:2]
    assert isinstance(seated, Seated) and seated.token == "token-0" and seated.id == 5
    assert isinstance(pushed, TableMessage) and pushed.table.chairs[0].name == "Ann"
    assert outcome.lobby  # the table list changed
    with pytest.raises(Refused) as taken:
        t.sit(BOB, 0, request_id=6)
    assert taken.value.code == errors.CHAIR_TAKEN


def test_r9_2_each_seat_is_sent_its_own_hand_and_a_spectator_none() -> None:
    t, _ = four_seated()
    stored(t.watch(WES, request_id=9))
    outcome = stored(t.start(ANN, request_id=10))
    assert t.status == "playing" and t.game is not None
    for chair, v in enumerate((ANN, BOB, CY, DEE)):
        updates = [m for m in frames_to(outcome, v.id) if isinstance(m, GameUpdate)]
        seat = t.seat_of_chair(chair)
        assert [u.view.hand for u in updates] == [list(t.game.hands[seat])]  # type: ignore[index]
        assert all(u.seat == seat for u in updates)
    watched = [m for m in frames_to(outcome, WES.id) if isinstance(m, GameUpdate)]
    assert watched and all(u.view.hand is None or u.view.hand == [] for u in watched)
    assert isinstance(frames_to(outcome, ANN.id)[-1], Ok)  # answered after the news, as on the wire


def test_a_move_out_of_turn_is_refused_and_a_move_not_stored_changes_nothing() -> None:
    t, _ = four_seated()
    stored(t.start(ANN, request_id=1))
    game = t.game
    assert game is not None
    mover = (ANN, BOB, CY, DEE)[game.partner_draw.seat_of_chair.index(game.current)]
    idle = next(v for v in (ANN, BOB, CY, DEE) if v is not mover)
    with pytest.raises(Refused) as refused:
        t.play(idle, DrawStock(), None, request_id=2)
    assert refused.value.code == "not-your-turn"
    before = game.snapshot()
    change = t.play(mover, DrawStock(), None, request_id=3)
    assert change.undo is not None
    change.undo()  # the write failed
    assert t.game is not None and t.game.snapshot() == before
    change = t.play(mover, DrawStock(), None, request_id=3)
    outcome = stored(change)
    assert len(t.game.moves) == 1
    first = frames_to(outcome, mover.id)[0]
    assert isinstance(first, Ok) and first.id == 3  # the mover's ok comes before its push


def test_r1_1_a_move_is_stored_as_the_engine_records_it() -> None:
    """What is stored of a move is the engine's record of it (the Joker actually held,
    a meld's cards sorted), not the form it was sent in, so that the stored game is the
    game itself, whatever a later engine makes of a move's other forms."""
    t, _ = four_seated()
    stored(t.start(ANN, request_id=1))
    game = t.game
    assert game is not None

    def stored_move(change: Change) -> str:
        (written,) = [params[2] for sql, params in change.writes if sql.startswith("INSERT INTO moves")]
        return str(written)

    def wire(move: Move) -> str:
        return msgspec.json.encode(move_to_wire(move)).decode()

    for _ in range(40):  # draw and discard until someone, after drawing, can meld
        mover = (ANN, BOB, CY, DEE)[game.partner_draw.seat_of_chair.index(game.current)]
        stored(t.play(mover, DrawStock(), None, request_id=2))
        melds = [m for m in game.legal_moves() if isinstance(m, NewMeld)]
        hand = game.hands[game.current]
        if melds and FIRST_JOKER not in hand and any(c > FIRST_JOKER for c in hand):
            break  # and holds a Joker that "JK" (the first one) does not name
        stored(t.play(mover, Discard(game.hands[game.current][0]), None, request_id=3))
    else:
        pytest.fail("no meld and Joker in 40 turns")
    meld = melds[0]
    change = t.play(mover, NewMeld(tuple(reversed(meld.cards))), None, request_id=4)
    assert stored_move(change) == wire(meld)  # sorted, as the engine lists it
    stored(change)
    joker = next(c for c in game.hands[game.current] if c > FIRST_JOKER)
    change = t.play(mover, Discard(FIRST_JOKER), None, request_id=5)  # "JK": any Joker held
    assert stored_move(change) == wire(Discard(joker))


def test_a_bot_turn_is_asked_for_and_a_stale_decision_is_dropped() -> None:
    t, _ = table()
    stored(t.sit(ANN, 0, request_id=1))
    for chair in (1, 2, 3):
        stored(t.add_bot(ANN, chair, "normal", request_id=chair + 1))
    outcome = stored(t.start(ANN, request_id=9))
    game = t.game
    assert game is not None
    if game.partner_draw.seat_of_chair[0] == game.current:
        assert outcome.think == []  # Ann is to act: no bot thinks
        return
    (think,) = outcome.think
    assert think.seat == game.current and think.view == view_for(game, game.current)
    move = think.bot.choose(think.view)
    played = stored(t.bot_moved(think, move, think.bot))
    assert t.game is not None and len(t.game.moves) == 1 and played.frames
    again = t.bot_moved(think, move, think.bot)  # the same decision once more: the game moved on
    assert again.writes == [] and stored(again).frames == [] and len(t.game.moves) == 1


def test_the_turn_timer_runs_out_and_the_server_plays_the_turn() -> None:
    t, now = four_seated(TableOptions(turn_seconds=30))
    outcome = stored(t.start(ANN, request_id=1))
    assert outcome.timers["time_up"] == 30
    clock = [m for m in frames_to(outcome, ANN.id) if isinstance(m, Clock)][-1]
    assert clock.kind == "turn" and clock.remaining == 30
    now.t += 30
    fired = stored(t.timer("time_up"))
    said = [m for m in frames_to(fired, ANN.id) if isinstance(m, ChatLine)]
    assert said and said[0].by == "server" and "Time is up" in said[0].text
    assert fired.think and t.game is not None and fired.think[0].seat == t.game.current
    # The player by name, as the screens show them (it said "South's turn" alone).
    name = t.chair_of_seat(t.game.current).name
    assert f"the server plays {name}'s turn" in said[0].text


def test_the_table_says_whose_move_the_game_waits_for_and_how_long() -> None:
    """What the turn silence is counted from: the game waits only for the seat to act,
    from its turn's start; not between games, and not for a seat a stand-in plays."""
    t, now = four_seated(TableOptions(on_drop="bot"))
    assert t.waiting_on() is None  # no game yet
    stored(t.start(ANN, request_id=1))
    assert t.game is not None
    seat = t.game.current
    mover = (ANN, BOB, CY, DEE)[t.game.partner_draw.seat_of_chair.index(seat)]
    now.t += 7
    assert t.waiting_on() == (mover.id, 7, seat)
    stored(t.play(mover, DrawStock(), None, request_id=2))
    now.t += 3
    assert t.waiting_on() == (mover.id, 10, seat)  # the same turn: drawing does not end it
    stored(t.play(mover, Discard(t.game.hands[t.game.current][0]), None, request_id=3))
    now.t += 2
    seat = t.game.current
    nxt = (ANN, BOB, CY, DEE)[t.game.partner_draw.seat_of_chair.index(seat)]
    assert nxt is not mover and t.waiting_on() == (nxt.id, 2, seat)  # the next turn, from its own start
    stored(t.detach(nxt.id))
    assert t.waiting_on() is None  # away: a stand-in plays it, nobody is waited for


def test_the_last_person_to_leave_closes_the_table() -> None:
    t, _ = table()
    stored(t.sit(ANN, 0, request_id=1))
    stored(t.watch(WES, request_id=2))
    change = t.leave(ANN, request_id=3)
    assert any("closed" in sql for sql, _ in change.writes)
    outcome = stored(change)
    assert t.closed and outcome.closed and outcome.untokens and ANN.id in outcome.gone
    assert any(isinstance(m, LobbyGone) for m in frames_to(outcome, WES.id))
    assert isinstance(frames_to(outcome, ANN.id)[-1], Ok)


def test_a_stored_game_resumes_where_it_was() -> None:
    t, _ = four_seated()
    game = Game(2026, "draw")
    moves = []
    for _ in range(5):
        move = game.legal_moves()[0]
        game.apply(move)
        moves.append(move)
    t.resume(1, GameRecord(2026, "draw", tuple(moves)), ENGINE_VERSION, [None] * 5)
    assert t.status == "playing" and t.game is not None and t.game.snapshot() == game.snapshot()
    # The deal's story so far is told to whoever comes: the opening and the five moves.
    (joined,) = [m for m in frames_to(stored(t.watch(WES, 9)), WES.id) if isinstance(m, GameUpdate)]
    assert joined.history is not None and len(joined.history) == 6
    assert sum(len(past.events) for past in joined.history) > 5


def test_an_away_players_turn_is_played_by_a_stand_in_and_said_so() -> None:
    t, _ = four_seated(TableOptions(on_drop="bot"))
    stored(t.start(ANN, request_id=1))
    game = t.game
    assert game is not None
    mover = (ANN, BOB, CY, DEE)[game.partner_draw.seat_of_chair.index(game.current)]
    gone = stored(t.detach(mover.id))
    assert mover.id in gone.gone and len(gone.think) == 1  # a bot now plays that seat
    think = gone.think[0]
    played = stored(t.bot_moved(think, think.bot.choose(think.view), think.bot))
    others = [v for v in (ANN, BOB, CY, DEE) if v is not mover]
    for v in others:
        (update,) = [m for m in frames_to(played, v.id) if isinstance(m, GameUpdate)]
        assert update.auto == "stand_in"  # everyone's log says who played it
    assert frames_to(played, mover.id) == []  # the away player is sent nothing


def test_a_chair_taken_back_by_another_connection_tells_the_first_one() -> None:
    t, _ = table()
    stored(t.sit(ANN, 0, request_id=1))
    again = Visitor(42, "Ann")
    outcome = stored(t.reclaim(again, 0, "token-0", answer=b""))
    (replaced,) = [m for m in frames_to(outcome, ANN.id) if isinstance(m, Error)]
    assert replaced.code == errors.REPLACED and ANN.id in outcome.gone
    assert (again.id, 0) in outcome.places and t.where(again.id) == 0 and t.where(ANN.id) is None


def test_a_move_from_a_connection_no_longer_in_its_chair_is_not_called_a_spectators() -> None:
    """A move that waited while its chair was taken back by the token (another window
    of Ann's) is refused as coming from someone no longer at the table; it was told
    "Spectators do not play." A spectator's move is told that."""
    t, _ = four_seated()
    stored(t.watch(WES, request_id=1))
    stored(t.start(ANN, request_id=2))
    stored(t.reclaim(Visitor(42, "Ann"), 0, "token-0", answer=b""))
    assert t.game is not None
    move = t.game.legal_moves()[0]
    for visitor, code in ((ANN, errors.NOT_AT_TABLE), (WES, errors.SPECTATOR)):
        for late in (
            functools.partial(t.play, visitor, move, None, request_id=3),
            functools.partial(t.ready, visitor, request_id=4),
            functools.partial(t.play_again, visitor, request_id=5),
        ):
            with pytest.raises(Refused) as refused:
                late()
            assert refused.value.code == code


def test_a_token_looked_up_before_its_chair_changed_hands_opens_nothing() -> None:
    """The lobby finds a token's chair when the request comes; the table takes the chair
    back only when the request's turn comes, behind what was queued first. Ann's token
    was found while her leaving was being stored, and Cy sat in her chair meanwhile:
    the chair is Cy's, and the token opens nothing (it handed Cy's chair to Ann's
    second connection, with Cy told it was "taken back")."""
    t, _ = table()
    stored(t.sit(ANN, 0, request_id=1))
    stored(t.sit(BOB, 1, request_id=2))
    stored(t.leave(ANN, request_id=3))
    stored(t.sit(CY, 0, request_id=4))
    again = Visitor(42, "Ann")
    with pytest.raises(Refused) as stale:
        t.reclaim(again, 0, "token-0", answer=b"")
    assert stale.value.code == errors.BAD_TOKEN
    assert t.where(CY.id) == 0 and t.where(again.id) is None
    stored(t.leave(BOB, request_id=5))
    stored(t.leave(CY, request_id=6))  # the last person leaves: the table closes
    with pytest.raises(Refused) as closed:
        t.reclaim(again, 0, "token-2", answer=b"")
    assert closed.value.code == errors.BAD_TOKEN


def test_a_request_that_waited_behind_the_tables_closing_changes_nothing() -> None:
    """Requests wait their turn at a table; one queued behind the last person's leaving
    finds the table closed. A sit there seated Bob at a table gone from the lobby, where
    he could neither leave ("not at a table") nor sit elsewhere ("leave your table")."""
    t, _ = table()
    stored(t.sit(ANN, 0, request_id=1))
    stored(t.leave(ANN, request_id=2))
    assert t.closed
    for late in (
        lambda: t.sit(BOB, 1, request_id=3),
        lambda: t.watch(CY, request_id=4),
        lambda: t.add_bot(ANN, 1, "easy", request_id=5),
        lambda: t.start(ANN, request_id=6),
        lambda: t.chat(ANN, "hi", request_id=7),
        lambda: t.play_again(ANN, request_id=8),
    ):
        with pytest.raises(Refused) as closed:
            late()
        assert closed.value.code == errors.NO_SUCH_TABLE
    assert t.chairs == [None] * 4 and not t.spectators
    left = stored(t.leave(BOB, request_id=9))  # leaving a closed table: done already
    assert [type(m) for m in frames_to(left, BOB.id)] == [Ok] and not left.places


PEOPLE = (ANN, BOB, CY, DEE)


def mover_of(t: TableMaster) -> Visitor:
    assert t.game is not None
    return PEOPLE[t.game.partner_draw.seat_of_chair.index(t.game.current)]


def play_to(t: TableMaster, phase: str) -> Outcome:
    """The four people play their seats (the heuristic bot choosing from each one's own
    view) until the game reaches ``phase``; returns the last move's outcome."""
    bot = make_bot("heuristic", random.Random(3))
    outcome = Outcome()
    assert t.game is not None
    for _ in range(2000):
        if t.game.phase == phase:
            return outcome
        if t.game.phase == "deal_over":
            for v in PEOPLE:
                stored(t.ready(v, request_id=50))
            outcome = stored(t.timer("next_deal"))  # due at once: all are ready
            continue
        seat = t.game.current
        outcome = stored(t.play(mover_of(t), bot.choose(view_for(t.game, seat)), None, request_id=50))
    raise AssertionError(f"the game did not reach {phase}")


def test_r3_1_the_next_deal_starts_when_every_present_player_is_ready() -> None:
    t, _ = four_seated(deal_pause=20.0)
    stored(t.start(ANN, request_id=1))
    ended = play_to(t, "deal_over")
    assert ended.timers["next_deal"] == 20.0  # else it starts by itself after the pause
    assert t.game is not None and len(t.game.results) == 1
    for v in (ANN, BOB, CY):
        stored(t.ready(v, request_id=2))
        assert t.game.phase == "deal_over"  # not yet: Dee has not said so
    last = stored(t.ready(DEE, request_id=2))
    assert last.timers["next_deal"] == 0.0  # all ready: the next deal is due at once
    dealt = stored(t.timer("next_deal"))
    assert t.game.phase != "deal_over" and len(t.game.results) == 1
    assert [m for m in frames_to(dealt, ANN.id) if isinstance(m, GameUpdate)]  # the new deal, told


def test_who_is_ready_is_told_to_the_table_within_the_lobby_interval() -> None:
    t, _ = four_seated(deal_pause=20.0, lobby_interval=0.5)
    stored(t.start(ANN, request_id=1))
    play_to(t, "deal_over")
    said = stored(t.ready(ANN, request_id=2))
    assert [type(m) for m in frames_to(said, ANN.id)] == [Ok]  # answered at once...
    assert not frames_to(said, BOB.id) and said.timers["table_push"] == 0.5  # ...told soon
    told = stored(t.timer("table_push"))
    for v in PEOPLE:
        (table,) = [m for m in frames_to(told, v.id) if isinstance(m, TableMessage)]
        assert [c.ready for c in table.table.chairs if c is not None] == [True, False, False, False]
    assert told.lobby  # the lobby's listing too


def test_r3_1_the_deal_pause_starts_the_next_deal_without_anyone_ready() -> None:
    t, now = four_seated(deal_pause=20.0)
    stored(t.start(ANN, request_id=1))
    play_to(t, "deal_over")
    now.t += 20
    stored(t.timer("next_deal"))
    assert t.game is not None and t.game.phase != "deal_over"
    with pytest.raises(Refused) as late:
        t.ready(ANN, request_id=3)
    assert late.value.code == errors.NOT_DEAL_OVER


def test_r3_1_with_no_deal_pause_the_next_deal_waits_for_the_players() -> None:
    """The game against bots runs with no deal pause: nothing starts the next deal but
    its player's ready, however long they read the scores."""
    t, now = four_seated(deal_pause=None)
    stored(t.start(ANN, request_id=1))
    ended = play_to(t, "deal_over")
    assert ended.timers["next_deal"] is None  # no timer set...
    assert t.clock_message().kind != "next_deal"  # ...and no countdown told
    now.t += 3600
    for v in (ANN, BOB, CY):
        assert stored(t.ready(v, request_id=2)).timers["next_deal"] is None
    assert t.game is not None and t.game.phase == "deal_over"
    assert stored(t.ready(DEE, request_id=2)).timers["next_deal"] == 0.0  # all ready: at once
    stored(t.timer("next_deal"))
    assert t.game.phase != "deal_over"


def test_r2_2_play_again_draws_partners_anew_once_all_four_say_so() -> None:
    t, _ = four_seated()
    stored(t.start(ANN, request_id=1))
    first = t.game
    with pytest.raises(Refused) as early:
        t.play_again(ANN, request_id=2)
    assert early.value.code == errors.NOT_FINISHED
    play_to(t, "game_over")
    assert t.status == "finished"
    for v in (ANN, BOB, CY):
        stored(t.play_again(v, request_id=3))
        assert t.game is first
    change = t.play_again(DEE, request_id=3)
    assert change.writes  # a new game is stored before anyone hears of it
    stored(change)
    assert t.status == "playing" and t.game is not first and t.game is not None
    assert t.game.partner_draw.rounds  # partners drawn again (R2.2)


def test_only_the_creator_seats_bots_and_starts_and_bots_leave_only_before_the_game() -> None:
    t, _ = table()
    stored(t.sit(ANN, 0, request_id=1))
    stored(t.sit(BOB, 1, request_id=2))
    for attempt in (lambda: t.add_bot(BOB, 2, "easy", 3), lambda: t.start(BOB, 3)):
        with pytest.raises(Refused) as refused:
            attempt()
        assert refused.value.code == errors.NOT_CREATOR
    with pytest.raises(Refused) as short:
        t.start(ANN, request_id=4)
    assert short.value.code == errors.NOT_FULL
    stored(t.add_bot(ANN, 2, "easy", request_id=5))
    stored(t.add_bot(ANN, 3, "hard", request_id=6))
    assert [c.name for c in t.chairs if c is not None and c.bot] == ["Dara", "Mina"]  # names, not numbers
    stored(t.start(ANN, request_id=7))
    with pytest.raises(Refused) as playing:
        t.remove_bot(ANN, 2, request_id=8)
    assert playing.value.code == errors.NOT_WAITING


def test_the_turn_clock_stops_while_nobody_is_there_to_act() -> None:
    t, _ = four_seated(TableOptions(turn_seconds=30))
    stored(t.start(ANN, request_id=1))
    outcomes = [stored(t.detach(v.id)) for v in PEOPLE]
    assert outcomes[-1].timers.get("time_up", 0) is None  # the last one gone: no clock runs
    back = stored(t.reclaim(ANN, 0, "token-0", answer=b""))
    assert back.timers["time_up"] is not None  # someone is there: the clock goes on
