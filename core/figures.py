"""Figures from samples, for any game's research tools: a mean with its 95% interval, and decision times.

* :class:`Interval`: the mean of independent samples with its 95% confidence interval by the normal
  approximation (mean ± z · s / √n, ``s`` the sample standard deviation, ``z`` the standard normal's
  97.5% point).  Under two samples there is no spread to measure:
  the interval is unbounded (half-width ∞), never a false ±0; its JSON (:meth:`Interval.to_dict`) says
  null there (JSON has no infinity) and the text (:func:`plus_minus`, :func:`bracket`) ``± ?`` / ``n/a``.
* :func:`percentile` (nearest rank) and :func:`decision_ms`: p50/p99/max/mean of decision times.

Used by the serial game's arena, elimination arena and exploiters and by the card game's arena, so every
figure they print is computed one way.  Pure: arithmetic only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Z95", "Interval", "bracket", "decision_ms", "finite", "percentile", "plus_minus"]

Z95 = 1.959963984540054  # the standard normal's 97.5% point, correctly rounded (NormalDist's is 1 ulp below)


@dataclass(frozen=True, slots=True)
class Interval:
    """A sample mean and its 95% confidence interval [``low``, ``high``] = mean ∓ ``half_width``."""

    mean: float
    half_width: float
    stdev: float
    n: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Interval:
        """The figures of ``values`` (the mean is 0 and the interval unbounded when there are none)."""
        n = len(values)
        mean = math.fsum(values) / n if n else 0.0
        if n < 2:
            return cls(mean, math.inf, 0.0, n)
        var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
        return cls(mean, Z95 * math.sqrt(var / n), math.sqrt(var), n)

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    @property
    def bounded(self) -> bool:
        """Whether there is an interval at all (two samples or more)."""
        return math.isfinite(self.half_width)

    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0

    def to_dict(self) -> dict[str, Any]:
        """The figures as JSON takes them: ``ci95`` and ``half_width`` are null when the interval is unbounded."""
        return {
            "mean": self.mean,
            "ci95": [self.low, self.high] if self.bounded else None,
            "half_width": finite(self.half_width),
            "stdev": self.stdev,
            "n": self.n,
        }


def finite(x: float) -> float | None:
    """``x``, or None where it is infinite or not a number: a figure as JSON (which has neither) takes it."""
    return x if math.isfinite(x) else None


def plus_minus(half_width: float | None, spec: str) -> str:
    """``± 0.1234`` with the half-width formatted by ``spec``, or ``± ?`` where there is no interval."""
    if half_width is None or not math.isfinite(half_width):
        return "± ?"
    return f"± {half_width:{spec}}"


def bracket(ci95: Sequence[float] | None, spec: str, *, column: bool = False) -> str:
    """``[low, high]``, each formatted by ``spec``, or ``n/a`` where there is no interval (``ci95`` as
    :meth:`Interval.to_dict` writes it); in a ``column``, ``n/a`` is padded to the brackets' width."""
    if ci95 is None or not all(math.isfinite(x) for x in ci95):
        return "n/a".rjust(len(f"[{0.0:{spec}}, {0.0:{spec}}]") if column else 0)
    low, high = ci95
    return f"[{low:{spec}}, {high:{spec}}]"


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q`` quantile (0 < q ≤ 1) of an ascending sequence (0 when empty)."""
    if not sorted_values:
        return 0.0
    k = max(0, math.ceil(q * len(sorted_values)) - 1)
    return sorted_values[min(k, len(sorted_values) - 1)]


def decision_ms(seconds: Sequence[float]) -> dict[str, float]:
    """Decision times in milliseconds: p50 and p99 (nearest rank), max and mean; zeros when there were none."""
    ordered = sorted(seconds)
    return {
        "p50": 1000 * percentile(ordered, 0.50),
        "p99": 1000 * percentile(ordered, 0.99),
        "max": 1000 * (ordered[-1] if ordered else 0.0),
        "mean": 1000 * (math.fsum(ordered) / len(ordered) if ordered else 0.0),
    }
