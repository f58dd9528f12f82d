"""The SSH host key: made once, kept, reused.

Players' ssh clients remember the host key; a new key on every start would
greet them with a changed-key warning. So the key is created on first start
(ed25519, readable by the owner only) and read back on every later start.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import asyncssh

HOST_KEY_NAME = "ssh_host_ed25519_key"


class HostKeyError(Exception):
    """The host key cannot be read or created; the message says why."""


def default_host_key_path(state_dir: str | Path) -> Path:
    return Path(state_dir) / HOST_KEY_NAME


def load_host_key(path: str | Path) -> asyncssh.SSHKey:
    """Read a private host key the operator named; it must exist (a typo
    must not silently mint a new key that players' clients reject)."""
    try:
        return asyncssh.read_private_key(str(path))
    except FileNotFoundError:
        raise HostKeyError(f"SSH host key {path} does not exist") from None
    except (OSError, asyncssh.KeyImportError, ValueError) as exc:
        raise HostKeyError(f"cannot read SSH host key {path}: {exc}") from None


def load_or_create_host_key(path: str | Path) -> asyncssh.SSHKey:
    """The key at ``path``; if there is none yet, a new ed25519 key written
    there with mode 600 (and its directory created with mode 700)."""
    path = Path(path)
    if path.exists():
        return load_host_key(path)
    key = asyncssh.generate_private_key("ssh-ed25519", comment="rummy-server host key")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        _write_new_file(path, key.export_private_key(), mode=0o600)
    except FileExistsError:
        # Another server process on the same state directory got there first.
        return load_host_key(path)
    except OSError as exc:
        raise HostKeyError(f"cannot create SSH host key {path}: {exc}") from None
    return key


def _write_new_file(path: Path, data: bytes, mode: int) -> None:
    """Write ``data`` to ``path`` only if ``path`` does not exist, atomically:
    a crash never leaves a half-written key for the next start to choke on."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        try:
            os.fchmod(fd, mode)  # the umask must not loosen or tighten it
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.link(tmp, path)  # fails with FileExistsError rather than replacing
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
