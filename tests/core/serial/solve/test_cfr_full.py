"""The perfect-recall CFR+ solver (core.serial.solve.cfr_full), its tables, and the shipped 3×3 table."""

from __future__ import annotations

import random

import pytest

from core.serial import Round, make_rules, seat_view
from core.serial.players import get_strategy, solved_strategies
from core.serial.players.base import policy_of
from core.serial.players.solved_history import HistoryTable, SolvedHistory
from core.serial.serials import deal_serial
from core.serial.solve import Format, exploitability
from core.serial.solve.cfr_full import FullSolver
from core.serial.solve.history_table import table_exploitability, table_from

# the numba kernels compile once per process: these files share one xdist worker (``--dist loadgroup``)
pytestmark = pytest.mark.xdist_group("numba")

SEATS = ("p1", "p2")


@pytest.mark.parametrize(("digits", "length"), [(2, 1), (2, 2)])
def test_full_solver_exploitability_decreases(digits: int, length: int) -> None:
    fmt = Format(make_rules("classic", rebid=True, digits=digits, serial_length=length))
    solver = FullSolver(fmt, memory=3, compiled=False)
    figures = []
    for target in (2, 10, 40):
        solver.iterate(target - solver.iterations)
        figures.append(solver.exploitability())
    assert figures[0] > figures[1] > figures[2] >= 0.0
    assert figures[2] < 0.05


def test_the_history_table_walk_equals_the_engine_driven_best_response() -> None:
    # Two independent searches: the engine's rounds with the table read through real views
    # (history_key_of), and the integer walk over the solver's graph with the table turned back into a policy.
    fmt = Format(make_rules("classic", rebid=True, digits=2, serial_length=2))
    solver = FullSolver(fmt, memory=2, compiled=False)
    solver.iterate(6)
    table = table_from(fmt, solver.graph, solver.average(), memory=2)
    assert HistoryTable.decode(table.encode()) == table
    walked = table_exploitability(fmt, table, compiled=False)
    engine = exploitability(fmt, SolvedHistory(table), top=0).seat_values
    assert walked == pytest.approx(engine, abs=1e-9)
    assert abs(engine[0]) > 1e-3


def test_the_shipped_3x3_table_loads_and_hard_plays_it_legally() -> None:
    rules = make_rules("classic", rebid=True, digits=3, serial_length=3)
    history = [s for s in solved_strategies() if isinstance(s, SolvedHistory)]
    assert [s.history_table.fits(rules, 2) for s in history] == [True]
    rng = random.Random(5)
    for name in ("hard", "solver"):
        strategy = get_strategy(name)
        from_table = 0
        for _ in range(40):
            r = Round(rules, SEATS, {p: deal_serial(rng, 3, 3) for p in SEATS}, SEATS[0])
            while not r.is_over:
                player = r.to_act
                assert player is not None
                view = seat_view(r, player)
                legal = r.legal_actions()
                if player == "p1":
                    action = strategy.decide(view, rng)
                    if history[0].fits(view):
                        from_table += 1
                        mix = policy_of(strategy, view)
                        assert abs(sum(p for _, p in mix) - 1.0) < 1e-9
                        assert {a for a, _ in mix} <= set(legal)
                else:
                    action = rng.choice(legal)
                assert action in legal
                r.apply(action)
        assert from_table >= 40  # at least every opening comes from the table
