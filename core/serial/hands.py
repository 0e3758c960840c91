"""Hand classes of a reduced format: what a strategy sees of its serial, grouped.

A hand is how many copies of each digit in play a serial holds (every strategy of
:mod:`core.serial.players` reads ``serial.counts`` only).  The ``L``-digit serials over ``D`` digits fall
into the compositions of ``L`` into ``D`` parts; each class has a multinomial weight and a representative
:class:`~core.serial.serials.Serial` (its digits in rank order).

One enumeration, in one order, for the players (the solved tables' rows, ``expert``'s exact belief) and
the research tools (:class:`core.serial.solve.format.Format` builds its arrays on it).  Pure Python: the
bot's process loads it, never numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache, cached_property

from .rules import Rules
from .serials import Serial

__all__ = ["HandClasses", "hand_classes", "hand_order"]


@cache
def hand_classes(digits: int, length: int) -> tuple[tuple[int, ...], ...]:
    """Every composition of ``length`` into ``digits`` parts, descending: the hand classes in the tools' order."""
    out: list[tuple[int, ...]] = []

    def rec(prefix: tuple[int, ...], left: int, parts: int) -> None:
        if parts == 1:
            out.append((*prefix, left))
            return
        for c in range(left + 1):
            rec((*prefix, c), left - c, parts - 1)

    rec((), length, digits)
    return tuple(sorted(out, reverse=True))


def hand_order(digits: int, length: int) -> dict[tuple[int, ...], int]:
    """Hand class → its position in :func:`hand_classes` (a fresh dict: the caller may keep it)."""
    return {h: i for i, h in enumerate(hand_classes(digits, length))}


@dataclass(frozen=True)
class HandClasses:
    """The hand classes of the format of ``rules`` (any number of players: a class is one seat's hand)."""

    rules: Rules

    @cached_property
    def digits(self) -> tuple[int, ...]:
        """The digits in play, lowest rank first."""
        return self.rules.digit_set

    @cached_property
    def hands(self) -> tuple[tuple[int, ...], ...]:
        """Every hand class: copies held of each digit in play (rank order), in a fixed order."""
        return hand_classes(len(self.digits), self.rules.serial_length)

    @cached_property
    def hand_index(self) -> dict[tuple[int, ...], int]:
        return hand_order(len(self.digits), self.rules.serial_length)

    @cached_property
    def weights(self) -> tuple[float, ...]:
        """P(hand class): multinomial over ``len(digits)`` equally likely digits."""
        d, length = len(self.digits), self.rules.serial_length
        return tuple(math.factorial(length) / math.prod(math.factorial(c) for c in h) / d**length for h in self.hands)

    @cached_property
    def serials(self) -> tuple[Serial, ...]:
        """A representative serial per hand class."""
        return tuple(Serial("".join(str(self.digits[i]) * c for i, c in enumerate(h))) for h in self.hands)

    def hand_of(self, serial: Serial) -> int:
        return self.hand_index[tuple(serial.counts[d] for d in self.digits)]

    @property
    def size(self) -> int:
        return len(self.hands)
