"""The four-colour pack (``--four-colour``) everywhere a card is named: the log, the
seats' last moves, the hint line and the deal's end colour each suit as the faces do,
so that a ♦ is not blue on the cards and red in the words around them.

A player tells the suits apart by colour at a glance; so the tests read the colour
each card is written in, and compare a ♦ with a ♥ (one colour in the two-colour pack,
two with four).
"""

from __future__ import annotations

import pytest
from textual.content import Content
from textual.style import Style
from textual.widgets import Static

from rummy.client import text
from rummy.client.look import Look
from rummy.client.screens.results import DealEndScreen
from rummy.engine import Card, Game
from rummy.engine.positions import c, position
from tests.client.harness import TableHarness
from tests.client.test_table import pick
from tests.support import eventually

# South melds 7♥ 8♥ 9♥ and discards 5♦ (or goes out with the three alone); the others hold
# every suit, so that the deal's end names a ♦ and a ♥ in one hand.
HANDS = ["7h 8h 9h 5d Qc", "2d 3h 4d 5c 6c Kh", "2s 3s 4s 5s 6s 7s", "3c 4c 7c Ac 9d 10h"]


def four_suits_game(hand: str = HANDS[0]) -> Game:
    return position([hand, *HANDS[1:]], discard="Kd", current=0, phase="meld")


def ink(line: Content, card: str) -> Style:
    """The style the first ``card`` (as written, "5♦") of ``line`` is drawn in."""
    start = line.plain.index(card)
    styles = [span.style for span in line.spans if span.start <= start < span.end]
    assert styles, f"{card} is not styled in {line.plain!r}"
    style = styles[-1]
    return Style.parse(style) if isinstance(style, str) else style


def colours(line: Content, *cards: str) -> list[object]:
    return [ink(line, card).foreground for card in cards]


def test_card_style_has_four_colours_and_two_as_before() -> None:
    """Two colours: ♦ and ♥ red, ♣ and ♠ in the text's colour (as ever). Four: each
    suit its own, hearts and spades as in two."""
    two = [text.card_style(c(card)) for card in ("2c", "2d", "2h", "2s", "JK")]
    assert two == ["bold", "bold red", "bold red", "bold", "bold magenta"]
    four = [text.card_style(c(card), four_colour=True) for card in ("2c", "2d", "2h", "2s")]
    assert len(set(four)) == 4
    assert four[2:] == two[2:4]
    assert text.card(c("2d"), Look(ascii=True, four_colour=True)).plain == "2d"


@pytest.mark.parametrize("four", [False, True], ids=["two-colours", "four-colours"])
async def test_the_log_and_the_seat_name_a_diamond_in_its_own_colour(four: bool) -> None:
    """The log ("melded 7♥ 8♥ 9♥, discarded 5♦") and the seat's last move
    ("discarded 5♦") write the ♦ blue and the ♥ red with four colours; with two, both
    red as before."""
    app = TableHarness(four_suits_game(), bots=False, four_colour=four)
    async with app.run_test(size=(100, 32)) as pilot:
        await pick(pilot, app, "7h", "8h", "9h")
        await pilot.press("m")
        await eventually(lambda: "melded" in app.table.log_view.plain_text, pause=pilot.pause)
        await pick(pilot, app, "5d")
        await pilot.press("d")
        await eventually(lambda: "discarded 5♦" in app.table.log_view.plain_text, pause=pilot.pause)
        line = next(line for line in app.table.log_view.lines if "discarded 5♦" in line.plain)
        diamond, heart = colours(line, "5♦", "7♥")
        south = app.table.board.seats["south"]
        size = south.content_size
        panel = next(line for line in south.lines(size.width, size.height) if "discarded 5♦" in line.plain)
        (in_panel,) = colours(panel, "5♦")
        assert in_panel == diamond
        assert (diamond != heart) is four, line.plain


@pytest.mark.parametrize("four", [False, True], ids=["two-colours", "four-colours"])
@pytest.mark.parametrize("ascii", [False, True], ids=["suits", "ascii"])
async def test_the_deals_end_names_each_suit_in_its_own_colour(ascii: bool, four: bool) -> None:
    """The hands at the deal's end (R7.2): West's 2♦ and 3♥, East's 3♣ and North's
    2♠ in four colours (in ASCII too: 2d, 3h), as on the faces; with two, ♦ like ♥."""
    app = TableHarness(four_suits_game("7h 8h 9h"), bots=False, four_colour=four, ascii=ascii)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press("1", "2", "3", "m", "y")
        await eventually(lambda: isinstance(app.screen, DealEndScreen), pause=pilot.pause)
        shown = app.screen.query_one("#breakdown", Static).content
        assert isinstance(shown, Content)
        named = ("2d", "3h", "3c", "2s") if ascii else ("2♦", "3♥", "3♣", "2♠")
        diamond, heart, club, spade = colours(shown, *named)
        if four:
            assert len({diamond, heart, club, spade}) == 4
        else:
            assert diamond == heart and club == spade


def test_the_hint_line_and_the_choice_of_a_move_name_cards_in_four_colours() -> None:
    """The line under the table ("Meld ready: 5♦ 6♦ 7♦") and the list a move is
    chosen from ("Discard 9♥") write the cards as the faces do: ♦ blue with four
    colours, red with two."""
    from rummy.client.advice import move_words, prompt
    from rummy.client.model import SeatInfo, Seats
    from rummy.engine import Discard, view_for

    game = four_suits_game("5d 6d 7d 9h")
    seats = Seats(tuple(SeatInfo(n) for n in ("Ann", "Bob", "Cy", "Di")), me=0)
    view = view_for(game, 0)
    run: list[Card] = [c("5d"), c("6d"), c("7d")]
    red, blue = Style.parse("red").foreground, Style.parse(text.DIAMONDS_BLUE).foreground
    for look, diamonds in ((Look(), red), (Look(four_colour=True), blue)):
        line = prompt(view, seats, run, look)
        assert line.plain == "Meld ready: 5♦ 6♦ 7♦. m melds them."
        assert colours(line, "5♦", "6♦", "7♦") == [diamonds] * 3
        option = move_words(Discard(c("9h")), view, seats, look)
        assert option.plain == "Discard 9♥"
        assert colours(option, "9♥") == [red]
