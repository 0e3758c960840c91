"""core.figures: the one mean-and-interval and percentile code every arena and exploiter prints from."""

from __future__ import annotations

import math
import statistics

import pytest

from core.figures import Z95, Interval, bracket, decision_ms, finite, percentile, plus_minus


def test_the_interval_is_the_mean_plus_or_minus_z_standard_errors() -> None:
    values = [1.0, -2.0, 0.0, 3.5, 2.0, -1.0, 0.5]
    iv = Interval.of(values)
    se = statistics.stdev(values) / math.sqrt(len(values))
    assert iv.mean == pytest.approx(statistics.fmean(values), abs=1e-15) and iv.n == 7
    assert iv.stdev == pytest.approx(statistics.stdev(values), rel=1e-12)
    assert iv.half_width == pytest.approx(statistics.NormalDist().inv_cdf(0.975) * se, rel=1e-12)
    assert (iv.low, iv.high) == (iv.mean - iv.half_width, iv.mean + iv.half_width)
    assert iv.to_dict() == {"mean": iv.mean, "ci95": [iv.low, iv.high], "half_width": iv.half_width,
                            "stdev": iv.stdev, "n": 7}
    assert Z95 == pytest.approx(statistics.NormalDist().inv_cdf(0.975), rel=1e-15)


def test_zero_spread_gives_a_zero_width_interval_and_zero_is_not_excluded() -> None:
    iv = Interval.of([0.0, 0.0, 0.0])
    assert (iv.mean, iv.half_width, iv.stdev) == (0.0, 0.0, 0.0)
    assert not iv.excludes_zero()
    assert Interval.of([2.0, 2.0]).excludes_zero() and Interval.of([-1.0, -1.0]).excludes_zero()
    assert not Interval.of([-1.0, 1.0]).excludes_zero()


@pytest.mark.parametrize(("values", "mean"), [([], 0.0), ([0.0], 0.0), ([-3.0], -3.0)])
def test_under_two_samples_the_interval_is_unbounded(values: list[float], mean: float) -> None:
    iv = Interval.of(values)
    assert iv.mean == mean and iv.n == len(values)
    assert iv.half_width == math.inf and iv.low == -math.inf and iv.high == math.inf
    assert not iv.excludes_zero() and not iv.bounded
    # JSON has no infinity: the interval is null there, and the text says so
    assert iv.to_dict() == {"mean": mean, "ci95": None, "half_width": None, "stdev": 0.0, "n": len(values)}
    assert plus_minus(iv.half_width, ".4f") == "± ?" and bracket(iv.to_dict()["ci95"], "+.3f") == "n/a"
    assert bracket(None, ">+8.4f", column=True) == " " * 17 + "n/a"  # as wide as "[+nn.nnnn, +nn.nnnn]"


def test_a_bounded_interval_prints_its_figures() -> None:
    iv = Interval.of([0.0, 0.0, 3.0])
    assert iv.bounded and finite(iv.half_width) == iv.half_width and finite(math.nan) is None
    assert plus_minus(iv.half_width, ".2f") == f"± {iv.half_width:.2f}"
    assert plus_minus(0.0, ".1f") == "± 0.0"  # zero spread is an interval, not a missing one
    assert bracket(iv.to_dict()["ci95"], "+.3f", column=True) == f"[{iv.low:+.3f}, {iv.high:+.3f}]"


def test_percentiles_are_nearest_rank() -> None:
    hundred = [float(x) for x in range(1, 101)]
    assert [percentile(hundred, q) for q in (0.01, 0.5, 0.99, 1.0)] == [1.0, 50.0, 99.0, 100.0]
    assert percentile([7.0], 0.99) == 7.0 and percentile([], 0.5) == 0.0
    assert [percentile([0.0, 10.0], q) for q in (0.5, 0.51)] == [0.0, 10.0]


@pytest.mark.parametrize("n", [1, 2, 3, 99, 100, 101, 199, 200, 1000, 4001])
def test_a_percentile_is_one_of_the_values_and_never_above_the_max(n: int) -> None:
    """What the benches print beside their max (bench/service.py once printed a p99 above it)."""
    values = sorted((k * 7919) % 1009 / 7.0 for k in range(n))
    for q in (0.01, 0.5, 0.9, 0.99, 0.999, 1.0):
        p = percentile(values, q)
        assert p in values and values[0] <= p <= values[-1]
        assert sum(v <= p for v in values) >= q * n  # nearest rank: at least a q share is at or below it
    assert percentile(values, 1.0) == values[-1]


def test_decision_times_are_in_milliseconds_and_zero_when_there_were_none() -> None:
    ms = decision_ms([0.003, 0.001, 0.002, 0.0])
    assert ms == pytest.approx({"p50": 1.0, "p99": 3.0, "max": 3.0, "mean": 1.5})
    assert decision_ms([]) == {"p50": 0.0, "p99": 0.0, "max": 0.0, "mean": 0.0}
