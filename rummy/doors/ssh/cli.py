"""The ``--ssh-*`` options of ``rummy-server`` and starting SSH beside the game server.

Kept here so that the server's own CLI needs two lines: one to add the
options, one to start (or not start) the SSH front door.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rummy.cli_values import at_least_one
from rummy.doors.options import add_door_options, default_state_dir, game_address
from rummy.doors.ssh.limits import DEFAULT_MAX_SESSIONS, DEFAULT_MAX_STARTUPS
from rummy.doors.statedir import StateDirError

if TYPE_CHECKING:
    from rummy.doors.client_env import ClientCommand
    from rummy.doors.ssh.server import SSHGameServer


def add_ssh_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("SSH", "let players join with nothing but an ssh client")
    add_door_options(
        group.add_argument,
        "ssh",
        served="over SSH",
        session="an SSH session",
        player="SSH players",
        per_address="SSH connections",
        max_sessions=DEFAULT_MAX_SESSIONS,
    )
    group.add_argument(
        "--ssh-host-key",
        type=Path,
        default=None,
        metavar="FILE",
        help=f"private host key to use (default: created once in {default_state_dir()})",
    )
    group.add_argument(
        "--ssh-authorized-keys",
        type=Path,
        default=None,
        metavar="FILE",
        help="let in only the public keys in this authorized_keys file (default: anyone)",
    )
    group.add_argument(
        "--ssh-max-startups",
        type=at_least_one,
        default=DEFAULT_MAX_STARTUPS,
        metavar="N",
        help=f"SSH connections still logging in, at once in all (default {DEFAULT_MAX_STARTUPS})",
    )


async def start_ssh_from_args(
    args: argparse.Namespace,
    game_host: str,
    game_port: int,
    public_host: str,
    *,
    state_dir: Path | None = None,
    client_argv: ClientCommand | None = None,
) -> SSHGameServer | None:
    """Start SSH if ``--ssh-port`` was given (None otherwise) and say how to
    join. Raises SystemExit with a readable message when it cannot start."""
    if args.ssh_port is None:
        return None
    if getattr(args, "log_level", "info") != "debug":
        # asyncssh logs every channel request at INFO; the host wants ours.
        logging.getLogger("asyncssh").setLevel(logging.WARNING)
    try:
        # Loaded only now (asyncssh with them): the pty side exists only on Unix, and
        # rummy-server must still start elsewhere, and start quickly, when SSH is not asked for.
        from rummy.doors.ssh.access import AccessError
        from rummy.doors.ssh.hostkey import HostKeyError
        from rummy.doors.ssh.server import start_ssh_server
    except ImportError as exc:
        raise SystemExit(f"rummy-server: SSH hosting needs a Unix system with ptys ({exc})") from None
    try:
        server = await start_ssh_server(
            args.ssh_host if args.ssh_host is not None else args.host,
            args.ssh_port,
            game_address(game_host, game_port),
            state_dir or default_state_dir(),
            host_key_path=args.ssh_host_key,
            authorized_keys_path=args.ssh_authorized_keys,
            client_argv=client_argv,
            idle_timeout=args.ssh_idle_timeout,
            max_per_address=args.ssh_max_per_address,
            max_startups=args.ssh_max_startups,
            max_sessions=args.ssh_max_sessions,
        )
    except (HostKeyError, AccessError, StateDirError, OSError) as exc:
        raise SystemExit(f"rummy-server: cannot serve SSH: {exc}") from None
    port_flag = "" if server.port == 22 else f"-p {server.port} "
    print(
        f"rummy-server SSH on port {server.port} (host key {server.host_key_fingerprint});"
        f" players join with: ssh {port_flag}NAME@{public_host}",
        file=sys.stdout,
        flush=True,
    )
    return server
