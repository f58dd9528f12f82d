"""The client's insides: nothing in the client or its tests uses a private part of
Textual (``_compositor``, ``_closing``, ``_exception``...), so that Textual can move
on without breaking the game."""

from __future__ import annotations

import re
from pathlib import Path

from textual import widgets
from textual.app import App
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widget import Widget

ROOT = Path(__file__).parents[2]
ATTRIBUTE = re.compile(r"\.(_[a-z][A-Za-z0-9_]*)\b")


def textual_private_names() -> set[str]:
    """Every private name of the Textual classes the client uses (as a class attribute,
    or set on an instance when it is made)."""
    classes: list[type] = [App, Screen, ModalScreen, Widget, Vertical, Horizontal, VerticalScroll]
    classes += [getattr(widgets, n) for n in ("Static", "Input", "DataTable", "Button", "OptionList")]
    names: set[str] = set()
    for cls in classes:
        for klass in cls.__mro__:
            names |= {n for n in vars(klass) if n.startswith("_") and not n.startswith("__")}
    for instance in (App(), Screen(), Widget(), widgets.Static(), widgets.Input()):
        names |= {n for n in vars(instance) if n.startswith("_") and not n.startswith("__")}
    return names


def test_no_private_textual_attribute_is_used() -> None:
    private = textual_private_names()
    assert {"_compositor", "_closing", "_exception"} <= private  # the check knows what to look for
    found = []
    for path in sorted([*ROOT.glob("rummy/client/**/*.py"), *ROOT.glob("tests/client/**/*.py")]):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for name in ATTRIBUTE.findall(line):
                if name in private:
                    found.append(f"{path.relative_to(ROOT)}:{number}: {name}")
    assert found == []
