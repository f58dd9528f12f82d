"""The log: the deal's whole story, one line per turn.

A turn's moves join one line as they come ("Bob drew from the stock, melded 7♥ 8♥
9♥ (meld 3), discarded 2♣."), so even a few rows of log show several turns. A
move the server made for a player (the timer ran out, or a bot stood in while
they were away) says so on its line.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content

from rummy.engine import Event
from rummy.protocol import PlayedBy

from ... import text
from ...describe import auto_words, event_line, turn_phrase
from ...look import DEFAULT_LOOK, Look
from ...model import Seats
from ..feed import Feed


class GameLog(Feed):
    def __init__(self, placeholder: str = "Moves appear here.", **kwargs: object) -> None:
        super().__init__(placeholder, keep=400, **kwargs)
        self._turn: tuple[int, list[Content | str], set[str]] | None = None  # seat, parts, notes

    def tell(
        self, events: Sequence[Event], seats: Seats, look: Look = DEFAULT_LOOK, auto: PlayedBy | None = None
    ) -> None:
        """One move's events (or the opening's)."""
        for event in events:
            phrase = turn_phrase(event, seats, look)
            if phrase is None:
                line = event_line(event, seats, look)
                if line is not None:
                    self.note(line)
                continue
            seat, words = phrase
            if self._turn is None or self._turn[0] != seat:
                self._turn = (seat, [text.plain(seats.who(seat), "bold"), " ", words], set())
                self.add(self._line())
            else:
                self._turn[1].extend([", ", words])
            if auto is not None and auto not in self._turn[2]:
                self._turn[2].add(auto)
                self._turn[1].append(Content.styled(f" ({auto_words(auto, seat, seats)})", "italic"))
            self.replace_last(self._line())

    def _line(self) -> Content:
        assert self._turn is not None
        line = Content.assemble(*self._turn[1])
        return line if line.plain.endswith("!") else Content.assemble(line, ".")

    def note(self, line: Content) -> None:
        """A line of its own (a deal's start or end, a refusal, a note of the client's)."""
        self._turn = None
        self.add(line)

    def restart(self) -> None:
        """Forget the story told so far (the server tells it again)."""
        self._turn = None
        self.clear_lines()
