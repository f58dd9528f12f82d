"""Text for the screen: cards, seats, teams, and text that came from other players.

Everything a player typed (names, chat, table names) goes through ``clean`` and
is only ever put on screen as a literal ``Content`` (never parsed as markup), so
``[bold]`` or an escape sequence in a name shows as the characters it is, minus
the control characters that a terminal would act on.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.content import Content

from rummy.engine import SEAT_NAMES, Card, card_text
from rummy.engine.cards import SUIT
from rummy.protocol import sanitize

from .look import DEFAULT_LOOK, Look

SEAT_LETTERS = ("S", "W", "N", "E")
TEAM_NAMES = ("N–S", "E–W")  # team 0 = seats 0+2 (South, North), team 1 = seats 1+3
TEAM_NAMES_ASCII = ("N-S", "E-W")


def clean(text: str, limit: int = 200) -> str:
    """``text`` as it may be shown: the protocol's sanitizer (escape sequences, control
    and format characters removed, one line, at most ``limit`` characters). The
    server applies it already; the client applies it again so as not to depend on it."""
    return sanitize(text, limit)


def plain(text: str, style: str = "", limit: int = 200, width: int = 0) -> Content:
    """Player-supplied text as literal content: markup in it does nothing. With
    ``width``, cut to that many columns and padded to it (after cleaning, which trims
    spaces): a name in Chinese or with emoji takes two columns a character."""
    shown = Content.styled(clean(text, limit), style)
    return shown.truncate(width, pad=True) if width else shown


def cut(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` columns of the terminal (not characters)."""
    return Content(text).truncate(width).plain.rstrip()


def fit_cell(cell: Text, width: int, ascii: bool) -> Text:
    """A cell of a list (a ``DataTable``) within its column, cut with an ellipsis: "..."
    in ASCII, where the grid's own "…" was the one character outside ASCII."""
    if not ascii or cell.cell_len <= width:
        cell.overflow = "ellipsis"
        return cell
    cell.truncate(max(0, width - 3), overflow="crop")
    cell.append("...")
    return cell


def team_name(team: int, ascii: bool = False) -> str:
    return (TEAM_NAMES_ASCII if ascii else TEAM_NAMES)[team]


def seat_name(seat: int) -> str:
    return SEAT_NAMES[seat]


# The four-colour pack's clubs and diamonds in text on the terminal's own background:
# as light as the hearts' red (#ff0000), so that they read as well as it does on dark
# themes and light ones alike (on every built-in theme their contrast is within 0.15
# of the red's: 3.4:1 on textual-dark's panel, under the log, 2.6:1 on textual-light's).
# The faces' inks are darker, for ivory. Plain "green" and "blue" (#008000, #0000ff)
# are too dark on black; Textual's ANSI blue turns violet, next to the Jokers' magenta,
# on the themes that are not ansi-*.
CLUBS_GREEN = "#1c9438"
DIAMONDS_BLUE = "#3a76f0"


def card_style(card: Card, four_colour: bool = False) -> str:
    """Red suits red, Jokers magenta, black suits in the text colour; always bold so
    that the cards stand out from the words around them, even in 16 colours. With
    ``four_colour``, as on the faces: clubs green, diamonds blue (hearts red, spades in
    the text colour, which is the black of a light theme)."""
    s = SUIT[card]
    if s == 4:
        return "bold magenta"
    if four_colour and s == 0:
        return f"bold {CLUBS_GREEN}"
    if four_colour and s == 1:
        return f"bold {DIAMONDS_BLUE}"
    if s in (1, 2):
        return "bold red"
    return "bold"


def card(card: Card, look: Look = DEFAULT_LOOK, extra: str = "") -> Content:
    """One card, styled as the player chose (``look``: ASCII, four colours)."""
    style = card_style(card, look.four_colour)
    return Content.styled(look.text(card), f"{style} {extra}".strip())


def cards(cards: Iterable[Card], look: Look = DEFAULT_LOOK, sep: str = " ") -> Content:
    parts: list[Content | str] = []
    for i, c in enumerate(cards):
        if i:
            parts.append(sep)
        parts.append(card(c, look))
    return Content.assemble(*parts)


def cards_words(cards: Iterable[Card], ascii: bool = False) -> str:
    """Cards as unstyled text, for sentences and notifications."""
    return " ".join(card_text(c, ascii) for c in cards)


# Characters of our own texts (the rule book, sentences) and their plain-ASCII forms.
ASCII_FORMS = str.maketrans(
    {
        "♣": "c",
        "♦": "d",
        "♥": "h",
        "♠": "s",
        "–": "-",
        "—": "-",
        "…": "...",
        "→": "->",
        "←": "<-",
        "⏎": "enter",
        "×": "x",
        "‘": "'",
        "’": "'",
        "“": '"',
        "”": '"',
        "•": "*",
        "≥": ">=",
        "≤": "<=",
        "▶": ">",
        "↑": "^",
        "↓": "v",
        "★": "*",
        "±": "+/-",
        "\u00a0": " ",
    }
)


def to_ascii(words: str) -> str:
    """``words`` in plain ASCII (for ``--ascii``): known signs spelled out, anything
    else left non-ASCII becomes '?'."""
    return words.translate(ASCII_FORMS).encode("ascii", "replace").decode("ascii")


def fit(line: Content, width: int, ascii: bool = False) -> Content:
    """``line`` cut to ``width`` cells, ending in an ellipsis when cut ("..." with
    ``--ascii``: Textual's own ellipsis is not ASCII)."""
    if line.cell_length <= width:
        return line
    if not ascii:
        return line.truncate(width, ellipsis=True)
    return Content.assemble(line.truncate(max(0, width - 3)), "...").truncate(width)
