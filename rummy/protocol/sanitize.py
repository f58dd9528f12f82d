"""The one place where text from a player (names, chat, table names) is cleaned.

``sanitize(text, limit)``: removes terminal escape sequences (CSI, OSC, DCS and
other ESC forms), every control and format character (C0, C1, DEL, bidi
overrides, zero-width joiners...), turns any run of whitespace into one space,
strips the ends and trims to ``limit`` characters. Only the first few times
``limit`` characters are looked at, so the work per line is bounded. What is left is safe to put
on a terminal as plain text. The server applies it to everything a player
sends before anyone else sees it; a client may apply it again to be sure.

``default_table_name(opener, taken)``: the name a table gets when its opener gives
none, one that no table in ``taken`` has.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection

NAME_LIMIT = 24
TABLE_NAME_LIMIT = 40
CHAT_LIMIT = 300

# ESC [ ... final byte | ESC ] ... (BEL or ESC \) | ESC P/X/^/_ ... ESC \ | ESC + one char;
# and the 8-bit CSI/OSC/DCS introducers. Removed whole so no parameters are left behind.
_ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b\]|\x9d).*?(?:\x07|\x1b\\|\x9c|$)"
    r"|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f]).*?(?:\x1b\\|\x9c|$)"
    r"|\x1b[ -/]*[0-~]?",
    re.DOTALL,
)
_INTRODUCER = re.compile(r"[\x1b\x90\x98\x9b\x9d\x9e\x9f]")
_SPACES = re.compile(r"\s+")


def _visible(ch: str) -> bool:
    # Cc: controls (C0, DEL, C1); Cf: format (bidi overrides, zero-width); Cs/Co/Cn:
    # surrogates, private use, unassigned: none has a place in a name or a chat line.
    return ch.isspace() or unicodedata.category(ch)[0] != "C"


# Only this many times ``limit`` characters of the text are looked at: the rest could
# not be shown anyway, and cleaning a whole 2,000-character chat line of combining
# marks took 1.8 ms, so a few spectators chatting at the allowed rate starved a server.
LOOK_AHEAD = 2


def sanitize(text: str, limit: int) -> str:
    """``text`` as plain, single-line, printable text of at most ``limit`` characters
    (from its first ``LOOK_AHEAD * limit``)."""
    text = text[: LOOK_AHEAD * limit]
    if _INTRODUCER.search(text):  # a one-character scan first: most text has no escapes
        text = _ESCAPES.sub("", text)
    if not text.isprintable():  # the common case skips the loop: isprintable is C-speed
        text = "".join(ch if _visible(ch) else "" for ch in text)
    text = _SPACES.sub(" ", text).strip()
    return text[:limit].rstrip()


def default_table_name(opener: str, taken: Collection[str]) -> str:
    """The opener's "Ana's table", or "Ana's table 2", 3... while a table in ``taken`` has it:
    friends on one login (all "root"), or one player who opened a table before, got
    lobby rows of the same name and could not tell which to join. The number is last and
    short, so it shows in the lobby's narrow column for a short name; the client
    prefills its form with this and the server falls back to it for an empty name."""
    base = f"{sanitize(opener, NAME_LIMIT)}'s table"
    # One of the first len(taken) + 1 numbers is free: the loop is bounded by the lobby.
    for number in range(1, len(taken) + 2):
        name = base if number == 1 else f"{base} {number}"
        if name not in taken:
            return name
    return base  # not reached: len(taken) + 1 names cannot all be taken
