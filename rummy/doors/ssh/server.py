"""The SSH listener: authentication, the limits on connections and sessions, idle timeout.

One ``GameSSHConnection`` per TCP connection decides who gets in and hands
each session a ``GameSession`` (see session.py). ``start_ssh_server`` puts
it all together and returns a handle with ``.port`` and ``close()``, like
the game server's own ``start_server``.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import asyncssh

from rummy.doors.client_env import ClientCommand, default_client_command
from rummy.doors.forker import Forker, preload_for
from rummy.doors.limits import DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_PER_ADDRESS, HANGUP_GRACE
from rummy.doors.ssh.access import AccessPolicy
from rummy.doors.ssh.hostkey import default_host_key_path, load_host_key, load_or_create_host_key
from rummy.doors.ssh.identity import DEFAULT_NAME, SSH_DIR, Identity
from rummy.doors.ssh.limits import (
    DEFAULT_LOGIN_TIMEOUT,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_MAX_STARTUPS,
    KEEPALIVE_COUNT_MAX,
    KEEPALIVE_INTERVAL,
    MAX_SESSIONS_PER_CONNECTION,
)
from rummy.doors.ssh.session import FULL_REFUSAL, GameSession, Refusal, SessionSettings
from rummy.doors.statedir import players_root
from rummy.doors.wording import ListenError, duration

log = logging.getLogger(__name__)

IDLE_NOTICE = "rummy: closing this session after {duration} without a key pressed.\r\n"
SHUTDOWN_NOTICE = b"rummy: the server is shutting down. Goodbye.\r\n"
# Seconds the sessions of an idle connection get to close (their last output sent,
# the clients ended) before the connection is cut anyway.
IDLE_CLOSE_GRACE = 15.0
# A stopping server waits this much longer than its clients' hang-up grace for the
# connections to go before it cuts them.
SHUTDOWN_SLACK = 1.0


class _Shared:
    """State shared by every connection of one SSH server."""

    def __init__(
        self,
        settings: SessionSettings,
        access: AccessPolicy,
        idle_timeout: float,
        max_per_address: int,
        max_startups: int = DEFAULT_MAX_STARTUPS,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
    ) -> None:
        self.settings = settings
        self.access = access
        self.idle_timeout = idle_timeout
        self.max_per_address = max_per_address
        self.max_startups = max_startups
        self.max_sessions = max_sessions
        self.per_address: Counter[str] = Counter()  # logged-in connections only
        self.startups: dict[asyncssh.SSHServerConnection, str] = {}  # still logging in, oldest first
        self.connections: dict[asyncssh.SSHServerConnection, GameSSHConnection] = {}
        self.sessions: set[GameSession] = set()
        self.tasks: set[asyncio.Task[None]] = set()

    def track(self, task: asyncio.Task[None]) -> None:
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def admit(self, conn: asyncssh.SSHServerConnection, address: str) -> bool:
        """Let a new connection start logging in, within ``max_startups`` at once on the
        whole server (as OpenSSH's MaxStartups). When they are all taken, the oldest
        one of the address that holds the most goes, unless that is the newcomer's own
        address: sockets that never log in lock out only their own address, never
        everybody else (eight of them locked an address out for a minute)."""
        if len(self.startups) >= self.max_startups:
            held = Counter(self.startups.values())
            heaviest, most = held.most_common(1)[0]
            if most <= held[address]:
                return False
            oldest = next(c for c, a in self.startups.items() if a == heaviest)
            del self.startups[oldest]
            log.info("ssh connection from %s still logging in dropped to make room", heaviest)
            oldest.abort()
        self.startups[conn] = address
        return True


class GameSSHConnection(asyncssh.SSHServer):
    """Decides, for one connection, who is let in and what their sessions run."""

    def __init__(self, shared: _Shared) -> None:
        self._shared = shared
        self._conn: asyncssh.SSHServerConnection | None = None
        self._peer = ""
        self._counted = False  # logged in, and counted for its address
        self._ending: str | None = None  # why it is closing (end_with), if it is
        self._hang_up_timer: asyncio.TimerHandle | None = None
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
        shared.connections[conn] = self
        if not shared.admit(conn, self._peer):
            log.info("refused an ssh connection from %s: too many still logging in", self._peer)
            self._loop.call_soon(conn.abort)
            return
        self._arm_idle_timer(shared.idle_timeout)

    def connection_lost(self, exc: Exception | None) -> None:
        shared = self._shared
        if self._conn is not None:
            shared.connections.pop(self._conn, None)
            shared.startups.pop(self._conn, None)
        if self._counted:
            shared.per_address[self._peer] -= 1
            if shared.per_address[self._peer] <= 0:
                del shared.per_address[self._peer]
        for timer in (self._idle_timer, self._hang_up_timer):
            if timer is not None:
                timer.cancel()
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
        self.end_with(notice, "idle timeout", IDLE_CLOSE_GRACE)

    # -- the end -----------------------------------------------------------------

    def end_with(self, notice: bytes, reason: str, grace: float) -> None:
        """Close the connection with a last line to each of its players (the idle
        timeout, a stopping server): each session resets its player's terminal, shows
        ``notice`` and closes once its client has ended; the connection is then
        disconnected with ``reason``, or after ``grace`` seconds whatever is left.
        (A disconnect at once threw away what was still queued for a slow link, and
        left the players' terminals in the client's alternate screen.)"""
        if self._ending is not None:
            return
        self._ending = reason
        if self._idle_timer is not None:
            self._idle_timer.cancel()
        for session in list(self._sessions):
            session.end_with(notice)
        if not self._sessions:
            self._end()
        else:  # a peer that never acknowledges the closes is cut off anyway
            self._hang_up_timer = self._loop.call_later(grace, self._end)

    def _end(self) -> None:
        if self._conn is not None:
            self._conn.disconnect(asyncssh.DISC_BY_APPLICATION, self._ending or "closing")

    def _session_closed(self, session: GameSession) -> None:
        self._sessions.remove(session)
        self._shared.sessions.discard(session)
        if self._ending is not None and not self._sessions:
            self._end()

    # -- authentication ----------------------------------------------------------

    def begin_auth(self, username: str) -> bool:
        self._refuse_if_full()  # here, so that the player's ssh prints the reason
        return True  # always ask: we want the key even in open mode

    def _refuse_if_full(self) -> None:
        """Only connections that logged in count for their address: sockets that send
        a banner and nothing more must not lock the address's players out."""
        shared = self._shared
        if shared.per_address[self._peer] >= shared.max_per_address:
            log.warning("refused ssh connection from %s: too many from that address", self._peer)
            raise asyncssh.DisconnectError(
                asyncssh.DISC_TOO_MANY_CONNECTIONS,
                f"Too many connections from your address (at most {shared.max_per_address}).",
            )

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
        shared = self._shared
        shared.startups.pop(self._conn, None)
        self._refuse_if_full()  # again: others of the address may have logged in meanwhile
        shared.per_address[self._peer] += 1
        self._counted = True
        self._identity = Identity(self._conn.get_extra_info("username") or "", self._candidate_key)
        log.info(
            "ssh login %r from %s with %s",
            self._identity.user_name,
            self._peer,
            self._identity.fingerprint or "no key",
        )

    # -- sessions ----------------------------------------------------------------

    def session_requested(self) -> GameSession | Refusal | bool:
        assert self._identity is not None
        shared = self._shared
        if self._ending is not None:
            return False  # closing: no new client
        if len(self._sessions) >= MAX_SESSIONS_PER_CONNECTION:
            log.warning("refused a session from %s: %d open already", self._peer, len(self._sessions))
            return False  # each session is a client process: keep their number bounded
        if len(shared.sessions) >= shared.max_sessions:
            log.warning("refused a session from %s: %d SSH players already", self._peer, len(shared.sessions))
            return Refusal(FULL_REFUSAL.format(limit=shared.max_sessions).encode())
        session = GameSession(shared.settings, self._identity, self.touch, shared.track, self._session_closed)
        self._sessions.append(session)
        shared.sessions.add(session)
        return session


class SSHGameServer:
    """A running SSH front door. ``port`` is the bound port (useful with 0)."""

    def __init__(self, acceptor: asyncssh.SSHAcceptor, shared: _Shared, host_key: asyncssh.SSHKey) -> None:
        self._acceptor = acceptor
        self._shared = shared
        self.forker = shared.settings.forker
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
        # Every connection ends as an idle one does: its players told why, their
        # clients hung up, then it is disconnected; one that lingers past the grace
        # (a peer that stopped reading holds its close for ever) is cut.
        grace = self._shared.settings.hangup_grace + SHUTDOWN_SLACK
        connections = dict(self._shared.connections)
        for connection in connections.values():
            connection.end_with(SHUTDOWN_NOTICE, "server shutting down", grace)
        if connections:
            closing = [asyncio.ensure_future(conn.wait_closed()) for conn in connections]
            await asyncio.wait(closing, timeout=grace + SHUTDOWN_SLACK)
            for conn, waited in zip(connections, closing, strict=True):
                if not waited.done():
                    conn.abort()
            await asyncio.gather(*closing, return_exceptions=True)
        # Only now: from Python 3.12.1 on, an asyncio server's wait_closed waits for
        # every connection it accepted to close, so waiting first hung for ever.
        await self._acceptor.wait_closed()
        # The sessions' tasks, and any they started meanwhile. (Not "while any is
        # tracked": from Python 3.12 a gather of finished tasks returns at once,
        # before their done callbacks untrack them, and that loop never ended.)
        while unfinished := [task for task in self._shared.tasks if not task.done()]:
            await asyncio.gather(*unfinished, return_exceptions=True)
        await self.forker.close()

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
    max_startups: int = DEFAULT_MAX_STARTUPS,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
    login_timeout: float = DEFAULT_LOGIN_TIMEOUT,
    keyless_notice_waits: bool = True,
    hangup_grace: float = HANGUP_GRACE,
) -> SSHGameServer:
    """Serve the game client over SSH on ``host:port``.

    Each session with a pty runs ``client_argv(game_address, name)`` (by
    default ``python -m rummy.client.cli HOST:PORT --name NAME``) on its own pty.
    The host key is ``host_key_path`` if given (it must exist), else
    ``<state_dir>/ssh_host_ed25519_key``, created on first start. With
    ``authorized_keys_path`` only those keys get in; otherwise anyone does.
    ``idle_timeout`` (seconds without a key pressed; 0 = never),
    ``max_per_address`` (logged-in connections from one address),
    ``max_startups`` (connections still logging in, in all; each gets
    ``login_timeout`` seconds) and ``max_sessions`` (players, so client
    processes, in all) protect the host. Raises HostKeyError or AccessError
    (with a readable message) when the key files cannot be used.
    """
    state_dir = Path(state_dir)
    players_root(state_dir, SSH_DIR)  # StateDirError now, rather than at a player's login
    if host_key_path is not None:
        host_key = load_host_key(host_key_path)
    else:
        host_key = load_or_create_host_key(default_host_key_path(state_dir))
    access = AccessPolicy(authorized_keys_path)
    command = client_argv or default_client_command
    # The clients' pre-imported parent, ready before the first player comes.
    forker = Forker(preload_for(command(game_address, DEFAULT_NAME)), home=state_dir)
    await forker.start()
    settings = SessionSettings(
        game_address=game_address,
        state_dir=state_dir,
        forker=forker,
        client_command=command,
        keyless_notice_waits=keyless_notice_waits,
        hangup_grace=hangup_grace,
    )
    shared = _Shared(
        settings, access, idle_timeout, max(1, max_per_address), max(1, max_startups), max(1, max_sessions)
    )
    factory: Callable[[], GameSSHConnection] = lambda: GameSSHConnection(shared)  # noqa: E731
    try:
        acceptor = await _listen(factory, host, port, host_key, login_timeout)
    except BaseException as error:
        await forker.close()
        if isinstance(error, OSError):
            raise ListenError.of(host or "", port, error) from error
        raise
    server = SSHGameServer(acceptor, shared, host_key)
    log.info(
        "SSH on port %d (%s), host key %s",
        server.port,
        "open to anyone" if access.is_open else f"keys in {authorized_keys_path}",
        server.host_key_fingerprint,
    )
    return server


async def _listen(
    factory: Callable[[], GameSSHConnection],
    host: str | None,
    port: int,
    host_key: asyncssh.SSHKey,
    login_timeout: float,
) -> asyncssh.SSHAcceptor:
    return await asyncssh.create_server(
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
