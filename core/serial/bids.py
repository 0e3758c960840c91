"""Bids: frozen, totally ordered values under a rank order, and a parser for what people type.

A bid ``(q, d)`` claims at least ``q`` copies of digit ``d`` among all the serials at the table.
Under a given :class:`~core.rules.RankOrder` every bid has a dense integer id,
``(q - 1) * 10 + rank(d)``, so ``a > b`` is ``a.id > b.id`` and the raises over a standing bid are a
``range`` of ids.
"""

from __future__ import annotations

import re
from typing import Final

from ..errors import quoted
from .errors import BidParseError
from .rules import RankOrder

__all__ = ["MAX_PLAYERS", "MIN_PLAYERS", "Bid", "a_digit", "bids_by_id", "digit_name", "digit_plural"]

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 12
MAX_QUANTITY: Final = 8 * MAX_PLAYERS

_SINGULAR = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_PLURAL = ("zeros", "ones", "twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines")

_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        (
            "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
            "fifteen sixteen seventeen eighteen nineteen twenty"
        ).split()
    )
}
_NUMBER_WORDS.update({"a": 1, "an": 1, "single": 1})
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}


def digit_name(digit: int, order: RankOrder) -> str:
    """The singular name of a digit at a table with this rank order ("ten" for 0 when 0 is high)."""
    if digit == 0 and order is not RankOrder.ZERO_LOW:
        return "ten"
    if digit == 1 and order is RankOrder.ACES_HIGH:
        return "ace"
    return _SINGULAR[digit]


def a_digit(digit: int, order: RankOrder) -> str:
    """The digit's name with its article: "a seven", "an eight", "an ace"."""
    name = digit_name(digit, order)
    return f"{'an' if name in ('eight', 'ace') else 'a'} {name}"


def digit_plural(digit: int, order: RankOrder) -> str:
    if digit == 0 and order is not RankOrder.ZERO_LOW:
        return "tens"
    if digit == 1 and order is RankOrder.ACES_HIGH:
        return "aces"
    return _PLURAL[digit]


def _digit_words() -> dict[str, int]:
    words: dict[str, int] = {}
    for d in range(10):
        words[_SINGULAR[d]] = d
        words[_PLURAL[d]] = d
        words[str(d)] = d
        words[f"{d}s"] = d
        words[f"{d}'s"] = d
    words.update({"zeroes": 0, "sixs": 6, "ten": 0, "tens": 0, "10": 0, "10s": 0, "10's": 0})
    words.update({"ace": 1, "aces": 1, "oh": 0, "ohs": 0, "o": 0, "os": 0, "naught": 0, "noughts": 0})
    return words


_DIGIT_WORDS: Final = _digit_words()
_GLUED = re.compile(r"^(\d+)\s*[x×*]\s*(\d+(?:'?s)?)$")
_FILLER = frozenset({"x", "×", "*", "of", "times"})
_UNITS = frozenset({"one", "two", "three", "four", "five", "six", "seven", "eight", "nine"})  # "twenty five"
# what phones type for an apostrophe ("7’s") and a hyphen ("twenty–five"), as the keyboard's own
_PHONE_PUNCTUATION: Final = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "–": "-", "—": "-", "‑": "-", "‐": "-"})


def _parse_quantity(text: str) -> int | None:
    if text.isascii() and text.isdecimal():  # ASCII digits, as the digit itself: not "٣", nor "²" (int refuses it)
        # Keep int() well inside its digit limit; a quantity this long is no bid at any table.
        return int(text) if len(text) <= 6 else None
    if text in _NUMBER_WORDS:
        return _NUMBER_WORDS[text]
    if "-" in text:
        tens, _, unit = text.partition("-")
        if tens in _TENS and unit in _NUMBER_WORDS and 0 < _NUMBER_WORDS[unit] < 10:
            return _TENS[tens] + _NUMBER_WORDS[unit]
    return _TENS.get(text)


class Bid:
    """``quantity`` copies of ``digit``, ordered under ``order``.  Immutable and hashable."""

    __slots__ = ("digit", "id", "order", "quantity")

    quantity: int
    digit: int
    order: RankOrder
    id: int

    def __init__(self, quantity: int, digit: int, order: RankOrder = RankOrder.ZERO_LOW) -> None:
        if not 0 <= digit <= 9:
            raise BidParseError(f"the digit must be 0 to 9, not {digit}")
        if quantity < 1:
            raise BidParseError(f"a bid is for at least one copy, not {quantity}")
        set_ = object.__setattr__
        set_(self, "quantity", quantity)
        set_(self, "digit", digit)
        set_(self, "order", order)
        set_(self, "id", (quantity - 1) * 10 + order.rank(digit))

    @classmethod
    def from_id(cls, bid_id: int, order: RankOrder = RankOrder.ZERO_LOW) -> Bid:
        """The bid whose dense id under ``order`` is ``bid_id`` (cached: bids are immutable)."""
        if 0 <= bid_id < len(_CACHE[order]):
            return _CACHE[order][bid_id]
        q, r = divmod(bid_id, 10)
        return cls(q + 1, order.digits_low_to_high[r], order)

    @classmethod
    def parse(cls, text: str, order: RankOrder = RankOrder.ZERO_LOW) -> Bid:
        """Read what a person types: ``5 7``, ``5x7``, ``5 7s``, ``five sevens``, ``7 tens``, ``3 aces``.

        Raises :class:`~core.errors.BidParseError` (a ``ValueError``) for anything else.
        """
        raw = text
        text = text.strip().translate(_PHONE_PUNCTUATION).rstrip(".!?…")  # (… : a phone's "...")
        # "5 x7", "5x 7" and "5x sevens" as "5x7", "5 x 7" and "5 x sevens" ("2*3*4" is three numbers, no bid)
        text = re.sub(r"(\d)\s*[xX×*](?:\s*(?=\d)|\s+(?=[^\W\d_]))", r"\1 ", text)
        # (each word read in lower case, quoted back as typed: a mention's "<@U2>" was "<@u2>", which no
        # platform draws)
        typed = [p for p in text.replace(",", " ").split() if p.lower() not in _FILLER]
        parts = [p.lower() for p in typed]
        if len(parts) == 1 and (glued := _GLUED.match(parts[0])):
            parts = typed = [glued.group(1), glued.group(2)]
        if len(parts) == 3 and parts[0] in _TENS and parts[1] in _UNITS:
            parts = [f"{parts[0]}-{parts[1]}", parts[2]]  # "twenty five sevens", as "twenty-five sevens"
            typed = [f"{typed[0]}-{typed[1]}", typed[2]]
        if len(parts) != 2:
            # "5x7" / "5×7" without spaces splits fine; "57" does not: say what we expect.
            raise BidParseError(
                f"can't read {quoted(raw)} as a bid: say a quantity and a digit, like '5 7' or 'five sevens'")
        quantity = _parse_quantity(parts[0])
        digit = _DIGIT_WORDS.get(parts[1])
        if quantity is None:
            raise BidParseError(f"can't read {quoted(typed[0])} as a quantity in {quoted(raw)}")
        if digit is None:
            raise BidParseError(f"can't read {quoted(typed[1])} as a digit in {quoted(raw)}")
        if quantity < 1:
            raise BidParseError("a bid is for at least one copy")
        return cls(quantity, digit, order)

    # -- value semantics -------------------------------------------------------------------------
    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Bid is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Bid):
            return NotImplemented
        return self.quantity == other.quantity and self.digit == other.digit and self.order is other.order

    def __hash__(self) -> int:
        return hash((self.quantity, self.digit, self.order))

    def _key(self, other: object) -> int | None:
        """``other``'s id, or None when ``other`` is no bid (so Python raises TypeError)."""
        if not isinstance(other, Bid):
            return None
        if self.order is not other.order:
            raise TypeError("bids under different rank orders are not comparable")
        return other.id

    def __lt__(self, other: object) -> bool:
        key = self._key(other)
        return NotImplemented if key is None else self.id < key

    def __le__(self, other: object) -> bool:
        key = self._key(other)
        return NotImplemented if key is None else self.id <= key

    def __gt__(self, other: object) -> bool:
        key = self._key(other)
        return NotImplemented if key is None else self.id > key

    def __ge__(self, other: object) -> bool:
        key = self._key(other)
        return NotImplemented if key is None else self.id >= key

    def __repr__(self) -> str:
        return f"Bid({self.quantity}, {self.digit}, {self.order.value!r})"

    def __str__(self) -> str:
        name = digit_plural(self.digit, self.order) if self.quantity != 1 else digit_name(self.digit, self.order)
        return f"{self.quantity} {name}"

    def as_list(self) -> list[int]:
        """``[quantity, digit]`` as a game record writes it."""
        return [self.quantity, self.digit]


def _build_cache() -> dict[RankOrder, tuple[Bid, ...]]:
    return {
        order: tuple(Bid(q, order.digits_low_to_high[r], order) for q in range(1, MAX_QUANTITY + 1) for r in range(10))
        for order in RankOrder
    }


_CACHE: Final = _build_cache()


def bids_by_id(order: RankOrder) -> tuple[Bid, ...]:
    """Every bid a table can hold (quantity 1 to 96) under ``order``, indexed by id."""
    return _CACHE[order]
