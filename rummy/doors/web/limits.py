"""How the browser front door protects the host: its limits and timeouts.

Plain numbers with no imports, so the CLI can show them as defaults without
loading aiohttp or the pty machinery.
"""

from __future__ import annotations

# Seconds without a key pressed (or the window resized) before a session is
# closed (0: never). As for SSH: a game left open in a forgotten tab.
DEFAULT_IDLE_TIMEOUT = 30 * 60.0
# Browser sessions (so client processes) at once from one address: a household
# behind one router is four players, with room for a second tab or two.
DEFAULT_MAX_PER_ADDRESS = 8
# Browser sessions at once in all: each one is a client process of about
# 36 MiB (README, "Playing in a browser"), so this bounds the host's memory.
DEFAULT_MAX_SESSIONS = 64
# New sessions one address may start: a burst, then one every few seconds.
# Each start is a new Python process; a reload loop must not eat the CPU.
SESSION_START_BURST = 12
SESSION_START_RATE = 0.5  # a second
# A closed page's client gets SIGHUP, then SIGKILL after this many seconds.
HANGUP_GRACE = 2.0
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
