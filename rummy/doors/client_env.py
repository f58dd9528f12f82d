"""The client a door (SSH, web) runs for a player: its command, and a clean environment.

The host's environment holds its secrets (an ssh-agent socket, tokens,
passwords) and its own terminal's state; a player's client gets none of it.
It gets what it needs: how to find programs and modules, the time zone, a
UTF-8 locale (the player's own when their door says it), its terminal type,
and its own state directory, as ``HOME`` too so that nothing lands in the
host's home.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

# (game address "HOST:PORT", player name) -> the program to run on the pty.
ClientCommand = Callable[[str, str], Sequence[str]]

HOST = ("PATH", "PYTHONPATH", "TZ", "LANG", "LC_ALL", "LC_CTYPE")
LOCALE = ("LANG", "LC_ALL", "LC_CTYPE")


def host_env() -> dict[str, str]:
    """What a client takes of the host's environment (the doors' client parent runs
    with just this too)."""
    env = {k: os.environ[k] for k in HOST if k in os.environ}
    env.setdefault("PATH", os.defpath)
    return env


def client_env(state_dir: Path, term: str, player: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a client drawing on ``term`` and keeping its state in
    ``state_dir``; ``player``: settings from the player's side (a locale, COLORTERM...),
    whose locale replaces the host's."""
    env = host_env()
    player = dict(player or {})
    if any(k in player for k in LOCALE):
        for k in LOCALE:
            env.pop(k, None)
    env.update(player)
    if not any(k in env for k in LOCALE):
        env["LANG"] = "C.UTF-8"  # suits and box drawing need UTF-8
    env["TERM"] = term
    env["HOME"] = env["RUMMY_STATE_DIR"] = str(state_dir)
    return env


# What a player may ask of the client through a door (ssh -t HOST ascii, or the page's
# address /?ascii): the options a local player gives on its command line, this fixed
# list and nothing else, so nothing a player types reaches the client's argv.
CLIENT_OPTIONS = {
    "ascii": "--ascii",
    "four-colour": "--four-colour",
    "four-color": "--four-colour",
    "no-bell": "--no-bell",
}
# The words as a player is told them (four-color is taken too, unsaid).
OPTION_WORDS = ("ascii", "four-colour", "no-bell")


def unknown_option(words: Sequence[str]) -> str | None:
    """The first of ``words`` that is not a client option, or None."""
    return next((w for w in words if w.lower() not in CLIENT_OPTIONS), None)


def client_flags(words: Sequence[str]) -> list[str]:
    """The client's flags for option ``words`` (all known: see ``unknown_option``)."""
    return sorted({CLIENT_OPTIONS[w.lower()] for w in words})


def default_client_command(game_address: str, name: str) -> list[str]:
    """The real client, run with this server's own interpreter, ``--hosted``: it runs
    on this machine for a player far away, so it writes no file for them to keep."""
    return [sys.executable, "-m", "rummy.client.cli", game_address, "--name", name, "--hosted"]
