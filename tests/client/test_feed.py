"""The feed (the table's log, the chats): the newest line in view, older ones a scroll
away, long lines wrapped at the feed's width, and each line drawn once as it comes."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.content import Content
from textual.screen import Screen
from textual.visual import Visual

from rummy.client.widgets.feed import Feed
from tests.client.conftest import screen_text
from tests.support import eventually


class FeedApp(App[None]):
    CSS = """
    Feed { height: 5; width: 40; }
    Feed:focus { background: darkred; }
    """

    def __init__(self, keep: int = 300) -> None:
        super().__init__()
        self.feed = Feed("Nothing said yet.", keep=keep)

    def compose(self) -> ComposeResult:
        yield self.feed


def numbered(count: int, start: int = 1) -> list[Content]:
    return [Content(f"line {i}") for i in range(start, start + count)]


def shown(app: App[None]) -> list[str]:
    """The words on the screen, line by line."""
    return [line.strip() for line in screen_text(app).splitlines() if line.strip()]


async def test_the_newest_line_is_in_view_and_the_oldest_a_scroll_away() -> None:
    app = FeedApp()
    async with app.run_test(size=(60, 10)) as pilot:
        await eventually(lambda: shown(app) == ["Nothing said yet."], pause=pilot.pause)
        for line in numbered(50):
            app.feed.add(line)
        await eventually(lambda: "line 50" in shown(app), pause=pilot.pause)
        assert shown(app)[-1].startswith("line 50") and "line 45" not in shown(app)
        app.feed.focus()
        await pilot.press("home")
        await eventually(lambda: shown(app)[0].startswith("line 1"), pause=pilot.pause)
        assert "line 50" not in shown(app)
        app.feed.add(Content("line 51"))  # a new line brings the newest back into view
        await eventually(lambda: "line 51" in shown(app), pause=pilot.pause)


async def test_only_the_last_lines_are_kept() -> None:
    app = FeedApp(keep=10)
    async with app.run_test(size=(60, 10)) as pilot:
        for line in numbered(25):
            app.feed.add(line)
        assert app.feed.plain_text == "\n".join(f"line {i}" for i in range(16, 26))
        await eventually(lambda: "line 25" in shown(app), pause=pilot.pause)
        app.feed.focus()
        await pilot.press("home")
        await eventually(lambda: shown(app)[0].startswith("line 16"), pause=pilot.pause)


async def test_a_long_line_wraps_at_the_width_and_again_when_the_width_changes() -> None:
    words = "Bob drew from the stock, melded 7♥ 8♥ 9♥ (meld 3), discarded 2♣."
    app = FeedApp()
    async with app.run_test(size=(100, 10)) as pilot:
        app.feed.add(Content(words))
        await eventually(lambda: len(shown(app)) == 2, pause=pilot.pause)  # 40 columns: two rows
        assert " ".join(shown(app)) == words
        app.feed.styles.width = 80
        await eventually(lambda: shown(app) == [words], pause=pilot.pause)  # one row


async def test_lines_drawn_before_the_scrollbar_came_are_wrapped_again_beside_it() -> None:
    full = "0123456789" * 4  # the feed's whole width, until its scrollbar takes two columns
    app = FeedApp()
    async with app.run_test(size=(60, 10)) as pilot:
        app.feed.add(Content(full))
        await eventually(lambda: shown(app) == [full], pause=pilot.pause)
        for line in numbered(10):
            app.feed.add(line)
        await eventually(lambda: "line 10" in shown(app), pause=pilot.pause)
        app.feed.focus()
        await pilot.press("home")
        await eventually(lambda: shown(app)[0].startswith(full[:38]), pause=pilot.pause)
        assert shown(app)[1] == full[38:]


async def test_a_turn_told_move_by_move_grows_its_line() -> None:
    app = FeedApp()
    async with app.run_test(size=(60, 10)) as pilot:
        app.feed.add(Content("Ann drew."))
        app.feed.add(Content("Bob drew"))
        app.feed.replace_last(Content("Bob drew, discarded 2♣."))
        await eventually(lambda: shown(app) == ["Ann drew.", "Bob drew, discarded 2♣."], pause=pilot.pause)
        app.feed.clear_lines()
        await eventually(lambda: shown(app) == ["Nothing said yet."], pause=pilot.pause)


async def test_each_line_is_drawn_once_as_it_comes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A line added draws that line alone, not the whole feed again: with the feed
    drawn as one text at every line, a turn late in a game cost a client twice the
    CPU, and each line kept about 5 KiB of drawn rows."""
    drawn: list[str] = []
    to_strips = Visual.to_strips

    def counted(widget: Any, visual: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(widget, Feed):
            drawn.append(visual.plain)
        return to_strips(widget, visual, *args, **kwargs)

    monkeypatch.setattr(Visual, "to_strips", counted)
    app = FeedApp()
    async with app.run_test(size=(60, 10)) as pilot:
        app.feed.set_lines(numbered(100))
        await eventually(lambda: "line 100" in shown(app), pause=pilot.pause)
        drawn.clear()
        app.feed.add(Content("line 101"))
        app.feed.replace_last(Content("line 101, grown"))
        await eventually(lambda: "line 101, grown" in shown(app), pause=pilot.pause)
        assert drawn == ["line 101", "line 101, grown"]


async def test_focus_draws_the_lines_again_in_the_focused_look() -> None:
    app = FeedApp()
    async with app.run_test(size=(60, 10)) as pilot:
        app.set_focus(None)
        app.feed.add(Content("Ann drew."))
        await eventually(lambda: "Ann drew." in shown(app), pause=pilot.pause)
        await pilot.pause()
        before = app.feed.render_line(0)
        app.feed.focus()
        await eventually(lambda: app.feed.render_line(0).text == before.text, pause=pilot.pause)
        await eventually(
            lambda: (
                {s.style.bgcolor for s in app.feed.render_line(0) if s.style}
                != {s.style.bgcolor for s in before if s.style}
            ),
            pause=pilot.pause,
        )


async def test_text_dragged_over_with_the_mouse_is_marked_and_can_be_copied() -> None:
    app = FeedApp()
    async with app.run_test(size=(60, 10)) as pilot:
        for i in range(3):
            app.feed.add(Content(f"line number {i}"))
        await eventually(lambda: "line number 2" in shown(app), pause=pilot.pause)
        await pilot.mouse_down(app.feed, offset=(5, 0))
        await pilot.hover(app.feed, offset=(6, 1))
        await pilot.mouse_up(app.feed, offset=(6, 1))
        await eventually(lambda: app.screen.get_selected_text() == "number 0\nline nu", pause=pilot.pause)
        selected = app.screen.get_component_rich_style("screen--selection").bgcolor

        def marked(row: int) -> str:
            segments = app.feed.render_line(row)
            return "".join(s.text for s in segments if s.style and s.style.bgcolor == selected)

        assert marked(0).rstrip() == "number 0" and marked(1) == "line nu" and marked(2) == ""


class FeedScreen(Screen[None]):
    def __init__(self) -> None:
        super().__init__()
        self.feed = Feed("Nothing said yet.")

    def compose(self) -> ComposeResult:
        yield self.feed


async def test_lines_that_come_while_the_feeds_screen_is_closed_show_when_it_opens_again() -> None:
    """As the lobby's chat hears of a table while the client closes (the e2e game once
    failed there), or a table screen's log while the player is in the lobby."""
    app = App[None]()
    screen = FeedScreen()
    async with app.run_test(size=(60, 10)) as pilot:
        await app.push_screen(screen)
        screen.feed.add(Content("before"))
        await eventually(lambda: shown(app) == ["before"], pause=pilot.pause)
        await app.pop_screen()
        screen.feed.add(Content("while away"))
        screen.feed.set_placeholder("Nobody here.")
        await app.push_screen(screen)
        await pilot.pause()  # the screen drawn once (a screenshot before that has holes)
        await eventually(lambda: shown(app) == ["before", "while away"], pause=pilot.pause)
