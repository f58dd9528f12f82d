"""The table screen, driven by keys and clicks as a player would (Pilot).

Each test sets up a real engine game (seeded, or a hand-built position), plays
through the screen, and checks what the player sees and which move went out.
"""

from __future__ import annotations

import re
import time
from itertools import pairwise

import pytest
from textual.command import CommandPalette
from textual.widgets import Static

from rummy.client.commands import screen_actions
from rummy.client.describe import event_line
from rummy.client.messages import HandOrdered, PlayAgainRequested, ReadyForNextDeal
from rummy.client.model import SeatInfo, Seats, TurnTimer
from rummy.client.screens.help import HOW_TO_PLAY, MARKDOWN_WIDTH, HelpScreen, reflow
from rummy.client.screens.modals import ChooseScreen, ConfirmScreen
from rummy.client.screens.results import DealEndScreen, GameEndScreen
from rummy.client.screens.table import TableScreen
from rummy.client.widgets.keys import KeyBar
from rummy.client.widgets.table.faces import RECENT
from rummy.client.widgets.table.hand import HandView, sort_cards
from rummy.client.widgets.table.pile import DiscardPileView
from rummy.engine import (
    DealResult,
    Discard,
    DiscardTaken,
    DrawStock,
    Game,
    LaidOff,
    LayOff,
    Meld,
    NewMeld,
    Pass,
    TakeDiscard,
    TeamScore,
    card_text,
    view_for,
)
from rummy.engine.cards import PACK
from rummy.engine.positions import c, cards, position
from rummy.rulebook import rule_book
from tests.client.conftest import screen_text, toast_text
from tests.client.harness import LobbyHarness, TableHarness
from tests.support import eventually

OTHERS = ["2d 3d 4d 5d 6d 7d", "2s 3s 4s 5s 6s 7s", "3c 4c 5c 6c 7c Ac"]


def meld_position(hand: str, melds: list = (), discard: str = "Kd", **kw: object) -> Game:  # type: ignore[assignment]
    """South (seat 0) holds ``hand`` in the meld part of the turn."""
    return position([hand, *OTHERS], discard=discard, melds=melds, current=0, phase="meld", **kw)


def log_text(app: TableHarness) -> str:
    """The log of moves, whole (the screen shows its last lines)."""
    return app.table.log_view.plain_text


def hand_of(app: TableHarness) -> HandView:
    return app.table.hand


def panel(app: TableHarness, place: str) -> str:
    """A seat's panel as the player reads it."""
    widget = app.table.board.seats[place]
    return "\n".join(
        line.plain for line in widget.lines(widget.content_size.width, widget.content_size.height)
    )


async def pick(pilot, app: TableHarness, *card_texts: str) -> None:  # type: ignore[no-untyped-def]
    """Select cards by their number keys, as a player would."""
    hand = hand_of(app)
    for t in card_texts:
        index = hand.order.index(c(t))
        await pilot.press("1234567890"[index])


def going_out() -> Game:
    """South holds 7♥ 8♥ 9♥, to meld and go out; West has laid four Jacks (R7.4)."""
    return meld_position("7h 8h 9h", melds=[("Jc Jd Js Jh", 1)])


async def go_out(pilot, app: TableHarness) -> None:  # type: ignore[no-untyped-def]
    """Meld the whole hand and say yes: the deal ends."""
    await pick(pilot, app, "7h", "8h", "9h")
    await pilot.press("m", "y")
    await pilot.pause()


async def test_draw_from_the_stock_with_s() -> None:
    """R4.1: s draws the top card of the stock; the turn moves on to its meld part."""
    app = TableHarness()
    async with app.run_test() as pilot:
        assert "Your turn: s draws from the stock" in screen_text(app)
        await pilot.press("s")
        assert app.sent == [DrawStock()]
        assert "8 cards" in panel(app, "south") and "to meld or discard" in panel(app, "south")
        assert "You drew from the stock." in log_text(app)
        assert "m melds the selected cards" in screen_text(app)


async def test_the_cursor_goes_to_the_card_just_drawn() -> None:
    """After a draw the cursor is on the new card, so d alone discards it (the
    commonest play with a card of no use); it stayed put, and d threw away card 1."""
    app = TableHarness()
    async with app.run_test() as pilot:
        hand = hand_of(app)
        await pilot.press("s")
        drawn = app.game.hands[0][-1]
        assert hand.current_card == drawn
        await pilot.press("d")
        assert app.sent[-1] == Discard(drawn)


async def test_a_drawn_card_goes_to_the_right_end_marked_new_and_no_number_moves() -> None:
    """The numbers under the cards never change by themselves: the drawn card is put
    at the right end (marked new), not sorted in; the player discards it by its number."""
    app = TableHarness()
    async with app.run_test() as pilot:
        hand = hand_of(app)
        before = hand.order
        await pilot.press("s")
        drawn = app.game.hands[0][-1]
        assert hand.order == (*before, drawn)  # every other card kept its place
        assert hand.fresh == {drawn} and "new" in screen_text(app)
        await pilot.press("8")  # the eighth card: the one just drawn
        await pilot.press("d")
        assert app.sent[-1] == Discard(drawn)
        assert f"You drew from the stock, discarded {card_text(drawn)}." in log_text(app)
        assert app.game.current == 0 and app.game.phase == "draw"  # the bots played their turns
        assert hand.order[:7] == before  # still in the player's order


async def test_select_with_number_keys_then_meld() -> None:
    """R4.2, R5.2: number keys select cards; m melds them; the meld shows with its team,
    numbered from 1."""
    app = TableHarness(meld_position("7h 8h 9h 2c Qs"), bots=False)
    async with app.run_test() as pilot:
        await pick(pilot, app, "7h", "8h", "9h")
        assert "Meld ready: 7♥ 8♥ 9♥. m melds them." in screen_text(app)  # (not "or l, d": one card each)
        await pilot.press("m")
        assert app.sent == [NewMeld(tuple(cards("7h 8h 9h")))]
        assert "You melded 7♥ 8♥ 9♥ (meld 1)." in log_text(app)
        assert " 1 │ 7♥│ 8♥│ 9♥│" in screen_text(app)  # in the N–S column, as small faces


async def test_space_and_arrows_select_too() -> None:
    """The arrow keys move the cursor and space selects: the selected card is lifted."""
    app = TableHarness(meld_position("7h 8h 9h 2c Qs"), bots=False)
    async with app.run_test() as pilot:
        hand = hand_of(app)
        await pilot.press("home", "right", "space")
        assert hand.selected == {hand.order[1]}
        assert [f.raised for f in hand.faces()] == [False, True, False, False, False]
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
        said = "A set is of one rank (R5.1) and a run of one suit (R5.2): 2♣ 7♥ Q♠ make no meld."
        assert f"Refused: {said}" in log_text(app)
        assert sorted(app.game.hands[0]) == sorted(cards("7h 8h 9h 2c Qs"))


async def test_m_with_two_cards_selected_says_a_meld_is_three() -> None:
    """Seen in tmux: with 4♥ selected, m said "Select the cards to meld first", as if
    nothing were; the refusal now says what is missing (R5.1, R5.2). With nothing
    selected, m still asks to select the cards."""
    app = TableHarness(meld_position("7h 8h 9h 2c Qs"), bots=False)
    async with app.run_test() as pilot:
        await pilot.press("m")
        assert app.sent == [] and not app.table.hand.selected
        await pick(pilot, app, "7h", "8h")
        await pilot.press("m")
        await pilot.pause()
        assert "Refused: A meld is three cards or more (R5.1, R5.2): 7♥ 8♥ are not enough." in log_text(app)
        assert sorted(app.game.hands[0]) == sorted(cards("7h 8h 9h 2c Qs"))


def test_the_draw_for_partners_says_who_partners_whom() -> None:
    """R2.2: seen in tmux, "Draw for partners: root K♠, Dara 3♣, Mina A♠, Kian 7♠." gave
    the cards alone, and a new player could not tell what they decided (Aces are low
    for this draw only). The line says so, and names the two lowest as partners."""
    from rummy.engine.events import PartnersDrawn
    from rummy.engine.partners import PartnerDraw

    seats = Seats.of([SeatInfo(n) for n in ("Ann", "Bob", "Cyd", "Dee")], 0)
    # Chair c plays from seat c; Cyd (seat 2) drew the Ace, the lowest: the first dealer,
    # partnered with the next lowest, Ann's 3♣ (across the table, seat 0).
    rounds = (((0, c("3c")), (1, c("Ks")), (2, c("As")), (3, c("7s"))),)
    draw = PartnerDraw("draw", rounds, (0, 1, 2, 3), first_dealer=2)
    assert event_line(PartnersDrawn(draw), seats).plain == (  # type: ignore[union-attr]
        "Draw for partners: Ann 3♣, Bob K♠, Cyd A♠, Dee 7♠ (Aces low): the two lowest, Cyd and you,"
        " are partners."
    )


def test_a_lay_off_says_whose_meld_it_was_from_the_players_side() -> None:
    """R5.4: seen in tmux, "You took K♠ ... laid off K♠ on their own meld 7": a player's
    own lay-off on their own meld is "your own"; others' are "their own", "your" or
    the owner's name."""
    seats = Seats.of([SeatInfo(n) for n in ("Ann", "Bob", "Cyd", "Dee")], 0)
    said = lambda seat, owner: event_line(LaidOff(seat, 6, (c("Ks"),), owner), seats).plain  # noqa: E731
    assert said(0, 0) == "You laid off K♠ on your own meld 7."
    assert said(1, 1) == "Bob laid off K♠ on their own meld 7."
    assert said(1, 0) == "Bob laid off K♠ on your meld 7."
    assert said(0, 2) == "You laid off K♠ on Cyd's meld 7."
    watching = Seats.of([SeatInfo(n) for n in ("Ann", "Bob", "Cyd", "Dee")], None)
    assert event_line(LaidOff(0, 6, (c("Ks"),), 0), watching).plain == "Ann laid off K♠ on their own meld 7."


def test_a_take_of_one_card_names_it_once() -> None:
    """R4.1, R9.1: seen watching in tmux, "Vic took Q♣ from the discard pile (Q♣)": the
    cards taken are listed only when there are more than the one named."""
    seats = Seats.of([SeatInfo(n) for n in ("Ann", "Bob", "Cyd", "Dee")], None)
    one = event_line(DiscardTaken(1, 3, (c("Qc"),)), seats)
    assert one is not None and one.plain == "Bob took Q♣ from the discard pile."
    two = event_line(DiscardTaken(1, 2, (c("Qc"), c("5d"))), seats)
    assert two is not None and two.plain == "Bob took Q♣ and 1 more from the discard pile (Q♣ 5♦)."


async def test_lay_off_asks_which_meld_when_several_fit() -> None:
    """R5.4: the 8♥ fits the run 5♥6♥7♥ and the set of 8s: the player chooses."""
    game = meld_position("8h 2h", melds=[("5h 6h 7h", 1), ("8c 8d 8s", 2)], discard="Kd")
    app = TableHarness(game, bots=False)
    async with app.run_test() as pilot:
        await pick(pilot, app, "8h")
        await pilot.press("l")
        assert isinstance(app.screen, ChooseScreen)
        text = screen_text(app)
        assert "Bob's run of hearts (meld 1)" in text and "Cyd's set of 8s (meld 2)" in text
        await pilot.press("2")
        assert app.sent == [LayOff(1, c("8h"))]
        assert "You laid off 8♥ on Cyd's meld 2." in log_text(app)


async def test_lay_off_on_an_opponents_meld_shows_whose_card_it_is() -> None:
    """R5.5: a card laid off on an opponent's meld stays in that meld, marked as the
    other team's (underlined, with a line saying what that means)."""
    game = meld_position("8h 2c", melds=[("5h 6h 7h", 1)])
    app = TableHarness(game, bots=False)
    async with app.run_test() as pilot:
        await pick(pilot, app, "8h")
        await pilot.press("l")  # one meld fits: no question
        assert app.sent == [LayOff(0, c("8h"))]
        text = screen_text(app)
        assert "│   1 │ 5♥│ 6♥│ 7♥│ 8♥│" in text  # the meld stays with E–W, in its column
        assert "underlined: laid off by the other team, and scores for it (R5.5)" in text
        lines = app.table.melds.lines()
        eight = next(
            span for line in lines for span in line.spans if line.plain[span.start : span.end].strip() == "8♥"
        )
        assert "underline" in str(eight.style)


async def test_l_with_two_cards_selected_says_one_at_a_time() -> None:
    """R5.4: seen in tmux, 8♣ and Q♣ selected (both fit Kian's run), l said "Select one
    card to lay off", read as if none were selected."""
    game = meld_position("8h 4h 2c", melds=[("5h 6h 7h", 1)])
    app = TableHarness(game, bots=False)
    messages: list[str] = []
    async with app.run_test() as pilot:
        app.table.notify = lambda message, **kw: messages.append(message)  # type: ignore[method-assign]
        await pick(pilot, app, "8h", "4h")
        await pilot.press("l")
        await pilot.pause()
        assert app.sent == [] and messages == ["Lay off one card at a time: 2 are selected."]


async def test_waiting_with_no_cards_offers_no_sorting() -> None:
    """R4.5: after discarding the last card, the line said "You can sort (o), reorder
    (<, >)" with nothing in hand to sort."""
    game = position(["", *OTHERS], discard="Kd", current=1)
    app = TableHarness(game, bots=False)
    async with app.run_test() as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "Waiting for Bob (to draw)." in text and "sort" not in text


def prompt_line(app: TableHarness) -> str:
    """The line above the hand (what to do now), whole: at 80 columns it may wrap."""
    return str(app.table.board.prompt.content)


async def test_a_key_of_the_turn_out_of_its_time_says_what_applies() -> None:
    """R4: a turn is draw, meld, discard. Seen in tmux: m before the draw, s after it,
    or any of them in another player's turn did nothing at all, with no word why. The
    line above the hand says it, until the game moves on; no toast."""
    app = TableHarness(position(["7h 8h 9h 2c", *OTHERS], discard="Kd", current=0), bots=False)
    async with app.run_test(notifications=True) as pilot:
        await pilot.press("m")
        assert prompt_line(app) == "First draw (s): a turn is draw, meld, discard (R4)."
        await pilot.press("s")
        assert "First draw" not in prompt_line(app)  # the player drew: it is out of date
        await pilot.press("s")
        said = "You have drawn this turn: now meld (m), lay off (l), or discard (d)"
        assert prompt_line(app).startswith(said)
        await pilot.press("1")  # a card chosen: the line says what it can do instead
        assert "You have drawn" not in prompt_line(app)
        await pilot.press("1", "d")
        await pilot.pause()
        if len(app.sent) == 1:  # the card drawn is a Joker: d asks first, d again discards it
            await pilot.press("d")
            await pilot.pause()
        assert app.game.current == 1 and app.sent == [DrawStock(), Discard(app.sent[-1].card)]
        await pilot.press("d")
        said = prompt_line(app)
        assert said.startswith("It is Bob's turn (to draw): wait for yours.") and "sort (o)" in said
        assert len(app.sent) == 2  # nothing was played
        assert toast_text(app) == ""  # no toast
        await pilot.press("escape", "c")  # not a key of the turn: no word (no chat against bots)
        await pilot.pause()
        assert toast_text(app) == ""
    app = LobbyHarness(position(["7h 8h 9h 2c", *OTHERS], discard="Kd", current=1), bots=False)
    async with app.run_test() as pilot:
        await pilot.press("c", "s", "m", "d", "enter")  # typed in the chat: words, not keys
        await pilot.pause()
        assert app.chat == ["smd"] and "wait for yours" not in prompt_line(app)


async def test_out_of_turn_keys_say_to_wait_only_while_others_play() -> None:
    """Seen in tmux: s, d, m pressed during the bots' turns each put up a toast for
    4 s ("It is Dee's turn (to draw): wait for yours."); they stacked up, and still said
    to wait after the player's own turn had come. The line above the hand says it once,
    and only while that player's turn lasts."""
    # Nothing the others hold melds: none of them goes out before the player's turn.
    junk = ["2d 5s 9c Kh Qd", "3d 6s 10c Ah Jc", "4d 8s Jh Kc 6h"]
    app = TableHarness(position(["7h 8h 9h 2c", *junk], discard="Kd", current=1), bots=False)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press("s", "d", "m", "s", "t")
        await pilot.pause()
        assert screen_text(app).count("wait for yours") == 1 and toast_text(app) == ""
        assert prompt_line(app).startswith("It is Bob's turn (to draw): wait for yours.")
        app.bots = True
        app.play_bots()  # Bob, Cyd and Dee play their turns: the player's comes
        await pilot.pause()
        assert app.game.current == 0 and app.game.phase == "draw"
        assert "wait" not in screen_text(app).lower()
        assert prompt_line(app).startswith("Your turn: s draws from the stock")
        await pilot.press("s")  # and the key works now
        assert app.sent == [DrawStock()]


async def test_a_long_run_shows_whole_at_80x24() -> None:
    """R5.4: a run grows at either end, to thirteen cards. Seen in tmux at 80x24: a run
    of nine framed faces, then of eleven named chips, was cut at its column's edge, its
    highest cards out of sight; the melds are drawn tighter until every card shows."""
    game = meld_position("Kh 9c", melds=[("2h 3h 4h 5h 6h 7h 8h 9h", 1)])
    app = TableHarness(game, bots=False)
    async with app.run_test(size=(80, 24)) as pilot:
        for more in ("10h", "Jh", "Qh"):  # lay off one card after another, as the bots did
            game.melds[0] = Meld.new(0, (*game.melds[0].cards, c(more)), 1)
            app.show()
            await pilot.pause()
            assert all(card_text(x) in melds_text(app) for x in game.melds[0].cards), melds_text(app)
        await pick(pilot, app, "Kh")
        await pilot.press("l")
        await pilot.pause()
        assert app.sent == [LayOff(0, c("Kh"))] and card_text(c("Kh")) in melds_text(app)


def melds_text(app: TableHarness) -> str:
    return "\n".join(line.plain for line in app.table.melds.lines())


async def test_clicking_a_meld_lays_the_selected_card_off() -> None:
    """The mouse: with one card selected, a click on a meld lays it off there."""
    game = meld_position("8h 2c", melds=[("5h 6h 7h", 1), ("8c 8d 8s", 2)])
    app = TableHarness(game, bots=False)
    async with app.run_test() as pilot:
        await pick(pilot, app, "8h")
        melds = app.table.melds
        spot = next(p for p in melds.placed if p.meld_id == 1)  # Cyd's 8s, in the N–S column
        await pilot.click(melds, offset=(1 + spot.start + 1, spot.line))
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


async def test_after_a_take_the_focus_is_back_in_the_hand() -> None:
    """One focus: after taking from the pile (tab there, enter) the number keys select
    in the hand again, and d discards the card the player picked there, never one the
    cursor happened to be on (a player lost a 10♠ that way)."""
    game = position(["10s Js 5h 2c", *OTHERS], discard="Kd Qs", current=0, phase="draw")
    app = TableHarness(game, bots=False)
    async with app.run_test() as pilot:
        hand = hand_of(app)
        await pilot.press("tab")
        assert app.table.pile.has_focus
        await pilot.press("enter")  # the Q♠ with J♠ 10♠: a run
        assert isinstance(app.sent[-1], TakeDiscard) and app.game.phase == "meld"
        assert hand.has_focus
        await pilot.press(str(hand.order.index(c("5h")) + 1), "d")
        assert app.sent[-1] == Discard(c("5h"))


async def test_action_keys_from_the_pile_go_back_to_the_hand_first() -> None:
    """With the focus on the pile and no card selected, d plays nothing: it brings the
    focus back to the hand (where the cursor then shows) and says so."""
    app = TableHarness(meld_position("7h 8h 9h 2c Qs"), bots=False)
    async with app.run_test(notifications=True) as pilot:
        await pilot.press("tab")
        assert app.table.pile.has_focus
        await pilot.press("d")
        assert app.sent == [] and hand_of(app).has_focus
        await pilot.press("tab", "3")  # a number key: the hand's third card, from the pile
        assert hand_of(app).has_focus and hand_of(app).selected == {hand_of(app).order[2]}


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
    messages: list[str] = []
    app = TableHarness(game, bots=False)
    async with app.run_test(notifications=True) as pilot:
        app.table.notify = lambda message, **kw: messages.append(message)  # type: ignore[method-assign]
        assert "t Take" in screen_text(app).splitlines()[-1]  # the 9♥ has a use
        await pilot.press("tab", "end", "enter")  # the player picks the K♦ on top
        await pilot.pause()
        assert app.sent == []
        assert any("The K♦ cannot be used now" in m and "R4.1" in m for m in messages)


async def test_t_takes_from_the_highest_card_with_a_use() -> None:
    """R4.1: when the player comes to draw, the pile's cursor is on the highest card
    that has a use (the take that costs the fewest cards), not on a top card that has
    none: t takes from there at once."""
    game = position(["7h 8h Qs Qc 2c", *OTHERS], discard="9h Jd Qd Kd", current=0, phase="draw")
    app = TableHarness(game, bots=False)
    async with app.run_test() as pilot:
        assert app.table.pile.cursor == 2  # the Q♦; the K♦ above it has no use
        await pilot.press("t")
        assert app.sent == [TakeDiscard(2, tuple(sorted(cards("Qc Qd Qs"))), None)]
        assert sorted(app.game.hands[0]) == sorted(cards("7h 8h 2c Kd"))


async def test_with_no_usable_pile_card_t_is_not_offered_but_still_says_why() -> None:
    """R4.1: when no card of the pile has a use, the line of keys does not offer t
    (the line above says so), and t still explains rather than doing nothing."""
    game = position(["7h 8h 2c", *OTHERS], discard="Kd Js", current=0, phase="draw")
    messages: list[str] = []
    app = TableHarness(game, bots=False)
    async with app.run_test(notifications=True) as pilot:
        app.table.notify = lambda message, **kw: messages.append(message)  # type: ignore[method-assign]
        text = screen_text(app)
        assert "no card of the discard pile can be used" in text
        keys = text.splitlines()[-1]
        assert "s Draw" in keys and "t Take" not in keys
        await pilot.press("t")
        await pilot.pause()
        assert app.sent == []
        assert any("cannot be used now" in m and "R4.1" in m for m in messages)
        messages.clear()
        pile = app.table.pile  # and so does a click on a card of the pile
        first = next(x for x in range(80) if pile.index_at(x, 1) == 0)
        await pilot.click(DiscardPileView, offset=(1 + first + 1, 1))
        await pilot.pause()
        assert app.sent == [] and any("The K♦ cannot be used now" in m for m in messages)


async def test_taking_deeper_takes_every_card_above() -> None:
    """R4.1: left moves the pile's cursor down; the take goes from there to the top."""
    game = position(["7h 8h Qs Qc 2c", *OTHERS], discard="9h Kd Qd", current=0, phase="draw")
    app = TableHarness(game, bots=False)
    async with app.run_test() as pilot:
        await pilot.press("tab")
        pile = app.table.pile
        assert pile.has_focus and pile.cursor == 2
        await pilot.press("left", "left", "enter")
        assert app.sent == [TakeDiscard(0, tuple(cards("7h 8h 9h")), None)]
        assert sorted(app.game.hands[0]) == sorted(cards("Qs Qc 2c Kd Qd"))


async def test_clicking_a_pile_card_takes_from_it() -> None:
    """The mouse: a click on a card of the discard pile takes from that card."""
    game = position(["7h 8h 2c", *OTHERS], discard="9h Kd Qd", current=0, phase="draw")
    app = TableHarness(game, bots=False)
    async with app.run_test() as pilot:
        pile = app.table.pile
        first = next(x for x in range(80) if pile.index_at(x, 1) == 0)
        await pilot.click(DiscardPileView, offset=(1 + first + 1, 1))  # padding, then the 9♥
        assert app.sent == [TakeDiscard(0, tuple(cards("7h 8h 9h")), None)]


@pytest.mark.parametrize("size", [(100, 32), (120, 40)])
async def test_a_long_pile_stays_a_row_of_cards_as_tall_as_the_stock(size: tuple[int, int]) -> None:
    """R4.3: every card of the spread pile can be read and picked. Ten cards are more
    than the stock's faces fit in a row at 100 or 120 columns: they overlap more
    tightly, still framed cards as tall as the stock (not chips), and a click on one
    takes from it."""
    pile_cards = cards("9d Jh 9h 8c Kd Qc 10s 5h Jd Qd")
    game = position(["7h 8h 2c", *OTHERS], discard="9d Jh 9h 8c Kd Qc 10s 5h Jd Qd", current=0, phase="draw")
    app = TableHarness(game, bots=False)
    async with app.run_test(size=size) as pilot:
        pile = app.table.pile
        rows = pile.render().plain.split("\n")
        assert len(rows) == pile.size.height  # the stock's height: the table keeps its shape
        assert rows[0].count("╭") == 1 + 10  # the stock, then ten framed cards
        assert re.findall(r"(?:10|[2-9JQKA])[♣♦♥♠]", rows[1]) == [card_text(x) for x in pile_cards]
        third = next(x for x in range(size[0]) if pile.index_at(x, 1) == 2)
        await pilot.click(DiscardPileView, offset=(1 + third + 1, 1))  # padding, then the 9♥
        assert app.sent == [TakeDiscard(2, tuple(cards("7h 8h 9h")), None)]


@pytest.mark.parametrize("ascii", [False, True])
async def test_a_pile_of_chips_with_hints_keeps_each_line_in_its_width(ascii: bool) -> None:
    """R4.3, R9.1: seen in tmux at 80x24 with hints on and the stock empty, a pile of
    chips whose line ended in a marked card ("Kd*") had that card wrapped to the next
    line, under the stock's "empty", and every later line of the pile moved down a row:
    the pile read out of order. A line of chips, each with its mark, fits its width."""
    game = position(["2c 8c 9h Jh", *OTHERS], discard="7h Js Qd Qc 9c Kd 10c 9s 8s 10h Ks Kc", current=0)
    game.stock.clear()  # (its cards are nowhere: the screen shows only the count)
    app = TableHarness(game, bots=False, ascii=ascii)
    async with app.run_test(size=(80, 24)) as pilot:
        pile = app.table.pile
        pile.hints = frozenset(range(len(game.discard_pile)))  # every card marked
        await pilot.pause()
        rows = pile.render().plain.split("\n")
        assert max(len(row) for row in rows) <= pile.content_size.width, rows
        assert rows[1].startswith("empty")  # the stock's word stays beside the pile's middle
        shown = " ".join(row[7:] for row in rows).replace("*", " ").replace("•", " ").split()
        assert shown == [card_text(x, ascii) for x in game.discard_pile]  # in order


async def test_clicking_a_hand_card_selects_it() -> None:
    app = TableHarness(meld_position("7h 8h 9h 2c Qs"), bots=False)
    async with app.run_test() as pilot:
        hand = hand_of(app)
        await pilot.click(HandView, offset=(1 + 4 * 2 + 2, 2))
        assert hand.selected == {hand.order[2]}


@pytest.mark.parametrize("size", [(100, 32), (120, 40)])
async def test_a_long_hand_keeps_its_height_with_narrower_cards(size: tuple[int, int]) -> None:
    """After a deep take the hand can hold 16 cards, more than fit at the screen's face
    size: the cards get narrower, down to their corner, but stay as tall (the table does
    not jump), every card still reads, and a click on the 15th card selects it."""
    long_hand = "7h 8h 9h 10h Jh Qh Kh Ah 8c 9c 10c Jc Qc Kc 8s 9s"
    short = TableHarness(meld_position("7h 8h 9h 2c Qs"), bots=False)
    async with short.run_test(size=size):
        height = hand_of(short).size.height
    app = TableHarness(meld_position(long_hand), bots=False)
    async with app.run_test(size=size) as pilot:
        hand = hand_of(app)
        assert hand.size.height == height
        rows = hand.render().plain.split("\n")
        assert re.findall(r"(?:10|[2-9JQKA])[♣♦♥♠]", rows[2]) == [card_text(x) for x in hand.order]
        fifteenth = next(x for x in range(size[0]) if hand.index_at(x, 2) == 14)
        await pilot.click(HandView, offset=(1 + fifteenth + 1, 2))  # padding, then the card
        assert hand.selected == {hand.order[14]}


async def test_going_out_asks_first() -> None:
    """R4.4: a meld that empties the hand ends the deal: the client asks before."""
    app = TableHarness(meld_position("7h 8h 9h"), bots=False)
    async with app.run_test() as pilot:
        await pick(pilot, app, "7h", "8h", "9h")
        await pilot.press("m")
        assert isinstance(app.screen, ConfirmScreen)
        assert "you go out and the deal ends now" in screen_text(app)
        # Its keys say what its buttons say, not the table's keys (which wait).
        assert screen_text(app).splitlines()[-1].split() == ["y", "Go", "out", "n", "Not", "yet"]
        await pilot.press("n")
        assert app.sent == []
        await pilot.press("m", "y")
        await pilot.pause()
        assert app.sent == [NewMeld(tuple(cards("7h 8h 9h")))]
        assert isinstance(app.screen, DealEndScreen)


async def test_pass_only_when_the_stock_is_empty() -> None:
    """R6.1: with the stock empty p passes and s says why it cannot draw; with cards in
    the stock p says why it cannot pass (it did nothing, without a word, and a player
    who pressed it was left guessing). Neither sends a move; the line of keys offers
    only the one that applies."""
    game = position(["7h 2c", *OTHERS], current=0, phase="draw", rest_to="discard")
    app = TableHarness(game, bots=False)
    async with app.run_test(notifications=True) as pilot:
        text = screen_text(app)
        assert "The stock is empty" in text and "p Pass" in text and "s Draw" not in text
        await pilot.press("s")
        await eventually(lambda: "Cannot draw" in screen_text(app), pause=pilot.pause)
        assert "(R6.1)" in screen_text(app)  # the toast, wrapped, ends with the rule
        assert app.sent == []
        await pilot.press("p")
        assert app.sent == [Pass()]
    app = TableHarness(position(["7h 2c", *OTHERS], current=0, phase="draw"), bots=False)
    async with app.run_test(notifications=True) as pilot:
        assert app.game.stock  # our turn to draw, from a stock with cards
        await pilot.press("p")
        await eventually(lambda: "Cannot pass" in screen_text(app), pause=pilot.pause)
        assert "Passing is only for when the stock" in screen_text(app)
        assert app.sent == []
        assert "p Pass" not in screen_text(app) and "s Draw" in screen_text(app)
        await pilot.press("s")
        assert app.sent == [DrawStock()]


async def test_an_empty_stock_with_nothing_to_take_offers_only_the_pass() -> None:
    """R6.1: seen in tmux at the end of a deal, the stock empty and no card of the pile
    of use: d said "First take (t) or pass (p)" and s "take from the discard pile (t) or
    pass (p)", sending the player to a t that only says it cannot take."""
    rest = sorted(set(PACK) - set(cards("2c Kd 7s")))
    others = [rest[:18], rest[18:36], rest[36:]]
    app = TableHarness(position(["2c", *others], discard="Kd 7s", current=0), bots=False)
    async with app.run_test(notifications=True) as pilot:
        assert not app.game.stock and "no card of the discard pile can be used" in prompt_line(app)
        await pilot.press("d")
        assert prompt_line(app) == "First pass (p): a turn is draw, meld, discard (R4)."
        await pilot.press("s")
        await eventually(lambda: "Cannot draw" in screen_text(app), pause=pilot.pause)
        assert "(t)" not in screen_text(app) and "pass (p) (R6.1)" in screen_text(app)
        assert app.sent == []


async def test_hints_mark_what_can_be_played() -> None:
    """h marks the cards of every legal meld or lay-off, from the engine's legal moves."""
    game = meld_position("7h 8h 9h 2c Ad", melds=[("Jd Qd Kd", 1)], discard="Kc")  # A♦ extends the run
    app = TableHarness(game, bots=False)
    async with app.run_test() as pilot:
        hand = hand_of(app)
        assert hand.hints == set()
        await pilot.press("h")
        assert hand.hints == set(cards("7h 8h 9h Ad"))
        assert "•" in screen_text(app)
        assert "h Hide hints" in screen_text(app)  # the key says what it does now
        await pilot.press("h")
        assert hand.hints == set()
        assert "h Hints" in screen_text(app) and "Hide hints" not in screen_text(app)


async def test_hiding_the_hints_says_so() -> None:
    """Hints stay on from turn to turn; h with them on hides them and says so, so a
    player who pressed h to ask is not left with nothing happening."""
    messages: list[str] = []
    app = TableHarness(meld_position("7h 2c Qs"), bots=False)
    async with app.run_test(notifications=True) as pilot:
        app.table.notify = lambda message, **kw: messages.append(message)  # type: ignore[method-assign]
        await pilot.press("h", "h")
        assert messages[-1] == "Hints are off: h shows them again."


async def test_hints_with_nothing_to_mark_say_what_is_left_to_do_until_it_changes() -> None:
    """h with nothing to mark says what the turn still asks for: in the draw, that no
    card of the pile has a use (R4.1) and s draws; in the meld part, that d discards.
    It is said on the line above the hand, which follows the game: seen in tmux, a
    toast saying it stayed up after the player had drawn, or discarded and the turn
    had moved on, and told them to do what they could no longer do."""
    game = position(["7h 8h 2c", *OTHERS], discard="Kd Js", current=0, phase="draw")
    app = TableHarness(game, bots=False)
    async with app.run_test(size=(100, 32), notifications=True) as pilot:
        await pilot.press("h")
        await pilot.pause()
        assert "no card of the discard pile can be used now" in screen_text(app)
        await pilot.press("s")  # drawn: the pile is no longer the question
        drawn = lambda: app.table.view is not None and app.table.view.phase == "meld"  # noqa: E731
        await eventually(drawn, pause=pilot.pause)
        await pilot.pause()
        assert "discard pile can be used" not in screen_text(app)
    app = TableHarness(meld_position("7h 2c Qs"), bots=False)  # no meld, none on the table
    async with app.run_test(size=(100, 32), notifications=True) as pilot:
        await pilot.press("h")
        await pilot.pause()
        assert "Hints: nothing to meld or lay off now; d discards a card" in screen_text(app)
        await pilot.press("d")  # the turn is over: nothing of it is left to do
        await eventually(lambda: "Waiting for" in screen_text(app), pause=pilot.pause)
        assert "nothing to meld or lay off" not in screen_text(app).lower()


async def test_hints_name_a_meld_the_marked_cards_make() -> None:
    """Seen in tmux: with the hints on, 6♣ 6♦ 6♥ were marked, and the line said only
    "m melds the selected cards"; a new player held the three to the deal's end. The
    line names the meld (the longest), and how to lay it."""
    app = TableHarness(meld_position("8c 8h 8s 9h 2c"), bots=False)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press("h")
        await pilot.pause()
        assert "Hints: 8♣ 8♥ 8♠ make a meld: select them, then m" in screen_text(app)
        order = hand_of(app).order
        await pilot.press(*(str(order.index(c(card)) + 1) for card in ("8c", "8h", "8s")))
        await pilot.pause()
        assert "Meld ready: 8♣ 8♥ 8♠. m melds them." in screen_text(app)
        await pilot.press("m")
        await eventually(lambda: len(app.sent) == 1, pause=pilot.pause)
        await pilot.pause()
        assert "make a meld" not in screen_text(app)
    app = TableHarness(meld_position("8c 8h 8s 9h 2c"), bots=False)
    async with app.run_test(size=(100, 32)) as pilot:  # hints off: the line as it was
        await pilot.pause()
        assert "m melds the selected cards, l lays one off" in screen_text(app)


async def test_discarding_a_joker_asks_once_first() -> None:
    """R5.3: a Joker melds only with Jokers, and on the pile it is there for the next
    players to take; d on it asks first (the line above the hand says so), d again
    discards it. Any other card goes at once, with no question. Seen in tmux: a toast
    asking it too still said "Press d again" once the Joker was gone."""
    app = TableHarness(meld_position("7h 2c JK Qs"), bots=False)
    async with app.run_test(size=(100, 32), notifications=True) as pilot:
        order = hand_of(app).order
        await pilot.press(str(order.index(c("JK")) + 1), "d")  # select the Joker, discard
        await pilot.pause()
        assert app.sent == []
        assert "Discard the JK? d again discards it (Jokers" in screen_text(app)
        await pilot.press("d")
        await eventually(lambda: app.sent == [Discard(c("JK"))], pause=pilot.pause)
        assert "Discard the JK" not in screen_text(app) and "again" not in toast_text(app)
    app = TableHarness(meld_position("7h 2c JK Qs"), bots=False)
    async with app.run_test(size=(100, 32)) as pilot:
        order = hand_of(app).order
        await pilot.press(str(order.index(c("2c")) + 1), "d")
        await eventually(lambda: app.sent == [Discard(c("2c"))], pause=pilot.pause)


async def test_sort_by_rank_and_own_order_kept() -> None:
    """o sorts by rank (again: by suit); shift+arrows (or < >) make an own order, which
    stays until the next sort. Every change is told to the app, to be remembered."""
    app = TableHarness(meld_position("7h 8h 9h 2c Qs Kc"), bots=False)
    orders: list[tuple[int, ...]] = []

    def hook(message: object) -> None:
        if isinstance(message, HandOrdered):
            orders.append(message.order)

    async with app.run_test(message_hook=hook) as pilot:
        hand = hand_of(app)
        assert hand.order == tuple(cards("2c Kc 7h 8h 9h Qs"))  # a new hand: by suit
        await pilot.press("o")
        assert hand.order == tuple(cards("2c 7h 8h 9h Qs Kc"))
        await pilot.press("home", "shift+right")
        assert hand.order == tuple(cards("7h 2c 8h 9h Qs Kc"))
        await pilot.press("greater_than_sign")
        assert hand.order == tuple(cards("7h 8h 2c 9h Qs Kc"))
        await pilot.pause()
        assert orders[-1] == hand.order


async def test_help_shows_every_key_how_to_play_and_the_rule_book() -> None:
    """? lists every key of the table screen; a long sentence wraps under its own column;
    2 turns to how to play, 3 to the rule book (the project's, with every rule). (At a
    server's table: the game against bots has no chat nor lobby, and no c nor b.)"""
    app = LobbyHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        help_screen = app.screen
        lines = [line.plain for line in help_screen.page_lines("keys")]
        keys = {b.key.split(",")[0].replace("question_mark", "?") for b in TableScreen.BINDINGS if b.show}
        key_column = {line[2:25].strip() for line in lines}
        for key in keys:
            assert any(key in column.split(" / ") or key == column.split(" ")[0] for column in key_column), (
                key
            )
        for line in lines:  # nothing runs into the key column
            if line.startswith("  ") and line[2:25].strip() == "":
                assert line[:26].strip() == "", line
        assert "Keys at the table" in screen_text(app)
        assert {"shift+left/right, < >", "1 … 9, 0"} <= key_column
        # "Leave" is the lobby's l: here b goes back, and l lays off.
        words = " ".join(line[26:] for line in lines)
        assert "back to the lobby; your chair is held" in words and "leave" not in words
        await pilot.press("2")
        assert "How to play, in two minutes" in screen_text(app)
        await pilot.press("3")
        rules = "\n".join(line.plain for line in help_screen.page_lines("rules"))
        for rule in ("R1.1", "R4.1", "R9.2"):
            assert rule in rules
        assert "Persian Rummy" in screen_text(app)
        await pilot.press("escape")
        assert isinstance(app.screen, TableScreen)
    app = TableHarness()  # the game against bots
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        key_column = {line.plain[2:25].strip() for line in app.screen.page_lines("keys")}
        assert "?" in key_column and not {"c", "b"} & key_column


def words(markdown: str) -> list[str]:
    return re.sub(r"[*`#]", "", markdown).split()


async def test_the_rule_book_and_how_to_play_read_in_whole_lines_at_80x24() -> None:
    """The rule book's source is wrapped at 80 columns; shown line for line in the
    74-column dialog, each long line wrapped again and left a word or two on a line of
    its own. Its paragraphs and list items are wrapped anew to the dialog (a list
    item's lines under its words), and not a word is lost or moved."""
    app = TableHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark", "3")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        await pilot.pause()
        assert help_screen.body.size.width >= MARKDOWN_WIDTH  # so no line of it wraps again
        for page, source in (("rules", rule_book()), ("how", HOW_TO_PLAY)):
            lines = [line.plain for line in help_screen.page_lines(page)]  # type: ignore[arg-type]
            assert max(len(line) for line in lines) <= MARKDOWN_WIDTH
            assert words("\n".join(lines)) == words(source)
            # A paragraph fills its lines: only its last may be short (by more than the
            # marks of its styled words, ** and `, which take room until they are read).
            source_lines = reflow(source)
            assert len(source_lines) == len(lines)
            for (line, after), (raw, raw_after) in zip(pairwise(lines), pairwise(source_lines), strict=True):
                if (
                    raw
                    and raw_after
                    and not raw.startswith("#")
                    and not re.match(r"\s*(- |\d+\. |#)", raw_after)
                ):
                    assert len(line) + 1 + len(after.split()[0]) > MARKDOWN_WIDTH - 12, (line, after)
        rules = [line.plain for line in help_screen.page_lines("rules")]
        first = next(i for i, line in enumerate(rules) if line.startswith("- R1.1 "))
        assert rules[first + 1].startswith("  ") and not rules[first + 1].startswith("   ")
        # A list of suits or ranks is one piece, never "♣ ♦ ♥" above a lone "♠".
        assert any("♣ ♦ ♥ ♠" in line for line in rules)
        assert any("2 3 4 5 6 7 8 9 10 J Q K A" in line for line in rules)
        assert "These are the rules the game plays by, and the one authority on play" in " ".join(rules)


async def test_at_80x24_the_palettes_reminder_gives_way_before_any_key() -> None:
    """80x24 is the commonest terminal: after drawing, with hints on, every key of the
    turn shows (o Sort and c Chat were cut for the "^p palette" reminder); while the
    keys leave room, the reminder shows. (A server's table, with more keys, drops it:
    the next test.)"""
    game = meld_position("7h 8h 9h 2c Qs")
    app = TableHarness(game, bots=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("h")
        await pilot.pause()
        keys = screen_text(app).splitlines()[-1]
        turn = ("m Meld", "l Lay off", "d Discard", "h Hide hints", "o Sort", "? Help", "q Quit")
        assert all(key in keys for key in turn), keys
        assert "…" not in keys and "Chat" not in keys  # (no chat with bots: the reminder fits too)
        await pilot.press("ctrl+p")  # the palette itself still opens
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
    app = TableHarness(position(["7h 8h 2c", *OTHERS], discard="Kd", current=0, phase="draw"), bots=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert screen_text(app).splitlines()[-1].endswith("^p palette")


async def test_at_80x24_a_server_games_keys_all_show_with_narrower_gaps() -> None:
    """Seen in tmux: in a server game at 80x24, after drawing with hints on, the line
    of keys dropped "b Lobby" (nine keys with two-space gaps need 84 columns). The
    gaps narrow to one space first, so every key shows, and a click still finds its key."""
    app = LobbyHarness(meld_position("7h 8h 9h 2c Qs"), bots=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("h")
        await pilot.pause()
        keys = screen_text(app).splitlines()[-1]
        turn = ("m Meld", "l Lay off", "d Discard", "h Hide hints", "o Sort", "c Chat", "b Lobby")
        assert all(key in keys for key in (*turn, "? Help", "q Quit")), keys
        assert "…" not in keys and "palette" not in keys
        await pilot.click(KeyBar, offset=(keys.index("? Help") + 2, 0))
        await eventually(lambda: isinstance(app.screen, HelpScreen), pause=pilot.pause)
    app = LobbyHarness(meld_position("7h 8h 9h 2c Qs"), bots=False)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press("h")
        await pilot.pause()
        assert "  b Lobby  ? Help  q Quit" in screen_text(app).splitlines()[-1]  # room: the usual gaps


async def test_command_palette_offers_the_actions_that_apply() -> None:
    """Every action is in the command palette; choosing one plays it."""
    app = LobbyHarness()
    async with app.run_test() as pilot:
        titles = [title for title, _, _ in screen_actions(app.screen)]
        assert {"Draw", "Take", "Hints", "Sort", "Chat", "Lobby", "Help", "Quit"} <= set(titles)
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
        assert "The game waits: start rummy-client again" in screen_text(app)  # no lobby: as locally
        await pilot.press("n")
        assert isinstance(app.screen, TableScreen)
        await pilot.press("q", "y")
        await pilot.pause()
    assert app.return_code == 0


async def test_chat_is_sent_and_shown_as_plain_text() -> None:
    """c opens the chat line; markup typed there shows as the characters typed."""
    app = LobbyHarness()
    async with app.run_test() as pilot:
        await pilot.press("c", *"hi [b]all[/b]", "enter")
        assert app.chat == ["hi [b]all[/b]"]
        assert "Ann: hi [b]all[/b]" in screen_text(app)
        assert hand_of(app).has_focus  # back to the cards


async def test_the_chat_line_says_whole_what_enter_and_escape_do_at_80x24() -> None:
    """In the narrowest chat column the empty chat line still tells how to use it,
    and escape goes back to the hand without sending anything."""
    app = LobbyHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        assert "enter sends, esc returns" in screen_text(app)
        await pilot.press("c", *"never mind")
        await pilot.press("escape")
        assert hand_of(app).has_focus and app.chat == []


async def test_the_game_against_bots_has_no_chat_and_its_log_has_the_width() -> None:
    """Bots read no chat: the game against bots shows none ("Chat: press c to say
    something" invited talk nobody would hear), c does nothing, and the log of moves
    takes the whole width, so its lines wrap less; a server's table keeps its chat."""
    game = meld_position("7h 8h 9h 2c Qs")
    app = TableHarness(game, bots=False)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "Chat" not in text and "enter sends" not in text
        assert app.table.log_view.size.width >= 100 - 3  # all but its padding
        await pilot.press("c", "x")
        assert not app.table.chat_input.has_focus and app.chat == []
    waiting = Game(7, seating="chosen")  # East is first to play
    app = TableHarness(waiting, bots=False)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        assert "You can sort (o), reorder (<, >)." in screen_text(app)
    app = LobbyHarness(waiting, bots=False)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        assert "Chat: press c to say something." in screen_text(app)
        assert "You can sort (o), reorder (<, >) and chat (c)." in screen_text(app)
        assert app.table.log_view.size.width < 100 * 3 // 4


async def test_watching_shows_no_hand_and_no_actions() -> None:
    """A spectator sees the table (R9.1) but no hand (R9.2) and cannot move."""
    app = TableHarness(seat=None)
    async with app.run_test() as pilot:
        text = screen_text(app)
        assert "You are watching: " in text
        assert "(the players' hands stay hidden, R9.2)" in text  # not the seat's hand
        assert "(no cards in hand)" not in text
        await pilot.press("s")
        assert app.sent == []


async def test_a_spectator_at_a_deals_end_is_told_the_deal_is_over() -> None:
    """Watching, once a deal ended the line over the table said "You are watching: Dara
    is . b returns to the lobby." (nobody is to play then), and under it "the players'
    hands stay hidden" though R7 shows them: it now says the deal is over and where its
    scores and hands are."""
    app = TableHarness(going_out(), seat=None, bots=False)
    async with app.run_test(size=(80, 24)) as pilot:
        app.show(app.game.apply(NewMeld(tuple(cards("7h 8h 9h")))))  # South goes out
        await pilot.pause()
        if isinstance(app.screen, DealEndScreen):
            await pilot.press("escape")
            await pilot.pause()
        text = " ".join(screen_text(app).split())
        assert " is . " not in text
        assert "You are watching: the deal is over; r shows its scores. b returns to the lobby." in text
        # R7: the hands are shown at a deal's end, so they no longer "stay hidden".
        assert "(the hands at the deal's end: r shows them, R7)" in text
        assert "stay hidden" not in text
        await pilot.press("r")
        await eventually(lambda: isinstance(app.screen, DealEndScreen), pause=pilot.pause)
        assert "Hands at the end" in screen_text(app)


async def test_the_players_sit_around_the_table() -> None:
    """R9.1: oneself at the bottom, the partner across, the opponents left (the next to
    play) and right; each with name, team, cards held (backs), dealer, whose turn."""
    app = TableHarness(Game(7, seating="chosen"), bots=False)  # East is first to play
    async with app.run_test() as pilot:
        await pilot.pause()
        assert "Partner, North" in panel(app, "north") and "Cyd (bot)" in panel(app, "north")
        assert "Opponent, West" in panel(app, "west") and "Bob (bot)" in panel(app, "west")
        east = panel(app, "east")
        assert "Opponent, East" in east and "Dee (bot)" in east and "▮▮▮▮▮▮▮ 7" in east and "to draw" in east
        assert app.table.board.seats["east"].has_class("-turn")
        assert not app.table.board.seats["west"].has_class("-turn")
        assert "You, South" in panel(app, "south") and "7 cards" in panel(app, "south")


@pytest.mark.parametrize("size", [(80, 24), (100, 32)])
async def test_each_seat_says_partner_or_opponent_before_its_compass_name(size: tuple[int, int]) -> None:
    """R2.1: seen in tmux, the compass names alone confused players: a player who is
    West sits at the bottom of the screen, with "East" across (their partner) and
    "North" on their left. Each seat says who it is to the player, then its name in
    the rule book; a spectator, nobody's partner, sees the names alone."""
    app = TableHarness(Game(7, seating="chosen"), seat=1, bots=False)  # the player is West
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        assert "You, West" in panel(app, "south")
        assert "Partner, East" in panel(app, "north")
        assert "Opponent, North" in panel(app, "west") and "Opponent, South" in panel(app, "east")
    app = TableHarness(Game(7, seating="chosen"), seat=None, bots=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        assert "South" in panel(app, "south") and "Partner" not in screen_text(app)
        assert "Opponent" not in screen_text(app)


async def test_what_the_last_player_did_stays_marked_until_another_moves() -> None:
    """The cards the last player melded and discarded are marked on the table (and
    said in their panel) until the next player moves."""
    game = position(["2h 3h", "7c 8c 9c Kh 2s", "Js", "Qd"], discard="Kd", current=1, phase="meld")
    app = TableHarness(game, seat=0, bots=False)
    async with app.run_test() as pilot:
        events = app.game.apply(NewMeld(tuple(cards("7c 8c 9c"))))
        events += app.game.apply(Discard(c("Kh")))
        app.show(events)
        await pilot.pause()
        assert "melded, discarded K♥" in panel(app, "west")
        assert "▮ 1" in panel(app, "west")  # and the cards West holds
        assert app.table.pile.recent == c("Kh")  # the top of the pile, marked
        meld_line = next(line for line in app.table.melds.lines() if "7♣" in line.plain)
        marked = [s for s in meld_line.spans if RECENT.lower() in str(s.style).lower()]
        assert marked  # the new meld's cards, marked
        app.show(app.game.apply(DrawStock()))  # North moves: West's marks are gone
        await pilot.pause()
        assert app.table.recent.seat == 2 and "melded" not in panel(app, "west")
        assert app.table.pile.recent is None


@pytest.mark.parametrize("size", [(80, 24), (100, 32), (120, 40)])
async def test_a_side_players_busy_turn_still_names_the_card_they_took(size: tuple[int, int]) -> None:
    """A turn that took from the pile, melded, laid off and discarded is too long for
    a side panel at most sizes: it is said shorter rather than cut in the middle of a
    card. The card taken from the pile stays (nothing else shows it); 'melded' and
    'laid off' go first (the melds are marked), then the discard (the pile's top)."""
    game = position(["Jd", "7c 8c 2h Kh", "Qd", "Js"], melds=[("2s 3s 4s", 0)], discard="Qc 9c 5s", current=1)
    app = TableHarness(game, seat=0, bots=False)
    async with app.run_test(size=size) as pilot:
        events = app.game.apply(TakeDiscard(1, tuple(cards("7c 8c 9c"))))
        events += app.game.apply(LayOff(0, c("5s")))
        events += app.game.apply(Discard(c("Kh")))
        app.show(events)
        await pilot.pause()
        said = panel(app, "west")
        assert "took 9♣ +1" in said
        assert "…" not in said  # no phrase cut short
        full = "took 9♣ +1, melded, laid off, discarded K♥"
        width = app.table.board.seats["west"].content_size.width
        if width >= len(full):
            assert full in said


async def test_every_meld_stays_in_view_at_80x24() -> None:
    """Nothing on the table is hidden: twelve melds (and more) all show at 80x24."""
    sets = [
        (f"{r}c {r}d {r}h", seat)
        for r, seat in zip((2, 3, 4, 5, 6, 7, 8, 9, 10), (0, 1, 2, 3) * 3, strict=False)
    ]
    runs = [("Js Qs Ks As", 1), ("Jd Qd Kd", 2), ("Jc Qc Kc", 3), ("Jh Qh Kh", 0)]
    hand = "2s 3s 4s 5s 6s 7s 8s"
    others = ["9s", "10s", "Ac"]
    game = position([hand, *others], melds=[*sets, *runs], discard="Ad", current=0, phase="meld")
    app = TableHarness(game, bots=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("h")  # hints mark melds too: they must be visible as well
        text = screen_text(app)
        assert len(game.melds) == 13
        for meld in game.melds:
            shown = re.search(rf"(^|\s|•){meld.id + 1} ", text, re.MULTILINE)
            assert shown, f"meld {meld.id + 1} is not on the screen"
            assert card_text(meld.cards[-1]) in text
        assert app.table.melds.region.bottom <= app.table.board.prompt.region.y  # not drawn over


@pytest.mark.parametrize("harness", [LobbyHarness, TableHarness])
async def test_tab_goes_round_the_table_and_escape_comes_back(harness: type[TableHarness]) -> None:
    """Hand, pile, melds, log, (at a server's table) the chat line, and round again."""
    app = harness(meld_position("7h 8h 9h 2c Qs"), bots=False)
    async with app.run_test() as pilot:
        table = app.table
        await pilot.press("tab")
        assert table.pile.has_focus
        await pilot.press("tab")
        assert table.melds.has_focus
        await pilot.press("tab")
        assert table.log_view.has_focus
        if harness is LobbyHarness:
            await pilot.press("tab")
            assert table.chat_input.has_focus
        await pilot.press("tab")
        assert hand_of(app).has_focus  # round again
        await pilot.press("tab", "escape")
        assert hand_of(app).has_focus


async def test_the_turn_clock_ticks_and_says_it_is_unknown_while_offline() -> None:
    """The turn clock counts down in the panel of the seat to act, and while the
    connection is down says it cannot be read, not that it is paused (the server's
    clock runs on)."""
    app = TableHarness()
    async with app.run_test() as pilot:
        import time

        app.table.set_clock(TurnTimer("turn", 0, 42.0, time.monotonic()))
        await pilot.pause()
        assert "0:42" in panel(app, "south") or "0:41" in panel(app, "south")
        app.table.set_offline(True)
        await pilot.pause()
        assert "-:-- offline" in panel(app, "south")
        assert "paused" not in panel(app, "south")
        assert not app.table.ticking  # nothing ticks meanwhile


async def test_the_bell_rings_when_it_becomes_your_turn() -> None:
    rings: list[int] = []
    game = Game(7, seating="chosen")  # East plays first, then South
    app = TableHarness(game, bots=False)
    app.table.bell = True
    async with app.run_test() as pilot:
        app.bell = lambda: rings.append(1)  # type: ignore[method-assign]
        await pilot.pause()
        assert rings == []  # not South's turn yet
        app.game.apply(DrawStock())
        app.show(app.game.apply(Discard(app.game.hands[3][0])))
        await pilot.pause()
        assert rings == [1]
        app.show([])
        assert rings == [1]  # once per turn


async def test_deal_end_shows_every_hand_and_the_scores() -> None:
    """R7: at a deal's end every hand is shown, and each team's score item by item."""
    app = TableHarness(going_out(), bots=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await go_out(pilot, app)
        assert isinstance(app.screen, DealEndScreen)
        text = screen_text(app)
        result = app.game.results[0]
        a, b = result.scores
        assert "Deal 1 is over: you went out." in text
        assert "Deal 1 ended when you went out: N–S +" in log_text(app)  # R4.4, in the log too
        for label, x, y in (
            ("Cards laid", a.laid, b.laid),
            ("Four-of-a-kind bonus", a.doubled_fours, b.doubled_fours),
            ("Cards in hand", a.in_hand, b.in_hand),
            ("Going-out bonus", a.going_out, b.going_out),
            ("Deal total", a.total, b.total),
        ):
            assert f"{label:<22}{x:>8}{y:>8}" in text
        assert (a.laid, b.doubled_fours, a.going_out) == (24, 40, 25)  # R7.1, R7.4, R7.3
        assert "Bob" in text and " 2♦  3♦  4♦  5♦  6♦  7♦" in text  # West's hand, shown to all
        await pilot.press("n")  # ready for the next deal
        await pilot.pause()
        assert app.game.deal == 2
        assert "Deal 2 of 2 begins." in log_text(app)
        # A new hand, sorted and numbered afresh (not appended to what was left).
        hand = hand_of(app)
        assert hand.order == tuple(sort_cards(app.game.hands[0], "suit")) and hand.fresh == set()


def test_the_hands_at_a_deal_end_are_sorted_as_the_player_sorts_their_own() -> None:
    """R7.2: the cards left in each hand are shown in the player's own order (o):
    by suit, or by rank; as held, in whatever order each player kept them, a pair
    or a near run was hard to see at a glance."""
    from rummy.client.screens.results import deal_breakdown

    seats = Seats((SeatInfo("Ann"), SeatInfo("Bob"), SeatInfo("Cy"), SeatInfo("Di")), me=0)
    held = (tuple(cards("Ks 7h Kd 8h")), (), (), ())
    result = DealResult(1, "passes", None, held, (TeamScore(0, 0, -35, 0), TeamScore(0, 0, 0, 0)))
    by_suit = deal_breakdown(result, seats, (0, 0)).plain
    by_rank = deal_breakdown(result, seats, (0, 0), order="rank").plain
    assert "(-35)   K♦  7♥  8♥  K♠" in by_suit
    assert "(-35)   7♥  8♥  K♦  K♠" in by_rank


@pytest.mark.parametrize("ascii", [False, True])
def test_a_ten_keeps_the_deal_ends_hands_in_line(ascii: bool) -> None:
    """R7.2: seen in tmux, a 10♦ (a rank of two characters) pushed the rest of its row,
    and the points at its end, one column out of line with the rows of one-character
    ranks. The points stand in a column before the cards, and each card in three
    columns, so every row's cards and points line up."""
    from rummy.client.look import Look
    from rummy.client.screens.results import deal_breakdown

    seats = Seats((SeatInfo("Ann"), SeatInfo("Bob"), SeatInfo("Cy"), SeatInfo("Di")), me=0)
    held = (tuple(cards("Td 8h 9s")), tuple(cards("3c 4d 5h")), tuple(cards("2c 7h JK")), ())
    result = DealResult(1, "passes", None, held, (TeamScore(0, 0, -29, 0), TeamScore(0, 0, -47, 0)))
    lines = deal_breakdown(result, seats, (0, 0), Look(ascii=ascii)).plain.splitlines()
    rows = [line for line in lines if line.strip().startswith(("South", "West", "North"))]
    assert len(rows) == 3
    ends = {tuple(m.end() for m in re.finditer(r"\S+", row))[-4:] for row in rows}
    assert len(ends) == 1  # the points and each card end in the same column in every row


async def test_the_deal_end_follows_the_hands_sort() -> None:
    """Sorted by rank at the table (o), the deal's end lists the hands by rank too."""
    app = TableHarness(going_out(), bots=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("o")
        assert hand_of(app).sort_mode == "rank"
        await go_out(pilot, app)
        assert isinstance(app.screen, DealEndScreen) and app.screen.order == "rank"


async def test_a_view_arriving_while_the_screen_is_taken_down_is_not_an_error() -> None:
    """The server's last push can arrive while the client quits and takes its widgets
    down: the line of keys, already gone, is left alone (it raised NoScreen)."""
    app = TableHarness(bots=False)
    async with app.run_test(size=(100, 32)) as pilot:
        assert "? Help" in screen_text(app).splitlines()[-1]
        await app.table.keybar.remove()  # as the app's shutdown does, widget by widget
        app.show()
        await pilot.pause()
        assert app.table.view is not None and app.is_running


async def test_a_dialog_shows_its_own_keys_not_the_tables_and_fits_80x24() -> None:
    """While the deal's end is open only its keys work: the bottom line says those (not
    the table's draw or chat, which wait), and at 80x24 its buttons show whole."""
    app = LobbyHarness(going_out(), bots=False)
    async with app.run_test(size=(80, 24)) as pilot:
        assert screen_text(app).splitlines()[-1].startswith(" m Meld  l Lay off")  # the table's line
        await go_out(pilot, app)
        assert isinstance(app.screen, DealEndScreen)
        lines = screen_text(app).splitlines()
        assert lines[-1].split() == ["n", "Next", "deal", "esc", "Close"]
        assert any("Ready for the next deal (n)" in line and "Close (esc)" in line for line in lines)
        assert any("Deal 2 starts when you are ready (n)" in line for line in lines)
        await pilot.press("c")  # the table's chat: not while the dialog is open
        assert isinstance(app.screen, DealEndScreen)
        await pilot.click(".dialog-keys", offset=(len(" n Next deal  e"), 0))  # "esc Close"
        await eventually(lambda: isinstance(app.screen, TableScreen), pause=pilot.pause)
        assert app.game.deal == 1


async def test_in_the_game_against_bots_the_deals_end_says_deal_2_waits_for_you() -> None:
    """Played in tmux: the game against bots began deal 2 by itself while its one
    player still read the scores. Its server now waits for them, and the deal's end
    says so instead of "or by itself shortly"."""
    app = TableHarness(going_out(), bots=False)  # no lobby: the game against bots
    async with app.run_test(size=(80, 24)) as pilot:
        await go_out(pilot, app)
        assert isinstance(app.screen, DealEndScreen)
        shown = screen_text(app)
        assert "Deal 2 starts when you are ready (n): the table waits" in shown and " in 1" not in shown
        await pilot.press("n")
        await eventually(lambda: app.game.deal == 2, pause=pilot.pause)


def with_people(seats: Seats) -> Seats:
    """The harness's seats with people (not bots) in every chair, all here."""
    from dataclasses import replace

    return replace(seats, seats=tuple(None if i is None else replace(i, bot=False) for i in seats.seats))


async def test_the_deals_end_counts_down_the_servers_pause_and_names_whom_it_waits_for() -> None:
    """Played in tmux: a server's deal end said the next deal starts "by itself
    shortly", with no time, while the table's own line (under the dialog) counted it
    down. It now counts down the server's pause (its ``next_deal`` clock), second by
    second, and names the people the table still waits for, live, as they say ready."""
    from dataclasses import replace

    app = LobbyHarness(going_out(), bots=False)
    async with app.run_test(size=(100, 40)) as pilot:
        app.seats = with_people(app.seats)
        app.show()
        await go_out(pilot, app)
        dialog = app.screen
        assert isinstance(dialog, DealEndScreen)
        names = [app.seats.name(seat) for seat in range(4)]
        # No clock from the server (yet): it waits for the people.
        assert "Deal 2 starts when everyone here is ready (n). Waiting for you," in screen_text(app)
        app.table.set_clock(TurnTimer("next_deal", None, 12.4, time.monotonic()))  # the server's pause
        note = dialog.query_one("#deal-note", Static)
        await eventually(lambda: "Deal 2 starts in 13 s," in str(note.content), pause=pilot.pause)
        assert (
            f"as soon as everyone here is ready (n). Waiting for you, {names[1]}, {names[2]} and {names[3]}."
            in (str(note.content))
        )
        # It ticks by itself (no update from the server needed): 13, then 12.
        await eventually(lambda: "Deal 2 starts in 12 s," in str(note.content), pause=pilot.pause, timeout=3)
        seats = app.table.seats
        ready = tuple(
            replace(info, ready=True) if info is not None and seat == 3 else info
            for seat, info in enumerate(seats.seats)
        )
        app.table.set_seats(replace(seats, seats=ready))  # the table says: East is ready
        await eventually(
            lambda: str(note.content).endswith(f"Waiting for you, {names[1]} and {names[2]}."),
            pause=pilot.pause,
        )
        assert f"{names[2]}." in screen_text(app)  # shown, not only set
        app.table.set_clock(None)  # the server stopped the clock (a pause of none)
        await eventually(
            lambda: "starts when everyone here is ready (n)." in str(note.content), pause=pilot.pause
        )
        assert not dialog.ticking


async def test_alone_among_bots_the_countdown_says_it_waits_for_you() -> None:
    """Seen in tmux at a server's table of one player and three bots: "or as soon as
    everyone here is ready (n). Waiting for you." It says "you" once."""
    app = LobbyHarness(going_out(), bots=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await go_out(pilot, app)
        dialog = app.screen
        assert isinstance(dialog, DealEndScreen)
        app.table.set_clock(TurnTimer("next_deal", None, 29.5, time.monotonic()))
        note = dialog.query_one("#deal-note", Static)
        said = re.compile(r"Deal 2 starts in \d+ s, or as soon as you are ready \(n\)\.")
        await eventually(lambda: said.fullmatch(str(note.content)), pause=pilot.pause)


async def test_a_spectators_deals_end_closes_when_the_next_deal_begins() -> None:
    """A spectator's deal end (no "ready" for them) closes when deal 2 begins: back to
    the game they came to watch (it stayed over the table all through deal 2)."""
    app = LobbyHarness(going_out(), bots=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await go_out(pilot, app)
        shown = app.screen
        assert isinstance(shown, DealEndScreen)
        app.pop_screen()
        app.seat = None  # the same table as a spectator sees it
        app.show()
        from dataclasses import replace

        watching = DealEndScreen(
            shown.results,
            replace(shown.seats, me=None),
            can_start=False,
            timer=TurnTimer("next_deal", None, 9.5, time.monotonic()),
        )
        app.push_screen(watching)
        await pilot.pause()
        # No n to press, and not "everyone here", which read as if the spectator were asked.
        ann = shown.seats.name(0)
        said = f"Deal 2 starts in 10 s, or as soon as the players are ready. Waiting for {ann}."
        assert str(watching.query_one("#deal-note", Static).content) == said
        assert "Waiting for" in screen_text(app)  # shown
        app.post_message(ReadyForNextDeal())  # the players went on
        await eventually(lambda: isinstance(app.screen, TableScreen), pause=pilot.pause)
        assert app.game.deal == 2 and "Deal 2 of 2 begins." in log_text(app)


async def test_once_the_next_deal_began_n_only_closes_the_deals_end() -> None:
    """The deal's end still open when deal 2 begins: nothing to get ready for, so its
    keys no longer offer it, and n (or escape) returns to the table."""
    app = TableHarness(going_out(), bots=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await go_out(pilot, app)
        dialog = app.screen
        assert isinstance(dialog, DealEndScreen)
        dialog.moved_on()
        await pilot.pause()
        lines = screen_text(app).splitlines()
        assert lines[-1].split() == ["esc", "Close"]
        assert any("Deal 2 has begun: esc (or n) returns to the table." in line for line in lines)
        assert not any("Ready for the next deal" in line for line in lines)
        await pilot.press("n")
        await eventually(lambda: isinstance(app.screen, TableScreen), pause=pilot.pause)
        assert app.game.deal == 1  # n said nothing to the server: it only closed


@pytest.mark.parametrize("seat", [0, None], ids=["player", "spectator"])
async def test_deal_ones_end_opened_again_during_deal_two_says_deal_two_has_begun(seat: int | None) -> None:
    """r during deal 2 shows deal 1's end as it is now: deal 2 has begun, nothing to get
    ready for; and the next view of deal 2 leaves it open, for player and spectator alike
    (it said "Deal 2 starts when everyone here is ready", then a spectator's closed at
    once)."""
    app = TableHarness(going_out(), bots=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await go_out(pilot, app)
        await pilot.press("n")  # ready: deal 2 begins
        await eventually(lambda: isinstance(app.screen, TableScreen), pause=pilot.pause)
        assert app.game.deal == 2
        app.seat = seat
        app.show()
        await pilot.press("r")
        await eventually(lambda: isinstance(app.screen, DealEndScreen), pause=pilot.pause)
        text = screen_text(app)
        assert "Deal 2 has begun: esc (or n) returns to the table." in text
        assert "Deal 2 starts when" not in text and "Ready for the next deal" not in text
        app.show()  # deal 2 goes on
        await pilot.pause()
        assert isinstance(app.screen, DealEndScreen)
        await pilot.press("n")  # n only closes: nothing to get ready for
        await eventually(lambda: isinstance(app.screen, TableScreen), pause=pilot.pause)
        assert app.game.deal == 2


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


async def test_every_choice_at_the_games_end_shows_at_80x24() -> None:
    """All five ways on from a game's end (again, lobby, last deal, watch again, quit)
    fit on the dialog's one row of buttons in the smallest terminal."""
    game = meld_position("7h 8h 9h", deal=2)
    game.results = [
        DealResult(1, "passes", None, ((), (), (), ()), (TeamScore(30, 0, -10, 0), TeamScore(50, 0, -5, 0)))
    ]
    app = TableHarness(game, bots=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await go_out(pilot, app)
        shown = app.screen
        assert isinstance(shown, GameEndScreen)
        app.pop_screen()
        app.push_screen(GameEndScreen(shown.results, shown.seats, lobby=True, can_replay=True))
        await pilot.pause()
        labels = ["Play again (a)", "Lobby (b)", "Last deal (d)", "Watch again (w)", "Quit (q)"]
        assert any(all(label in line for label in labels) for line in screen_text(app).splitlines())
        assert "b Lobby" in screen_text(app).splitlines()[-1]  # b, as at the table


async def test_the_board_draws_a_stored_game_without_a_connection() -> None:
    """A replay's way: a plain app with a TableBoard, shown the views of a stored game
    move by move (here, as a spectator sees them), with no server and no table screen."""
    from textual.app import App, ComposeResult

    from rummy.client.model import Recent, Seats
    from rummy.client.scene import Scene
    from rummy.client.widgets.table.board import TableBoard

    class Replay(App[None]):
        def compose(self) -> ComposeResult:
            yield TableBoard(id="board")

    game = Game(3, seating="chosen")
    app = Replay()
    async with app.run_test(size=(80, 24)) as pilot:
        board = app.query_one(TableBoard)
        recent = Recent()
        for _ in range(6):
            recent = recent.after(game.apply(game.legal_moves()[0]))
            board.show(Scene(view_for(game, None), Seats(), recent=recent))
            await pilot.pause()
        assert board.scene is not None and board.scene.seat_at("south") == 0
        text = screen_text(app)
        assert "Deal 1 of 2" in text and "West" in text and "North" in text and "East" in text
        assert "(the players' hands stay hidden, R9.2)" in text  # a spectator's view has no hand


async def test_a_new_deal_deals_a_new_hand_sorted_afresh() -> None:
    """A card of the last deal's hand may come again in the next: the new hand is still
    a new hand (sorted, numbered from the left), not the old one with cards added."""
    app = TableHarness(meld_position("7h 8h 9h 2c Qs"), bots=False)
    async with app.run_test() as pilot:
        await pilot.press("home", "shift+right")  # an own order in deal 1
        app.game = position(["Qs 3h 9c", *OTHERS], current=0, phase="draw", deal=2)
        app.show([])
        await pilot.pause()
        assert hand_of(app).order == tuple(cards("9c 3h Qs")) and hand_of(app).fresh == set()
