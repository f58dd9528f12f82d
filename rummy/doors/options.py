"""What both doors' ``rummy-server`` options share: the session limits, where the
state lives, and how a door's clients reach the game server."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from platformdirs import user_state_dir

from rummy.cli_values import at_least_one, listen_port, seconds_or_never
from rummy.doors.limits import DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_PER_ADDRESS
from rummy.protocol.address import address_text

# Where the child clients reach the game server when it listens on every
# interface: this machine, by loopback.
_LOOPBACK = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}


def default_state_dir() -> Path:
    """The server's state directory (where its default database lives too)."""
    return Path(user_state_dir("rummy"))


def game_address(host: str, port: int) -> str:
    """``HOST:PORT`` for a client on this machine to reach the game server."""
    return address_text(_LOOPBACK.get(host, host), port)


def add_door_options(
    add: Callable[..., argparse.Action],
    door: str,
    *,
    served: str,
    session: str,
    player: str,
    per_address: str,
    max_sessions: int,
) -> None:
    """``--DOOR-port``, ``--DOOR-host`` and the session limits ``--DOOR-idle-timeout``,
    ``--DOOR-max-per-address`` and ``--DOOR-max-sessions``, added with ``add`` (an
    argument group's add_argument). ``served``: how the door serves the game ("over
    SSH"); ``session``: one of its sessions ("an SSH session"); ``player``: its players
    ("SSH players"); ``per_address``: what the per-address limit counts."""
    add(
        f"--{door}-port",
        type=listen_port,
        default=None,
        metavar="PORT",
        help=f"also serve the game {served} on PORT",
    )
    add(
        f"--{door}-host",
        default=None,
        metavar="ADDR",
        help=f"address to listen on for {player} (default: as --host)",
    )
    add(
        f"--{door}-idle-timeout",
        type=seconds_or_never,
        default=DEFAULT_IDLE_TIMEOUT,
        metavar="SECONDS",
        help=f"close {session} after this long without a key pressed (0: never; "
        f"default {DEFAULT_IDLE_TIMEOUT:g})",
    )
    add(
        f"--{door}-max-per-address",
        type=at_least_one,
        default=DEFAULT_MAX_PER_ADDRESS,
        metavar="N",
        help=f"{per_address} allowed at once from one address (default {DEFAULT_MAX_PER_ADDRESS})",
    )
    add(
        f"--{door}-max-sessions",
        type=at_least_one,
        default=max_sessions,
        metavar="N",
        help=f"{player} at once in all, each a client process (default {max_sessions})",
    )
