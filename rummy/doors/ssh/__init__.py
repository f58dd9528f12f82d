"""Play over SSH with nothing installed: ``rummy-server --ssh-port P``.

Each SSH session with a terminal runs the game client on its own pty,
connected to this game server and named after the SSH user; the player's
public key, not the name, is what gives a dropped seat back.

    server = await start_ssh_server("0.0.0.0", 2222, "127.0.0.1:7325", state_dir)
    ... server.port, server.host_key_fingerprint ...
    await server.close()

The names below are loaded on first use: the pty side needs Unix, and
importing this package (as rummy-server's CLI does) must work everywhere.
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Any

# asyncssh (2.24.1, the newest) still names cryptography's DSA types, which cryptography 51
# deprecates at every use: ten lines of warnings on the host's terminal at each start,
# about a key type this server never offers (its host key is Ed25519) and nobody running
# it can act on. Only cryptography's deprecation notes raised from asyncssh's own code are
# silenced; a package's module is loaded after its package, so this runs before asyncssh.
warnings.filterwarnings("ignore", r".* is deprecated", UserWarning, r"asyncssh(\.|$)")

if TYPE_CHECKING:
    from rummy.doors.ssh.access import AccessError, AccessPolicy
    from rummy.doors.ssh.hostkey import HOST_KEY_NAME, HostKeyError
    from rummy.doors.ssh.identity import Identity, sanitize_name
    from rummy.doors.ssh.server import SSHGameServer, start_ssh_server

_WHERE = {
    "AccessError": "access",
    "AccessPolicy": "access",
    "HOST_KEY_NAME": "hostkey",
    "HostKeyError": "hostkey",
    "Identity": "identity",
    "sanitize_name": "identity",
    "SSHGameServer": "server",
    "start_ssh_server": "server",
}

__all__ = [  # noqa: RUF022 (grouped by module, as in _WHERE)
    "AccessError",
    "AccessPolicy",
    "HOST_KEY_NAME",
    "HostKeyError",
    "Identity",
    "sanitize_name",
    "SSHGameServer",
    "start_ssh_server",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
