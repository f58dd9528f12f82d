"""Fixtures for the client tests: a private state directory, and a way to read the
screen as a player would (its text, as drawn)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from textual.app import App


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every client test gets its own state directory: no test touches the user's."""
    directory = tmp_path / "state"
    monkeypatch.setenv("RUMMY_STATE_DIR", str(directory))
    yield directory


def screen_text(app: App[object]) -> str:
    """The whole screen as plain text, as it is drawn (modal screens included)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, record=True)
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    console.print(update)
    return console.export_text()
