"""One browser session: the game client on its own pty, wired to the page's websocket.

The page runs textual-serve's front end (xterm.js): it sends JSON text
messages, ``["stdin", text]`` for keys and mouse reports, ``["resize",
{"width": W, "height": H}]`` and ``["ping", stamp]``, and draws every binary
message it gets as terminal output. So the client runs exactly as it does for
an SSH player, on a pty (``PtyChild``, shared with the SSH door): what an
xterm sends and draws is what the client already speaks.

textual-serve's own ``AppService`` runs the app on pipes with Textual's web
driver; it is not used because it cannot give a session its own environment
(the player's state directory), does not put the client in a process group of
its own, and waits for the app without a bound when the page closes, so a
hung client would be left behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from rummy.doors.client_env import client_env
from rummy.doors.forker import Forker
from rummy.doors.pty_child import INPUT_HIGH_WATER, PtyChild
from rummy.doors.web.limits import MAX_COLUMNS, MAX_ROWS, OUTPUT_HIGH_WATER
from rummy.doors.wording import duration, exit_words

log = logging.getLogger(__name__)

# What the page draws with; xterm.js does 24-bit colour.
TERM = "xterm-256color"

# Close codes (RFC 6455 leaves 4000-4999 to applications) and the reasons the
# page shows; a reason is at most 123 bytes.
CLOSE_REPLACED = 4001
CLOSE_IDLE = 4002
CLOSE_CLIENT_ENDED = 4003


def page_env(state_dir: Path) -> dict[str, str]:
    """A clean environment (client_env.py) for the page's terminal, always UTF-8."""
    return client_env(state_dir, TERM, {"LANG": "C.UTF-8", "COLORTERM": "truecolor"})


def _cells(value: Any, limit: int) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return min(value, limit)
    return None


class BrowserSession:
    """Runs the client for one page and ends it when the page goes away.

    ``run()`` returns once the client has ended and been reaped, whatever
    happened: the page closed, the client quit, the session was replaced by
    another tab of the same browser (``replace()``), it sat idle, or the
    server is closing (``close()``).
    """

    def __init__(
        self,
        ws: web.WebSocketResponse,
        argv: Sequence[str],
        state_dir: Path,
        size: tuple[int, int],
        *,
        forker: Forker,
        idle_timeout: float,
        hangup_grace: float,
        label: str,
    ) -> None:
        self._ws = ws
        self._argv = list(argv)
        self._state_dir = state_dir
        self._size = size
        self._forker = forker
        self._idle_timeout = idle_timeout
        self._hangup_grace = hangup_grace
        self.label = label  # for log lines: address and identity, never the secret
        self._loop = asyncio.get_running_loop()
        self._child: PtyChild | None = None
        self._out = bytearray()
        self._out_ready = asyncio.Event()
        self._in_drained = asyncio.Event()
        self._in_drained.set()
        self._last_activity = self._loop.time()
        self._ending: tuple[int, str] | None = None  # the close code and reason, once decided
        self._finished = False  # the client has ended and all its output is in _out
        self._ended = asyncio.Event()  # the client is reaped
        self._stop = asyncio.Event()  # end now: replaced, idle, or the server is closing

    @property
    def pid(self) -> int | None:
        return None if self._child is None else self._child.pid

    # -- life ----------------------------------------------------------------------

    async def run(self) -> None:
        try:
            await self._run()
        finally:
            self._ended.set()

    async def _run(self) -> None:
        if self._stop.is_set() or self._ws.closed:
            # Replaced or shut down before it started: no client at all.
            await self._close(*(self._ending or (1000, "")))
            return
        try:
            child = await PtyChild.spawn(
                self._argv,
                env=page_env(self._state_dir),
                size=(self._size[0], self._size[1], 0, 0),
                on_output=self._output,
                on_input_drained=self._in_drained.set,
                cwd=self._state_dir,
                forker=self._forker,
            )
        except OSError:
            log.exception("web session %s: the client could not be started", self.label)
            await self._close(1011, "The game could not be started; please tell the host.")
            return
        self._child = child
        log.info("web session %s runs client pid %d", self.label, child.pid)
        # From here on nothing may skip the reaping below: a client must never be left behind.
        waiter = asyncio.ensure_future(child.wait())
        reader = asyncio.ensure_future(self._read_page())
        writer = asyncio.ensure_future(self._write_page())
        stopper = asyncio.ensure_future(self._stop.wait())
        idle = asyncio.ensure_future(self._watch_idle())
        try:
            await asyncio.wait({waiter, reader, stopper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not waiter.done():
                child.hang_up(self._hangup_grace)
            status = await asyncio.shield(waiter)
            for task in (stopper, idle):
                task.cancel()
            log.info("web session %s: client pid %d ended (%s)", self.label, child.pid, exit_words(status))
            if self._ending is None:
                self._ending = _client_ended(status)
            self._finished = True
            self._in_drained.set()  # no one will read more keys
            self._out_ready.set()  # let the writer send the last output, then stop
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, self._hangup_grace)
            await self._close(*self._ending)
            # The reader ends with the closing handshake. It is not cancelled before:
            # aiohttp drops the connection without a close frame (and its reason) then.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(reader, self._hangup_grace)

    def end(self, code: int, reason: str) -> None:
        """Ask the session to end (the page is told ``reason``); ``wait()`` for it."""
        if self._ending is None:
            self._ending = (code, reason)
        self._stop.set()

    async def wait(self) -> None:
        await self._ended.wait()

    async def _close(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            await self._ws.close(code=code, message=reason.encode()[:123])

    # -- page -> client ------------------------------------------------------------

    async def _read_page(self) -> None:
        async for msg in self._ws:
            if msg.type != WSMsgType.TEXT:
                continue  # the front end sends text only
            try:
                kind, data = json.loads(msg.data)
            except (ValueError, TypeError, RecursionError):  # RecursionError: "[[[[..." nested deep
                log.debug("web session %s: ignored a malformed message", self.label)
                continue
            if kind == "stdin" and isinstance(data, str):
                self._last_activity = self._loop.time()
                await self._type(data.encode("utf-8", "replace"))
            elif kind == "resize" and isinstance(data, dict):
                cols, rows = _cells(data.get("width"), MAX_COLUMNS), _cells(data.get("height"), MAX_ROWS)
                if cols and rows and self._child is not None:
                    self._last_activity = self._loop.time()
                    self._child.resize((cols, rows, 0, 0))
            elif kind == "ping" and isinstance(data, str) and len(data) <= 32:
                with contextlib.suppress(Exception):
                    await self._ws.send_str(json.dumps(["pong", data]))
            # "focus" and "blur" need nothing: xterm.js reports focus on the pty itself.

    async def _type(self, data: bytes) -> None:
        child = self._child
        if child is None:
            return
        child.write(data)
        if child.input_backlog > INPUT_HIGH_WATER:
            # The client is not reading its keys: stop reading the page until it does.
            self._in_drained.clear()
            await self._in_drained.wait()

    # -- client -> page ------------------------------------------------------------

    def _output(self, data: bytes) -> None:
        self._out += data
        self._out_ready.set()
        if len(self._out) > OUTPUT_HIGH_WATER and self._child is not None:
            self._child.pause_output()  # the browser is slow: let the client block on its writes

    async def _write_page(self) -> None:
        while True:
            await self._out_ready.wait()
            self._out_ready.clear()
            if self._out:
                chunk = bytes(self._out)
                self._out.clear()
                if self._child is not None:
                    self._child.resume_output()
                await self._ws.send_bytes(chunk)
            if self._finished and not self._out:
                return

    # -- idle ----------------------------------------------------------------------

    async def _watch_idle(self) -> None:
        if self._idle_timeout <= 0:
            return
        while True:
            remaining = self._last_activity + self._idle_timeout - self._loop.time()
            if remaining <= 0:
                log.info("closing idle web session %s", self.label)
                self.end(CLOSE_IDLE, f"Closed after {duration(self._idle_timeout)} without a key pressed.")
                return
            await asyncio.sleep(remaining)


def _client_ended(status: int) -> tuple[int, str]:
    if status == 0:
        return CLOSE_CLIENT_ENDED, "You left the game."
    return CLOSE_CLIENT_ENDED, f"The game stopped ({exit_words(status)}); please tell the host."
