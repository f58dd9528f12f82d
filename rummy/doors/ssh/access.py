"""Who may connect: anyone (the default: it is a game), or only the public
keys listed in an OpenSSH authorized_keys file."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import asyncssh

log = logging.getLogger(__name__)


class AccessError(Exception):
    """The authorized keys file cannot be used; the message says why."""


class AccessPolicy:
    """Open to every user name and key, or restricted to an authorized_keys
    file. The file is read again when it changes, so the host can add a
    friend's key without restarting; its ``from="..."`` options are honoured."""

    def __init__(self, authorized_keys_path: str | Path | None = None) -> None:
        self.authorized_keys_path = None if authorized_keys_path is None else Path(authorized_keys_path)
        self._keys: asyncssh.SSHAuthorizedKeys | None = None
        self._stamp: tuple[int, int] | None = None
        if self.authorized_keys_path is not None:
            try:
                self._reload()
            except (OSError, ValueError) as exc:
                path = self.authorized_keys_path
                raise AccessError(f"cannot read SSH authorized keys {path}: {exc}") from None

    @property
    def is_open(self) -> bool:
        return self.authorized_keys_path is None

    @property
    def allows_keyless(self) -> bool:
        """Only an open server lets in a client that offers no key."""
        return self.is_open

    def allows_key(self, key: asyncssh.SSHKey, peer_host: str, peer_addr: str) -> bool:
        if self.authorized_keys_path is None:
            return True
        try:
            self._reload()
        except (OSError, ValueError) as exc:
            # Keep the last good list rather than locking everyone out (or in).
            log.warning("cannot re-read %s, using the last good copy: %s", self.authorized_keys_path, exc)
        assert self._keys is not None
        return self._keys.validate(key, peer_host, peer_addr) is not None

    def _reload(self) -> None:
        assert self.authorized_keys_path is not None
        stat = os.stat(self.authorized_keys_path)
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp != self._stamp:
            self._keys = asyncssh.read_authorized_keys(str(self.authorized_keys_path))
            self._stamp = stamp
