"""Words the SSH and web doors use for a player or the log: how long, how a client ended."""

from __future__ import annotations

import signal


def duration(seconds: float) -> str:
    """'45 seconds', '1 minute', '30 minutes': how a player says it."""
    if seconds < 120:
        amount, unit = round(seconds), "second"
    else:
        amount, unit = round(seconds / 60), "minute"
    return f"{amount} {unit}{'' if amount == 1 else 's'}"


def exit_words(status: int) -> str:
    """An exit status as asyncio gives it (negative: the signal that killed it)."""
    if status >= 0:
        return f"exit status {status}"
    try:
        return f"killed by {signal.Signals(-status).name}"
    except ValueError:
        return f"killed by signal {-status}"
