"""The command palette's list of the screen's own actions (ctrl+p).

Each screen lists its actions once, as key bindings; this provider offers the
ones that apply now (``check_action``), so the palette, the footer and the
keys always agree.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.screen import Screen


def screen_actions(screen: Screen[object]) -> Iterator[tuple[str, str, str]]:
    """(title, help, action) for every described binding of ``screen`` that applies now."""
    for binding in screen.BINDINGS:
        if not isinstance(binding, Binding) or not binding.description:
            continue
        name = binding.action.split("(")[0]
        if screen.check_action(name, ()) is not True:
            continue
        key = binding.key.split(",")[0].replace("question_mark", "?")
        yield binding.description, f"key {key}", binding.action


class ScreenActions(Provider):
    """Offers the actions of the screen the palette was opened from."""

    def _run(self, action: str) -> None:
        self.app.call_later(self.screen.run_action, action)

    async def discover(self) -> Hits:
        for title, help_text, action in screen_actions(self.screen):
            yield DiscoveryHit(title, partial(self._run, action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, action in screen_actions(self.screen):
            score = matcher.match(title)
            if score > 0:
                yield Hit(
                    score, matcher.highlight(title), partial(self._run, action), text=title, help=help_text
                )
