"""The asyncio side of the protocol: a client over a TCP connection (``Client``).

``rummy.protocol`` stays sans-I/O (bytes in, messages out); the sockets live here.
"""

from .client import Client
from .reader import READ_CHUNK, server_messages

__all__ = ["READ_CHUNK", "Client", "server_messages"]
