"""One SSH session: the game client on its own pty, wired to the channel.

The channel is opened in binary mode with no line editor (the server is
created with ``encoding=None, line_editor=False``), so keys go to the pty
byte for byte and the client's screen comes back the same way. A session
that did not ask for a pty is refused in one line: the client is a
full-screen program and cannot run without a terminal.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import asyncssh

from rummy.doors.client_env import (
    LOCALE,
    OPTION_WORDS,
    ClientCommand,
    client_env,
    client_flags,
    default_client_command,
    unknown_option,
)
from rummy.doors.forker import Forker
from rummy.doors.limits import HANGUP_GRACE
from rummy.doors.pty_child import INPUT_HIGH_WATER, PtyChild, WindowSize
from rummy.doors.ssh.identity import ClientStateDir, Identity
from rummy.doors.wording import exit_words

log = logging.getLogger(__name__)

NO_PTY_REFUSAL = (
    b"rummy: the game needs a terminal: use plain ssh without -T,"
    b" and -t before options (ssh -t HOST ascii).\r\n"
)
# TERM of a terminal that can only print lines (Emacs' M-x shell, a pipe, a script),
# as curses and Rich name it: the game, drawn all over the screen, came out there as
# a stream of escape codes.
DUMB_TERMINALS = frozenset({"dumb", "unknown"})
DUMB_REFUSAL = (
    "rummy: your terminal (TERM={term}) cannot draw the game: use a terminal window,"
    " or say what it is (TERM=xterm-256color ssh ...).\r\n"
)
UNKNOWN_OPTION = "rummy: the game takes no {word!r}; it takes: " + ", ".join(OPTION_WORDS) + ".\r\n"
# Shown until the player presses a key: the client's full screen would wipe it at
# once, and it was shown for 2 s, too short to read. The key pressed is not passed on.
KEYLESS_NOTICE = (
    b"rummy: you have no SSH key, so a dropped connection cannot get its seat back.\r\n"
    b"(ssh-keygen makes one; log in with it and your seat is kept for you.)\r\n"
    b"Press any key to play.\r\n"
)
# Written before a message that interrupts the client's full screen: leave
# the alternate screen, show the cursor, stop mouse reports and bracketed
# paste, reset colours, so the player's terminal is usable afterwards.
TERMINAL_RESET = b"\x1b[?1049l\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[0m\r\n"
# Shown to a session whose player (key and name) has just logged in again: they came back
# (a dropped connection the server had not noticed yet, another terminal).
REPLACED_NOTICE = b"rummy: your key opened this game in another SSH session; this one ends here.\r\n"
FULL_REFUSAL = "rummy: the server has as many SSH players as it can take ({limit}); try again later.\r\n"
# When TERM is empty the client still needs something it can draw with.
FALLBACK_TERM = "xterm-256color"
# Settings the player's own ssh may send (SendEnv) that matter to drawing.
_PASSED_ENV = (*LOCALE, "COLORTERM", "NO_COLOR")


# Whose client a session runs: a key's fingerprint (hex) and the name played under.
Player = tuple[str, str]


class KeyHolders:
    """Which session runs the client of each player (key and name): one at a time.
    Two would share the key's state directory, and the client there refuses a second
    player of the same name ("Another rummy-client here already plays as bob... use
    another --name"), which kept a player who came back after a drop out of their
    seat until the dead connection's keepalive ran out (two minutes). So the newer
    session takes over, as a second tab does in the browser. Another name under the
    same key (two people at one computer) is another player and plays on."""

    def __init__(self) -> None:
        self._by_player: dict[Player, GameSession] = {}

    async def take(self, player: Player, session: GameSession) -> None:
        """Make ``session`` the player's; the one before it is ended, and this returns
        once its client has ended and let go of the player's seat."""
        older = self._by_player.get(player)
        self._by_player[player] = session
        if older is not None and older is not session:
            log.info("ssh session of %r (key %s) taken over by a newer one", player[1], player[0][:12])
            older.end_with(REPLACED_NOTICE)
            await older.ended()

    def release(self, player: Player, session: GameSession) -> None:
        if self._by_player.get(player) is session:
            del self._by_player[player]


@dataclass(frozen=True)
class SessionSettings:
    """What every session of one SSH server shares."""

    game_address: str
    state_dir: Path
    forker: Forker
    client_command: ClientCommand = default_client_command
    keyless_notice_waits: bool = True  # for a key; tests of other things skip the wait
    hangup_grace: float = HANGUP_GRACE
    key_holders: KeyHolders = field(default_factory=KeyHolders)


class GameSession(asyncssh.SSHServerSession[bytes]):
    """Runs the client for one SSH session and closes the session with the
    client's exit status; ends the client when the session goes away."""

    def __init__(
        self,
        settings: SessionSettings,
        identity: Identity,
        on_activity: Callable[[], None],
        track: Callable[[asyncio.Task[None]], None],
        on_closed: Callable[[GameSession], None],
    ) -> None:
        self._settings = settings
        self._identity = identity
        self._on_activity = on_activity
        self._track = track
        self._on_closed = on_closed
        self._chan: asyncssh.SSHServerChannel[bytes] | None = None
        self._term_type: str | None = None
        self._size: WindowSize = (80, 24, 0, 0)
        self._child: PtyChild | None = None
        self._early_input = bytearray()  # keys typed before the client started
        self._command = ""  # what the player gave as the SSH command: client options
        self._gone = False  # the SSH side has closed
        self._in_notice = False
        self._notice_read = asyncio.Event()  # a key pressed while the keyless notice showed
        self._muted = False  # the client's output is no longer shown (see end_with)
        self._ending = False  # end_with was called
        self._task: asyncio.Task[None] | None = None

    # -- asyncssh callbacks ------------------------------------------------------

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self._chan = chan

    def pty_requested(self, term_type: str, term_size: WindowSize, term_modes: Mapping[int, int]) -> bool:
        self._term_type = term_type or FALLBACK_TERM
        if term_size[0] and term_size[1]:
            self._size = term_size
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        # Accepted so that the refusal (no pty) or the game (pty) can be shown; the
        # command is never run (as with sshd's ForceCommand), only read for options.
        self._command = command
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        return False  # no sftp or anything else

    def session_started(self) -> None:
        assert self._chan is not None
        if self._term_type is None:
            log.info("refused a session without a pty from %s", self._identity.user_name)
            self._chan.write_stderr(NO_PTY_REFUSAL)
            self._chan.exit(1)
            return
        unknown = unknown_option(self._command.split())
        if unknown is not None:
            self._chan.write_stderr(UNKNOWN_OPTION.format(word=unknown).encode())
            self._chan.exit(1)
            return
        if self._term_type.lower() in DUMB_TERMINALS:
            log.info("refused a session on a %s terminal from %s", self._term_type, self._identity.user_name)
            self._chan.write_stderr(DUMB_REFUSAL.format(term=self._term_type).encode())
            self._chan.exit(1)
            return
        self._task = asyncio.get_running_loop().create_task(self._run())
        self._track(self._task)

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        self._on_activity()
        if self._in_notice:
            self._notice_read.set()  # the key that says it was read; the client never sees it
        elif self._child is not None:
            self._child.write(data)
            if self._child.input_backlog > INPUT_HIGH_WATER and self._chan is not None:
                self._chan.pause_reading()
        elif len(self._early_input) < INPUT_HIGH_WATER:
            self._early_input += data

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self._on_activity()
        if width and height:
            self._size = (width, height, pixwidth, pixheight)
            if self._child is not None:
                self._child.resize(self._size)

    def eof_received(self) -> bool:
        return True  # a terminal has no end of input; keep the output side open

    def break_received(self, msec: int) -> bool:
        return False

    def pause_writing(self) -> None:
        if self._child is not None:
            self._child.pause_output()

    def resume_writing(self) -> None:
        if self._child is not None:
            self._child.resume_output()

    def connection_lost(self, exc: Exception | None) -> None:
        self._gone = True
        self._on_closed(self)
        if self._child is not None:
            self._child.hang_up(self._settings.hangup_grace)
        elif self._in_notice and self._task is not None:
            # Still showing the notice: no client to hang up yet. (While the
            # client is being started, _run_client sees _gone and hangs up.)
            self._task.cancel()

    def end_with(self, text: bytes) -> None:
        """End the session with a last line from the server (the idle timeout): the
        client's output stops here, the player's terminal is reset (alternate screen,
        mouse reports... off), the line is shown, then the client is hung up and the
        session closes with its status once all of that has reached the player."""
        self._muted = self._ending = True
        if self._child is not None:
            self._send(TERMINAL_RESET)
        self._send(text)
        if self._child is not None:
            self._child.hang_up(self._settings.hangup_grace)  # its end closes the session
        elif self._in_notice and self._task is not None:
            self._task.cancel()  # still showing the keyless notice: no client yet
            self._exit(0)
        elif self._task is None:  # no client was started (a session without a pty)
            self._exit(0)
        # else the client is starting: _run_client hangs it up as soon as it runs.

    async def ended(self) -> None:
        """Return once this session's client (if it started one) has ended."""
        if self._task is not None:
            await asyncio.wait({self._task})

    def _exit(self, status: int) -> None:
        if self._chan is not None and not self._chan.is_closing():
            _close_with_status(self._chan, status)

    # -- the client ----------------------------------------------------------

    def _child_env(self, state_dir: Path) -> dict[str, str]:
        """A clean environment (client_env.py), with the player's own locale and colours."""
        assert self._chan is not None and self._term_type is not None
        sent = self._chan.get_environment()
        return client_env(
            state_dir, self._term_type, {k: sent[k] for k in _PASSED_ENV if isinstance(sent.get(k), str)}
        )

    def _send(self, data: bytes) -> None:
        if self._chan is not None and not self._chan.is_closing():
            self._chan.write(data)

    def _client_output(self, data: bytes) -> None:
        if not self._muted:
            self._send(data)

    def _input_drained(self) -> None:
        if self._chan is not None and not self._chan.is_closing():
            self._chan.resume_reading()

    async def _run(self) -> None:
        assert self._chan is not None
        chan = self._chan
        state: ClientStateDir | None = None
        status: int | None = None
        holding: Player | None = None  # the player whose session this is, once taken
        try:
            if self._identity.key is None:
                chan.write(KEYLESS_NOTICE)
                self._in_notice = True
                try:
                    if self._settings.keyless_notice_waits:
                        await self._notice_read.wait()
                finally:
                    self._in_notice = False
            key_id = self._identity.key_id
            if key_id is not None:
                holding = (key_id, self._identity.display_name)
                await self._settings.key_holders.take(holding, self)
            if self._gone:
                return
            if self._ending:  # taken over or timed out before its client started
                status = 0
                return
            state = ClientStateDir.for_identity(self._identity, self._settings.state_dir)
            status = await self._run_client(state.path)
        except Exception:
            log.exception("ssh session for %r failed", self._identity.user_name)
            chan.write_stderr(b"rummy: the game client could not be started; please tell the host.\r\n")
            status = 127
        finally:
            if holding is not None:
                self._settings.key_holders.release(holding, self)
            if state is not None:
                state.release()
            if status is not None and not chan.is_closing():
                _close_with_status(chan, status)

    async def _run_client(self, state_dir: Path) -> int:
        """Start the client on a pty, feed it, wait for it; its exit status."""
        identity = self._identity
        argv = list(self._settings.client_command(self._settings.game_address, identity.display_name))
        argv += client_flags(self._command.split())
        # Not cancellable from here on: a child must never be left unreaped.
        child = await PtyChild.spawn(
            argv,
            env=self._child_env(state_dir),
            size=self._size,
            on_output=self._client_output,
            on_input_drained=self._input_drained,
            cwd=state_dir,
            forker=self._settings.forker,
        )
        self._child = child
        log.info(
            "ssh session for %r (%s) runs client pid %d",
            identity.user_name,
            identity.fingerprint or "no key",
            child.pid,
        )
        if self._gone or self._ending:  # dropped, or ended, while the client was starting
            child.hang_up(self._settings.hangup_grace)
        elif self._early_input:
            child.write(bytes(self._early_input))
        self._early_input.clear()
        status = await child.wait()
        log.info("client pid %d of %r ended: %s", child.pid, identity.user_name, exit_words(status))
        return status


def _close_with_status(chan: asyncssh.SSHServerChannel[bytes], status: int) -> None:
    """Pass the client's exit on: a status, or the signal that killed it."""
    if status >= 0:
        chan.exit(status)
        return
    try:
        name = signal.Signals(-status).name.removeprefix("SIG")
    except ValueError:
        chan.exit(128 + (-status & 0x7F))
        return
    chan.exit_with_signal(name)


class Refusal(asyncssh.SSHServerSession[bytes]):
    """A session refused in one line, with exit status 1 (the server is full)."""

    def __init__(self, text: bytes) -> None:
        self._text = text
        self._chan: asyncssh.SSHServerChannel[bytes] | None = None

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self._chan = chan

    def pty_requested(self, term_type: str, term_size: WindowSize, term_modes: Mapping[int, int]) -> bool:
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        return True

    def session_started(self) -> None:
        assert self._chan is not None
        self._chan.write_stderr(self._text)
        self._chan.exit(1)
