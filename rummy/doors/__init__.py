"""The front doors: play over SSH (``doors/ssh``) or in a browser (``doors/web``) with
nothing installed. A door is a front end of its own, not a part of the game server:
each of its sessions runs the game client (forked from the door's pre-imported
parent, ``zygote.py``) on a pty, and the client joins the game server over TCP as
any other client does.

This package's names are the doors' one public entry, for ``rummy-server``'s CLI:

    add_door_arguments(parser)                      # --ssh-* and --web-*
    doors = await start_doors(args, host, port, public_host)
    ...
    await doors.close()

Importing this package loads nothing else (the doors' client parent is one of its
modules); asyncssh, aiohttp and the pty side load only when a door is asked for.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rummy.doors.ssh.server import SSHGameServer
    from rummy.doors.web.server import WebGameServer

__all__ = ["Doors", "add_door_arguments", "start_doors"]


def add_door_arguments(parser: argparse.ArgumentParser) -> None:
    from rummy.doors.ssh.cli import add_ssh_arguments
    from rummy.doors.web.cli import add_web_arguments

    add_ssh_arguments(parser)
    add_web_arguments(parser)


@dataclass
class Doors:
    """The doors the arguments asked for (either may be None)."""

    ssh: SSHGameServer | None = None
    web: WebGameServer | None = None

    async def close(self) -> None:
        """End every door's sessions (their clients are players of the game server: close
        the doors before it) and their clients' parents."""
        if self.web is not None:
            await self.web.close()
        if self.ssh is not None:
            await self.ssh.close()


async def start_doors(args: argparse.Namespace, game_host: str, game_port: int, public_host: str) -> Doors:
    """Start the doors ``--ssh-port`` and ``--web-port`` ask for and say how to join.
    Raises SystemExit with a readable message when one cannot start (none is left open)."""
    from rummy.doors.ssh.cli import start_ssh_from_args
    from rummy.doors.web.cli import start_web_from_args

    doors = Doors()
    try:
        doors.ssh = await start_ssh_from_args(args, game_host, game_port, public_host)
        doors.web = await start_web_from_args(args, game_host, game_port, public_host)
    except BaseException:
        await doors.close()
        raise
    return doors
