"""The rules engine (RULES.md): pure Python, no I/O, no clock, no global random.

The public API, documented in docs/ENGINE.md, is re-exported here.
"""

from .cards import (
    JOKERS,
    PACK,
    Card,
    card_id_text,
    card_text,
    cards_text,
    describe_card,
    parse_card,
    parse_cards,
    points,
    rank,
    suit,
)
from .errors import IllegalMove
from .events import (
    DealEnded,
    DealStarted,
    Discarded,
    DiscardTaken,
    Event,
    GameEnded,
    LaidOff,
    Melded,
    PartnersDrawn,
    Passed,
    StockDrawn,
    WentOut,
)
from .game import SEAT_NAMES, Game, GameRecord, Phase, legal_moves_in, new_melds, target_uses
from .melds import Meld, MeldKind, meld_kind
from .moves import (
    Discard,
    DrawStock,
    LayOff,
    Move,
    NextDeal,
    Pass,
    TakeDiscard,
    move_from_data,
    move_text,
    move_to_data,
    parse_move,
)
from .moves import Meld as MeldMove
from .partners import PartnerDraw, Seating, draw_for_partners
from .scoring import DealResult, TeamScore, score_deal, team_of
from .views import PlayerView, view_for

__all__ = [
    "JOKERS", "PACK", "SEAT_NAMES", "Card", "DealEnded", "DealResult", "DealStarted", "Discard",
    "DiscardTaken", "Discarded", "DrawStock", "Event", "Game", "GameEnded", "GameRecord",
    "IllegalMove", "LaidOff", "LayOff", "Meld", "MeldKind", "MeldMove", "Melded", "Move",
    "NextDeal", "PartnerDraw", "PartnersDrawn", "Pass", "Passed", "Phase", "PlayerView",
    "Seating", "StockDrawn", "TakeDiscard", "TeamScore", "WentOut", "card_id_text", "card_text",
    "cards_text", "describe_card", "draw_for_partners", "legal_moves_in", "meld_kind",
    "move_from_data", "move_text", "move_to_data", "new_melds", "parse_card", "parse_cards",
    "parse_move", "points", "rank", "score_deal", "suit", "target_uses", "team_of", "view_for",
]
