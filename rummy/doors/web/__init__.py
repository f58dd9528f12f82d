"""Play from a browser with nothing installed: ``rummy-server --web-port P``.

Each page runs the game client on its own pty, connected to this game server,
and draws it with xterm.js (textual-serve's front end, served from its wheel).
A random secret kept in the browser's cookie, not the typed name, is what gives
a dropped seat back (identity.py).

    server = await start_web_server("0.0.0.0", 8080, "127.0.0.1:7325", state_dir)
    ... server.port ...
    await server.close()

The names below are loaded on first use: aiohttp and the pty side are needed
only when the web door is asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rummy.doors.web.identity import BrowserId
    from rummy.doors.web.server import WebGameServer, start_web_server

_WHERE = {
    "BrowserId": "identity",
    "WebGameServer": "server",
    "start_web_server": "server",
}

__all__ = ["BrowserId", "WebGameServer", "start_web_server"]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
