"""``liars train``'s search (core/serial/solve/train.py): the exploitability term of the objective, the warm
start, and the command's checks of its flags."""

from __future__ import annotations

import dataclasses

import pytest

from bot.cli import main
from core.serial.players import Binomial, Reader, ReaderParams, Strategy
from core.serial.rules import make_rules
from core.serial.solve.train import Exploit, _fitness, _score, train

RULES = make_rules("classic", digits=3, serial_length=3)  # 10 hand classes: the best response's belief is exact


def test_the_exploitability_term_is_subtracted_from_the_pool_fitness() -> None:
    params = ReaderParams()
    pool: list[Strategy] = [Reader(name="reader"), Binomial()]
    pool_fit, per, played = _fitness(params, pool, RULES, 2, 40, 7)
    exploit = Exploit(weight=0.5, rounds=6, particles=4)
    lbr = exploit.measure(params, RULES, 2, 7)
    assert lbr > 0  # the reader is exploitable in 3x3 (0.91 by the exact measure)
    fit, vs_reader, measured, rounds = _score(params, pool, RULES, 2, 40, 7, exploit)
    assert measured == pytest.approx(lbr)
    assert fit == pytest.approx(pool_fit - 0.5 * lbr)
    assert vs_reader == pytest.approx(per[0])
    assert rounds == played + 6
    # Without the term the fitness is the pool's alone and no best response is played.
    fit, vs_reader, measured, rounds = _score(params, pool, RULES, 2, 40, 7, Exploit())
    assert fit == pytest.approx(pool_fit) and vs_reader == pytest.approx(per[0])
    assert (measured, rounds) == (None, played)


def test_training_with_the_term_reports_the_best_responses_figures_and_keeps_the_pool_figure_in_units() -> None:
    start = dataclasses.replace(ReaderParams(), bid_ratio=4.0, stack_read=0.5)
    result = train(RULES, 2, generations=1, size=2, elite=1, rounds=20, seed=3, start=start, sigma0=0.05,
                   exploit=Exploit(weight=1.0, rounds=4, particles=4))
    (generation,) = result.generations
    assert generation.exploit is not None and result.final_exploit is not None
    # The shipped figure over the pool is units per round: the term is not left in it.
    pool: list[Strategy] = [Reader(name="reader"), Binomial(), Reader(generation.params, name="champion0")]
    fit, per, _ = _fitness(result.params, pool, RULES, 2, 40, 3 + 10_000)
    assert result.final == pytest.approx(fit)
    assert result.final_vs == pytest.approx(per[0])
    # The warm start's dials that the search does not move stay as they were started.
    assert result.params.raise_target == start.raise_target and result.params.bluff_hold == start.bluff_hold


def test_training_without_the_term_plays_no_best_response() -> None:
    result = train(RULES, 2, generations=1, size=2, elite=1, rounds=10, seed=1)
    assert result.generations[0].exploit is None and result.final_exploit is None


@pytest.mark.parametrize(
    "flags",
    [("--exploit-weight", "-1"), ("--exploit-rounds", "0"), ("--exploit-particles", "0"), ("--sigma", "0"),
     ("--sigma", "1.5")],
)
def test_the_train_command_refuses_bad_exploit_flags(
    flags: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["train", "--presets", "classic", "--players", "2", *flags]) != 0
    assert "--exploit-weight must be at least 0" in capsys.readouterr().err


def test_no_generations_only_judges_the_start() -> None:
    start = dataclasses.replace(ReaderParams(), self_read=1.0, stack_read=1.0, raised_value=0.2)
    result = train(RULES, 2, generations=0, rounds=10, seed=2, start=start, exploit=Exploit(1.0, 4, 4))
    assert result.params == start and result.generations == []
    assert result.final_exploit is not None and result.rounds_played == 2 * 10 * 2 + 2 * 4


@pytest.mark.parametrize(
    ("value", "message"),
    [("nonsense=1", "--set takes DIAL=VALUE pairs"), ("bid_ratio", "--set takes DIAL=VALUE pairs"),
     ("bid_ratio=high", "--set bid_ratio: 'high' is not a number"),
     ("max_jump=2.5", "is not a whole number"), ("bluff_uniform=maybe", "is not true or false")],
)
def test_the_train_command_refuses_bad_dial_values(
    value: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["train", "--presets", "classic", "--players", "2", "--set", value]) != 0
    assert message in capsys.readouterr().err
