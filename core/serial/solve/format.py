"""A 2-player reduced format as the exploitability tools see it: hand classes, bid indices, payoffs.

A hand is what a strategy sees of its serial: how many copies of each digit in play it holds (every
strategy of :mod:`core.serial.players` reads ``serial.counts`` only).  The ``L``-digit serials over
``D`` digits fall into the compositions of ``L`` into ``D`` parts; each class has a multinomial
weight and a representative :class:`~core.serial.serials.Serial` (its digits in rank order).

Terminal payoffs come from the engine's own :func:`core.serial.scoring.score` on those
representatives, so the tools use the one rules implementation.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import numpy.typing as npt

from core.serial.bids import Bid
from core.serial.rules import Rules
from core.serial.scoring import score
from core.serial.serials import Serial

__all__ = ["SEATS", "FloatArray", "Format"]

FloatArray = npt.NDArray[np.float64]
SEATS = ("p1", "p2")


@dataclass(frozen=True)
class Format:
    """The 2-player game under ``rules`` (any preset and options; the tools are exact for 2 players)."""

    rules: Rules
    _payoff: dict[tuple[int, int], FloatArray] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def digits(self) -> tuple[int, ...]:
        """The digits in play, lowest rank first."""
        return self.rules.digit_set

    @cached_property
    def hands(self) -> tuple[tuple[int, ...], ...]:
        """Every hand class: copies held of each digit in play (rank order), in a fixed order."""
        d, length = len(self.digits), self.rules.serial_length
        out = [c for c in itertools.product(range(length + 1), repeat=d) if sum(c) == length]
        return tuple(sorted(out, reverse=True))

    @cached_property
    def hand_index(self) -> dict[tuple[int, ...], int]:
        return {h: i for i, h in enumerate(self.hands)}

    @cached_property
    def weights(self) -> FloatArray:
        """P(hand class): multinomial over ``len(digits)`` equally likely digits."""
        d, length = len(self.digits), self.rules.serial_length
        w = [math.factorial(length) / math.prod(math.factorial(c) for c in h) / d**length for h in self.hands]
        return np.array(w, dtype=np.float64)

    @cached_property
    def serials(self) -> tuple[Serial, ...]:
        """A representative serial per hand class."""
        return tuple(
            Serial("".join(str(self.digits[i]) * c for i, c in enumerate(h))) for h in self.hands
        )

    def hand_of(self, serial: Serial) -> int:
        return self.hand_index[tuple(serial.counts[d] for d in self.digits)]

    @property
    def size(self) -> int:
        return len(self.hands)

    @cached_property
    def bids(self) -> tuple[Bid, ...]:
        """Every bid of the format, ascending: index ``(q − 1) × D + rank position``."""
        order = self.rules.rank_order
        top = self.rules.serial_length * 2
        return tuple(Bid(q, d, order) for q in range(1, top + 1) for d in self.digits)

    @cached_property
    def bid_index(self) -> dict[int, int]:
        """Engine bid id → format index."""
        return {b.id: i for i, b in enumerate(self.bids)}

    def payoff(self, bid_index: int, bidder: int) -> FloatArray:
        """Units (at stake 1) to seat 0 when ``bids[bid_index]`` by seat ``bidder`` is counted.

        Indexed [hand of seat 0, hand of seat 1]."""
        key = (bid_index, bidder)
        if key not in self._payoff:
            bid = self.bids[bid_index]
            k = self.size
            out = np.zeros((k, k))
            for a in range(k):
                for b in range(k):
                    serials = {SEATS[0]: self.serials[a], SEATS[1]: self.serials[b]}
                    outcome = score(self.rules, SEATS, serials, bid, SEATS[bidder], 1, ())
                    out[a, b] = outcome.net[SEATS[0]]
            out.setflags(write=False)
            self._payoff[key] = out
        return self._payoff[key]
