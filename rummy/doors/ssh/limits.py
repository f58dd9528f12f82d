"""How the SSH front door protects the host: its limits and timeouts.

Plain numbers with no imports, so the CLI can show them as defaults without
loading the pty machinery (which exists only on Unix).
"""

from __future__ import annotations

# Seconds without a key pressed before a session is closed (0: never).
DEFAULT_IDLE_TIMEOUT = 30 * 60.0
# SSH connections at once from one address: a household behind one router
# is four players, with room for a reconnect or two.
DEFAULT_MAX_PER_ADDRESS = 8
# SSH sessions (each a client process of ~40 MiB) at once on the whole server.
DEFAULT_MAX_SESSIONS = 100
# Sessions (so client processes) at once on one connection: ssh's connection
# sharing may open a few; nobody needs dozens.
MAX_SESSIONS_PER_CONNECTION = 4
# Connections still logging in, at once on the whole server (OpenSSH's MaxStartups):
# each holds a file and a little memory until it logs in or its time is up.
DEFAULT_MAX_STARTUPS = 32
# Connections still logging in get this long to do it (OpenSSH's LoginGraceTime).
DEFAULT_LOGIN_TIMEOUT = 30.0
# Dead peers (a laptop lid closed, a dropped Wi-Fi) are noticed within
# interval * count seconds, so their client ends and the seat can be reclaimed.
KEEPALIVE_INTERVAL = 30.0
KEEPALIVE_COUNT_MAX = 4
