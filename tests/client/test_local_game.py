"""``rummy-client`` with no address: a server in the same process, three bots, the
table at once; and a restarted client back at the same game (its seat token and
the local server's storage are in the state directory)."""

from __future__ import annotations

from rummy.client.app import HOW_TO_PLAY_OFFERED, RummyApp
from rummy.client.screens.modals import ConfirmScreen
from rummy.client.screens.table import TableScreen
from rummy.client.widgets.table.hand import HandView
from tests.client.conftest import screen_text

FAST = {"bot_delay": 0.0, "deal_pause": 0.05}


def table_shown(app: RummyApp) -> bool:
    """The table screen is up (composed) with a game in it."""
    screen = app.screen
    return isinstance(screen, TableScreen) and screen.is_mounted and screen.view is not None


def hand_drawn(app: RummyApp) -> bool:
    """The table screen is up and its hand drawn (the first view waits for the widgets)."""
    screen = app.screen
    return table_shown(app) and bool(screen.query_one(HandView).order)


async def wait_for(pilot, check, tries: int = 200) -> None:  # type: ignore[no-untyped-def]
    for _ in range(tries):
        if check():
            return
        await pilot.pause(0.05)
    raise AssertionError("timed out")


async def at_the_table(pilot, app: RummyApp) -> TableScreen:  # type: ignore[no-untyped-def]
    """Wait for the table; the first game against bots offers how to play: not now."""
    offered = lambda: app.store.seen(HOW_TO_PLAY_OFFERED)  # noqa: E731
    await wait_for(pilot, lambda: offered() and (table_shown(app) or isinstance(app.screen, ConfirmScreen)))
    if isinstance(app.screen, ConfirmScreen):
        await wait_for(pilot, lambda: "New to Persian Rummy?" in screen_text(app))
        await pilot.press("n")
    await wait_for(pilot, lambda: table_shown(app))
    assert isinstance(app.screen, TableScreen)
    return app.screen


async def test_the_local_game_opens_with_seven_cards_and_plays() -> None:
    app = RummyApp(player_name="Ann", local=True, server_options=FAST)
    async with app.run_test() as pilot:
        await at_the_table(pilot, app)
        await pilot.pause()
        table = app.screen
        assert isinstance(table, TableScreen) and table.view is not None
        assert table.view.hand is not None and len(table.view.hand) in (7, 8)
        text = screen_text(app)
        assert "Ann" in text and "you" in text and "bot" in text

        # Two turns of our own: draw (or pass), then discard the drawn card. The bots
        # play at full speed, so a deal may end meanwhile: then there is no more turn.
        def our_turn() -> bool:
            v = table.view
            return v is not None and (
                v.phase not in ("draw", "meld") or (v.my_turn and app.move_request is None)
            )

        for _ in range(2):
            await wait_for(pilot, our_turn)
            view = table.view
            assert view is not None
            if view.phase not in ("draw", "meld") or app.screen is not table:
                break
            before = view.hand_counts[view.seat or 0]
            if view.phase == "draw":
                await pilot.press("s" if view.stock_count else "p")
                await wait_for(pilot, lambda old=view: table.view is not old)
            view = table.view
            if view is not None and view.my_turn and view.phase == "meld":
                await pilot.press("d")
                await wait_for(pilot, lambda old=view: table.view is not old)
                after = table.view
                assert after is not None
                if after.deal == view.deal and after.phase in ("draw", "meld"):
                    assert after.hand_counts[view.seat or 0] == before
        log = table.log_view.plain_text
        assert "You drew from the stock, discarded " in log  # one line per turn
        await pilot.press("q", "y")
    assert app.return_code == 0


async def test_a_restarted_client_is_back_at_its_game() -> None:
    first = RummyApp(player_name="Ann", local=True, server_options=FAST)
    async with first.run_test() as pilot:
        table = await at_the_table(pilot, first)
        await wait_for(pilot, lambda: table.view is not None and table.view.my_turn)
        await pilot.press("s")  # a move the server stores, so the game is under way
        await wait_for(pilot, lambda: table.view is not None and table.view.phase == "meld")
        hand = set(table.view.hand or ())  # type: ignore[union-attr]
        await pilot.press("home", "shift+right", "end", "shift+left")  # the player's own order
        order = table.hand.order
        table_id = first.session.table_id
        await pilot.press("q", "y")
    second = RummyApp(player_name="Ann", local=True, server_options=FAST)
    async with second.run_test() as pilot:
        await wait_for(pilot, lambda: hand_drawn(second))
        table = second.screen
        assert isinstance(table, TableScreen) and table.view is not None
        assert second.session.table_id == table_id
        assert set(table.view.hand or ()) == hand  # the same cards: the same game
        assert table.view.my_turn and table.view.phase == "meld"  # still our turn to meld or discard
        assert table.hand.order == order  # as the player left it: every card at its number
        log = table.log_view.plain_text
        assert "Deal 1 of 2 begins." in log and "You drew from the stock." in log  # the deal so far
        assert log.endswith("You are back at your seat: the deal so far is above.")


async def test_the_local_game_seats_bots_at_the_levels_asked_for() -> None:
    """``rummy-client --bots easy,normal,hard``: the three bots sit at those levels
    (the hard one thinks in a worker process) and the table shows them."""
    app = RummyApp(player_name="Ann", local=True, server_options=FAST, bot_levels=("easy", "normal", "hard"))
    async with app.run_test() as pilot:
        await at_the_table(pilot, app)
        await wait_for(pilot, lambda: app.session.table is not None and app.session.table.chairs[3].bot)
        assert app.session.table is not None
        assert [c.level for c in app.session.table.chairs] == [None, "easy", "normal", "hard"]
        await pilot.pause()
        assert "hard bot" in screen_text(app)
        await pilot.press("q", "y")
