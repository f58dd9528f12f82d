"""Who is who: a seat never goes to the wrong player. Several players run
``rummy-client`` from one state directory, as four players under one login do: each
client offers only its own player's seat token, two clients of one player never
offer the same token, and a client whose chair is taken over says so and is back in
the lobby. Real clients (the app) against a real server on loopback."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from rummy.client.app import RummyApp
from rummy.client.messages import SitRequested
from rummy.client.screens.modals import NoticeScreen
from rummy.client.screens.table import TableScreen
from rummy.client.state import StateStore, seat_key
from rummy.net import Client
from rummy.protocol import PROTOCOL_VERSION, AddBot, CreateTable, Hello, Ok, Seated, Start, Welcome
from rummy.server import Server, start_server
from tests.client.conftest import screen_text
from tests.support import eventually

FAST = {"bot_delay": 0.0, "deal_pause": 30.0}


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    s = await start_server(**FAST)
    yield s
    await s.close()


async def hello(server: Server, name: str) -> Client:
    c = await Client.connect(server.host, server.port)
    assert isinstance(await c.request(Hello, version=PROTOCOL_VERSION, name=name, lobby=False), Welcome)
    return c


def app_for(server: Server, name: str) -> RummyApp:
    return RummyApp(player_name=name, address=(server.host, server.port))


def seated_at(app: RummyApp, table_id: int, chair: int) -> bool:
    return app.session.table_id == table_id and app.session.chair == chair and not app.session.watching


async def test_two_players_from_one_state_directory_each_get_their_own_seat_back(server: Server) -> None:
    """Cid and Dee play from one state directory; Cid's client is killed and run again:
    it is back in Cid's chair with Cid's hand, and Dee keeps hers (the bug: it took Dee's)."""
    ann = await hello(server, "Ann")
    seated = await ann.request(CreateTable, name="Friday")
    assert isinstance(seated, Seated)
    table_id = seated.table_id
    assert isinstance(await ann.request(AddBot, chair=1), Ok)
    dee = app_for(server, "Dee")
    async with dee.run_test() as dee_pilot:
        cid = app_for(server, "Cid")
        async with cid.run_test() as cid_pilot:
            await eventually(lambda: table_id in cid.session.tables, pause=cid_pilot.pause)
            cid.post_message(SitRequested(table_id, 2))
            await eventually(lambda: seated_at(cid, table_id, 2), pause=cid_pilot.pause)
            await eventually(lambda: table_id in dee.session.tables, pause=dee_pilot.pause)
            dee.post_message(SitRequested(table_id, 3))  # Dee sits after Cid: hers is the newest token
            await eventually(lambda: seated_at(dee, table_id, 3), pause=dee_pilot.pause)
            assert isinstance(await ann.request(Start), Ok)
            await eventually(lambda: isinstance(cid.screen, TableScreen), pause=cid_pilot.pause)
        # Cid's client is gone; the same command runs it again.
        again = app_for(server, "Cid")
        async with again.run_test() as again_pilot:
            await eventually(lambda: isinstance(again.screen, TableScreen), pause=again_pilot.pause)
            assert seated_at(again, table_id, 2)
            game = server.table(table_id).game
            assert game is not None
            cid_seat = game.partner_draw.seat_of_chair[2]
            view = again.screen.view
            assert view is not None and view.seat == cid_seat
            assert sorted(view.hand or ()) == sorted(game.hands[cid_seat])
            # Dee was not disturbed: still in her chair, no notice, her table still up.
            await dee_pilot.pause()
            assert seated_at(dee, table_id, 3) and isinstance(dee.screen, TableScreen)
    store = StateStore()
    cid_token = store.seat(seat_key(f"{server.host}:{server.port}", "Cid"))
    dee_token = store.seat(seat_key(f"{server.host}:{server.port}", "Dee"))
    assert cid_token is not None and dee_token is not None
    assert (cid_token.chair, dee_token.chair) == (2, 3) and cid_token.token != dee_token.token
    await ann.close()


async def test_a_second_client_of_the_same_player_does_not_offer_the_token(server: Server) -> None:
    """Two clients for Cid at once from one state directory: the second one says so
    plainly and does not take the first one's chair."""
    ann = await hello(server, "Ann")
    seated = await ann.request(CreateTable, name="Friday")
    assert isinstance(seated, Seated)
    first = app_for(server, "Cid")
    async with first.run_test() as first_pilot:
        await eventually(lambda: seated.table_id in first.session.tables, pause=first_pilot.pause)
        first.post_message(SitRequested(seated.table_id, 1))
        await eventually(lambda: seated_at(first, seated.table_id, 1), pause=first_pilot.pause)
        twin = app_for(server, "Cid")
        async with twin.run_test(size=(120, 40)) as twin_pilot:
            await eventually(
                lambda: twin.player_name == "Cid" and seated.table_id in twin.session.tables,
                pause=twin_pilot.pause,
            )
            assert not twin.owns_seat_token and twin.remembered_token() is None
            assert twin.session.table_id is None
            text = screen_text(twin)
            assert "Another rummy-client here already plays as Cid" in text and "--name" in text
            await first_pilot.pause()
            assert seated_at(first, seated.table_id, 1)  # untouched
    await ann.close()


async def test_a_client_whose_chair_is_taken_over_says_so_and_is_back_in_the_lobby(
    server: Server,
) -> None:
    """``replaced``: a clear notice of what happened and what to do, then the lobby;
    never a table that no longer answers."""
    ann = await hello(server, "Ann")
    seated = await ann.request(CreateTable, name="Friday")
    assert isinstance(seated, Seated)
    for chair in (1, 2):
        assert isinstance(await ann.request(AddBot, chair=chair), Ok)
    app = app_for(server, "Cid")
    async with app.run_test(size=(100, 32)) as pilot:
        await eventually(lambda: seated.table_id in app.session.tables, pause=pilot.pause)
        app.post_message(SitRequested(seated.table_id, 3))
        await eventually(lambda: seated_at(app, seated.table_id, 3), pause=pilot.pause)
        assert isinstance(await ann.request(Start), Ok)
        await eventually(lambda: isinstance(app.screen, TableScreen), pause=pilot.pause)
        token = app.remembered_token()
        assert token is not None
        thief = await Client.connect(server.host, server.port)  # a copy of the state directory elsewhere
        await thief.request(Hello, version=PROTOCOL_VERSION, name="Cid", token=token, lobby=False)
        await eventually(lambda: isinstance(app.screen, NoticeScreen), pause=pilot.pause)
        await eventually(
            lambda: "Your chair" in screen_text(app), pause=pilot.pause
        )  # drawn, not only pushed
        text = screen_text(app)
        assert "Your chair was taken over" in text and "--name" in text
        assert app.session.table_id is None and app.table_screen is None
        await pilot.press("enter")
        await eventually(lambda: app.screen is app.lobby, pause=pilot.pause)
        assert not any(isinstance(s, TableScreen) for s in app.screen_stack)
        await thief.close()
    await ann.close()


def test_tokens_are_kept_per_server_and_player() -> None:
    """The key names both, so that a token is never offered for another player."""
    assert seat_key("h:1", "Cid") != seat_key("h:1", "Dee") != seat_key("h:2", "Dee")
    assert seat_key("local", "Ann") == "local"
