"""``rummy-client`` with no address: its own server (here in the same process:
``local.InProcess``; the command line forks it, test_local_process.py), three bots, the
table at once; and a restarted client back at the same game (its seat token and
the local server's storage are in the state directory)."""

from __future__ import annotations

from rummy.client.app import HOW_TO_PLAY_OFFERED, RummyApp
from rummy.client.screens.modals import ConfirmScreen
from rummy.client.screens.table import TableScreen
from rummy.client.widgets.table.hand import HandView
from rummy.engine.cards import is_joker
from tests.client.conftest import screen_text, toast_text
from tests.support import eventually

FAST = {"bot_delay": 0.0, "deal_pause": 0.05}


def table_shown(app: RummyApp) -> bool:
    """The table screen is up (composed) with a game in it."""
    screen = app.screen
    return isinstance(screen, TableScreen) and screen.is_mounted and screen.view is not None


def hand_drawn(app: RummyApp) -> bool:
    """The table screen is up and its hand drawn (the first view waits for the widgets)."""
    screen = app.screen
    return table_shown(app) and bool(screen.query_one(HandView).order)


async def at_the_table(pilot, app: RummyApp) -> TableScreen:  # type: ignore[no-untyped-def]
    """Wait for the table; the first game against bots offers how to play: not now."""
    offered = lambda: app.store.seen(HOW_TO_PLAY_OFFERED)  # noqa: E731
    await eventually(
        lambda: offered() and (table_shown(app) or isinstance(app.screen, ConfirmScreen)), pause=pilot.pause
    )
    if isinstance(app.screen, ConfirmScreen):
        await eventually(lambda: "New to Persian Rummy?" in screen_text(app), pause=pilot.pause)
        await pilot.press("n")
    await eventually(lambda: table_shown(app), pause=pilot.pause)
    assert isinstance(app.screen, TableScreen)
    return app.screen


async def quit_the_game(pilot, app: RummyApp) -> str:  # type: ignore[no-untyped-def]
    """Quit as a player does: q at the table (ctrl+q over a deal's results), then yes
    when asked. The table asks from a worker, so the question is waited for before
    answering (a "y" pressed before it is up goes to the table), and so is the app's
    exit; a game already over quits at once. Returns the question ("" if none)."""
    await pilot.press("q" if isinstance(app.screen, TableScreen) else "ctrl+q")
    asked = lambda: "Quit during the game?" in screen_text(app)  # noqa: E731
    await eventually(lambda: asked() or app.return_code is not None, pause=pilot.pause)
    question = ""
    if app.return_code is None:
        assert isinstance(app.screen, ConfirmScreen)
        question = app.screen.question
        await pilot.press("y")
    await eventually(lambda: app.return_code is not None, pause=pilot.pause)
    return question


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
            await eventually(our_turn, pause=pilot.pause)
            view = table.view
            assert view is not None
            if view.phase not in ("draw", "meld") or app.screen is not table:
                break
            before = view.hand_counts[view.seat or 0]
            if view.phase == "draw":
                await pilot.press("s" if view.stock_count else "p")
                await eventually(lambda old=view: table.view is not old, pause=pilot.pause)
            view = table.view
            if view is not None and view.my_turn and view.phase == "meld":
                # A Joker is asked about before it goes: d again discards it (the card
                # to discard, the one just drawn, was a Joker in about one run in seven).
                joker = is_joker(table.hand.chosen[0])
                await pilot.press(*("d" * (2 if joker else 1)))
                await eventually(lambda old=view: table.view is not old, pause=pilot.pause)
                after = table.view
                assert after is not None
                if after.deal == view.deal and after.phase in ("draw", "meld"):
                    assert after.hand_counts[view.seat or 0] == before
        log = table.log_view.plain_text
        assert "You drew from the stock, discarded " in log  # one line per turn
        await quit_the_game(pilot, app)
    assert app.return_code == 0


async def test_a_restarted_client_is_back_at_its_game() -> None:
    first = RummyApp(player_name="Ann", local=True, server_options=FAST)
    async with first.run_test() as pilot:
        table = await at_the_table(pilot, first)
        await eventually(lambda: table.view is not None and table.view.my_turn, pause=pilot.pause)
        await pilot.press("s")  # a move the server stores, so the game is under way
        await eventually(lambda: table.view is not None and table.view.phase == "meld", pause=pilot.pause)
        hand = set(table.view.hand or ())  # type: ignore[union-attr]
        await pilot.press("home", "shift+right", "end", "shift+left")  # the player's own order
        order = table.hand.order
        table_id = first.session.table_id
        # It says how to come back: the game against bots waits here (it said "rummy-
        # client or ssh", and ssh is no way back to it).
        question = await quit_the_game(pilot, first)
        assert question.endswith("The game waits: start rummy-client again to play on from here.")
    second = RummyApp(player_name="Ann", local=True, server_options=FAST)
    async with second.run_test() as pilot:
        await eventually(lambda: hand_drawn(second), pause=pilot.pause)
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
        await eventually(
            lambda: app.session.table is not None and app.session.table.chairs[3].bot, pause=pilot.pause
        )
        assert app.session.table is not None
        assert [c.level for c in app.session.table.chairs] == [None, "easy", "normal", "hard"]
        await pilot.pause()
        assert "hard bot" in screen_text(app)
        await quit_the_game(pilot, app)


def toast_rows(app: RummyApp) -> int:
    """How many rows of the screen the toasts cover."""
    return sum("▌" in line for line in screen_text(app).splitlines())


def logged(app: RummyApp) -> str:
    """The table's log, whole, on one line (its notes wrap)."""
    assert app.table_screen is not None
    return " ".join(app.table_screen.log_view.plain_text.split())


async def test_a_saved_game_says_it_goes_on_with_its_own_bots_when_others_are_asked_for() -> None:
    """``rummy-client --bots hard`` with a game against normal bots saved: it goes on
    with its normal bots (giving it up unasked would lose it), and says so, and how to
    have hard bots; asked for with the levels it has, or not asked for, nothing is said."""
    first = RummyApp(player_name="Ann", local=True, server_options=FAST)
    async with first.run_test() as pilot:
        await at_the_table(pilot, first)
        await quit_the_game(pilot, first)
    for levels, asked, said in (
        (("hard", "hard", "hard"), True, "--new --bots hard"),
        (("easy", "normal", "hard"), True, "--new --bots easy,normal,hard"),
        (("normal", "normal", "normal"), True, None),
        (("normal", "normal", "normal"), False, None),
    ):
        app = RummyApp(
            player_name="Ann", local=True, server_options=FAST, bot_levels=levels, bots_asked=asked
        )
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await eventually(lambda app=app: hand_drawn(app), pause=pilot.pause)
            assert app.session.table is not None
            assert [c.level for c in app.session.table.chairs] == [None, "normal", "normal", "normal"]
            if said is not None:
                await eventually(lambda app=app: "Your saved game" in screen_text(app), pause=pilot.pause)
                assert "It keeps its normal bots: the log says how" in toast_text(app)
                assert toast_rows(app) <= 5  # (the whole sentence in it took 8 rows at 80x24)
                log = logged(app)
                assert "goes on with the normal bots it began with" in log and said in log
            else:
                await pilot.pause()
                assert "Your saved game" not in screen_text(app)
            await quit_the_game(pilot, app)


async def test_a_saved_game_says_it_goes_on_under_its_own_name_when_another_is_asked_for() -> None:
    """Played in tmux: a game begun as "root", run again with ``--name Ann``, went on
    as "root" with not a word why. The chair keeps the name it was taken with (the
    saved game is not given up unasked): it says so, and how to play as Ann."""
    first = RummyApp(player_name="root", local=True, server_options=FAST)
    async with first.run_test() as pilot:
        await at_the_table(pilot, first)
        await quit_the_game(pilot, first)
    for name, said in (("Ann", True), ("root", False)):
        app = RummyApp(player_name=name, local=True, server_options=FAST)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await eventually(lambda app=app: hand_drawn(app), pause=pilot.pause)
            if said:
                await eventually(lambda app=app: "Your saved game" in screen_text(app), pause=pilot.pause)
                assert "It keeps the name root: the log says how" in toast_text(app)
                assert toast_rows(app) <= 5  # (the whole sentence in it took 8 rows at 80x24)
                log = logged(app)
                assert "This saved game goes on as root, the name it began with." in log
                assert "--new --name Ann" in log
            else:
                await pilot.pause()
                assert "Your saved game" not in screen_text(app)
            await quit_the_game(pilot, app)


async def test_r3_1_the_game_against_bots_waits_at_a_deals_end_for_its_player() -> None:
    """Played in tmux: deal 2 of the game against bots began by itself, 15 s into the
    player's reading of deal 1's scores. Its server has no such pause: at a deal's end
    it sets no countdown, and the next deal begins when the player says ready."""
    app = RummyApp(player_name="Ann", local=True, server_options={"bot_delay": 0.0})
    async with app.run_test(size=(100, 32)) as pilot:
        table = await at_the_table(pilot, app)

        def stopped() -> bool:  # at a deal's end, or our turn (and no move under way)
            v = table.view
            return v is not None and (v.phase == "deal_over" or (v.my_turn and app.move_request is None))

        for _ in range(200):  # a deal is some 10-20 turns of ours: draw (or pass), discard
            await eventually(stopped, pause=pilot.pause)
            view = table.view
            assert view is not None
            if view.phase == "deal_over":
                break
            key = "d" if view.phase == "meld" else "s" if view.stock_count else "p"
            # A Joker is asked about before it goes: d again discards it.
            joker = key == "d" and is_joker(table.hand.chosen[0])
            await pilot.press(*(key * (2 if joker else 1)))
            await eventually(lambda old=view: table.view is not old, pause=pilot.pause)
        assert table.view is not None and table.view.phase == "deal_over"
        said = "Deal 2 starts when you are ready (n): the table waits for you."
        await eventually(lambda: said in screen_text(app), pause=pilot.pause)
        assert table.timer is None or table.timer.kind != "next_deal"  # no countdown told
        assert "The next deal starts in" not in str(table.board.prompt.content)  # nor shown
        await pilot.press("n")
        await eventually(lambda: table.view is not None and table.view.deal == 2, pause=pilot.pause)
        await quit_the_game(pilot, app)


async def test_the_first_game_waits_for_the_answer_to_the_offer_of_how_to_play() -> None:
    """Played in tmux: the bots played on under "New to Persian Rummy?" (and under how to
    play, when read), and a new player came back to a deal some moves in. The first
    game is dealt only once the offer is answered and how to play closed."""
    from rummy.client.screens.help import HelpScreen

    app = RummyApp(player_name="Ann", local=True, server_options={"bot_delay": 0.0})
    async with app.run_test(size=(100, 32)) as pilot:
        await eventually(lambda: "New to Persian Rummy?" in screen_text(app), pause=pilot.pause)
        await eventually(lambda: app.session.table is not None, pause=pilot.pause)  # its table and bots
        await eventually(
            lambda: sum(c.name is not None for c in app.session.table.chairs) == 4,  # type: ignore[union-attr]
            pause=pilot.pause,
        )
        for _ in range(20):  # bots at full speed would have played by now
            await pilot.pause(0.02)
        assert app.session.table.status == "waiting" and app.table_screen.view is None  # type: ignore[union-attr]
        await pilot.press("y")  # read it
        await eventually(lambda: isinstance(app.screen, HelpScreen), pause=pilot.pause)
        for _ in range(20):
            await pilot.pause(0.02)
        assert app.table_screen.view is None  # type: ignore[union-attr]
        await pilot.press("escape")  # read: back to the table, where the game is dealt now
        await eventually(lambda: table_shown(app), pause=pilot.pause)
        assert isinstance(app.screen, TableScreen)
        await quit_the_game(pilot, app)


async def test_a_first_game_left_under_the_offer_starts_when_the_client_comes_back() -> None:
    """Quit while the offer of how to play is open: the saved table has its bots but no
    game yet. The next start takes the chair back and starts it (the offer is not made
    again)."""
    first = RummyApp(player_name="Ann", local=True, server_options=FAST)
    async with first.run_test() as pilot:
        await eventually(lambda: isinstance(first.screen, ConfirmScreen), pause=pilot.pause)
        await eventually(lambda: first.remembered_token() is not None, pause=pilot.pause)
        await pilot.press("ctrl+q")
        await eventually(lambda: first.return_code is not None, pause=pilot.pause)
    second = RummyApp(player_name="Ann", local=True, server_options=FAST)
    async with second.run_test() as pilot:
        await eventually(lambda: hand_drawn(second), pause=pilot.pause)
        assert not isinstance(second.screen, ConfirmScreen)
        await quit_the_game(pilot, second)
