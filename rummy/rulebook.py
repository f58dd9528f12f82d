"""The rule book (docs/RULES.md), as shipped inside the package.

``rummy/RULES.md`` is a link to ``docs/RULES.md`` in the repository; a built wheel
carries the file itself. The client shows it; the tests read the rule ids from it.
"""

from __future__ import annotations

import re
from importlib.resources import files

RULE_ID = re.compile(r"^- (R\d+\.\d+)", re.MULTILINE)


def rule_book() -> str:
    """The whole rule book, as Markdown."""
    return files("rummy").joinpath("RULES.md").read_text(encoding="utf-8")


def rule_ids(text: str | None = None) -> list[str]:
    """Every rule's id (``R1.1`` .. ``R9.2``), in the rule book's order."""
    return RULE_ID.findall(rule_book() if text is None else text)
