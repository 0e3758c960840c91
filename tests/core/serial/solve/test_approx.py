"""The approximate best response (local best response from beliefs) against the exact one where both exist."""

from __future__ import annotations

import json
import math
import random

import pytest

from bot.cli import main
from core.serial.players import get_strategy
from core.serial.round import Round
from core.serial.rules import make_rules
from core.serial.solve import Format, exploitability
from core.serial.solve.approx import approx_exploitability, exploit_rounds


@pytest.mark.parametrize(
    ("name", "digits", "length", "rounds"),
    [("reader", 2, 2, 300), ("binomial", 2, 2, 300), ("binomial", 3, 2, 250)],
)
def test_the_local_best_response_comes_within_a_fifth_of_the_exact_one(
    name: str, digits: int, length: int, rounds: int
) -> None:
    rules = make_rules("classic", rebid=True, digits=digits, serial_length=length)
    exact = exploitability(Format(rules), get_strategy(name)).value
    approx = approx_exploitability(lambda: get_strategy(name), rules, 2, rounds, seed=3)
    # a lower bound, up to the noise of the rounds played …
    assert approx.value <= exact + approx.half_width
    # … and a tight one: within 20 % of the exact figure (the interval's width allowed for)
    assert approx.value >= 0.8 * exact - approx.half_width
    assert exact > 0.5  # these strategies are very exploitable: the check above is not vacuous


def test_against_the_solved_table_it_finds_almost_nothing() -> None:
    rules = make_rules("classic", rebid=True, digits=2, serial_length=2)
    exact = exploitability(Format(rules), get_strategy("solver")).value
    approx = approx_exploitability(lambda: get_strategy("solver"), rules, 2, 300, seed=4)
    assert exact < 0.01
    assert approx.value <= exact + approx.half_width
    assert approx.value < 0.1  # while the same search takes ≥ 0.5 a round from reader and binomial above


def test_each_seat_is_measured_and_the_figures_are_per_round() -> None:
    rules = make_rules("classic", digits=2, serial_length=2)
    result = approx_exploitability(lambda: get_strategy("always-challenge"), rules, 3, 90, seed=1)
    assert [len(xs) for xs in result.seat_rounds] == [30, 30, 30]
    assert result.value == pytest.approx(sum(result.seat(i).mean for i in range(3)) / 3)
    # at a 3-player classic table a round moves at most (n - 1) stakes to or from one seat
    assert all(-2 <= x <= 2 for xs in result.seat_rounds for x in xs)
    assert result.value > 0  # always-challenge is beaten by anyone who looks at its own serial


def test_the_rounds_behind_the_figures_are_finished_rounds_with_the_exploiter_seated_in_turn() -> None:
    rules = make_rules("classic", digits=3, serial_length=3)
    rngs = (random.Random("d"), random.Random("p"), random.Random("l"))
    played = list(exploit_rounds(lambda: get_strategy("binomial"), rules, 3, 7, rngs, lookahead=1, seats=[2, 0]))
    assert [r.seat for r in played] == [2, 0, 2, 0, 2, 0, 2]
    for r in played:
        assert r.me == f"p{r.seat}" and r.round.outcome is r.outcome
        paid = sum(t.units for t in r.outcome.transfers if t.payee == r.me)
        paid -= sum(t.units for t in r.outcome.transfers if t.payer == r.me)
        assert r.units * r.round.stake == paid  # the exploiter's units are what the count's payments gave it
        replay = Round(rules, r.round.players, r.outcome.serials, "p0", rules.stake)  # the actions are the round's
        for action in r.actions:
            replay.apply(action)
        assert replay.outcome == r.outcome


def test_the_figures_cover_only_the_seats_the_exploiter_was_given() -> None:
    rules = make_rules("classic", digits=2, serial_length=2)
    result = approx_exploitability(lambda: get_strategy("always-challenge"), rules, 3, 20, seed=1, seats=[1])
    assert [len(xs) for xs in result.seat_rounds] == [0, 20, 0]
    seat = result.seat(1)
    assert result.value == seat.mean and result.half_width == seat.half_width < math.inf  # not diluted by 3


def test_liars_exploit_approx_in_the_full_game(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["exploit", "--approx", "--strategy", "binomial", "--digits", "10", "--serial-length", "8"]
    assert main([*args, "--players", "2", "--rounds", "6", "--particles", "8", "--lookahead", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["format"] == "full" and data["preset"] == "classic" and data["rebid"] is False
    assert set(data["seats"]) == {"0", "1"} and data["seats"]["0"]["rounds"] == 3
    assert main([*args, "--players", "13", "--rounds", "4"]) == 2
    assert "--players must be 2 to 12" in capsys.readouterr().err
