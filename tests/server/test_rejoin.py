"""Dropping out and coming back: seats held for their tokens, shown away, reclaimed."""

from __future__ import annotations

from pathlib import Path

from rummy.engine import Game, view_for
from rummy.net import Client
from rummy.protocol import (
    PROTOCOL_VERSION,
    ChatLine,
    CreateTable,
    Error,
    GameUpdate,
    Hello,
    Leave,
    Ok,
    Rejoin,
    Seated,
    Sit,
    TableOptions,
    Welcome,
    errors,
    event_from_wire,
)
from rummy.protocol.wire import DealStartedWire, StockDrawnWire
from rummy.server import Server

from .game_helpers import close_all, connect, open_client, play_all, serve, server, table_of_four

__all__ = ["server"]


async def test_a_dropped_player_is_shown_away_and_returns_with_the_token(server: Server) -> None:
    clients, tokens, table_id = await table_of_four(server)
    await play_all(clients, stop_after=12)
    bob = clients[1]
    await bob.close()
    for c in (clients[0], clients[2], clients[3]):
        await c.until(lambda c: c.table is not None and not c.table.chairs[1].present)
    back = await open_client(server)
    welcome = await back.request(Hello, version=PROTOCOL_VERSION, name="Bob", token=tokens[1], lobby=False)
    assert isinstance(welcome, Welcome) and (welcome.table_id, welcome.chair) == (table_id, 1)
    await back.until(lambda c: c.view is not None)
    table = server.table(table_id)
    assert table.game is not None
    seat = table.game.partner_draw.seat_of_chair[1]
    assert back.view == view_for(table.game, seat)  # the whole view, the hand included
    # ... and the story of the deal so far, to show in the log: every move of it, in order.
    assert back.game is not None and back.game.events == [] and back.game.history is not None
    told = [event_from_wire(e) for step in back.game.history for e in step.events]
    replay = Game(table.game.seed, table.game.seating)
    expected = list(replay.opening_events)
    for move in table.game.moves:
        expected += replay.apply(move)
    assert told == expected  # deal 1 (12 moves in): the opening and every move since
    assert all(step.auto is None for step in back.game.history)
    for c in (clients[0], clients[2], clients[3]):
        await c.until(lambda c: c.table is not None and c.table.chairs[1].present)
    clients[1] = back
    await play_all(clients)
    assert back.view is not None and back.view.phase == "game_over"
    await close_all(clients)


async def ann_drops(server: Server) -> tuple[Client, list[str], int, int]:
    """Ann and Bob with two bots at a table whose stand-in bot plays for the away; Ann
    drops at once. Returns Bob, the seat tokens, the table id and Ann's seat."""
    clients, tokens, table_id = await table_of_four(
        server, names=("Ann", "Bob"), bots=2, options=TableOptions(on_drop="bot")
    )
    ann, bob = clients
    await ann.until(lambda c: c.game is not None)
    assert ann.game is not None and ann.game.seat is not None
    ann_seat = ann.game.seat
    await ann.close()
    return bob, tokens, table_id, ann_seat


async def test_with_on_drop_bot_a_bot_plays_the_absent_seat_until_it_returns(server: Server) -> None:
    bob, tokens, table_id, ann_seat = await ann_drops(server)

    def ann_seat_played(c: Client) -> bool:
        return any(
            isinstance(e, StockDrawnWire) and e.seat == ann_seat
            for m in c.received
            if hasattr(m, "events")
            for e in m.events  # type: ignore[union-attr]
        )

    def stood_in_this_deal(c: Client) -> bool:
        """The stand-in has moved for Ann in the deal under way (a deal's story is
        what a newcomer is told) and the game waits for Bob: nothing moves now."""
        updates = [m for m in c.received if isinstance(m, GameUpdate)]
        starts = [i for i, m in enumerate(updates) if any(isinstance(e, DealStartedWire) for e in m.events)]
        deal = updates[starts[-1] :] if starts else updates
        moved = any(
            m.auto == "stand_in" and any(getattr(e, "seat", None) == ann_seat for e in m.events) for m in deal
        )
        return moved and c.view is not None and c.view.my_turn

    # Bob keeps playing; Ann's seat is played by a stand-in bot meanwhile.
    await play_all([bob], stop_after=30)
    await bob.until(ann_seat_played)
    await bob.until(lambda c: c.view is not None and c.view.my_turn)
    while not stood_in_this_deal(bob):  # a deal ended since: play on into the next
        assert bob.game is not None
        await play_all([bob], stop_after=bob.game.moves + 1)
        await bob.until(lambda c: c.view is not None and c.view.my_turn)
    stood_in = [
        m
        for m in bob.received
        if isinstance(m, GameUpdate) and any(getattr(e, "seat", None) == ann_seat for e in m.events)
    ]
    assert stood_in and all(m.auto == "stand_in" for m in stood_in)  # said so, for everyone's log
    back = await connect(server, "Ann")
    seated = await back.request(Rejoin, token=tokens[0])
    assert isinstance(seated, Seated) and (seated.table_id, seated.chair) == (table_id, 0)
    await back.until(lambda c: c.view is not None and c.table is not None and c.table.chairs[0].present)
    # Back at the table, Ann is told the deal so far, her stand-in's moves marked. The
    # bots play on meanwhile, so the story is in the first update she got, not the latest.
    arrival = next(m for m in back.received if isinstance(m, GameUpdate))
    assert arrival.history is not None
    told = [(step.auto, e) for step in arrival.history for e in step.events]
    assert any(auto == "stand_in" and getattr(e, "seat", None) == ann_seat for auto, e in told)
    await play_all([back, bob])
    assert back.view is not None and back.view.phase == "game_over"
    await close_all([back, bob])


async def test_nobody_takes_a_seat_without_its_token(server: Server) -> None:
    clients, tokens, table_id = await table_of_four(server)
    await clients[1].close()
    eve = await connect(server, "Eve")
    refused = await eve.request(Sit, table_id=table_id, chair=1)
    assert isinstance(refused, Error) and refused.code == errors.NOT_WAITING
    wrong = await eve.request(Rejoin, token=tokens[1][:-2] + "xx")
    assert isinstance(wrong, Error) and wrong.code == errors.BAD_TOKEN
    other = await open_client(server)
    welcome = await other.request(Hello, version=PROTOCOL_VERSION, name="Mal", token="not-a-token")
    assert isinstance(welcome, Welcome) and welcome.table_id is None
    table = server.table(table_id)
    assert table.chairs[1] is not None and table.chairs[1].session is None and table.chairs[1].name == "Bob"
    await close_all([*clients, eve, other])


async def test_a_second_connection_with_the_token_replaces_the_first(server: Server) -> None:
    clients, tokens, _ = await table_of_four(server)
    twin = await connect(server, "Bob")
    assert isinstance(await twin.request(Rejoin, token=tokens[1]), Seated)
    bob = clients[1]
    await bob.until(lambda c: any(e.code == errors.REPLACED for e in c.errors))
    refused = await bob.request(Leave)
    assert isinstance(refused, Error) and refused.code == errors.NOT_AT_TABLE
    await twin.until(lambda c: c.view is not None)
    clients[1] = twin
    await play_all(clients)
    await close_all([*clients, bob])


async def test_leaving_a_waiting_table_frees_the_chair_and_passes_on_the_creator(server: Server) -> None:
    ann = await connect(server, "Ann")
    bob = await connect(server, "Bob")
    seated = await ann.request(CreateTable, name="t")
    assert isinstance(seated, Seated)
    assert isinstance(await bob.request(Sit, table_id=seated.table_id, chair=2), Seated)
    assert isinstance(await ann.request(Leave), Ok)
    await bob.until(lambda c: c.table is not None and c.table.chairs[0].name is None)
    assert bob.table is not None and bob.table.creator == 2
    gone = await ann.request(Rejoin, token=seated.token)
    assert isinstance(gone, Error) and gone.code == errors.BAD_TOKEN
    assert isinstance(await bob.request(Leave), Ok)  # the last person leaves: the table closes
    assert server.table(seated.table_id) is None
    await close_all([ann, bob])


async def test_a_table_nobody_comes_back_to_is_closed() -> None:
    """A waiting table whose only player dropped is held for a while, then closed."""
    server = await serve(**{"abandon_after": 0.1})
    try:
        looker = await connect(server, "Lou", lobby=True)
        ann = await connect(server, "Ann")
        seated = await ann.request(CreateTable, name="left behind")
        assert isinstance(seated, Seated)
        await looker.until(lambda c: seated.table_id in c.lobby)
        await ann.close()
        await looker.until(lambda c: seated.table_id not in c.lobby)
        late = await connect(server, "Ann")
        gone = await late.request(Rejoin, token=seated.token)
        assert isinstance(gone, Error) and gone.code == errors.BAD_TOKEN
        await close_all([looker, late])
    finally:
        await server.close()


async def test_a_chair_whose_token_was_lost_does_not_block_a_waiting_table() -> None:
    """A sit whose answer (the token) is lost in a cut: the chair stayed held for a
    token nobody has, "Bob (away)" at Ann's table for good, which she could neither
    fill nor start without (a game waiting for Bob for ever). Now a player away that
    long from a table waiting for players, while someone else is there, loses the
    chair; a game under way keeps it for its token as before."""
    server = await serve(**{"free_away_after": 0.2})
    try:
        ann = await connect(server, "Ann")
        seated = await ann.request(CreateTable, name="Ann's")
        assert isinstance(seated, Seated)
        bob = await connect(server, "Bob")
        assert isinstance(await bob.request(Sit, table_id=seated.table_id, chair=1), Seated)
        await bob.close()  # the cut: the token, if it came, is gone with the client
        await ann.until(lambda c: c.table is not None and c.table.chairs[1].name == "Bob")
        await ann.until(lambda c: c.table is not None and c.table.chairs[1].name is None)
        assert ann.table is not None and ann.table.chairs[0].name == "Ann" and ann.table.creator == 0
        back = await connect(server, "Bob")
        again = await back.request(Sit, table_id=seated.table_id, chair=1)
        assert isinstance(again, Seated)
        await close_all([ann, back])
    finally:
        await server.close()


async def test_at_a_table_that_waits_a_player_away_long_gets_a_stand_in_and_the_game_goes_on() -> None:
    """At a table that waits for a dropped player (``on_drop`` wait, no turn timer), a
    player who could not come back (an SSH player without a key, whose token went
    with the session) held the others' game up for good: their turn came, nothing
    moved, and the others could only leave. Now, once away ``free_away_after`` while
    someone else is at the table, a stand-in plays for them, as the table's chat says;
    the chair stays theirs, for its token, and Bob plays the game to its end. Then,
    the game over, their chair is freed as at a waiting table: another game needs all
    four, and waited for them for good."""
    server = await serve(free_away_after=0.2)
    try:
        (ann, bob), tokens, table_id = await table_of_four(server, names=("Ann", "Bob"), bots=2)
        await ann.until(lambda c: c.game is not None)
        assert ann.game is not None
        ann_seat = ann.game.seat
        await ann.close()

        await play_all([bob], stop_after=40)
        said = [m.text for m in bob.received if isinstance(m, ChatLine) and m.by == "server"]
        assert "Ann has been away a while: a bot plays for them until they come back." in said
        stood_in = [
            m
            for m in bob.received
            if isinstance(m, GameUpdate) and any(getattr(e, "seat", None) == ann_seat for e in m.events)
        ]
        assert any(m.auto == "stand_in" for m in stood_in)

        back = await connect(server, "Ann")  # with the token: the chair is still hers
        seated = await back.request(Rejoin, token=tokens[0])
        assert isinstance(seated, Seated) and (seated.table_id, seated.chair) == (table_id, 0)
        await back.close()
        await play_all([bob])
        assert bob.view is not None and bob.view.phase == "game_over"
        # Another game needs all four to want it: the chair of a player who does not
        # come back is freed, as at a table waiting for players, for someone else.
        await bob.until(lambda c: c.table is not None and c.table.chairs[0].name is None)
        assert bob.table is not None and bob.table.status == "waiting"
        await bob.close()
    finally:
        await server.close()


async def test_the_story_of_the_deal_keeps_who_played_across_a_restart(tmp_path: Path) -> None:
    """A stand-in's moves are stored as such: after a restart the deal's story still says so."""
    db = tmp_path / "rummy.db"
    server = await serve(db)
    try:
        bob, tokens, _, ann_seat = await ann_drops(server)
        await play_all([bob], stop_after=12)
        await bob.until(
            lambda c: any(
                isinstance(m, GameUpdate) and m.auto == "stand_in" and m.view.deal == 1 for m in c.received
            )
        )
        await bob.close()
    finally:
        await server.close()
    server = await serve(db)
    try:
        back = await open_client(server)
        await back.request(Hello, version=PROTOCOL_VERSION, name="Ann", token=tokens[0], lobby=False)
        await back.until(lambda c: c.game is not None)
        assert back.game is not None and back.game.history is not None
        steps = [(step.auto, event_from_wire(e)) for step in back.game.history for e in step.events]
        assert any(auto == "stand_in" and getattr(e, "seat", None) == ann_seat for auto, e in steps)
        # The seated bots' moves are their own (Bob's may have been stood in for too,
        # once he was gone).
        table = server.open_tables()[0]
        bots = {table.seat_of_chair(c.index) for c in table.chairs if c is not None and c.bot}
        assert len(bots) == 2
        assert all(auto is None for auto, e in steps if getattr(e, "seat", None) in bots)
        await back.close()
    finally:
        await server.close()
