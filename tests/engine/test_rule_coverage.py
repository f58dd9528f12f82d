"""Every rule of RULES.md is named by at least one engine rules test (in its name,
as ``R4_1``, or its docstring, as ``R4.1``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The rule book lives beside the repository (README: ../shared/RULES.md).
RULE_BOOK = HERE.parents[2] / "shared" / "RULES.md"
RULES = [
    *("R1.1", "R1.2", "R1.3"),
    *("R2.1", "R2.2", "R2.3", "R2.4"),
    *("R3.1", "R3.2", "R3.3", "R3.4"),
    *("R4.1", "R4.2", "R4.3", "R4.4", "R4.5"),
    *("R5.1", "R5.2", "R5.3", "R5.4", "R5.5", "R5.6"),
    *("R6.1", "R6.2"),
    *("R7.1", "R7.2", "R7.3", "R7.4", "R7.5"),
    *("R8.1", "R8.2"),
    *("R9.1", "R9.2"),
]


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


def test_rule_list_matches_the_rule_book() -> None:
    """The list above is the rule book's (checked where the rule book is at hand)."""
    if not RULE_BOOK.exists():
        import pytest

        pytest.skip(f"no rule book at {RULE_BOOK}")
    numbers = re.findall(r"^- (R\d+\.\d+)", RULE_BOOK.read_text(encoding="utf-8"), re.MULTILINE)
    assert numbers == RULES
