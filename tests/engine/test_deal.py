"""The deal: two deals a game, the deal itself, the second dealer, the seed (RULES R3)."""

from __future__ import annotations

import random
import secrets

import pytest

from rummy.engine import (
    PACK,
    DealStarted,
    Game,
    GameEnded,
    IllegalMove,
    NextDeal,
    deal_pack,
    draw_for_partners,
)
from tests.support import at_random, play_until


def play_randomly(game: Game, rng: random.Random, until_phase: str = "game_over") -> None:
    play_until(game, at_random(rng), lambda g: g.phase == until_phase)


def test_a_game_is_exactly_two_deals_R3_1() -> None:
    """R3.1: after the first deal ends the game waits for the second (NextDeal); after the
    second it is over, with two results, and no third deal can start."""
    game = Game(21)
    rng = random.Random(1)
    play_randomly(game, rng, "deal_over")
    assert [r.deal for r in game.results] == [1]
    assert game.legal_moves() == [NextDeal()]
    events = game.apply(NextDeal())
    assert isinstance(events[0], DealStarted) and events[0].deal == 2 and game.deal == 2
    assert game.phase == "draw"
    events = play_until(game, at_random(rng))
    assert isinstance(events[-1], GameEnded)
    assert [r.deal for r in game.results] == [1, 2]
    assert game.legal_moves() == []
    with pytest.raises(IllegalMove) as refused:
        game.apply(NextDeal())
    assert refused.value.code == "game-over"


def test_next_deal_only_between_deals_R3_1() -> None:
    """R3.1: NextDeal is refused while a deal is being played."""
    game = Game(2)
    with pytest.raises(IllegalMove) as refused:
        game.apply(NextDeal())
    assert refused.value.code == "wrong-phase"


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_deal_seven_each_one_at_a_time_from_dealers_left_R3_2(dealer: int) -> None:
    """R3.2: seven cards each, one at a time, beginning with the player to the dealer's
    left; 28 left as stock, whose top card is turned face up (27 remain)."""
    pack = list(PACK)  # unshuffled, so the order is known: pack[0] is dealt first
    hands, stock, pile = deal_pack(pack, dealer)
    left = (dealer + 1) % 4
    for k in range(4):
        seat = (left + k) % 4
        assert hands[seat] == [pack[k + 4 * i] for i in range(7)]
    assert stock == pack[28:55]  # the top of the stock is its last card
    assert pile == [pack[55]]  # the stock's top card, turned face up


@pytest.mark.parametrize("seed", [0, 1, 2, 99])
def test_game_deals_as_the_rule_says_R3_2(seed: int) -> None:
    """R3.2 in a real game: 7 cards each, 27 in the stock, 1 face up; the dealer's left
    plays first (R4); the deal is ``deal_pack`` on the game's own seeded shuffle."""
    game = Game(seed)
    assert [len(h) for h in game.hands] == [7, 7, 7, 7]
    assert len(game.stock) == 27 and len(game.discard_pile) == 1
    everything = [c for h in game.hands for c in h] + game.stock + game.discard_pile
    assert sorted(everything) == list(PACK)
    assert game.current == (game.dealer + 1) % 4
    assert game.opening_events[1] == DealStarted(1, game.dealer, game.discard_pile[0])
    # The one rng, seeded with the game's seed, first draws for partners, then shuffles.
    rng = random.Random(seed)
    draw_for_partners(rng, "draw")
    pack = list(PACK)
    rng.shuffle(pack)
    assert (game.hands, game.stock, game.discard_pile) == deal_pack(pack, game.dealer)


@pytest.mark.parametrize(("seed", "seating"), [(s, m) for s in range(12) for m in ("draw", "chosen")])
def test_second_dealer_is_left_of_the_first_R3_3(seed: int, seating: str) -> None:
    """R3.3: the second deal is dealt by the player to the left of the first dealer;
    its first turn goes to that dealer's left."""
    game = Game(seed, seating)  # type: ignore[arg-type]
    first = game.dealer
    assert first == game.partner_draw.first_dealer
    play_randomly(game, random.Random(seed), "deal_over")
    assert game.current == (first + 1) % 4  # the next dealer starts the second deal
    game.apply(NextDeal())
    assert game.dealer == (first + 1) % 4
    assert game.current == (first + 2) % 4
    assert [len(h) for h in game.hands] == [7, 7, 7, 7] and len(game.stock) == 27
    assert game.melds == [] and game.passes == 0


def test_seed_is_recorded_and_replays_the_game_R3_4() -> None:
    """R3.4: a seeded game records its seed; the seed and the moves rebuild it exactly."""
    game = Game(123456789)
    play_randomly(game, random.Random(5), "deal_over")
    record = game.record()
    assert record.seed == 123456789 and record.seating == "draw"
    assert Game.replay(record).snapshot() == game.snapshot()


def test_real_games_are_seeded_from_a_secure_source_R3_4(monkeypatch: pytest.MonkeyPatch) -> None:
    """R3.4: without a seed the game draws one of at least 128 bits from ``secrets``
    (256: more seeds than the 56! orderings of the pack) and records it."""
    calls: list[int] = []

    def fake_randbits(k: int) -> int:
        calls.append(k)
        return 4242

    monkeypatch.setattr(secrets, "randbits", fake_randbits)
    game = Game.new()
    assert calls == [256]
    assert game.seed == 4242 and game.record().seed == 4242
    assert game.snapshot() == Game(4242).snapshot()


def test_unseeded_games_differ_and_ignore_the_global_random_R3_4() -> None:
    """R3.4: two real games get different seeds; the engine never touches the global
    ``random`` (whose seed anyone could set) for its shuffle."""
    random.seed(1)
    a = Game.new()
    random.seed(1)
    b = Game.new()
    assert a.seed != b.seed
    assert a.hands != b.hands
    state = random.getstate()
    random.seed(2)
    c = Game(77)
    random.seed(3)
    d = Game(77)
    assert c.snapshot() == d.snapshot()
    random.setstate(state)
    Game(5)
    assert random.getstate() == state
