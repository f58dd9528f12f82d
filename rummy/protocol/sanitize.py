"""The one place where text from a player (names, chat, table names) is cleaned.

``sanitize(text, limit)``: removes terminal escape sequences (CSI, OSC, DCS and
other ESC forms), every control and format character (C0, C1, DEL, bidi
overrides, zero-width joiners...), turns any run of whitespace into one space,
strips the ends and trims to ``limit`` characters. What is left is safe to put
on a terminal as plain text. The server applies it to everything a player
sends before anyone else sees it; a client may apply it again to be sure.
"""

from __future__ import annotations

import re
import unicodedata

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
_SPACES = re.compile(r"\s+")


def _visible(ch: str) -> bool:
    # Cc: controls (C0, DEL, C1); Cf: format (bidi overrides, zero-width); Cs/Co/Cn:
    # surrogates, private use, unassigned: none has a place in a name or a chat line.
    return ch.isspace() or unicodedata.category(ch)[0] != "C"


def sanitize(text: str, limit: int) -> str:
    """``text`` as plain, single-line, printable text of at most ``limit`` characters."""
    text = _ESCAPES.sub("", text)
    text = "".join(ch if _visible(ch) else "" for ch in text)
    text = _SPACES.sub(" ", text).strip()
    return text[:limit].rstrip()
