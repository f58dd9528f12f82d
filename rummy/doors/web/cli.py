"""The ``--web-*`` options of ``rummy-server`` and starting the browser door beside the game server.

Kept here so that the server's own CLI needs two lines: one to add the
options, one to start (or not start) the web front door. aiohttp is loaded
only when ``--web-port`` is given.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rummy.doors.options import add_door_options, default_state_dir, game_address
from rummy.doors.statedir import StateDirError
from rummy.doors.web.limits import DEFAULT_MAX_SESSIONS
from rummy.protocol.address import address_text

if TYPE_CHECKING:
    from rummy.doors.client_env import ClientCommand
    from rummy.doors.web.server import WebGameServer


def add_web_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("web", "let players join from a browser")
    add_door_options(
        group.add_argument,
        "web",
        served="to browsers",
        session="a browser session",
        player="browser sessions",
        per_address="browser sessions",
        max_sessions=DEFAULT_MAX_SESSIONS,
    )
    group.add_argument(
        "--web-behind-proxy",
        action="store_true",
        help="a reverse proxy on this machine forwards to the web port: take the player's address "
        "and https from its X-Forwarded-For and X-Forwarded-Proto headers",
    )


async def start_web_from_args(
    args: argparse.Namespace,
    game_host: str,
    game_port: int,
    public_host: str,
    *,
    state_dir: Path | None = None,
    client_command: ClientCommand | None = None,
) -> WebGameServer | None:
    """Start the web door if ``--web-port`` was given (None otherwise) and say
    where to point a browser. Raises SystemExit with a readable message when it
    cannot start."""
    if args.web_port is None:
        return None
    try:
        from rummy.doors.web.server import start_web_server
    except ImportError as exc:
        raise SystemExit(f"rummy-server: web hosting needs a Unix system with ptys ({exc})") from None
    try:
        server = await start_web_server(
            args.web_host if args.web_host is not None else args.host,
            args.web_port,
            game_address(game_host, game_port),
            state_dir or default_state_dir(),
            client_command,
            max_sessions=args.web_max_sessions,
            max_per_address=args.web_max_per_address,
            idle_timeout=args.web_idle_timeout,
            behind_proxy=args.web_behind_proxy,
        )
    except (StateDirError, OSError) as exc:
        raise SystemExit(f"rummy-server: cannot serve the web: {exc}") from None
    # Listening on every address: the machine's own on the network; else the one bound
    # (behind a proxy that is loopback, and the proxy's address is the one to give).
    host = public_host if server.host in ("", "0.0.0.0", "::") else server.host
    via = " through your reverse proxy" if args.web_behind_proxy else ""
    page = f"http://{address_text(host, server.port)}/"
    print(
        f"rummy-server web on port {server.port}; players open: {page}{via}",
        file=sys.stdout,
        flush=True,
    )
    return server
