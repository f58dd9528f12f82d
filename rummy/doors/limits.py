"""How both doors protect the host: the limits and timeouts they share.

Plain numbers with no imports, so the CLIs can show them as defaults without
loading asyncssh, aiohttp or the pty machinery. Each door's own ``limits``
module adds what only it has.
"""

from __future__ import annotations

# Seconds without a key pressed (or the window resized) before a session is
# closed (0: never): a game left open in a forgotten terminal or tab.
DEFAULT_IDLE_TIMEOUT = 30 * 60.0
# Sessions at once from one address: a household behind one router is four
# players, with room for a reconnect or a second tab or two.
DEFAULT_MAX_PER_ADDRESS = 8
# A session's client gets SIGHUP when it ends, then SIGKILL after this many seconds.
HANGUP_GRACE = 2.0
