"""Where a door keeps its players' own directories (``<state_dir>/ssh``,
``<state_dir>/web``): made private, and tried when the door starts, so that a host
hears at once of a state directory that cannot be used, not from the first player
who comes (whose session then could not start)."""

from __future__ import annotations

import tempfile
from pathlib import Path


class StateDirError(Exception):
    """The players' directory cannot be made or written in; the message says why."""


def players_root(state_dir: Path, door: str) -> Path:
    """``<state_dir>/<door>``, made (private) if it is not there, and written in once."""
    root = state_dir / door
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        # Written in, not asked (os.access): root may write where the mode says no,
        # and a read-only file system says no whatever the mode.
        Path(tempfile.mkdtemp(prefix=".tried-", dir=root)).rmdir()
    except OSError as exc:
        raise StateDirError(f"cannot keep the players' state in {root}: {exc.strerror or exc}") from None
    return root
