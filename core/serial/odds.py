"""Exact binomial odds (RULES.md "Odds").  No sampling: every figure is a sum of exact terms.

The count of one digit among ``k`` unknown uniform digits is Binomial(k, 1/10).  A player holding
``h`` copies of ``d`` at an ``n``-player table needs ``q − h`` more among the other ``8(n − 1)`` digits.
In a reduced format (``digits`` values, serials of ``serial_length``) the count is Binomial(k, 1/digits)
and the others hold ``serial_length × (n − 1)`` digits; every function takes ``digits`` (default 10).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import comb

from .serials import Serial

__all__ = ["at_least", "count_distribution", "exact_at_least", "exactly", "pct", "player_odds"]


def pct(p: float, decimals: int = 0) -> str:
    """``0.4321`` → ``43%`` (``43.2%`` with one decimal); ``<1%``/``>99%`` (``<0.1%``/``>99.9%``) at the ends
    where rounding would say 0% or 100%: a figure shown to a player never claims a certainty it lacks."""
    shown, step = f"{100 * p:.{decimals}f}", 10.0 ** -decimals  # the smallest step shown, in percent
    if 0.0 < p and float(shown) == 0.0:
        return f"<{step:.{decimals}f}%"
    if p < 1.0 and float(shown) >= 100.0:
        return f">{100 - step:.{decimals}f}%"
    return f"{shown}%"


@cache
def count_distribution(k: int, digits: int = 10) -> tuple[float, ...]:
    """P(exactly j copies of one digit among k unknown digits) for j = 0 .. k."""
    if k < 0:
        raise ValueError("k must be at least 0")
    return tuple(float(exact_pmf(k, j, digits)) for j in range(k + 1))


@cache
def _tail(k: int, digits: int) -> tuple[float, ...]:
    """tail[j] = P(at least j copies among k digits), j = 0 .. k + 1 (computed exactly, then rounded)."""
    out = [0.0] * (k + 2)
    acc = Fraction(0)
    for j in range(k, -1, -1):
        acc += exact_pmf(k, j, digits)
        out[j] = float(acc)
    return tuple(out)


def exact_pmf(k: int, j: int, digits: int = 10) -> Fraction:
    return Fraction(comb(k, j) * (digits - 1) ** (k - j), digits**k)


def exactly(j: int, k: int, digits: int = 10) -> float:
    return count_distribution(k, digits)[j] if 0 <= j <= k else 0.0


def at_least(j: int, k: int, digits: int = 10) -> float:
    """P(at least j copies of one digit among k unknown digits)."""
    if j <= 0:
        return 1.0
    if j > k:
        return 0.0
    return _tail(k, digits)[j]


def exact_at_least(j: int, k: int, digits: int = 10) -> Fraction:
    return sum((exact_pmf(k, i, digits) for i in range(max(j, 0), k + 1)), Fraction(0))


def player_odds(
    serial: Serial, players: int, *, digits: tuple[int, ...] = tuple(range(10)), serial_length: int = 8
) -> list[tuple[int, int, list[float]]]:
    """For each digit d in play: (d, copies held, [P(total ≥ q) for q = 1 .. L·players]) given one's own serial."""
    unknown = serial_length * (players - 1)
    values = max(len(digits), 2)
    rows = []
    for d in sorted(digits):
        held = serial.counts[d]
        rows.append((d, held, [at_least(q - held, unknown, values) for q in range(1, serial_length * players + 1)]))
    return rows
