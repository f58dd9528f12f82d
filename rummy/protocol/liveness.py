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
# Fatal errors after which connecting again cannot help: another connection took the
# chair back with its token; another protocol version; the name refused.
FINAL = frozenset({errors.REPLACED, errors.VERSION, errors.BAD_NAME})
