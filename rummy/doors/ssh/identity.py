"""Who is at the other end of an SSH session, and where their client keeps state.

Anyone can type any user name, so the name is only a display name. The
identity that gives a seat back is the public key the client proved it
holds: each key gets its own client state directory (the client keeps its
seat tokens there), and a session without a key gets a fresh, empty one that
is deleted when the session ends.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from rummy.protocol import NAME_LIMIT

SSH_DIR = "ssh"  # under the state directory: a directory for each player's key
# The protocol's limit: the client would cut a longer name anyway.
MAX_NAME_LENGTH = NAME_LIMIT
_NAME_PUNCTUATION = frozenset("-_.")
DEFAULT_NAME = "player"


def sanitize_name(user_name: str) -> str:
    """A display name from an SSH user name: letters, digits and ``-_.``
    only (no control characters, spaces or markup), at most ``NAME_LIMIT``
    characters (the protocol's limit); ``player`` if nothing is left."""
    kept = [
        ch
        for ch in unicodedata.normalize("NFC", user_name)
        if ch in _NAME_PUNCTUATION or (ch.isalnum() and unicodedata.category(ch)[0] in "LN")
    ]
    name = "".join(kept)[:MAX_NAME_LENGTH].strip("-_.")
    return name or DEFAULT_NAME


@dataclass(frozen=True)
class Identity:
    """An authenticated SSH user: the name they typed and, if they proved
    they hold one, their public key."""

    user_name: str
    key: asyncssh.SSHKey | None

    @property
    def display_name(self) -> str:
        return sanitize_name(self.user_name)

    @property
    def fingerprint(self) -> str | None:
        """OpenSSH's form, ``SHA256:...`` (what ``ssh-keygen -l`` prints)."""
        return None if self.key is None else self.key.get_fingerprint("sha256")

    @property
    def key_id(self) -> str | None:
        """The SHA-256 of the public key in hex: the fingerprint spelled with
        characters that are safe in a file name on any file system."""
        return None if self.key is None else hashlib.sha256(self.key.public_data).hexdigest()


class ClientStateDir:
    """The RUMMY_STATE_DIR for one session's client.

    With a key: ``<state_dir>/ssh/<key_id>``, kept across sessions, so the
    same key finds its seat tokens again. Without: a new temporary
    directory, removed by ``release()``.
    """

    def __init__(self, path: Path, temporary: bool) -> None:
        self.path = path
        self.temporary = temporary

    @classmethod
    def for_identity(cls, identity: Identity, state_dir: str | Path) -> ClientStateDir:
        key_id = identity.key_id
        if key_id is None:
            return cls(Path(tempfile.mkdtemp(prefix="rummy-ssh-")), temporary=True)
        root = Path(state_dir) / SSH_DIR
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = root / key_id
        path.mkdir(mode=0o700, exist_ok=True)
        return cls(path, temporary=False)

    def release(self) -> None:
        if self.temporary:
            shutil.rmtree(self.path, ignore_errors=True)
