"""Cards, decks and shuffles (RULES.md §2 "Cards and hand values").

A :class:`Card` is a rank (2–14, ace high) and a suit (``C D H S``), or the joker (``JK``, rank 0).
Names as records write them: ``7H``, ``TS`` (``10S`` accepted), ``QD``, ``JK``; :func:`pretty` gives
``7♥ Q♠ 🃏``.  Every card is interned, so ``Card.parse("7H") is Card.parse("7h")``.

A deck is 52 cards plus 0, 1 or 2 jokers, shuffled by Fisher–Yates with an injected
:class:`~core.game.RandomSource` (only ``randrange``).  :class:`HashRandom` is a ``RandomSource``
derived by SHA-256 from a secret salt: a round's reshuffles are drawn from it, so the salt committed at
the deal fixes them too and ``verify`` can check them (see :mod:`core.cards.record`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from ..errors import quoted
from ..game import RandomSource
from .errors import CardParseError

__all__ = [
    "JOKER",
    "RANK_CHARS",
    "SUITS",
    "Card",
    "HashRandom",
    "card_names",
    "full_deck",
    "parse_cards",
    "pretty",
    "rank_char",
    "rank_name",
    "rank_plural",
    "shuffle",
    "shuffled_deck",
]

RANK_CHARS = "23456789TJQKA"
SUITS = "CDHS"
_SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
# what people type for a suit, read as its letter: the symbols, black and white, and without the presentation
# marks emoji keyboards add (U+FE0F, U+FE0E); Slack's shortcodes; the joker's
_SYMBOL_LETTERS = str.maketrans({"♣": "C", "♧": "C", "♦": "D", "♢": "D", "♥": "H", "♡": "H", "❤": "H",  # (❤️ red heart)
                                 "♠": "S", "♤": "S", "\ufe0f": None, "\ufe0e": None})
_SHORTCODES = {":clubs:": "C", ":diamonds:": "D", ":hearts:": "H", ":heart:": "H", ":spades:": "S",
               ":black_joker:": "JK"}
_NAMES = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king", "ace")
_PLURALS = tuple(n + ("es" if n == "six" else "s") for n in _NAMES)


def rank_char(rank: int) -> str:
    """``14`` → ``A``, ``10`` → ``T``."""
    return RANK_CHARS[rank - 2]


def rank_name(rank: int) -> str:
    """``14`` → ``ace``; the ace of the A-2-3-4-5 straight (1) is still an ace."""
    return _NAMES[(rank if rank != 1 else 14) - 2]


def rank_plural(rank: int) -> str:
    return _PLURALS[(rank if rank != 1 else 14) - 2]


@dataclass(frozen=True, slots=True)
class Card:
    """A playing card.  ``rank`` 2–14 (ace 14), ``suit`` one of ``CDHS``; the joker is rank 0, suit ``""``."""

    rank: int
    suit: str
    code: int = field(default=0, compare=False, repr=False)  # 0–51 by rank then suit; 52 for the joker

    @property
    def is_joker(self) -> bool:
        return self.rank == 0

    @property
    def red(self) -> bool:
        return self.suit in ("D", "H")

    @staticmethod
    def parse(text: str) -> Card:
        """``7H``, ``TS``, ``10S``, ``qd``, ``JK`` (also ``7♥``, ``T♥``, ``7♡``, ``7♥️`` as emoji keyboards send it,
        and ``7:hearts:`` as Slack sends an emoji typed in a command)."""
        key = str(text).strip().lower()  # (Slack's shortcodes in any case: 7:HEARTS:)
        for name, letter in _SHORTCODES.items():
            key = key.replace(name, letter)
        key = key.translate(_SYMBOL_LETTERS).strip().upper()
        card = _BY_NAME.get(key)
        if card is None:
            raise CardParseError(f"{quoted(text)} is not a card: write rank then suit, like 7H, TS, 10S, QD, or JK")
        return card

    def __str__(self) -> str:
        return "JK" if self.rank == 0 else rank_char(self.rank) + self.suit

    def pretty(self) -> str:
        if self.rank == 0:
            return "🃏"
        return ("10" if self.rank == 10 else rank_char(self.rank)) + _SUIT_SYMBOLS[self.suit]


JOKER = Card(0, "", 52)
_ALL: tuple[Card, ...] = tuple(Card(r, s, (r - 2) * 4 + i) for r in range(2, 15) for i, s in enumerate(SUITS))
_BY_NAME: dict[str, Card] = {"JK": JOKER, "🃏": JOKER, "JOKER": JOKER}
for _c in _ALL:
    _BY_NAME[str(_c)] = _c
    if _c.rank == 10:
        _BY_NAME["10" + _c.suit] = _c
CARDS_BY_CODE: tuple[Card, ...] = (*_ALL, JOKER)


def parse_cards(items: Iterable[str] | str) -> list[Card]:
    """Cards from names (a list, or one string separated by spaces or commas)."""
    if isinstance(items, str):
        items = items.replace(",", " ").split()
    return [Card.parse(x) for x in items]


def card_names(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]


def pretty(cards: Iterable[Card]) -> str:
    """``7♥ Q♠ 🃏``."""
    return " ".join(c.pretty() for c in cards)


def full_deck(jokers: int = 0) -> list[Card]:
    """The 52 cards in a fixed order (by rank, then suit), then the jokers."""
    if jokers not in (0, 1, 2):
        raise ValueError("a deck has 0, 1 or 2 jokers")
    return [*_ALL, *([JOKER] * jokers)]


T = TypeVar("T")


def shuffle(items: Sequence[T], rng: RandomSource) -> list[T]:
    """A Fisher–Yates shuffle of a copy of ``items`` drawing only ``rng.randrange``."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = rng.randrange(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def shuffled_deck(rng: RandomSource, jokers: int = 0) -> list[Card]:
    return shuffle(full_deck(jokers), rng)


class HashRandom:
    """A deterministic ``RandomSource`` from a secret key: SHA-256 in counter mode, rejection-sampled.

    Fully specified (no dependence on Python's ``random``), so anyone holding the revealed salt can
    recompute a reshuffle: block ``i`` is ``sha256(f"{key}:{i}")``, read as a 256-bit big-endian integer;
    ``randrange(n)`` takes blocks until one is below the largest multiple of ``n`` and returns it mod ``n``.
    """

    def __init__(self, key: str) -> None:
        self._key = key
        self._counter = 0

    def _block(self) -> int:
        data = hashlib.sha256(f"{self._key}:{self._counter}".encode()).digest()
        self._counter += 1
        return int.from_bytes(data, "big")

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            start, stop = 0, start
        width = len(range(start, stop, step))
        if width <= 0:
            raise ValueError("empty range for randrange")
        limit = (1 << 256) - (1 << 256) % width
        while True:
            x = self._block()
            if x < limit:
                return start + step * (x % width)
