"""``rummy-client`` with no address, run as a player runs it: on a terminal of its own
(a pty), its server forked before Textual loads (``rummy.client.local``). The server
ends with the client however the client ends, killed included, and the saved game
is whole: the next start is back at it. (Linux: it reads /proc.)"""

from __future__ import annotations

import contextlib
import os
import pty
import re
import select
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")

ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\x1b\][^\x07]*\x07")
TIMEOUT = 30.0


class Terminal:
    """A client on a pty: what it has drawn so far, as plain text."""

    def __init__(self, state: Path, *args: str) -> None:
        env = dict(os.environ, RUMMY_STATE_DIR=str(state), TERM="xterm-256color", COLUMNS="100", LINES="32")
        command = [sys.executable, "-m", "rummy.client.cli", "--name", "Ann", *args]
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the client
            os.execve(command[0], command, env)
        self.seen = b""

    def read_until(self, text: str, timeout: float = TIMEOUT, since: int = 0) -> None:
        """Read until ``text`` is drawn (``since``: in what came after that many bytes)."""
        deadline = time.monotonic() + timeout
        while text.encode() not in ANSI.sub(b"", self.seen[since:]):
            if time.monotonic() > deadline:
                tail = ANSI.sub(b"", self.seen)[-300:]
                raise AssertionError(f"no {text!r} within {timeout} s; drawn: {tail!r}")
            if select.select([self.fd], [], [], 0.05)[0]:
                try:
                    self.seen += os.read(self.fd, 65536)
                except OSError:  # the client has gone
                    break

    def press(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def exit_code(self, timeout: float = TIMEOUT) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if select.select([self.fd], [], [], 0.05)[0]:
                with contextlib.suppress(OSError):  # a pty is drained, or its client may block
                    os.read(self.fd, 65536)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
        raise AssertionError(f"the client did not end within {timeout} s")

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError, ChildProcessError):
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.fd)


def children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def running(pid: int) -> bool:
    """Alive and not a zombie (a child whose client was killed is left to init)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def until_gone(pid: int, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while running(pid):
        if time.monotonic() > deadline:
            raise AssertionError(f"process {pid} still runs {timeout} s after its client ended")
        time.sleep(0.02)


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    made: list[Terminal] = []
    yield made
    for terminal in made:
        terminal.close()


def start(terminals: list[Terminal], state: Path, *args: str, until: str = "Deal 1 of 2") -> Terminal:
    """A client, once it has drawn ``until``: the table, or in a new state directory
    the offer of how to play (the first game is dealt once it is answered)."""
    terminal = Terminal(state, *args)
    terminals.append(terminal)
    terminal.read_until(until)
    return terminal


def test_the_local_server_ends_with_its_client_even_killed_and_the_game_is_kept(
    tmp_path: Path, terminals: list[Terminal]
) -> None:
    first = start(terminals, tmp_path, until="New to Persian Rummy?")
    first.press("n")
    (server,) = children(first.pid)  # the game's server: one process of its own
    assert running(server)
    first.read_until("7 cards")
    os.kill(first.pid, signal.SIGKILL)  # no goodbye at all
    until_gone(server)

    second = start(terminals, tmp_path)
    second.read_until("You are back at your seat")  # the same game, from its storage
    (server,) = children(second.pid)
    second.press("q")
    second.read_until("Quit during the game?")
    second.press("y")
    assert second.exit_code() == 0
    until_gone(server)


def test_new_gives_up_the_saved_game_for_one_with_the_bots_asked_for(
    tmp_path: Path, terminals: list[Terminal]
) -> None:
    """Seen in tmux: ``rummy-client --bots hard`` went back to the saved game against
    normal bots without a word, and no command started another. Now the saved game
    says it goes on with its own bots, and ``--new`` starts a new game with the bots
    asked for."""
    first = start(terminals, tmp_path, "--bot-delay", "0", until="New to Persian Rummy?")
    offered = len(first.seen)
    first.press("n")
    # The table's keys again: the offer has closed. ("7 cards" was drawn under it, and
    # a q pressed while the offer was still closing went to it, on a busy machine.)
    first.read_until("s Draw", since=offered)
    first.press("q")
    first.read_until("Quit during the game?")
    first.press("y")
    assert first.exit_code() == 0

    again = start(terminals, tmp_path, "--bots", "hard")
    again.read_until("You are back at your seat")
    again.read_until("Your saved game")  # the notice: it goes on with its normal bots
    assert b"(hard bot" not in ANSI.sub(b"", again.seen)  # no bot at the table is hard
    again.press("q")
    again.read_until("Quit during the game?")
    again.press("y")
    assert again.exit_code() == 0

    new = start(terminals, tmp_path, "--new", "--bots", "hard")
    new.read_until("(hard bot")
    new.read_until("Deal 1 of 2 begins")
    drawn = ANSI.sub(b"", new.seen)
    assert b"You are back at your seat" not in drawn and b"Your saved game" not in drawn
    new.press("q")
    new.read_until("Quit during the game?")
    new.press("y")
    assert new.exit_code() == 0
