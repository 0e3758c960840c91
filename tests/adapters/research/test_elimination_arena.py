"""``liars arena --format elimination``: whole games of who pays for dinner, each entry's pay rate."""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from core.serial.rules import make_rules
from core.serial.solve.arena import ArenaError
from core.serial.solve.elimination_arena import run_elimination_arena


def test_every_game_has_one_payer_and_the_lineup_rotates_through_the_seats() -> None:
    rules = make_rules("salomon", format="elimination")
    result = run_elimination_arena(["easy+elim", "easy", "easy", "random"], 24, rules, seed=3)
    assert sum(sum(v) for v in result.paid.values()) == 24  # one payer a game
    assert {k: len(v) for k, v in result.paid.items()} == {"easy+elim": 24, "easy": 48, "random": 24}
    again = run_elimination_arena(["easy+elim", "easy", "easy", "random"], 24, rules, seed=3)
    assert again.paid == result.paid  # a seed replays the run
    d = result.to_dict()
    assert d["fair_share"] == 0.25 and d["rounds_per_game"] >= 3
    rate = result.pay_rate("random")
    assert rate.low <= rate.mean <= rate.high and rate.n == 24
    with pytest.raises(ArenaError):
        run_elimination_arena(["nobody+elim", "easy"], 1, rules, seed=1)


def test_the_cli_prints_the_pay_rates(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--format", "elimination", "--strategies", "easy+elim,easy", "--players", "3",
                 "--games", "12", "--seed", "4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["format"] == "elimination" and data["games"] == 12 and len(data["entries"]) == 2
    assert sum(e["paid"] for e in data["entries"]) == 12
    assert main(["arena", "--format", "elimination", "--strategies", "easy+elim,easy", "--games", "0"]) == 2
    assert main(["arena", "--strategies", "easy+elim,easy", "--rounds", "5"]) == 2  # +elim is the elimination's
