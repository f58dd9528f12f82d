"""The SSH front door, driven with asyncssh's own client.

A stand-in child (ssh_standin.py) plays the game client here, so that these
tests show exactly what the pty plumbing does: the terminal size it sees,
the bytes it gets, its exit status, its controlling terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import re
import socket
import stat
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import asyncssh
import pytest

from rummy.doors.options import game_address
from rummy.doors.ssh import HOST_KEY_NAME, HostKeyError, sanitize_name, start_ssh_server
from rummy.doors.ssh.cli import start_ssh_from_args
from rummy.doors.ssh.limits import MAX_SESSIONS_PER_CONNECTION
from rummy.doors.ssh.server import IDLE_NOTICE, SHUTDOWN_NOTICE, SSHGameServer
from rummy.doors.ssh.session import REPLACED_NOTICE, TERMINAL_RESET
from rummy.doors.wording import ListenError
from rummy.protocol import NAME_LIMIT
from rummy.server import start_server
from rummy.server.cli import build_parser
from tests.doors.door_helpers import (
    CLEAN_ENV,
    TIMEOUT,
    env_of,
    field,
    host_secrets,
    open_fds,
    opened_since,
    process_gone,
    standin,
    still_open,
)
from tests.support import eventually

GAME_ADDRESS = "127.0.0.1:4567"  # the stand-in only prints it


async def serve(state_dir: Path, **kwargs: object) -> SSHGameServer:
    options: dict[str, object] = {
        "client_argv": standin("--exit", "3"),
        "keyless_notice_waits": False,
        "hangup_grace": 0.5,
    }
    options.update(kwargs)
    return await start_ssh_server("127.0.0.1", 0, GAME_ADDRESS, state_dir, **options)  # type: ignore[arg-type]


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[SSHGameServer]:
    srv = await serve(tmp_path / "state")
    yield srv
    await srv.close()


@pytest.fixture(scope="module")
def keys() -> list[asyncssh.SSHKey]:
    return [asyncssh.generate_private_key("ssh-ed25519") for _ in range(2)]


class _KeylessClient(asyncssh.SSHClient):
    """Answers keyboard-interactive with nothing, as OpenSSH does when the
    server asks no questions."""

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: Sequence[tuple[str, bool]]
    ) -> list[str]:
        return []


async def connect(
    srv: SSHGameServer | int,
    user: str = "alice",
    key: asyncssh.SSHKey | None = None,
    source: str = "127.0.0.1",
) -> asyncssh.SSHClientConnection:
    """Log in to the server (or port) as ``user`` with ``key``, or with no key, from the
    loopback address ``source``."""
    conn, _ = await asyncssh.create_connection(
        _KeylessClient,
        "127.0.0.1",
        srv if isinstance(srv, int) else srv.port,
        local_addr=(source, 0),
        username=user,
        client_keys=[key] if key is not None else None,
        known_hosts=None,
        agent_path=None,
        password=None,
        preferred_auth="publickey,keyboard-interactive" if key is not None else "keyboard-interactive",
    )
    return conn


async def open_terminal(
    conn: asyncssh.SSHClientConnection, size: tuple[int, int] = (100, 30)
) -> asyncssh.SSHClientProcess[bytes]:
    return await conn.create_process(term_type="xterm-256color", term_size=size, encoding=None)


class Screen:
    """What the player's terminal has received so far."""

    def __init__(self, process: asyncssh.SSHClientProcess[bytes]) -> None:
        self.process = process
        self.data = b""

    async def wait_for(self, text: bytes, start: int = 0) -> int:
        """Read until ``text`` has arrived (after offset ``start``); its offset."""

        async def read() -> int:
            while (at := self.data.find(text, start)) < 0:
                chunk = await self.process.stdout.read(65536)
                if not chunk:
                    raise AssertionError(f"session ended before {text!r}; screen: {self.data!r}")
                self.data += chunk
            return at

        return await asyncio.wait_for(read(), TIMEOUT)

    async def line_after(self, prefix: bytes) -> str:
        at = await self.wait_for(prefix)
        end = await self.wait_for(b"\r\n", at)
        return self.data[at:end].decode()

    async def rest(self) -> bytes:
        self.data += await asyncio.wait_for(self.process.stdout.read(), TIMEOUT)
        return self.data


async def test_pty_session_runs_client_with_keys_resize_and_exit_status(
    server: SSHGameServer, keys: list[asyncssh.SSHKey]
) -> None:
    """A session with a pty runs the client named after the SSH user, on a
    controlling terminal of the requested size and TERM; keys go in byte for
    byte, a resize reaches it as SIGWINCH, and its exit status closes the session."""
    async with await connect(server, "alice", keys[0]) as conn:
        process = await open_terminal(conn, (100, 30))
        screen = Screen(process)
        hello = await screen.line_after(b"HELLO")
        assert field(hello, "name") == "alice"
        assert field(hello, "addr") == GAME_ADDRESS
        assert field(hello, "term") == "xterm-256color"
        assert field(hello, "ctty") == "yes"
        await screen.wait_for(b"SIZE 100x30")

        process.stdin.write(b"a\x1b[A\x03")  # a letter, an arrow key, Ctrl+C: all raw
        await screen.wait_for(b"KEY " + b"a\x1b[A\x03".hex().encode())

        process.change_terminal_size(120, 40)
        await screen.wait_for(b"SIZE 120x40")

        process.stdin.write(b"q")
        await process.wait_closed()
        assert process.exit_status == 3


async def test_client_killed_by_signal_is_reported_as_exit_signal(
    server: SSHGameServer, keys: list[asyncssh.SSHKey]
) -> None:
    async with await connect(server, "alice", keys[0]) as conn:
        process = await open_terminal(conn)
        screen = Screen(process)
        await screen.wait_for(b"SIZE")
        process.stdin.write(b"k")
        await process.wait_closed()
        assert process.exit_signal is not None
        assert process.exit_signal[0] == "TERM"


@pytest.mark.parametrize("command", [None, "ls -l"])
async def test_session_without_pty_is_refused_in_one_line(
    server: SSHGameServer, keys: list[asyncssh.SSHKey], command: str | None
) -> None:
    """`ssh -T host` and `ssh host command` get one clear line and a non-zero status."""
    async with await connect(server, "alice", keys[0]) as conn:
        result = await asyncio.wait_for(conn.run(command, encoding="utf-8"), TIMEOUT)
    assert result.exit_status == 1
    assert result.stdout == ""
    assert isinstance(result.stderr, str)
    assert result.stderr.count("\n") == 1
    assert "needs a terminal" in result.stderr


@pytest.mark.parametrize("term", ["dumb", "unknown"])
async def test_a_dumb_terminal_is_refused_in_one_line(
    server: SSHGameServer, keys: list[asyncssh.SSHKey], term: str
) -> None:
    """A terminal that can only print lines (TERM=dumb: Emacs' M-x shell) got the
    game's full screen as a stream of escape codes; now one line says why not and
    what to do, and no client is started."""
    async with await connect(server, "alice", keys[0]) as conn:
        result = await asyncio.wait_for(conn.run(term_type=term, encoding="utf-8"), TIMEOUT)
    assert result.exit_status == 1
    assert result.stdout == ""
    assert isinstance(result.stderr, str)
    assert result.stderr.count("\n") == 1
    assert f"your terminal (TERM={term}) cannot draw the game" in result.stderr


async def test_the_ssh_command_gives_the_client_its_own_options(
    server: SSHGameServer, keys: list[asyncssh.SSHKey]
) -> None:
    """A local player says --ascii, --four-colour or --no-bell on the command line; an
    SSH player had no way to them (a terminal without the suits' symbols showed them
    garbled, for good). Now they are the SSH command: ssh -t HOST ascii four-colour."""
    async with await connect(server, "alice", keys[0]) as conn:
        process = await conn.create_process(
            "four-colour  ASCII no-bell", term_type="xterm", term_size=(100, 30), encoding=None
        )
        hello = await Screen(process).line_after(b"HELLO")
    assert field(hello, "options") == "--ascii,--four-colour,--no-bell"
    async with await connect(server, "alice", keys[0]) as conn:
        hello = await Screen(await open_terminal(conn)).line_after(b"HELLO")
    assert field(hello, "options") == "-"  # none unless asked


async def test_an_unknown_ssh_command_is_refused_naming_the_options(
    server: SSHGameServer, keys: list[asyncssh.SSHKey]
) -> None:
    async with await connect(server, "alice", keys[0]) as conn:
        result = await asyncio.wait_for(conn.run("bash", term_type="xterm", encoding="utf-8"), TIMEOUT)
    assert result.exit_status == 1
    assert isinstance(result.stderr, str)
    assert result.stderr == "rummy: the game takes no 'bash'; it takes: ascii, four-colour, no-bell.\r\n"


async def test_user_name_is_sanitized_for_the_client(
    server: SSHGameServer, keys: list[asyncssh.SSHKey]
) -> None:
    async with await connect(server, "[b]bob;rm -rf *", keys[0]) as conn:
        screen = Screen(await open_terminal(conn))
        hello = await screen.line_after(b"HELLO")
        assert field(hello, "name") == "bbobrm-rf"


def test_sanitize_name() -> None:
    assert sanitize_name("alice") == "alice"
    assert sanitize_name("Zoë_2") == "Zoë_2"
    assert sanitize_name("a b\tc\x00d") == "abcd"
    assert sanitize_name("[b]x[/b]") == "bxb"
    assert sanitize_name("x" * 40) == "x" * NAME_LIMIT
    assert sanitize_name("") == "player"
    assert sanitize_name("\x1b\x07;;") == "player"


async def test_same_key_keeps_its_state_dir_and_other_keys_do_not_share_it(
    tmp_path: Path, keys: list[asyncssh.SSHKey]
) -> None:
    """Identity is the key: a second session with the same key finds the state
    its client left (the seat token); another key, even with the same user
    name, starts fresh."""
    state = tmp_path / "state"
    async with await serve(state) as srv:
        seen: list[tuple[str, str]] = []
        for key in (keys[0], keys[0], keys[1]):
            async with await connect(srv, "alice", key) as conn:
                screen = Screen(await open_terminal(conn))
                line = await screen.line_after(b"STATE")
                seen.append((line.split()[1], field(line, "dir")))
                screen.process.stdin.write(b"q")
                await screen.process.wait_closed()
    assert [s for s, _ in seen] == ["new", "seen", "new"]
    first_dir = Path(seen[0][1])
    assert seen[1][1] == seen[0][1]
    assert seen[2][1] != seen[0][1]
    assert first_dir.parent == state / "ssh"
    # Named after the key's SHA-256 fingerprint (hex, safe on any file system).
    assert first_dir.name == hashlib.sha256(keys[0].public_data).hexdigest()
    assert stat.S_IMODE(first_dir.stat().st_mode) == 0o700


async def test_a_player_back_with_the_same_key_takes_the_game_over_from_the_old_session(
    server: SSHGameServer, keys: list[asyncssh.SSHKey]
) -> None:
    """A dropped connection the server has not noticed yet (its keepalive takes two
    minutes) still ran the key's client, so the player who came back got a second
    client that the first kept out of the seat ("Another rummy-client here already
    plays as bob... Use another --name"). Now the newer session takes over: the old
    one is told and ended, and its client has ended before the new one starts."""
    async with (
        await connect(server, "bob", keys[0]) as old_conn,
        await connect(server, "bob", keys[0]) as conn,
    ):
        old = Screen(await open_terminal(old_conn))
        old_pid = int(field(await old.line_after(b"HELLO"), "pid"))
        screen = Screen(await open_terminal(conn))
        new_pid = int(field(await screen.line_after(b"HELLO"), "pid"))
        assert process_gone(old_pid)  # reaped before the new client began
        assert (await screen.line_after(b"STATE")).split()[1] == "seen"  # the key's own state
        await old.wait_for(TERMINAL_RESET + REPLACED_NOTICE)
        await asyncio.wait_for(old.process.wait_closed(), TIMEOUT)
        # The new session is the key's now: it is not ended in turn.
        screen.process.stdin.write(b"q")
        await screen.process.wait_closed()
        assert screen.process.exit_status == 3
        await eventually(lambda: process_gone(new_pid))


async def test_two_names_under_one_key_play_side_by_side(
    server: SSHGameServer, keys: list[asyncssh.SSHKey]
) -> None:
    """Two people at one computer offer the same key under their own names: each is
    a player of their own, and neither session takes over from the other."""
    async with (
        await connect(server, "alice", keys[0]) as alice_conn,
        await connect(server, "bob", keys[0]) as bob_conn,
    ):
        alice = Screen(await open_terminal(alice_conn))
        alice_pid = int(field(await alice.line_after(b"HELLO"), "pid"))
        bob = Screen(await open_terminal(bob_conn))
        await bob.wait_for(b"HELLO name=bob")
        alice.process.stdin.write(b"x")
        await alice.wait_for(b"KEY 78")  # alice's client still runs and reads her keys
        assert not process_gone(alice_pid)
        assert REPLACED_NOTICE not in alice.data


async def test_keyless_player_is_told_and_gets_a_fresh_state_dir_deleted_afterwards(
    server: SSHGameServer,
) -> None:
    for _ in range(2):
        async with await connect(server, "carol") as conn:
            screen = Screen(await open_terminal(conn))
            notice_at = await screen.wait_for(b"no SSH key")
            hello_at = await screen.wait_for(b"HELLO")
            assert notice_at < hello_at  # told before the client starts
            notice = screen.data[: screen.data.index(b"\r\n", notice_at)]
            assert b"cannot get its seat back" in notice
            line = await screen.line_after(b"STATE")
            assert line.split()[1] == "new"
            state_dir = Path(field(line, "dir"))
            assert state_dir.is_dir()
            screen.process.stdin.write(b"q")
            await screen.process.wait_closed()
        assert not state_dir.exists()


async def test_keyless_notice_stays_until_the_player_presses_a_key(tmp_path: Path) -> None:
    """The notice was shown for 2 s and then wiped by the client's full screen, too
    short to read: now the client starts only once a key is pressed, and that key is
    the notice's, not the game's."""
    async with (
        await serve(tmp_path / "state", keyless_notice_waits=True) as srv,
        await connect(srv, "carol") as conn,
    ):
        screen = Screen(await open_terminal(conn))
        await screen.wait_for(b"Press any key to play.")
        assert b"HELLO" not in screen.data  # the game's screen has not wiped the notice
        screen.process.stdin.write(b" ")
        await screen.wait_for(b"HELLO")
        screen.process.stdin.write(b"x")
        # The space was the notice's: the game's first key is the x.
        assert (await screen.line_after(b"KEY ")).split()[1] == b"x".hex()
        screen.process.stdin.write(b"q")
        await screen.process.wait_closed()


async def test_authorized_keys_mode_lets_in_only_listed_keys(
    tmp_path: Path, keys: list[asyncssh.SSHKey]
) -> None:
    allowed = tmp_path / "authorized_keys"
    allowed.write_bytes(keys[0].export_public_key())
    async with await serve(tmp_path / "state", authorized_keys_path=allowed) as srv:
        with pytest.raises(asyncssh.PermissionDenied):
            await connect(srv, "mallory", keys[1])
        with pytest.raises(asyncssh.PermissionDenied):
            await connect(srv, "mallory")  # no key at all
        async with await connect(srv, "alice", keys[0]) as conn:
            screen = Screen(await open_terminal(conn))
            await screen.wait_for(b"HELLO name=alice")
        # The host adds a friend without a restart.
        allowed.write_bytes(keys[0].export_public_key() + keys[1].export_public_key())
        async with await connect(srv, "bob", keys[1]) as conn:
            screen = Screen(await open_terminal(conn))
            await screen.wait_for(b"HELLO name=bob")


async def test_host_key_is_created_private_and_reused_after_restart(
    tmp_path: Path, keys: list[asyncssh.SSHKey]
) -> None:
    state = tmp_path / "state"
    fingerprints = []
    for _ in range(2):
        async with await serve(state) as srv:
            key_file = state / HOST_KEY_NAME
            assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
            async with await connect(srv, "alice", keys[0]) as conn:
                host_key = conn.get_server_host_key()
                assert host_key is not None
                assert host_key.algorithm == b"ssh-ed25519"
                fingerprints.append(host_key.get_fingerprint())
            assert srv.host_key_fingerprint == fingerprints[-1]
    assert fingerprints[0] == fingerprints[1]


async def test_named_host_key_is_used_and_must_exist(tmp_path: Path, keys: list[asyncssh.SSHKey]) -> None:
    with pytest.raises(HostKeyError, match="does not exist"):
        await serve(tmp_path / "state", host_key_path=tmp_path / "missing_key")
    key_file = tmp_path / "my_host_key"
    own = asyncssh.generate_private_key("ssh-ed25519")
    own.write_private_key(str(key_file))
    srv = await serve(tmp_path / "state", host_key_path=key_file)
    async with srv, await connect(srv, "alice", keys[0]) as conn:
        host_key = conn.get_server_host_key()
        assert host_key is not None
        assert host_key.get_fingerprint() == own.get_fingerprint()
    assert not (tmp_path / "state" / HOST_KEY_NAME).exists()


@pytest.mark.parametrize("ignore_hup", [False, True])
async def test_dropped_session_ends_and_reaps_the_client(
    tmp_path: Path, keys: list[asyncssh.SSHKey], ignore_hup: bool
) -> None:
    """The SSH connection drops: the client gets SIGHUP (SIGKILL if it ignores
    that), is reaped (no zombie), and the server keeps no fd of the session."""
    extra = ("--ignore-hup",) if ignore_hup else ()
    async with await serve(tmp_path / "state", client_argv=standin(*extra)) as srv:
        fds_before = open_fds()
        conn = await connect(srv, "alice", keys[0])
        screen = Screen(await open_terminal(conn))
        pid = int(field(await screen.line_after(b"HELLO"), "pid"))
        await screen.wait_for(b"SIZE")
        assert not process_gone(pid)
        session_fds = opened_since(fds_before)
        # The check below can fail: the session's pty and its client's pidfd are seen.
        opened = " ".join(session_fds.values())
        assert "ptmx" in opened and "pidfd" in opened, session_fds
        conn.abort()  # the network goes away, no goodbye
        await eventually(lambda: process_gone(pid))
        await eventually(lambda: srv.connection_count == 0)
        await eventually(
            lambda: not still_open(session_fds),
            what=lambda: f"the session's fds to close; still open: {still_open(session_fds)}",
        )


async def test_closing_the_server_ends_every_client(tmp_path: Path, keys: list[asyncssh.SSHKey]) -> None:
    """Every player's client is ended, and their terminal reset and told why (it was
    left in the client's alternate screen, mouse reports on); a connection still
    logging in is closed too."""
    srv = await serve(tmp_path / "state")
    conns = [await connect(srv, name, key) for name, key in (("alice", keys[0]), ("bob", keys[1]))]
    screens = [Screen(await open_terminal(conn)) for conn in conns]
    pids = [int(field(await screen.line_after(b"HELLO"), "pid")) for screen in screens]
    reader, writer = await banner_only(srv.port)
    await eventually(lambda: srv.connection_count == 3)
    await asyncio.wait_for(srv.close(), TIMEOUT)
    assert srv.connection_count == 0
    with contextlib.suppress(ConnectionResetError):
        await asyncio.wait_for(reader.read(), TIMEOUT)  # to its end: the server closed it
    writer.close()
    for pid, screen, conn in zip(pids, screens, conns, strict=True):
        assert process_gone(pid)
        data = await screen.rest()
        assert data[data.rindex(TERMINAL_RESET) :] == TERMINAL_RESET + SHUTDOWN_NOTICE
        await screen.process.wait_closed()
        conn.close()


class Relay:
    """A TCP relay between players and the server that can go silent: it then stops
    passing on what the players send (the server never hears from them again) but
    keeps every socket open and still passes on what the server sends."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.silent = False
        self.port = 0
        self._listener: asyncio.Server | None = None
        self._pumps: set[asyncio.Task[None]] = set()
        self._writers: list[asyncio.StreamWriter] = []

    async def __aenter__(self) -> Relay:
        self._listener = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = self._listener.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        for pump in self._pumps:
            pump.cancel()
        for writer in self._writers:
            writer.close()
        assert self._listener is not None
        self._listener.close()

    async def _relay(self, player_r: asyncio.StreamReader, player_w: asyncio.StreamWriter) -> None:
        server_r, server_w = await asyncio.open_connection("127.0.0.1", self.target)
        self._writers += [player_w, server_w]
        for pump in (self._pump(player_r, server_w, upstream=True), self._pump(server_r, player_w)):
            task = asyncio.ensure_future(pump)
            self._pumps.add(task)

    async def _pump(
        self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, upstream: bool = False
    ) -> None:
        while chunk := await source.read(65536):
            if upstream and self.silent:
                await asyncio.Event().wait()  # swallowed, and nothing read from here on
            sink.write(chunk)


async def test_a_stopping_server_cuts_a_player_whose_link_went_silent(
    tmp_path: Path, keys: list[asyncssh.SSHKey]
) -> None:
    """A session closes once the player's side answers its close; a stopping server
    waits for that only for the hang-up grace, then cuts the connection."""
    srv = await serve(tmp_path / "state")
    async with Relay(srv.port) as relay:
        conn = await connect(relay.port, "alice", keys[0])
        screen = Screen(await open_terminal(conn))
        pid = int(field(await screen.line_after(b"HELLO"), "pid"))
        await eventually(lambda: srv.connection_count == 1)
        relay.silent = True
        await asyncio.wait_for(srv.close(), TIMEOUT)
        assert srv.connection_count == 0
        assert process_gone(pid)
        await screen.wait_for(SHUTDOWN_NOTICE)  # what the server sent still reached the player
        conn.abort()


async def test_per_address_connection_limit(tmp_path: Path, keys: list[asyncssh.SSHKey]) -> None:
    async with await serve(tmp_path / "state", max_per_address=2) as srv:
        first = await connect(srv, "a", keys[0])
        second = await connect(srv, "b", keys[0])
        with pytest.raises(asyncssh.DisconnectError, match="Too many connections"):
            await connect(srv, "c", keys[0])
        first.close()
        await first.wait_closed()
        await eventually(lambda: srv.connection_count == 1)
        third = await connect(srv, "c", keys[0])
        second.close()
        third.close()


async def banner_only(
    port: int, source: str = "127.0.0.1"
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A socket that sends an SSH version banner and then nothing: it never logs in."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    writer.write(b"SSH-2.0-OpenSSH_9.6\r\n")
    await writer.drain()
    return reader, writer


async def test_sockets_that_never_log_in_do_not_lock_their_address_out(
    tmp_path: Path, keys: list[asyncssh.SSHKey]
) -> None:
    """Eight sockets that sent only a version banner locked their address out for a
    minute: only connections that logged in count for the per-address cap now."""
    async with await serve(tmp_path / "state", max_per_address=2) as srv:
        idle = [await banner_only(srv.port) for _ in range(6)]
        await eventually(lambda: srv.connection_count == 6)
        async with await connect(srv, "alice", keys[0]) as conn:
            screen = Screen(await open_terminal(conn))
            await screen.wait_for(b"HELLO name=alice")
        for _, writer in idle:
            writer.close()


async def test_connections_logging_in_are_bounded_and_one_address_cannot_take_them_all(
    tmp_path: Path, keys: list[asyncssh.SSHKey]
) -> None:
    """At most ``max_startups`` connections may be logging in at once (as OpenSSH's
    MaxStartups); when they are taken, a newcomer from another address takes the place
    of the oldest of the address holding the most, and one from that address is refused."""
    async with await serve(tmp_path / "state", max_startups=4) as srv:
        idle = [await banner_only(srv.port) for _ in range(4)]
        await eventually(lambda: srv.connection_count == 4)
        reader, refused = await banner_only(srv.port)  # a fifth from the same address
        with contextlib.suppress(ConnectionResetError):
            await asyncio.wait_for(reader.read(), TIMEOUT)  # is closed at once
        async with await connect(srv, "bob", keys[0], source="127.0.0.2") as conn:
            screen = Screen(await open_terminal(conn))  # another address gets in
            await screen.wait_for(b"HELLO name=bob")
        assert sum(not w.is_closing() and not r.at_eof() for r, w in idle) <= 4
        for _, writer in [*idle, (reader, refused)]:
            writer.close()


async def test_the_number_of_ssh_players_is_capped(tmp_path: Path, keys: list[asyncssh.SSHKey]) -> None:
    """Each SSH player is a client process: past ``max_sessions`` in all, a newcomer is
    told so in one line."""
    async with await serve(tmp_path / "state", client_argv=standin(), max_sessions=2) as srv:
        conns = [await connect(srv, f"p{i}", keys[0]) for i in range(3)]
        screens = [Screen(await open_terminal(c)) for c in conns[:2]]
        for screen in screens:
            await screen.wait_for(b"HELLO")
        result = await asyncio.wait_for(conns[2].run(term_type="xterm", encoding="utf-8"), TIMEOUT)
        assert result.exit_status == 1
        assert isinstance(result.stderr, str) and "as many SSH players" in result.stderr
        screens[0].process.stdin.write(b"q")  # one leaves: there is room again
        await screens[0].process.wait_closed()
        await Screen(await open_terminal(conns[2])).wait_for(b"HELLO")
        for c in conns:
            c.close()


async def test_the_client_gets_a_clean_environment(
    server: SSHGameServer, keys: list[asyncssh.SSHKey], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each player's client inherited the host's whole environment (its secrets, its
    ssh-agent socket); now it gets what it needs: TERM, the locale, PATH, and its own
    state directory (as HOME too)."""
    host_secrets(monkeypatch)
    async with await connect(server, "alice", keys[0]) as conn:
        screen = Screen(await open_terminal(conn))
        state = Path(field(await screen.line_after(b"STATE"), "dir"))
        env = env_of(await screen.line_after(b"ENV "))
    assert set(env) <= CLEAN_ENV
    assert env["TERM"] == "xterm-256color" and env["PATH"]
    assert env["HOME"] == env["RUMMY_STATE_DIR"] == str(state)
    assert any(k in env for k in ("LANG", "LC_ALL", "LC_CTYPE"))
    assert not any("hunter2" in v or "agent" in v for v in env.values())


async def test_sessions_per_connection_are_limited(server: SSHGameServer) -> None:
    """Each session is a client process, so one connection cannot open dozens. (Without
    a key: a player's newer session ends their older one, so one key and name hold one.)"""
    async with await connect(server, "alice") as conn:
        screens = [Screen(await open_terminal(conn)) for _ in range(MAX_SESSIONS_PER_CONNECTION)]
        for screen in screens:
            await screen.wait_for(b"HELLO")
        with pytest.raises(asyncssh.ChannelOpenError):
            await open_terminal(conn)
        screens[0].process.stdin.write(b"q")
        await screens[0].process.wait_closed()
        await Screen(await open_terminal(conn)).wait_for(b"HELLO")  # a freed place can be used again


async def test_idle_session_is_closed_with_a_notice(tmp_path: Path, keys: list[asyncssh.SSHKey]) -> None:
    async with await serve(tmp_path / "state", idle_timeout=0.6) as srv:
        async with await connect(srv, "alice", keys[0]) as conn:
            screen = Screen(await open_terminal(conn))
            pid = int(field(await screen.line_after(b"HELLO"), "pid"))
            # Keys keep it alive past the timeout...
            for _ in range(4):
                await asyncio.sleep(0.25)
                screen.process.stdin.write(b"x")
            await screen.wait_for(b"KEY 78")
            assert not screen.process.is_closing()
            # ...and silence ends it, with a line saying why.
            data = await screen.rest()
            assert b"without a key pressed" in data
        await eventually(lambda: process_gone(pid))


async def test_the_idle_notice_and_terminal_reset_reach_a_slow_player(
    tmp_path: Path, keys: list[asyncssh.SSHKey], caplog: pytest.LogCaptureFixture
) -> None:
    """The session was cut at once, so what was still queued for a player on a slow
    link was lost: the notice, and the reset that turns off the alternate screen and
    mouse reports (their terminal was left in the game's screen). Now the client's
    output stops, the reset and the notice follow it, and only then does it close."""
    async with (
        # Three seconds: a client that starts slowly on a busy machine is still running
        # (and drawing) when the idle timeout strikes, which is the case this is about.
        await serve(tmp_path / "state", idle_timeout=3.0, client_argv=standin("--chatter", "6000")) as srv,
        await connect(srv, "alice", keys[0]) as conn,
    ):
        caplog.set_level(logging.INFO, logger="rummy.doors.ssh.server")
        process = await open_terminal(conn)
        # Reading nothing (6 MB of screen queue up meanwhile) until the idle timeout has
        # struck: a read begun before it would not be a slow player's.
        await eventually(lambda: "closing idle ssh connection" in caplog.text, timeout=TIMEOUT * 3)
        data = await asyncio.wait_for(process.stdout.read(), TIMEOUT * 3)
    assert b"\x1b[?1049h" in data  # the game's screen was on...
    tail = data[data.rindex(TERMINAL_RESET) :]
    assert tail == TERMINAL_RESET + IDLE_NOTICE.format(duration="3 seconds").encode()  # ...and is off


# -- the real thing: game server + real client over SSH ---------------------------

_ESCAPES = re.compile(
    rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()][0-9A-Za-z]|[ -/]*[0-~])"
)


class TextScreen(Screen):
    """The client's output with terminal escapes removed, to look for its words."""

    async def wait_for_text(self, text: str) -> None:
        async def read() -> None:
            while text.encode() not in _ESCAPES.sub(b"", self.data):
                chunk = await self.process.stdout.read(65536)
                if not chunk:
                    raise AssertionError(f"session ended before {text!r}")
                self.data += chunk

        try:
            await asyncio.wait_for(read(), CLIENT_TIMEOUT)
        except TimeoutError:
            tail = _ESCAPES.sub(b"", self.data)[-1500:].decode(errors="replace")
            raise AssertionError(f"{text!r} never appeared; the screen ended with: {tail}") from None
        self.data = b""  # later waits look only at what comes after

    async def press(self, keys: bytes, then: str) -> None:
        self.process.stdin.write(keys)
        await self.wait_for_text(then)


CLIENT_TIMEOUT = 20.0  # a Textual app starting on a busy 2-core machine
LOG_LINE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ [A-Z]+ ")  # a line of the server's log


async def test_real_client_over_ssh_plays_and_the_key_gets_the_seat_back(
    tmp_path: Path, keys: list[asyncssh.SSHKey]
) -> None:
    """Through SSH with the real client: Alice lands in the lobby named after
    her SSH user, opens a table, fills it with bots and starts the game. Her
    connection drops; with the same key she is back at her seat; under the
    same user name without a key she is only in the lobby."""
    game = await start_server("127.0.0.1", 0, None, bot_delay=0.0)
    ssh = await start_ssh_server(
        "127.0.0.1",
        0,
        f"127.0.0.1:{game.port}",
        tmp_path / "state",
        keyless_notice_waits=False,
        hangup_grace=1.0,
    )
    try:
        conn = await connect(ssh, "alice", keys[0])
        screen = TextScreen(await open_terminal(conn, (110, 36)))
        await screen.wait_for_text("you are alice")
        await screen.press(b"n", "Turn timer")  # the new-table form is open
        await screen.press(b"\x13", "Your table")  # ctrl+s creates it; Alice sits in chair 1
        for bot in ("Dara", "Mina", "Kian"):
            await screen.press(b"b", "at which level")
            await screen.press(b"\r", bot)  # the level offered first: the last one chosen
        await screen.press(b"g", "Deal 1 of 2")
        conn.abort()  # the connection drops

        async with await connect(ssh, "alice", keys[0]) as conn:
            screen = TextScreen(await open_terminal(conn, (110, 36)))
            await screen.wait_for_text("Deal 1 of 2")  # straight back at the table

        async with await connect(ssh, "alice") as conn:
            screen = TextScreen(await open_terminal(conn, (110, 36)))
            await screen.wait_for_text("seat back")  # told, before the client starts
            await screen.wait_for_text("Persian Rummy lobby")
            await screen.wait_for_text("playing")  # her table goes on without this session
            await screen.press(b"n", "Turn timer")  # and this session is free in the lobby
    finally:
        await ssh.close()
        await game.close()


# -- rummy-server's --ssh-* options ------------------------------------------------


def test_game_address_for_children_reaches_the_server_by_loopback() -> None:
    assert game_address("0.0.0.0", 7325) == "127.0.0.1:7325"
    assert game_address("::", 7325) == "[::1]:7325"
    assert game_address("192.0.2.7", 7325) == "192.0.2.7:7325"


async def test_cli_starts_ssh_only_when_asked_and_says_how_to_join(
    tmp_path: Path, keys: list[asyncssh.SSHKey], capsys: pytest.CaptureFixture[str]
) -> None:
    parser = build_parser()
    assert await start_ssh_from_args(parser.parse_args([]), "127.0.0.1", 7325, "host") is None

    args = parser.parse_args(
        ["--host", "127.0.0.1", "--ssh-port", "0", "--ssh-idle-timeout", "0", "--ssh-max-per-address", "3"]
    )
    srv = await start_ssh_from_args(
        args, "0.0.0.0", 7325, "example.org", state_dir=tmp_path, client_argv=standin()
    )
    assert srv is not None
    async with srv, await connect(srv, "dora", keys[0]) as conn:
        screen = Screen(await open_terminal(conn))
        hello = await screen.line_after(b"HELLO")
        assert field(hello, "addr") == "127.0.0.1:7325"
    out = capsys.readouterr().out
    assert f"ssh -p {srv.port} NAME@example.org" in out
    assert srv.host_key_fingerprint in out


async def test_cli_refuses_a_missing_host_key_or_authorized_keys_file(tmp_path: Path) -> None:
    parser = build_parser()
    for flag in ("--ssh-host-key", "--ssh-authorized-keys"):
        args = parser.parse_args(["--ssh-port", "0", flag, str(tmp_path / "nope")])
        with pytest.raises(SystemExit, match="cannot serve SSH"):
            await start_ssh_from_args(args, "127.0.0.1", 7325, "host", state_dir=tmp_path)


async def test_cli_refuses_a_state_directory_it_cannot_write_in_at_start(tmp_path: Path) -> None:
    """With a host key of its own (--ssh-host-key), the door started where its state
    directory could not be used, and each player with a key was then refused at login
    (``<state>/ssh/<key>`` could not be made); now the host hears of it at start."""
    in_the_way = tmp_path / "a-file"
    in_the_way.write_text("")
    key = tmp_path / "host_key"
    key.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_private_key())
    args = build_parser().parse_args(["--ssh-port", "0", "--ssh-host-key", str(key)])
    with pytest.raises(SystemExit) as info:
        await start_ssh_from_args(
            args, "127.0.0.1", 7325, "host", state_dir=in_the_way, client_argv=standin()
        )
    said = f"cannot keep the players' state in {in_the_way / 'ssh'}: Not a directory"
    assert str(info.value) == f"rummy-server: cannot serve SSH: {said}"


async def test_cli_refuses_a_port_in_use_or_no_such_address_in_words(tmp_path: Path) -> None:
    """The door said "[Errno 98] error while attempting to bind on address ('127.0.0.1',
    2222): address already in use", and for a --ssh-host that is no address "[Errno -2]
    Name or service not known", naming neither the address nor the port."""
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        args = build_parser().parse_args(["--host", "127.0.0.1", "--ssh-port", str(port)])
        with pytest.raises(SystemExit) as info:
            await start_ssh_from_args(
                args, "127.0.0.1", 7325, "host", state_dir=tmp_path, client_argv=standin()
            )
    said = f"cannot listen on 127.0.0.1 port {port}: Address already in use."
    assert str(info.value) == f"rummy-server: cannot serve SSH: {said}"
    no_host = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    said = "cannot listen on nohost.invalid port 2222: no such address (Name or service not known)."
    assert str(ListenError.of("nohost.invalid", 2222, no_host)) == said


async def test_rummy_server_command_serves_ssh_and_stops_cleanly(
    tmp_path: Path, keys: list[asyncssh.SSHKey]
) -> None:
    """`rummy-server --ssh-port` as a host runs it: the state directory gets the
    host key, a player lands in the lobby, SIGTERM ends it all with status 0."""
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path), "RUMMY_STATE_DIR": str(tmp_path / "unused")}
    with (tmp_path / "stderr").open("wb") as stderr:
        server = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "rummy.server.cli",
            *("--host", "127.0.0.1", "--port", "0", "--ssh-port", "0"),
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
        )
    try:
        assert server.stdout is not None
        line = b""
        while b"SSH on port" not in line:
            line = await asyncio.wait_for(server.stdout.readline(), CLIENT_TIMEOUT)
            assert line, "rummy-server ended before serving SSH"
        port = int(re.search(rb"SSH on port (\d+)", line).group(1))  # type: ignore[union-attr]
        assert (tmp_path / "rummy" / HOST_KEY_NAME).exists()
        async with await connect(port, "erin", keys[0]) as conn:
            screen = TextScreen(await open_terminal(conn))
            await screen.wait_for_text("you are erin")
        server.terminate()
        assert await asyncio.wait_for(server.wait(), CLIENT_TIMEOUT) == 0
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()
    # Its log and nothing else: no library's warnings on the host's terminal (asyncssh
    # under cryptography 51 printed ten lines about DSA at every start).
    stray = [x for x in (tmp_path / "stderr").read_text().splitlines() if not LOG_LINE.match(x)]
    assert stray == []
