"""Kernel same-page merging for the doors' clients (Linux KSM).

Each door's client is forked from one pre-imported parent, and most of what a
client holds privately are the parent's pages, copied as soon as the client
touches them (CPython writes the reference count of every object it uses).
Many of those copies, and many pages of the clients' own, are byte for byte the
same in every client: with ``merge_same_pages`` called in the parent, the kernel
may keep one copy of each (measured: a client in a game 18.5 MiB PSS instead of
28.7, 20 clients; docs/PERFORMANCE.md). The children inherit the setting across ``fork``.

It is only a request: it takes effect where the host runs KSM
(``/sys/kernel/mm/ksm/run`` 1, Linux 6.4 or later), and costs nothing elsewhere.
"""

from __future__ import annotations

import ctypes
import sys

PR_SET_MEMORY_MERGE = 67  # linux/prctl.h (Linux 6.4)


def merge_same_pages() -> bool:
    """Ask the kernel to merge this process's identical pages (and its children's);
    whether it accepted (False on other systems and older kernels)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False
