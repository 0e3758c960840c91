"""Hand values (RULES.md §2 "Cards and hand values"): twelve types, each with its ranks, totally ordered.

:func:`evaluate` gives a 5-card hand's :class:`HandValue`; jokers stand for whatever card gives the
best value, even a card already in the hand.  Its value is the best over every way to name the jokers,
computed as the best of two parts, since a hand's value is the best pattern it contains:

* the patterns that depend on ranks only (high card, pairs, sets, straights, full house, five of a
  kind): the best over each joker naming one of 13 ranks;
* the patterns of colour and suit (colour flush, flush and their straights): when every natural card
  is of one colour (suit), the jokers join it — as aces for the flushes, as the missing cards of the
  highest window for the straights.

Results are cached by the sorted card codes.  :func:`values_of` lists every value a hand can have, per
type, for the declarations' floors; :func:`cards_for` builds a hand with exactly a given value.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import cache, lru_cache
from itertools import combinations, combinations_with_replacement
from typing import Any

from ..errors import quoted
from .cards import CARDS_BY_CODE, JOKER, Card, rank_char

__all__ = [
    "MAX_JOKERS",
    "RANK_COUNT",
    "WORST",
    "HandType",
    "HandValue",
    "all_values",
    "cards_for",
    "evaluate",
    "evaluate_codes",
    "jokers_in",
    "parse_rank",
    "values_of",
]


class HandType(IntEnum):
    HIGH_CARD = 0
    PAIR = 1
    COLOUR_FLUSH = 2
    TWO_PAIR = 3
    THREE_OF_A_KIND = 4
    STRAIGHT = 5
    FLUSH = 6
    FULL_HOUSE = 7
    COLOUR_STRAIGHT_FLUSH = 8
    FOUR_OF_A_KIND = 9
    STRAIGHT_FLUSH = 10
    FIVE_OF_A_KIND = 11

    @property
    def key(self) -> str:
        """The record's name: ``two-pair``, ``colour-flush`` …"""
        return _KEYS[self]

    @staticmethod
    def from_key(text: str) -> HandType:
        key = str(text).strip().lower().replace("_", "-").replace(" ", "-").replace("color", "colour")
        try:
            return _BY_KEY[key]
        except KeyError:
            raise ValueError(f"unknown hand type {quoted(text)}: one of {', '.join(_KEYS.values())}") from None


_KEYS = {t: t.name.lower().replace("_", "-") for t in HandType}
_BY_KEY = {v: k for k, v in _KEYS.items()}
RANK_COUNT: dict[HandType, int] = {
    HandType.HIGH_CARD: 5,
    HandType.PAIR: 4,
    HandType.COLOUR_FLUSH: 5,
    HandType.TWO_PAIR: 3,
    HandType.THREE_OF_A_KIND: 3,
    HandType.STRAIGHT: 1,
    HandType.FLUSH: 5,
    HandType.FULL_HOUSE: 2,
    HandType.COLOUR_STRAIGHT_FLUSH: 1,
    HandType.FOUR_OF_A_KIND: 2,
    HandType.STRAIGHT_FLUSH: 1,
    HandType.FIVE_OF_A_KIND: 1,
}


def parse_rank(text: str) -> int:
    """``7`` / ``T`` / ``10`` / ``j`` → 7, 10, 10, 11."""
    key = str(text).strip().upper()
    if key == "10":
        return 10
    if len(key) == 1 and key in "23456789TJQKA":
        return "23456789TJQKA".index(key) + 2
    raise ValueError(f"{quoted(text)} is not a rank: 2-9, T (or 10), J, Q, K, A")


@dataclass(frozen=True, slots=True, order=True)
class HandValue:
    """(type, ranks): compare by type, then ranks left to right.  A straight's rank is its top card (A-2-3-4-5: 5)."""

    type: HandType
    ranks: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type.key, "ranks": [rank_char(r) for r in self.ranks]}

    @staticmethod
    def from_dict(data: Any) -> HandValue:
        return HandValue(HandType.from_key(data["type"]), tuple(parse_rank(r) for r in data["ranks"]))

    def __str__(self) -> str:
        return f"{self.type.key} {'-'.join(rank_char(r) for r in self.ranks)}"


WORST = HandValue(HandType.HIGH_CARD, (7, 5, 4, 3, 2))
_WINDOWS: tuple[tuple[int, frozenset[int]], ...] = tuple(
    (top, frozenset(range(top - 4, top + 1)) if top > 5 else frozenset((14, 2, 3, 4, 5))) for top in range(14, 4, -1)
)


def _straight_top(distinct: Iterable[int]) -> int:
    """The highest straight top whose window holds every one of these distinct ranks, or 0."""
    ranks = frozenset(distinct)
    for top, window in _WINDOWS:
        if ranks <= window:
            return top
    return 0


@lru_cache(maxsize=8192)
def _rank_value(ranks: tuple[int, ...]) -> HandValue:
    """The best rank-only pattern of five ranks (sorted high → low)."""
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    shape = tuple(c for _, c in groups)
    order = tuple(r for r, _ in groups)
    if shape == (5,):
        return HandValue(HandType.FIVE_OF_A_KIND, order)
    if shape == (4, 1):
        return HandValue(HandType.FOUR_OF_A_KIND, order)
    if shape == (3, 2):
        return HandValue(HandType.FULL_HOUSE, order)
    if len(order) == 5:
        top = _straight_top(order)
        if top:
            return HandValue(HandType.STRAIGHT, (top,))
        return HandValue(HandType.HIGH_CARD, order)
    if shape == (3, 1, 1):
        return HandValue(HandType.THREE_OF_A_KIND, order)
    if shape == (2, 2, 1):
        return HandValue(HandType.TWO_PAIR, order)
    return HandValue(HandType.PAIR, order)




@lru_cache(maxsize=1 << 18)
def evaluate_codes(codes: tuple[int, ...]) -> HandValue:
    """:func:`evaluate` of card codes (0–51, 52 the joker), sorted ascending."""
    naturals = [CARDS_BY_CODE[c] for c in codes if c != 52]
    jokers = len(codes) - len(naturals)
    nat_ranks = [c.rank for c in naturals]
    # a joker does best as a rank already held (sets), an ace or a king (kickers), or in a straight
    names = sorted({*nat_ranks, 14, 13}) if jokers else []
    best = max(
        _rank_value(tuple(sorted((*nat_ranks, *extra), reverse=True)))
        for extra in combinations_with_replacement(names, jokers)
    )
    if jokers and len(set(nat_ranks)) == len(nat_ranks):
        top = _straight_top(nat_ranks)
        if top:
            best = max(best, HandValue(HandType.STRAIGHT, (top,)))
    suits = {c.suit for c in naturals}
    if len(suits) <= 2 and len({c.red for c in naturals}) <= 1:
        one_suit = len(suits) <= 1
        flush_ranks = tuple(sorted((*nat_ranks, *([14] * jokers)), reverse=True))
        distinct = len(set(nat_ranks)) == len(nat_ranks)
        top = _straight_top(nat_ranks) if distinct else 0
        if top:
            kind = HandType.STRAIGHT_FLUSH if one_suit else HandType.COLOUR_STRAIGHT_FLUSH
            best = max(best, HandValue(kind, (top,)))
        best = max(best, HandValue(HandType.FLUSH if one_suit else HandType.COLOUR_FLUSH, flush_ranks))
        if one_suit:  # a suited hand is of one colour too
            best = max(best, HandValue(HandType.COLOUR_FLUSH, flush_ranks))
    return best


def evaluate(cards: Sequence[Card]) -> HandValue:
    """The value of a five-card hand."""
    if len(cards) != 5:
        raise ValueError(f"a hand has five cards, not {len(cards)}")
    return evaluate_codes(tuple(sorted(c.code for c in cards)))


# -- the space of values, for the declarations --------------------------------------------------------
def _not_straight(ranks: tuple[int, ...]) -> bool:
    return not _straight_top(ranks)


@cache
def _natural(kind: HandType) -> tuple[tuple[int, ...], ...]:
    desc = range(14, 1, -1)
    out: list[tuple[int, ...]] = []
    if kind in (HandType.HIGH_CARD, HandType.FLUSH, HandType.COLOUR_FLUSH):
        out = [c for c in combinations(desc, 5) if _not_straight(c)]
    if kind in (HandType.PAIR, HandType.COLOUR_FLUSH):
        for p in desc:
            for ks in combinations([r for r in desc if r != p], 3):
                out.append((p, *ks) if kind is HandType.PAIR else tuple(sorted((p, p, *ks), reverse=True)))
    if kind is HandType.TWO_PAIR:
        out = [(h, lo, k) for h, lo in combinations(desc, 2) for k in desc if k not in (h, lo)]
    if kind is HandType.THREE_OF_A_KIND:
        out = [(t, *ks) for t in desc for ks in combinations([r for r in desc if r != t], 2)]
    if kind in (HandType.STRAIGHT, HandType.COLOUR_STRAIGHT_FLUSH, HandType.STRAIGHT_FLUSH):
        out = [(t,) for t in range(5, 15)]
    if kind in (HandType.FULL_HOUSE, HandType.FOUR_OF_A_KIND):
        out = [(a, b) for a in desc for b in desc if a != b]
    return tuple(sorted(out))


@cache
def _joker_only() -> dict[HandType, dict[tuple[int, ...], tuple[Card, ...]]]:
    """Values only a joker makes, with a hand that has each: five of a kind, and flushes with two aces."""
    found: dict[HandType, dict[tuple[int, ...], tuple[Card, ...]]] = {HandType.FIVE_OF_A_KIND: {}, HandType.FLUSH: {}}
    for r in range(2, 15):
        found[HandType.FIVE_OF_A_KIND][(r,)] = (*(Card.parse(rank_char(r) + s) for s in "CDHS"), JOKER)
    spades = [Card.parse(rank_char(r) + "S") for r in range(2, 15)]
    natural = set(_natural(HandType.FLUSH))
    for jokers in (1, 2):
        for nat in combinations(spades, 5 - jokers):
            hand = (*nat, *([JOKER] * jokers))
            value = evaluate(hand)
            if value.type is HandType.FLUSH and value.ranks not in natural:
                found[HandType.FLUSH].setdefault(value.ranks, _in_value_order(value.ranks, nat))
    return found


def _in_value_order(ranks: tuple[int, ...], natural: Sequence[Card]) -> tuple[Card, ...]:
    """The cards in the order of the value they make, each joker where the rank it plays falls: A-JK-6-3-2."""
    left = list(natural)
    out: list[Card] = []
    for r in ranks:
        card = next((c for c in left if c.rank == r), JOKER)
        if card is not JOKER:
            left.remove(card)
        out.append(card)
    assert not left, (ranks, natural)  # a flush's value names all five cards
    return tuple(out)


MAX_JOKERS = 2
"""The most jokers a deck holds (RULES.md §2: ``jokers`` 0, 1 or 2)."""


def jokers_in(cards: Sequence[Card]) -> int:
    return sum(1 for c in cards if c.is_joker)


@cache
def values_of(kind: HandType, jokers: int = MAX_JOKERS) -> tuple[tuple[int, ...], ...]:
    """Every ranks tuple a hand of this type can have in a deck of ``jokers`` jokers, ascending: with one,
    five of a kind and the flushes of two aces; only with two, the flushes of three aces."""
    if not 0 <= jokers <= MAX_JOKERS:
        raise ValueError(f"a deck holds 0 to {MAX_JOKERS} jokers, not {jokers!r}")
    extra = [r for r, hand in _joker_only().get(kind, {}).items() if jokers_in(hand) <= jokers]
    return tuple(sorted({*_natural(kind), *extra}))


@cache
def all_values(jokers: int = MAX_JOKERS) -> tuple[HandValue, ...]:
    """Every value a hand can have in a deck of ``jokers`` jokers, ascending."""
    return tuple(HandValue(t, r) for t in HandType for r in values_of(t, jokers))


def first_with_prefix(kind: HandType, prefix: tuple[int, ...], jokers: int = MAX_JOKERS) -> HandValue | None:
    """The lowest value of ``kind`` whose ranks begin with ``prefix`` in a deck of ``jokers`` jokers, or None."""
    values = values_of(kind, jokers)
    i = bisect_left(values, prefix)
    if i < len(values) and values[i][: len(prefix)] == prefix:
        return HandValue(kind, values[i])
    return None


_MIXED = "CDHSC"  # black, red, red, black, black: no flush of either kind
_RED = "HDHDH"


def _cards(ranks: Sequence[int], suits: str) -> tuple[Card, ...]:
    return tuple(Card.parse(rank_char(r if r != 1 else 14) + s) for r, s in zip(ranks, suits, strict=True))


def cards_for(value: HandValue) -> tuple[Card, ...]:
    """A hand whose value is exactly ``value``, natural cards where possible, high → low."""
    t, r = value.type, value.ranks
    joker_hand = _joker_only().get(t, {}).get(r)
    if joker_hand is not None and r not in _natural(t):
        return joker_hand
    if t in (HandType.STRAIGHT, HandType.COLOUR_STRAIGHT_FLUSH, HandType.STRAIGHT_FLUSH):
        ranks: tuple[int, ...] = tuple(range(r[0], r[0] - 5, -1)) if r[0] > 5 else (5, 4, 3, 2, 1)
        suits = {HandType.STRAIGHT: _MIXED, HandType.COLOUR_STRAIGHT_FLUSH: _RED}.get(t, "SSSSS")
        return _cards(ranks, suits)
    if t is HandType.HIGH_CARD:
        return _cards(r, _MIXED)
    if t is HandType.PAIR:
        return _cards((r[0], *r), "CDHSC")
    if t is HandType.COLOUR_FLUSH:  # a pair inside takes both red suits
        suits = "".join("D" if i and r[i - 1] == x else "H" for i, x in enumerate(r))
        if len(set(suits)) == 1:
            suits = "HDHDH"
        return _cards(r, suits)
    if t is HandType.FLUSH:
        return _cards(r, "SSSSS")
    if t is HandType.TWO_PAIR:
        return _cards((r[0], r[0], r[1], r[1], r[2]), "CDHSC")
    if t is HandType.THREE_OF_A_KIND:
        return _cards((r[0], r[0], r[0], r[1], r[2]), "CDHSC")
    if t is HandType.FULL_HOUSE:
        return _cards((r[0], r[0], r[0], r[1], r[1]), "CDHSC")
    if t is HandType.FOUR_OF_A_KIND:
        return _cards((r[0],) * 4 + (r[1],), "CDHSC")
    raise ValueError(f"no hand has the value {value}")
