"""Fixtures for the client tests: a private state directory, and a way to read the
screen as a player would (its text, as drawn)."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.app import App


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every client test gets its own state directory: no test touches the user's."""
    directory = tmp_path / "state"
    monkeypatch.setenv("RUMMY_STATE_DIR", str(directory))
    yield directory


# A line of text in the SVG that Textual's public ``export_screenshot`` draws: Rich's
# SVG export puts each run of text at its column (x, in cells of 12.2 pixels) and row.
_SVG_TEXT = re.compile(
    r'<text class="[^"]*" x="([0-9.]+)" y="[0-9.]+" textLength="[0-9.]+" '
    r'clip-path="url\(#[a-z0-9-]*-line-(\d+)\)">([^<]*)</text>'
)
_CELL = 12.2


def screen_text(app: App[object]) -> str:
    """The whole screen as plain text, as it is drawn (modal screens included), read
    from Textual's own screenshot, so that no private part of Textual is needed."""
    width, height = app.size
    rows = [[" "] * width for _ in range(height)]
    for x, line, words in _SVG_TEXT.findall(app.export_screenshot()):
        row, column = int(line), round(float(x) / _CELL)
        for offset, char in enumerate(html.unescape(words).replace("\xa0", " ")):
            if 0 <= row < height and 0 <= column + offset < width:
                rows[row][column + offset] = char
    return "\n".join("".join(r).rstrip() for r in rows)


def toast_text(app: App[object]) -> str:
    """The words of the toasts on the screen (``run_test(notifications=True)``), as one
    line: each toast row is what follows its left edge (▌), up to its right margin."""
    rows = [line.split("▌", 1)[1] for line in screen_text(app).splitlines() if "▌" in line]
    return " ".join(re.split(r"\s{2,}", row.strip())[0] for row in rows if row.strip())


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time is UTC: times on screen are the same on every machine."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()
