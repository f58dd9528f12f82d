"""The one way a request is refused: a stable code and a sentence; nothing changed."""

from __future__ import annotations


class Refused(Exception):
    """A request refused with a stable ``code`` (docs/PROTOCOL.md) and a sentence for
    the player; whatever raised it has changed nothing."""

    def __init__(self, code: str, text: str) -> None:
        super().__init__(text)
        self.code = code
        self.text = text
