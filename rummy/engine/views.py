"""Views (RULES R9): what one seat, or a spectator, may see of a game.

A view holds everything public (R9.1) and the seat's own hand, nothing more:
no other hand, no card of the stock, no seed or random state (R9.2). The hands
of a deal are shown to all once that deal has ended (R7), in ``results``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card
from .game import Game, Phase, legal_moves_in
from .melds import Meld
from .moves import Move
from .partners import PartnerDraw
from .scoring import DealResult, totals, winner


@dataclass(frozen=True, slots=True)
class PlayerView:
    """One seat's view (``seat`` None: a spectator's, with no hand).

    ``melds`` are copies (unless asked otherwise): changing them changes nothing in
    the game.
    """

    seat: int | None
    phase: Phase
    deal: int
    dealer: int
    current: int
    hand: tuple[Card, ...] | None
    hand_counts: tuple[int, int, int, int]
    stock_count: int
    discard_pile: tuple[Card, ...]
    melds: tuple[Meld, ...]
    passes: int
    partner_draw: PartnerDraw
    results: tuple[DealResult, ...]

    @property
    def my_turn(self) -> bool:
        return self.seat is not None and self.seat == self.current and self.phase != "game_over"

    def legal_moves(self) -> list[Move]:
        """This seat's legal moves, the same list ``Game.legal_moves`` gives (empty
        when it is not this seat's turn)."""
        if not self.my_turn or self.hand is None:
            return []
        return legal_moves_in(self.phase, self.hand, self.discard_pile, self.stock_count, list(self.melds))

    def totals(self) -> tuple[int, int]:
        return totals(self.results)

    def winner(self) -> int | None:
        """As ``Game.winner``: 0 or 1, None for a tie; ``ValueError`` before the end."""
        if self.phase != "game_over":
            raise ValueError("The game is not over: there is no winner yet.")
        return winner(self.results)


def view_for(game: Game, seat: int | None, *, shared_melds: bool = False) -> PlayerView:
    """The view of ``seat`` (0..3), or of a spectator for None.

    ``shared_melds``: the view's melds are the game's own, not copies, so the view
    must be read at once and not kept or changed: for a view turned into a message
    there and then (the server's push after every move, where the copies were a
    good part of the push's cost)."""
    if not isinstance(game, Game):
        raise TypeError(f"view_for takes a Game, not {type(game).__name__}")
    if seat is not None:  # True is an int to Python, but no seat
        if type(seat) is not int:
            raise TypeError(f"a seat is 0..3 or None (a spectator), not {seat!r}")
        if not 0 <= seat < 4:
            raise ValueError(f"no seat {seat}: seats are 0..3, or None for a spectator")
    hands = game.hands
    return PlayerView(
        seat=seat,
        phase=game.phase,
        deal=game.deal,
        dealer=game.dealer,
        current=game.current,
        hand=None if seat is None else tuple(hands[seat]),
        hand_counts=(len(hands[0]), len(hands[1]), len(hands[2]), len(hands[3])),
        stock_count=len(game.stock),
        discard_pile=tuple(game.discard_pile),
        melds=tuple(game.melds) if shared_melds else tuple(m.copy() for m in game.melds),
        passes=game.passes,
        partner_draw=game.partner_draw,
        results=tuple(game.results),
    )


def world_from_view(view: PlayerView, hands: Sequence[Sequence[Card]], stock: Sequence[Card]) -> Game:
    """A game in the position ``view`` shows, with what the view hides filled in: every
    seat's hand (the view's own as it is) and the stock, its top card last. A bot that
    looks ahead plays such worlds out, drawn to agree with all it has seen (R9: the
    view is all it knows). Raises ``ValueError`` if the cards given do not fit the view:
    the view's own hand, the hand counts and the stock count must match."""
    if view.seat is None or view.hand is None or view.phase not in ("draw", "meld"):
        raise ValueError("a world is built from a seat's view of a deal under way")
    if tuple(len(h) for h in hands) != view.hand_counts or len(stock) != view.stock_count:
        raise ValueError("the hands and the stock must have the sizes the view shows")
    if sorted(hands[view.seat]) != sorted(view.hand):
        raise ValueError("the view's own hand must be as it is")
    return Game.in_position(
        hands=hands,
        stock=stock,
        discard_pile=view.discard_pile,
        melds=view.melds,
        phase=view.phase,
        current=view.current,
        deal=view.deal,
        dealer=view.dealer,
        passes=view.passes,
        results=view.results,
        partner_draw=view.partner_draw,
    )
