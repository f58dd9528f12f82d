"""A program on its own pseudo-terminal, driven from asyncio.

A door's session needs exactly what sshd gives a login shell: a new session
whose controlling terminal is the pty (so the kernel delivers SIGWINCH and
SIGHUP to it), a raw byte stream both ways, window sizes set with
TIOCSWINSZ, and the exit status once the program ends. The program is forked
by the door's pre-imported parent (forker.py), which gives it the pty as its
terminal. Nothing here knows about SSH or browsers, so both doors use it.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import os
import signal
import struct
import termios
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from rummy.doors.forker import ForkedChild, Forker

# A window size as SSH sends it: columns, rows, pixel width, pixel height.
WindowSize = tuple[int, int, int, int]

_READ_CHUNK = 65536
# Keys arrive a few bytes at a time; a backlog this large means the program
# stopped reading its terminal, so the SSH side is asked to stop sending.
INPUT_HIGH_WATER = 64 * 1024


def _set_window_size(fd: int, size: WindowSize) -> None:
    cols, rows, xpixels, ypixels = (max(0, min(int(v), 0xFFFF)) for v in size)
    # struct winsize is rows first: ws_row, ws_col, ws_xpixel, ws_ypixel.
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, xpixels, ypixels))


class PtyChild:
    """One running program whose stdin, stdout and stderr are a fresh pty.

    Output is handed to ``on_output`` as it arrives. ``wait()`` returns the
    exit status (negative signal number if it was killed) once the program
    has ended and its last output has been delivered. ``hang_up()`` ends it
    the way a dropped terminal would: SIGHUP, then SIGKILL after a grace
    period; ``wait()`` still reaps it.
    """

    def __init__(
        self,
        process: ForkedChild,
        master_fd: int,
        on_output: Callable[[bytes], None],
        on_input_drained: Callable[[], None] | None,
    ) -> None:
        self._process = process
        self._master: int | None = master_fd
        self._on_output = on_output
        self._on_input_drained = on_input_drained
        self._loop = asyncio.get_running_loop()
        self._pending_input = bytearray()
        self._writer_armed = False
        self._reading = False
        self._output_paused = False
        self._kill_timer: asyncio.TimerHandle | None = None
        self._start_reading()

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.returncode

    @property
    def input_backlog(self) -> int:
        """Bytes accepted by write() but not yet taken by the pty."""
        return len(self._pending_input)

    @classmethod
    async def spawn(
        cls,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        size: WindowSize,
        on_output: Callable[[bytes], None],
        on_input_drained: Callable[[], None] | None = None,
        cwd: str | Path,
        forker: Forker,
    ) -> PtyChild:
        """Start ``argv`` on a new pty of the given size, forked by ``forker``.
        Raises OSError if the program cannot be started (nothing is left open then)."""
        master, slave = os.openpty()
        try:
            _set_window_size(slave, size)
            os.set_blocking(master, False)
            process = await forker.spawn(argv, env=env, cwd=cwd, tty=slave)
        except BaseException:
            os.close(master)
            raise
        finally:
            # The child has its own copies; ours would keep the pty open after
            # the child exits, and the master would never see the hang-up.
            os.close(slave)
        return cls(process, master, on_output, on_input_drained)

    # -- output: pty -> on_output ------------------------------------------------

    def _start_reading(self) -> None:
        if self._master is not None and not self._reading and not self._output_paused:
            self._loop.add_reader(self._master, self._read_ready)
            self._reading = True

    def _stop_reading(self) -> None:
        if self._master is not None and self._reading:
            self._loop.remove_reader(self._master)
        self._reading = False

    def _read_ready(self) -> None:
        data = self._read_chunk()
        if data is None:
            # End of output: Linux reports EIO once the last slave fd closes.
            self._stop_reading()
        elif data:
            self._on_output(data)

    def _read_chunk(self) -> bytes | None:
        """One chunk of output: b"" if none is ready now, None at the end."""
        if self._master is None:
            return None
        try:
            data = os.read(self._master, _READ_CHUNK)
        except BlockingIOError:
            return b""
        except OSError as exc:
            if exc.errno == errno.EIO:
                return None
            raise
        return data or None

    def pause_output(self) -> None:
        """Stop reading the pty (the SSH side is full); the program then blocks
        on its own writes, which is the flow control a terminal gives."""
        self._output_paused = True
        self._stop_reading()

    def resume_output(self) -> None:
        self._output_paused = False
        self._start_reading()

    # -- input: write() -> pty ------------------------------------------------

    def write(self, data: bytes) -> None:
        """Queue bytes as if typed at the terminal. Never blocks."""
        if self._master is None or not data:
            return
        self._pending_input += data
        self._flush_input()

    def _flush_input(self) -> None:
        if self._master is None:
            self._pending_input.clear()
            return
        while self._pending_input:
            try:
                written = os.write(self._master, self._pending_input)
            except BlockingIOError:
                break
            except OSError:
                # The terminal was hung up; the program is going away.
                self._pending_input.clear()
                break
            del self._pending_input[:written]
        if self._pending_input and not self._writer_armed:
            self._loop.add_writer(self._master, self._flush_input)
            self._writer_armed = True
        elif not self._pending_input and self._writer_armed:
            self._loop.remove_writer(self._master)
            self._writer_armed = False
            if self._on_input_drained is not None:
                self._on_input_drained()

    # -- window size -------------------------------------------------------------

    def resize(self, size: WindowSize) -> None:
        """Set the window size; the kernel sends SIGWINCH to the program."""
        if self._master is not None:
            with contextlib.suppress(OSError):
                _set_window_size(self._master, size)

    # -- the end -----------------------------------------------------------------

    def _signal(self, signum: int) -> None:
        # Through the child's pidfd: never another process that got its number later.
        # What it started in its session gets the terminal's SIGHUP when the pty closes.
        self._process.send_signal(signum)

    def hang_up(self, grace: float = 2.0) -> None:
        """End the program as a dropped terminal would: SIGHUP now, the pty
        closed, SIGKILL if it is still there after ``grace`` seconds."""
        if self._process.returncode is not None:
            self._close_master()
            return
        self._signal(signal.SIGHUP)
        self._close_master()
        if self._kill_timer is None:
            self._kill_timer = self._loop.call_later(grace, self._signal, signal.SIGKILL)

    async def wait(self) -> int:
        """Wait for the program to end; deliver its last output; return its
        exit status (negative: killed by that signal). Closes the pty."""
        try:
            returncode = await self._process.wait()
        finally:
            if self._kill_timer is not None:
                self._kill_timer.cancel()
        # What it wrote just before exiting is still in the pty buffer.
        while data := self._read_chunk():
            self._on_output(data)
        self._close_master()
        return returncode

    def _close_master(self) -> None:
        if self._master is None:
            return
        self._stop_reading()
        if self._writer_armed:
            self._loop.remove_writer(self._master)
            self._writer_armed = False
        self._pending_input.clear()
        os.close(self._master)
        self._master = None
