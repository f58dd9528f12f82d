"""Play over SSH with nothing installed: ``rummy-server --ssh-port P``.

Each SSH session with a terminal runs the game client on its own pty,
connected to this game server and named after the SSH user; the player's
public key, not the name, is what gives a dropped seat back.
"""

from rummy.server.ssh.access import AccessError, AccessPolicy
from rummy.server.ssh.hostkey import HOST_KEY_NAME, HostKeyError
from rummy.server.ssh.identity import Identity, sanitise_name
from rummy.server.ssh.server import SSHGameServer, start_ssh_server
from rummy.server.ssh.session import ClientCommand, default_client_command

__all__ = [
    "HOST_KEY_NAME",
    "AccessError",
    "AccessPolicy",
    "ClientCommand",
    "HostKeyError",
    "Identity",
    "SSHGameServer",
    "default_client_command",
    "sanitise_name",
    "start_ssh_server",
]
