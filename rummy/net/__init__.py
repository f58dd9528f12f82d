"""The asyncio side of the protocol: a client over a TCP connection (``Client``).

``rummy.protocol`` stays sans-I/O (bytes in, messages out); the sockets live here.
"""

from .client import Client

__all__ = ["Client"]
