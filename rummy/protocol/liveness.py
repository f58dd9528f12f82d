"""How a client keeps its place over a connection that may die: the pauses between
tries to connect again, the silences after which it asks and gives up, and the
errors after which trying again cannot help. ``rummy-client`` and ``rummy-bot``
keep to the same numbers (docs/PROTOCOL.md, "Dropping").

A connection can die without a word: a router or a proxy that stalls it, wifi that
changes under a laptop. TCP then stays silent for many minutes, and a player (or a
bot) waits at a table that never moves, a move unanswered. So a client listens:
when the server has said nothing for QUIET seconds it asks (a ping, answered at
once); after DEAD seconds the connection is given up and made anew, looked at every
WATCH_EVERY seconds. That is safe: the seat token brings the chair back, a move is
never sent twice, and the server's view then shows what became of a move in flight.
"""

from __future__ import annotations

from . import errors

FIRST_PAUSE = 0.5  # seconds before the first try to connect again; doubled each try...
LONGEST_PAUSE = 10.0  # ...up to this
QUIET = 15.0
DEAD = 20.0
WATCH_EVERY = 1.0

# The server closes a connection that is not at a table and sends nothing for its
# idle timeout (15 minutes unless its host chose otherwise): a player reading the
# lobby that long is still here, so the client says so now and then. Likewise a
# player in a chair who thinks over a move for a minute (the server's turn silence)
# while chat goes on around them, or a bot that thinks long. The welcome says both;
# rummy-client and rummy-bot ping at a third of the shorter (keepalive_every), at
# most this seldom (a server that does not say is taken to keep the default) and at
# least this often (a server that says 0 is not pinged in a busy loop).
KEEPALIVE = 240.0
KEEPALIVE_FLOOR = 0.5
# Fatal errors after which connecting again cannot help: another connection took the
# chair back with its token; another protocol version; the name refused.
FINAL = frozenset({errors.REPLACED, errors.VERSION, errors.BAD_NAME})


def keepalive_every(idle_timeout: float | None, turn_silence: float | None = None) -> float:
    """Seconds between pings for a server whose welcome said ``idle_timeout`` and
    ``turn_silence``."""
    said = [t for t in (idle_timeout, turn_silence) if t is not None]
    if not said:
        return KEEPALIVE
    return max(KEEPALIVE_FLOOR, min(KEEPALIVE, min(said) / 3))
