"""The asyncio server: lobby, tables, games, storage (docs/PROTOCOL.md for the wire).

One public entry, used by the client's local game and by tests::

    server = await start_server(host="127.0.0.1", port=0, db_path=None, bot_delay=0.0)
    ... server.host, server.port ...
    await server.close()

and the ``rummy-server`` command (``rummy.server.cli``).
"""

from .listener import Server, start_server
from .options import ServerOptions

__all__ = ["Server", "ServerOptions", "start_server"]
