"""Open files: rummy-server raises its soft limit to the hard one, keeps its connection
cap below it, refuses newcomers past it with a clear error, and does not log in a loop."""

from __future__ import annotations

import asyncio
import re
import resource
import sys
from pathlib import Path

import msgpack
import pytest

from rummy.protocol import errors
from rummy.server.fdlimit import BACKLOG, MIN_BACKLOG, OTHER_FILES, connection_cap, listen_backlog

SOFT, HARD = 200, 600  # the server starts with these; it may use HARD
CAP = HARD - OTHER_FILES - listen_backlog(HARD)


def test_the_cap_fits_below_the_open_file_limit() -> None:
    assert connection_cap(5000, None) == 5000
    assert connection_cap(5000, 1024) == 1024 - OTHER_FILES - BACKLOG
    assert connection_cap(100, 1_000_000) == 100
    assert connection_cap(5000, 1024, spare=300) == 1024 - OTHER_FILES - BACKLOG - 300
    assert connection_cap(5000, 10) == 1  # never none at all


def test_a_low_open_file_limit_takes_a_smaller_backlog_not_the_connections() -> None:
    """At a hard limit of 300 the backlog of 256 took every file the server had beside
    its own, and it let in one connection; the backlog now takes a third of them."""
    assert listen_backlog(None) == listen_backlog(1024) == BACKLOG
    assert listen_backlog(300) == (300 - OTHER_FILES) // 3
    assert connection_cap(5000, 300) == 300 - OTHER_FILES - (300 - OTHER_FILES) // 3 == 158
    assert listen_backlog(70) == MIN_BACKLOG


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (SOFT, HARD))


async def _answer(reader: asyncio.StreamReader) -> str | None:
    """The error code the server sent first, or None if it kept quiet (let in)."""
    try:
        header = await asyncio.wait_for(reader.readexactly(4), 2.0)
    except TimeoutError:
        return None
    except (asyncio.IncompleteReadError, ConnectionError):
        return "closed"
    body = await reader.readexactly(int.from_bytes(header, "big"))
    return str(msgpack.unpackb(body).get("code"))


@pytest.mark.skipif(resource.getrlimit(resource.RLIMIT_NOFILE)[1] < HARD, reason="hard limit too low")
async def test_past_the_open_file_limit_newcomers_are_refused_clearly(tmp_path: Path) -> None:
    """At a soft limit of 1,024 the server ran out after about 1,000 connections, logged
    38,700 accept errors in 8 s, and newcomers hung without a word."""
    log = tmp_path / "server.log"
    with log.open("wb") as stderr:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "rummy.server.cli", "--host", "127.0.0.1", "--port", "0",
            "--db", str(tmp_path / "rummy.db"), "--log-level", "info", "--max-per-address", "10000",
            stdout=asyncio.subprocess.PIPE, stderr=stderr, preexec_fn=_limits,
        )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()
        found = re.search(r"listening on [0-9.]+:(\d+)", line)
        assert found, line
        port = int(found.group(1))
        limits = Path(f"/proc/{proc.pid}/limits").read_text()
        assert re.search(rf"Max open files\s+{HARD}\s+{HARD}", limits), limits
        streams = []
        for _ in range(CAP + 60):
            streams.append(await asyncio.open_connection("127.0.0.1", port))
        answers = await asyncio.gather(*(_answer(r) for r, _ in streams))
        assert answers.count(None) == CAP  # let in, waiting for their hello
        assert answers.count(errors.TOO_MANY_CONNECTIONS) == 60  # told, not left hanging
        for _, writer in streams:
            writer.close()
    finally:
        proc.terminate()
        await proc.wait()
    text = log.read_text()
    assert f"at most {CAP} connections" in text
    assert "Traceback" not in text
    assert len(text.splitlines()) < 10  # one line about refusals, not one per refusal
