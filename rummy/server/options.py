"""The server's knobs, with the defaults a real server runs with.

Tests turn the pauses down to ~0; the load generator raises the connection caps.
The caps and quotas keep any one address (or connection) from taking the server
from everyone else: docs/PROTOCOL.md, "Limits and safety", lists them.
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
    # Seconds between a deal's end and the next deal, unless all are ready first. None:
    # no pause ends it, the next deal waits for the people at the table (the game against
    # bots, whose one player nobody else waits for).
    deal_pause: float | None = 15.0
    # --- connections
    hello_timeout: float = 10.0  # a connection must say hello within this many seconds
    # A connection not in a chair (in the lobby, or before hello) that sends nothing for
    # this long is closed: it holds a place people who play may need.
    idle_timeout: float = 900.0
    # A connection in a chair that sends nothing for this long while the game waits for
    # its move is closed, and the chair held for its token, as when it drops (0: never).
    # A laptop shut or a network gone leaves a connection that TCP keeps for ever when
    # nothing is sent on it, and the table looked on at a player "present" who never
    # moved. A live client says something well within it (the welcome tells the pace).
    turn_silence: float = 60.0
    frame_timeout: float = 30.0  # seconds a frame may take to arrive whole once begun
    max_connections: int = 5000  # at once, in all (lowered below the open-file limit at start)
    # This share of max_connections is kept for people in a chair (and those coming back
    # to one with their token): others are refused at hello once the rest is taken.
    player_reserve: float = 0.1
    max_per_address: int = 64  # at once, from one IP address (one /64 network for IPv6)
    # Addresses many people share: with SSH hosting, every SSH player's client connects
    # from loopback. Their per-address caps are raised by ``shared_people`` players (one
    # connection and one table each); the SSH server caps the real addresses.
    shared_addresses: frozenset[str] = frozenset()
    shared_people: int = 0
    # --- requests: a token bucket per connection; some requests cost more than one token
    rate: float = 20.0  # requests per second a connection may send on average...
    burst: int = 60  # ...and at most this many at once
    flood_limit: int = 200  # requests dropped for the rate in about 10 s before the connection closes
    lobby_cost: int = 10  # tokens a whole table list costs (lobby_subscribe, hello with lobby)
    # Tokens a request costs that sends much: a chat line (to everyone at the table), a
    # watch or a rejoin (the table, the game as seen from there, the recent chat).
    push_cost: int = 20  # a watch at most once a second: at twice that, watchers doubled honest p99
    bad_frame_cost: int = 5  # a frame that cannot be read: our clients never send one
    # Tokens a history page or a game's record costs: a read of the archive and a long
    # answer (a record is some 20 KB), so at most two a second, in bursts of six.
    archive_cost: int = 10
    # --- tables
    max_tables: int = 2000
    tables_per_connection: int = 3  # tables a connection opened that are still open
    tables_per_address: int = 16  # ...and all the connections of one address together
    max_spectators: int = 50  # per table
    # ...of which the connections of one address may take this many: one address could
    # take every place at a table and keep everyone else from watching it.
    spectators_per_address: int = 4
    abandon_after: float = 600.0  # a table not playing, with nobody present, is closed after this
    # A game in play whose people are all away (bots do not count) is ended, and its
    # table closed, after this many seconds: its players may come back meanwhile.
    keep_deserted: float = 900.0
    # At a table waiting for players, a player away this long while someone else is
    # there loses the chair (its token may have been lost in a cut: see
    # ``TableMaster.free_away_chair``).
    free_away_after: float = 120.0
    chat_rate: float = 1.0  # chat lines per second a table carries on average...
    chat_burst: int = 5  # ...and at most this many at once
    chat_history: int = 20  # chat lines replayed to someone joining a table
    # --- pushes
    max_write_buffer: int = 4 * 1024 * 1024  # bytes queued for a slow reader before it is dropped
    # Seconds a stopping server gives its peers to read their goodbye; then it cuts them.
    goodbye_grace: float = 5.0
    # Lobby changes are gathered and pushed at most this often, one write per subscriber:
    # sending every change at once to every follower made the lobby most of the server's work.
    # Changes in the spectators at a table reach the people at it in the same rhythm.
    lobby_interval: float = 0.5
    lobby_limit: int = 200  # tables in one ``lobby`` push (waiting ones first); ``total`` says all
    sync: str = "full"  # SQLite synchronous mode: "full" (power-cut safe) or "normal" (SIGKILL safe)

    def per_address(self, address: str, cap: int) -> int:
        """The cap ``cap`` as it applies to ``address`` (raised for a shared one)."""
        return cap + self.shared_people if address in self.shared_addresses else cap
