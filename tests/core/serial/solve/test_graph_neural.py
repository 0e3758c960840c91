"""The network on the history graph: what it reads of a node, its gradient, and that it learns by the MMD steps."""

from __future__ import annotations

import numpy as np
import pytest

from core.serial.rules import make_rules
from core.serial.solve import Format
from core.serial.solve.graph_neural import GraphConfig, GraphLearner, _scatter, node_tokens


def _decode(token: int, nbids: int, memory: int) -> tuple[int, int, int, int] | None:
    """(place, bid, mine, rebid) of a remembered bid's token; None for an empty place."""
    if token == memory * 4 * nbids:
        return None
    place, rest = divmod(token, 4 * nbids)
    bid, rest = divmod(rest, 4)
    return place, bid, rest // 2, rest % 2


def test_each_remembered_bid_says_whether_the_seat_to_act_made_it() -> None:
    fmt = Format(make_rules("classic", digits=2, serial_length=2, rebid=True))
    learner = GraphLearner(fmt, GraphConfig(memory=3, hidden=4, fit_steps=0, compiled=False))
    index = {key: i for i, key in enumerate(learner.graph.keys)}
    tokens, phase = node_tokens(learner.graph, len(fmt.bids), 3)

    def read(key: tuple[int, int, tuple[int, ...]]) -> list[tuple[int, int, int, int] | None]:
        return [_decode(int(t), len(fmt.bids), 3) for t in tokens[index[key]]]

    # seat 0 opened bid 1, seat 1 raised to bid 3: seat 0 to answer (the last bid is the other's, the first its own)
    assert read((0, 0, (2, 6))) == [(0, 3, 0, 0), (1, 1, 1, 0), None]
    # seat 1 opened bid 1, seat 0 was challenged and rebid bid 3: seat 1 to answer; both bids were seat 0's
    assert read((1, 0, (2, 7))) == [(0, 3, 0, 1), (1, 1, 0, 0), None]
    # deciding on a rebid of one's own bid: the last bid is the actor's
    assert read((0, 1, (4,))) == [(0, 2, 1, 0), None, None]
    assert phase[index[(0, 1, (4,))]] == 1 and phase[index[(1, 0, (0, 2, 4))]] == 2  # a full window: 2 + bidding
    assert np.array_equal(phase, [key[1] + 2 * (len(key[2]) >= 3) for key in learner.graph.keys])


def test_scatter_sums_rows_as_add_at_does() -> None:
    rng = np.random.default_rng(3)
    index, values = rng.integers(0, 7, 500), rng.normal(size=(500, 5))
    expected = np.zeros((9, 5))
    np.add.at(expected, index, values)
    assert np.allclose(_scatter(9, index, values), expected, atol=1e-12)


def test_the_fit_s_gradient_is_the_weighed_log_likelihood_s() -> None:
    """The hand-written backward pass against finite differences of Σ target · log π over a fixed batch."""
    fmt = Format(make_rules("classic", digits=2, serial_length=2, rebid=True))
    learner = GraphLearner(fmt, GraphConfig(memory=3, hidden=6, fit_steps=0, seed=4, compiled=False))
    g, rng = learner.graph, np.random.default_rng(5)
    nodes = rng.integers(0, len(g.keys), 40)
    size = np.diff(g.first)[nodes]
    starts = np.concatenate(([0], np.cumsum(size)[:-1]))
    edges = np.repeat(g.first[nodes] - starts, size) + np.arange(size.sum())
    hands = np.repeat(rng.integers(0, fmt.size, 40), size)
    target = rng.random(len(edges))

    def loglik() -> float:
        z, _ = learner.scores(nodes, size, edges, hands)
        top = np.repeat(np.maximum.reduceat(z, starts), size)
        logp = z - top - np.repeat(np.log(np.add.reduceat(np.exp(z - top), starts)), size)
        return float((target * logp).sum())

    z, hidden = learner.scores(nodes, size, edges, hands)
    e = np.exp(z - np.repeat(np.maximum.reduceat(z, starts), size))
    pi = e / np.repeat(np.add.reduceat(e, starts), size)
    totals = np.repeat(np.add.reduceat(target, starts), size)
    grads = learner._backward(nodes, starts, edges, hands, hidden, target - totals * pi)
    for name, param in learner.params.items():
        flat = param.reshape(-1)
        for j in rng.choice(flat.size, min(6, flat.size), replace=False):
            if name == "tok" and j // param.shape[1] == param.shape[0] - 1:
                continue  # (the empty place's row stays 0)
            keep = flat[j]
            flat[j] = keep + 1e-6
            up = loglik()
            flat[j] = keep - 1e-6
            down = loglik()
            flat[j] = keep
            assert grads[name].reshape(-1)[j] == pytest.approx((up - down) / 2e-6, abs=1e-6, rel=1e-4), name


def test_the_network_follows_the_mmd_steps_and_learns() -> None:
    fmt = Format(make_rules("classic", digits=2, serial_length=1, rebid=True))
    learner = GraphLearner(fmt, GraphConfig(memory=4, hidden=16, fit_steps=20, batch=256, lr=0.01, steps=20,
                                            compiled=False))
    before = learner.exploitability()
    for _ in range(20):
        learner.update()
    assert learner.fit_kl is not None and learner.fit_kl[1] < learner.fit_kl[0]
    after = learner.exploitability()
    assert after < 0.5 * before
    assert abs(after - learner.exploitability(learner.target)) < 0.02  # the network plays its step's target closely
