"""The doors' clients are forked from one pre-imported parent (rummy/doors/zygote.py):
each is still a process of its own, with its own terminal, environment, limits and
exit status; none outlives its session; a crash in one touches no other."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.util
import os
import py_compile
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import asyncssh
import pytest

from rummy.doors.client_env import client_env, default_client_command
from rummy.doors.forker import ForkedChild, Forker, preload_for
from rummy.doors.immortal import IMMORTAL_REFCNT, supported
from rummy.doors.zygote import AGAIN, compiled_since, start_again
from tests.doors.door_helpers import descendants, env_of, field, host_secrets, process_gone
from tests.doors.test_ssh import Screen, connect, open_terminal, serve
from tests.support import eventually

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pidfds and /proc are Linux's")


@pytest.fixture(scope="module")
def keys() -> list[asyncssh.SSHKey]:
    return [asyncssh.generate_private_key("ssh-ed25519") for _ in range(2)]


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def ended(pid: int) -> bool:
    """Gone, or a zombie for its new parent (init, which reaps orphans) to collect."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


async def hello(conn: asyncssh.SSHClientConnection) -> tuple[Screen, int, dict[str, str]]:
    """Open a terminal; the stand-in client's screen, pid and environment."""
    screen = Screen(await open_terminal(conn))
    pid = int(field(await screen.line_after(b"HELLO"), "pid"))
    env = env_of(await screen.line_after(b"ENV "))
    await screen.wait_for(b"SIZE")
    return screen, pid, env


async def test_two_sessions_clients_are_separate_processes_with_separate_environments(
    tmp_path: Path, keys: list[asyncssh.SSHKey], monkeypatch: pytest.MonkeyPatch
) -> None:
    host_secrets(monkeypatch)  # in the host's environment before the door (and its parent) start
    async with await serve(tmp_path / "state") as srv:
        zygote = srv.forker.zygote_pid
        assert zygote is not None and zygote != os.getpid()
        async with await connect(srv, "alice", keys[0]) as ann, await connect(srv, "bob", keys[1]) as bob:
            (_, ann_pid, ann_env), (_, bob_pid, bob_env) = await asyncio.gather(hello(ann), hello(bob))
            # Two processes, both forked by the door's one parent, neither by the door itself.
            assert ann_pid != bob_pid
            assert parent_of(ann_pid) == parent_of(bob_pid) == zygote
            assert os.getsid(ann_pid) == ann_pid and os.getsid(bob_pid) == bob_pid  # a session each
            # Each its own state directory (its key's), as HOME too; nothing of the host's.
            assert ann_env["RUMMY_STATE_DIR"] != bob_env["RUMMY_STATE_DIR"]
            assert ann_env["HOME"] == ann_env["RUMMY_STATE_DIR"]
            assert bob_env["HOME"] == bob_env["RUMMY_STATE_DIR"]
            for env in (ann_env, bob_env):
                assert not any("hunter2" in v or "agent" in v for v in env.values())
                assert "RUMMY_HOST_SECRET" not in env and "SSH_AUTH_SOCK" not in env
            # The parent itself runs with none of the host's secrets either.
            parent_env = Path(f"/proc/{zygote}/environ").read_bytes().split(b"\0")
            assert not any(b"hunter2" in item or item.startswith(b"SSH_AUTH_SOCK=") for item in parent_env)


async def test_no_child_is_left_behind_after_the_session_closes(
    tmp_path: Path, keys: list[asyncssh.SSHKey]
) -> None:
    async with await serve(tmp_path / "state") as srv:
        zygote = srv.forker.zygote_pid
        assert zygote is not None
        for close in ("quit", "drop"):
            conn = await connect(srv, "alice", keys[0])
            screen, pid, _ = await hello(conn)
            assert descendants(zygote) == [pid]
            if close == "quit":
                screen.process.stdin.write(b"q")  # the client ends itself (status 3)
                assert (await screen.process.wait()).exit_status == 3
                conn.close()
            else:
                conn.abort()  # the network goes away
            await eventually(lambda pid=pid: process_gone(pid))  # reaped, not a zombie
            await eventually(lambda: descendants(zygote) == [])
        assert not process_gone(zygote)  # the parent stays for the next player
    assert process_gone(zygote)  # and goes with the door


async def test_a_crash_in_one_client_touches_no_other(tmp_path: Path, keys: list[asyncssh.SSHKey]) -> None:
    async with (
        await serve(tmp_path / "state") as srv,
        await connect(srv, "alice", keys[0]) as ann,
        await connect(srv, "bob", keys[1]) as bob,
    ):
        (ann_screen, ann_pid, _), (bob_screen, bob_pid, _) = await asyncio.gather(hello(ann), hello(bob))
        os.kill(ann_pid, signal.SIGSEGV)  # a crash, as the kernel would deliver it
        completed = await ann_screen.process.wait()
        assert completed.exit_signal is not None and completed.exit_signal[0] == "SEGV"
        bob_screen.process.stdin.write(b"x")
        await bob_screen.wait_for(b"KEY 78")
        assert not process_gone(bob_pid)
        zygote = srv.forker.zygote_pid
        assert zygote is not None and not process_gone(zygote)


async def test_a_lost_parent_leaves_its_players_playing_and_is_replaced(
    tmp_path: Path, keys: list[asyncssh.SSHKey]
) -> None:
    async with await serve(tmp_path / "state", hangup_grace=0.5) as srv:
        first = srv.forker.zygote_pid
        assert first is not None
        conn = await connect(srv, "alice", keys[0])
        screen, pid, _ = await hello(conn)
        os.kill(first, signal.SIGKILL)
        await eventually(lambda: process_gone(first))
        screen.process.stdin.write(b"y")  # the player's client does not notice
        await screen.wait_for(b"KEY 79")
        async with await connect(srv, "bob", keys[1]) as bob:  # the next player gets a new parent
            _, bob_pid, _ = await hello(bob)
            second = srv.forker.zygote_pid
            assert second not in (None, first) and parent_of(bob_pid) == second
        conn.abort()  # the orphan still ends with its session
        await eventually(lambda: ended(pid))
        await eventually(lambda: srv.connection_count == 0)


async def test_any_program_runs_on_its_terminal_with_its_environment_limits_and_status(
    tmp_path: Path,
) -> None:
    """Not only Python: a program of another kind is exec'd in the forked child."""
    forker = Forker()
    await forker.start()
    master, slave = os.openpty()
    try:
        child = await forker.spawn(
            ["/bin/sh", "-c", 'echo "home=$HOME core=$(ulimit -c) files=$(ulimit -n) pwd=$(pwd)"; exit 5'],
            env={"PATH": os.defpath, "HOME": str(tmp_path)},
            cwd=tmp_path,
            tty=slave,
        )
        os.close(slave)
        assert await asyncio.wait_for(child.wait(), 10) == 5
        said = os.read(master, 4096).decode()
    finally:
        os.close(master)
        await forker.close()
    assert f"home={tmp_path} core=0 files=1024 pwd={tmp_path}" in said


async def read_until(master: int, wanted: bytes, timeout: float = 20) -> bytes:
    """What a pty's child writes, read until ``wanted`` is in it (or ``timeout`` passes)."""
    screen = b""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while wanted not in screen and loop.time() < deadline:
        readable = asyncio.Event()
        loop.add_reader(master, readable.set)
        try:
            await asyncio.wait_for(readable.wait(), deadline - loop.time())
        finally:
            loop.remove_reader(master)
        screen += os.read(master, 65536)
    return screen


@contextlib.asynccontextmanager
async def forked(
    argv: list[str], tmp_path: Path, preload: list[str] | None = None
) -> AsyncIterator[tuple[int, ForkedChild]]:
    """``argv`` run by a zygote that preloaded what ``preload`` (else ``argv``) needs, on a
    pty of its own: (the pty's master side, the child); all of it ended afterwards."""
    forker = Forker(preload_for(preload or argv))
    await forker.start()
    master, slave = os.openpty()
    child = await forker.spawn(argv, env=client_env(tmp_path, "xterm-256color"), cwd=tmp_path, tty=slave)
    os.close(slave)
    try:
        yield master, child
    finally:
        child.send_signal(signal.SIGKILL)
        await child.wait()
        os.close(master)
        await forker.close()


async def test_the_real_client_forked_draws_its_screen_and_nothing_before_it(tmp_path: Path) -> None:
    """The client run from the preloaded parent starts as `python -m` would: its first
    bytes are its own full screen (no warning of the module already loaded), and it
    draws the lobby (here: saying the server cannot be reached)."""
    argv = default_client_command("127.0.0.1:9", "Zed")  # port 9: nobody listens
    async with forked(argv, tmp_path) as (master, _child):
        screen = await read_until(master, b"Persian Rummy lobby")
    assert b"Persian Rummy lobby" in screen and b"Cannot reach 127.0.0.1:9" in screen
    assert screen.startswith(b"\x1b["), screen[:200]


CLIENT = default_client_command("127.0.0.1:9", "Zed")  # what the doors preload for


# Run in a forked child: the client, as the door runs it, noting at its exit which
# modules it imported for itself.
IMPORTS_OF_THE_CLIENT = """
import atexit, runpy, sys
before, out = set(sys.modules), sys.argv[1]
atexit.register(lambda: open(out, "w").write(" ".join(sorted(set(sys.modules) - before))))
sys.argv = ["rummy.client.cli", "127.0.0.1:9", "--name", "Zed", "--hosted"]
sys.modules.pop("rummy.client.cli")
runpy.run_module("rummy.client.cli", run_name="__main__", alter_sys=True)
"""


async def test_the_forked_client_imports_nothing_of_its_own_on_its_way_to_the_lobby(tmp_path: Path) -> None:
    """What the client imports for its lobby (the lobby screen the app imports lazily,
    its widgets, what Textual imports as an app runs) is in the shared parent already:
    a module imported in a child is a copy of its own in every player's client."""
    imported = tmp_path / "imported"
    argv = [sys.executable, "-c", IMPORTS_OF_THE_CLIENT, str(imported)]
    async with forked(argv, tmp_path, preload=CLIENT) as (master, child):
        assert b"Cannot reach 127.0.0.1:9" in await read_until(master, b"Cannot reach 127.0.0.1:9")
        os.write(master, b"\x11")  # ctrl+q: the client ends, and says what it imported
        assert await asyncio.wait_for(child.wait(), 20) == 0
    # Rich picks its table of character widths as it runs, by the Unicode version asked for.
    own = [name for name in imported.read_text().split() if not name.startswith("rich._unicode_data.")]
    assert own == []


@pytest.mark.skipif(not supported(), reason="this interpreter has no immortal objects (CPython 3.12, 3.13)")
async def test_what_the_parent_loaded_is_immortal_in_its_children(tmp_path: Path) -> None:
    """The parent marks what it imported immortal (rummy/doors/immortal.py): a child
    uses Textual's and the client's objects without writing their counts, so their
    pages stay shared; what the child makes of its own is counted as ever."""
    probe = (
        "import sys, textual.app, rummy.client.app as a; mine = object();"
        " print('COUNTS', sys.getrefcount(textual.app.App), sys.getrefcount(a.RummyApp),"
        " sys.getrefcount(mine) < 1000, 'END')"
    )
    argv = [sys.executable, "-c", probe]
    async with forked(argv, tmp_path, preload=CLIENT) as (master, child):
        screen = await read_until(master, b"END")
        assert await asyncio.wait_for(child.wait(), 20) == 0
    counts = screen.split(b"COUNTS", 1)[1].split()
    assert counts[:3] == [str(IMMORTAL_REFCNT).encode(), str(IMMORTAL_REFCNT).encode(), b"True"]


def merge_any(pid: int) -> bool | None:
    """Whether the kernel may merge ``pid``'s same pages (KSM), or None where it cannot say."""
    try:
        lines = Path(f"/proc/{pid}/ksm_stat").read_text().splitlines()
    except OSError:
        return None
    found = [line.split(":", 1)[1].strip() for line in lines if line.startswith("ksm_merge_any")]
    return found[0] == "yes" if found else None


async def test_the_clients_may_share_their_same_pages(tmp_path: Path, keys: list[asyncssh.SSHKey]) -> None:
    """The parent asks for same-page merging, and its children inherit it: where the host
    runs KSM, the pages all the clients hold alike are kept once (rummy/doors/samepage.py)."""
    if merge_any(os.getpid()) is None:
        pytest.skip("this kernel does not say whether a process's pages may be merged (Linux 6.4+)")
    asks = "from rummy.doors.samepage import merge_same_pages; print(merge_same_pages())"
    probe = subprocess.run(
        [sys.executable, "-c", asks],
        capture_output=True,
        text=True,
        check=True,
    )
    if probe.stdout.strip() != "True":
        pytest.skip("this kernel (or its sandbox) refuses same-page merging")
    async with await serve(tmp_path / "state") as srv:
        zygote = srv.forker.zygote_pid
        assert zygote is not None
        async with await connect(srv, "alice", keys[0]) as ann:
            _, pid, _ = await hello(ann)
            assert merge_any(zygote) is True and merge_any(pid) is True
    assert merge_any(os.getpid()) is False  # asked for by the door's parent only, not the server


async def test_the_parent_runs_without_docstrings_and_compiles_before_it_settles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parent loads what the children run without docstrings (``-OO``: fewer pages
    of code for each child to copy, zygote.py). A module it had to compile is written
    to disk and the parent runs itself again, the same process, to load it from there:
    the compiler's garbage is in none of the pages its children share."""
    lib = tmp_path / "lib"
    lib.mkdir()
    source = lib / "docless_probe.py"
    source.write_text('"""A docstring the children do without."""\nVALUE = 7\n')
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(lib), os.environ.get("PYTHONPATH", "")]))
    probe = (
        "import os, sys, docless_probe as p;"
        f" print('SAYS', sys.flags.optimize, p.__doc__, p.VALUE, os.environ.get({AGAIN!r}), 'END')"
    )
    forker = Forker(("docless_probe",))
    await forker.start()
    master, slave = os.openpty()
    try:
        zygote = forker.zygote_pid
        assert zygote is not None
        again = Path(f"/proc/{zygote}/environ").read_bytes().split(b"\0")
        child = await forker.spawn(
            [sys.executable, "-c", probe], env=client_env(tmp_path, "xterm-256color"), cwd=tmp_path, tty=slave
        )
        os.close(slave)
        screen = await read_until(master, b"END")
        assert await asyncio.wait_for(child.wait(), 20) == 0
    finally:
        os.close(master)
        await forker.close()
    assert screen.split(b"SAYS", 1)[1].split()[:4] == [b"2", b"None", b"7", b"None"]
    assert f"{AGAIN}=1".encode() in again  # it ran itself again, having compiled the probe
    assert Path(importlib.util.cache_from_source(str(source), optimization=2)).exists()


def test_a_parent_that_compiled_runs_again_with_the_docstrings_only_where_it_could_not_write(
    tmp_path: Path,
) -> None:
    written = tmp_path / "written.opt-2.pyc"
    written.write_bytes(b"")
    missing = str(tmp_path / "missing.opt-2.pyc")
    own = ["7", "rummy.client.cli"]
    assert start_again(own, 2, [str(written)], again=False) == [
        sys.executable, "-s", "-OO", "-m", "rummy.doors.zygote", *own,
    ]  # fmt: skip
    assert start_again(own, 2, [str(written), missing], again=False) == [
        sys.executable, "-s", "-m", "rummy.doors.zygote", *own,
    ]  # fmt: skip
    assert start_again(own, 2, [], again=False) is None  # loaded all from disk: it goes on
    assert start_again(own, 0, [missing], again=False) is None  # not optimised: as before
    assert start_again(own, 2, [missing], again=True) is None  # once only


def test_what_was_compiled_since_the_parent_started_is_told_from_what_was_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ahead", "now", "unwritten"):
        (tmp_path / f"{name}_probe.py").write_text("VALUE = 1\n")
    py_compile.compile(str(tmp_path / "ahead_probe.py"), doraise=True)
    os.utime(importlib.util.cache_from_source(str(tmp_path / "ahead_probe.py")), (1, 1))
    since = time.time() - 1  # the files written below are newer, whatever the clock's grain
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        importlib.import_module("ahead_probe")
        importlib.import_module("now_probe")
        monkeypatch.setattr(sys, "dont_write_bytecode", True)
        importlib.import_module("unwritten_probe")
        compiled = {Path(path).name.split(".")[0] for path in compiled_since(since)}
    finally:
        for name in ("ahead", "now", "unwritten"):
            sys.modules.pop(f"{name}_probe", None)
    assert {"now_probe", "unwritten_probe"} <= compiled
    assert "ahead_probe" not in compiled


def test_a_file_written_just_after_the_parent_started_counts_as_compiled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file's time comes from the kernel's coarse clock, a tick behind time.time(): a
    module compiled a moment after the parent started may carry a time a few ms before
    it. It still counts as compiled, so the parent runs itself again (it did not when
    the preload was quick, and a run of the forked-clients test failed so)."""
    (tmp_path / "quick_probe.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    started = time.time()
    try:
        cached = py_compile.compile(str(tmp_path / "quick_probe.py"), doraise=True)
        importlib.import_module("quick_probe")
        os.utime(cached, (started - 0.004, started - 0.004))  # a 4 ms tick behind
        compiled = {Path(path).name.split(".")[0] for path in compiled_since(started)}
    finally:
        sys.modules.pop("quick_probe", None)
    assert "quick_probe" in compiled
