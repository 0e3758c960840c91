"""Neural self-play on the history graph: the network learns by the MMD steps of :mod:`.graph_mmd` (issue #24).

:mod:`core.serial.solve.neural` trains its network on the whole public tree, which stops at 3×2; here the arrays
live on :func:`core.serial.solve.cfr_full.build`'s graph (histories merged past their last ``memory`` bids), which
3×3 affords (305,332 decisions and 957,239 edges at memory 5, × 10 hand classes).  The policy is the network's,
everywhere: each step computes its log-policy on every (edge, hand class), takes the MMD step of
:class:`.graph_mmd.GraphMMD` from it (the same sweep kernel), and fits the network to that target with mini-batch
Adam, (decision, hand) pairs drawn by the acting seat's own reach times the hand's chance (plus a floor), as
``TrainConfig.batch`` does in :mod:`.neural`.  The magnet moves towards the network's policy every step (``tau``)
or is reset to it every ``magnet_every`` steps.

**The network** reads what the graph's node remembers — it is not format-general: for each of the last ``memory``
bids (most recent first) which bid it was, whether the acting seat made it and whether it was a rebid; whether the
seat is deciding on a rebid; whether older bids were forgotten; the copies held of each digit — and, for an action,
which it is (a raise to each bid, or the answer that is not a raise) and the copies held of its digit.  Every input
is a one-hot or a count, so its first layer is a sum of embeddings (a row per token), which costs a few additions
per (edge, hand) instead of a matrix product over some hundred inputs; one hidden layer of ``hidden`` tanh units,
then a score per action; the policy is the softmax of the scores over each decision's actions.

Who made each remembered bid follows from the node: deciding on a rebid the actor made the last bid, bidding the
other seat did; a bid flagged as a rebid was made by the maker of the bid it follows, any other by the other seat.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .cfr_full import Graph, exploitability
from .format import FloatArray, Format
from .graph_mmd import GraphMMD

__all__ = ["GraphConfig", "GraphLearner", "node_tokens"]

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class GraphConfig:
    memory: int = 5
    hidden: int = 128
    alpha: float = 0.2
    eta: float = 1.0
    tau: float = 0.05  # the magnet moves towards the policy by this much every step (0: reset every magnet_every)
    magnet_every: int = 0
    tremble: float = 1e-3
    fit_steps: int = 100
    batch: int = 4096  # (decision, hand) pairs a fit step reads
    lr: float = 0.003
    lr_final: float = 0.001  # geometric over ``steps``
    floor: float = 1e-3  # added to every (decision, hand)'s weight in the fit
    steps: int = 300
    seed: int = 1
    compiled: bool = True  # numba for the sweeps, when installed (the tests' tiny formats run as plain Python)

    def lr_at(self, step: int) -> float:
        if self.steps <= 1:
            return self.lr
        return float(self.lr * (self.lr_final / self.lr) ** (min(step, self.steps - 1) / (self.steps - 1)))


def node_tokens(graph: Graph, nbids: int, memory: int) -> tuple[IntArray, IntArray]:
    """([node, memory] token of each remembered bid, [node] the phase's token) — a bid's token says the bid, its
    place (most recent first), whether the actor made it and whether it was a rebid; an empty place has its own."""
    per_place = 4 * nbids
    none = memory * per_place
    tokens = np.full((len(graph.keys), memory), none, dtype=np.int64)
    phase = np.zeros(len(graph.keys), dtype=np.int64)
    for i, (actor, ph, bids) in enumerate(graph.keys):
        maker = actor if ph == 1 else 1 - actor  # who made the last bid
        for place, code in enumerate(reversed(bids)):
            bid, rebid = divmod(code, 2)
            mine = int(maker == actor)
            tokens[i, place] = place * per_place + 4 * bid + 2 * mine + rebid
            if not rebid:  # the bid before it was the other seat's
                maker = 1 - maker
        phase[i] = ph + 2 * int(len(bids) >= memory)  # (a full window: older bids may be forgotten)
    return tokens, phase


def _add_rows(out: Any, index: Any, values: Any) -> None:
    """``out[index[j]] += values[j]`` row by row (compiled by numba: ``np.add.at`` is many times slower)."""
    for j in range(index.shape[0]):
        r = index[j]
        for c in range(values.shape[1]):
            out[r, c] += values[j, c]


_ADD_ROWS: list[Callable[..., Any]] = []


def _scatter(rows: int, index: IntArray, values: FloatArray) -> FloatArray:
    """The rows of ``values`` summed into ``rows`` rows by ``index``."""
    if not _ADD_ROWS:
        try:
            import numba  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            _ADD_ROWS.append(lambda out, index, values: np.add.at(out, index, values))
        else:
            jit: Any = numba.njit(cache=False)
            _ADD_ROWS.append(jit(_add_rows))
    out = np.zeros((rows, values.shape[1]))
    _ADD_ROWS[0](out, index, values)
    return out


class GraphLearner:
    """The network, its Adam state and its magnet, on the history graph of a 2-player format."""

    def __init__(self, fmt: Format, config: GraphConfig) -> None:
        self.fmt, self.config = fmt, config
        self.mmd = GraphMMD(fmt, config.memory, alpha=config.alpha, eta=config.eta, tau=config.tau,
                                   magnet_every=config.magnet_every, tremble=config.tremble,
                                   compiled=config.compiled)
        g = self.graph = self.mmd.graph
        nbids, h = len(fmt.bids), config.hidden
        self.parent = np.repeat(np.arange(len(g.keys)), np.diff(g.first))  # [edge] → its decision
        self.tokens, self.phase = node_tokens(g, nbids, config.memory)
        self.act = np.where(g.action >= 0, g.action, nbids)  # the answer that is not a raise: its own token
        counts = np.array(fmt.hands, dtype=np.float64) / fmt.rules.serial_length  # [hand, digit]
        self.counts = counts
        digit_of = np.array([fmt.digits.index(b.digit) for b in fmt.bids] + [0])
        self.held = np.where((g.action >= 0)[:, None], counts[:, digit_of[self.act]].T, 0.0)  # [edge, hand]
        rng = np.random.default_rng(config.seed)
        scale = 1.0 / np.sqrt(config.memory + 4)  # (some memory + 4 embeddings are summed)
        self.params: dict[str, FloatArray] = {
            "tok": rng.normal(0, scale, (config.memory * 4 * nbids + 1, h)),
            "phase": rng.normal(0, scale, (4, h)),
            "hand": rng.normal(0, scale, (len(fmt.digits), h)),
            "act": rng.normal(0, scale, (nbids + 1, h)),
            "held": rng.normal(0, scale, h),
            "b": np.zeros(h),
            "v": rng.normal(0, 0.1 / np.sqrt(h), h),
        }
        self.params["tok"][-1] = 0.0  # an empty place adds nothing
        self._m = {n: np.zeros_like(p) for n, p in self.params.items()}
        self._v = {n: np.zeros_like(p) for n, p in self.params.items()}
        self._t = 0
        self.rng = np.random.default_rng(config.seed + 1)
        self.fit_kl: tuple[float, float] | None = None  # the last step's weighed KL(target ‖ net) before, after its fit
        self.target: FloatArray | None = None  # the last step's target [edge, hand] (log-probabilities)
        self.mmd.logp = self.log_policy()
        self.mmd.magnet = self.mmd.logp.copy()

    # -- the network --------------------------------------------------------------------------------------------
    def _node_part(self, nodes: IntArray) -> FloatArray:
        p = self.params
        out: FloatArray = p["tok"][self.tokens[nodes]].sum(axis=1) + p["phase"][self.phase[nodes]]
        return out

    def scores(self, nodes: IntArray, size: IntArray, edges: IntArray, hands: IntArray
               ) -> tuple[FloatArray, FloatArray]:
        """(score [pair], hidden activations [pair, hidden]) of the (edge, hand) pairs: each drawn decision's
        ``size`` edges in a row, ``nodes`` the decisions (their embeddings are summed once a decision)."""
        p = self.params
        pre = (np.repeat(self._node_part(nodes), size, axis=0) + self.counts[hands] @ p["hand"]
               + p["act"][self.act[edges]] + self.held[edges, hands][:, None] * p["held"] + p["b"])
        hidden = np.tanh(pre)
        return hidden @ p["v"], hidden

    def log_policy(self) -> FloatArray:
        """[edge, hand]: the network's log-policy everywhere (a hand at a time: 957,239 × hidden each in 3×3)."""
        g, k = self.graph, self.fmt.size
        edges = np.arange(len(g.child))
        z = np.empty((len(edges), k))
        node = self._node_part(self.parent)  # [edge, hidden], shared by the hands
        p = self.params
        base = node + p["act"][self.act] + p["b"]
        for h in range(k):
            pre = base + self.counts[h] @ p["hand"] + self.held[:, h][:, None] * p["held"]
            z[:, h] = np.tanh(pre) @ p["v"]
        self.mmd.kernels["normalise"](z, g.first)
        return z

    # -- one step ---------------------------------------------------------------------------------------------
    def update(self) -> None:
        """The table's MMD step from the network's policy, the network fitted to it, the magnet moved."""
        cfg, mmd, g = self.config, self.mmd, self.graph
        logp, target = mmd.logp, mmd.target()
        weight = self.fmt.weights * mmd.reach[np.arange(len(g.keys)), g.actor, :] + cfg.floor  # [node, hand]
        self._fit(np.exp(target), weight)
        new = self.log_policy()
        wt = weight[self.parent] * np.exp(target)
        norm = float(wt.sum())
        self.fit_kl = (float((wt * (target - logp)).sum()) / norm, float((wt * (target - new)).sum()) / norm)
        self.target = target
        mmd.moved(new)

    @property
    def step(self) -> int:
        return self.mmd.step

    def _fit(self, target: FloatArray, weight: FloatArray) -> None:
        cfg, g, k = self.config, self.graph, self.fmt.size
        cum = np.cumsum(weight.ravel())
        size_of = np.diff(g.first)
        for _ in range(cfg.fit_steps):
            draws = np.minimum(np.searchsorted(cum, self.rng.random(cfg.batch) * cum[-1], side="right"), len(cum) - 1)
            node, hand = np.divmod(draws, k)
            size = size_of[node]
            starts = np.concatenate(([0], np.cumsum(size)[:-1]))
            edges = np.repeat(g.first[node] - starts, size) + np.arange(size.sum())
            hands = np.repeat(hand, size)
            z, hidden = self.scores(node, size, edges, hands)
            e = np.exp(z - np.repeat(np.maximum.reduceat(z, starts), size))
            pi = e / np.repeat(np.add.reduceat(e, starts), size)
            gz = (target[edges, hands] - pi) * (cum[-1] / cfg.batch)  # d(weighed log-likelihood)/d score
            self._adam(self._backward(node, starts, edges, hands, hidden, gz), cfg.lr_at(self.step))

    def _backward(self, nodes: IntArray, starts: IntArray, edges: IntArray, hands: IntArray, hidden: FloatArray,
                  gz: FloatArray) -> dict[str, FloatArray]:
        p = self.params
        gpre = gz[:, None] * p["v"] * (1.0 - hidden**2)  # [pair, hidden]
        grads = {"v": hidden.T @ gz, "b": gpre.sum(axis=0), "held": (self.held[edges, hands][:, None] * gpre).sum(0),
                 "hand": self.counts[hands].T @ gpre, "act": _scatter(len(p["act"]), self.act[edges], gpre)}
        group = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(gpre)]))  # [pair] → its drawn decision
        per_node = _scatter(len(starts), group, gpre)  # [drawn decision, hidden]: what its embeddings get
        grads["phase"] = _scatter(len(p["phase"]), self.phase[nodes], per_node)
        toks = self.tokens[nodes]  # [drawn decision, memory]
        grads["tok"] = _scatter(len(p["tok"]), toks.ravel(), np.repeat(per_node, toks.shape[1], axis=0))
        grads["tok"][-1] = 0.0
        return grads

    def _adam(self, grads: dict[str, FloatArray], lr: float) -> None:
        self._t += 1
        b1, b2 = 0.9, 0.999
        for name, g in grads.items():
            self._m[name] = b1 * self._m[name] + (1 - b1) * g
            self._v[name] = b2 * self._v[name] + (1 - b2) * g * g
            m_hat = self._m[name] / (1 - b1**self._t)
            v_hat = self._v[name] / (1 - b2**self._t)
            self.params[name] += lr * m_hat / (np.sqrt(v_hat) + 1e-8)

    def exploitability(self, logp: FloatArray | None = None) -> float:
        v0, v1 = exploitability(self.fmt, self.graph, np.exp(self.mmd.logp if logp is None else logp),
                                self.mmd.compiled)
        return (v0 + v1) / 2
