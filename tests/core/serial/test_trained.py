"""The trained ``hard`` player's artefact: it loads, plays every preset at every table size, and says where it
falls back to dials trained for another table."""

from __future__ import annotations

import random

import pytest

from core.serial.players import TrainedReader, get_strategy
from core.serial.players.trained import load, trained_params
from core.serial.players.trained_data import TRAINED
from core.serial.round import Round
from core.serial.rules import PRESETS, make_rules
from core.serial.serials import deal_serial
from core.serial.view import seat_view


def play_round(rules_preset: str, n: int, seed: int, **options: object) -> tuple[Round, set[str | None]]:
    rules = make_rules(rules_preset, **options)
    rng = random.Random(seed)
    seats = [f"p{i}" for i in range(n)]
    round_ = Round(rules, seats, {p: deal_serial(rng, rules.serial_length, rules.digits) for p in seats}, seats[0])
    players = {p: get_strategy("hard") for p in seats}
    notes: set[str | None] = set()
    trained = TrainedReader()
    while round_.outcome is None:
        who = round_.to_act
        assert who is not None
        view = seat_view(round_, who)
        notes.add(trained.fallback(view))
        action = players[who].decide(view, rng)
        round_.check(action)  # legal, or this raises
        round_.apply(action)
    return round_, notes


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("n", range(2, 13))
def test_hard_plays_every_preset_at_every_table_size(preset: str, n: int) -> None:
    round_, notes = play_round(preset, n, seed=n)
    assert round_.outcome is not None
    assert sum(round_.outcome.net.values()) == 0
    (note,) = notes  # one table, one choice of dials
    trained_here = f"{preset}/{n}" in TRAINED
    assert (note is None) == trained_here
    if not trained_here and TRAINED:
        assert note is not None and "not trained" in note  # it says what it used instead


def test_options_that_change_the_payoffs_make_a_table_the_training_did_not_see() -> None:
    if not TRAINED:
        pytest.skip("no trained dials shipped")
    preset, n = next(iter(TRAINED)).split("/")
    rules = make_rules(preset, size_bonus=not PRESETS[preset].size_bonus)
    _, note = trained_params(rules, int(n))
    assert note is not None and "these rules were not trained" in note
    assert trained_params(PRESETS[preset], int(n))[1] is None


def test_a_reduced_format_is_played_with_the_full_games_dials_and_says_so() -> None:
    _, note = trained_params(make_rules("classic", digits=5, serial_length=5), 2)
    assert note is not None
    assert "5×5" in note or "no trained dials" in note


def test_the_artefact_is_plain_data_with_the_training_figures() -> None:
    assert load() is TRAINED
    for key, entry in TRAINED.items():
        preset, n = key.split("/")
        assert preset in PRESETS and 2 <= int(n) <= 12
        assert {"params", "pool", "vs_reader", "rounds", "cpu_seconds"} <= set(entry)
        assert entry["rounds"] > 0


def test_the_explanation_names_the_fallback() -> None:
    rules = make_rules("quick")
    rng = random.Random(1)
    seats = [f"p{i}" for i in range(9)]
    round_ = Round(rules, seats, {p: deal_serial(rng) for p in seats}, seats[0])
    view = seat_view(round_, "p0")
    text = TrainedReader().explain(view)
    assert "Dials:" in text and ("not trained" in text or "no trained dials" in text)
