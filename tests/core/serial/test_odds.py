"""Exact binomial odds (the ``liars odds`` command built on them is tested in tests/bot/test_cli_odds.py)."""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import pytest

from core.serial import Serial
from core.serial.odds import at_least, count_distribution, exact_at_least, exact_pmf, exactly, player_odds


@pytest.mark.parametrize(("digits", "p_none"), [(8, 0.430467), (16, 0.185302), (24, 0.079766), (32, 0.034337)])
def test_reference_values_for_no_copies(digits: int, p_none: float) -> None:
    assert round(exactly(0, digits), 6) == p_none
    assert round(1 - at_least(1, digits), 6) == p_none


def test_the_pmf_is_the_exact_binomial() -> None:
    for k in (0, 1, 8, 24, 96):
        for j in range(k + 1):
            assert exact_pmf(k, j) == comb(k, j) * Fraction(1, 10) ** j * Fraction(9, 10) ** (k - j)
        assert sum(exact_pmf(k, j) for j in range(k + 1)) == 1


def test_the_float_tables_are_the_exact_values_rounded() -> None:
    for k in (8, 16, 40, 88):
        dist = count_distribution(k)
        assert len(dist) == k + 1
        assert abs(sum(dist) - 1) < 1e-12
        for j in range(k + 2):
            assert at_least(j, k) == pytest.approx(float(exact_at_least(j, k)), rel=1e-12, abs=1e-300)
            assert exactly(j, k) == pytest.approx(float(exact_pmf(k, j)) if j <= k else 0.0, rel=1e-12)


def test_tail_edges() -> None:
    assert at_least(0, 16) == 1.0 and at_least(-3, 16) == 1.0
    assert at_least(17, 16) == 0.0 and exactly(17, 16) == 0.0 and exactly(-1, 16) == 0.0
    assert at_least(16, 16) == pytest.approx(1e-16)
    assert at_least(1, 0) == 0.0 and at_least(0, 0) == 1.0
    with pytest.raises(ValueError):
        count_distribution(-1)


def test_a_player_needs_q_minus_h_among_the_other_serials() -> None:
    serial = Serial("77712345")
    rows = {d: (held, probs) for d, held, probs in player_odds(serial, 3)}
    assert len(rows) == 10 and all(len(probs) == 24 for _, probs in rows.values())
    held, probs = rows[7]
    assert held == 3
    assert probs[:3] == [1.0, 1.0, 1.0]  # up to 3 sevens are in hand
    assert probs[3] == pytest.approx(at_least(1, 16))
    assert probs[5] == pytest.approx(1 - sum(exactly(j, 16) for j in range(3)))
    assert rows[0] == (0, [at_least(q, 16) for q in range(1, 25)])
    assert all(a >= b for a, b in itertools.pairwise(probs))


@pytest.mark.parametrize(("p", "whole", "tenth"), [
    (0.0, "0%", "0.0%"), (0.004, "<1%", "0.4%"), (0.005, "<1%", "0.5%"), (0.43, "43%", "43.0%"),
    (0.995, ">99%", "99.5%"), (0.99899, ">99%", "99.9%"), (0.9999, ">99%", ">99.9%"), (1.0, "100%", "100.0%"),
])
def test_a_shown_chance_never_rounds_to_a_certainty_it_lacks(p: float, whole: str, tenth: str) -> None:
    from core.serial.odds import pct

    assert (pct(p), pct(p, 1)) == (whole, tenth)


def test_the_odds_read_at_twelve_players_says_more_than_99_not_100() -> None:
    """Holding three nines at twelve players, five or more nines is 0.99899 likely: the read said "100%"."""
    from core.serial.round import Round
    from core.serial.rules import make_rules
    from core.serial.text import odds_text

    players = [f"p{i}" for i in range(12)]
    serials = {p: Serial.parse("99912345" if p == "p0" else "12345678") for p in players}
    text = odds_text(Round(make_rules("classic"), players, serials, "p0"), "p0")
    nines = next(line for line in text.splitlines() if line.startswith("nines"))
    assert "≥5: >99%" in nines and "100%" not in text, text
