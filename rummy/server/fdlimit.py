"""Open files: every connection is one, so the connection cap must stay below the limit.

A server left at the usual soft limit of 1,024 ran out after about 1,000
connections: asyncio then logged each failed ``accept()`` (17 MB of log in
8 s) and newcomers waited without a word. At start ``rummy-server`` raises
its soft limit to the hard one and lowers its connection cap to fit below
it, with room to spare for what else it opens; past the cap a newcomer is
told ``too-many-connections``, which needs a file too, hence the spare.
"""

from __future__ import annotations

import logging

try:
    import resource
except ImportError:  # not on Windows: nothing to raise there
    resource = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

# Files the server holds besides its game connections: standard streams, the event
# loop's own, the listening sockets, SQLite's database, journal and shared memory...
OTHER_FILES = 64
# The listen backlog: asyncio accepts up to this many at once before any is refused
# (and closed), so as many files may be open beyond the cap for a moment. Where the
# open-file limit is low, a third of what it leaves beyond OTHER_FILES (at a hard limit
# of 300 the full backlog alone had taken every file, and the server let in one
# connection), and never less than MIN_BACKLOG.
BACKLOG = 256
MIN_BACKLOG = 16


def raise_open_files() -> int | None:
    """Raise the soft limit on open files to the hard limit; the soft limit after
    (None where there is no such limit)."""
    if resource is None:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError) as error:  # some systems cap it below "unlimited"
            log.warning("could not raise the open-file limit from %d: %s", soft, error)
    return open_file_limit()


def open_file_limit() -> int | None:
    """The soft limit on open files now (None where there is no such limit)."""
    if resource is None:
        return None
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return None if soft == resource.RLIM_INFINITY else soft


def listen_backlog(open_files: int | None) -> int:
    """The listen backlog for a server that may open ``open_files`` files."""
    if open_files is None:
        return BACKLOG
    return max(MIN_BACKLOG, min(BACKLOG, (open_files - OTHER_FILES) // 3))


def connection_cap(wanted: int, open_files: int | None, spare: int = 0) -> int:
    """The connection cap that fits ``open_files``, keeping ``OTHER_FILES``, the listen
    backlog and ``spare`` files for everything else (``spare``: the doors' own)."""
    if open_files is None:
        return wanted
    return max(1, min(wanted, open_files - OTHER_FILES - listen_backlog(open_files) - spare))
