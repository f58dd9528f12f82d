"""What the client remembers between runs: the player's name, seat tokens, the
hand's order, the offers already made, and the games the player chose to save
(``replays/``, in the record format).

One small JSON file in the user's state directory (platformdirs'
``user_state_dir("rummy")``, or ``$RUMMY_STATE_DIR`` when set: the SSH server
sets it per key). A seat token is the only way back to a chair, so the file is
private to the user and written atomically. A damaged file is set aside, never
fatal.

A token belongs to one player at one server: it is kept under ``seat_key(server,
name)``, so Cid's client never offers Dee's token. Two clients that run at once
for the same player and server (from one state directory) would offer the same
token and take the chair from each other; ``SeatLock`` lets only the first one use
the remembered token, and the second is told so.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shlex
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from rummy.protocol import GameRecordWire, encode_record_file

FILE_NAME = "client.json"
REPLAYS = "replays"
LOCAL = "local"  # the server of the game against bots, inside the client
# The offer of how to play, made once, at the first game against bots (which waits
# for its answer before it starts: ``RummyApp``).
HOW_TO_PLAY_OFFERED = "how_to_play_offered"


def seat_key(server: str, name: str) -> str:
    """Where a seat token is kept: per server ("host:port", or ``LOCAL``) and player."""
    return server if server == LOCAL else f"{server} as {name}"


def state_dir() -> Path:
    env = os.environ.get("RUMMY_STATE_DIR")
    return Path(env) if env else Path(platformdirs.user_state_dir("rummy"))


@dataclass(frozen=True, slots=True)
class HandMemory:
    """The order a player keeps their hand in, for one deal: ``place`` is (table id,
    games started at that table, deal), so an order is never applied to another deal."""

    place: tuple[int, int, int]
    order: tuple[int, ...]
    # The cards marked new (drawn or taken this turn): the deal's story tells a client
    # coming back what its seat took from the pile, but never what it drew (R9.2).
    fresh: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class SeatToken:
    token: str
    table_id: int
    chair: int


class StateStore:
    """The remembered name and the seat tokens, one per ``seat_key(server, name)``."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else state_dir()
        self.path = self.directory / FILE_NAME
        self._data: dict[str, Any] = self._load()

    @contextlib.contextmanager
    def _changing(self) -> Iterator[dict[str, Any]]:
        """Read, change and write the file as one step: other clients running from
        this directory write it too (their own seats), and none may undo another's."""
        with _locked(self.directory / ".client.lock"):
            self._data = self._load()
            yield self._data
            self._save()

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                self.path.replace(self.path.with_suffix(".damaged"))
            return {}
        return data if isinstance(data, dict) else {}

    def _save(self) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".client-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(self._data, f, indent=1)
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except OSError:
            pass  # a read-only home must not stop a game; only remembering is lost

    @property
    def name(self) -> str | None:
        name = self._data.get("name")
        return name if isinstance(name, str) and name else None

    @name.setter
    def name(self, value: str) -> None:
        self._keep("name", value, self.name)

    @property
    def theme(self) -> str | None:
        """The colours the player chose last (ctrl+p, Theme), by the theme's name."""
        theme = self._data.get("theme")
        return theme if isinstance(theme, str) and theme else None

    @theme.setter
    def theme(self, value: str) -> None:
        self._keep("theme", value, self.theme)

    @property
    def sort(self) -> str:
        """How the player last sorted their hand (o): "suit" (the first way) or "rank"."""
        return "rank" if self._data.get("sort") == "rank" else "suit"

    @sort.setter
    def sort(self, value: str) -> None:
        self._keep("sort", value, self.sort)

    @property
    def hints(self) -> bool:
        """Whether the player last left the hints on (h at the table): off at first."""
        return self._data.get("hints") is True

    @hints.setter
    def hints(self, value: bool) -> None:
        self._keep("hints", value, self.hints)

    def _keep(self, key: str, value: object, now: object) -> None:
        """One remembered setting: the file is written only when it changes."""
        if value != now:
            with self._changing() as data:
                data[key] = value

    def seat(self, key: str) -> SeatToken | None:
        self._data = self._load()  # another client may have written since
        seats = self._data.get("seats")
        entry = seats.get(key) if isinstance(seats, dict) else None
        try:
            return SeatToken(str(entry["token"]), int(entry["table_id"]), int(entry["chair"]))  # type: ignore[index]
        except (TypeError, KeyError, ValueError):
            return None

    def remember_seat(self, key: str, seat: SeatToken) -> None:
        with self._changing() as data:
            seats = data.setdefault("seats", {})
            if not isinstance(seats, dict):
                seats = data["seats"] = {}
            seats[key] = {"token": seat.token, "table_id": seat.table_id, "chair": seat.chair}

    def forget_seat(self, key: str) -> None:
        with self._changing() as data:
            seats = data.get("seats")
            if isinstance(seats, dict):
                seats.pop(key, None)
            hands = data.get("hands")
            if isinstance(hands, dict):
                hands.pop(key, None)

    def hand(self, key: str) -> HandMemory | None:
        """The hand's order last kept under ``key`` (the seat token's key)."""
        hands = self._data.get("hands")
        entry = hands.get(key) if isinstance(hands, dict) else None
        try:
            table_id, games, deal = (int(x) for x in entry["place"])  # type: ignore[index]
            order = tuple(int(c) for c in entry["order"])  # type: ignore[index]
            fresh = tuple(int(c) for c in entry.get("fresh", ()))  # type: ignore[union-attr]
            return HandMemory((table_id, games, deal), order, fresh)
        except (TypeError, KeyError, ValueError):
            return None

    def remember_hand(self, key: str, memory: HandMemory) -> None:
        with self._changing() as data:
            hands = data.setdefault("hands", {})
            if not isinstance(hands, dict):
                hands = data["hands"] = {}
            hands[key] = {
                "place": list(memory.place),
                "order": list(memory.order),
                "fresh": list(memory.fresh),
            }

    def seen(self, what: str) -> bool:
        """Whether the player was already shown ``what`` (an offer made once)."""
        seen = self._data.get("seen")
        return isinstance(seen, list) and what in seen

    def mark_seen(self, what: str) -> None:
        with self._changing() as data:
            seen = data.get("seen")
            if not isinstance(seen, list):
                seen = data["seen"] = []
            if what not in seen:
                seen.append(what)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` while the block runs (waiting for it: the other
    holders only ever hold it for one read and write of the state file)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock, as before
        yield
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = path.open("a+")
    except OSError:
        yield  # nothing can be written there anyway
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


class SeatLock:
    """Held while this client may use the seat token under ``key``: an advisory lock
    on a small file beside the state, released when the process ends, however it ends
    (so a killed client never leaves a stale lock behind)."""

    def __init__(self, directory: Path, key: str) -> None:
        digest = hashlib.sha256(key.encode()).hexdigest()[:16]
        self.path = directory / "locks" / f"{digest}.lock"
        self._file: Any = None
        self._answer: bool | None = None

    def acquire(self) -> bool:
        """True if this client now holds the lock (or the system has no locks to
        offer); False if another running client holds it. Asked again, the first
        answer: the command line takes the lock of the game against bots before the
        app starts, and the server it starts depends on the answer."""
        if self._answer is None:
            self._answer = self._acquire()
        return self._answer

    def _acquire(self) -> bool:
        try:
            import fcntl
        except ImportError:  # not POSIX: no lock to take, as before
            return True
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle = self.path.open("a+")
        except OSError:
            return True  # an unwritable state directory remembers nothing anyway
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            return False
        self._file = handle
        return True

    def release(self) -> None:
        if self._file is not None:
            self._file.close()  # closing drops the lock
            self._file = None
        self._answer = None


def save_record(directory: Path, server: str, record: GameRecordWire) -> Path:
    """Write ``record`` under ``directory/replays`` (atomically), named after the server
    and the game; returns the file's path. Raises ``OSError``."""
    folder = directory / REPLAYS
    folder.mkdir(parents=True, exist_ok=True)
    where = "".join(c if c.isalnum() or c in "-." else "-" for c in server)
    game = record.game_id if record.game_id is not None else f"seed-{record.seed}"
    path = folder / f"{where}-game-{game}.json"
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".record-", suffix=".json")
    with os.fdopen(fd, "wb") as f:
        f.write(encode_record_file(record))
    os.replace(tmp, path)
    return path


def shell_path(path: Path, home: Path | None = None) -> str:
    """``path`` as a player types it after ``rummy-client --replay``: under the home
    directory it starts with ``~/`` (shorter, so it fits a line of the screen), and the
    rest is quoted only where a shell needs it (a folder with spaces in its name)."""
    home = Path.home() if home is None else home
    try:
        inside = path.relative_to(home)
    except ValueError:
        return shlex.quote(str(path))
    return "~/" + shlex.quote(str(inside))
