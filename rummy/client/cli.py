"""``rummy-client [HOST:PORT] [--name NAME] [--ascii] [--four-colour] [--no-bell] [--theme NAME]
[--bots LEVEL] [--bot-delay SECONDS] [--new]``,
``rummy-client --replay FILE``.

With an address it joins that server's lobby; without one it starts a server of
its own (forked at once, ``local.py``) and opens a game against three bots
(``--bots`` sets their level: easy, normal or hard; ``--bot-delay`` their pace), or
back at the one saved; ``--new`` gives the saved one up.
``--replay FILE`` watches a saved game (docs/RECORDS.md) again, with no server at all.

A bug must not leave a traceback over the player's terminal: what Textual would
print on the way out goes to ``client-error.log`` in the state directory, and the
player reads one sentence saying where.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import getpass
import io
import sys
import time
from pathlib import Path
from typing import Any

from rummy.protocol import (
    BOT_LEVELS,
    DEFAULT_PORT,
    NAME_LIMIT,
    BotLevel,
    GameRecordWire,
    RecordError,
    decode_record,
    parse_address,
    replay_record,
    sanitize,
)

from . import local
from .state import HOW_TO_PLAY_OFFERED, LOCAL, SeatLock, StateStore

NORMAL: tuple[BotLevel, BotLevel, BotLevel] = ("normal", "normal", "normal")  # --bots left out


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


def bot_delay(text: str) -> float:
    """Seconds a bot of the local game waits before each move: 0 (at once) to 5."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= seconds <= 5:  # (nan fails this too)
        raise argparse.ArgumentTypeError("give seconds from 0 (at once) to 5")
    return seconds


def player_name(args: argparse.Namespace, store: StateStore) -> str:
    """The name one plays under: ``--name``, else the one last played under, else the login."""
    return sanitize(args.name if args.name is not None else (store.name or login_name()), NAME_LIMIT)


def login_name() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no entry for this uid (containers)
        return "Player"


def read_record(path: Path) -> GameRecordWire:
    """The record in ``path``; ``ValueError`` with a sentence if it cannot be read, or
    does not replay to the end it records."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        record = decode_record(data)
        # Replayed here too, before Textual starts: a damaged record (a move not legal
        # where it stands, another result) found by the replay screen ended the app with
        # its sentence in client-error.log, and "stopped on an unexpected error" said.
        replay_record(record)
    except RecordError as error:
        raise ValueError(f"{path}: {error}") from None
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="rummy-client",
        description="Play Persian Rummy in the terminal. Without an address: a game against three bots.",
    )
    parser.add_argument(
        "address", nargs="?", help=f"HOST:PORT of a rummy-server (port {DEFAULT_PORT} if left out)"
    )
    parser.add_argument(
        "--name",
        help="your name at the table (remembered for next time; a saved game against bots "
        "goes on under the name it began with: see --new)",
    )
    parser.add_argument(
        "--ascii",
        action="store_true",
        help="plain ASCII only: suits as letters (c d h s), borders of + - |",
    )
    parser.add_argument(
        "--four-colour",
        action="store_true",
        help="a four-colour pack: clubs green, diamonds blue, hearts red, spades black, "
        "on the cards and wherever the log or a hint names one",
    )
    parser.add_argument("--no-bell", action="store_true", help="no terminal bell when it becomes your turn")
    parser.add_argument(
        "--theme",
        metavar="NAME",
        help="the colours, by theme: textual-light for a light terminal, ansi-dark or ansi-light for "
        "the terminal's own (remembered; while playing, ctrl+p then Theme also chooses, "
        "but not with --ascii)",
    )
    parser.add_argument(
        "--bots",
        type=bot_levels,
        metavar="LEVEL[,LEVEL,LEVEL]",
        help="the local game's bots: easy, normal (the default) or hard; one level for all three, "
        "or three for chairs 2 to 4 (a saved game goes on with its own: see --new)",
    )
    parser.add_argument(
        "--new",
        action="store_true",
        help="a new game against bots, giving up the one saved (quitting mid-game keeps it to play on)",
    )
    parser.add_argument(
        "--bot-delay",
        type=bot_delay,
        metavar="SECONDS",
        help="the local game's pace: seconds a bot waits before each move, so you can follow "
        "(default 0.8; 0: at once)",
    )
    parser.add_argument(
        "--hosted",
        action="store_true",
        help="run by a server's SSH or web door for a player far away: no game is saved to a file here",
    )
    parser.add_argument(
        "--replay",
        type=Path,
        metavar="FILE",
        help="watch a saved game again (rummy-sim --save, or w in a replay), with no server",
    )
    args = parser.parse_args(argv)
    given = (
        ("--bots", args.bots is not None),
        ("--new", args.new),
        ("--bot-delay", args.bot_delay is not None),
    )
    local_only = ", ".join(option for option, there in given if there)
    if local_only and args.address:  # a table's creator seats its bots; its host sets their pace
        parser.error(f"{local_only}: for the game against bots, not a server's table")

    if args.theme is not None:
        from textual.theme import BUILTIN_THEMES  # (only the themes: the app loads later)

        if args.theme not in BUILTIN_THEMES:
            parser.error(f"--theme: no theme {args.theme!r}; the themes: {', '.join(sorted(BUILTIN_THEMES))}")
        StateStore().theme = args.theme  # the app starts with the theme remembered

    if args.replay is not None:
        if args.address:
            parser.error("--replay plays a file: give no server address with it")
        if local_only:
            parser.error(f"{local_only}: for the game against bots, not a replay")
        try:
            record = read_record(args.replay)
        except ValueError as e:
            parser.error(str(e))
        from .app import RummyApp  # Textual loads only once the arguments are good

        title = args.replay.name + (f" ({record.table})" if record.table else "")
        store = StateStore()
        replay_app = RummyApp(
            player_name=player_name(args, store),  # one's own game, from one's own chair
            replay=record,
            replay_title=title,
            ascii=args.ascii,
            four_colour=args.four_colour,
        )
        return run(replay_app, store.directory)

    address = None
    if args.address:
        try:
            address = parse_address(args.address)
        except ValueError as e:
            parser.error(str(e))
    store = StateStore()
    name = player_name(args, store)
    if not name:
        parser.error("the name needs at least one letter or digit")
    store.name = name
    pause_collector()
    seat_lock = local_server = early = None
    if address is None:  # the game against bots: its server starts first, on the other core
        seat_lock = SeatLock(store.directory, LOCAL)
        owns = seat_lock.acquire()
        if args.new and owns:  # (not owned: another client plays the saved game; this one is new)
            try:
                local.give_up_saved_game(store.directory)
            except OSError as e:
                parser.error(f"--new: the saved game cannot be removed: {e}")
            store.forget_seat(LOCAL)
        options = {} if args.bot_delay is None else {"bot_delay": args.bot_delay}
        local_server = local.fork(local.saved_game(store.directory) if owns else None, options)
        seat = store.seat(LOCAL) if owns else None
        # The first game waits for its start until how to play has been offered (app.py).
        start = store.seen(HOW_TO_PLAY_OFFERED)
        early = local_server.connect(name, None if seat is None else seat.token, args.bots or NORMAL, start)

    from .app import RummyApp  # Textual loads only once the arguments are good

    app = RummyApp(
        player_name=name,
        address=address,
        local=address is None,
        ascii=args.ascii,
        four_colour=args.four_colour,
        bell=not args.no_bell,
        store=store,
        bot_levels=args.bots or NORMAL,
        bots_asked=args.bots is not None,
        hosted=args.hosted,
        seat_lock=seat_lock,
        local_server=local_server,
        early=early,
    )
    return run(app, store.directory)


def pause_collector() -> None:
    """Start without the cyclic garbage collector: what the start makes (Textual's
    modules, the screen's widgets) all lives on, and the collector walked it again and
    again for nothing, a tenth of the time to the first table. The app sets it going
    again as it mounts, before it draws (``RummyApp.on_mount``); ``run`` at the latest."""
    gc.disable()


def run(app: object, directory: Path, **options: Any) -> int:
    """Run ``app`` (a Textual ``App``; ``options`` for ``App.run``); on an unexpected
    error, the traceback Textual prints on its way out is written to
    ``client-error.log`` instead, and the player gets one sentence. Returns the exit
    status."""
    from textual.app import App

    assert isinstance(app, App)
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said):  # Textual draws on the terminal, not through this
            app.run(**options)
    finally:
        gc.enable()
    code = 0 if app.return_code in (None, 0) else int(app.return_code or 1)
    details = said.getvalue()
    if code and details:
        sys.stderr.write(crash_sentence(details, directory) + "\n")
    elif details:
        sys.stderr.write(details)
    return code


def crash_sentence(details: str, directory: Path) -> str:
    """Keep ``details`` (a traceback) in the state directory; say so in a sentence."""
    where = directory / "client-error.log"
    last = [line.strip() for line in details.splitlines() if line.strip()]
    kind = next(
        (line.split(":")[0].split()[-1] for line in reversed(last) if "Error" in line or "Exception" in line),
        "",
    )
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with where.open("a", encoding="utf-8") as log:
            log.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')}\n{details}\n")
        saved = f" The details are in {where}."
    except OSError:
        saved = ""
    what = f" ({kind})" if kind else ""
    return f"rummy-client stopped on an unexpected error{what}.{saved}"


if __name__ == "__main__":
    sys.exit(main())
