"""How the browser front door protects the host: its own limits and timeouts (the
ones both doors share are in rummy/doors/limits.py).

Plain numbers, so the CLI can show them as defaults without loading aiohttp or
the pty machinery.
"""

from __future__ import annotations

# Browser sessions at once in all: each one is a client process (README, "Hosting"),
# so this bounds the host's memory.
DEFAULT_MAX_SESSIONS = 64
# New sessions one address may start: a burst, then one every few seconds.
# Each start is a new client process; a reload loop must not eat the CPU.
SESSION_START_BURST = 12
SESSION_START_RATE = 0.5  # a second
# aiohttp pings the browser this often; a page that stops answering (a laptop
# lid closed, a dropped Wi-Fi) is closed within about twice that.
HEARTBEAT = 20.0
# The largest message a page may send: keys and resizes are a few bytes, a
# paste can be longer; anything bigger closes the session.
MAX_MESSAGE = 64 * 1024
# Output waiting for a slow browser: past this the client's terminal is not
# read, so the client blocks on its own writes (a terminal's flow control).
OUTPUT_HIGH_WATER = 256 * 1024
# The largest terminal a page may ask for, in cells.
MAX_COLUMNS = 500
MAX_ROWS = 200
