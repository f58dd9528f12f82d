"""The browser front door (``rummy-server --web-port``) without a browser: pages,
the per-browser identity, keys and sizes, limits, idle timeout and cleanup.

The pages are fetched and the game socket is driven with aiohttp's client,
which says what a browser says; each session runs the SSH tests' stand-in
client (it reports its name, state directory, size and keys) instead of the
game, so every test is quick. tests/e2e/test_browser.py plays the real game
in a real Chromium.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import socket
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import aiohttp
import pytest

from rummy.doors.web import BrowserId, WebGameServer, start_web_server
from rummy.doors.web.cli import start_web_from_args
from rummy.doors.web.identity import COOKIE, NAME_COOKIE, forget_stale
from rummy.doors.web.session import CLOSE_CLIENT_ENDED, CLOSE_IDLE, CLOSE_REPLACED
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


async def serve(state_dir: Path, **kwargs: object) -> WebGameServer:
    options: dict[str, object] = {"client_command": standin("--exit", "3"), "hangup_grace": 0.5}
    options.update(kwargs)
    return await start_web_server("127.0.0.1", 0, GAME_ADDRESS, state_dir, **options)  # type: ignore[arg-type]


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[WebGameServer]:
    srv = await serve(tmp_path / "state")
    yield srv
    await srv.close()


class Browser:
    """One browser profile: its own cookie jar, so its own identity."""

    def __init__(self, srv: WebGameServer) -> None:
        self.base = f"http://127.0.0.1:{srv.port}"
        # unsafe: keep cookies for an IP address host, as browsers do.
        self.http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))

    async def sign_in(self, name: str) -> None:
        async with self.http.get(self.base + "/") as r:
            assert r.status == 200
        async with self.http.post(self.base + "/name", data={"name": name}, allow_redirects=False) as r:
            assert r.status == 303, await r.text()

    def cookie(self, name: str) -> str | None:
        for morsel in self.http.cookie_jar:
            if morsel.key == name:
                return morsel.value
        return None

    async def open(self, headers: dict[str, str] | None = None, path: str = "/ws") -> Page:
        return Page(await self.http.ws_connect(self.base + path + "?width=100&height=30", headers=headers))

    async def close(self) -> None:
        await self.http.close()


@pytest.fixture
async def browsers(server: WebGameServer) -> AsyncIterator[Callable[[], Browser]]:
    made: list[Browser] = []

    def make() -> Browser:
        made.append(Browser(server))
        return made[-1]

    yield make
    for b in made:
        await b.close()


class Page:
    """What the page's terminal has received, and how the socket ended."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.data = b""

    async def wait_for(self, text: bytes, start: int = 0) -> int:
        async def read() -> int:
            while (at := self.data.find(text, start)) < 0:
                msg = await self.ws.receive()
                if msg.type == aiohttp.WSMsgType.BINARY:
                    self.data += msg.data
                elif msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                    raise AssertionError(f"closed ({msg.data}, {msg.extra}) before {text!r}: {self.data!r}")

            return at

        return await asyncio.wait_for(read(), TIMEOUT)

    async def line_after(self, prefix: bytes) -> str:
        at = await self.wait_for(prefix)
        end = await self.wait_for(b"\r\n", at)
        return self.data[at:end].decode()

    async def closed(self) -> tuple[int | None, str]:
        """Read to the end; the close code and the reason the page would show."""

        async def read() -> tuple[int | None, str]:
            while True:
                msg = await self.ws.receive()
                if msg.type == aiohttp.WSMsgType.BINARY:
                    self.data += msg.data
                elif msg.type == aiohttp.WSMsgType.CLOSE:
                    return int(msg.data), msg.extra or ""
                elif msg.type == aiohttp.WSMsgType.CLOSED:
                    return self.ws.close_code, ""

        return await asyncio.wait_for(read(), TIMEOUT)

    async def send(self, kind: str, data: object) -> None:
        await self.ws.send_str(json.dumps([kind, data]))


# -- pages ---------------------------------------------------------------------------


async def test_first_visit_asks_a_name_and_gives_the_browser_a_private_id(server: WebGameServer) -> None:
    async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{server.port}/") as r:
        page = await r.text()
        assert r.status == 200
        assert "<title>Persian Rummy</title>" in page
        assert 'rel="icon" href="/favicon.svg"' in page
        assert 'name="name"' in page  # the name form, not the game yet
        cookie = r.cookies[COOKIE]
        assert BrowserId.parse(cookie.value) is not None
        assert cookie["httponly"] and cookie["samesite"] == "Strict"
        assert int(cookie["max-age"]) >= 365 * 24 * 3600
        assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]


async def test_the_name_is_asked_once_then_the_game_page_is_served(
    server: WebGameServer, browsers: Callable[[], Browser]
) -> None:
    b = browsers()
    await b.sign_in("Ann \x1b[31mRed")  # escape codes never reach anyone's screen
    assert b.cookie(NAME_COOKIE) is not None
    async with b.http.get(b.base + "/") as r:
        page = await r.text()
    assert 'id="terminal"' in page and "Starting the game for Ann Red" in page
    assert "\x1b" not in page
    # Everything the page loads is served here: nothing comes from the internet.
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert assets and not [a for a in assets if not a.startswith("/")], assets
    for asset in [*assets, "/static/fonts/RobotoMono-VariableFont_wght.ttf"]:
        async with b.http.get(b.base + asset) as r:
            assert r.status == 200, asset
    async with b.http.get(b.base + "/favicon.svg") as r:
        assert r.content_type == "image/svg+xml" and b"<svg" in await r.read()


async def test_an_empty_name_is_refused_with_a_reason(server: WebGameServer) -> None:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        base = f"http://127.0.0.1:{server.port}"
        async with http.post(base + "/name", data={"name": " \x07\x1b[2J "}, allow_redirects=False) as r:
            assert r.status == 400
            assert "at least one letter" in await r.text()
        async with http.get(base + "/", allow_redirects=False) as r:
            assert 'name="name"' in await r.text()  # still asked


async def test_another_site_cannot_post_a_name_or_open_a_game(
    server: WebGameServer, browsers: Callable[[], Browser]
) -> None:
    b = browsers()
    await b.sign_in("Ann")
    evil = {"Origin": "http://evil.example"}
    async with b.http.post(b.base + "/name", data={"name": "x"}, headers=evil) as r:
        assert r.status == 403
    async with b.http.post(
        b.base + "/name", data={"name": "x"}, headers={"Sec-Fetch-Site": "cross-site"}
    ) as r:
        assert r.status == 403  # what a current browser says of a form on another site
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await b.open(headers=evil)
    assert refused.value.status == 403
    assert server.session_count == 0
    assert b.cookie(NAME_COOKIE) == "Ann"


async def test_a_proxy_that_drops_the_port_from_host_still_lets_the_own_page_in(
    server: WebGameServer, browsers: Callable[[], Browser]
) -> None:
    """nginx's ``$host`` is the name without the port: the page's own Origin still matches."""
    b = browsers()
    await b.sign_in("Ann")
    own = {"Origin": "https://rummy.example:8443", "Host": "rummy.example"}
    await (await b.open(headers=own)).wait_for(b"HELLO")
    other_port = {"Origin": "https://rummy.example:8443", "Host": "rummy.example:9999"}
    with pytest.raises(aiohttp.WSServerHandshakeError):
        await b.open(headers=other_port)


# -- identity ------------------------------------------------------------------------


async def test_a_browser_keeps_its_state_dir_and_another_browser_never_shares_it(
    tmp_path: Path, server: WebGameServer, browsers: Callable[[], Browser]
) -> None:
    ann, same_name = browsers(), browsers()
    await ann.sign_in("Ann")
    await same_name.sign_in("Ann")
    page = await ann.open()
    hello = await page.line_after(b"HELLO")
    assert field(hello, "name") == "Ann" and field(hello, "addr") == GAME_ADDRESS
    assert field(hello, "ctty") == "yes" and field(hello, "term") == "xterm-256color"
    state = await page.line_after(b"STATE")
    secret = ann.cookie(COOKIE)
    assert secret is not None
    expected = tmp_path / "state" / "web" / hashlib.sha256(secret.encode()).hexdigest()
    assert state == f"STATE new dir={expected}"
    assert expected.stat().st_mode & 0o777 == 0o700
    await page.ws.close()
    await eventually(lambda: server.session_count == 0)

    again = await ann.open()  # a reload, or coming back later in the same browser
    assert await again.line_after(b"STATE") == f"STATE seen dir={expected}"
    other = await same_name.open()  # the same name in another browser: a directory of its own
    other_state = await other.line_after(b"STATE")
    assert other_state.startswith("STATE new") and str(expected) not in other_state


async def test_the_client_gets_a_clean_environment(
    server: WebGameServer, browsers: Callable[[], Browser], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As over SSH: the client gets what it needs (TERM, a UTF-8 locale, PATH, its own
    state directory, as HOME too), never the host's secrets or ssh-agent socket."""
    host_secrets(monkeypatch)
    ann = browsers()
    await ann.sign_in("Ann")
    page = await ann.open()
    state = Path(field(await page.line_after(b"STATE"), "dir"))
    env = env_of(await page.line_after(b"ENV "))
    assert set(env) <= CLEAN_ENV
    assert env["TERM"] == "xterm-256color" and env["LANG"] == "C.UTF-8" and env["PATH"]
    assert env["HOME"] == env["RUMMY_STATE_DIR"] == str(state)
    assert not any("hunter2" in v or "agent" in v for v in env.values())


async def test_a_made_up_cookie_is_not_an_identity(server: WebGameServer) -> None:
    jar = aiohttp.CookieJar(unsafe=True)
    async with aiohttp.ClientSession(cookie_jar=jar) as http:
        base = f"http://127.0.0.1:{server.port}"
        jar.update_cookies({COOKIE: "../../etc", NAME_COOKIE: "Ann"})
        async with http.ws_connect(base + "/ws") as ws:
            msg = await asyncio.wait_for(ws.receive(), TIMEOUT)
            assert msg.type == aiohttp.WSMsgType.CLOSE and "reload the page" in msg.extra
        async with http.get(base + "/") as r:  # the page replaces it with a real one
            assert BrowserId.parse(r.cookies[COOKIE].value) is not None
    assert server.session_count == 0
    assert BrowserId.parse("../../etc") is None
    assert BrowserId.parse("A" * 43) is not None and BrowserId.parse("A" * 44) is None


def test_identities_unused_for_400_days_are_forgotten(tmp_path: Path) -> None:
    old, recent = tmp_path / "web" / "old", tmp_path / "web" / "recent"
    for d in (old, recent):
        d.mkdir(parents=True)
        (d / "client.json").write_text("{}")
    long_ago = time.time() - 401 * 24 * 3600
    os.utime(old, (long_ago, long_ago))
    assert forget_stale(tmp_path) == 1
    assert not old.exists() and recent.exists()


# -- the terminal --------------------------------------------------------------------


async def test_keys_and_window_size_reach_the_client(
    server: WebGameServer, browsers: Callable[[], Browser]
) -> None:
    b = browsers()
    await b.sign_in("Ann")
    page = await b.open()
    assert await page.line_after(b"SIZE") == "SIZE 100x30"  # the size the page asked for
    await page.send("stdin", "hi\x1b[A")
    assert await page.line_after(b"KEY") == "KEY " + b"hi\x1b[A".hex()
    await page.send("resize", {"width": 120, "height": 40})
    await page.wait_for(b"SIZE 120x40")
    await page.send("resize", {"width": 10**9, "height": 10**9})  # clamped, not an error
    await page.wait_for(b"SIZE 500x200")
    pong_wait = asyncio.ensure_future(page.ws.receive())
    await page.send("ping", "123")
    pong = await asyncio.wait_for(pong_wait, TIMEOUT)
    assert json.loads(pong.data) == ["pong", "123"]


async def test_the_client_options_come_from_the_page_address_and_the_name_form(
    server: WebGameServer, browsers: Callable[[], Browser]
) -> None:
    """An SSH player gets the client's options with ``ssh -t HOST ascii``; a browser
    player had no way to them. Now the name form has a box for each, ticked ones go
    into the page's address (``/?ascii&four-colour``) and from there into the client's
    argv. Only the fixed list: any other word is refused in words, never passed on."""
    b = browsers()
    async with b.http.get(b.base + "/") as r:
        form = await r.text()
    for word in ("ascii", "four-colour", "no-bell"):
        assert f'type="checkbox" name="{word}"' in form
    data = {"name": "Ann", "four-color": "on", "ascii": "on", "--exit": "on"}
    async with b.http.post(b.base + "/name", data=data, allow_redirects=False) as r:
        assert r.status == 303
        assert r.headers["Location"] == "/?ascii&four-colour"
    async with b.http.get(b.base + "/?ascii&four-colour") as r:
        page = await r.text()
    assert '"/ws/ascii+four-colour"' in page
    assert 'href="/name?ascii&four-colour"' in page  # the form again, boxes as they were
    async with b.http.get(b.base + "/name?ascii&four-colour") as r:
        form = await r.text()
    assert 'name="ascii" checked' in form and 'name="no-bell" checked' not in form
    game = await b.open(path="/ws/ascii+four-colour")
    assert field(await game.line_after(b"HELLO"), "options") == "--ascii,--four-colour"
    await game.send("stdin", "q")
    await game.closed()
    plain = await b.open()
    assert field(await plain.line_after(b"HELLO"), "options") == "-"
    await plain.send("stdin", "q")
    await plain.closed()

    # Anything else is refused, naming the options there are.
    async with b.http.get(b.base + "/?ascii&--exit=0") as r:
        assert r.status == 400
        said = "The game takes no &#x27;--exit&#x27;; it takes: ascii, four-colour, no-bell."
        assert said in await r.text()
    refused = await b.open(path="/ws/ascii+--name=x")
    code, reason = await refused.closed()
    assert code == 1008 and reason.startswith("The game takes no '--name=x'")
    assert b"HELLO" not in refused.data


async def test_malformed_messages_change_nothing(
    server: WebGameServer, browsers: Callable[[], Browser]
) -> None:
    b = browsers()
    await b.sign_in("Ann")
    page = await b.open()
    await page.wait_for(b"SIZE 100x30")
    for bad in (
        "not json",
        "[]",
        '["stdin"]',
        '["stdin", 5]',
        '["resize", {"width": "x"}]',
        '{"a": 1}',
        "[1,2,3]",
        "[" * 30_000,  # nested deeper than the JSON parser goes
        '["resize", [1, 2]]',
        '["ping", "' + "9" * 100 + '"]',
    ):
        await page.ws.send_str(bad)
    await page.ws.send_bytes(b"\x00\x01")
    await page.send("resize", {"width": 0, "height": -3})
    await page.send("stdin", "z")
    assert await page.line_after(b"KEY") == "KEY " + b"z".hex()
    assert b"SIZE 0" not in page.data and server.session_count == 1


async def test_too_big_a_message_ends_only_that_session(
    server: WebGameServer, browsers: Callable[[], Browser]
) -> None:
    b, other = browsers(), browsers()
    await b.sign_in("Ann")
    await other.sign_in("Bob")
    page, calm = await b.open(), await other.open()
    pid = int(field(await page.line_after(b"HELLO"), "pid"))
    await calm.wait_for(b"HELLO")
    await page.send("stdin", "x" * 100_000)
    await page.closed()
    await eventually(lambda: process_gone(pid))
    await calm.send("stdin", "y")
    assert (await calm.line_after(b"KEY")).startswith("KEY 79")


async def test_quitting_the_client_closes_the_page_with_a_reason(
    server: WebGameServer, browsers: Callable[[], Browser]
) -> None:
    b = browsers()
    await b.sign_in("Ann")
    page = await b.open()
    pid = int(field(await page.line_after(b"HELLO"), "pid"))
    await page.send("stdin", "q")  # the stand-in exits with status 3
    code, reason = await page.closed()
    assert code == CLOSE_CLIENT_ENDED and "exit status 3" in reason
    assert b"KEY 71" in page.data  # its last words reached the page before the close
    assert process_gone(pid)
    await eventually(lambda: server.session_count == 0)


# -- cleanup -------------------------------------------------------------------------


@pytest.mark.parametrize("ignore_hup", [False, True])
async def test_a_closed_page_ends_and_reaps_its_client(tmp_path: Path, ignore_hup: bool) -> None:
    """The page goes away without a goodbye: the client gets SIGHUP (SIGKILL if it
    ignores that) and is reaped, its place is free again, and no fd is left open."""
    extra = ("--ignore-hup",) if ignore_hup else ()
    async with await serve(tmp_path / "state", client_command=standin(*extra)) as srv:
        b = Browser(srv)
        try:
            await b.sign_in("Ann")
            fds_before = open_fds()
            # A websocket opened by hand, so that its TCP connection can be dropped
            # without a goodbye, as a crashed browser or a lost network would.
            reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
            writer.write(
                f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\nUpgrade: websocket\r\n"
                "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                f"Sec-WebSocket-Version: 13\r\nCookie: {COOKIE}={b.cookie(COOKIE)}; "
                f"{NAME_COOKIE}={b.cookie(NAME_COOKIE)}\r\n\r\n".encode()
            )
            assert (await reader.readline()).startswith(b"HTTP/1.1 101")
            await eventually(lambda: len(srv.client_pids) == 1)
            [pid] = srv.client_pids
            session_fds = opened_since(fds_before)
            # The check below can fail: the session's pty and its client's pidfd are seen.
            opened = " ".join(session_fds.values())
            assert "ptmx" in opened and "pidfd" in opened, session_fds
            writer.transport.abort()
            await eventually(lambda: process_gone(pid))
            await eventually(lambda: srv.session_count == 0)
            # The pty, the sockets and the pidfd are all closed: no fd is left behind either.
            await eventually(
                lambda: not still_open(session_fds),
                what=lambda: f"the session's fds to close; still open: {still_open(session_fds)}",
            )
        finally:
            await b.close()


async def test_closing_the_server_ends_every_client(tmp_path: Path) -> None:
    srv = await serve(tmp_path / "state")
    b = Browser(srv)
    try:
        await b.sign_in("Ann")
        page = await b.open()
        pid = int(field(await page.line_after(b"HELLO"), "pid"))
        await srv.close()
        assert process_gone(pid)
        code, reason = await page.closed()
        assert code == 1001 and "shutting down" in reason
    finally:
        await b.close()


async def test_a_second_tab_of_the_same_browser_takes_over_the_game(
    server: WebGameServer, browsers: Callable[[], Browser]
) -> None:
    """One client per browser: two would fight over one seat. The older page is
    told why, and its client is gone before the new one starts."""
    b = browsers()
    await b.sign_in("Ann")
    first = await b.open()
    first_pid = int(field(await first.line_after(b"HELLO"), "pid"))
    second = await b.open()
    code, reason = await first.closed()
    assert code == CLOSE_REPLACED and "another tab" in reason
    hello = await second.line_after(b"HELLO")
    assert process_gone(first_pid)
    assert int(field(hello, "pid")) != first_pid
    assert (await second.line_after(b"STATE")).startswith("STATE seen")
    assert server.session_count == 1


# -- limits --------------------------------------------------------------------------


async def test_sessions_per_address_are_limited(tmp_path: Path) -> None:
    async with await serve(tmp_path / "state", max_per_address=2) as srv:
        made = [Browser(srv) for _ in range(3)]
        try:
            for i, b in enumerate(made):
                await b.sign_in(f"P{i}")
            first, second = await made[0].open(), await made[1].open()
            await first.wait_for(b"HELLO")
            await second.wait_for(b"HELLO")
            code, reason = await (await made[2].open()).closed()
            assert code == 1013 and "at most 2" in reason
            await first.ws.close()
            await eventually(lambda: srv.session_count == 1)
            await (await made[2].open()).wait_for(b"HELLO")  # a freed place can be used again
        finally:
            for b in made:
                await b.close()


async def test_behind_a_proxy_the_forwarded_address_is_the_one_limited(tmp_path: Path) -> None:
    async with await serve(tmp_path / "state", max_per_address=1, behind_proxy=True) as srv:
        made = [Browser(srv) for _ in range(3)]
        try:
            for i, b in enumerate(made):
                await b.sign_in(f"P{i}")
            home = {"X-Forwarded-For": "203.0.113.7"}
            away = {"X-Forwarded-For": "198.51.100.1, 203.0.113.7"}  # the proxy's own entry is last
            await (await made[0].open(headers=home)).wait_for(b"HELLO")
            code, _ = await (await made[1].open(headers=away)).closed()
            assert code == 1013  # the same player address, whatever the browser claimed before it
            other = {"X-Forwarded-For": "198.51.100.9"}
            await (await made[2].open(headers=other)).wait_for(b"HELLO")
        finally:
            for b in made:
                await b.close()


async def test_the_total_number_of_sessions_is_capped(tmp_path: Path) -> None:
    async with await serve(tmp_path / "state", max_sessions=1) as srv:
        made = [Browser(srv) for _ in range(2)]
        try:
            await made[0].sign_in("Ann")
            await made[1].sign_in("Bob")
            await (await made[0].open()).wait_for(b"HELLO")
            code, reason = await (await made[1].open()).closed()
            assert code == 1013 and "server is full" in reason
        finally:
            for b in made:
                await b.close()


async def test_an_idle_session_is_closed_with_a_reason(tmp_path: Path) -> None:
    async with await serve(tmp_path / "state", idle_timeout=0.6) as srv:
        b = Browser(srv)
        try:
            await b.sign_in("Ann")
            page = await b.open()
            pid = int(field(await page.line_after(b"HELLO"), "pid"))
            for _ in range(4):  # keys keep it alive past the timeout...
                await asyncio.sleep(0.25)
                await page.send("stdin", "x")
            await page.wait_for(b"KEY 78")
            assert srv.session_count == 1
            code, reason = await page.closed()  # ...and silence ends it
            assert code == CLOSE_IDLE and "without a key pressed" in reason
            await eventually(lambda: process_gone(pid))
        finally:
            await b.close()


# -- the command line ----------------------------------------------------------------


async def test_rummy_server_options_start_the_web_door(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = build_parser().parse_args(
        [
            "--web-port",
            "0",
            "--web-host",
            "127.0.0.1",
            "--web-max-per-address",
            "3",
            "--web-idle-timeout",
            "0",
        ]
    )
    srv = await start_web_from_args(
        args, "0.0.0.0", 7325, "192.0.2.5", state_dir=tmp_path, client_command=standin()
    )
    assert srv is not None
    try:
        assert srv.game_address == "127.0.0.1:7325"  # the clients reach the game by loopback
        assert srv.max_per_address == 3 and srv.idle_timeout == 0
        assert f"players open: http://127.0.0.1:{srv.port}/" in capsys.readouterr().out  # the address bound
    finally:
        await srv.close()
    assert await start_web_from_args(build_parser().parse_args([]), "0.0.0.0", 7325, "h") is None


async def test_rummy_server_refuses_a_web_port_in_use_in_words(tmp_path: Path) -> None:
    """It said "[Errno 98] error while attempting to bind on address ('127.0.0.1', 8080):
    address already in use"; now as rummy-server says it of its own port."""
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        args = build_parser().parse_args(["--web-port", str(port), "--web-host", "127.0.0.1"])
        with pytest.raises(SystemExit) as info:
            await start_web_from_args(
                args, "127.0.0.1", 7325, "h", state_dir=tmp_path, client_command=standin()
            )
    said = f"cannot listen on 127.0.0.1 port {port}: Address already in use."
    assert str(info.value) == f"rummy-server: cannot serve the web: {said}"


async def test_rummy_server_refuses_a_state_directory_it_cannot_write_in_at_start(tmp_path: Path) -> None:
    """The door started, and the first player's page failed (its directory under
    ``<state>/web`` could not be made); now the host hears of it at start, in words."""
    in_the_way = tmp_path / "a-file"
    in_the_way.write_text("")
    args = build_parser().parse_args(["--web-port", "0", "--web-host", "127.0.0.1"])
    with pytest.raises(SystemExit) as info:
        await start_web_from_args(
            args, "127.0.0.1", 7325, "h", state_dir=in_the_way, client_command=standin()
        )
    said = f"cannot keep the players' state in {in_the_way / 'web'}: Not a directory"
    assert str(info.value) == f"rummy-server: cannot serve the web: {said}"


async def test_new_sessions_from_one_address_are_rate_limited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each session is a new process: a reload loop may not start them without end."""
    monkeypatch.setattr("rummy.doors.web.server.SESSION_START_BURST", 2)
    monkeypatch.setattr("rummy.doors.web.server.SESSION_START_RATE", 0.001)
    async with await serve(tmp_path / "state") as srv:
        b = Browser(srv)
        try:
            await b.sign_in("Ann")
            gone = await b.open()
            await gone.wait_for(b"HELLO")
            await gone.ws.close()
            await eventually(lambda: srv.session_count == 0)
            first = await b.open()
            await first.wait_for(b"HELLO")
            code, reason = await (await b.open()).closed()  # a takeover counts too
            assert code == 1013 and "wait a few seconds" in reason
            assert srv.session_count == 1  # and the page that was there stays
        finally:
            await b.close()
