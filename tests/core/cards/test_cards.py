"""Cards, decks and shuffles."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from core.cards.cards import JOKER, Card, HashRandom, full_deck, parse_cards, pretty, shuffle, shuffled_deck
from core.cards.errors import CardParseError
from core.errors import ActionParseError


@pytest.mark.parametrize(
    ("text", "rank", "suit", "name"),
    [("7H", 7, "H", "7H"), ("TS", 10, "S", "TS"), ("10S", 10, "S", "TS"), ("QD", 12, "D", "QD"), ("ac", 14, "C", "AC")],
)
def test_cards_parse_and_print_in_the_records_form(text: str, rank: int, suit: str, name: str) -> None:
    card = Card.parse(text)
    assert (card.rank, card.suit, str(card)) == (rank, suit, name)


@pytest.mark.parametrize("suit", ["♥", "♦", "♠", "♣"])
def test_a_card_as_an_emoji_keyboard_or_discord_sends_it_is_read(suit: str) -> None:
    """Discord shows a hand as ``6♦️`` (the symbol and U+FE0F, its emoji form); typed back, it was refused."""
    assert Card.parse(f"6{suit}\ufe0f") == Card.parse(f"6{suit}") == Card.parse("6" + "HDSC"["♥♦♠♣".index(suit)])
    assert parse_cards(f"10{suit}\ufe0f A{suit}\ufe0f") == parse_cards(f"10{suit} A{suit}")


@pytest.mark.parametrize(
    ("typed", "name"),
    [("T♥", "TH"), ("t♠", "TS"), ("7♡", "7H"), ("J♢", "JD"), ("Q♤", "QS"), ("2♧", "2C"), ("A♠\ufe0e", "AS"),
     ("7:hearts:", "7H"), ("7:HEARTS:", "7H"), ("t:Spades:", "TS"), ("10:diamonds:", "TD"), ("K:spades:", "KS"),
     ("3:clubs:", "3C"), (":black_joker:", "JK"),
     # the red heart emoji as Discord and the terminal send it (Slack sends it as :heart:)
     ("7❤️", "7H"), ("7❤", "7H"), ("7:heart:", "7H"), ("10♠️", "TS"), ("🃏", "JK")],
)
def test_every_way_a_suit_is_typed_is_read(typed: str, name: str) -> None:
    """ "T♥" was refused though "TH" and "10♥" were read; white suits, the text-style mark U+FE0E, and Slack's
    shortcodes (an emoji typed in a Slack command arrives as ``:hearts:``) were refused too."""
    assert str(Card.parse(typed)) == name


def test_the_joker() -> None:
    assert Card.parse("JK") is JOKER
    assert JOKER.is_joker and str(JOKER) == "JK"


def test_pretty_uses_suit_symbols_and_a_joker_face() -> None:
    assert pretty(parse_cards("7H QS JK TD")) == "7♥ Q♠ 🃏 10♦"


@pytest.mark.parametrize("bad", ["7X", "1H", "11S", "", "JKK", "H7", "♥7", "7♥♥", "1♥", ":hearts:"])
def test_a_bad_card_name_is_a_parse_error(bad: str) -> None:
    with pytest.raises(CardParseError) as info:
        Card.parse(bad)
    assert isinstance(info.value, ActionParseError)


@pytest.mark.parametrize("jokers", [0, 1, 2])
def test_a_deck_is_52_cards_and_its_jokers(jokers: int) -> None:
    deck = full_deck(jokers)
    assert len(deck) == 52 + jokers
    assert len(set(deck)) == 52 + (jokers > 0)
    assert Counter(deck)[JOKER] == jokers


def test_a_shuffle_is_a_permutation_and_depends_on_the_seed() -> None:
    a = shuffled_deck(random.Random(1), 2)
    b = shuffled_deck(random.Random(1), 2)
    c = shuffled_deck(random.Random(2), 2)
    assert a == b != c
    assert Counter(a) == Counter(full_deck(2))


def test_fisher_yates_is_uniform_over_three_items() -> None:
    rng = random.Random(7)
    counts = Counter(tuple(shuffle("abc", rng)) for _ in range(6000))
    assert len(counts) == 6
    assert all(800 < n < 1200 for n in counts.values())


def test_hash_random_is_deterministic_in_range_and_keyed() -> None:
    xs = [HashRandom("salt:reshuffle:0").randrange(10) for _ in range(3)]
    assert len(set(xs)) == 1  # each fresh source starts at the same block
    source = HashRandom("k")
    draws = [source.randrange(3, 9) for _ in range(200)]
    assert set(draws) == set(range(3, 9))
    other = HashRandom("k2")
    assert draws != [other.randrange(3, 9) for _ in range(200)]
