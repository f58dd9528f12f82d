"""The server's knobs, with the defaults a real server runs with.

Tests turn the pauses down to ~0; the load generator raises the connection caps.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ServerOptions:
    bot_delay: float = 0.8  # seconds a bot (or a stand-in) waits before each move, so people can follow
    # Processes in which hard bots search (0: on the event loop, for tests only): a
    # bounded pool, so that thinking bots never hold up the other tables.
    bot_workers: int = 1
    hard_bot_iterations: int | None = None  # a hard bot's search budget (None: the expert's default)
    deal_pause: float = 15.0  # seconds between a deal's end and the next deal, unless all are ready
    hello_timeout: float = 10.0  # a connection must say hello within this many seconds
    max_connections: int = 5000  # at once, in all
    max_per_address: int = 64  # at once, from one IP address
    # Addresses the per-address cap does not apply to. With SSH hosting every SSH
    # player's client connects from loopback; the SSH server caps the real addresses.
    uncapped_addresses: frozenset[str] = frozenset()
    rate: float = 20.0  # requests per second a connection may send on average...
    burst: int = 60  # ...and at most this many at once
    flood_limit: int = 200  # requests dropped for the rate in about 10 s before the connection closes
    max_tables: int = 2000
    max_write_buffer: int = 4 * 1024 * 1024  # bytes queued for a slow reader before it is dropped
    abandon_after: float = 600.0  # a table not playing, with nobody present, is closed after this
    # Lobby changes are gathered and pushed at most this often, one write per subscriber:
    # sending every change at once to every follower made the lobby most of the server's work.
    lobby_interval: float = 0.5
    chat_history: int = 20  # chat lines replayed to someone joining a table
    sync: str = "full"  # SQLite synchronous mode: "full" (power-cut safe) or "normal" (SIGKILL safe)
