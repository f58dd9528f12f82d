"""The one error the engine raises for a move it refuses."""

from __future__ import annotations

# Every code an ``IllegalMove`` may carry: programs (the server, the client, bots)
# may branch on them, so they never change meaning.
CODES: tuple[str, ...] = (
    "game-over",
    "not-your-turn",
    "wrong-phase",
    "bad-move",
    "stock-empty",
    "stock-not-empty",
    "no-such-card",
    "bad-index",
    "target-not-used",
    "not-a-meld",
    "no-such-meld",
    "cannot-lay-off",
    "card-not-in-hand",
)


class IllegalMove(Exception):
    """A refused move: ``code`` is stable (for programs), ``message`` is a sentence
    a player can read. The game is unchanged after it.

    The codes are listed in ``CODES`` and explained in docs/ENGINE.md.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __reduce__(self) -> tuple[type[IllegalMove], tuple[str, str]]:
        # Exception pickles its args (the message alone); keep the code too.
        return (IllegalMove, (self.code, self.message))

    def __repr__(self) -> str:
        return f"IllegalMove({self.code!r}, {self.message!r})"
