"""Magnetic mirror descent on a table over the history graph of :mod:`core.serial.solve.cfr_full` (issue #24).

The same steps as :func:`core.serial.solve.neural.tabular_mmd` — at every decision and hand of the acting seat,
``π' ∝ (π ρ^{αη} e^{η q})^{1/(1+αη)}``, ``q`` the acting seat's value of each action with the other seat's hands
weighed by their chance and reach plus a tremble, ``ρ`` the magnet, moved towards ``π`` at every step
(``tau``) or reset to it every ``magnet_every`` steps — but on :func:`core.serial.solve.cfr_full.build`'s graph,
whose nodes are the last ``memory`` bids (histories that agree there are merged: their reaches add up, as in
CFR+ there), with values as [hand class of seat 0, hand class of seat 1] matrices.  That makes the step
affordable in 3×3 (305,332 decisions at memory 5: about 2–3 CPU s a step compiled by numba) where the whole
tree of :class:`core.serial.solve.neural.Tree` is not (some 63 million nodes); with ``memory`` at least the
longest history the graph *is* the whole tree and the steps are :func:`~core.serial.solve.neural.tabular_mmd`'s
(tested).  It is the reference for a network trained by the same steps in 3×3: what the learner does when
nothing has to be fitted.  The exact exploitability is :func:`core.serial.solve.cfr_full.exploitability`'s
walk of the whole tree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .cfr_full import Graph, build, exploitability, forward_reach, jit_kernels, payoffs
from .format import FloatArray, Format

__all__ = ["GraphMMD"]


def _sweep(alpha: float, tremble: float, actor: Any, first: Any, child: Any, tb: Any, tr: Any, pay: Any, w: Any,
           pi: Any, logp: Any, logm: Any, reach: Any, values: Any, qv: Any, mass: Any) -> float:
    """Own reaches forward under ``pi`` (``exp(logp)``), regularised values backward (seat 0's, [hand of seat 0,
    hand of seat 1]), and each edge's value to the acting seat per own hand (``qv``) with the other's hands' weight
    (``mass``)."""
    n = first.shape[0] - 1
    k = w.shape[0]
    forward_reach(actor, first, child, pi, reach)
    for i in range(n - 1, -1, -1):
        a = actor[i]
        v = values[i]
        v[:, :] = 0.0
        other = 0.0
        for y in range(k):
            other += w[y] * (reach[i, 1 - a, y] + tremble)
        for e in range(first[i], first[i + 1]):
            c = child[e]
            m = values[c] if c >= 0 else pay[tb[e], tr[e]]
            mass[e] = other
            if a == 0:
                for x in range(k):
                    p = pi[e, x]
                    reg = alpha * (logp[e, x] - logm[e, x])
                    s = 0.0
                    for y in range(k):
                        v[x, y] += p * (m[x, y] - reg)
                        s += m[x, y] * w[y] * (reach[i, 1, y] + tremble)
                    qv[e, x] = s
            else:
                for y in range(k):
                    p = pi[e, y]
                    reg = alpha * (logp[e, y] - logm[e, y])
                    s = 0.0
                    for x in range(k):
                        v[x, y] += p * (m[x, y] + reg)
                        s -= m[x, y] * w[x] * (reach[i, 0, x] + tremble)
                    qv[e, y] = s
    root = 0.0
    for x in range(k):
        for y in range(k):
            root += w[x] * values[0, x, y] * w[y]
    return root


def _normalise(z: Any, first: Any) -> None:
    """Log-softmax in place over each node's edges, per hand."""
    n = first.shape[0] - 1
    k = z.shape[1]
    for i in range(n):
        lo, hi = first[i], first[i + 1]
        for h in range(k):
            top = -np.inf
            for e in range(lo, hi):
                top = max(top, z[e, h])
            s = 0.0
            for e in range(lo, hi):
                s += np.exp(z[e, h] - top)
            total = top + np.log(s)
            for e in range(lo, hi):
                z[e, h] -= total


_COMPILED: dict[str, Callable[..., Any]] = {}


def _kernels(compiled: bool) -> dict[str, Callable[..., Any]]:
    """The sweep and the normalisation, compiled by numba when it is installed (and ``compiled``)."""
    plain: dict[str, Callable[..., Any]] = {"sweep": _sweep, "normalise": _normalise}
    if not compiled:
        return plain
    if not _COMPILED:
        jitted = jit_kernels((_sweep, _normalise), (forward_reach,))
        _COMPILED.update(plain if jitted is None else {"sweep": jitted["_sweep"], "normalise": jitted["_normalise"]})
    return _COMPILED


class GraphMMD:
    """Tabular MMD on the history graph of a 2-player format; the policy starts uniform, the magnet with it."""

    def __init__(self, fmt: Format, memory: int, *, alpha: float = 0.2, eta: float = 0.5, tau: float = 0.0,
                 magnet_every: int = 50, tremble: float = 1e-3, compiled: bool = True, average_from: int | None = None,
                 average_power: float = 1.0) -> None:
        if not 0.0 <= tau <= 1.0 or magnet_every < 0 or alpha < 0 or eta <= 0 or tremble < 0:
            raise ValueError("0 ≤ tau ≤ 1, magnet_every ≥ 0, alpha ≥ 0, eta > 0 and tremble ≥ 0")
        if (average_from is not None and average_from < 0) or average_power < 0:
            raise ValueError("average_from ≥ 0 (or None: no average) and average_power ≥ 0")
        self.fmt, self.alpha, self.eta, self.tau = fmt, alpha, eta, tau
        self.magnet_every, self.tremble, self.compiled = magnet_every, tremble, compiled
        self.kernels = _kernels(compiled)
        self.graph: Graph = build(fmt, memory)
        g, k = self.graph, fmt.size
        self.logp: FloatArray = np.zeros((len(g.child), k))
        self.kernels["normalise"](self.logp, g.first)
        self.magnet: FloatArray = self.logp.copy()
        self.reach = np.zeros((len(g.keys), 2, k))  # each seat's own reach under the last target's policy
        self._values = np.zeros((len(g.keys), k, k))
        self._qv = np.zeros((len(g.child), k))
        self._mass = np.zeros(len(g.child))
        self._pay = payoffs(fmt)
        self.step = 0
        # the average of the policies from step ``average_from`` on, each weighed by its own reach at the node (as
        # CFR averages) and by (its step − average_from + 1) ** average_power: [edge, hand] sums, see average()
        self.average_from, self.average_power = average_from, average_power
        self.total: FloatArray | None = None if average_from is None else np.zeros_like(self.logp)
        self._edge_node = np.repeat(np.arange(len(g.keys)), np.diff(g.first))

    def target(self) -> FloatArray:
        """The MMD step from the policy (``logp``): [edge, hand] log-probabilities; the sweep leaves each seat's own
        reach in ``reach`` ([node, seat, hand])."""
        g, alpha, eta = self.graph, self.alpha, self.eta
        self.kernels["sweep"](alpha, self.tremble, g.actor, g.first, g.child, g.term_bid, g.term_bidder, self._pay,
                              self.fmt.weights, np.exp(self.logp), self.logp, self.magnet, self.reach, self._values,
                              self._qv, self._mass)
        q = self._qv / np.maximum(self._mass, 1e-300)[:, None]
        z: FloatArray = (self.logp + alpha * eta * self.magnet + eta * q) / (1 + alpha * eta)
        self.kernels["normalise"](z, g.first)
        return z

    def moved(self, logp: FloatArray) -> None:
        """The policy is now ``logp`` (the step's target, or what a network made of it): one step done, and the
        magnet moved towards it (``tau``) or reset to it when due (``magnet_every``).  The policy it replaces joins
        the average (with the reaches :meth:`target` found under it)."""
        if self.total is not None and self.average_from is not None and self.step >= self.average_from:
            weight = float(self.step - self.average_from + 1) ** self.average_power
            node = self._edge_node
            self.total += weight * self.reach[node, self.graph.actor[node], :] * np.exp(self.logp)
        self.logp = logp
        self.step += 1
        if self.tau:
            magnet = (1 - self.tau) * self.magnet + self.tau * logp
            self.kernels["normalise"](magnet, self.graph.first)
            self.magnet = magnet
        elif self.magnet_every and self.step % self.magnet_every == 0:
            self.magnet = logp.copy()

    def update(self) -> None:
        self.moved(self.target())

    def average(self) -> FloatArray:
        """The average policy ([edge, hand] probabilities; uniform where no averaged policy reached the node)."""
        if self.total is None:
            raise ValueError("this learner keeps no average (average_from=None)")
        first = self.graph.first
        per_node = np.add.reduceat(self.total, first[:-1], axis=0)[self._edge_node]
        uniform = 1.0 / np.diff(first)[self._edge_node][:, None]
        out: FloatArray = np.where(per_node > 0, self.total / np.maximum(per_node, 1e-300), uniform)
        return out

    def exploitability(self, average: bool = False) -> float:
        """The exact best response's mean gain over the two seats (the whole tree walked), against the policy or
        (``average``) the average policy."""
        v0, v1 = exploitability(self.fmt, self.graph, self.average() if average else np.exp(self.logp),
                                self.compiled)
        return (v0 + v1) / 2
