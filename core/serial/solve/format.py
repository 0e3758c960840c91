"""A 2-player reduced format as the exploitability tools see it: hand classes, bid indices, payoffs.

The hand classes (what a strategy sees of its serial, their order, weights and representative serials)
are :class:`core.serial.hands.HandClasses`, pure Python and shared with the players; this adds numpy
arrays, bid indices and payoffs on top.

Terminal payoffs come from the engine's own :func:`core.serial.scoring.score` on those
representatives, so the tools use the one rules implementation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import numpy.typing as npt

from core.serial.bids import Bid
from core.serial.hands import HandClasses
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
    def classes(self) -> HandClasses:
        """The hand classes (pure Python, shared with the players): this adds the arrays."""
        return HandClasses(self.rules)

    @cached_property
    def digits(self) -> tuple[int, ...]:
        """The digits in play, lowest rank first."""
        return self.classes.digits

    @cached_property
    def hands(self) -> tuple[tuple[int, ...], ...]:
        """Every hand class: copies held of each digit in play (rank order), in a fixed order."""
        return self.classes.hands

    @cached_property
    def hand_index(self) -> dict[tuple[int, ...], int]:
        return self.classes.hand_index

    @cached_property
    def weights(self) -> FloatArray:
        """P(hand class): multinomial over ``len(digits)`` equally likely digits."""
        return np.array(self.classes.weights, dtype=np.float64)

    @cached_property
    def serials(self) -> tuple[Serial, ...]:
        """A representative serial per hand class."""
        return self.classes.serials

    def hand_of(self, serial: Serial) -> int:
        return self.classes.hand_of(serial)

    @property
    def size(self) -> int:
        return self.classes.size

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
