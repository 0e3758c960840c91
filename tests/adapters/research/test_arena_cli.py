"""``liars arena`` and the arena loop behind it (core/serial/solve/arena.py)."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from bot.cli import main
from core.serial import make_rules
from core.serial.solve.arena import ArenaError, assignments, run_arena


def _ticks() -> Callable[[], float]:
    """A clock that advances a millisecond per reading: the arena's timings without the machine's clock."""
    count = itertools.count()
    return lambda: next(count) / 1000


def arena_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["arena", *args, "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def test_arena_json_has_the_figures_for_every_strategy(capsys: pytest.CaptureFixture[str]) -> None:
    data = arena_json(
        capsys,
        *("--players", "3", "--strategies", "reader,binomial,binomial", "--rounds", "200"),
        *("--preset", "classic", "--seed", "1"),
    )
    assert data["players"] == 3 and data["rounds"] == 200 and data["seed"] == 1 and data["preset"] == "classic"
    assert data["lineup"] == ["reader", "binomial", "binomial"]
    assert data["rotation"] == {"kind": "permutations", "orders": 3}
    strategies = data["strategies"]
    assert isinstance(strategies, list)
    assert [s["name"] for s in strategies] == ["reader", "binomial"]
    assert [s["seats"] for s in strategies] == [1, 2]
    for s in strategies:
        units = s["units_per_round"]
        low, high = units["ci95"]
        assert low <= units["mean"] <= high and units["n"] == 200 and units["half_width"] >= 0
        for key in ("bids_made", "bids_failed", "challenges_won", "challenges_lost", "decisions"):
            assert isinstance(s[key], int) and s[key] >= 0
        ms = s["decision_ms"]
        assert 0 <= ms["p50"] <= ms["p99"] <= ms["max"]
    # every round has one final bid, made or failed; the table is zero-sum
    assert sum(s["bids_made"] + s["bids_failed"] for s in strategies) == 200
    total = sum(s["units_per_round"]["mean"] * s["seats"] for s in strategies)
    assert abs(total) < 1e-9
    (edge,) = data["edges"]
    assert edge["strategy"] == "reader" and edge["versus"] == "binomial" and len(edge["ci95"]) == 2
    assert data["actions_per_round"] >= 2 and data["mean_stake"] == 1


def test_arena_pads_a_short_lineup_and_reads_rule_options(capsys: pytest.CaptureFixture[str]) -> None:
    data = arena_json(
        capsys,
        *("--players", "4", "--strategies", "hard,easy", "--rounds", "40", "--preset", "salomon"),
        *("--option", "progressive=off", "--seed", "3"),
    )
    assert data["lineup"] == ["hard", "easy", "easy", "easy"]
    assert data["rules"]["progressive_stakes"] is False and data["mean_stake"] == 1


def test_arena_prints_a_table_for_people(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--strategies", "reader,random", "--rounds", "50"]) == 0
    out = capsys.readouterr().out
    assert "reader" in out and "random" in out and "95% CI" in out and "p99 ms" in out
    assert "reader minus random" in out
    assert "seats rotated over 2 orders (every distinct one)" in out  # it read "2 permutations orders"


@pytest.mark.parametrize(
    "args",
    [
        ["--strategies", "reader,oracle"],
        ["--players", "2", "--strategies", "reader,binomial,binomial"],
        ["--players", "13"],
        ["--rounds", "0"],
        ["--preset", "poker"],
        ["--option", "skunk"],
        ["--option", "colour=red"],
        ["--game", "cards", "--option", "jokers"],
        ["--game", "cards", "--option", "colour=red"],
    ],
)
def test_arena_refuses_what_it_cannot_play(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", *args, "--rounds", "5"] if "--rounds" not in args else ["arena", *args]) == 2
    assert "liars:" in capsys.readouterr().err


def test_the_arena_replays_from_its_seed() -> None:
    rules = make_rules("salomon")
    a = run_arena(["reader", "binomial", "random"], 60, rules, seed=5, clock=_ticks())
    b = run_arena(["reader", "binomial", "random"], 60, rules, seed=5, clock=_ticks())
    assert [s.per_round for s in a.stats.values()] == [s.per_round for s in b.stats.values()]
    c = run_arena(["reader", "binomial", "random"], 60, rules, seed=6, clock=_ticks())
    assert [s.per_round for s in a.stats.values()] != [s.per_round for s in c.stats.values()]


def test_progressive_stakes_carry_from_round_to_round() -> None:
    result = run_arena(["binomial", "binomial", "binomial"], 100, make_rules("salomon"), seed=2, clock=_ticks())
    assert result.stake_total > 100  # some final bids set a next stake above the base


def test_seats_rotate_over_every_distinct_order() -> None:
    kind, orders = assignments(["reader", "binomial", "binomial"], 100)
    assert kind == "permutations" and len(orders) == 3
    assert sorted(order.index(0) for order in orders) == [0, 1, 2]  # the reader sits in every seat once
    kind, orders = assignments(["a", "b", "c"], 100)
    assert len(orders) == 6 and len(set(orders)) == 6
    kind, orders = assignments(["reader"] + ["binomial"] * 11, 100)
    assert kind == "permutations" and len(orders) == 12
    kind, orders = assignments([f"s{i}" for i in range(8)], 100)  # 40,320 orders: more than the rounds
    assert kind == "cyclic" and len(orders) == 8
    seat_counts = Counter((seat, order[seat]) for order in orders for seat in range(8))
    assert set(seat_counts.values()) == {1}


def test_the_reader_is_ahead_of_random_players_in_the_arena() -> None:
    result = run_arena(["reader", "random", "random"], 200, make_rules("classic"), seed=1, clock=_ticks())
    reader, randoms = result.stats["reader"].units, result.stats["random"].units
    assert reader.mean > randoms.mean and reader.low > 0
    ((_, _, edge),) = result.edges()
    assert edge.excludes_zero() and edge.mean > 0


def test_the_arena_refuses_a_bad_lineup() -> None:
    with pytest.raises(ArenaError):
        run_arena(["reader"], 10, make_rules("classic"), clock=_ticks())
    with pytest.raises(ArenaError):
        run_arena(["reader", "nobody"], 10, make_rules("classic"), clock=_ticks())


def test_the_arena_takes_its_format_from_an_option_too_and_the_card_arena_its_own_players(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`--option format=elimination` played the rounds format and reported units per round; the card arena
    refused its own defaults (the serial game's players); an unknown name was reported as "--players must be…"."""
    data = arena_json(capsys, "--option", "format=elimination", "--games", "3")
    assert data["format"] == "elimination" and "units_per_round" not in json.dumps(data)
    assert main(["arena", "--format", "elimination", "--option", "format=rounds"]) == 2
    assert "disagree" in capsys.readouterr().err
    cards = arena_json(capsys, "--game", "cards", "--rounds", "2")
    assert cards["lineup"] == ["hard", "normal", "normal"]
    assert main(["arena", "--game", "cards", "--rounds", "2", "--format", "elimination"]) == 2
    assert capsys.readouterr().err == "liars: the card game has one format: leave --format out\n"
    for game, known in (("serial", "reader"), ("cards", "hard")):
        assert main(["arena", "--game", game, "--strategies", "bogus", "--rounds", "2"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("liars: unknown strategy 'bogus'; strategies are: ") and known in err, err
    assert main(["arena", "--strategies", ",".join(["reader"] * 13), "--rounds", "2"]) == 2
    assert "--strategies names 13: name 2 to 12 (one a seat), or give --players" in capsys.readouterr().err


@pytest.mark.parametrize("game", ["serial", "cards"])
def test_games_given_where_rounds_are_counted_is_refused_not_ignored(game: str,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """`liars arena --game cards --games 60` played 2,000 games (--rounds' default), --games unsaid."""
    assert main(["arena", "--game", game, "--games", "60", "--rounds", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("liars: ") and "--games" in err and "--rounds" in err and err.count("\n") == 1, err


@pytest.mark.parametrize("flags", [("--rounds", "99999999999999999999"), ("--game", "cards", "--rounds", "100000001"),
                                   ("--format", "elimination", "--games", "100000001")])
def test_a_count_past_any_use_is_refused_not_run_for_days(flags: tuple[str, ...],
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", *flags]) == 2
    assert capsys.readouterr().err == f"liars: {flags[-2]} must be at most 100,000,000\n"
