"""The table screen, driven by keys and clicks as a player would (Pilot).

Each test sets up a real engine game (seeded, or a hand-built position), plays
through the screen, and checks what the player sees and which move went out.
"""

from __future__ import annotations

from textual.widgets import Static

from rummy.client.commands import screen_actions
from rummy.client.messages import PlayAgainRequested
from rummy.client.screens.modals import ChooseScreen, ConfirmScreen, HelpScreen
from rummy.client.screens.results import DealEndScreen, GameEndScreen
from rummy.client.screens.table import TableScreen
from rummy.client.widgets.feed import Feed
from rummy.client.widgets.table.hand import HandView
from rummy.client.widgets.table.pile import DiscardPileView
from rummy.engine import (
    DealResult,
    Discard,
    DrawStock,
    Game,
    LayOff,
    MeldMove,
    Pass,
    TakeDiscard,
    TeamScore,
    card_text,
)
from rummy.engine.positions import c, cards, position
from tests.client.conftest import screen_text
from tests.client.harness import TableHarness

OTHERS = ["2d 3d 4d 5d 6d 7d", "2s 3s 4s 5s 6s 7s", "3c 4c 5c 6c 7c Ac"]


def meld_position(hand: str, melds: list = (), discard: str = "Kd", **kw: object) -> Game:  # type: ignore[assignment]
    """South (seat 0) holds ``hand`` in the meld part of the turn."""
    return position([hand, *OTHERS], discard=discard, melds=melds, current=0, phase="meld", **kw)


def log_text(app: TableHarness) -> str:
    """The log of moves, whole (the screen shows its last lines)."""
    return app.table.query_one("#log", Feed).plain_text


async def pick(pilot, app: TableHarness, *card_texts: str) -> None:  # type: ignore[no-untyped-def]
    """Select cards by their number keys, as a player would."""
    hand = app.table.query_one(HandView)
    for t in card_texts:
        index = hand.order.index(c(t))
        await pilot.press("1234567890"[index])


async def test_draw_from_the_stock_with_s() -> None:
    """R4.1: s draws the top card of the stock; the turn moves on to its meld part."""
    app = TableHarness()
    async with app.run_test() as pilot:
        assert "Your turn: s draws from the stock" in screen_text(app)
        await pilot.press("s")
        assert app.sent == [DrawStock()]
        text = screen_text(app)
        assert "8 cards  to meld or discard" in text
        assert "You drew from the stock." in log_text(app)
        assert "m melds the selected cards" in text


async def test_discard_ends_the_turn_and_the_bots_play_on() -> None:
    """R4.3: d discards the card under the cursor (the card just drawn); others play."""
    app = TableHarness()
    async with app.run_test() as pilot:
        await pilot.press("s")
        drawn = app.game.hands[0][-1]
        hand = app.table.query_one(HandView)
        assert hand.current_card == drawn  # the cursor jumps to the new card
        await pilot.press("d")
        assert app.sent[-1] == Discard(drawn)
        assert f"You discarded {card_text(drawn)}." in log_text(app)
        assert app.game.current == 0 and app.game.phase == "draw"  # the bots played their turns
        assert len(hand.order) == 7


async def test_select_with_number_keys_then_meld() -> None:
    """R4.2, R5.2: number keys select cards; m melds them; the meld shows with its team."""
    app = TableHarness(meld_position("7h 8h 9h 2c Qs"), bots=False)
    async with app.run_test() as pilot:
        await pick(pilot, app, "7h", "8h", "9h")
        assert "Meld ready: 7♥ 8♥ 9♥" in screen_text(app)
        await pilot.press("m")
        assert app.sent == [MeldMove(tuple(cards("7h 8h 9h")))]
        text = screen_text(app)
        assert "You melded 7♥ 8♥ 9♥ (meld 0)." in log_text(app)
        assert " 0 S  7♥ 8♥ 9♥" in text  # under N–S, laid by South


async def test_space_and_arrows_select_too() -> None:
    """The arrow keys move the cursor and space selects: the selected card is lifted."""
    app = TableHarness(meld_position("7h 8h 9h 2c Qs"), bots=False)
    async with app.run_test() as pilot:
        hand = app.table.query_one(HandView)
        await pilot.press("home", "right", "space")
        assert hand.selected == {hand.order[1]}
        await pilot.press("space")
        assert hand.selected == set()
        await pilot.press("space", "escape")
        assert hand.selected == set()


async def test_a_refused_meld_shows_the_engine_sentence() -> None:
    """A move the rules refuse changes nothing and shows the refusal in words."""
    app = TableHarness(meld_position("7h 8h 9h 2c Qs"), bots=False)
    async with app.run_test() as pilot:
        await pick(pilot, app, "2c", "7h", "Qs")
        await pilot.press("m")
        assert "Refused: Those cards do not make a meld." in log_text(app)
        assert sorted(app.game.hands[0]) == sorted(cards("7h 8h 9h 2c Qs"))


async def test_lay_off_asks_which_meld_when_several_fit() -> None:
    """R5.4: the 8♥ fits the run 5♥6♥7♥ and the set of 8s: the player chooses."""
    game = meld_position("8h 2h", melds=[("5h 6h 7h", 1), ("8c 8d 8s", 2)], discard="Kd")
    app = TableHarness(game, bots=False)
    async with app.run_test() as pilot:
        await pick(pilot, app, "8h")
        await pilot.press("l")
        assert isinstance(app.screen, ChooseScreen)
        text = screen_text(app)
        assert "Bob's run of hearts (meld 0)" in text and "Cyd's set of 8s (meld 1)" in text
        await pilot.press("2")
        assert app.sent == [LayOff(1, c("8h"))]
        assert "You laid off 8♥ on Cyd's meld 1." in log_text(app)


async def test_lay_off_on_an_opponents_meld_shows_who_laid_it() -> None:
    """R5.5: a card laid off on an opponent's meld is marked with its layer."""
    game = meld_position("8h 2c", melds=[("5h 6h 7h", 1)])
    app = TableHarness(game, bots=False)
    async with app.run_test() as pilot:
        await pick(pilot, app, "8h")
        await pilot.press("l")  # one meld fits: no question
        assert app.sent == [LayOff(0, c("8h"))]
        text = screen_text(app)
        assert "0 W  5♥ 6♥ 7♥ 8♥/S" in text  # the meld stays with E–W, the 8♥ marked S
        assert "on  0: 8♥/S" in text  # and N–S's column lists the card it scores for them


async def test_clicking_a_meld_lays_the_selected_card_off() -> None:
    """The mouse: with one card chosen, a click on a meld lays it off there."""
    game = meld_position("8h 2c", melds=[("5h 6h 7h", 1), ("8c 8d 8s", 2)])
    app = TableHarness(game, bots=False)
    async with app.run_test() as pilot:
        await pick(pilot, app, "8h")
        await pilot.click("#melds-0", offset=(4, 1))  # N–S column, first meld line: Cyd's 8s
        assert app.sent == [LayOff(1, c("8h"))]


async def test_take_from_the_pile_offers_each_use_of_the_target_card() -> None:
    """R4.1: taking the 9♥ needs a use for it; with two uses the player chooses."""
    game = position(["7h 8h 9s 9d 2c", *OTHERS], discard="Kd 9h", current=0, phase="draw")
    app = TableHarness(game, bots=False)
    async with app.run_test() as pilot:
        await pilot.press("t")
        assert isinstance(app.screen, ChooseScreen)
        text = screen_text(app)
        assert "Take 9♥, meld 9♦ 9♥ 9♠" in text and "Take 9♥, meld 7♥ 8♥ 9♥" in text
        await pilot.press("escape")  # changed my mind: nothing is sent
        assert app.sent == []
        await pilot.press("t", "2")
        assert len(app.sent) == 1 and isinstance(app.sent[0], TakeDiscard)
        assert "You took 9♥ from the discard pile" in log_text(app)


async def test_selected_cards_narrow_the_use_of_a_take() -> None:
    """R4.1: with the 9♠ selected, the take makes the set at once, no question asked."""
    game = position(["7h 8h 9s 9d 2c", *OTHERS], discard="Kd 9h", current=0, phase="draw")
    app = TableHarness(game, bots=False)
    async with app.run_test() as pilot:
        await pick(pilot, app, "9s")
        await pilot.press("t")
        assert app.sent == [TakeDiscard(1, tuple(sorted(cards("9d 9h 9s"))), None)]


async def test_a_card_with_no_use_cannot_be_taken() -> None:
    """R4.1 ruling: no take without a use of the target card; the client says why."""
    game = position(["7h 8h 2c", *OTHERS], discard="9h Kd", current=0, phase="draw")
    app = TableHarness(game, bots=False)
    async with app.run_test(notifications=True) as pilot:
        await pilot.press("t")
        await pilot.pause()
        assert app.sent == []
        assert any("cannot be used now" in n.message for n in app._notifications)


async def test_taking_deeper_takes_every_card_above() -> None:
    """R4.1: left moves the pile's cursor down; the take goes from there to the top."""
    game = position(["7h 8h 2c", *OTHERS], discard="9h Kd Qd", current=0, phase="draw")
    app = TableHarness(game, bots=False)
    async with app.run_test() as pilot:
        await pilot.press("tab")
        pile = app.table.query_one(DiscardPileView)
        assert pile.has_focus and pile.cursor == 2
        await pilot.press("left", "left", "enter")
        assert app.sent == [TakeDiscard(0, tuple(cards("7h 8h 9h")), None)]
        assert sorted(app.game.hands[0]) == sorted(cards("2c Kd Qd"))


async def test_clicking_a_pile_card_takes_from_it() -> None:
    """The mouse: a click on a card of the discard pile takes from that card."""
    game = position(["7h 8h 2c", *OTHERS], discard="9h Kd Qd", current=0, phase="draw")
    app = TableHarness(game, bots=False)
    async with app.run_test() as pilot:
        await pilot.click(DiscardPileView, offset=(1 + 14, 1))  # under the top border: the first card
        assert app.sent == [TakeDiscard(0, tuple(cards("7h 8h 9h")), None)]


async def test_clicking_a_hand_card_selects_it() -> None:
    app = TableHarness(meld_position("7h 8h 9h 2c Qs"), bots=False)
    async with app.run_test() as pilot:
        hand = app.table.query_one(HandView)
        await pilot.click(HandView, offset=(1 + 4 * 2 + 1, 1))
        assert hand.selected == {hand.order[2]}


async def test_going_out_asks_first() -> None:
    """R4.4: a meld that empties the hand ends the deal: the client asks before."""
    app = TableHarness(meld_position("7h 8h 9h"), bots=False)
    async with app.run_test() as pilot:
        await pick(pilot, app, "7h", "8h", "9h")
        await pilot.press("m")
        assert isinstance(app.screen, ConfirmScreen)
        assert "you go out and the deal ends now" in screen_text(app)
        await pilot.press("n")
        assert app.sent == []
        await pilot.press("m", "y")
        await pilot.pause()
        assert app.sent == [MeldMove(tuple(cards("7h 8h 9h")))]
        assert isinstance(app.screen, DealEndScreen)


async def test_pass_only_when_the_stock_is_empty() -> None:
    """R6.1: with the stock empty p passes; with cards in the stock p does nothing."""
    game = position(["7h 2c", *OTHERS], current=0, phase="draw", rest_to="discard")
    app = TableHarness(game, bots=False)
    async with app.run_test() as pilot:
        text = screen_text(app)
        assert "The stock is empty" in text and " p Pass" in text and "s Draw" not in text
        await pilot.press("s")
        assert app.sent == []
        await pilot.press("p")
        assert app.sent == [Pass()]
    app = TableHarness(bots=False)
    async with app.run_test() as pilot:
        await pilot.press("p")
        assert app.sent == []
        assert " p Pass" not in screen_text(app)


async def test_hints_mark_what_can_be_played() -> None:
    """h marks the cards of every legal meld or lay-off, from the engine's legal moves."""
    game = meld_position("7h 8h 9h 2c Ad", melds=[("Jd Qd Kd", 1)], discard="Kc")  # A♦ extends the run
    app = TableHarness(game, bots=False)
    async with app.run_test() as pilot:
        hand = app.table.query_one(HandView)
        assert hand.hints == set()
        await pilot.press("h")
        assert hand.hints == set(cards("7h 8h 9h Ad"))
        assert "•" in screen_text(app)
        await pilot.press("h")
        assert hand.hints == set()


async def test_sort_by_rank_and_own_order() -> None:
    """o sorts by rank instead of suit; shift+arrows (or < >) make an own order."""
    app = TableHarness(meld_position("7h 8h 9h 2c Qs"), bots=False)
    async with app.run_test() as pilot:
        hand = app.table.query_one(HandView)
        assert hand.order == tuple(cards("2c 7h 8h 9h Qs"))
        await pilot.press("o")
        assert hand.order == tuple(cards("2c 7h 8h 9h Qs"))  # the same here, by rank
        await pilot.press("home", "shift+right")
        assert hand.order == tuple(cards("7h 2c 8h 9h Qs")) and hand.sort_mode == "own"
        await pilot.press("greater_than_sign")
        assert hand.order == tuple(cards("7h 8h 2c 9h Qs"))


async def test_help_shows_every_key() -> None:
    """? lists every key of the table screen and of the hand."""
    app = TableHarness()
    async with app.run_test(size=(100, 60)) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        help_text = app.screen.query_one(Static).render()
        key_column = {line[2:24].strip() for line in str(help_text).splitlines()}
        keys = {b.key.split(",")[0].replace("question_mark", "?") for b in TableScreen.BINDINGS}
        for key in keys:
            assert any(key in column.split(" / ") or key == column.split(" ")[0] for column in key_column), (
                key
            )
        text = screen_text(app)
        for words in ("shift+left/right", "1 … 9, 0", "space", "ctrl+p", "escape"):
            assert words in text
        await pilot.press("escape")
        assert isinstance(app.screen, TableScreen)


async def test_command_palette_offers_the_actions_that_apply() -> None:
    """Every action is in the command palette; choosing one plays it."""
    app = TableHarness()
    async with app.run_test() as pilot:
        titles = [title for title, _, _ in screen_actions(app.screen)]
        assert {"Draw", "Take", "Hints", "Sort", "Chat", "Keys", "Quit"} <= set(titles)
        assert "Discard" not in titles  # not in the draw part of the turn
        await pilot.press("ctrl+p")
        await pilot.press(*"Draw")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert app.sent == [DrawStock()]


async def test_quit_during_a_game_asks_first() -> None:
    app = TableHarness()
    async with app.run_test() as pilot:
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmScreen)
        assert "Your seat is kept for you" in screen_text(app)
        await pilot.press("n")
        assert isinstance(app.screen, TableScreen)
        await pilot.press("q", "y")
        await pilot.pause()
    assert app.return_code == 0


async def test_chat_is_sent_and_shown_as_plain_text() -> None:
    """c opens the chat line; markup typed there shows as the characters typed."""
    app = TableHarness()
    async with app.run_test() as pilot:
        await pilot.press("c", *"hi [b]all[/b]", "enter")
        assert app.chat == ["hi [b]all[/b]"]
        assert "Ann: hi [b]all[/b]" in screen_text(app)
        assert app.table.query_one(HandView).has_focus  # back to the cards


async def test_watching_shows_no_hand_and_no_actions() -> None:
    """A spectator sees the table (R9.1) but no hand (R9.2) and cannot move."""
    app = TableHarness(seat=None)
    async with app.run_test() as pilot:
        text = screen_text(app)
        assert "You are watching: " in text
        assert "(no cards in hand)" in text
        await pilot.press("s")
        assert app.sent == []


async def test_deal_end_shows_every_hand_and_the_scores() -> None:
    """R7: at a deal's end every hand is shown, and each team's score item by item."""
    game = meld_position("7h 8h 9h", melds=[("Jc Jd Js Jh", 1)])
    app = TableHarness(game, bots=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await pick(pilot, app, "7h", "8h", "9h")
        await pilot.press("m", "y")
        await pilot.pause()
        assert isinstance(app.screen, DealEndScreen)
        text = screen_text(app)
        result = app.game.results[0]
        a, b = result.scores
        assert "Deal 1 is over: You went out." in text
        for label, x, y in (
            ("Cards laid", a.laid, b.laid),
            ("Doubled fours", a.doubled_fours, b.doubled_fours),
            ("Cards in hand", a.in_hand, b.in_hand),
            ("Going-out bonus", a.going_out, b.going_out),
            ("Deal total", a.total, b.total),
        ):
            assert f"{label:<22}{x:>8}{y:>8}" in text
        assert (a.laid, b.doubled_fours, a.going_out) == (24, 40, 25)  # R7.1, R7.4, R7.3
        assert "Bob" in text and "2♦ 3♦ 4♦ 5♦ 6♦ 7♦" in text  # West's hand, shown to all
        await pilot.press("n")  # ready for the next deal
        await pilot.pause()
        assert app.game.deal == 2
        assert "Deal 2 of 2 begins." in log_text(app)


async def test_game_end_shows_the_winner_and_offers_another_game() -> None:
    """R8.1: after the second deal, the totals per deal and the winner; a asks for another game."""
    game = meld_position("7h 8h 9h", deal=2)
    first = DealResult(
        1, "passes", None, ((), (), (), ()), (TeamScore(30, 0, -10, 0), TeamScore(50, 0, -5, 0))
    )
    game.results = [first]
    app = TableHarness(game, bots=False)
    posted: list[object] = []
    async with app.run_test(size=(100, 40), message_hook=posted.append) as pilot:
        await pick(pilot, app, "7h", "8h", "9h")
        await pilot.press("m", "y")
        await pilot.pause()
        assert game.is_over
        assert isinstance(app.screen, GameEndScreen)
        a, b = game.totals()
        second = game.results[1].scores
        assert (a, b) == (20 + second[0].total, 45 + second[1].total)
        text = screen_text(app)
        assert f"{'Deal 1':<22}{20:>8}{45:>8}" in text
        assert f"{'Total':<22}{a:>8}{b:>8}" in text
        winner = "N–S win" if a > b else "E–W win"
        assert f"{winner}, {max(a, b)} to {min(a, b)}" in text
        assert ("You win!" if a > b else "You lose.") in text
        await pilot.press("a")
        await pilot.pause()
        assert any(isinstance(m, PlayAgainRequested) for m in posted)


async def test_tab_goes_round_and_the_melds_scroll_by_keyboard() -> None:
    """With many melds at 80x24 the melds scroll with the arrow keys once focused (tab)."""
    melds = [(f"{r}c {r}d {r}h", 1) for r in (2, 3, 4, 5, 6, 7, 8)]
    others = ["Js Qs", "Jd Qd", "Kc Kd"]
    game = position(["9s 10s 2s", *others], melds=melds, discard="Ah", current=0, phase="meld")
    app = TableHarness(game, bots=False)
    async with app.run_test() as pilot:
        melds_view = app.table.query_one("#melds")
        assert melds_view.max_scroll_y > 0  # more melds than rows
        await pilot.press("tab", "tab")
        assert melds_view.has_focus
        await pilot.press("down", "down")
        assert melds_view.scroll_y == 2
        await pilot.press("tab", "tab", "tab")
        assert app.table.query_one(HandView).has_focus  # round again: log, chat, hand
        await pilot.press("tab", "escape")
        assert app.table.query_one(HandView).has_focus
