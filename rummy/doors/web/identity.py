"""Who is at the other end of a browser session, and where their client keeps state.

Anyone can type any name, so the name is only a display name. What gives a
seat back is a random secret the browser keeps in a cookie (``rummy_browser``,
256 bits, HttpOnly, SameSite=Strict): each secret gets its own client state
directory, named by the secret's SHA-256 so that the directory listing does not
reveal the secrets. The client keeps its seat tokens there, so a reload, or
coming back later in the same browser, finds the seat again, and another
browser never does. The name typed once is kept in a second cookie
(``rummy_name``) so that nothing is written on the host before a game starts.

Limits (also in the README): the identity is the browser profile's cookie jar.
Clearing cookies, a private window, another browser or another device is a new
identity (and the seat cannot be taken back from there); whoever copies the
cookie gets the seat; on plain HTTP the cookie crosses the network readable,
so host it behind HTTPS. A browser forgets the cookie 400 days after its last
visit; the directory of an identity unused that long is deleted.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import secrets
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote

from rummy.protocol import NAME_LIMIT, sanitize

COOKIE = "rummy_browser"
NAME_COOKIE = "rummy_name"
# Chrome keeps no cookie longer than 400 days; every visit sets it again.
COOKIE_MAX_AGE = 400 * 24 * 3600
# Identity directories live here, under the server's state directory.
WEB_DIR = "web"
_SECRET = re.compile(r"[A-Za-z0-9_-]{43}")  # token_urlsafe(32)


@dataclass(frozen=True)
class BrowserId:
    """The secret one browser presents in its cookie."""

    secret: str

    @classmethod
    def new(cls) -> BrowserId:
        return cls(secrets.token_urlsafe(32))

    @classmethod
    def parse(cls, value: str | None) -> BrowserId | None:
        """The id in a cookie value, or None if it is not one we could have made
        (so a made-up value never names a path or a directory of its own)."""
        if value is None or not _SECRET.fullmatch(value):
            return None
        return cls(value)

    @property
    def key_id(self) -> str:
        """The SHA-256 of the secret in hex: the directory's name."""
        return hashlib.sha256(self.secret.encode("ascii")).hexdigest()

    def __repr__(self) -> str:  # never the secret in a log line
        return f"BrowserId({self.key_id[:12]}...)"


def identity_dir(state_dir: Path, browser: BrowserId) -> Path:
    """``<state_dir>/web/<key_id>``, made private if new and marked as used now."""
    root = state_dir / WEB_DIR
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = root / browser.key_id
    path.mkdir(mode=0o700, exist_ok=True)
    path.touch()  # a directory's mtime says when its identity was last seen
    return path


def forget_stale(state_dir: Path, max_age: float = COOKIE_MAX_AGE, now: float | None = None) -> int:
    """Delete the identity directories not used for ``max_age`` seconds: no
    browser can still hold their cookie. Returns how many went."""
    root = state_dir / WEB_DIR
    cutoff = (time.time() if now is None else now) - max_age
    removed = 0
    with contextlib.suppress(FileNotFoundError):
        for entry in root.iterdir():
            with contextlib.suppress(OSError):
                if entry.is_dir() and entry.stat().st_mtime < cutoff:
                    shutil.rmtree(entry)
                    removed += 1
    return removed


def clean_name(text: str | None) -> str | None:
    """A display name as the protocol would keep it, or None if nothing is left."""
    if text is None:
        return None
    return sanitize(text, NAME_LIMIT) or None


def name_from_cookie(value: str | None) -> str | None:
    return None if value is None else clean_name(unquote(value))


def name_cookie_value(name: str) -> str:
    """The name percent-encoded, so any letter survives as a cookie value."""
    return quote(name, safe="")
