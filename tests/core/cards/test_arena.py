"""The card game's arena: whole games, seats rotated, figures per player, replayable from the seed."""

from __future__ import annotations

import json
import random

import pytest

from bot.cli import main
from core.cards.arena import CardArenaError, challenger, run_card_arena
from core.cards.cards import shuffled_deck
from core.cards.declarations import Declaration
from core.cards.hands import HandType, all_values
from core.cards.players import view_of
from core.cards.round import Challenge, Declare, Phase, Round, Take
from core.cards.rules import make_rules


def test_every_game_has_one_winner_and_the_units_balance() -> None:
    result = run_card_arena(["hard", "challenger", "random"], 24, make_rules("standard"), seed=2)
    assert result.rounds >= 24 * 2  # three players: at least two knock-outs a game
    wins = [sum(st.wins[g] * st.seats for st in result.stats.values()) for g in range(24)]
    assert wins == [1.0] * 24
    units = [sum(st.units[g] * st.seats for st in result.stats.values()) for g in range(24)]
    assert units == [0.0] * 24  # the winner collects from everyone else: nothing made or lost


def test_a_clock_times_every_decision_and_changes_no_play() -> None:
    ticks = iter(range(1_000_000))
    timed = run_card_arena(["hard", "easy", "challenger"], 4, make_rules("wild"), seed=3, clock=lambda: next(ticks))
    plain = run_card_arena(["hard", "easy", "challenger"], 4, make_rules("wild"), seed=3)
    assert sum(len(st.seconds) for st in timed.stats.values()) == timed.actions  # one time per decision
    assert all(t == 1 for st in timed.stats.values() for t in st.seconds)  # each read start and end once
    assert (timed.actions, timed.stats["hard"].units) == (plain.actions, plain.stats["hard"].units)
    assert all(not st.seconds for st in plain.stats.values())


def test_a_run_replays_from_its_seed() -> None:
    a = run_card_arena(["normal", "easy", "easy"], 10, make_rules("wild"), seed=5)
    b = run_card_arena(["normal", "easy", "easy"], 10, make_rules("wild"), seed=5)
    assert (a.stats["normal"].units, a.actions) == (b.stats["normal"].units, b.actions)


@pytest.mark.parametrize(("lineup", "games"), [(["hard"], 5), (["hard", "nobody"], 5), (["hard", "easy"], 0)])
def test_bad_lineups_are_refused(lineup: list[str], games: int) -> None:
    with pytest.raises(CardArenaError):
        run_card_arena(lineup, games, make_rules("standard"))


def test_the_challenger_baseline_challenges_above_a_pair_and_takes_the_rest() -> None:
    round_ = Round(["a", "b"], shuffled_deck(random.Random(1)), "a")
    first = challenger(view_of(round_, "a"))
    assert isinstance(first, Declare) and first.declaration.type is HandType.HIGH_CARD  # the least declaration
    round_.apply(first)
    assert round_.phase is Phase.GUN
    assert challenger(view_of(round_, "b")) == Take("b")  # a high card is not above a pair
    high = Declaration.exactly(next(v for v in all_values(0) if v.type is HandType.TWO_PAIR))
    round_ = Round(["a", "b"], shuffled_deck(random.Random(1)), "a")
    round_.apply(Declare("a", high))
    assert challenger(view_of(round_, "b")) == Challenge("b")


def test_liars_arena_game_cards(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["arena", "--game", "cards", "--players", "3", "--strategies", "hard,challenger", "--rounds", "6"]
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["preset"] == "standard" and data["lineup"] == ["hard", "challenger", "challenger"]
    assert {r["name"] for r in data["players_figures"]} == {"hard", "challenger"}
    assert data["edges"][0]["versus"] == "challenger"
    for row in data["players_figures"]:
        ms = row["decision_ms"]
        assert 0 <= ms["p50"] <= ms["p99"] <= ms["max"]
    assert main([*args, "--preset", "classic"]) == 2
    assert "unknown preset" in capsys.readouterr().err
