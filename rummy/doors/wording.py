"""Words the SSH and web doors use for a player, the host or the log: how long, how a
client ended, why a door could not listen."""

from __future__ import annotations

import signal

from rummy.cli_values import cannot_listen


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


class ListenError(OSError):
    """A door could not listen on its port; its message says where and why in words."""

    @classmethod
    def of(cls, host: str, port: int, error: OSError) -> ListenError:
        """Said as rummy-server says it of its own port (asyncio's message was "[Errno
        98] error while attempting to bind on address ('127.0.0.1', 7325): address
        already in use", and getaddrinfo's "[Errno -2] Name or service not known")."""
        return cls(error.errno, cannot_listen(host, port, error))

    def __str__(self) -> str:
        return str(self.strerror)
