"""The pages a browser gets: the game page, the name form, the favicon.

The game page is textual-serve's front end (its ``textual.js``: xterm.js with
the glue that speaks to ``/ws``) in a page of ours: everything it loads comes
from this server, nothing from the internet (textual-serve's own page fetches
a font from Google; we serve the copy its wheel ships).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from string import Template

TITLE = "Persian Rummy"
FONT = "/static/fonts/RobotoMono-VariableFont_wght.ttf"
# The smallest text the page shrinks to so that the game fits a small window; below
# it a player would rather zoom or turn the phone than squint.
MIN_FONT_SIZE = 8
# The least the client draws on (its MIN_WIDTH, MIN_HEIGHT; not imported, since that
# would load Textual into the server).
MIN_WIDTH, MIN_HEIGHT = 80, 24
# How long the window must keep its new size before the text is refitted to it: a
# window dragged bigger is resized many times a second, and each refit is a new client.
REFIT_DELAY_MS = 500

_STYLE = """
@font-face { font-family: "Roboto Mono"; src: url("$font") format("truetype"); font-weight: 100 700; }
html, body { margin: 0; height: 100%; background: #0c181f; color: #e8eef2;
  font-family: "Roboto Mono", Menlo, monospace; }
"""

# What both pages begin with: what the page is, and its icon.
_HEAD = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>$title</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
"""

_GAME = Template(
    _HEAD
    + """<link rel="preload" href="$font" as="font" type="font/ttf" crossorigin>
<link rel="stylesheet" href="/static/css/xterm.css">
<style>
"""
    + _STYLE
    + """
#terminal { position: absolute; inset: 0; }
.notice { position: absolute; inset: 0; display: flex; flex-direction: column; align-items: center;
  justify-content: center; gap: 1em; background: #0c181fe6; z-index: 10; text-align: center; }
body.-first-byte #starting { display: none; }
#ended { display: none; }
body.-closed #ended { display: flex; }
button, a.button { font: inherit; padding: 0.6em 1.6em; border: none; background: #5e0ba7; color: #fff;
  cursor: pointer; text-decoration: none; }
a { color: #9fd3ff; }
</style>
<script nonce="$nonce">
// textual.js shows only that the connection closed; keep the reason the server gave.
// And it leaves the keyboard elsewhere: give it to the terminal once the game is there.
const NativeWebSocket = window.WebSocket;
let gameSocket = null;  // the socket of the terminal on the page (a refit retires it)
window.WebSocket = class extends NativeWebSocket {
  constructor(url, protocols) {
    super(url, protocols);
    gameSocket = this;
    this.addEventListener("message", () => {
      // (Only from its own socket: the terminal says it has the focus on it at once.)
      if (document.activeElement === document.body && this === gameSocket) {
        document.querySelector("#terminal textarea")?.focus();
      }
    });
    // Added before textual.js's own listener, so that a socket closed for a refit
    // (below) keeps it from showing "The game has ended".
    this.addEventListener("close", (event) => {
      if (this.refitted) return event.stopImmediatePropagation();
      if (event.reason) document.getElementById("reason").textContent = event.reason;
    });
  }
};
</script>
<script src="/static/js/textual.js"></script>
</head>
<body>
<div id="terminal" class="textual-terminal" data-font-size="$font_size"></div>
<div id="starting" class="notice"><p>Starting the game for $name&hellip;</p></div>
<div id="ended" class="notice">
  <p id="reason">The game has ended.</p>
  <button id="again" type="button">Play again</button>
  <p><a href="$name_link">Play under another name, or with other options</a></p>
</div>
<script nonce="$nonce">
// The game's socket is on this page's own host, with TLS when the page has it
// (so it works the same behind an HTTPS reverse proxy).
const scheme = location.protocol === "https:" ? "wss://" : "ws://";
// The client's options ticked (the page's address, /?ascii) are in the socket's path.
document.getElementById("terminal").dataset.sessionWebsocketUrl = scheme + location.host + "$ws_path";
document.getElementById("again").addEventListener("click", () => location.reload());

// xterm.js draws at one font size, and the game needs $columns x $rows cells: at
// $font_size px a phone or a small window got "This terminal is 46x29... too small"
// when smaller text would have fitted. So the text shrinks, before the terminal is
// made, to the largest size at which $columns x $rows fit, down to $min_font_size px.
function cellSize(px) {
  // Measured as xterm.js measures its cell: 32 W's in its font, whole device pixels.
  const probe = document.createElement("span");
  probe.style.cssText = "position:absolute;visibility:hidden;white-space:pre;line-height:normal;" +
    "font-family:'Roboto Mono', Monaco, 'Courier New', monospace;font-size:" + px + "px";
  probe.textContent = "W".repeat(32);
  document.body.appendChild(probe);
  const box = probe.getBoundingClientRect();
  probe.remove();
  const dpr = window.devicePixelRatio || 1;
  return [Math.floor(box.width / 32 * dpr) / dpr, Math.floor(box.height * dpr) / dpr];
}
function fittingFontSize(element) {
  for (let px = $font_size; px > $min_font_size; px--) {
    const [width, height] = cellSize(px);
    if (element.clientWidth / width >= $columns && element.clientHeight / height >= $rows) return px;
  }
  return $min_font_size;
}
const startTerminal = window.onload;  // textual.js makes its terminal then
window.onload = async (event) => {
  const terminal = document.getElementById("terminal");
  await document.fonts.load("$font_size" + "px 'Roboto Mono'").catch(() => null);
  terminal.dataset.fontSize = fittingFontSize(terminal);
  if (startTerminal) startTerminal(event);
};

// When the window is resized (or a tablet turned), textual.js fits the terminal's
// columns and rows to it, but at the font size it was made with: a smaller window got
// "too small", a larger one kept the small text. It takes a font size only when it makes
// a terminal (data-font-size), so when the window has settled at a size that wants
// another font size, the terminal is made anew at that size, with a new socket, which
// the server takes as a reload: the same seat, a new client, and the old socket closed.
// On a touch screen a window that changes its height alone is the on-screen keyboard
// coming or going: a new terminal would take the focus, and so the keyboard, away.
const touch = window.matchMedia("(pointer: coarse)").matches;
let lastWidth = window.innerWidth;  // the window's, when it last settled
let refitTimer = 0;
window.addEventListener("resize", () => {
  clearTimeout(refitTimer);
  refitTimer = setTimeout(refit, $refit_delay);
});
function refit() {
  const old = document.getElementById("terminal");
  const px = fittingFontSize(old);
  const turned = window.innerWidth !== lastWidth;
  lastWidth = window.innerWidth;
  if (!startTerminal || !gameSocket || document.body.classList.contains("-closed")) return;
  if (String(px) === old.dataset.fontSize || (touch && !turned)) return;
  const terminal = old.cloneNode(false);  // its id, class, and socket's address
  terminal.classList.remove("-connected");
  terminal.dataset.fontSize = px;
  const retired = gameSocket;
  retired.refitted = true;
  old.replaceWith(terminal);
  // Makes a terminal in every .textual-terminal (now only the new one), and its socket.
  // The old socket stays open until the server has the new one: the new one then takes
  // the old one's place, as a reload does, rather than asking for a place of its own.
  startTerminal();
  gameSocket.addEventListener("close", () => retired.close());  // if the new one is refused
}
</script>
</body>
</html>
"""
)

_NAME = Template(
    _HEAD
    + """<style>
"""
    + _STYLE
    + """
main { max-width: 34em; margin: 0 auto; padding: 3em 1em; line-height: 1.5; }
h1 { font-size: 1.5em; }
label { display: block; margin: 1.5em 0 0.5em; }
input { font: inherit; font-size: 1.2em; padding: 0.4em; width: 100%; box-sizing: border-box;
  background: #12232d; color: inherit; border: 1px solid #4a6a7d; }
button { font: inherit; margin-top: 1em; padding: 0.6em 1.6em; border: none; background: #5e0ba7;
  color: #fff; cursor: pointer; }
.error { color: #ff9d9d; }
.small { color: #9fb3bf; font-size: 0.9em; }
fieldset { margin-top: 1.5em; border: 1px solid #4a6a7d; }
fieldset label { display: flex; gap: 0.6em; align-items: baseline; margin: 0.5em 0; }
fieldset input { width: auto; flex: none; }
</style>
</head>
<body>
<main>
<h1>$title</h1>
<form method="post" action="/name">
  <label for="name">Your name at the table</label>
  <input id="name" name="name" maxlength="$limit" value="$name" autofocus required autocomplete="nickname">
  <fieldset>
    <legend>Options</legend>
$options
  </fieldset>
  <p class="error">$error</p>
  <button type="submit">Play</button>
</form>
<p class="small">This browser keeps a private key to your seat: if the page closes, open it again in
the same browser to get your seat back. Another browser, a private window or clearing cookies starts
afresh.</p>
</main>
</body>
</html>
"""
)

# A card with a heart on green felt; drawn with shapes so no font is needed.
FAVICON_SVG = b"""<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="6" fill="#1d6b3a"/>
<rect x="7" y="3" width="18" height="26" rx="3" fill="#fff" stroke="#0c181f" stroke-width="1"/>
<path d="M16 23 L10 16.5 A3.6 3.6 0 0 1 16 11.5 A3.6 3.6 0 0 1 22 16.5 Z" fill="#c8102e"/>
</svg>
"""


# The client's options a player may tick (rummy.doors.client_env.OPTION_WORDS), and
# what each does, in a player's words.
OPTIONS = {
    "ascii": "Plain ASCII cards (10h, Qs), for a font without the suits' symbols",
    "four-colour": "A colour for each suit",
    "no-bell": "No bell when it becomes your turn",
}


def _options_query(options: Sequence[str]) -> str:
    return "?" + "&".join(options) if options else ""


def game_page(name: str, nonce: str, options: Sequence[str] = (), font_size: int = 16) -> str:
    """The game; ``options``: the client's option words asked for (known ones only)."""
    return _GAME.substitute(
        title=TITLE,
        font=FONT,
        nonce=nonce,
        name=html.escape(name),
        ws_path="/ws/" + "+".join(options) if options else "/ws",
        name_link="/name" + _options_query(options),
        font_size=font_size,
        min_font_size=MIN_FONT_SIZE,
        columns=MIN_WIDTH,
        rows=MIN_HEIGHT,
        refit_delay=REFIT_DELAY_MS,
    )


def name_page(name: str = "", error: str = "", limit: int = 24, ticked: Sequence[str] = ()) -> str:
    """The name form; ``ticked``: the options whose boxes are ticked."""
    boxes = "\n".join(
        f'    <label><input type="checkbox" name="{word}"{" checked" * (word in ticked)}> {text}</label>'
        for word, text in OPTIONS.items()
    )
    return _NAME.substitute(
        title=TITLE,
        font=FONT,
        name=html.escape(name),
        error=html.escape(error),
        limit=limit,
        options=boxes,
    )
