"""Start-up: a bad record is set aside and the rest is served; a database that cannot be
served is refused in one sentence, never with a traceback."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from rummy.net import Client
from rummy.protocol import PROTOCOL_VERSION, Hello, Welcome, encode
from rummy.protocol.address import parse_address
from rummy.server import ServerOptions, cli, start_server
from rummy.server.storage import Storage, StorageError

from .game_helpers import FAST, close_all, play, table_of_four

GAME_OF_TABLE = "game_id IN (SELECT id FROM games WHERE table_id=?)"
CORRUPTIONS = {
    "move not JSON": f"UPDATE moves SET move='{{not json' WHERE {GAME_OF_TABLE}",
    "move not a move": f"""UPDATE moves SET move='{{"type": "fly"}}' WHERE {GAME_OF_TABLE}""",
    "chair 9": "UPDATE chairs SET chair=9 WHERE table_id=? AND chair=3",
    "seed not a number": "UPDATE games SET seed='abc' WHERE table_id=?",
    "options not JSON": "UPDATE tables SET options='{{' WHERE id=?",
    "name not text": "UPDATE chairs SET name=x'00ff' WHERE table_id=? AND chair=0",
    "played by nobody known": f"UPDATE moves SET auto='ghost' WHERE {GAME_OF_TABLE}",
}


async def _tables_in_play(db: Path, count: int) -> tuple[list[int], list[str]]:
    """``count`` tables of Ann and three bots, each game a few moves in; their ids and
    Ann's tokens."""
    server = await start_server(db_path=db, **FAST)
    ids, tokens = [], []
    try:
        for _ in range(count):
            clients, table_tokens, table_id = await table_of_four(server, names=("Ann",), bots=3)
            await play(clients[0], stop_after=3)
            ids.append(table_id)
            tokens.append(table_tokens[0])
            await close_all(clients)
    finally:
        await server.close()
    return ids, tokens


async def test_bad_records_are_set_aside_and_the_rest_is_served(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """One bad row (a move that is not JSON, a chair 9, a seed that is not a number...)
    stopped the whole server at start; now that table is left out with one log line
    naming it and why, and every other table is served."""
    db = tmp_path / "rummy.db"
    ids, tokens = await _tables_in_play(db, len(CORRUPTIONS) + 1)
    with sqlite3.connect(db) as con:
        for table_id, statement in zip(ids, CORRUPTIONS.values(), strict=False):
            assert con.execute(statement, (table_id,)).rowcount > 0
    good, good_token = ids[-1], tokens[-1]

    with caplog.at_level(logging.INFO, logger="rummy"):
        server = await start_server(db_path=db, **FAST)
    try:
        assert {t.id for t in server.open_tables()} == {good}
        for table_id, what in zip(ids, CORRUPTIONS, strict=False):
            lines = [
                r.getMessage() for r in caplog.records if f"table {table_id} set aside" in r.getMessage()
            ]
            assert len(lines) == 1, (what, lines)
        ann = await Client.connect(server.host, server.port)
        welcome = await ann.request(Hello, version=PROTOCOL_VERSION, name="Ann", token=good_token)
        assert isinstance(welcome, Welcome) and welcome.table_id == good
        await ann.until(lambda c: set(c.lobby) == {good})
        await ann.close()
    finally:
        await server.close()
    with sqlite3.connect(db) as con:  # the bad rows are kept for the host to look at
        assert con.execute("SELECT count(*) FROM tables WHERE closed IS NULL").fetchone()[0] == len(ids)


# --- a database that cannot be served -------------------------------------------------


def _serve(db: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rummy.server.cli", "--host", "127.0.0.1", "--port", "0", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def _assert_refused_in_one_sentence(result: subprocess.CompletedProcess[str], db: Path, says: str) -> None:
    assert result.returncode != 0, result.stdout
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("rummy-server: cannot start:") and str(db) in lines[0]
    assert says in lines[0]


def _real_database(db: Path) -> None:
    """A good SQLite file of a few dozen pages (so that half of it is a broken one)."""
    with contextlib.closing(sqlite3.connect(db)) as con:
        con.execute("CREATE TABLE moves (game_id INTEGER, n INTEGER, move TEXT)")
        con.executemany("INSERT INTO moves VALUES (1, ?, ?)", [(n, "x" * 200) for n in range(500)])
        con.commit()


@pytest.mark.parametrize("kind", ["text", "truncated", "directory"])
def test_a_database_that_is_not_sqlite_or_is_damaged_is_refused_in_one_sentence(
    tmp_path: Path, kind: str
) -> None:
    db = tmp_path / "rummy.db"
    if kind == "text":
        db.write_text("these are my notes, not a database\n" * 100)
        says = "not a SQLite database"
    elif kind == "truncated":
        _real_database(db)
        data = db.read_bytes()
        db.write_bytes(data[: len(data) // 2])
        says = "damaged"
    else:
        db.mkdir()
        says = "is a directory"
    _assert_refused_in_one_sentence(_serve(db), db, says)


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[None]:
    """Make ``path`` (a file or a directory) unwritable, even for root: the mode bits
    for anyone else, the immutable attribute for root (who ignores mode bits)."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    try:
        subprocess.run(["chattr", "+i", str(path)], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("running as root where chattr cannot make a file read-only")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


@pytest.mark.parametrize("kind", ["file", "directory", "new file in directory"])
def test_a_read_only_database_or_directory_is_refused_in_one_sentence(tmp_path: Path, kind: str) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    db = folder / "rummy.db"
    if kind != "new file in directory":
        _real_database(db)
    with read_only(db if kind == "file" else folder):
        result = _serve(db)
    _assert_refused_in_one_sentence(result, db if kind == "file" else folder, "read-only")


def test_storage_says_why_it_cannot_open(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    db.write_bytes(b"\x00" * 4096)
    with pytest.raises(StorageError, match="not a SQLite database"):
        Storage(db)


async def test_a_database_another_server_serves_is_refused_in_one_sentence(tmp_path: Path) -> None:
    """A second rummy-server on the same --db (two on their own ports, both on the default
    database) was let in: both restored the same games, and the one whose players were
    elsewhere closed their table as deserted under the other one's players."""
    db = tmp_path / "rummy.db"

    async def first() -> asyncio.subprocess.Process:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "rummy.server.cli", "--host", "127.0.0.1", "--port", "0", "--db", str(db),
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        assert proc.stdout is not None
        assert b"listening on" in await asyncio.wait_for(proc.stdout.readline(), 30)
        return proc

    proc = await first()
    try:
        second = await asyncio.to_thread(_serve, db)
    finally:
        proc.terminate()
        await proc.wait()
    _assert_refused_in_one_sentence(second, db, "is in use by another rummy-server")
    proc = await first()  # once the first has stopped, the database is free again
    proc.terminate()
    await proc.wait()


async def test_a_port_in_use_is_refused_in_one_sentence(tmp_path: Path) -> None:
    server = await start_server(**FAST)
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "rummy.server.cli", "--host", server.host, "--port", str(server.port),
            "--db", str(tmp_path / "rummy.db"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        _, err = await asyncio.wait_for(proc.communicate(), 60)
    finally:
        await server.close()
    assert proc.returncode != 0
    assert b"Traceback" not in err
    last = err.decode().strip().splitlines()[-1]
    assert last.startswith("rummy-server: cannot listen") and "in use" in last


async def test_an_address_that_is_no_address_is_refused_in_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--host nohost.invalid``: getaddrinfo's error has its own numbers, and the host
    read "cannot listen on nohost.invalid port 7325: Unknown error -2."."""

    async def no_such_host(args: object) -> None:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(cli, "start", no_such_host)
    args = cli.build_parser().parse_args(["--host", "nohost.invalid", "--port", "7325"])
    with pytest.raises(SystemExit) as info:
        await cli.serve(args)
    said = "cannot listen on nohost.invalid port 7325: no such address (Name or service not known)."
    assert str(info.value) == f"rummy-server: {said}"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        # A port out of range reached bind(), whose OverflowError was a traceback.
        (["--port", "99999"], "argument --port: a port is 0 (any free one) to 65535, not 99999"),
        (["--port", "-5"], "argument --port: a port is 0 (any free one) to 65535, not -5"),
        (["--web-port", "70000"], "argument --web-port: a port is 0 (any free one) to 65535, not 70000"),
        # These were taken as they were: bots that never move, a server that turns everyone away.
        (["--bot-delay", "inf"], "argument --bot-delay: give seconds from 0 up, not inf"),
        (["--deal-pause", "nan"], "argument --deal-pause: give seconds from 0 up, not nan"),
        (["--max-connections", "0"], "argument --max-connections: must be at least 1, not 0"),
        (["--rate", "0"], "argument --rate: must be more than 0, not 0"),
        (["--spectators-per-address", "0"], "argument --spectators-per-address: must be at least 1, not 0"),
        # The doors' were too: a cap of 0 or less let one player in, and a negative one
        # also lowered the game server's cap on loopback, where the doors' clients connect
        # from ("Your address has -36 connections open already"); a negative timeout was never.
        (["--ssh-max-sessions", "-100"], "argument --ssh-max-sessions: must be at least 1, not -100"),
        (["--web-max-sessions", "0"], "argument --web-max-sessions: must be at least 1, not 0"),
        (["--ssh-max-per-address", "0"], "argument --ssh-max-per-address: must be at least 1, not 0"),
        (["--ssh-max-startups", "0"], "argument --ssh-max-startups: must be at least 1, not 0"),
        (["--ssh-idle-timeout", "-5"], "argument --ssh-idle-timeout: give seconds from 0 (never) up, not -5"),
        (
            ["--web-idle-timeout", "nan"],
            "argument --web-idle-timeout: give seconds from 0 (never) up, not nan",
        ),
    ],
)
def test_an_option_out_of_range_is_refused_in_one_sentence(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    with pytest.raises(SystemExit) as info:
        cli.build_parser().parse_args(argv)
    assert info.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == f"rummy-server: error: {said}"


async def test_the_per_address_caps_a_host_gives_reach_the_server(tmp_path: Path) -> None:
    argv = ["--host", "127.0.0.1", "--port", "0", "--db", str(tmp_path / "s.db")]
    caps = ["--spectators-per-address", "2", "--tables-per-address", "5"]
    server = await cli.start(cli.build_parser().parse_args([*argv, *caps]))
    try:
        assert (server.options.spectators_per_address, server.options.tables_per_address) == (2, 5)
    finally:
        await server.close()
    server = await cli.start(cli.build_parser().parse_args(argv))
    try:
        assert server.options.spectators_per_address == ServerOptions().spectators_per_address
    finally:
        await server.close()


@pytest.mark.parametrize(
    ("host", "told"), [("127.0.0.1", "127.0.0.1:7400"), ("::1", "[::1]:7400"), ("fe80::1", "[fe80::1]:7400")]
)
def test_the_address_players_are_told_is_one_the_client_reads(host: str, told: str) -> None:
    """``--host ::1`` printed "players join with: rummy-client ::1:7400", which the client
    took for a host named "::1:7400" on the default port ("Cannot reach ::1:7400:7325")."""
    server = SimpleNamespace(host=host, port=7400)
    assert cli.public_address(server) == told
    assert parse_address(told) == (host, 7400)
    assert cli.public_host(server) == host  # what the doors are given, bare


async def test_a_server_on_a_socket_made_before_it_answers_what_was_sent_before_it_started() -> None:
    """``start_server(sock=...)``: the local game makes the listening socket, connects
    and says hello before the server has started (it is still loading in its own
    process); the kernel holds all that, and the server answers it once it runs."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    early = socket.create_connection(("127.0.0.1", port))
    early.sendall(encode(Hello(id=1, version=PROTOCOL_VERSION, name="Ann", lobby=False)))
    server = await start_server(sock=listener, **FAST)
    try:
        assert server.port == port
        reader, writer = await asyncio.open_connection(sock=early)
        client = Client(reader, writer, keep_frames=False)
        await client.until(lambda c: any(isinstance(m, Welcome) for m in c.received))
        welcome = next(m for m in client.received if isinstance(m, Welcome))
        assert welcome.name == "Ann" and welcome.id == 1
        await client.close()
    finally:
        await server.close()
    assert listener.fileno() == -1  # the server closed it with itself
