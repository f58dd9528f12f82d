"""Moves: small immutable values, one per thing a player can do (RULES R4, R6).

Each move has a text form for logs and tests (``move_text`` / ``parse_move``),
for example ``take 3 meld 7h 8h 9h``. The engine has no serialised form of its
own: storage, records and the network all use the wire's (``rummy.protocol.wire``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import PACK, Card, card_id_text, parse_card, parse_cards
from .errors import IllegalMove


@dataclass(frozen=True, slots=True)
class DrawStock:
    """R4.1: take the top card of the stock."""


@dataclass(frozen=True, slots=True)
class TakeDiscard:
    """R4.1: take the discard pile from ``index`` (0 is the bottom card) to the top,
    and use the target card ``pile[index]`` at once.

    ``cards`` are the cards of that use, the target card among them. With
    ``meld_id`` None they form a new meld; otherwise they are laid off on that meld:
    the target card alone, or for a run the target card with the cards that bridge
    the gap between the run's end and it.
    """

    index: int
    cards: tuple[Card, ...]
    meld_id: int | None = None


@dataclass(frozen=True, slots=True)
class NewMeld:
    """R4.2: lay down a new meld from the hand."""

    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class LayOff:
    """R4.2, R5.4: add one card of the hand to a meld on the table."""

    meld_id: int
    card: Card


@dataclass(frozen=True, slots=True)
class Discard:
    """R4.3: end the turn by putting a card of the hand on the discard pile."""

    card: Card


@dataclass(frozen=True, slots=True)
class Pass:
    """R6.1: with the stock empty, end the turn without drawing."""


@dataclass(frozen=True, slots=True)
class NextDeal:
    """Start the second deal once everyone has seen the end of the first (R3.1)."""


Move = DrawStock | TakeDiscard | NewMeld | LayOff | Discard | Pass | NextDeal

_DRAW = DrawStock()
_PASS = Pass()
_NEXT = NextDeal()
# Moves are values: one shared Discard per card saves building them for every turn.
DISCARDS: tuple[Discard, ...] = tuple(Discard(c) for c in PACK)


def _card(value: Any) -> Card:
    if type(value) is not int or not 0 <= value < 56:
        raise IllegalMove("bad-move", "That is not a card.")
    return value


def _int(value: Any, what: str) -> int:
    if type(value) is not int:
        raise IllegalMove("bad-move", f"The {what} must be a whole number.")
    return value


def _cards(value: Any) -> None:
    # A tuple, so that a move compares equal to the same move in legal_moves().
    if type(value) is not tuple:
        raise IllegalMove("bad-move", f"The cards must be a tuple, not a {type(value).__name__}.")
    if len(value) > len(PACK):
        raise IllegalMove("bad-move", f"A move names at most {len(PACK)} cards.")
    for c in value:
        if type(c) is not int or not 0 <= c < 56:
            raise IllegalMove("bad-move", "That is not a card.")


def check_move(move: object) -> None:
    """Raise ``IllegalMove('bad-move')`` unless ``move`` is a move whose fields have
    the declared types (cards are ints 0..55, bools excluded; card lists are tuples,
    so that a move compares equal to the same move in ``legal_moves()``).

    ``Game.apply`` calls it first, so that a move built by hand with garbage in it
    is refused with a sentence instead of crashing somewhere inside the engine.
    """
    # The common moves first, by their exact type: this runs for every move applied.
    if type(move) is Discard:
        card = move.card
        if type(card) is not int or not 0 <= card < 56:
            raise IllegalMove("bad-move", "That is not a card.")
        return
    if type(move) is DrawStock or type(move) is Pass or type(move) is NextDeal:
        return
    match move:  # the moves with more fields first
        case TakeDiscard():
            _int(move.index, "index")
            _cards(move.cards)
            if move.meld_id is not None:
                _int(move.meld_id, "meld id")
        case LayOff():
            _int(move.meld_id, "meld id")
            _card(move.card)
        case NewMeld():
            _cards(move.cards)
        case Discard():
            _card(move.card)
        case DrawStock() | Pass() | NextDeal():
            return
        case _:
            raise IllegalMove("bad-move", "That is not a move.")


def move_text(move: Move) -> str:
    """A compact text form: ``draw``, ``take 3 meld 7h 8h 9h``, ``take 0 layoff 2 Qs``,
    ``meld 5c 5d 5h``, ``layoff 2 Qs``, ``discard Jk``, ``pass``, ``next``."""
    match move:
        case DrawStock():
            return "draw"
        case TakeDiscard(index, cards, meld_id):
            cards_part = " ".join(map(card_id_text, cards))
            if meld_id is None:
                return f"take {index} meld {cards_part}"
            return f"take {index} layoff {meld_id} {cards_part}"
        case NewMeld(cards):
            return "meld " + " ".join(map(card_id_text, cards))
        case LayOff(meld_id, card):
            return f"layoff {meld_id} {card_id_text(card)}"
        case Discard(card):
            return f"discard {card_id_text(card)}"
        case Pass():
            return "pass"
        case NextDeal():
            return "next"
    raise TypeError(f"not a move: {move!r}")


def parse_move(text: str) -> Move:
    """Parse ``move_text``'s form; raises ``ValueError``."""
    words = text.split()
    if not words:
        raise ValueError("empty move")
    head, rest = words[0].lower(), words[1:]
    if head == "draw" and not rest:
        return _DRAW
    if head == "pass" and not rest:
        return _PASS
    if head == "next" and not rest:
        return _NEXT
    if head == "discard" and len(rest) == 1:
        return Discard(parse_card(rest[0]))
    if head == "meld" and rest:
        return NewMeld(tuple(parse_cards(" ".join(rest))))
    if head == "layoff" and len(rest) == 2:
        return LayOff(int(rest[0]), parse_card(rest[1]))
    if head == "take" and len(rest) >= 3:
        index = int(rest[0])
        if rest[1] == "meld":
            return TakeDiscard(index, tuple(parse_cards(" ".join(rest[2:]))))
        if rest[1] == "layoff" and len(rest) >= 4:
            return TakeDiscard(index, tuple(parse_cards(" ".join(rest[3:]))), int(rest[2]))
    raise ValueError(f"not a move: {text!r}")
