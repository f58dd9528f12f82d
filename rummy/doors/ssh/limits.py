"""How the SSH front door protects the host: its own limits and timeouts (the ones
both doors share are in rummy/doors/limits.py).

Plain numbers, so the CLI can show them as defaults without loading the pty
machinery (which exists only on Unix).
"""

from __future__ import annotations

from rummy.doors.limits import DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_PER_ADDRESS, HANGUP_GRACE

__all__ = ["DEFAULT_IDLE_TIMEOUT", "DEFAULT_MAX_PER_ADDRESS", "HANGUP_GRACE"]  # and those below
# SSH sessions (each a client process, README "Hosting") at once on the whole server.
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
