"""``liars exploit --solve --players 3 --checkpoint/--resume``: a solve saved and continued is one run straight."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from adapters.research.files import load_solver_state
from bot.cli import main

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
