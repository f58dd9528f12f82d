"""The doors' parent makes what it loaded immortal where CPython has immortal objects
(rummy/doors/immortal.py): its children then never write those objects' reference
counts, so they share those pages instead of copying them. Each check runs in an
interpreter of its own: an immortal object is never freed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rummy.doors.immortal import IMMORTAL_REFCNT, supported

HAS_IMMORTALS = sys.implementation.name == "cpython" and sys.version_info[:2] in ((3, 12), (3, 13))

MARKS = """
import ctypes, gc, json, sys, weakref
import textwrap  # loaded before: made immortal with the rest
from rummy.doors.immortal import immortalize

VALID_VERSION_TAG = 1 << 19  # Py_TPFLAGS_VALID_VERSION_TAG

class Loaded:
    label = "a label, not interned"

class Unlooked:  # no attribute is looked up through it before immortalize
    pass

def hash_kept(s):
    # PyASCIIObject's hash field (after the count, the type and the length): -1 until
    # the string is first hashed
    return ctypes.c_ssize_t.from_address(id(s) + 3 * ctypes.sizeof(ctypes.c_ssize_t)).value != -1

loaded = Loaded()
label = "".join(["a string ", "made at run time"])  # neither interned nor hashed
unhashed_before = not hash_kept(label)
untagged_before = not Unlooked.__flags__ & VALID_VERSION_TAG
marked = immortalize()

class After:  # made after: as mortal as ever
    pass

after = After()
gone = weakref.ref(after)
del after
print(json.dumps({
    "marked": marked,
    "module_function": sys.getrefcount(textwrap.dedent),
    "class": sys.getrefcount(Loaded),
    "instance": sys.getrefcount(loaded),
    "constant": sys.getrefcount(Loaded.label),
    "code": sys.getrefcount(textwrap.dedent.__code__),
    "freed_after": gone() is None,
    "mortal_after": sys.getrefcount(After) < 1000,
    "still_works": textwrap.dedent("  x\\n  y") == "x\\ny",
    "unhashed_before": unhashed_before,
    "hashed": hash_kept(label),
    "untagged_before": untagged_before,
    "tagged": bool(Unlooked.__flags__ & VALID_VERSION_TAG),
}))
"""


def run_marks() -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", MARKS], capture_output=True, text=True, check=True)
    return dict(json.loads(out.stdout))


@pytest.mark.skipif(not HAS_IMMORTALS, reason="CPython 3.12 and 3.13 keep immortal objects this way")
def test_what_was_loaded_is_immortal_and_what_comes_after_is_not() -> None:
    assert supported()
    seen = run_marks()
    assert int(str(seen["marked"])) > 10_000  # the interpreter's and the modules' objects
    for name in ("module_function", "class", "instance", "constant", "code"):
        assert seen[name] == IMMORTAL_REFCNT, name
    # Objects made afterwards are counted and freed as ever, and the marked still work.
    assert seen["freed_after"] is True
    assert seen["mortal_after"] is True
    assert seen["still_works"] is True


@pytest.mark.skipif(not HAS_IMMORTALS, reason="CPython 3.12 and 3.13 keep immortal objects this way")
def test_what_a_child_would_write_first_is_written_in_the_parent() -> None:
    """A string's hash and a class's version tag are kept in the object the first time
    they are needed: the walk writes them in the parent, so that no child writes them
    into a shared page."""
    seen = run_marks()
    assert seen["unhashed_before"] is True and seen["hashed"] is True
    if sys.version_info[:2] == (3, 12):  # 3.13 keeps no flag for it: the tag alone says
        assert seen["untagged_before"] is True and seen["tagged"] is True


@pytest.mark.skipif(HAS_IMMORTALS, reason="this interpreter has immortal objects")
def test_an_interpreter_without_immortal_objects_is_left_alone() -> None:
    """Python 3.11 writes every count: a mark there would be a count like any other,
    so nothing is marked."""
    assert not supported()
    seen = run_marks()
    assert seen["marked"] == 0
    assert seen["module_function"] != IMMORTAL_REFCNT
    assert seen["instance"] != IMMORTAL_REFCNT
    assert seen["still_works"] is True
