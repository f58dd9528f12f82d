"""The token bucket now lives in ``rummy.protocol.ratelimit`` (the doors limit with it
too, and they import nothing of the server); this name stays for the server's modules."""

from rummy.protocol.ratelimit import TokenBucket

__all__ = ["TokenBucket"]
