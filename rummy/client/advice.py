"""What the player can do now, worked out from the engine's legal moves.

The client never decides a rule itself: every hint, every choice of a card's use
and every "this would go out" comes from ``PlayerView.legal_moves()`` (the same
engine function the server checks moves with) or from counting cards.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from textual.content import Content

from rummy.engine import (
    Card,
    Discard,
    DrawStock,
    LayOff,
    Move,
    NewMeld,
    NextDeal,
    Pass,
    PlayerView,
    TakeDiscard,
    may_pass,
)

from . import text
from .describe import meld_name, turn_part
from .look import DEFAULT_LOOK, Look
from .model import Seats


@dataclass(frozen=True, slots=True)
class Hints:
    """What could be played now: hand cards, discard-pile indexes, meld ids."""

    hand: frozenset[Card] = frozenset()
    pile: frozenset[int] = frozenset()
    melds: frozenset[int] = frozenset()


def hints(view: PlayerView) -> Hints:
    hand: set[Card] = set()
    pile: set[int] = set()
    melds: set[int] = set()
    held = set(view.hand or ())
    for move in view.legal_moves():
        match move:
            case TakeDiscard(index, cards, meld_id):
                pile.add(index)
                hand.update(c for c in cards if c in held)
                if meld_id is not None:
                    melds.add(meld_id)
            case NewMeld(cards):
                hand.update(cards)
            case LayOff(meld_id, card):
                hand.add(card)
                melds.add(meld_id)
    return Hints(frozenset(hand), frozenset(pile), frozenset(melds))


def take_indexes(view: PlayerView) -> frozenset[int]:
    """The cards of the discard pile that can be taken now: those with a use (R4.1)."""
    return frozenset(m.index for m in view.legal_moves() if isinstance(m, TakeDiscard))


def can_take(view: PlayerView) -> bool:
    """Whether some card of the discard pile can be taken now (R4.1)."""
    return bool(take_indexes(view))


def take_options(view: PlayerView, index: int, selected: Iterable[Card] = ()) -> list[TakeDiscard]:
    """The legal takes from ``index`` (R4.1). Hand cards the player selected narrow
    the choice to the uses that include them, when any does."""
    moves = [m for m in view.legal_moves() if isinstance(m, TakeDiscard) and m.index == index]
    chosen = set(selected) & set(view.hand or ())
    if chosen:
        narrowed = [m for m in moves if chosen <= set(m.cards)]
        if narrowed:
            return narrowed
    return moves


def lay_off_options(view: PlayerView, card: Card) -> list[LayOff]:
    return [m for m in view.legal_moves() if isinstance(m, LayOff) and m.card == card]


def legal(view: PlayerView, move: Move) -> bool:
    """Whether ``move`` is among the legal moves (meld cards in any order)."""
    if isinstance(move, NewMeld):
        move = NewMeld(tuple(sorted(move.cards)))
    return move in view.legal_moves()


def goes_out(view: PlayerView, move: Move) -> bool:
    """Whether ``move`` would empty the hand while melding, ending the deal (R4.4)."""
    held = len(view.hand or ())
    match move:
        case NewMeld(cards):
            return held == len(cards)
        case LayOff():
            return held == 1
        case TakeDiscard(index, cards, _):
            return held + len(view.discard_pile) - index - len(cards) == 0
    return False


def move_words(move: Move, view: PlayerView, seats: Seats, look: Look = DEFAULT_LOOK) -> Content:
    """A move as an option in a list: 'Take 7♥ and 2 more, meld 7♥ 7♠ 7♦'."""
    melds = {m.id: m for m in view.melds}
    match move:
        case TakeDiscard(index, cards, meld_id):
            target = view.discard_pile[index]
            more = len(view.discard_pile) - index - 1
            head = Content.assemble("Take ", text.card(target, look), f" and {more} more" if more else "")
            if meld_id is None:
                return Content.assemble(head, ", meld ", text.cards(cards, look))
            use = Content.assemble(", lay off ", text.cards(cards, look), " on ")
            return Content.assemble(head, use, meld_name(melds[meld_id], seats))
        case LayOff(meld_id, card):
            return Content.assemble(
                "Lay off ", text.card(card, look), " on ", meld_name(melds[meld_id], seats)
            )
        case NewMeld(cards):
            return Content.assemble("Meld ", text.cards(cards, look))
        case Discard(card):
            return Content.assemble("Discard ", text.card(card, look))
        case DrawStock():
            return Content("Draw from the stock")
        case Pass():
            return Content("Pass")
        case NextDeal():
            return Content("Start the next deal")
    return Content(str(move))


def prompt(
    view: PlayerView | None,
    seats: Seats,
    chosen: Sequence[Card],
    look: Look = DEFAULT_LOOK,
    lobby: bool = False,
    again: bool = True,
    hinting: bool = False,
    pressed: str | None = None,
) -> Content:
    """The always-visible line: what this player can do now. ``lobby``: the client has
    a lobby to go back to (a server's, not the local game's); ``again``: another game
    may be asked for at the game's end (not once someone has left the table);
    ``hinting``: the hints are on, and when they mark nothing this line says what is
    left to do (a toast said it, and stayed up after the turn had moved on);
    ``pressed``: a key of the turn the player pressed out of its time in this moment of
    the game (``moment``): the line says why it did nothing."""
    if view is None:
        return Content("Waiting for the game to start.")
    if view.phase == "game_over":
        # The way back to the lobby is said here: b is not in the footer, and q at a
        # game's end quits at once (a player back from "watch again" had no other sign).
        if view.seat is None:
            return Content("The game is over. b returns to the lobby.")  # a spectator's
        if not again:
            return Content("The game is over and a player has left: b for the lobby, q to quit.")
        back = " b for the lobby," if lobby else ""
        return Content(f"The game is over: a for another game,{back} q to quit.")
    if view.seat is None and view.phase == "deal_over":
        # Nobody is to play between deals: "Dara is ." said nothing.
        return Content("You are watching: the deal is over; r shows its scores. b returns to the lobby.")
    current = text.plain(seats.who(view.current), "bold")
    away = ", who is away" if seats.away(view.current) else ""
    if view.seat is None:
        verb = f"{away}, is" if away else " is"
        return Content.assemble(
            "You are watching: ", current, verb, f" {turn_part(view)}. b returns to the lobby."
        )
    if view.phase == "deal_over":
        return Content("The deal is over: n when you are ready for the next deal; r shows the scores.")
    why = not_now(view, seats, pressed) if pressed is not None else None
    if why is not None:
        said = Content.styled(why, "$warning")
        return Content.assemble(said, _meanwhile(view, lobby)) if not view.my_turn else said
    if not view.my_turn:
        meanwhile = _meanwhile(view, lobby)
        return Content.assemble("Waiting for ", current, away, f" ({turn_part(view)}).", meanwhile)
    h = hints(view)
    if view.phase == "draw":
        takes = "t takes from the discard pile at the marked card"
        if not h.pile:
            takes = "no card of the discard pile can be used now"
        if may_pass(view.stock_count):
            return Content(f"The stock is empty: {takes}; p passes.")
        return Content(f"Your turn: s draws from the stock; {takes}.")
    # The meld part of the turn: say what the chosen cards can do.
    cards = list(chosen)
    advice = Content("m melds the selected cards, l lays one off, d discards (ends the turn).")
    if hinting and not (h.hand or h.melds):
        advice = Content("Hints: nothing to meld or lay off now; d discards a card and ends the turn.")
    if len(cards) >= 3 and legal(view, NewMeld(tuple(cards))):
        return Content.assemble("Meld ready: ", text.cards(cards, look), ". m melds them.")
    if len(cards) == 1:
        fits = lay_off_options(view, cards[0])
        if fits:
            return Content.assemble(
                text.card(cards[0], look),
                f" fits {len(fits)} meld{'s' if len(fits) > 1 else ''}: l lays it off, d discards it.",
            )
    if hinting and len(cards) <= 1:  # nothing chosen but the card under the cursor
        return _what_to_play(view, look) or advice
    return advice


def _what_to_play(view: PlayerView, look: Look) -> Content | None:
    """With the hints on and nothing selected: one play the marked cards make, named
    (the longest meld, else a lay-off). Seen in tmux: a new player with 6♣ 6♦ 6♥ marked
    read only "m melds the selected cards", and held the three to the deal's end."""
    melds = [move.cards for move in view.legal_moves() if isinstance(move, NewMeld)]
    if melds:
        best = max(melds, key=len)
        return Content.assemble(
            "Hints: ",
            text.cards(list(best), look),
            " make a meld: select them, then m; d discards (ends the turn).",
        )
    for move in view.legal_moves():
        if isinstance(move, LayOff):
            return Content.assemble(
                "Hints: ",
                text.card(move.card, look),
                " fits a meld on the table: select it, then l; d discards.",
            )
    return None


TURN_KEYS = frozenset("stpmld")  # the keys of a turn's moves: each in its part of it (R4)

# A moment of the game as far as a key of the turn goes: whose turn it is, and which
# part of it for one's own (another's draw and meld are one wait).
Moment = tuple[int, str]


def moment(view: PlayerView) -> Moment:
    part = view.phase if view.my_turn or view.phase not in ("draw", "meld") else "turn"
    return (view.current, part)


def not_now(view: PlayerView, seats: Seats, key: str) -> str | None:
    """Why ``key``, a key of a turn's move, does nothing now (None: it is not one, or
    applies now, or the player has no turn at all)."""
    if key not in TURN_KEYS or view.seat is None or view.phase not in ("draw", "meld"):
        return None
    if not view.my_turn:
        who = text.clean(seats.name(view.current), 24)
        return f"It is {who}'s turn ({turn_part(view)}): wait for yours."
    if view.phase == "draw" and key in "mld":
        return f"First {draw_keys(view)}: a turn is draw, meld, discard (R4)."
    if view.phase == "meld" and key in "stp":
        return "You have drawn this turn: now meld (m), lay off (l), or discard (d) to end it (R4)."
    return None


def draw_keys(view: PlayerView) -> str:
    """The keys that begin this turn: s while the stock has cards; with it empty, p,
    and t only when some card of the pile can be used (R6.1): offering t there sent a
    player with nothing to take to a key that only says it cannot take."""
    if not may_pass(view.stock_count):
        return "draw (s)"
    return "take (t) or pass (p)" if can_take(view) else "pass (p)"


def _meanwhile(view: PlayerView, lobby: bool) -> str:
    """What a player can do while others play: sort and reorder their hand (not an
    empty one: "you can sort" with no card in hand, after discarding the last, R4.5),
    and at a server's table chat (there is no chat with bots)."""
    doing = ["sort (o), reorder (<, >)"] if view.hand else []
    if lobby:
        doing.append("chat (c)")
    return f" You can {' and '.join(doing)}." if doing else ""
