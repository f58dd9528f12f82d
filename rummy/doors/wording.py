"""Words the SSH and web doors use for a player, the host or the log: how long, how a
client ended, why a door could not listen."""

from __future__ import annotations

import os
import signal
import socket


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
        """``cannot listen on HOST port PORT: Address already in use.``, as rummy-server
        says it of its own port (asyncio's message was "[Errno 98] error while attempting
        to bind on address ('127.0.0.1', 7325): address already in use", and
        getaddrinfo's "[Errno -2] Name or service not known", naming no address)."""
        if isinstance(error, socket.gaierror):  # (its errno is getaddrinfo's own)
            why = f"no such address ({error.strerror})"
        else:
            why = os.strerror(error.errno) if error.errno else str(error)
        return cls(error.errno, f"cannot listen on {host or 'every address'} port {port}: {why}.")

    def __str__(self) -> str:
        return str(self.strerror)
