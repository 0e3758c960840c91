"""How the card game speaks of hands: the article before a hand's name."""

from __future__ import annotations

import pytest

from core.cards.cards import parse_cards
from core.cards.hands import evaluate
from core.cards.text import value_words


@pytest.mark.parametrize(("hand", "words"), [
    ("AS KD 9H 7C 3S", "an ace-king-nine-seven-three high"),
    ("KS QD 9H 7C 3S", "a king-queen-nine-seven-three high"),
    ("8S 7D 5H 4C 2S", "an eight-seven-five-four-two high"),
    ("AS AD 9H 7C 3S", "a pair of aces"),
    ("AS AD 9H 9C 3S", "two pair"),
])
def test_a_hand_is_named_with_the_article_it_is_spoken_with(hand: str, words: str) -> None:
    assert value_words(evaluate(parse_cards(hand.split()))).startswith(words)
