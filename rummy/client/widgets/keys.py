"""The line of keys at the bottom of a screen: the actions that apply now.

One line of text, never wider than the terminal: when the keys do not all fit,
the reminder "^p palette" goes first (ctrl+p still works), then the gaps between
keys narrow to one space, then the last keys before help and quit make way, so
"? Help" and "q Quit" always show. It reads the
screen's own bindings and ``check_action``, so the keys and the command palette
agree on what applies; a click on a key runs its action.
A screen with a ``key_words`` dict (action: words) words its keys for the moment,
and one with an ``offers(action)`` method leaves out a key that applies but is not
worth offering now (t with no card of the pile usable): the key still works and
says why, and the palette still lists it.
Drawing it is one line of text, so it can follow every change of the game: a screen
calls ``follow()`` after each change, and the line is drawn again only when its keys
or their words have changed.
"""

from __future__ import annotations

from dataclasses import replace

from textual import events
from textual.actions import parse
from textual.binding import Binding
from textual.content import Content
from textual.widget import Widget

PINNED = ("help", "quit", "app.quit", "close")  # always shown, at the end


class KeyBar(Widget):
    DEFAULT_CSS = """
    KeyBar { height: 1; background: $panel; padding: 0 1; }
    """

    def __init__(self, palette: bool = True, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.palette = palette
        self._spots: list[tuple[int, int, str]] = []  # (start, end, action) of each key drawn
        self._shown: tuple[tuple[str, str, str], ...] = ()  # the keys as last followed

    def follow(self) -> None:
        """Draw the line again if the keys that apply now, or their words, have changed
        (and tell the screen's other displays of its bindings, such as Textual's keys panel)."""
        if not (self.is_mounted and self.is_attached):
            return  # not drawn yet (its first drawing reads them), or being taken down
        keys = tuple(self.keys())
        if keys != self._shown:
            self._shown = keys
            self.screen.refresh_bindings()
            self.refresh()

    def keys(self) -> list[tuple[str, str, str]]:
        """(key, description, action) of every shown binding of the screen that applies now."""
        screen = self.screen
        found = []
        for binding in screen.BINDINGS:
            if not isinstance(binding, Binding) or not binding.show or not binding.description:
                continue
            action = binding.action
            # With its parameters: a dialog may offer one choice and not another of one action.
            _, name, parameters = parse(action)
            if screen.check_action(name, parameters) is False:
                continue
            offers = getattr(screen, "offers", None)
            if offers is not None and not offers(name):
                continue
            # One key of several bound together ("escape,enter"): the first is the one to say.
            first = replace(binding, key=binding.key.split(",")[0])
            # A screen may word a key for what it asks now ("y Go out", not "y Yes").
            words = getattr(screen, "key_words", {}).get(action, binding.description)
            found.append((self.app.get_key_display(first), words, action))
        return found

    def line(self, width: int) -> Content:
        keys = self.keys()
        pinned = [k for k in keys if k[2] in PINNED]
        others = [k for k in keys if k[2] not in PINNED]
        palette = self.palette and getattr(self.app, "use_command_palette", True)
        tail = Content.styled("  ^p palette", "dim") if palette else Content("")

        def draw(
            items: list[tuple[str, str, str]], cut: bool, gap: int = 2
        ) -> tuple[Content, list[tuple[int, int, str]]]:
            parts: list[Content] = []
            spots = []
            x = 0
            for i, (key, words, action) in enumerate(items):
                if i:
                    parts.append(Content(" " * gap))
                    x += gap
                piece = Content.assemble((key, "bold $accent"), " ", words)
                spots.append((x, x + piece.cell_length, action))
                parts.append(piece)
                x += piece.cell_length
                if cut and i == len(items) - len(pinned) - 1:
                    parts.append(Content.styled(" …" if not self.ascii else " ...", "dim"))
                    x += 2 if not self.ascii else 4
            return Content.assemble(*parts), spots

        if draw(others + pinned, False)[0].cell_length + tail.cell_length > width:
            tail = Content("")  # the reminder of ctrl+p gives way before any key does
        # Then the gaps narrow to one space (the keys' colour still parts them), and only
        # then do keys make way: every key shown beats roomy gaps.
        tries = [(len(others), 2), (len(others), 1), *((keep, 2) for keep in range(len(others) - 1, -1, -1))]
        for keep, gap in tries:
            line, spots = draw(others[:keep] + pinned, keep < len(others), gap)
            if line.cell_length + tail.cell_length <= width or keep == 0:
                break
        self._spots = spots
        if line.cell_length + tail.cell_length <= width:
            line = Content.assemble(line, " " * (width - line.cell_length - tail.cell_length), tail)
        return line.truncate(width)

    @property
    def ascii(self) -> bool:
        return bool(getattr(self.app, "ascii", False))

    def render(self) -> Content:
        return self.line(max(1, self.content_size.width))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        for start, end, action in self._spots:
            if start <= offset.x < end:
                self.app.call_later(self.screen.run_action, action)
                return
