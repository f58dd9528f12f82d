"""The doors' preloaded objects made immortal (CPython 3.12 and 3.13, PEP 683).

Each door's client is forked from one pre-imported parent, and most of what a
client holds privately are the parent's pages, copied as soon as the client
writes to them: CPython writes an object's reference count each time it takes or
drops a reference, so every page of Textual's and the client's code and data
that a client uses becomes its own copy. From 3.12 CPython leaves the count of
an *immortal* object alone (``None``, small integers, interned strings are
born immortal), and PEP 683 names the pre-fork parent as the case for making
more objects so: ``immortalize`` marks every object the parent holds once its
imports are done, so the children share those pages instead of copying them.

An immortal object is never freed. That costs nothing here: the parent keeps
what it imported for its whole life, and a child that drops one of those
objects (a cache entry, a replaced default) leaves it in the shared pages,
where it would stay anyway if the child had copied its page.

CPython has no call for this (3.14 may); the mark is the one CPython itself gives
its immortal objects, the lower 32 bits of the count set, so it is written only
where that is what this interpreter gives ``None`` (3.12 and 3.13 on 64 bits,
with the GIL) and nowhere else: there ``immortalize`` does nothing.

Two more things a child would write into those shared objects are written once
here, by the same walk, so that each child finds them done: a string's hash
(computed the first time the string is hashed, and kept in it) and a class's
version tag (given the first time an attribute is looked up through it, and kept
in it, for CPython's attribute caches). Measured in a child in a game, 20
players, Python 3.12, KSM off, 80x24: 0.3-0.4 MiB less PSS a client (docs/PERFORMANCE.md).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import sys
import sysconfig
import types

IMMORTAL_REFCNT = 0xFFFFFFFF  # _Py_IMMORTAL_REFCNT of CPython 3.12 and 3.13, 64-bit
# Looked up on every class, found on none: the failed lookup gives the class its
# version tag (a name of 100 characters or fewer, so that the lookup is cached).
NO_SUCH_ATTRIBUTE = "__rummy_no_such_attribute__"


def supported() -> bool:
    """Whether this interpreter keeps immortal objects the way ``immortalize`` marks them."""
    return (
        sys.implementation.name == "cpython"
        and sys.version_info[:2] in ((3, 12), (3, 13))
        and sys.maxsize > 2**32
        and not sysconfig.get_config_var("Py_GIL_DISABLED")
        and sys.getrefcount(None) == IMMORTAL_REFCNT
    )


def immortalize() -> int:
    """Make every object reachable from the collector's objects immortal, each
    string hashed and each class tagged; how many were marked (0, and nothing
    done, where the interpreter is not one ``supported`` names)."""
    if not supported():
        return 0
    refcount = ctypes.c_ssize_t
    stack: list[object] = gc.get_objects()
    marked = 0
    while stack:
        obj = stack.pop()
        cell = refcount.from_address(id(obj))
        # The mark is what says an object was seen: no set of those seen, whose
        # hundreds of thousands of integers, freed, would leave holes in the
        # parent's pages that each child's first allocations would fill (copying
        # them). Marked before its parts are pushed: from here on the walk's own
        # references to it are never the last, so nothing it reached is freed.
        if cell.value == IMMORTAL_REFCNT:
            continue
        cell.value = IMMORTAL_REFCNT
        marked += 1
        if type(obj) is str:
            hash(obj)  # kept in the string
            continue  # nothing in it to walk
        if isinstance(obj, type):
            _tag(obj)
        stack.extend(gc.get_referents(obj))
        if isinstance(obj, types.CodeType):
            # A code object's parts are not the collector's to walk; these are held
            # as they are (co_code and co_varnames would be built anew on access).
            stack.extend((obj.co_consts, obj.co_names, obj.co_filename, obj.co_name, obj.co_qualname))
            stack.extend((obj.co_linetable, obj.co_exceptiontable))
    return marked


def _tag(cls: type) -> None:
    """Give ``cls`` (and its bases, and its metaclass) the version tag CPython's
    attribute caches need: ``type.__getattribute__`` looks the name up through them
    and through nothing a class defines, so no code of the class runs."""
    with contextlib.suppress(AttributeError):
        type.__getattribute__(cls, NO_SUCH_ATTRIBUTE)
