"""Text for the screen: cards, seats, teams, and text that came from other players.

Everything a player typed (names, chat, table names) goes through ``clean`` and
is only ever put on screen as a literal ``Content`` (never parsed as markup), so
``[bold]`` or an escape sequence in a name shows as the characters it is, minus
the control characters that a terminal would act on.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from textual.content import Content

from rummy.engine import SEAT_NAMES, Card, card_text
from rummy.engine.cards import SUIT

# C0 and C1 controls (ESC among them), DEL, and the invisible formatting characters
# that can reorder or hide text (bidi overrides, zero-width characters).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")

SEAT_LETTERS = ("S", "W", "N", "E")
TEAM_NAMES = ("N–S", "E–W")  # team 0 = seats 0+2 (South, North), team 1 = seats 1+3
TEAM_NAMES_ASCII = ("N-S", "E-W")


def clean(text: str, limit: int = 200) -> str:
    """``text`` without control or invisible formatting characters, at most ``limit``
    characters: what may be shown of a string another player chose."""
    text = unicodedata.normalize("NFC", text)
    return _UNSAFE.sub("", text)[:limit]


def plain(text: str, style: str = "", limit: int = 200) -> Content:
    """Player-supplied text as literal content: markup in it does nothing."""
    return Content.styled(clean(text, limit), style)


def team_name(team: int, ascii: bool = False) -> str:
    return (TEAM_NAMES_ASCII if ascii else TEAM_NAMES)[team]


def seat_name(seat: int) -> str:
    return SEAT_NAMES[seat]


def card_style(card: Card) -> str:
    """Red suits red, Jokers magenta, black suits in the text colour; always bold so
    that the cards stand out from the words around them, even in 16 colours."""
    s = SUIT[card]
    if s == 4:
        return "bold magenta"
    if s in (1, 2):
        return "bold red"
    return "bold"


def card(card: Card, ascii: bool = False, extra: str = "") -> Content:
    """One card, styled."""
    style = card_style(card)
    return Content.styled(card_text(card, ascii), f"{style} {extra}".strip())


def cards(cards: Iterable[Card], ascii: bool = False, sep: str = " ") -> Content:
    parts: list[Content | str] = []
    for i, c in enumerate(cards):
        if i:
            parts.append(sep)
        parts.append(card(c, ascii))
    return Content.assemble(*parts)


def cards_words(cards: Iterable[Card], ascii: bool = False) -> str:
    """Cards as unstyled text, for sentences and notifications."""
    return " ".join(card_text(c, ascii) for c in cards)
