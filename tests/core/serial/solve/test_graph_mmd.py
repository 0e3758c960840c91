"""Tabular MMD on the history graph: with a memory as long as any history it is the whole tree's steps."""

from __future__ import annotations

import numpy as np
import pytest

from core.serial.rules import make_rules
from core.serial.solve import Format
from core.serial.solve.graph_mmd import GraphMMD
from core.serial.solve.neural import TrainConfig, Tree, tabular_mmd


def _curve(mmd: GraphMMD, steps: int, every: int) -> list[tuple[int, float]]:
    out = [(0, mmd.exploitability())]
    for _ in range(steps):
        mmd.update()
        if mmd.step % every == 0:
            out.append((mmd.step, mmd.exploitability()))
    return out


@pytest.mark.parametrize(("tau", "magnet_every"), [(0.0, 5), (0.05, 0)], ids=["reset", "moving"])
def test_on_the_whole_tree_the_graph_s_steps_are_the_tree_s(tau: float, magnet_every: int) -> None:
    fmt = Format(make_rules("classic", digits=2, serial_length=1, rebid=True))
    config = TrainConfig(steps=12, every=4, eta=1.0, magnet_tau=tau, magnet_every=magnet_every)
    tree = tabular_mmd(Tree.build(fmt), config)
    graph = _curve(GraphMMD(fmt, 20, eta=1.0, tau=tau, magnet_every=magnet_every, compiled=False), 12, 4)
    assert [s for s, _ in graph] == [s for s, _ in tree]
    assert np.allclose([v for _, v in graph], [v for _, v in tree], atol=1e-9, rtol=0)
    assert tree[0][1] > 0.2 and tree[-1][1] < 0.5 * tree[0][1]  # (it learns: the comparison is not of two idle runs)


def test_a_merged_graph_learns_and_numba_computes_what_python_does() -> None:
    small = Format(make_rules("classic", digits=2, serial_length=1, rebid=True))
    plain = GraphMMD(small, 1, eta=1.0, tau=0.05, magnet_every=0, compiled=False)
    assert len(plain.graph.keys) < len(GraphMMD(small, 20, compiled=False).graph.keys)  # histories merged
    before = plain.exploitability()
    for _ in range(20):
        plain.update()
    assert plain.exploitability() < 0.5 * before
    slow, fast = GraphMMD(small, 2, compiled=False), GraphMMD(small, 2)  # (numba, when installed, compiles)
    for _ in range(3):
        slow.update()
        fast.update()
    assert np.allclose(slow.logp, fast.logp, atol=1e-12) and not np.allclose(slow.logp, slow.magnet)
    with pytest.raises(ValueError):
        GraphMMD(small, 2, tau=2.0)


def test_the_average_weighs_each_step_s_policy_by_its_own_reach_from_the_step_named() -> None:
    fmt = Format(make_rules("classic", digits=2, serial_length=1, rebid=True))
    mmd = GraphMMD(fmt, 20, eta=1.0, tau=0.05, magnet_every=0, compiled=False, average_from=3, average_power=1.0)
    with pytest.raises(ValueError):
        GraphMMD(fmt, 20, compiled=False).average()  # keeps none
    seen = []
    for _ in range(5):
        target = mmd.target()  # the reaches under the policy it replaces
        seen.append((mmd.step, mmd.reach.copy(), np.exp(mmd.logp)))
        mmd.moved(target)
    g = mmd.graph
    node = np.repeat(np.arange(len(g.keys)), np.diff(g.first))
    own = [(step - 2, reach[node, g.actor[node], :] * pi) for step, reach, pi in seen if step >= 3]
    assert [w for w, _ in own] == [1, 2]  # steps 3 and 4, weighed 1 and 2; steps 0–2 not at all
    expected = sum(w * x for w, x in own)
    assert mmd.total is not None and np.allclose(mmd.total, expected, atol=1e-15)
    average = mmd.average()
    per_node = np.add.reduceat(average, g.first[:-1], axis=0)
    assert np.allclose(per_node, 1.0)
    # at every edge and hand a mix of the two policies averaged
    last, before = seen[-1][2], seen[-2][2]
    assert np.all(average >= np.minimum(last, before) - 1e-12) and np.all(average <= np.maximum(last, before) + 1e-12)
    assert mmd.exploitability(average=True) < 0.5 * GraphMMD(fmt, 20, compiled=False).exploitability()
