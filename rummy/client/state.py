"""What the client remembers between runs: the player's name and seat tokens.

One small JSON file in the user's state directory (platformdirs'
``user_state_dir("rummy")``, or ``$RUMMY_STATE_DIR`` when set: the SSH server
sets it per key). A seat token is the only way back to a chair, so the file is
private to the user and written atomically. A damaged file is set aside, never
fatal.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

FILE_NAME = "client.json"


def state_dir() -> Path:
    env = os.environ.get("RUMMY_STATE_DIR")
    return Path(env) if env else Path(platformdirs.user_state_dir("rummy"))


@dataclass(frozen=True, slots=True)
class SeatToken:
    token: str
    table_id: int
    chair: int


class StateStore:
    """The remembered name and one seat token per server (``key``: "host:port", or
    "local" for the game against bots)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else state_dir()
        self.path = self.directory / FILE_NAME
        self._data: dict[str, Any] = self._load()

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
        if value != self.name:
            self._data["name"] = value
            self._save()

    def seat(self, key: str) -> SeatToken | None:
        entry = self._data.get("seats", {}).get(key)
        try:
            return SeatToken(str(entry["token"]), int(entry["table_id"]), int(entry["chair"]))
        except (TypeError, KeyError, ValueError):
            return None

    def remember_seat(self, key: str, seat: SeatToken) -> None:
        seats = self._data.setdefault("seats", {})
        if not isinstance(seats, dict):
            seats = self._data["seats"] = {}
        seats[key] = {"token": seat.token, "table_id": seat.table_id, "chair": seat.chair}
        self._save()

    def forget_seat(self, key: str) -> None:
        seats = self._data.get("seats")
        if isinstance(seats, dict) and key in seats:
            del seats[key]
            self._save()
