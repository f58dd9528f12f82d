"""``rummy-client [HOST:PORT] [--name NAME] [--ascii] [--bots LEVEL]``.

With an address it joins that server's lobby; without one it starts a server in
this process and opens a game against three bots at once (``--bots`` sets their
level: easy, normal or hard).
"""

from __future__ import annotations

import argparse
import getpass
import sys

from rummy.protocol import BOT_LEVELS, DEFAULT_PORT, NAME_LIMIT, BotLevel, sanitize

from .state import StateStore


def parse_address(text: str) -> tuple[str, int]:
    """``host:port``, ``host`` (the default port) or ``[v6 address]:port``."""
    text = text.strip()
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    else:
        host, port_text = text, ""
    if not host:
        raise ValueError(f"{text!r} has no host name: give it as host:port, e.g. localhost:{DEFAULT_PORT}")
    if not port_text:
        return host, DEFAULT_PORT
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ValueError(f"{port_text!r} is not a port number (1 to 65535)")
    return host, int(port_text)


def bot_levels(text: str) -> tuple[BotLevel, BotLevel, BotLevel]:
    """``hard`` (all three bots) or ``easy,normal,hard`` (chairs 2, 3 and 4)."""
    words = [w.strip().lower() for w in text.split(",")]
    levels: list[BotLevel] = []
    for word in words:
        level = next((lv for lv in BOT_LEVELS if lv == word), None)
        if level is None:
            raise argparse.ArgumentTypeError(f"{word!r} is not a level: easy, normal or hard")
        levels.append(level)
    if len(levels) == 1:
        levels *= 3
    if len(levels) != 3:
        raise argparse.ArgumentTypeError("give one level, or three separated by commas")
    return levels[0], levels[1], levels[2]


def login_name() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no entry for this uid (containers)
        return "Player"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="rummy-client",
        description="Play Persian Rummy in the terminal. Without an address: a game against three bots.",
    )
    parser.add_argument(
        "address", nargs="?", help=f"HOST:PORT of a rummy-server (port {DEFAULT_PORT} if left out)"
    )
    parser.add_argument("--name", help="your name at the table (remembered for next time)")
    parser.add_argument(
        "--ascii", action="store_true", help="draw suits as letters (c d h s) instead of symbols"
    )
    parser.add_argument(
        "--bots",
        type=bot_levels,
        default=("normal", "normal", "normal"),
        metavar="LEVEL[,LEVEL,LEVEL]",
        help="the local game's bots: easy, normal (the default) or hard; one level for all three, "
        "or three for chairs 2 to 4",
    )
    args = parser.parse_args(argv)
    if args.address and args.bots != ("normal", "normal", "normal"):
        parser.error("--bots is for the local game: at a server, the table's creator seats the bots")

    address = None
    if args.address:
        try:
            address = parse_address(args.address)
        except ValueError as e:
            parser.error(str(e))
    store = StateStore()
    name = sanitize(args.name if args.name is not None else (store.name or login_name()), NAME_LIMIT)
    if not name:
        parser.error("the name needs at least one letter or digit")
    store.name = name

    from .app import RummyApp  # Textual loads only once the arguments are good

    app = RummyApp(
        player_name=name,
        address=address,
        local=address is None,
        ascii=args.ascii,
        store=store,
        bot_levels=args.bots,
    )
    app.run()
    return 0 if app.return_code in (None, 0) else app.return_code


if __name__ == "__main__":
    sys.exit(main())
