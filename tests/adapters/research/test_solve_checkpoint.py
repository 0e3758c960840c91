"""``liars exploit --solve --players 3 --checkpoint/--resume``: a solve saved and continued is one run straight."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from adapters.research.files import load_solver_state
from bot.cli import main
from core.serial.players.solved import SolvedTable
from core.serial.rules import Rules, make_rules
from core.serial.solve.format import Format
from core.serial.solve.tree import table_exploitability
from tests.core.serial.solve.test_cfr_multi import within_a_thousandth

# the numba kernels compile once per process: these files share one xdist worker (``--dist loadgroup``)
pytestmark = pytest.mark.xdist_group("numba")

SOLVE = ("exploit", "--solve", "--players", "3", "--digits", "2", "--serial-length", "1")


def test_a_solve_continued_from_its_checkpoint_ends_where_the_straight_run_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    straight, halfway, resumed = (str(tmp_path / f"{name}.npz") for name in ("straight", "halfway", "resumed"))
    assert main([*SOLVE, "--iterations", "6", "--every", "0", "--checkpoint", straight]) == 0
    assert main([*SOLVE, "--iterations", "4", "--every", "2", "--checkpoint", halfway]) == 0
    assert "saved the state after 2 iterations" in capsys.readouterr().out
    assert main([*SOLVE, "--iterations", "2", "--every", "0", "--resume", halfway, "--checkpoint", resumed]) == 0
    assert "resumed from" in capsys.readouterr().out
    shape, regret, total, done = load_solver_state(resumed)
    want_shape, want_regret, want_total, want_done = load_solver_state(straight)
    assert (shape, done) == (want_shape, want_done) == ({"players": 3, "digits": 2, "serial_length": 1, "rebid": 1,
                                                         "memory": 1}, 6)
    assert np.array_equal(regret, want_regret) and np.array_equal(total, want_total)
    assert total.any()


def test_a_checkpoint_of_another_solve_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "memory1.npz")
    assert main([*SOLVE, "--iterations", "1", "--every", "0", "--checkpoint", path]) == 0
    assert main([*SOLVE, "--memory", "2", "--iterations", "1", "--every", "0", "--resume", path]) != 0
    assert "holds a solve of" in capsys.readouterr().err


def test_a_solve_resumed_on_two_threads_ends_where_the_one_thread_run_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    numba = pytest.importorskip("numba")
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread: numba has no second to run on")
    straight, halfway, resumed = (str(tmp_path / f"{name}.npz") for name in ("straight", "halfway", "resumed"))
    assert main([*SOLVE, "--iterations", "4", "--every", "0", "--checkpoint", straight]) == 0
    assert main([*SOLVE, "--iterations", "2", "--every", "0", "--checkpoint", halfway]) == 0
    capsys.readouterr()
    assert main([*SOLVE, "--iterations", "2", "--every", "0", "--resume", halfway, "--checkpoint", resumed,
                 "--threads", "2"]) == 0
    assert "passes on 2 threads" in capsys.readouterr().out
    _, regret, total, done = load_solver_state(resumed)
    _, want_regret, want_total, want_done = load_solver_state(straight)
    assert done == want_done == 4
    assert np.array_equal(regret, want_regret) and np.array_equal(total, want_total)
    assert main([*SOLVE, "--iterations", "1", "--threads", "0"]) != 0
    assert "--threads 0: threads must be at least 1, not 0" in capsys.readouterr().err


def test_a_solve_with_the_opening_writes_its_table_and_keeps_its_checkpoints_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module, opening, plain = str(tmp_path / "tables.py"), str(tmp_path / "opening.npz"), str(tmp_path / "plain.npz")
    args = (*SOLVE, "--memory", "2", "--iterations", "3", "--every", "0")
    assert main([*args, "--opening", "--checkpoint", opening, "--write", module]) == 0
    assert "remembering 2 bids, the opening one of them" in capsys.readouterr().out
    assert load_solver_state(opening)[0]["opening"] == 1
    assert "('3 2 1 1 2 1'," in Path(module).read_text()  # the data module's header: memory 2, with the opening
    # the two solves have graphs of the same size: only what the checkpoint says tells them apart
    assert main([*args, "--checkpoint", plain]) == 0
    assert "opening" not in load_solver_state(plain)[0]
    capsys.readouterr()
    assert main([*args, "--resume", opening]) != 0
    assert main([*args, "--opening", "--resume", plain]) != 0
    assert capsys.readouterr().err.count("holds a solve of") == 2
    assert main([*args, "--opening", "--resume", opening]) == 0
    # --opening belongs to a 3-player solve that remembers at least one bid
    assert main([*SOLVE, "--memory", "0", "--opening", "--iterations", "1"]) != 0
    assert "--opening takes --memory 1 or more" in capsys.readouterr().err
    assert main(["exploit", "--solve", "--opening", "--digits", "2", "--serial-length", "1"]) != 0
    assert "--opening goes with --solve --players 3 or more" in capsys.readouterr().err


HEADS_UP = ("exploit", "--solve", "--digits", "2", "--serial-length", "2")


def want_rules(rebid: tuple[str, ...]) -> Rules:
    return make_rules("classic", digits=2, serial_length=2, rebid=not rebid)


@pytest.mark.parametrize("rebid", [(), ("--no-rebid",)])
def test_a_heads_up_solve_on_the_compiled_passes_writes_the_table_the_heads_up_solver_writes(
    rebid: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain, compiled, resumed = (str(tmp_path / f"{name}.py") for name in ("plain", "compiled", "resumed"))
    halfway = str(tmp_path / "halfway.npz")
    args = (*HEADS_UP, *rebid, "--iterations", "30")
    assert main([*args, "--every", "0", "--write", plain]) == 0
    assert main([*args, "--every", "30", "--compiled", "--write", compiled]) == 0
    compiled_out = capsys.readouterr().out
    (line,) = [line for line in compiled_out.splitlines() if "exploitability" in line]  # measured at the end
    want, written = (SolvedTable.decode(ast.literal_eval(Path(path).read_text().split("= ", 1)[1])[0])
                     for path in (plain, compiled))
    exact = sum(table_exploitability(Format(want_rules(rebid)), written, fast=False)) / 2  # the plain walk
    assert float(line.split("exploitability ")[1].split()[0]) == pytest.approx(exact, abs=1e-4) and exact > 0
    assert "compiled passes on 1 thread" in compiled_out
    # stopped at 20 and continued for 10 more from its checkpoint: the same table, to the byte
    assert main([*HEADS_UP, *rebid, "--compiled", "--iterations", "20", "--every", "0", "--checkpoint", halfway]) == 0
    assert main([*HEADS_UP, *rebid, "--compiled", "--iterations", "10", "--every", "0", "--resume", halfway,
                 "--write", resumed]) == 0
    assert "resumed from" in capsys.readouterr().out
    assert Path(resumed).read_text() == Path(compiled).read_text()
    # the written tables: the heads-up solver's, state for state, within a thousandth (ties in the rounding)
    assert within_a_thousandth(written, want) and len(want.entries) > 50


def test_compiled_is_refused_where_it_does_not_apply(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for extra in (("--players", "3"), ("--full",)):
        assert main([*HEADS_UP, "--compiled", "--iterations", "1", *extra]) != 0
    assert main(["exploit", "--compiled", "--digits", "2", "--serial-length", "2"]) != 0
    assert capsys.readouterr().err.count("--compiled goes with --solve for 2 players") == 3
    # a 3-player checkpoint is not a heads-up one
    path = str(tmp_path / "three.npz")
    assert main([*SOLVE, "--iterations", "1", "--every", "0", "--checkpoint", path]) == 0
    assert main([*HEADS_UP, "--compiled", "--memory", "1", "--iterations", "1", "--resume", path]) != 0
    assert "holds a solve of" in capsys.readouterr().err
    # the heads-up solver has no checkpoints or threads: said, not ignored
    for extra in (("--checkpoint", path), ("--resume", path), ("--threads", "2")):
        assert main([*HEADS_UP, "--iterations", "1", *extra]) != 0
    assert capsys.readouterr().err.count("go with the compiled solves") == 3


def test_a_solve_with_named_digits_measures_heads_up_and_writes_at_three_players(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from core.serial.solve.cfr_multi import MultiFormat, MultiSolver
    from core.serial.solve.tree import multi_table_exploitability

    # heads up: the figure printed (the compiled walk) is the plain walk's on the same solve's table
    assert main([*HEADS_UP, "--compiled", "--named", "0,1", "--iterations", "20", "--every", "20"]) == 0
    out = capsys.readouterr().out
    assert "the digits named by seats 0, 1" in out
    (line,) = [line for line in out.splitlines() if "exploitability" in line]
    rules = want_rules(())
    solver = MultiSolver(MultiFormat(rules, 2), memory=1, named=3)
    solver.iterate(20)
    exact = sum(multi_table_exploitability(Format(rules), solver.table(floor=0.001), fast=False)) / 2
    assert float(line.split("exploitability ")[1].split()[0]) == pytest.approx(exact, abs=1e-4) and exact > 0
    # at 3 players: the table written says so, and the checkpoint keeps the solve apart from the plain one
    module, named = str(tmp_path / "tables.py"), str(tmp_path / "named.npz")
    args = (*SOLVE, "--memory", "1", "--iterations", "2", "--every", "0")
    assert main([*args, "--named", "0", "--checkpoint", named, "--write", module]) == 0
    assert "remembering 1 bid, the digits named by seat 0" in capsys.readouterr().out
    assert load_solver_state(named)[0]["named"] == 1
    assert "('3 2 1 1 1 named=1'," in Path(module).read_text()
    assert main([*args, "--resume", named]) != 0
    assert "holds a solve of" in capsys.readouterr().err
    # refused: seats not at the table, not seats, without a solve, a heads-up table written
    for extra in (("--named", "3"), ("--named", "0,x"), ("--named", "-1")):
        assert main([*args, *extra]) != 0
    assert capsys.readouterr().err.count("--named takes seats 0 to 2, comma-separated") == 3
    assert main(["exploit", "--digits", "2", "--serial-length", "2", "--named", "0"]) != 0
    assert main([*HEADS_UP, "--named", "0", "--iterations", "1"]) != 0
    assert capsys.readouterr().err.count("--named goes with --solve --players 3 or more, or --solve --compiled") == 2
    assert main([*HEADS_UP, "--compiled", "--named", "0", "--iterations", "1", "--write", module]) != 0
    assert "measured, not written" in capsys.readouterr().err


def test_a_solve_with_the_uniform_average_keeps_its_checkpoints_apart_and_goes_with_the_compiled_solves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    uniform, linear = str(tmp_path / "uniform.npz"), str(tmp_path / "linear.npz")
    args = (*SOLVE, "--iterations", "3", "--every", "0")
    assert main([*args, "--average", "uniform", "--checkpoint", uniform]) == 0
    assert "every iterate weighs alike in the average" in capsys.readouterr().out
    assert main([*args, "--checkpoint", linear]) == 0
    shape_u, regret_u, total_u, _ = load_solver_state(uniform)
    shape_l, regret_l, total_l, _ = load_solver_state(linear)
    assert shape_u == {**shape_l, "uniform": 1} and "uniform" not in shape_l
    assert np.array_equal(regret_u, regret_l) and not np.array_equal(total_u, total_l)
    capsys.readouterr()
    assert main([*args, "--resume", uniform]) != 0
    assert main([*args, "--average", "uniform", "--resume", linear]) != 0
    assert capsys.readouterr().err.count("holds a solve of") == 2
    assert main([*args, "--average", "uniform", "--resume", uniform]) == 0
    # the heads-up solver without --compiled keeps CFR+'s average: the option is refused there, not ignored
    assert main(["exploit", "--solve", "--average", "uniform", "--digits", "2", "--serial-length", "1"]) != 0
    assert "--average goes with --solve --compiled at 2 players" in capsys.readouterr().err
    assert main(["exploit", "--average", "uniform", "--digits", "2", "--serial-length", "1"]) != 0
    assert "--average goes with" in capsys.readouterr().err
