"""Hand values: every type, jokers, order, against an independent brute-force evaluator."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.cards.cards import JOKER, Card, full_deck, parse_cards, rank_char
from core.cards.hands import WORST, HandType, HandValue, all_values, cards_for, evaluate, jokers_in, values_of

NATURALS = full_deck(0)


def _top(ranks: set[int]) -> int:
    if len(ranks) != 5:
        return 0
    if max(ranks) - min(ranks) == 4:
        return max(ranks)
    return 5 if ranks == {14, 2, 3, 4, 5} else 0


def reference(cards: list[Card]) -> HandValue:
    """A plain evaluator of five natural cards (duplicates allowed, as a joker may copy a card)."""
    ranks = sorted((c.rank for c in cards), reverse=True)
    counts = Counter(ranks)
    by_group = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    top = _top(set(ranks))
    one_suit = len({c.suit for c in cards}) == 1
    one_colour = len({c.suit in "DH" for c in cards}) == 1
    found = [HandValue(HandType.HIGH_CARD, tuple(ranks))]
    if shape == [5]:
        found.append(HandValue(HandType.FIVE_OF_A_KIND, (ranks[0],)))
    if shape[0] == 4:
        found.append(HandValue(HandType.FOUR_OF_A_KIND, tuple(by_group)))
    if shape == [3, 2]:
        found.append(HandValue(HandType.FULL_HOUSE, tuple(by_group)))
    if shape == [3, 1, 1]:
        found.append(HandValue(HandType.THREE_OF_A_KIND, tuple(by_group)))
    if shape == [2, 2, 1]:
        found.append(HandValue(HandType.TWO_PAIR, tuple(by_group)))
    if shape == [2, 1, 1, 1]:
        found.append(HandValue(HandType.PAIR, tuple(by_group)))
    if top:
        found.append(HandValue(HandType.STRAIGHT, (top,)))
    if one_colour:
        found.append(HandValue(HandType.COLOUR_FLUSH, tuple(ranks)))
        if top:
            found.append(HandValue(HandType.COLOUR_STRAIGHT_FLUSH, (top,)))
    if one_suit:
        found.append(HandValue(HandType.FLUSH, tuple(ranks)))
        if top:
            found.append(HandValue(HandType.STRAIGHT_FLUSH, (top,)))
    return max(found)


def brute(cards: list[Card]) -> HandValue:
    """Every joker named as every one of the 52 cards."""
    naturals = [c for c in cards if not c.is_joker]
    jokers = len(cards) - len(naturals)
    best = None
    if jokers == 0:
        return reference(naturals)
    for names in combinations(range(52), jokers) if jokers == 1 else _pairs():
        value = reference(naturals + [NATURALS[i] for i in names])
        best = value if best is None or value > best else best
    assert best is not None
    return best


def _pairs() -> list[tuple[int, int]]:
    return [(i, j) for i in range(52) for j in range(i, 52)]


def v(kind: HandType, *ranks: int) -> HandValue:
    return HandValue(kind, ranks)


@pytest.mark.parametrize(
    ("hand", "value"),
    [
        ("7C 5D 4H 3S 2C", WORST),
        ("KC 9D 7H 4S 2C", v(HandType.HIGH_CARD, 13, 9, 7, 4, 2)),
        ("QH 7C 7D 6S 2H", v(HandType.PAIR, 7, 12, 6, 2)),
        ("QH JD 9H 4D 2H", v(HandType.COLOUR_FLUSH, 12, 11, 9, 4, 2)),
        ("QH TD TH 4D 2H", v(HandType.COLOUR_FLUSH, 12, 10, 10, 4, 2)),
        ("7C 7D 3H 3S JD", v(HandType.TWO_PAIR, 7, 3, 11)),
        ("4C 4D 4H AS KD", v(HandType.THREE_OF_A_KIND, 4, 14, 13)),
        ("AC 2D 3H 4S 5D", v(HandType.STRAIGHT, 5)),
        ("TC JD QH KS AD", v(HandType.STRAIGHT, 14)),
        ("AS KS 7S 4S 2S", v(HandType.FLUSH, 14, 13, 7, 4, 2)),
        ("8C 8D 8H 4S 4D", v(HandType.FULL_HOUSE, 8, 4)),
        ("5H 6D 7H 8D 9H", v(HandType.COLOUR_STRAIGHT_FLUSH, 9)),
        ("JC JD JH JS KD", v(HandType.FOUR_OF_A_KIND, 11, 13)),
        ("AS 2S 3S 4S 5S", v(HandType.STRAIGHT_FLUSH, 5)),
        ("TS JS QS KS AS", v(HandType.STRAIGHT_FLUSH, 14)),
        # jokers: five of a kind, a flush from A-A-K-7-3 suited, sets, straights
        ("9C 9D 9H 9S JK", v(HandType.FIVE_OF_A_KIND, 9)),
        ("AS KS 7S 3S JK", v(HandType.FLUSH, 14, 14, 13, 7, 3)),
        ("AH AD 7H 3H JK", v(HandType.THREE_OF_A_KIND, 14, 7, 3)),
        ("9C 8D 6H 5S JK", v(HandType.STRAIGHT, 9)),
        ("2C 3C 4C JK JK", v(HandType.STRAIGHT_FLUSH, 6)),
        ("KC 7D 2H JK JK", v(HandType.THREE_OF_A_KIND, 13, 7, 2)),
        ("KC KD 2H JK JK", v(HandType.FOUR_OF_A_KIND, 13, 2)),
    ],
)
def test_values_of_every_type(hand: str, value: HandValue) -> None:
    cards = parse_cards(hand)
    assert evaluate(cards) == value
    assert brute(cards) == value


def test_types_are_ordered_as_the_table() -> None:
    names = [t.key for t in sorted(HandType)]
    assert names == [
        "high-card",
        "pair",
        "colour-flush",
        "two-pair",
        "three-of-a-kind",
        "straight",
        "flush",
        "full-house",
        "colour-straight-flush",
        "four-of-a-kind",
        "straight-flush",
        "five-of-a-kind",
    ]


def test_within_a_type_ranks_decide() -> None:
    assert evaluate(parse_cards("8C 8D 8H 4S 4D")) > evaluate(parse_cards("7C 7D 7H QS QD"))
    assert evaluate(parse_cards("QH JD 9H 4D 2H")) > evaluate(parse_cards("QH TD TH 4D 2H"))
    assert evaluate(parse_cards("2C 3D 4H 5S 6D")) > evaluate(parse_cards("AC 2D 3H 4S 5D"))
    assert evaluate(parse_cards("KC 9D 7H 4S 2C")) == evaluate(parse_cards("KD 9C 7S 4H 2D"))  # a tie


def test_the_worst_hand_is_the_lowest_value() -> None:
    assert min(all_values(0)) == WORST


@pytest.mark.parametrize("jokers", [0, 1, 2])
def test_cards_for_builds_a_hand_of_every_value_a_deck_of_so_many_jokers_makes(jokers: int) -> None:
    for value in all_values(jokers):
        hand = cards_for(value)
        assert evaluate(hand) == value and jokers_in(hand) <= jokers, (value, hand)


@pytest.mark.parametrize("jokers", [0, 1, 2])
def test_every_flush_a_deck_of_so_many_jokers_makes_is_a_value_of_it_and_no_other(jokers: int) -> None:
    spades = [Card.parse(rank_char(r) + "S") for r in range(2, 15)]
    made = {v.ranks for k in range(jokers + 1) for nat in combinations(spades, 5 - k)
            if (v := evaluate((*nat, *([JOKER] * k)))).type is HandType.FLUSH}
    assert set(values_of(HandType.FLUSH, jokers)) == made
    three_aces = (14, 14, 14, 6, 2)  # two jokers beside the ace: not in a deck of one
    assert (three_aces in made) is (jokers == 2)


hands = st.lists(st.sampled_from(NATURALS), min_size=5, max_size=5, unique=True)


@settings(max_examples=300, deadline=None)
@given(hands)
def test_natural_hands_agree_with_the_reference(cards: list[Card]) -> None:
    assert evaluate(cards) == reference(cards)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(NATURALS), min_size=3, max_size=4, unique=True))
def test_joker_hands_are_the_best_naming_of_their_jokers(naturals: list[Card]) -> None:
    cards = naturals + [JOKER] * (5 - len(naturals))
    assert evaluate(cards) == brute(cards)


@settings(max_examples=200, deadline=None)
@given(hands, hands)
def test_values_are_totally_ordered(a: list[Card], b: list[Card]) -> None:
    x, y = evaluate(a), evaluate(b)
    assert (x < y) + (x == y) + (x > y) == 1
    assert (x.type, x.ranks) < (y.type, y.ranks) or x >= y
