"""A server's address as people write it: ``host:port``, ``host`` (the default port)
or ``[v6 address]:port``. The client and ``rummy-bot`` read their HOST:PORT with it, and
everything that shows an address to a person writes it so (``address_text``)."""

from __future__ import annotations

from .messages import DEFAULT_PORT


def parse_address(text: str) -> tuple[str, int]:
    """``host:port``, ``host`` (the default port) or ``[v6 address]:port``."""
    text = text.strip()
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    else:
        host, port_text = text, ""
    if not host:
        raise ValueError(f"{text!r} has no host name: give it as host:port, e.g. localhost:{DEFAULT_PORT}")
    if not port_text:
        return host, DEFAULT_PORT
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ValueError(f"{port_text!r} is not a port number (1 to 65535)")
    return host, int(port_text)


def address_text(host: str, port: int) -> str:
    """``host:port`` as ``parse_address`` reads it back: an IPv6 address in brackets
    (``::1:7325`` would be read as a host named so, on the default port)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
