"""A stand-in for the game client, run by the SSH tests on the session's pty.

Usage: ssh_standin.py GAME_ADDRESS --name NAME [--exit N] [--ignore-hup] [--chatter KB]
                      [--ascii] [--four-colour] [--no-bell]

It reports, one line each (\\r\\n, the terminal is raw):
  HELLO name=.. addr=.. term=.. pid=.. ctty=yes|no options=--ascii,..|-
  STATE new|seen dir=..     (whether its RUMMY_STATE_DIR was used before)
  ENV NAME=VALUE ...        (its whole environment, values hex-encoded)
  SIZE COLSxROWS            (at start and on every SIGWINCH)
  KEY <hex>                 (each chunk of input, byte for byte)
Typing q exits with status N; k kills itself with SIGTERM. With
--ignore-hup it ignores SIGHUP and outlives its terminal. With --chatter it
then turns on the alternate screen and mouse reports, as a full-screen
program does, and writes that many KB of screen updates.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import termios
import time
import tty
from pathlib import Path


def say(text: str) -> None:
    os.write(1, text.encode() + b"\r\n")


# The real client's options that an SSH player may ask for.
CLIENT_OPTIONS = ("--ascii", "--four-colour", "--no-bell")


def given(args: argparse.Namespace, option: str) -> bool:
    return bool(getattr(args, option.removeprefix("--").replace("-", "_")))


def controlling_terminal() -> bool:
    """A session leader whose own controlling terminal is this pty, in the
    foreground: what SIGWINCH and SIGHUP delivery needs."""
    try:
        fd = os.open("/dev/tty", os.O_RDWR)
    except OSError:
        return False
    os.close(fd)
    return os.getsid(0) == os.getpid() and os.tcgetpgrp(0) == os.getpgrp()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("address")
    parser.add_argument("--name", required=True)
    parser.add_argument("--exit", type=int, default=0)
    parser.add_argument("--ignore-hup", action="store_true")
    parser.add_argument("--chatter", type=int, default=0)
    for option in CLIENT_OPTIONS:
        parser.add_argument(option, action="store_true")
    args = parser.parse_args()
    if args.ignore_hup:
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    state = Path(os.environ["RUMMY_STATE_DIR"])
    marker = state / "seen"
    seen = marker.exists()
    marker.write_text("x")

    old = termios.tcgetattr(0)
    tty.setraw(0)
    try:
        say(
            f"HELLO name={args.name} addr={args.address} term={os.environ.get('TERM')} "
            f"pid={os.getpid()} ctty={'yes' if controlling_terminal() else 'no'} "
            f"options={','.join(o for o in CLIENT_OPTIONS if given(args, o)) or '-'}"
        )
        say(f"STATE {'seen' if seen else 'new'} dir={state}")
        say("ENV " + " ".join(f"{k}={v.encode().hex()}" for k, v in sorted(os.environ.items())))
        if args.chatter:
            os.write(1, b"\x1b[?1049h\x1b[?1000h\x1b[?1006h")  # alternate screen, mouse reports
            for _ in range(args.chatter):
                os.write(1, b"\x1b[H" + b"#" * 1021)  # 1 KB screen updates

        def report_size(*_: object) -> None:
            size = os.get_terminal_size(0)
            say(f"SIZE {size.columns}x{size.lines}")

        signal.signal(signal.SIGWINCH, report_size)
        report_size()
        while True:
            try:
                data = os.read(0, 1024)
            except OSError:  # EIO: the terminal was hung up
                data = b""
            if not data:
                if args.ignore_hup:  # a stubborn program: only SIGKILL ends it
                    while True:
                        time.sleep(60)
                return 0
            say(f"KEY {data.hex()}")
            if b"q" in data:
                return args.exit
            if b"k" in data:
                os.kill(os.getpid(), signal.SIGTERM)
    finally:
        with contextlib.suppress(OSError):
            termios.tcsetattr(0, termios.TCSADRAIN, old)


if __name__ == "__main__":
    sys.exit(main())
