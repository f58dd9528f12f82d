"""The HTTP listener: pages, the per-browser identity, limits, one session per page.

Routes:
  GET  /          the game page, or the name form if this browser has no name yet;
                  /?ascii&four-colour&no-bell: with the client's options (as ssh -t HOST ascii)
  GET  /name      the name form (to play under another name), with the options' boxes
  POST /name      keep the name in this browser, then back to / with the options ticked
  GET  /ws        the game: a websocket that runs one client (see session.py);
                  /ws/ascii+no-bell: with those options
  GET  /favicon.svg, /static/...  the icon, and textual-serve's front end

``start_web_server`` puts it together and returns a handle with ``.port`` and
``close()``, like the game server's ``start_server``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import textual_serve
from aiohttp import web

from rummy.doors.client_env import (
    CLIENT_OPTIONS,
    OPTION_WORDS,
    ClientCommand,
    client_flags,
    default_client_command,
    unknown_option,
)
from rummy.doors.forker import Forker, preload_for
from rummy.doors.limits import DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_PER_ADDRESS, HANGUP_GRACE
from rummy.doors.statedir import players_root
from rummy.doors.web import page
from rummy.doors.web.identity import (
    COOKIE,
    COOKIE_MAX_AGE,
    NAME_COOKIE,
    WEB_DIR,
    BrowserId,
    clean_name,
    forget_stale,
    identity_dir,
    name_cookie_value,
    name_from_cookie,
)
from rummy.doors.web.limits import (
    DEFAULT_MAX_SESSIONS,
    HEARTBEAT,
    MAX_COLUMNS,
    MAX_MESSAGE,
    MAX_ROWS,
    SESSION_START_BURST,
    SESSION_START_RATE,
)
from rummy.doors.web.session import CLOSE_REPLACED, BrowserSession
from rummy.doors.wording import ListenError
from rummy.protocol import NAME_LIMIT
from rummy.protocol.ratelimit import TokenBucket

log = logging.getLogger(__name__)

STATIC_DIR = Path(textual_serve.__file__).parent / "static"
# Forgotten identities are looked for at start and then this often.
PRUNE_INTERVAL = 24 * 3600.0
_TRY_AGAIN_LATER = 1013
_POLICY = 1008
_GOING_AWAY = 1001


def _security_headers(response: web.StreamResponse, nonce: str | None = None) -> None:
    script = f"'self' 'nonce-{nonce}'" if nonce else "'self'"
    response.headers["Content-Security-Policy"] = (
        f"default-src 'self'; script-src {script}; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; font-src 'self'; connect-src 'self'; "
        "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    )
    response.headers["X-Content-Type-Options"] = "nosniff"
    # Not no-referrer: with it a browser sends "Origin: null" and _same_origin could not tell.
    response.headers["Referrer-Policy"] = "same-origin"
    response.headers["Cache-Control"] = "no-store"


class WebGameServer:
    """A running browser front door. ``port`` is the bound port (useful with 0)."""

    def __init__(
        self,
        game_address: str,
        state_dir: Path,
        client_command: ClientCommand,
        *,
        forker: Forker,
        max_sessions: int,
        max_per_address: int,
        idle_timeout: float,
        behind_proxy: bool,
        hangup_grace: float,
    ) -> None:
        self.game_address = game_address
        self.state_dir = state_dir
        self._client_command = client_command
        self.forker = forker
        self.max_sessions = max(1, max_sessions)
        self.max_per_address = max(1, max_per_address)
        self.idle_timeout = idle_timeout
        self.behind_proxy = behind_proxy
        self.hangup_grace = hangup_grace
        self._sessions: dict[BrowserSession, tuple[str, str]] = {}  # -> (address, identity key)
        self._by_identity: dict[str, BrowserSession] = {}
        self._per_address: Counter[str] = Counter()
        self._starts: dict[str, TokenBucket] = {}
        self._closing = False
        self._runner: web.AppRunner | None = None
        self._prune_task: asyncio.Task[None] | None = None
        self.host = ""
        self.port = 0

    # -- what tests and the host may look at ---------------------------------------

    @property
    def session_count(self) -> int:
        return len(self._sessions)

    @property
    def client_pids(self) -> list[int]:
        return [pid for s in self._sessions if (pid := s.pid) is not None]

    # -- start and stop ------------------------------------------------------------

    def make_app(self) -> web.Application:
        app = web.Application(client_max_size=16 * 1024)  # the name form is all anyone posts
        app.add_routes(
            [
                web.get("/", self._index),
                web.get("/name", self._name_form),
                web.post("/name", self._set_name),
                web.get("/ws", self._websocket),
                web.get("/ws/{options}", self._websocket),
                web.get("/favicon.svg", self._favicon),
                web.get("/favicon.ico", self._favicon),
                web.static("/static", STATIC_DIR, follow_symlinks=False),
            ]
        )
        return app

    async def start(self, host: str, port: int) -> None:
        self._runner = web.AppRunner(self.make_app(), access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port, reuse_address=True)
        await site.start()
        address = self._runner.addresses[0]
        self.host, self.port = str(address[0]), int(address[1])
        self._prune_task = asyncio.get_running_loop().create_task(self._prune_forever())

    async def close(self) -> None:
        """Stop listening, end every session (each client is hung up and
        reaped), and return once all of that is done."""
        self._closing = True
        if self._prune_task is not None:
            self._prune_task.cancel()
        sessions = list(self._sessions)
        for session in sessions:
            session.end(_GOING_AWAY, "The server is shutting down.")
        for session in sessions:
            await session.wait()
        if self._runner is not None:
            await self._runner.cleanup()
        await self.forker.close()

    async def __aenter__(self) -> WebGameServer:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def _prune_forever(self) -> None:
        while True:
            removed = await asyncio.to_thread(forget_stale, self.state_dir)
            if removed:
                log.info("forgot %d browser identities unused for 400 days", removed)
            await asyncio.sleep(PRUNE_INTERVAL)

    # -- who is asking -------------------------------------------------------------

    def _address(self, request: web.Request) -> str:
        if self.behind_proxy:
            # The proxy appends the address it saw last; anything before it came from the browser.
            forwarded = request.headers.get("X-Forwarded-For", "").rsplit(",", 1)[-1].strip()
            if forwarded:
                return forwarded
        return request.remote or "?"

    def _secure(self, request: web.Request) -> bool:
        if self.behind_proxy and request.headers.get("X-Forwarded-Proto", "").lower() == "https":
            return True
        return request.secure

    @staticmethod
    def _same_origin(request: web.Request) -> bool:
        """A page of another site must not drive a game with this browser's cookie.
        A browser says where a request comes from: ``Sec-Fetch-Site`` on a form post
        (every current browser), ``Origin`` on a websocket, which must then name the
        host the request was sent to (its name alone when a proxy dropped the port
        from ``Host``, as nginx's ``$host`` does)."""
        site = request.headers.get("Sec-Fetch-Site")
        if site is not None:
            return site in ("same-origin", "none")
        origin = request.headers.get("Origin")
        if origin is None:
            return True  # not a browser: it has no cookie of anyone else's to use
        sent_to = urlsplit(origin)
        host = request.host
        return sent_to.netloc == host or (":" not in host.rsplit("]", 1)[-1] and sent_to.hostname == host)

    def _identify(self, request: web.Request, response: web.StreamResponse) -> BrowserId:
        """The browser's id, made now if it has none; the cookie is set again on
        every visit so that it lasts 400 days from the last one."""
        browser = BrowserId.parse(request.cookies.get(COOKIE)) or BrowserId.new()
        response.set_cookie(
            COOKIE,
            browser.secret,
            max_age=COOKIE_MAX_AGE,
            path="/",
            httponly=True,
            samesite="Strict",
            secure=self._secure(request),
        )
        return browser

    # -- pages ---------------------------------------------------------------------

    async def _index(self, request: web.Request) -> web.StreamResponse:
        name = name_from_cookie(request.cookies.get(NAME_COOKIE))
        words = list(request.query)
        unknown = unknown_option(words)
        if unknown is not None:
            return await self._name_form(request, _unknown_option_text(unknown))
        if name is None:
            return await self._name_form(request)
        nonce = secrets.token_urlsafe(16)
        response = web.Response(text=page.game_page(name, nonce, _canonical(words)), content_type="text/html")
        self._identify(request, response)
        _security_headers(response, nonce)
        return response

    async def _name_form(self, request: web.Request, error: str = "") -> web.StreamResponse:
        name = name_from_cookie(request.cookies.get(NAME_COOKIE)) or ""
        ticked = _canonical([w for w in request.query if w.lower() in CLIENT_OPTIONS])
        response = web.Response(
            text=page.name_page(name, error, NAME_LIMIT, ticked),
            content_type="text/html",
            status=400 if error else 200,
        )
        self._identify(request, response)
        _security_headers(response)
        return response

    async def _set_name(self, request: web.Request) -> web.StreamResponse:
        if not self._same_origin(request):
            raise web.HTTPForbidden(text="This form must be sent from this server's own page.")
        form = await request.post()
        raw = form.get("name")
        name = clean_name(raw if isinstance(raw, str) else None)
        if name is None:
            return await self._name_form(request, "Choose a name with at least one letter in it.")
        # The options ticked go into the game page's address, where the player can see
        # them, keep them as a bookmark, and take them out again.
        ticked = _canonical([w for w in form if w.lower() in CLIENT_OPTIONS])
        location = "/?" + "&".join(ticked) if ticked else "/"
        response = web.Response(status=303, headers={"Location": location})
        response.set_cookie(
            NAME_COOKIE,
            name_cookie_value(name),
            max_age=COOKIE_MAX_AGE,
            path="/",
            samesite="Strict",
            secure=self._secure(request),
        )
        self._identify(request, response)
        return response

    async def _favicon(self, request: web.Request) -> web.StreamResponse:
        response = web.Response(body=page.FAVICON_SVG, content_type="image/svg+xml")
        response.headers["Cache-Control"] = "max-age=86400"
        return response

    # -- the game ------------------------------------------------------------------

    def _refusal(self, address: str, browser: BrowserId) -> str | None:
        """Why a new session from ``address`` may not start now, or None."""
        if self._closing:
            return "The server is shutting down."
        # A page that takes the place of this browser's other page needs no new place;
        # it is a new process all the same, so the start rate counts it.
        if browser.key_id not in self._by_identity:
            if len(self._sessions) >= self.max_sessions:
                return f"The server is full ({self.max_sessions} players in browsers); try again later."
            if self._per_address[address] >= self.max_per_address:
                return f"Too many games from your address (at most {self.max_per_address}); close one first."
        bucket = self._starts.get(address)
        if bucket is None:
            if len(self._starts) > 4096:
                self._starts.clear()  # forget old addresses rather than grow without bound
            bucket = self._starts[address] = TokenBucket(SESSION_START_RATE, SESSION_START_BURST)
        if not bucket.allow():
            return "Too many new games from your address; wait a few seconds and reload."
        return None

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        if not self._same_origin(request):
            log.warning(
                "refused a game socket from another site: Origin %r, Host %r, Sec-Fetch-Site %r",
                request.headers.get("Origin"),
                request.host,
                request.headers.get("Sec-Fetch-Site"),
            )
            raise web.HTTPForbidden(text="The game must be opened from this server's own page.")
        browser = BrowserId.parse(request.cookies.get(COOKIE))
        name = name_from_cookie(request.cookies.get(NAME_COOKIE))
        address = self._address(request)
        ws = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=MAX_MESSAGE)
        await ws.prepare(request)
        if browser is None or name is None:
            await ws.close(code=_POLICY, message=b"This browser has no name here yet: reload the page.")
            return ws
        words = [w for w in request.match_info.get("options", "").split("+") if w]
        unknown = unknown_option(words)
        if unknown is not None:
            await ws.close(code=_POLICY, message=_unknown_option_text(unknown).encode()[:123])
            return ws
        refusal = self._refusal(address, browser)
        if refusal is not None:
            log.warning("refused a web session from %s: %s", address, refusal)
            await ws.close(code=_TRY_AGAIN_LATER, message=refusal.encode()[:123])
            return ws
        size = (
            _query_int(request, "width", 80, MAX_COLUMNS),
            _query_int(request, "height", 24, MAX_ROWS),
        )
        try:
            state_dir = identity_dir(self.state_dir, browser)
        except OSError as exc:
            log.error("web session from %s: cannot make its state directory: %s", address, exc)
            await ws.close(code=1011, message=b"The server cannot keep your seat; please tell the host.")
            return ws
        session = BrowserSession(
            ws,
            [*self._client_command(self.game_address, name), *client_flags(words)],
            state_dir,
            size,
            forker=self.forker,
            idle_timeout=self.idle_timeout,
            hangup_grace=self.hangup_grace,
            label=f"{address} {browser.key_id[:12]}",
        )
        older = self._by_identity.get(browser.key_id)
        self._sessions[session] = (address, browser.key_id)
        self._by_identity[browser.key_id] = session
        self._per_address[address] += 1
        try:
            if older is not None:
                # One client per browser: two would fight over the seat and share a state
                # directory. The older page is told why, and its client has ended (and
                # let go of the state directory) before the new one starts.
                older.end(CLOSE_REPLACED, "This game was opened in another tab or window.")
                await older.wait()
            await session.run()
        finally:
            self._forget(session)
        return ws

    def _forget(self, session: BrowserSession) -> None:
        address, key_id = self._sessions.pop(session)
        if self._by_identity.get(key_id) is session:
            del self._by_identity[key_id]
        self._per_address[address] -= 1
        if self._per_address[address] <= 0:
            del self._per_address[address]


def _canonical(words: list[str]) -> list[str]:
    """Known option words once each, as the player is told them, in their order."""
    flags = set(client_flags(words))
    return [w for w in OPTION_WORDS if CLIENT_OPTIONS[w] in flags]


def _unknown_option_text(word: str) -> str:
    return f"The game takes no {word[:40]!r}; it takes: {', '.join(OPTION_WORDS)}."


def _query_int(request: web.Request, key: str, default: int, limit: int) -> int:
    with contextlib.suppress(ValueError):
        value = int(request.query.get(key, default))
        if value > 0:
            return min(value, limit)
    return default


async def start_web_server(
    host: str | None,
    port: int,
    game_address: str,
    state_dir: str | Path,
    client_command: ClientCommand | None = None,
    *,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
    max_per_address: int = DEFAULT_MAX_PER_ADDRESS,
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    behind_proxy: bool = False,
    hangup_grace: float = HANGUP_GRACE,
) -> WebGameServer:
    """Serve the game client to browsers on ``host:port``.

    Each page's session runs ``client_command(game_address, name)`` (by
    default ``python -m rummy.client.cli HOST:PORT --name NAME``) on its own
    pty, with ``RUMMY_STATE_DIR`` set to its browser's own directory under
    ``<state_dir>/web``. ``max_sessions`` in all, ``max_per_address`` from one
    address, ``idle_timeout`` seconds without a key pressed (0: never).
    ``behind_proxy``: take the player's address and scheme from the
    ``X-Forwarded-For`` and ``X-Forwarded-Proto`` headers of a reverse proxy.
    """
    players_root(Path(state_dir), WEB_DIR)  # StateDirError now, rather than at a player's page
    command = client_command or default_client_command
    # The clients' pre-imported parent, ready before the first player comes.
    forker = Forker(preload_for(command(game_address, "player")), home=Path(state_dir))
    await forker.start()
    server = WebGameServer(
        game_address,
        Path(state_dir),
        command,
        forker=forker,
        max_sessions=max_sessions,
        max_per_address=max_per_address,
        idle_timeout=idle_timeout,
        behind_proxy=behind_proxy,
        hangup_grace=hangup_grace,
    )
    try:
        await server.start(host or "", port)
    except BaseException as error:
        await forker.close()
        if isinstance(error, OSError):
            raise ListenError.of(host or "", port, error) from error
        raise
    log.info("web on port %d, game at %s", server.port, game_address)
    return server
