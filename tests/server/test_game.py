"""Whole games over real sockets: four players, spectators, bots, the deal's end, play again."""

from __future__ import annotations

from rummy.engine import SEAT_NAMES, points
from rummy.protocol import (
    Chat,
    ChatLine,
    Error,
    GameUpdate,
    LobbySubscribe,
    Ok,
    Ready,
    TableOptions,
    Watch,
    Watching,
    errors,
)
from rummy.protocol.wire import DealEndedWire, GameEndedWire, PartnersDrawnWire
from rummy.server import Server

from .game_helpers import close_all, connect, play_again, play_all, server, table_of_four

__all__ = ["server"]


def updates(c: object) -> list[GameUpdate]:
    return [m for m in c.received if isinstance(m, GameUpdate)]  # type: ignore[attr-defined]


async def test_four_players_play_a_whole_game_to_the_end(server: Server) -> None:
    """R3.1, R8: two deals, every hand shown at each deal's end (R7), then the winner."""
    clients, _, table_id = await table_of_four(server)
    watcher = await connect(server, "Eve")
    assert isinstance(await watcher.request(Watch, table_id=table_id), Watching)
    await play_all(clients)
    await watcher.until(lambda c: c.view is not None and c.view.phase == "game_over")
    for c in [*clients, watcher]:
        await c.until(lambda c: c.table is not None and c.table.status == "finished")
        assert c.view is not None and c.view.phase == "game_over"
        assert len(c.view.results) == 2
        for result in c.view.results:  # every hand revealed, scored per team (R7.2, R7.3)
            assert len(result.hands) == 4
            if result.ended_by == "out":
                assert result.went_out is not None and result.hands[result.went_out] == ()
            for team in (0, 1):
                held = sum(points(card) for seat in (team, team + 2) for card in result.hands[seat])
                assert result.scores[team].in_hand == -held
                out = result.went_out is not None and result.went_out % 2 == team
                assert result.scores[team].going_out == (25 if out else 0)
        ends = [e for u in updates(c) for e in u.events if isinstance(e, DealEndedWire)]
        assert [e.result.deal for e in ends] == [1, 2]
        game_end = [e for u in updates(c) for e in u.events if isinstance(e, GameEndedWire)]
        assert len(game_end) == 1
        assert tuple(game_end[0].totals) == c.view.totals()
        assert game_end[0].winner == c.view.winner()
    assert len({c.view.totals() for c in [*clients, watcher] if c.view}) == 1
    await close_all([*clients, watcher])


async def test_partner_draw_is_shown_to_everyone_and_decides_the_seats(server: Server) -> None:
    """R2.2-R2.3: the draw is played out and every card of it is shown to all four players
    and to spectators; each chair then plays from the seat the draw gave it."""
    watcher = await connect(server, "Eve", lobby=True)
    clients, _, table_id = await table_of_four(server, options=TableOptions(seating="draw"))
    assert isinstance(await watcher.request(Watch, table_id=table_id), Watching)
    draws = []
    for c in clients:
        await c.until(lambda c: c.game is not None)
        first = updates(c)[0]
        assert first.moves == 0
        drawn = [e for e in first.events if isinstance(e, PartnersDrawnWire)]
        assert len(drawn) == 1
        draws.append(drawn[0].draw)
    assert all(d == draws[0] for d in draws)
    await watcher.until(lambda c: c.view is not None)
    assert watcher.view is not None and watcher.view.partner_draw.rounds == tuple(
        tuple(tuple(p) for p in r) for r in draws[0].rounds
    )
    assert sorted(p for p, _ in draws[0].rounds[0]) == [0, 1, 2, 3]  # round 0: all four drew
    for chair, c in enumerate(clients):
        assert c.table is not None and c.table.chairs[chair].seat == draws[0].seat_of_chair[chair]
        assert c.game is not None and c.game.seat == draws[0].seat_of_chair[chair]
    await close_all([*clients, watcher])


async def test_chosen_seats_make_the_teams(server: Server) -> None:
    """R2.4: with seating "chosen", chair p plays seat p; the draw only picks the dealer."""
    clients, _, _ = await table_of_four(server, options=TableOptions(seating="chosen"))
    for chair, c in enumerate(clients):
        await c.until(lambda c: c.game is not None)
        assert c.game is not None and c.game.seat == chair
        assert c.view is not None and c.view.partner_draw.seat_of_chair == (0, 1, 2, 3)
    await close_all(clients)


async def test_spectators_never_get_a_hand(server: Server) -> None:
    """R9.2: a spectator's views have no hand, all game long; players get only their own."""
    clients, _, table_id = await table_of_four(server, names=("Ann",), bots=3)
    watcher = await connect(server, "Eve")
    assert isinstance(await watcher.request(Watch, table_id=table_id), Watching)
    await play_all(clients)
    await watcher.until(lambda c: c.view is not None and c.view.phase == "game_over")
    seen = updates(watcher)
    assert seen
    assert all(u.seat is None and u.view.seat is None and u.view.hand is None for u in seen)
    assert all(u.view.hand is not None and u.seat == u.view.seat for u in updates(clients[0]))
    await close_all([*clients, watcher])


async def test_creator_seats_bots_and_they_play_the_game_out(server: Server) -> None:
    """One person and three heuristic bots: the bots move by themselves after every move."""
    clients, _, _ = await table_of_four(server, names=("Ann",), bots=3)
    ann = clients[0]
    await ann.until(lambda c: c.table is not None and c.table.status == "playing")
    assert ann.table is not None
    assert [ch.bot for ch in ann.table.chairs] == [False, True, True, True]
    await play_all(clients)
    assert ann.view is not None and ann.view.phase == "game_over"
    await close_all(clients)


async def test_the_same_four_play_again(server: Server) -> None:
    """After a game, play_again from all four starts a new game with a new draw."""
    clients, _, _ = await table_of_four(server, names=("Ann", "Bob"), bots=2)
    await play_all(clients)
    first_draw = clients[0].view.partner_draw if clients[0].view else None
    refused = await clients[0].request(Ready)
    assert isinstance(refused, Error) and refused.code == errors.NOT_PLAYING
    await play_again(clients)
    for c in clients:
        await c.until(lambda c: c.table is not None and c.table.games == 2 and c.table.status == "playing")
    await play_all(clients, game_number=2)
    for c in clients:
        assert c.view is not None and c.view.phase == "game_over"
        starts = [u for u in updates(c) if any(isinstance(e, PartnersDrawnWire) for e in u.events)]
        assert len(starts) == 2
    assert first_draw is not None
    await close_all(clients)


async def test_chat_reaches_the_table_cleaned(server: Server) -> None:
    clients, _, table_id = await table_of_four(server, names=("Ann",), bots=3, options=None)
    watcher = await connect(server, "Eve")
    await watcher.request(Watch, table_id=table_id)
    assert isinstance(await clients[0].request(Chat, text="hi \x1b[2Jthere\x07"), Ok)
    await watcher.until(lambda c: any(line.by == "player" for line in c.chat))
    line = next(line for line in watcher.chat if line.by == "player")
    assert isinstance(line, ChatLine)
    assert (line.name, line.text, line.chair) == ("Ann", "hi there", 0)
    assert isinstance(await watcher.request(Chat, text="go " + SEAT_NAMES[0]), Ok)
    await clients[0].until(lambda c: any(line.by == "spectator" for line in c.chat))
    await close_all([*clients, watcher])


async def test_lobby_lists_tables_and_their_changes(server: Server) -> None:
    looker = await connect(server, "Lou", lobby=True)
    clients, _, table_id = await table_of_four(server, names=("Ann",), bots=3)
    await looker.until(lambda c: table_id in c.lobby and c.lobby[table_id].status == "playing")
    info = looker.lobby[table_id]
    assert [ch.name for ch in info.chairs] == ["Ann", "Dara", "Mina", "Kian"]
    assert isinstance(await looker.request(LobbySubscribe, on=False), Ok)
    await close_all([*clients, looker])
