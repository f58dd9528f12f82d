"""The numbers a command line takes (``rummy-server``, its doors, ``rummy-sim``), as
argparse types, the sentence said when the port given cannot be had, and why a server
given could not be reached.

Each refuses a value out of its range in one sentence, which argparse prints after the
option's name. A bare ``int`` or ``float`` took any: a port past 65535 reached
``bind()`` and ended in a traceback, ``--bot-delay nan`` was served as it was, and a cap
of 0 or less was quietly taken for 1.
"""

from __future__ import annotations

import argparse
import math
import os
import socket


def whole(text: str, least: int) -> int:
    """A whole number from ``least`` up."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < least:
        words = "must not be negative" if least == 0 else f"must be at least {least}"
        raise argparse.ArgumentTypeError(f"{words}, not {value}")
    return value


def at_least_one(text: str) -> int:
    """A cap on connections, sessions, tables or requests."""
    return whole(text, 1)


def not_negative(text: str) -> int:
    return whole(text, 0)


def _number(text: str, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def _seconds(text: str, range_words: str) -> float:
    value = _number(text, "a number of seconds")
    if not 0 <= value < math.inf:  # (nan fails this too)
        raise argparse.ArgumentTypeError(f"give seconds {range_words}, not {text}")
    return value


def seconds(text: str) -> float:
    """A time in seconds, from 0 up (inf seconds were bots that never move)."""
    return _seconds(text, "from 0 up")


def seconds_or_never(text: str) -> float:
    """An idle timeout: seconds from 0 up, where 0 is never (a negative one was taken
    for never)."""
    return _seconds(text, "from 0 (never) up")


def per_second(text: str) -> float:
    """A rate, more than 0 a second."""
    value = _number(text, "a number")
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return value


def listen_port(text: str) -> int:
    """A port to listen on: 0 (any free one) to 65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 (any free one) to 65535, not {port}")
    return port


def cannot_listen(host: str, port: int, error: OSError) -> str:
    """``cannot listen on HOST port PORT: Address already in use.``: the one sentence
    the game server and its doors say (asyncio's own named no port, and getaddrinfo's
    errno is its own: ``os.strerror`` of it said "Unknown error -2")."""
    if isinstance(error, socket.gaierror):
        why = f"no such address ({error.strerror})"
    else:
        why = os.strerror(error.errno) if error.errno else str(error)
    return f"cannot listen on {host or 'every address'} port {port}: {why}."


def why_not_reached(error: OSError) -> str:
    """Why a connection to a server could not be made, in words (rummy-client's and
    rummy-bot's: asyncio's own said "Connect call failed ('127.0.0.1', 7325)")."""
    if isinstance(error, ConnectionRefusedError):
        return "nobody is listening there"
    if isinstance(error, socket.gaierror):
        return "no such host"
    if isinstance(error, TimeoutError):
        return "no answer"
    return error.strerror or type(error).__name__
