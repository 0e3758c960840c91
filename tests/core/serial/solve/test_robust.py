"""A heads-up table solved against an exploiter remembering more (:mod:`core.serial.solve.robust`)."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from core.serial import make_rules
from core.serial.rules import Rules
from core.serial.solve import Format
from core.serial.solve.cfr_multi import MultiFormat, MultiSolver, heads_up_table
from core.serial.solve.robust import RobustSolver, robust_table
from core.serial.solve.tree import table_exploitability

# the numba kernels compile once per process: these files share one xdist worker (``--dist loadgroup``)
pytestmark = pytest.mark.xdist_group("numba")

pytest.importorskip("numba")  # the robust solve runs on the compiled passes


def rules_of(digits: int, length: int) -> Rules:
    return make_rules("classic", rebid=True, digits=digits, serial_length=length)


@pytest.mark.parametrize("seat", [0, 1])
def test_against_its_own_memory_the_solve_is_self_play(seat: int) -> None:
    """Every group a single node: the tied regrets and averages are the self-play solve's, to rounding."""
    rules = rules_of(3, 2)
    robust = RobustSolver(rules, 1, 1, seat)
    plain = MultiSolver(MultiFormat(rules, 2), 1)
    robust.iterate(25)
    plain.iterate(25)
    mine = [probs for node, probs in zip(plain.nodes, plain.average(), strict=True) if node.actor == seat]
    assert [key for key, _ in robust.keys] == [node.key for node in plain.nodes if node.actor == seat]
    theirs = robust.average()
    assert len(theirs) == len(mine) > 100
    for a, b in zip(theirs, mine, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-9)
    np.testing.assert_allclose(robust.solver.regret, plain.regret, atol=1e-9)


def test_the_table_forgets_what_its_memory_forgets() -> None:
    rules = rules_of(3, 2)
    robust = RobustSolver(rules, 0, 2, 0)
    self_play = heads_up_table(MultiSolver(MultiFormat(rules, 2), 0))
    opener_keys = {key for key in self_play.entries if key[0]}
    assert set(robust.entries()) == opener_keys  # the states of a table remembering no bid, as opener
    assert len(robust.solver.nodes) > 10 * len(opener_keys)  # the exploiter's graph is far larger


def test_a_groups_regret_is_its_members_instantaneous_regrets_summed() -> None:
    """One iteration of the table's seat redone by the numpy reference pass on the same graph, the groups found
    from the nodes' keys here: its held regrets plus the members' unclipped instantaneous regrets, clipped at 0."""
    from core.serial.players.solved import truncate_memory

    rules = rules_of(3, 2)
    robust = RobustSolver(rules, 0, 1, 0)  # the table opens: its seat is updated first in an iteration
    robust.iterate(5)
    ref = MultiSolver(MultiFormat(rules, 2), 1, compiled=False)
    ref.regret[...] = robust.solver.regret
    sigma = ref.current()
    nbids = len(ref.fmt.bids)

    def group(key: tuple[int, ...]) -> tuple[int, ...]:
        return (*key[:5], truncate_memory(key[5], 0, nbids))

    held: dict[tuple[int, ...], np.ndarray] = {}
    for node in ref.nodes:
        if node.actor == 0:
            held[group(node.key)] = node.regret.copy()
            node.regret[...] = 0.0
    ref._pass(0, sigma, t=1, floor=-np.inf)
    summed: dict[tuple[int, ...], np.ndarray] = {}
    for node in ref.nodes:
        if node.actor == 0:
            summed[group(node.key)] = summed.get(group(node.key), 0.0) + node.regret
    assert len(summed) < sum(node.actor == 0 for node in ref.nodes)  # groups of several nodes
    robust.iterate(1)
    for node in robust.solver.nodes:
        if node.actor == 0:
            want = np.maximum(held[group(node.key)] + summed[group(node.key)], 0.0)
            np.testing.assert_allclose(node.regret, want, atol=1e-12)
    assert (robust.solver.regret > 0).any()


@pytest.mark.parametrize(("memory", "against"), [(0, 1), (0, 2), (1, 2)])
def test_a_table_solved_against_more_memory_gives_up_less_to_the_exact_best_response(memory: int,
                                                                                    against: int) -> None:
    """3×2, 60 iterations, the uniform average: the exact best response (which remembers everything) takes less
    from the table that learned against a longer memory than from the same abstraction solved in self-play."""
    rules = rules_of(3, 2)
    fmt = Format(rules)
    first = RobustSolver(rules, memory, against, 0, uniform=True)
    second = RobustSolver(rules, memory, against, 1, uniform=True, values=first.values)
    plain = MultiSolver(MultiFormat(rules, 2), memory, uniform=True)
    for solver in (first, second, plain):
        solver.iterate(60)
    robust = sum(table_exploitability(fmt, robust_table((first, second)))) / 2
    self_play = sum(table_exploitability(fmt, heads_up_table(plain))) / 2
    assert robust < self_play - 0.015, (robust, self_play)


def test_robust_solves_refuse_what_they_cannot_do() -> None:
    rules = rules_of(2, 2)
    with pytest.raises(ValueError, match="at least the table's 1 bids"):
        RobustSolver(rules, 1, 0, 0)
    with pytest.raises(ValueError, match="seat 0 or 1"):
        RobustSolver(rules, 0, 1, 2)
    a, b = RobustSolver(rules, 0, 1, 0), RobustSolver(rules, 0, 1, 0)
    with pytest.raises(ValueError, match="seat 0 and in seat 1"):
        robust_table((a, b))
    with pytest.raises(ValueError, match="same graph and type"):  # a buffer of another graph would be overrun
        RobustSolver(rules, 0, 2, 1, values=a.values)


def test_liars_exploit_solves_against_an_exploiter_checkpoints_and_writes(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from adapters.research.files import read_packed_module
    from bot.cli import main

    fmt_args = ["--digits", "3", "--serial-length", "2", "--memory", "0", "--against", "1", "--average", "uniform"]
    base = ["exploit", "--solve", "--compiled", *fmt_args]
    straight, resumed = str(tmp_path / "straight.py"), str(tmp_path / "resumed.py")
    state = str(tmp_path / "state.npz")
    assert main([*base, "--iterations", "20", "--every", "10", "--write", straight, "--pack"]) == 0
    out = capsys.readouterr().out
    assert "a table remembering 0 bids" in out and "against an exploiter remembering 1" in out
    assert out.count("exploitability") == 2
    assert main([*base, "--iterations", "10", "--every", "0", "--checkpoint", state]) == 0
    assert main([*base, "--iterations", "10", "--every", "0", "--resume", state, "--write", resumed, "--pack"]) == 0
    assert "resumed from" in capsys.readouterr().out
    (one,), (two,) = read_packed_module(straight), read_packed_module(resumed)
    assert one.memory == 0 and dict(one.entries) == dict(two.entries)  # resumed is straight, state for state
    rules = rules_of(3, 2)
    first = RobustSolver(rules, 0, 1, 0, uniform=True)
    second = RobustSolver(rules, 0, 1, 1, uniform=True)
    first.iterate(20)
    second.iterate(20)
    assert dict(one.entries) == dict(robust_table((first, second)).entries)
    assert main(["exploit", "--restricted", "--digits", "3", "--serial-length", "2", "--iterations", "20",
                 "--table", straight, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["memory"] == 1
    refusals = [
        (["exploit", "--solve", *fmt_args[:-2]], "--against goes with --solve --compiled at 2 players"),
        ([*base[:-2], "--against", "0"], "--against is more bids than the table's --memory 0"),
        ([*base, "--named", "0"], "--against goes with --solve --compiled at 2 players (no --full or --named)"),
        ([*base, "--resume", straight], "straight.py"),
    ]
    plain_state = str(tmp_path / "plain.npz")
    assert main(["exploit", "--solve", "--compiled", "--digits", "3", "--serial-length", "2", "--memory", "0",
                 "--iterations", "2", "--every", "0", "--checkpoint", plain_state]) == 0
    refusals.append(([*base, "--resume", plain_state], "holds a solve of"))
    plain = ["exploit", "--solve", "--compiled", "--digits", "3", "--serial-length", "2", "--memory", "0",
             "--iterations", "2", "--every", "0"]
    refusals.append(([*plain, "--resume", state], "holds a solve of"))  # the robust state, to a plain solve
    refusals.append(([*plain, "--resume", straight], "is not a state saved by --checkpoint"))
    capsys.readouterr()
    for args, message in refusals:
        assert main(args) == 2, args
        assert message in capsys.readouterr().err


def test_a_seat_solved_alone_is_that_seat_of_the_joint_solve_beside_the_others_states(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--only-seat S``: seat S's solve alone (half the time and memory of the joint one) gives its states as the
    joint solve does, the other seat's states taken from ``--table FILE``; an exploiter in the other seat meets
    only the new states, so ``--restricted --seats`` of that seat measures them alone, as in the joint table."""
    import math

    from adapters.research.files import read_packed_module
    from bot.cli import main
    from core.serial.solve.restricted import restricted_best_response
    from core.serial.solve.robust import robust_seat_table

    rules = rules_of(3, 2)
    fmt_args = ["--digits", "3", "--serial-length", "2", "--memory", "1"]
    other = str(tmp_path / "self_play.py")  # the other seat's states: a table solved in self-play
    assert main(["exploit", "--solve", "--compiled", *fmt_args, "--iterations", "7", "--every", "0", "--write", other,
                 "--pack"]) == 0
    (self_play,) = read_packed_module(other)
    joint = (RobustSolver(rules, 1, 2, 0, uniform=True), RobustSolver(rules, 1, 2, 1, uniform=True))
    for solver in joint:
        solver.iterate(12)
    both = robust_table(joint)
    for seat in (0, 1):
        alone = RobustSolver(rules, 1, 2, seat, uniform=True)
        alone.iterate(12)
        table = robust_seat_table(alone, self_play)
        opener = seat == 0
        assert {k: v for k, v in table.entries.items() if k[0] == opener} == \
            {k: v for k, v in both.entries.items() if k[0] == opener}
        assert {k: v for k, v in table.entries.items() if k[0] != opener} == \
            {k: v for k, v in self_play.entries.items() if k[0] != opener}
        written = str(tmp_path / f"seat{seat}.py")
        assert main(["exploit", "--solve", "--compiled", *fmt_args, "--against", "2", "--average", "uniform",
                     "--only-seat", str(seat), "--table", other, "--iterations", "12", "--every", "0",
                     "--write", written, "--pack"]) == 0
        assert "states from" in capsys.readouterr().out
        (read,) = read_packed_module(written)
        assert dict(read.entries) == dict(table.entries)
        fmt = Format(rules)
        exploiter = 1 - seat  # the exploiter that meets the new states
        part = restricted_best_response(fmt, table, 2, 4, seats=(exploiter,))  # (4 iterations: the same as any)
        whole = restricted_best_response(fmt, both, 2, 4)
        assert part.seats == (exploiter,) and math.isnan(part.seat_values[seat])
        assert part.value == part.seat_values[exploiter] == pytest.approx(whole.seat_values[exploiter], abs=1e-12)
        assert main(["exploit", "--restricted", "--digits", "3", "--serial-length", "2", "--memory", "2",
                     "--iterations", "4", "--seats", str(exploiter), "--table", written, "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["seat_values"][seat] is None and data["restricted"] == pytest.approx(part.value, abs=1e-12)
        assert data["seats"] == [exploiter]
    assert main(["exploit", "--restricted", "--digits", "3", "--serial-length", "2", "--iterations", "4",
                 "--seats", "1", "--table", other]) == 0
    assert "units/round in the seat measured (opening not measured, answering +" in capsys.readouterr().out
    refusals = [
        ([*fmt_args, "--only-seat", "0", "--table", other], "--only-seat goes with --solve --against"),
        ([*fmt_args, "--against", "2", "--only-seat", "1"], "--only-seat takes the other seat's states from --table"),
        (["--digits", "3", "--serial-length", "2", "--memory", "0", "--against", "2", "--only-seat", "1", "--table",
          other], "remembers 1 bids, not --memory 0"),
    ]
    for args, message in refusals:
        assert main(["exploit", "--solve", "--compiled", "--iterations", "2", "--every", "0", *args]) == 2, args
        assert message in capsys.readouterr().err
    with pytest.raises(ValueError, match="seat 0"):
        restricted_best_response(Format(rules), self_play, 2, 2, seats=(2,))
    assert main(["exploit", "--restricted", "--digits", "3", "--serial-length", "2", "--iterations", "2",
                 "--seats", "2", "--table", other]) == 2
    assert "--seats are 0 to 1" in capsys.readouterr().err
