"""Every rule of docs/RULES.md is named by at least one engine rules test (in its name,
as ``R4_1``, or its docstring, as ``R4.1``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from rummy.rulebook import rule_book, rule_ids

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
# The one rule book is the project's own (docs/RULES.md); the package ships it.
RULE_BOOK = REPO / "docs" / "RULES.md"
RULES = rule_ids(RULE_BOOK.read_text(encoding="utf-8"))


def named_rules() -> dict[str, list[str]]:
    """Rule number -> the tests that name it."""
    found: dict[str, list[str]] = {}
    for path in sorted(HERE.glob("test_*.py")):
        if path.name == Path(__file__).name or path.name.startswith("test_bots"):
            continue  # the rules are proved by the engine's own tests, not by the bots'

        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                text = node.name.replace("_R", " R") + " " + (ast.get_docstring(node) or "")
                for major, minor in re.findall(r"R(\d+)[._](\d+)", text):
                    found.setdefault(f"R{major}.{minor}", []).append(f"{path.stem}::{node.name}")
    return found


def test_every_rule_is_named_by_a_test() -> None:
    named = named_rules()
    assert [rule for rule in RULES if rule not in named] == []
    assert set(named) <= set(RULES), "a test names a rule that does not exist"


def test_the_rule_book_has_every_rule() -> None:
    """R1.1 .. R9.2, each once, in order: nothing lost when the rule book moved in."""
    expected = [
        f"R{major}.{minor}"
        for major, n in ((1, 3), (2, 4), (3, 4), (4, 5), (5, 6), (6, 2), (7, 5), (8, 2), (9, 2))
        for minor in range(1, n + 1)
    ]
    assert expected == RULES


def test_the_package_ships_the_same_rule_book() -> None:
    """What the client shows is the repository's rule book, word for word."""
    assert rule_book() == RULE_BOOK.read_text(encoding="utf-8")


def test_the_R7_4_ruling_is_marked_as_ours() -> None:
    """R7.4: the published text names only Jacks; every rank and four Jokers is a ruling."""
    text = RULE_BOOK.read_text(encoding="utf-8")
    r74 = text[text.index("- R7.4") : text.index("- R7.5")]
    assert "**Ruling:**" in r74 and "four Jokers (160)" in r74
