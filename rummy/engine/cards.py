"""Cards and the 56-card pack (RULES R1).

A card is a small int, so that hands and melds are cheap to copy and compare:
0..51 are the French cards, ``suit * 13 + (rank - 2)``, and 52..55 are the four
Jokers. The Jokers are interchangeable for every rule (R1.1); their distinct
ids only let each physical card be tracked.

Every card has a short text form (``10♥``, ``A♠``, ``JK``) and an ASCII form
(``10h``, ``As``, ``Jk``). Both parse back. Since the Jokers share one face, a
bare ``JK``/``Jk`` parses to the first Joker; ``Jk2``..``Jk4`` name the others
(``card_id_text`` prints that form, for logs that must tell them apart).
"""

from __future__ import annotations

from collections.abc import Iterable

Card = int

SUITS = "cdhs"  # clubs, diamonds, hearts, spades: the ASCII letters
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
JOKER_SUIT = 4

RANK_TEXT = {2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10"}
RANK_TEXT.update({11: "J", 12: "Q", 13: "K", 14: "A"})
RANK_NAMES = {11: "Jack", 12: "Queen", 13: "King", 14: "Ace"}
JOKER_RANK = 15  # above the Ace, so that sorting by rank puts Jokers last

ACE = 14
FIRST_JOKER = 52
JOKERS: tuple[Card, ...] = (52, 53, 54, 55)
PACK: tuple[Card, ...] = tuple(range(56))


def make_card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (2..14, Ace high) in ``suit`` (0..3): the one place where a
    card's number is worked out from its rank and suit."""
    if not 2 <= rank <= ACE or not 0 <= suit <= 3:
        raise ValueError(f"no card of rank {rank} and suit {suit}")
    return suit * 13 + rank - 2


def of_rank(rank: int) -> tuple[Card, ...]:
    """The four cards of ``rank`` (2..14), in suit order; for ``JOKER_RANK``, the Jokers."""
    return _OF_RANK[rank]


def _points(card: Card) -> int:
    if card >= FIRST_JOKER:
        return 20
    r = card % 13 + 2
    if r == ACE:
        return 15
    return 10 if r >= 10 else r  # R1.2 ruling: the 10 counts 10


# Lookup tables: the engine's hot loops index these instead of computing.
RANK: tuple[int, ...] = tuple(c % 13 + 2 if c < FIRST_JOKER else JOKER_RANK for c in PACK)
SUIT: tuple[int, ...] = tuple(c // 13 if c < FIRST_JOKER else JOKER_SUIT for c in PACK)
POINTS: tuple[int, ...] = tuple(_points(c) for c in PACK)
_OF_RANK: dict[int, tuple[Card, ...]] = {
    r: tuple(make_card(r, s) for s in range(4)) for r in range(2, ACE + 1)
}
_OF_RANK[JOKER_RANK] = JOKERS


def rank(card: Card) -> int:
    return RANK[card]


def suit(card: Card) -> int:
    return SUIT[card]


def points(card: Card) -> int:
    """Card points (R1.2): Joker 20, Ace 15, 10/J/Q/K 10, 2..9 face value."""
    return POINTS[card]


def is_joker(card: Card) -> bool:
    return card >= FIRST_JOKER


def card_text(card: Card, ascii: bool = False) -> str:
    """``10♥``/``JK``, or with ``ascii`` ``10h``/``Jk``."""
    if card >= FIRST_JOKER:
        return "Jk" if ascii else "JK"
    letters = SUITS if ascii else SUIT_SYMBOLS
    return RANK_TEXT[RANK[card]] + letters[SUIT[card]]


def card_id_text(card: Card) -> str:
    """ASCII form that tells the four Jokers apart: ``Jk``, ``Jk2``, ``Jk3``, ``Jk4``."""
    if card > FIRST_JOKER:
        return f"Jk{card - FIRST_JOKER + 1}"
    return card_text(card, ascii=True)


def cards_text(cards: Iterable[Card], ascii: bool = False) -> str:
    return " ".join(card_text(c, ascii) for c in cards)


_RANK_BY_TEXT = {text: r for r, text in RANK_TEXT.items()}
_RANK_BY_TEXT["T"] = 10
_SUIT_BY_TEXT = {ch: i for i, ch in enumerate(SUITS)}
_SUIT_BY_TEXT.update({ch: i for i, ch in enumerate(SUIT_SYMBOLS)})


def parse_card(text: str) -> Card:
    """Parse one card in either form; raises ``ValueError`` with a readable reason."""
    # U+FE0F asks for the emoji form of a suit symbol; pasted cards often carry it.
    t = text.strip().replace("\ufe0f", "")
    if t[:2].upper() == "JK":
        n = t[2:] or "1"
        if n in ("1", "2", "3", "4"):
            return FIRST_JOKER + int(n) - 1
        raise ValueError(f"{text!r} is not a card")
    if len(t) < 2:
        raise ValueError(f"{text!r} is not a card")
    rank_text, suit_text = t[:-1].upper(), t[-1].lower() if t[-1].isascii() else t[-1]
    r = _RANK_BY_TEXT.get(rank_text)
    s = _SUIT_BY_TEXT.get(suit_text)
    if r is None or s is None:
        raise ValueError(f"{text!r} is not a card")
    return make_card(r, s)


def parse_cards(text: str) -> list[Card]:
    """Parse cards separated by spaces or commas. Repeated bare ``Jk`` take the next Joker."""
    result: list[Card] = []
    for word in text.replace(",", " ").split():
        card = parse_card(word)
        if card >= FIRST_JOKER and word.strip()[2:] == "":
            while card in result and card < JOKERS[-1]:
                card += 1
        result.append(card)
    return result


def rank_name(card: Card) -> str:
    """The spoken name of the card's rank: 'Jack', '7', 'Joker'."""
    if card >= FIRST_JOKER:
        return "Joker"
    r = RANK[card]
    return RANK_NAMES.get(r, str(r))


def suit_name(card: Card) -> str | None:
    """The spoken name of the card's suit: 'hearts'; None for a Joker, which has none."""
    return None if card >= FIRST_JOKER else SUIT_NAMES[SUIT[card]]


def describe_card(card: Card) -> str:
    """A spoken name, for screens and logs: 'Jack of hearts', 'Joker'."""
    suit_words = suit_name(card)
    return rank_name(card) if suit_words is None else f"{rank_name(card)} of {suit_words}"


def sort_key_suit(card: Card) -> tuple[int, int]:
    """Order for a hand sorted by suit, then rank."""
    return (SUIT[card], RANK[card])


def sort_key_rank(card: Card) -> tuple[int, int]:
    """Order for a hand sorted by rank, then suit."""
    return (RANK[card], SUIT[card])
