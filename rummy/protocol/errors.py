"""Error codes: stable strings a program can test (docs/PROTOCOL.md lists them all).

A refused move also carries the engine's own ``IllegalMove`` code
(``not-your-turn``, ``wrong-phase``, ``not-a-meld``, ...), passed on unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

# Frames and messages (rummy.protocol.codec)
FRAME_TOO_LARGE = "frame-too-large"  # fatal: the announced length is over the limit
BAD_MSGPACK = "bad-msgpack"  # the frame is not MessagePack
UNKNOWN_MESSAGE = "unknown-message"  # not a map, or no known "type"
BAD_FIELD = "bad-field"  # a field missing, of the wrong type or out of range

# The session
VERSION = "version"  # fatal: another protocol version
HELLO_FIRST = "hello-first"  # a request before hello
HELLO_AGAIN = "hello-again"  # a second hello
HELLO_TIMEOUT = "hello-timeout"  # fatal: no hello in time
IDLE_TIMEOUT = "idle-timeout"  # fatal: not at a table, and nothing sent for too long
SILENT_TURN = "silent-turn"  # fatal: the game waited for this chair's move, and nothing came for too long
FRAME_TIMEOUT = "frame-timeout"  # fatal: a frame begun was not finished in time
RATE_LIMITED = "rate-limited"  # too many requests: this one was dropped
FLOOD = "flood"  # fatal: kept flooding
TOO_MANY_CONNECTIONS = "too-many-connections"  # fatal: the server or this address is full
SHUTTING_DOWN = "shutting-down"  # fatal: the server stops
BAD_NAME = "bad-name"  # nothing left of the name after sanitizing
INTERNAL = "internal"  # a bug on the server; nothing changed

# The lobby and tables
NO_SUCH_TABLE = "no-such-table"
TOO_MANY_SPECTATORS = "too-many-spectators"  # the table has as many spectators as it allows
SPECTATOR_QUOTA = "spectator-quota"  # this address watches this table from as many connections as allowed
TOO_MANY_TABLES = "too-many-tables"
TABLE_QUOTA = "table-quota"  # this connection or address has as many open tables as allowed
ALREADY_AT_TABLE = "already-at-table"  # leave your table first
NOT_AT_TABLE = "not-at-table"
CHAIR_TAKEN = "chair-taken"
NOT_A_BOT = "not-a-bot"
NOT_CREATOR = "not-creator"
NOT_WAITING = "not-waiting"  # the table is not waiting for players
NOT_FULL = "not-full"  # four chairs are needed to start
NOT_PLAYING = "not-playing"  # no game is running
NOT_FINISHED = "not-finished"  # play_again before the game's end
NOT_DEAL_OVER = "not-deal-over"  # ready outside a deal's end
BAD_TOKEN = "bad-token"  # no chair has this token
SPECTATOR = "spectator"  # spectators do not move
STALE = "stale"  # the move answers an older state of the game
REPLACED = "replaced"  # another connection took this chair back with its token

# History and replays
NO_SUCH_GAME = "no-such-game"  # no finished game has this id (a game in play has no record yet)


@dataclass(frozen=True, slots=True)
class ProtocolError:
    """An error to tell the peer: ``code`` from this module, ``text`` for people,
    ``request_id`` when the bad message had a readable id, ``fatal`` when the
    connection is closed after it."""

    code: str
    text: str
    request_id: int | None = None
    fatal: bool = False
