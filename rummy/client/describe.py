"""Engine events and moves in words, for the log and for the choice of a move's use.

Names are the players' own text, so they go in as literal content (``text.plain``).
"""

from __future__ import annotations

from textual.content import Content

from rummy.engine import (
    DealEnded,
    DealStarted,
    Discarded,
    DiscardTaken,
    Event,
    GameEnded,
    LaidOff,
    Meld,
    Melded,
    PartnersDrawn,
    Passed,
    PlayerView,
    StockDrawn,
    WentOut,
    may_pass,
    rank_name,
    suit_name,
)

from . import text
from .look import DEFAULT_LOOK, Look
from .model import Seats

_PART = Content | str


def turn_part(view: PlayerView) -> str:
    """What the player to act is doing, in words."""
    if view.phase == "draw":
        return "to take or pass" if may_pass(view.stock_count) else "to draw"
    if view.phase == "meld":
        return "to meld or discard"
    return ""


def _who(seats: Seats, seat: int) -> Content:
    return text.plain(seats.who(seat), "bold")


def _line(*parts: _PART) -> Content:
    return Content.assemble(*parts)


def meld_name(meld: Meld, seats: Seats) -> Content:
    """'North's run of hearts (meld 3)' / 'your set of 7s (meld 1)': melds are numbered
    from 1 on the screen."""
    if meld.kind == "jokers":
        what = "Joker set"
    elif meld.kind == "set":
        what = f"set of {rank_name(meld.cards[0])}s"
    else:
        what = f"run of {suit_name(meld.cards[0])}"
    owner = "your" if meld.laid_by == seats.me else f"{seats.name(meld.laid_by)}'s"
    return _line(text.plain(owner), f" {what} (meld {meld.id + 1})")


def auto_words(auto: str, seat: int, seats: Seats) -> str:
    """Who played a move for ``seat`` when its player did not (the game push's ``auto``)."""
    if auto == "timer":
        return "time ran out: the server played this"
    if seat == seats.me:
        return "played by a bot while you were away"
    return f"played by a bot while {seats.name(seat)} is away"


def turn_phrase(event: Event, seats: Seats, look: Look = DEFAULT_LOOK) -> tuple[int, Content] | None:
    """A move of a turn as a phrase without its subject ('drew from the stock'), with
    the seat that made it; None for events that are not part of a turn."""
    match event:
        case StockDrawn(seat):
            return seat, Content("drew from the stock")
        case DiscardTaken(seat, _index, taken):
            took = _line("took ", text.card(taken[0], look))
            if len(taken) == 1:  # "took Q♣ from the discard pile (Q♣)" said it twice
                return seat, _line(took, " from the discard pile")
            many = f" and {len(taken) - 1} more from the discard pile ("
            return seat, _line(took, many, text.cards(taken, look), ")")
        case Melded(seat, meld_id, cards, four_at_once):
            double = ": four at once, they score double" if four_at_once else ""
            return seat, _line("melded ", text.cards(cards, look), f" (meld {meld_id + 1}){double}")
        case LaidOff(seat, meld_id, cards, owner):
            if owner == seat:  # "You laid off ... on your own meld", "Bob ... on their own"
                whose: str | None = "your own" if seat == seats.me else "their own"
            else:
                whose = "your" if owner == seats.me else None
            owner_part: _PART = whose if whose is not None else _line(text.plain(seats.name(owner)), "'s")
            return seat, _line(
                "laid off ", text.cards(cards, look), " on ", owner_part, f" meld {meld_id + 1}"
            )
        case Discarded(seat, card):
            return seat, _line("discarded ", text.card(card, look))
        case Passed(seat, in_a_row):
            return seat, Content(f"passed ({in_a_row} in a row)")
        case WentOut(seat):
            return seat, Content("went out!")
    return None


def event_line(event: Event, seats: Seats, look: Look = DEFAULT_LOOK) -> Content | None:
    """One event as a sentence (None for events that need no line of their own)."""
    phrase = turn_phrase(event, seats, look)
    if phrase is not None:
        seat, words = phrase
        end = "" if words.plain.endswith("!") else "."
        return _line(_who(seats, seat), " ", words, end)
    match event:
        case PartnersDrawn(draw):
            what = "Draw for partners: " if draw.seating == "draw" else "Draw for the first dealer: "
            parts: list[_PART] = [what]
            for k, round_ in enumerate(draw.rounds):
                if k:
                    parts.append("; tie, again: ")
                for i, (chair, card) in enumerate(round_):
                    if i:
                        parts.append(", ")
                    seat = draw.seat_of_chair[chair]
                    parts += [text.plain(seats.name(seat)), " ", text.card(card, look)]
            if draw.seating == "draw":
                # What the cards decided (R2.2), for whoever has not read the rule book:
                # the line gave the cards alone.
                lowest = [draw.first_dealer, (draw.first_dealer + 2) % 4]
                lowest.sort(key=lambda seat: seat == seats.me)  # "you" last
                first, second = ("you" if seat == seats.me else seats.name(seat) for seat in lowest)
                parts += [
                    " (Aces low): the two lowest, ",
                    text.plain(first),
                    " and ",
                    text.plain(second),
                    ", are partners",
                ]
            parts.append(".")
            return _line(*parts)
        case DealStarted(deal, dealer, first):
            return _line(
                f"Deal {deal} of 2 begins. ",
                _who(seats, dealer),
                " dealt; ",
                text.card(first, look),
                " starts the discard pile.",
            )
        case DealEnded(result):
            a, b = result.scores[0].total, result.scores[1].total
            if result.ended_by == "passes" or result.went_out is None:
                why: _PART = "on four passes"
            else:  # the log says who went out, as the deal's end does (R4.4)
                out = result.went_out
                who = "you" if out == seats.me else text.plain(seats.name(out), "bold")
                why = Content.assemble("when ", who, " went out")
            return _line(
                f"Deal {result.deal} ended ",
                why,
                f": {text.team_name(0, look.ascii)} {a:+d}, {text.team_name(1, look.ascii)} {b:+d}.",
            )
        case GameEnded(totals, winner):
            a, b = totals
            if winner is None:
                return _line(f"The game is over: a tie at {a} each.")
            return _line(
                f"The game is over: {text.team_name(winner, look.ascii)} win, {max(a, b)} to {min(a, b)}."
            )
    return None
