"""How the player asked for cards to be drawn: in plain ASCII or not, with two
colours or four (one per suit). One value, passed down to everything that shows a
card: the faces of the table (``widgets.table.faces``) and every card named in text
(``text.card``: the log, the seats, the hints, the deal's end).

The inks here are for the ivory faces; text on the terminal's own background takes
its colours in ``text.card_style``, as it must read on dark and light themes alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from rummy.engine import Card, card_text
from rummy.engine.cards import SUIT

INK = {  # suit -> colour on an ivory face: clubs, diamonds, hearts, spades, Joker
    False: ("#1b1b1b", "#c0262d", "#c0262d", "#1b1b1b", "#8e3cb0"),
    True: ("#1f7a3a", "#1c5fbf", "#c0262d", "#1b1b1b", "#8e3cb0"),  # four colours
}


@dataclass(frozen=True, slots=True)
class Look:
    """How cards are drawn: ``ascii`` for plain-ASCII terminals, ``four_colour`` for a
    pack with one colour per suit."""

    ascii: bool = False
    four_colour: bool = False

    def ink(self, card: Card) -> str:
        """The card's colour on a face."""
        return INK[self.four_colour][SUIT[card]]

    def text(self, card: Card) -> str:
        return card_text(card, self.ascii)


DEFAULT_LOOK = Look()  # suits as symbols, two colours: where no choice was passed down
