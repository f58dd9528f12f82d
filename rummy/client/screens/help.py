"""Help, in three pages: the keys of the screen underneath, how to play (for someone
who never played rummy), and the project's rule book (docs/RULES.md, shipped with
the package). 1, 2, 3 or left/right turn the pages; the arrow keys scroll.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Sequence
from typing import ClassVar, Literal

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ..text import to_ascii
from .dialog import Dialog

Page = Literal["keys", "how", "rules"]
KEY_TEXT_WIDTH = 46
PAGES: tuple[tuple[Page, str], ...] = (("keys", "Keys"), ("how", "How to play"), ("rules", "Rule book"))

HOW_TO_PLAY = """\
# How to play, in two minutes

Persian Rummy is played by four, in two teams of two: your partner sits across
the table from you (at the top of the screen), the other team to your left and
right. A game is two deals; the team with more points after both wins.

## Your turn: draw, meld, discard

1. **Draw.** Press **s** to take the top card of the stock (the face-down pile).
   Or take from the discard pile (the face-up cards, all of them shown, the
   newest last): press **t** to take at the marked card (of the cards you can
   use, the newest: the fewest to take), or tab to the pile and pick another.
   You take that card and every card after it, and you must use the card you
   picked at once, in a meld or on a meld already on the table. The game offers
   only the takes that are allowed.
2. **Meld** (if you can). A meld is three or four cards of one rank (a *set*:
   7 7 7), or three or more cards of one suit in a row (a *run*: 5 6 7 of
   hearts). Aces are high only: Q K A is a run, A 2 3 is not. Jokers are not
   wild: they only make a set of their own (three or four Jokers). Select cards
   with the number keys (or arrows and space) and press **m**. You may also add
   a card to any meld on the table, yours or anyone's: select it and press **l**.
3. **Discard.** Select one card and press **d**: that ends your turn.

If you empty your hand by melding, you *go out*: the deal ends at once. (A hand
emptied by the discard is not out: the player draws again next turn.) When the
stock runs out, take from the discard pile if you can use a card of it, or pass
with **p**; four passes in a row end the deal.

## Scoring

At a deal's end each team scores the points of every card it laid on the table,
minus the points of the cards still in its hands, plus 25 if one of its players
went out. Points: Joker 20, Ace 15, K Q J and 10 count 10, 2 to 9 their number.
Four of a kind laid down at once count double.

## Tips

- Press **h** for hints: the cards, pile cards and melds you could play now are
  marked with a dot, turn after turn, until **h** hides them again.
- Your cards keep their places (and their numbers) until you sort (**o**) or
  move one (**<** and **>**); a new card goes to the right end, marked *new*,
  with the cursor on it.
- The line above your hand always says what you can do now.
- The rule book (the next page) settles every question.
"""


MARKDOWN_WIDTH = 72  # the dialog's words at 80x24 (74 columns inside, its scroll bar beside)
LIST_ITEM = re.compile(r"^\s*(?:[-*]|\d+\.)\s+")
SPAN = re.compile(r"\*\*[^*]+\*\*|\*[^*]+\*|`[^`]+`")
KEEP_TOGETHER = "\x00"  # a space inside a styled span while the text is wrapped
# A list of suits or ranks ("♣ ♦ ♥ ♠", "2 3 4 ... K A"; in ASCII "c d h s"): three
# or more of them in a row are one piece, not wrapped as "♣ ♦ ♥" above a lone "♠".
_CARD_WORD = r"(?:[♣♦♥♠cdhsJQKA]|10|[2-9])"
CARD_LIST = re.compile(rf"(?<!\S){_CARD_WORD}(?: {_CARD_WORD}){{2,}}(?=[\s,.;)]|$)")


def reflow(source: str, width: int = MARKDOWN_WIDTH) -> list[str]:
    """Markdown's lines wrapped anew at ``width``: the source is wrapped at 80 columns,
    and a line of it wrapped again in a narrower dialog left a word or two on a line
    of its own. A paragraph's or a list item's lines are joined, then wrapped, a list
    item's under its own words; a styled span (``**Ruling:**``) is never cut."""
    blocks: list[tuple[str, int]] = []  # (text, indent of its lines after the first)
    joining = False  # the line before is a paragraph's or a list item's
    for raw in source.splitlines():
        line = raw.strip()
        item = LIST_ITEM.match(raw)
        if not line or line.startswith("#"):
            blocks.append((line, 0))
            joining = False
        elif item:
            blocks.append((raw.rstrip(), len(item.group(0))))
            joining = True
        elif joining:
            text, indent = blocks[-1]
            blocks[-1] = (f"{text} {line}", indent)
        else:
            blocks.append((line, 0))
            joining = True
    lines: list[str] = []
    for text, indent in blocks:
        if not text or text.startswith("#"):
            lines.append(text)
            continue
        kept = SPAN.sub(_together, CARD_LIST.sub(_together, text))
        wrapped = textwrap.wrap(kept, width, subsequent_indent=" " * indent, break_on_hyphens=False)
        lines += [piece.replace(KEEP_TOGETHER, " ") for piece in wrapped]
    return lines


def _together(piece: re.Match[str]) -> str:
    return piece.group(0).replace(" ", KEEP_TOGETHER)


def markdown_lines(source: str, ascii: bool) -> list[Content]:
    """Markdown as the rule book and this help use it, as lines to read in a terminal:
    headings bold, **strong** words bold, *emphasis* italic, paragraphs and list
    items wrapped to the dialog (``reflow``)."""
    lines: list[Content] = []
    for line in reflow(to_ascii(source) if ascii else source):
        heading = re.match(r"^(#+)\s+(.*)", line)
        if heading:
            style = "bold underline" if len(heading.group(1)) <= 2 else "bold"
            if lines and lines[-1].plain:
                lines.append(Content(""))
            lines.append(Content.styled(heading.group(2), style))
            continue
        parts: list[Content | tuple[str, str] | str] = []
        for piece in re.split(r"(\*\*[^*]+\*\*|\*[^*]+\*|`[^`]+`)", line):
            if piece.startswith("**") and piece.endswith("**") and len(piece) > 4:
                parts.append((piece[2:-2], "bold"))
            elif piece.startswith("*") and piece.endswith("*") and len(piece) > 2:
                parts.append((piece[1:-1], "italic"))
            elif piece.startswith("`") and piece.endswith("`") and len(piece) > 2:
                parts.append((piece[1:-1], "bold"))
            elif piece:
                parts.append(piece)
        lines.append(Content.assemble(*parts))
    return lines


def rule_book_text() -> str:
    """The project's rule book as shipped with the package; a sentence if it is missing."""
    try:
        from rummy.rulebook import rule_book

        return rule_book()
    except (ImportError, OSError):
        return "# Rule book\n\nThe rule book is not installed with this copy of the game (docs/RULES.md)."


class HelpScreen(Dialog[None]):
    """The help pages; ``keys`` are the groups of keys of the screen underneath."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "Close"),
        Binding("1", "page('keys')", "Keys", show=False),
        Binding("2", "page('how')", "How to play", show=False),
        Binding("3", "page('rules')", "Rule book", show=False),
        Binding("left", "turn(-1)", "Previous page", show=False),
        Binding("right,tab", "turn(1)", "Next page", show=False),
    ]

    def __init__(
        self,
        title: str,
        keys: Iterable[tuple[str, Sequence[tuple[str, str]]]],
        ascii: bool = False,
        page: Page = "keys",
    ) -> None:
        super().__init__()
        self.title_text = title
        self.keys = list(keys)
        self.ascii = ascii
        self.page: Page = page
        self.tabs = Static(classes="help-tabs")
        self.body = Static(classes="help-body")
        self.scroller = VerticalScroll(self.body, classes="help-scroll")

    def contents(self) -> ComposeResult:
        with Vertical(classes="dialog help"):
            yield self.tabs
            yield self.scroller
            yield Static(Content.styled("1 2 3 or left/right: pages; up/down: scroll; escape closes.", "dim"))

    def on_mount(self) -> None:
        self._show()
        self.scroller.focus()

    def page_lines(self, page: Page) -> list[Content]:
        if page == "how":
            return markdown_lines(HOW_TO_PLAY, self.ascii)
        if page == "rules":
            return markdown_lines(rule_book_text(), self.ascii)
        lines: list[Content] = [Content.styled(self.title_text, "bold"), Content("")]
        for heading, keys in self.keys:
            lines.append(Content.styled(heading, "bold underline"))
            for key, what in keys:
                key_text, what_text = (to_ascii(key), to_ascii(what)) if self.ascii else (key, what)
                # A long sentence wraps under its own column, never under the keys (the
                # dialog is 74 columns inside at 80x24: 26 for the keys, 46 for the words).
                for k, words in enumerate(textwrap.wrap(what_text, KEY_TEXT_WIDTH) or [""]):
                    lines.append(Content.assemble((f"  {key_text if k == 0 else '':<23} ", "bold"), words))
            lines.append(Content(""))
        return lines

    def _show(self) -> None:
        tabs: list[Content | tuple[str, str] | str] = []
        for i, (page, name) in enumerate(PAGES):
            label = f" {i + 1} {name} "
            tabs.append((label, "bold reverse") if page == self.page else (label, "dim"))
            tabs.append("  ")
        self.tabs.update(Content.assemble(*tabs))
        self.body.update(Content("\n").join(self.page_lines(self.page)))
        self.scroller.scroll_home(animate=False)

    def action_page(self, page: Page) -> None:
        self.page = page
        self._show()

    def action_turn(self, step: int) -> None:
        names = [p for p, _ in PAGES]
        self.action_page(names[(names.index(self.page) + step) % len(names)])

    def action_close(self) -> None:
        self.dismiss(None)
