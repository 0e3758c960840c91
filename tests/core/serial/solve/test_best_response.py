"""The exploitability tools: the best response against an independent brute-force enumeration, and CFR+."""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import json
import pathlib
import random
from collections import Counter

import pytest

from core.serial import Round, Serial, make_rules, seat_view
from core.serial.players import get_strategy
from core.serial.players.base import Strategy, policy_of
from core.serial.players.solved import Solved, SolvedTable, pack_table, rows_of, rows_text, unpack_table
from core.serial.rules import Rules
from core.serial.scoring import score
from core.serial.serials import deal_serial
from core.serial.solve import Format, exploitability
from core.serial.solve.cfr import Solver
from core.serial.solve.restricted import restricted_best_response

# the numba kernels compile once per process: these files share one xdist worker (``--dist loadgroup``)
pytestmark = pytest.mark.xdist_group("numba")

SEATS = ("p1", "p2")


def brute_force_value(rules: Rules, strategy: Strategy, br_seat: int) -> float:
    """The best response's value by plain enumeration: every serial (not hand classes), every history,
    no merging of nodes, payoffs from the engine's ``score`` on the actual serials."""
    chars = [str(d) for d in rules.digit_set]
    serials = [Serial("".join(t)) for t in itertools.product(chars, repeat=rules.serial_length)]
    p = 1.0 / len(serials)
    me, other = SEATS[br_seat], SEATS[1 - br_seat]

    def rec(rnd: Round, reach: list[float]) -> list[float]:
        if rnd.is_over:
            assert rnd.standing_bid is not None and rnd.bidder is not None
            out = []
            for b in serials:
                total = 0.0
                for a, r in zip(serials, reach, strict=True):
                    if r:
                        net = score(rules, SEATS, {me: b, other: a}, rnd.standing_bid, rnd.bidder, 1, ()).net
                        total += r * net[me]
                out.append(total)
            return out
        actions = list(rnd.legal_actions())
        if rnd.to_act == me:
            best = [float("-inf")] * len(serials)
            for action in actions:
                child = rnd.copy()
                child.apply(action)
                best = [max(x, y) for x, y in zip(best, rec(child, reach), strict=True)]
            return best
        view = seat_view(rnd, other)
        probs = [dict(policy_of(strategy, dataclasses.replace(view, serial=a))) for a in serials]
        totals = [0.0] * len(serials)
        for action in actions:
            sub = [r * pr.get(action, 0.0) for r, pr in zip(reach, probs, strict=True)]
            if any(sub):
                child = rnd.copy()
                child.apply(action)
                totals = [x + y for x, y in zip(totals, rec(child, sub), strict=True)]
        return totals

    root = Round(rules, SEATS, dict.fromkeys(SEATS, serials[0]), SEATS[0], 1)
    return sum(p * v for v in rec(root, [p] * len(serials)))


@pytest.mark.parametrize(
    ("digits", "length", "rebid", "names"),
    [
        (2, 1, True, ("random", "binomial", "reader", "easy", "always-challenge")),
        (2, 1, False, ("random", "reader", "normal")),
        (2, 2, True, ("binomial", "reader")),
        (3, 1, True, ("random",)),
    ],
)
def test_best_response_matches_brute_force(digits: int, length: int, rebid: bool, names: tuple[str, ...]) -> None:
    rules = make_rules("classic", rebid=rebid, digits=digits, serial_length=length)
    fmt = Format(rules)
    for name in names:
        result = exploitability(fmt, get_strategy(name))
        for seat in (0, 1):
            expected = brute_force_value(rules, get_strategy(name), seat)
            assert result.seat_values[seat] == pytest.approx(expected, abs=1e-9)


def test_a_best_response_never_earns_less_than_the_strategy_against_itself() -> None:
    # Self-play of a symmetric strategy, averaged over the seats, is worth 0: a best response earns at least that.
    fmt = Format(make_rules("classic", rebid=True, digits=2, serial_length=2))
    for name in ("random", "binomial", "reader"):
        assert exploitability(fmt, get_strategy(name)).value >= 0.0


def test_cfr_exploitability_decreases_to_near_zero() -> None:
    fmt = Format(make_rules("classic", rebid=True, digits=2, serial_length=1))
    solver = Solver(fmt, memory=1)
    figures = []
    for target in (2, 20, 200):
        solver.iterate(target - solver.iterations)
        figures.append(exploitability(fmt, Solved(solver.table())).value)
    assert figures[0] > figures[1] > figures[2]
    assert figures[2] < 0.01


def test_a_pass_without_an_iteration_only_values_the_strategy() -> None:
    solver = Solver(Format(make_rules("classic", rebid=True, digits=2, serial_length=2)), memory=1)
    solver.iterate(20)
    regrets = [n.regret.copy() for n in solver.nodes]
    totals = [n.total.copy() for n in solver.nodes]
    sigma = list(solver.average().values())
    value = solver.update(0, sigma)
    assert solver.update(1, sigma) == value and value != 0.0  # seat 0's value, whichever seat is named
    assert all((n.regret == r).all() and (n.total == t).all() for n, r, t in zip(solver.nodes, regrets, totals,
                                                                                  strict=True))
    assert solver.update(0, solver.current(), t=21) != 0.0
    assert any((n.regret != r).any() for n, r in zip(solver.nodes, regrets, strict=True))


def test_solved_table_round_trips_and_plays_legally() -> None:
    rules = make_rules("classic", rebid=True, digits=2, serial_length=2)
    solver = Solver(Format(rules), memory=1)
    solver.iterate(10)
    table = solver.table()
    assert SolvedTable.decode(table.encode()) == table
    strategy = Solved(table)
    rng = random.Random(2)
    for _ in range(50):
        r = Round(rules, SEATS, {p: deal_serial(rng, 2, 2) for p in SEATS}, "p1")
        while not r.is_over:
            player = r.to_act
            assert player is not None
            view = seat_view(r, player)
            assert abs(sum(p for _, p in strategy.policy(view)) - 1.0) < 1e-9
            r.apply(strategy.decide(view, rng))


def test_row_texts_round_trip_and_a_repeated_text_is_parsed_once() -> None:
    rows = (((-1, 1000),), ((0, 400), (3, 600)), ())  # an empty row: a hand class the node never holds
    text = rows_text(rows)
    assert text == "-1=1000;0=400,3=600;"
    parsed: dict[str, tuple[tuple[tuple[int, int], ...], ...]] = {}
    first = rows_of(text, parsed)
    assert first == rows and rows_of(text, parsed) is first and list(parsed) == [text]
    assert rows_of("-1=1000", parsed) == (((-1, 1000),),) and len(parsed) == 2


def test_a_packed_table_is_parsed_only_when_it_plays_and_plays_as_the_table() -> None:
    rules = make_rules("classic", rebid=False, digits=2, serial_length=2)
    solver = Solver(Format(rules), memory=0)
    solver.iterate(10)
    table = solver.table()
    header, packed = pack_table(table)
    assert header == "2 2 0 0" and unpack_table(packed) == table
    lazy = Solved((header, packed))
    assert "table" not in lazy.__dict__  # built from the header alone
    other = Round(make_rules("classic", rebid=True, digits=2, serial_length=2), SEATS,
                  {p: Serial("12") for p in SEATS}, "p1")
    assert not lazy.fits(seat_view(other, "p1")) and "table" not in lazy.__dict__  # another format: still packed
    rng = random.Random(5)
    for _ in range(20):
        r = Round(rules, SEATS, {p: deal_serial(rng, 2, 2) for p in SEATS}, "p1")
        while not r.is_over:
            view = seat_view(r, r.to_act or "")
            assert lazy.fits(view) and lazy.policy(view) == Solved(table).policy(view)
            r.apply(lazy.decide(view, rng))
    assert lazy.table == table


@pytest.mark.parametrize("name", ["reader", "normal", "easy"])
def test_policy_is_the_mixture_decide_draws_from(name: str) -> None:
    rules = make_rules("classic", rebid=True, digits=3, serial_length=3)
    rng = random.Random(11)
    for _ in range(3):
        r = Round(rules, SEATS, {p: deal_serial(rng, 3, 3) for p in SEATS}, "p1")
        view = seat_view(r, "p1")
        strategy = get_strategy(name)
        policy = dict(policy_of(strategy, view))
        assert abs(sum(policy.values()) - 1.0) < 1e-9
        draws = Counter(strategy.decide(view, random.Random(seed)) for seed in range(3000))
        assert set(draws) <= set(policy)
        for action, count in draws.items():
            assert abs(count / 3000 - policy[action]) < 0.04


@pytest.mark.parametrize("memory", [0, 1, 2])
@pytest.mark.parametrize("rebid", [True, False])
def test_the_table_walk_equals_the_engine_driven_best_response(memory: int, rebid: bool) -> None:
    # Two independent searches: the engine's rounds with the table read through real views (abstract_key),
    # and the integer walk over the packed states the solver's graph uses (push_memory).
    from core.serial.solve.tree import table_exploitability

    fmt = Format(make_rules("classic", rebid=rebid, digits=2, serial_length=2))
    solver = Solver(fmt, memory=memory)
    solver.iterate(7)  # far from solved: a mixed, hand-dependent table
    table = solver.table()
    engine = exploitability(fmt, Solved(table), top=0).seat_values
    walked = table_exploitability(fmt, table, fast=False)
    assert walked == pytest.approx(engine, abs=1e-9)
    assert abs(engine[0]) > 1e-3  # a real figure, not a vacuous zero


def test_the_compiled_walk_equals_the_plain_one() -> None:
    pytest.importorskip("numba")
    from core.serial.solve.tree import table_exploitability

    fmt = Format(make_rules("classic", rebid=True, digits=3, serial_length=2))
    solver = Solver(fmt, memory=2)
    solver.iterate(3)
    table = solver.table()
    assert table_exploitability(fmt, table, fast=True) == pytest.approx(table_exploitability(fmt, table, fast=False),
                                                                        abs=1e-9)


@pytest.mark.parametrize(("digits", "length"), [(2, 1), (2, 2), (3, 2)])
def test_the_restricted_best_response_is_a_lower_bound_that_memory_brings_near_the_exact_one(
    digits: int, length: int
) -> None:
    from core.serial.solve.tree import table_exploitability

    fmt = Format(make_rules("classic", rebid=True, digits=digits, serial_length=length))
    solver = Solver(fmt, memory=0)
    solver.iterate(7)  # far from solved: a leaky, hand-dependent table
    table = solver.table()
    exact = table_exploitability(fmt, table, fast=False)
    figures = [restricted_best_response(fmt, table, memory, 40).seat_values for memory in (0, 1)]  # ratios as at 300
    for seats in figures:  # a real strategy never earns more than the best response
        assert all(r <= e + 1e-9 for r, e in zip(seats, exact, strict=True))
    assert sum(figures[1]) / 2 >= 0.95 * sum(exact) / 2 > 0.05  # one bid more than the table: nearly all of it


def test_the_compiled_restricted_best_response_is_the_plain_one() -> None:
    """The same exploiter learned on the compiled passes: the plain figures in float64 (on 2 threads), and within
    float32's rounding with the node values in float32 (on 1)."""
    pytest.importorskip("numba")
    fmt = Format(make_rules("classic", rebid=True, digits=3, serial_length=2))
    solver = Solver(fmt, memory=0)
    solver.iterate(7)
    table = solver.table()
    plain = restricted_best_response(fmt, table, 1, 30).seat_values
    assert min(plain) > 0.1  # a real figure in each seat
    compiled = restricted_best_response(fmt, table, 1, 30, compiled=True, threads=2).seat_values
    assert compiled == pytest.approx(plain, abs=1e-12)
    single = restricted_best_response(fmt, table, 1, 30, compiled=True, single=True).seat_values
    assert single == pytest.approx(plain, abs=1e-6)
    assert single != plain  # float32 did hold the node values


def test_the_restricted_best_response_refuses_a_shorter_memory_than_the_table() -> None:
    fmt = Format(make_rules("classic", rebid=True, digits=2, serial_length=2))
    solver = Solver(fmt, memory=1)
    solver.iterate(3)
    with pytest.raises(ValueError, match="at least"):
        restricted_best_response(fmt, solver.table(), 0, 5)


def test_liars_exploit_restricted_measures_the_table_a_strategy_plays(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main
    from core.serial.solve.tree import table_exploitability, table_of

    args = ["exploit", "--restricted", "--digits", "2", "--serial-length", "2", "--iterations", "60"]
    assert main([*args, "--strategy", "hard", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rules = make_rules("classic", rebid=True, digits=2, serial_length=2)
    table = table_of(get_strategy("hard"), rules)
    assert table is not None and data["memory"] == table.memory + 1 and data["format"] == "2×2"
    exact = table_exploitability(Format(rules), table, fast=False)
    assert all(r <= e + 1e-9 for r, e in zip(data["seat_values"], exact, strict=True))
    assert main([*args, "--strategy", "reader"]) == 2  # no table to freeze: one clear refusal
    assert "plays no abstract solved table" in capsys.readouterr().err
    assert main([*args, "--strategy", "hard", "--memory", "0"]) == 2
    assert "at least the table's 1 bids" in capsys.readouterr().err


def test_liars_exploit_restricted_measures_a_table_in_a_packed_file(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import main

    path = str(tmp_path / "packed.py")
    fmt_args = ["--digits", "2", "--serial-length", "2"]
    assert main(["exploit", "--solve", *fmt_args, "--memory", "0", "--iterations", "7", "--every", "0", "--write", path,
                 "--pack"]) == 0
    capsys.readouterr()
    rules = make_rules("classic", rebid=True, digits=2, serial_length=2)
    fmt = Format(rules)
    solver = Solver(fmt, memory=0)
    solver.iterate(7)
    expected = restricted_best_response(fmt, solver.table(), 1, 20).seat_values  # the table the file holds
    args = ["exploit", "--restricted", *fmt_args, "--iterations", "20", "--table", path, "--json"]
    runs: list[list[str]] = [[]] + ([["--compiled", "--float32"]] if importlib.util.find_spec("numba") else [])
    for extra in runs:
        assert main([*args, *extra]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["memory"] == 1 and data["seat_values"] == pytest.approx(expected, abs=1e-6)
    assert main([*args[:-1], "--every", "8"]) == 0  # reports on the way, and each seat's end; the learning is the same
    lines = capsys.readouterr().out.splitlines()
    assert [" ".join(line.split(":")[0].split()) for line in lines[:-1]] == [
        f"{seat}, iteration {done}" for seat in ("opening", "answering") for done in (8, 16, 20)]
    assert [line.split(":")[1].split()[0] for line in lines[2:-1:3]] == [f"{v:+.4f}" for v in expected]
    assert f"opening {expected[0]:+.4f}, answering {expected[1]:+.4f}" in lines[-1]
    refusals = [
        (["--float32"], "--float32 goes with --restricted --compiled"),
        (["--threads", "2"], "--threads goes with --restricted --compiled"),
        (["--compiled", "--checkpoint", str(tmp_path / "state.npz")], "not --restricted"),
        (["--digits", "3"], "holds no table for 2 players, classic 3×2 with the rebid right"),
    ]
    for extra, message in refusals:
        assert main([*args, *extra]) == 2
        assert message in capsys.readouterr().err
    assert main([*args[:-3], "--table", str(tmp_path / "missing.py")]) == 2
    assert "No such file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "unmeasured"),
    [
        ([], [5]),  # --every 0: the end reported, nothing measured (in 5×5 the tree is too big to walk)
        (["--full", "--memory", "2"], [5]),  # the history solver too (in 3×3 a measurement takes about a minute)
        (["--players", "3"], []),
    ],
)
def test_liars_exploit_solve_reports_every_n_iterations_and_at_the_end(
    extra: list[str], unmeasured: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import main

    args = ["exploit", "--solve", "--digits", "2", "--serial-length", "1", *extra, "--iterations", "5"]

    def reports() -> list[tuple[int, bool]]:
        lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  iteration")]
        return [(int(line.split(":")[0].split()[1]), "best response" in line or "exploitability" in line)
                for line in lines]

    assert main([*args, "--every", "2"]) == 0
    assert reports() == [(2, True), (4, True), (5, True)]
    assert main([*args, "--every", "0"]) == 0
    assert reports() == [(i, False) for i in unmeasured]


def test_an_exploiter_remembering_the_tables_digits_is_a_lower_bound_that_finds_more() -> None:
    """Remembering also the digits the table's seat has named: a real strategy (never above the exact best response),
    on a larger graph, finding more than the exploiter remembering the same bids without them."""
    pytest.importorskip("numba")
    from core.serial.solve.tree import table_exploitability

    fmt = Format(make_rules("classic", rebid=True, digits=3, serial_length=2))
    solver = Solver(fmt, memory=0)
    solver.iterate(60)
    table = solver.table()
    exact = table_exploitability(fmt, table)
    plain = restricted_best_response(fmt, table, 0, 60, compiled=True)
    digits = restricted_best_response(fmt, table, 0, 60, compiled=True, table_digits=True)
    assert digits.table_digits and not plain.table_digits
    assert all(d <= e + 1e-9 for d, e in zip(digits.seat_values, exact, strict=True))
    assert digits.value > plain.value + 0.005, (digits.value, plain.value, exact)
    with pytest.raises(ValueError, match="compiled passes"):
        restricted_best_response(fmt, table, 0, 5, table_digits=True)
