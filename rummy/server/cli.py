"""``rummy-server``: parse the arguments, set up logging, run until stopped.

Kept small on purpose: ``build_parser`` and ``serve`` are meant to be extended
(the SSH and browser doors, front ends of their own, add their options and start
beside the game server through ``rummy.doors``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import signal
import socket
import sys
from pathlib import Path
from typing import BinaryIO

from platformdirs import user_state_dir

from ..cli_values import at_least_one, cannot_listen, listen_port, not_negative, per_second, seconds
from ..doors import add_door_arguments, start_doors
from ..protocol.address import address_text
from ..protocol.messages import DEFAULT_PORT
from .fdlimit import connection_cap, raise_open_files
from .listener import Server, start_server
from .logguard import Throttled, guard_loop
from .options import ServerOptions
from .storage import StorageError

try:
    import fcntl
except ImportError:  # not on Windows: no lock there
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger("rummy.server")
DEFAULTS = ServerOptions()


def default_db() -> Path:
    return Path(user_state_dir("rummy")) / "server.db"


def lock_database(db: Path) -> BinaryIO | None:
    """Keep other rummy-servers off ``db`` while this one runs (the lock is the open file
    returned, ``DB.lock`` beside it, released when it is closed or the process ends).
    SQLite let a second server open the file: both restored the same games, and the one
    whose players were elsewhere closed their table as deserted. None where no lock can
    be taken (no ``fcntl``, or a place the storage will refuse in its own words)."""
    if fcntl is None or db.is_dir():
        return None
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
        lock = open(f"{db}.lock", "ab")  # noqa: SIM115 (held while the server runs)
    except OSError:
        return None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        raise StorageError(
            f"{db} is in use by another rummy-server (stop it, or give this one another --db)."
        ) from None
    return lock


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rummy-server", description="Host Persian Rummy tables for friends.")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all)")
    p.add_argument(
        "--port", type=listen_port, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT}; 0: any)"
    )
    p.add_argument("--db", type=Path, default=None, help=f"SQLite file (default {default_db()})")
    levels = ["debug", "info", "warning", "error"]
    p.add_argument("--log-level", default="info", choices=levels, help="(default %(default)s)")
    p.add_argument(
        "--bot-delay",
        type=seconds,
        default=0.8,
        help="seconds a bot waits before a move (default %(default)g)",
    )
    p.add_argument(
        "--bot-workers",
        type=not_negative,
        default=1,
        help="processes in which hard bots think (default 1; more on a machine with cores to spare;"
        " 0 thinks on the event loop, stalling every table: only to measure what the pool saves)",
    )
    p.add_argument(
        "--hard-bot-iterations",
        type=at_least_one,
        default=None,
        help="search iterations of a hard bot's move (default: the expert's own: a median of"
        " about 40 ms a move and a p99 of 0.2 s on a 2-core machine, as rummy-sim --bots hard prints)",
    )
    p.add_argument(
        "--deal-pause",
        type=seconds,
        default=15.0,
        help="seconds between deals unless all ready (default %(default)g)",
    )
    p.add_argument(
        "--max-connections",
        type=at_least_one,
        default=5000,
        help="connections at once in all (default %(default)s)",
    )
    p.add_argument(
        "--max-per-address",
        type=at_least_one,
        default=64,
        help="connections from one address (default %(default)s)",
    )
    p.add_argument(
        "--tables-per-address",
        type=at_least_one,
        default=DEFAULTS.tables_per_address,
        metavar="N",
        help=f"open tables one address may have opened (default {DEFAULTS.tables_per_address})",
    )
    p.add_argument(
        "--spectators-per-address",
        type=at_least_one,
        default=DEFAULTS.spectators_per_address,
        metavar="N",
        help="spectator places at one table the connections of one address may take"
        f" (default {DEFAULTS.spectators_per_address}; a table takes {DEFAULTS.max_spectators})",
    )
    p.add_argument(
        "--hello-timeout",
        type=seconds,
        default=DEFAULTS.hello_timeout,
        help=f"seconds a new connection has to say hello (default {DEFAULTS.hello_timeout:g})",
    )
    p.add_argument(
        "--idle-timeout",
        type=seconds,
        default=DEFAULTS.idle_timeout,
        metavar="SECONDS",
        help="close a connection that is not at a table and sends nothing for this long"
        f" (default {DEFAULTS.idle_timeout:g})",
    )
    p.add_argument(
        "--turn-silence",
        type=seconds,
        default=DEFAULTS.turn_silence,
        metavar="SECONDS",
        help="take a player for gone (their chair held, as when they drop) whose client"
        " sends nothing for this long while the game waits for their move; 0: never"
        f" (default {DEFAULTS.turn_silence:g})",
    )
    p.add_argument(
        "--keep-deserted",
        type=seconds,
        default=DEFAULTS.keep_deserted,
        metavar="SECONDS",
        help="end a game in play once all its players have been away this long"
        f" (default {DEFAULTS.keep_deserted:g})",
    )
    p.add_argument(
        "--rate",
        type=per_second,
        default=20.0,
        help="requests a second allowed per connection (default %(default)g)",
    )
    p.add_argument(
        "--burst",
        type=at_least_one,
        default=60,
        help="requests allowed at once per connection (default %(default)s)",
    )
    p.add_argument(
        "--sync",
        choices=["full", "normal"],
        default="full",
        help="full (the default): every move on disk before it is told (survives power cuts);"
        " normal: survives a crash",
    )
    add_door_arguments(p)
    return p


def public_host(server: Server) -> str:
    """The host to give players: when listening on all interfaces, this machine's
    address on the network (found without sending anything)."""
    host = server.host
    if host in ("0.0.0.0", "::"):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                probe.connect(("192.0.2.1", 9))  # TEST-NET-1: routing only, no packet sent
                host = probe.getsockname()[0]
        except OSError:
            host = socket.gethostname()
    return host


def public_address(server: Server) -> str:
    """``host:port`` as ``rummy-client`` reads it: an IPv6 address in brackets (``--host
    ::1`` printed ``rummy-client ::1:7325``, which the client took for a host name)."""
    return address_text(public_host(server), server.port)


# The SSH and web doors' clients connect from here; each door applies its own per-address
# cap, and the game server lets this address hold one more connection and table per player.
LOOPBACK = frozenset({"127.0.0.1", "::1"})


async def start(args: argparse.Namespace) -> Server:
    """The game server the arguments ask for, listening."""
    open_files = raise_open_files()
    # Each SSH or browser player holds two more files (their connection and pty), and
    # SSH connections still logging in one each.
    spare = 0
    if args.ssh_port is not None:
        spare += 2 * args.ssh_max_sessions + args.ssh_max_startups
    if args.web_port is not None:
        spare += 2 * args.web_max_sessions
    max_connections = connection_cap(args.max_connections, open_files, spare)
    if max_connections < args.max_connections:
        log.warning(
            "at most %d connections (not %d): the open-file limit is %s; raise it (ulimit -Hn) for more",
            max_connections,
            args.max_connections,
            open_files,
        )
    return await start_server(
        args.host,
        args.port,
        args.db or default_db(),
        bot_delay=args.bot_delay,
        bot_workers=args.bot_workers,
        hard_bot_iterations=args.hard_bot_iterations,
        deal_pause=args.deal_pause,
        max_connections=max_connections,
        max_per_address=args.max_per_address,
        tables_per_address=args.tables_per_address,
        spectators_per_address=args.spectators_per_address,
        keep_deserted=args.keep_deserted,
        idle_timeout=args.idle_timeout,
        turn_silence=args.turn_silence,
        hello_timeout=args.hello_timeout,
        shared_addresses=LOOPBACK if (args.ssh_port, args.web_port) != (None, None) else frozenset(),
        shared_people=(args.ssh_max_sessions if args.ssh_port is not None else 0)
        + (args.web_max_sessions if args.web_port is not None else 0),
        rate=args.rate,
        burst=args.burst,
        sync=args.sync,
    )


async def serve(args: argparse.Namespace) -> None:
    # What asyncio reports (a failed accept(), say) is logged at most once every few
    # seconds per kind: such errors come in loops.
    guard_loop(asyncio.get_running_loop(), Throttled(logging.getLogger("rummy.server.loop")))
    try:
        lock = lock_database(args.db or default_db())
    except StorageError as error:  # one sentence for the host, not a traceback
        raise SystemExit(f"rummy-server: cannot start: {error}") from None
    with lock or contextlib.nullcontext():  # the database is this server's until it stops
        await _serve(args)


async def _serve(args: argparse.Namespace) -> None:
    try:
        server = await start(args)
    except StorageError as error:
        raise SystemExit(f"rummy-server: cannot start: {error}") from None
    except OSError as error:
        raise SystemExit(f"rummy-server: {cannot_listen(args.host, args.port, error)}") from None
    # Garbage collection: under load (500 tables) the default thresholds gave ~5 young
    # collections a second and a full one every ~25 s that stalled every table for up
    # to 140 ms. Little of what the server allocates is cyclic garbage (at 2,000 tables
    # the middle collections found none): what survives a young collection is mostly
    # games' moves and meld state, which live until their game ends, and a move leaves
    # about one such object (a table's story is kept encoded, moves shared). So: freeze
    # what startup loaded (modules, restored games), collect the young generation every
    # 10,000 objects (a few ms), the middle one every third of those (at 2,000 tables
    # 10-45 ms each; every tenth was 45-70 ms, the slowest moves of a run), and the
    # whole heap only after 3,000 middle ones (hours): at 2,000 tables a full
    # collection walks every game's moves, 0.3 s or more.
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 3, 3_000)
    print(
        f"rummy-server listening on {server.address};"
        f" players join with: rummy-client {public_address(server)}",
        flush=True,
    )
    try:
        doors = await start_doors(args, server.host, server.port, public_host(server))
    except SystemExit:
        await server.close()
        raise
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    # A hangup (the terminal the host ran it in was closed) stops it as cleanly as ^C:
    # the players are told and the storage closed, not cut off mid-write. Under nohup
    # (SIGHUP ignored when it started) the host asked it to outlive the terminal.
    hangup = [] if signal.getsignal(signal.SIGHUP) is signal.SIG_IGN else [signal.SIGHUP]
    for sig in (signal.SIGINT, signal.SIGTERM, *hangup):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await doors.close()  # first the doors: their clients are players of this server
    await server.close()


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    asyncio.run(serve(args))


if __name__ == "__main__":
    main()
