"""The one cleaning of player text (names, chat, table names): plain, printable, short."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rummy.protocol import CHAT_LIMIT, NAME_LIMIT, TABLE_NAME_LIMIT, default_table_name, sanitize
from rummy.protocol.sanitize import LOOK_AHEAD


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("Ann", "Ann"),
        ("  Ann   Lee  ", "Ann Lee"),
        ("\x1b[31mRed\x1b[0m", "Red"),  # CSI colour
        ("a\x1b[2J\x1b[Hb", "ab"),  # clear screen, cursor home
        ("x\x1b]0;pwned\x07y", "xy"),  # OSC title, BEL-terminated
        ("x\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\y", "xlinky"),  # OSC 8 hyperlink
        ("x\x1bPq#0;2;0;0;0\x1b\\y", "xy"),  # DCS (sixel)
        ("x\x9b31my", "xy"),  # 8-bit CSI
        ("a\x00b\x07c\x7fd\x96e\x85f", "abcde f"),  # C0, DEL, C1 (NEL is a line break: a space)
        ("\u202eevil\u202c", "evil"),  # bidi override
        ("zero\u200bwidth", "zerowidth"),
        ("line\nbreak\ttab\r", "line break tab"),
        ("Ünïcødé ♥ 名前", "Ünïcødé ♥ 名前"),
        ("\x1b7\x1bc", ""),  # ESC 7 (save cursor), ESC c (reset)
    ],
)
def test_escape_sequences_and_control_characters_are_removed(raw: str, clean: str) -> None:
    assert sanitize(raw, 100) == clean


def test_text_is_trimmed_to_its_limit() -> None:
    assert sanitize("x" * 100, NAME_LIMIT) == "x" * NAME_LIMIT
    assert len(sanitize("word " * 200, CHAT_LIMIT)) <= CHAT_LIMIT


@given(st.text())
def test_the_result_is_always_safe_for_a_terminal(text: str) -> None:
    out = sanitize(text, 50)
    assert len(out) <= 50
    assert "\x1b" not in out and not any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in out)
    assert out == out.strip() and "  " not in out
    assert sanitize(out, 50) == out  # cleaning twice changes nothing


def test_only_the_first_few_times_the_limit_are_looked_at() -> None:
    """The work per line is bounded before cleaning: a line of 2,000 combining marks or
    of escape codes is cut to twice the limit first (cleaning it all took 1.8 ms)."""
    assert LOOK_AHEAD * CHAT_LIMIT < 2000
    assert sanitize("\x1b[0m" * 400 + "hidden at the end", CHAT_LIMIT) == ""
    assert sanitize("ab" * 1000, 10) == "ababababab"
    zalgo = sanitize("Z" + "\u0301" * 1999, CHAT_LIMIT)
    assert zalgo.startswith("Z") and len(zalgo) <= CHAT_LIMIT


def test_a_default_table_name_is_the_openers_and_not_one_listed_already() -> None:
    """Two friends on one login ("root") who opened tables without naming them saw two
    rows "root's table": the second is "root's table 2", the next one free after that."""
    assert default_table_name("root", set()) == "root's table"
    assert default_table_name("root", {"root's table"}) == "root's table 2"
    assert default_table_name("root", {"root's table", "root's table 2", "Ann's table"}) == "root's table 3"
    assert default_table_name("root", {"root's table 2"}) == "root's table"


def test_a_default_table_name_is_cleaned_and_within_the_limit() -> None:
    """The opener's name is player input: cleaned as every name is, and the longest
    name with a number still fits a table name."""
    assert default_table_name("\x1b[31mEve\x07", set()) == "Eve's table"
    longest = "x" * NAME_LIMIT
    taken = {default_table_name(longest, set())}
    assert len(default_table_name(longest, taken)) <= TABLE_NAME_LIMIT
