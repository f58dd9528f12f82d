"""Players (and spectators) of the same name told apart, the same way on every screen.

The server keeps each player's name as they typed it (their records and history are
found by it), so two people may both be "Ana" at one table. Each screen shows the
first of them by chair as "Ana" and the next as "Ana (2)": the lobby's chairs, the
table, the chat, the results and the replay (its chairs from the partner draw) all
label a name with this one helper, so "Ana (2)" is the same person everywhere. It
needs nothing but the names and chairs every client is sent (R9: nobody learns more).

Spectators are told apart the same way, by the number the table gives each of them
(``SpectatorInfo.spectator``, which says nothing else), after the players: the first
"Ana" watching is "Ana" unless a player is, the next "Ana (2)", in the table's list of
watchers and in the chat.
"""

from __future__ import annotations

from collections.abc import Sequence

from rummy.protocol import NAME_LIMIT, SpectatorInfo, TableInfo, sanitize


def distinct(names: Sequence[str | None]) -> list[str | None]:
    """``names`` (None: an empty chair) as shown: each name the first time as it is,
    again as 'Ana (2)', 'Ana (3)', never as another player's own name. A label is cut
    to keep within ``NAME_LIMIT`` (what the server keeps of a name, and what the screens
    show) with its number whole."""
    taken = {name for name in names if name is not None}
    seen: set[str] = set()
    shown: list[str | None] = []
    for name in names:
        if name is None or name not in seen:
            shown.append(name)
            if name is not None:
                seen.add(name)
            continue
        number = 2
        while True:
            suffix = f" ({number})"
            label = name[: NAME_LIMIT - len(suffix)] + suffix
            if label not in taken:
                break
            number += 1
        taken.add(label)
        shown.append(label)
    return shown


def chair_names(info: TableInfo) -> dict[int, str]:
    """The name each taken chair of ``info`` is shown by (cleaned, told apart)."""
    taken = sorted((chair for chair in info.chairs if chair.name is not None), key=lambda c: c.chair)
    names = distinct([sanitize(chair.name or "", NAME_LIMIT) for chair in taken])
    return {chair.chair: name or "" for chair, name in zip(taken, names, strict=True)}


def watcher_names(info: TableInfo | None, watchers: Sequence[SpectatorInfo]) -> dict[int, str]:
    """The name each spectator of ``watchers`` is shown by, by their number: told apart
    from each other in the order they came (their numbers), and from the players, whose
    own names (as ``chair_names`` shows them) they never take: a spectator named like
    a player is "Ana (2)", the player stays "Ana"."""
    players = [] if info is None else list(chair_names(info).values())
    ordered = sorted(watchers, key=lambda w: w.spectator)
    shown = distinct([*players, *(sanitize(w.name, NAME_LIMIT) for w in ordered)])[len(players) :]
    return {w.spectator: name or "" for w, name in zip(ordered, shown, strict=True)}
