"""The SSH listener: authentication, per-address limit, idle timeout.

One ``GameSSHConnection`` per TCP connection decides who gets in and hands
each session a ``GameSession`` (see session.py). ``start_ssh_server`` puts
it all together and returns a handle with ``.port`` and ``close()``, like
the game server's own ``start_server``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import asyncssh

from rummy.server.ssh.access import AccessPolicy
from rummy.server.ssh.hostkey import default_host_key_path, load_host_key, load_or_create_host_key
from rummy.server.ssh.identity import Identity
from rummy.server.ssh.limits import (
    DEFAULT_IDLE_TIMEOUT,
    DEFAULT_LOGIN_TIMEOUT,
    DEFAULT_MAX_PER_ADDRESS,
    KEEPALIVE_COUNT_MAX,
    KEEPALIVE_INTERVAL,
    MAX_SESSIONS_PER_CONNECTION,
)
from rummy.server.ssh.session import ClientCommand, GameSession, SessionSettings, default_client_command
from rummy.server.wording import duration

log = logging.getLogger(__name__)

IDLE_NOTICE = "rummy: closing this session after {duration} without a key pressed.\r\n"


class _Shared:
    """State shared by every connection of one SSH server."""

    def __init__(
        self,
        settings: SessionSettings,
        access: AccessPolicy,
        idle_timeout: float,
        max_per_address: int,
    ) -> None:
        self.settings = settings
        self.access = access
        self.idle_timeout = idle_timeout
        self.max_per_address = max_per_address
        self.per_address: Counter[str] = Counter()
        self.connections: set[asyncssh.SSHServerConnection] = set()
        self.tasks: set[asyncio.Task[None]] = set()

    def track(self, task: asyncio.Task[None]) -> None:
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


class GameSSHConnection(asyncssh.SSHServer):
    """Decides, for one connection, who is let in and what their sessions run."""

    def __init__(self, shared: _Shared) -> None:
        self._shared = shared
        self._conn: asyncssh.SSHServerConnection | None = None
        self._peer = ""
        self._over_limit = False
        self._candidate_key: asyncssh.SSHKey | None = None
        self._identity: Identity | None = None
        self._sessions: list[GameSession] = []
        self._loop = asyncio.get_running_loop()
        self._last_activity = self._loop.time()
        self._idle_timer: asyncio.TimerHandle | None = None

    # -- connection life ---------------------------------------------------------

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        peer = conn.get_extra_info("peername")
        self._peer = str(peer[0]) if peer else "?"
        shared = self._shared
        shared.connections.add(conn)
        shared.per_address[self._peer] += 1
        # Refused at begin_auth rather than here, so that the player's ssh
        # can print the reason instead of a bare "connection closed".
        self._over_limit = shared.per_address[self._peer] > shared.max_per_address
        self._arm_idle_timer(shared.idle_timeout)

    def connection_lost(self, exc: Exception | None) -> None:
        shared = self._shared
        if self._conn is not None:
            shared.connections.discard(self._conn)
        shared.per_address[self._peer] -= 1
        if shared.per_address[self._peer] <= 0:
            del shared.per_address[self._peer]
        if self._idle_timer is not None:
            self._idle_timer.cancel()
        log.info("ssh connection from %s closed%s", self._peer, f": {exc}" if exc else "")

    # -- idle timeout ------------------------------------------------------------

    def touch(self) -> None:
        """A key or a resize from the player: not idle."""
        self._last_activity = self._loop.time()

    def _arm_idle_timer(self, delay: float) -> None:
        if self._shared.idle_timeout > 0:
            self._idle_timer = self._loop.call_later(delay, self._check_idle)

    def _check_idle(self) -> None:
        timeout = self._shared.idle_timeout
        remaining = self._last_activity + timeout - self._loop.time()
        if remaining > 0:
            self._arm_idle_timer(remaining)
            return
        log.info("closing idle ssh connection from %s", self._peer)
        notice = IDLE_NOTICE.format(duration=duration(timeout)).encode()
        for session in self._sessions:
            session.notify(notice)
        if self._conn is not None:
            self._conn.disconnect(asyncssh.DISC_BY_APPLICATION, "idle timeout")

    # -- authentication ----------------------------------------------------------

    def begin_auth(self, username: str) -> bool:
        if self._over_limit:
            log.warning("refused ssh connection from %s: too many from that address", self._peer)
            raise asyncssh.DisconnectError(
                asyncssh.DISC_TOO_MANY_CONNECTIONS,
                f"Too many connections from your address (at most {self._shared.max_per_address}).",
            )
        return True  # always ask: we want the key even in open mode

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        # asyncssh asks this both for a key's probe and for the signed request,
        # and checks the signature right after a True; so the key last
        # approved here is the one that authenticated if auth_completed follows.
        allowed = self._shared.access.allows_key(key, self._peer, self._peer)
        self._candidate_key = key if allowed else None
        return allowed

    def kbdint_auth_supported(self) -> bool:
        return self._shared.access.allows_keyless

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        # Open mode lets a player without a key in at once, with no prompt.
        self._candidate_key = None
        return self._shared.access.allows_keyless

    def password_auth_supported(self) -> bool:
        return False

    def auth_completed(self) -> None:
        assert self._conn is not None
        self._identity = Identity(self._conn.get_extra_info("username") or "", self._candidate_key)
        log.info(
            "ssh login %r from %s with %s",
            self._identity.user_name,
            self._peer,
            self._identity.fingerprint or "no key",
        )

    # -- sessions ----------------------------------------------------------------

    def session_requested(self) -> GameSession | bool:
        assert self._identity is not None
        if len(self._sessions) >= MAX_SESSIONS_PER_CONNECTION:
            log.warning("refused a session from %s: %d open already", self._peer, len(self._sessions))
            return False  # each session is a client process: keep their number bounded
        session = GameSession(
            self._shared.settings, self._identity, self.touch, self._shared.track, self._sessions.remove
        )
        self._sessions.append(session)
        return session


class SSHGameServer:
    """A running SSH front door. ``port`` is the bound port (useful with 0)."""

    def __init__(self, acceptor: asyncssh.SSHAcceptor, shared: _Shared, host_key: asyncssh.SSHKey) -> None:
        self._acceptor = acceptor
        self._shared = shared
        self.host = acceptor.get_addresses()[0][0] if acceptor.get_addresses() else ""
        self.port: int = acceptor.get_port()
        self.host_key_fingerprint: str = host_key.get_fingerprint("sha256")

    @property
    def connection_count(self) -> int:
        return len(self._shared.connections)

    async def close(self) -> None:
        """Stop listening, end every session (each client is hung up and
        reaped), and return once all of that is done."""
        self._acceptor.close()
        await self._acceptor.wait_closed()
        conns = list(self._shared.connections)
        for conn in conns:
            conn.close()
        for conn in conns:
            with contextlib.suppress(Exception):
                await conn.wait_closed()
        while self._shared.tasks:
            await asyncio.gather(*list(self._shared.tasks), return_exceptions=True)

    async def __aenter__(self) -> SSHGameServer:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


async def start_ssh_server(
    host: str | None,
    port: int,
    game_address: str,
    state_dir: str | Path,
    host_key_path: str | Path | None = None,
    authorized_keys_path: str | Path | None = None,
    client_argv: ClientCommand | None = None,
    *,
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    max_per_address: int = DEFAULT_MAX_PER_ADDRESS,
    login_timeout: float = DEFAULT_LOGIN_TIMEOUT,
    keyless_notice_delay: float = 2.0,
    hangup_grace: float = 2.0,
) -> SSHGameServer:
    """Serve the game client over SSH on ``host:port``.

    Each session with a pty runs ``client_argv(game_address, name)`` (by
    default ``python -m rummy.client.cli HOST:PORT --name NAME``) on its own pty.
    The host key is ``host_key_path`` if given (it must exist), else
    ``<state_dir>/ssh_host_ed25519_key``, created on first start. With
    ``authorized_keys_path`` only those keys get in; otherwise anyone does.
    ``idle_timeout`` (seconds without a key pressed; 0 = never) and
    ``max_per_address`` protect the host. Raises HostKeyError or AccessError
    (with a readable message) when the key files cannot be used.
    """
    state_dir = Path(state_dir)
    if host_key_path is not None:
        host_key = load_host_key(host_key_path)
    else:
        host_key = load_or_create_host_key(default_host_key_path(state_dir))
    access = AccessPolicy(authorized_keys_path)
    settings = SessionSettings(
        game_address=game_address,
        state_dir=state_dir,
        client_command=client_argv or default_client_command,
        keyless_notice_delay=keyless_notice_delay,
        hangup_grace=hangup_grace,
    )
    shared = _Shared(settings, access, idle_timeout, max(1, max_per_address))
    factory: Callable[[], GameSSHConnection] = lambda: GameSSHConnection(shared)  # noqa: E731
    acceptor = await asyncssh.create_server(
        factory,
        host or "",
        port,
        server_host_keys=[host_key],
        encoding=None,
        line_editor=False,
        allow_pty=True,
        agent_forwarding=False,
        x11_forwarding=False,
        allow_scp=False,
        login_timeout=login_timeout,
        keepalive_interval=KEEPALIVE_INTERVAL,
        keepalive_count_max=KEEPALIVE_COUNT_MAX,
        gss_host=None,
    )
    server = SSHGameServer(acceptor, shared, host_key)
    log.info(
        "SSH on port %d (%s), host key %s",
        server.port,
        "open to anyone" if access.is_open else f"keys in {authorized_keys_path}",
        server.host_key_fingerprint,
    )
    return server
