"""docs/ENGINE.md stays true: its example runs, and it names the whole public API."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import rummy.engine

DOC = Path(__file__).resolve().parents[2] / "docs" / "ENGINE.md"


def example_code() -> str:
    """The code block that follows the ``<!-- example: bot -->`` marker."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"<!-- example: bot -->\s*```python\n(.*?)```", text, re.DOTALL)
    assert found, "docs/ENGINE.md lost its example"
    return found.group(1)


def test_engine_doc_example_plays_a_whole_game() -> None:
    """The bot example of docs/ENGINE.md, run as it is written, plays a game to its end
    (R3.1: two deals) and prints its result."""
    namespace: dict[str, object] = {"__name__": "engine_doc_example"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example_code(), str(DOC), "exec"), namespace)
    game = namespace["game"]
    assert isinstance(game, rummy.engine.Game)
    assert game.is_over and len(game.results) == 2
    printed = out.getvalue()
    assert "game-over - The game is over." in printed
    assert f"totals {game.totals()} winner {game.winner()}" in printed


def test_engine_doc_names_every_public_name() -> None:
    """Every name that ``rummy.engine`` exports is documented (in code quotes)."""
    text = DOC.read_text(encoding="utf-8")
    missing = [n for n in rummy.engine.__all__ if not re.search(r"`" + re.escape(n) + r"[`(. ]", text)]
    assert missing == []
