"""CFR+ over the (nearly) perfect-recall public tree of a 2-player format, compiled by numba when installed.

:mod:`core.serial.solve.cfr` merges every history into a few hundred *abstract* states (the standing bid
and the one before), so its players forget older bids and the solution stalls at 0.10 in 3×3.  Here
a decision node is keyed by the actor, the phase (0: bidding, 1: deciding on a rebid) and the last
``memory`` bids of the history, each with whether it was a rebid (:func:`history_key`).  A history
of at most ``memory`` bids is remembered whole, so with ``memory`` ≥ the longest history the game
has (18 bids in 3×3) this is the real perfect-recall game; with a smaller ``memory`` only longer
histories (which the solution barely reaches) are merged.  In 3×3, ``memory`` 5 gives 305,332 nodes.

Each iteration is exact CFR+ on that graph (regret matching+, alternating updates, linear
averaging), vectorised over the hand classes: reach probabilities flow forward (merged histories'
reaches add up), values flow backward as [hand of seat 0, hand of seat 1] matrices.  The loops run
over flat integer arrays (:class:`Graph`) so numba compiles them; without numba they run as plain
Python (fine for 2×1 and 2×2, which is what the tests use).

:func:`exploitability` is the exact best response to the average strategy: the whole public tree
walked path by path (every history, 24,157,816 terminal ones in 3×3), the responder remembering
everything, the strategy's hands weighted by its exact mixtures along the path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .format import FloatArray, Format

__all__ = ["FullSolver", "Graph", "HistKey", "build", "current_strategy", "exploitability", "forward_reach",
           "history_key", "jit_kernels"]

IntArray = npt.NDArray[np.int64]
HistKey = tuple[int, int, tuple[int, ...]]  # (actor seat: 0 opened, phase, last bids as 2 × index + rebid)


def history_key(actor: int, phase: int, bids: tuple[int, ...], memory: int) -> HistKey:
    """The node of a history: its actor, phase and last ``memory`` bids (``2 × bid index + is rebid``)."""
    return (actor, phase, bids[-memory:] if len(bids) > memory else bids)


@dataclass
class Graph:
    """The decision graph as flat arrays (nodes in an order where every child follows its parent)."""

    keys: list[HistKey]
    actor: IntArray  # [node]
    first: IntArray  # [node + 1]: its edges are first[i] … first[i + 1] − 1
    child: IntArray  # [edge]: the child node, or −1 for a count
    action: IntArray  # [edge]: −1 the answer that is not a raise, else the bid index
    term_bid: IntArray  # [edge]: the counted bid (for a count)
    term_bidder: IntArray  # [edge]: its bidder's seat


def build(fmt: Format, memory: int) -> Graph:
    nbids = len(fmt.bids)
    rebid_rule = fmt.rules.rebid
    specs: dict[HistKey, list[tuple[int, HistKey | None, int, int]]] = {}
    pending: list[HistKey] = [(0, 0, ())]
    while pending:
        key = pending.pop()
        if key in specs:
            continue
        a, phase, bids = key
        standing = bids[-1] // 2 if bids else -1
        is_rebid = bool(bids[-1] % 2) if bids else False
        edges: list[tuple[int, HistKey | None, int, int]] = []
        if phase == 0:
            if standing >= 0:
                if rebid_rule and not is_rebid:
                    edges.append((-1, (1 - a, 1, bids), -1, -1))
                else:
                    edges.append((-1, None, standing, 1 - a))
            flag = 0
        else:
            edges.append((-1, None, standing, a))
            flag = 1
        for j in range(standing + 1, nbids):
            edges.append((j, history_key(1 - a, 0, (*bids, 2 * j + flag), memory), -1, -1))
        specs[key] = edges
        pending.extend(c for _, c, _, _ in edges if c is not None and c not in specs)

    def order(k: HistKey) -> tuple[int, int]:
        return (k[2][-1] // 2 if k[2] else -1, k[1])

    keys = sorted(specs, key=order)
    index = {k: i for i, k in enumerate(keys)}
    first = [0]
    child: list[int] = []
    action: list[int] = []
    tb: list[int] = []
    tr: list[int] = []
    for k in keys:
        for act, c, b, bidder in specs[k]:
            action.append(act)
            child.append(index[c] if c is not None else -1)
            tb.append(b)
            tr.append(bidder)
        first.append(len(child))

    def arr(x: list[int]) -> IntArray:
        return np.array(x, dtype=np.int64)

    return Graph(keys, arr([k[0] for k in keys]), arr(first), arr(child), arr(action), arr(tb), arr(tr))


def payoffs(fmt: Format) -> FloatArray:
    """[bid, bidder, hand of seat 0, hand of seat 1]: units to seat 0."""
    nbids, k = len(fmt.bids), fmt.size
    pay = np.zeros((nbids, 2, k, k))
    for b in range(nbids):
        for bidder in (0, 1):
            pay[b, bidder] = fmt.payoff(b, bidder)
    return pay


# -- the compiled kernels (plain Python without numba) ---------------------------------------------------
def current_strategy(regret: FloatArray, first: IntArray, sigma: FloatArray) -> None:
    """Regret matching over flat arrays: ``sigma[e, h]`` is edge ``e``'s share of its node's positive regrets for
    hand ``h`` (uniform where none is positive); node ``i``'s edges are ``first[i]:first[i + 1]``.  Shared by the
    heads-up and the 3-player kernels."""
    n = first.shape[0] - 1
    k = regret.shape[1]
    for i in range(n):
        lo, hi = first[i], first[i + 1]
        for h in range(k):
            s = 0.0
            for e in range(lo, hi):
                if regret[e, h] > 0.0:
                    s += regret[e, h]
            for e in range(lo, hi):
                if s > 0.0:
                    sigma[e, h] = max(regret[e, h], 0.0) / s
                else:
                    sigma[e, h] = 1.0 / (hi - lo)


def forward_reach(actor: IntArray, first: IntArray, child: IntArray, sigma: FloatArray, reach: FloatArray) -> None:
    """``reach[node, seat, hand]``: each seat's own probability of playing to the node with that hand under
    ``sigma`` ([edge, hand]: the acting seat's), merged histories' reaches added up.  Shared by the kernels of
    CFR+ here and of MMD (:mod:`.graph_mmd`)."""
    n = first.shape[0] - 1
    k = sigma.shape[1]
    reach[:] = 0.0
    reach[0, :, :] = 1.0
    for i in range(n):
        a = actor[i]
        for e in range(first[i], first[i + 1]):
            c = child[e]
            if c >= 0:
                for h in range(k):
                    reach[c, a, h] += reach[i, a, h] * sigma[e, h]
                    reach[c, 1 - a, h] += reach[i, 1 - a, h]


def _update(player: int, t: float, actor: IntArray, first: IntArray, child: IntArray, tb: IntArray,
            tr: IntArray, pay: FloatArray, w: FloatArray, regret: FloatArray, total: FloatArray,
            sigma: FloatArray, reach: FloatArray, values: FloatArray, cv: FloatArray) -> float:
    """One CFR+ update of ``player``'s regrets and average; returns the root value to seat 0."""
    n = first.shape[0] - 1
    k = w.shape[0]
    current_strategy(regret, first, sigma)
    forward_reach(actor, first, child, sigma, reach)
    for i in range(n - 1, -1, -1):
        a = actor[i]
        lo, hi = first[i], first[i + 1]
        v = values[i]
        v[:, :] = 0.0
        for e in range(lo, hi):
            c = child[e]
            m = values[c] if c >= 0 else pay[tb[e], tr[e]]
            if a == 0:
                for x in range(k):
                    p = sigma[e, x]
                    if p > 0.0:
                        for y in range(k):
                            v[x, y] += p * m[x, y]
            else:
                for y in range(k):
                    p = sigma[e, y]
                    if p > 0.0:
                        for x in range(k):
                            v[x, y] += p * m[x, y]
            if a == player:
                for h in range(k):
                    s = 0.0
                    if player == 0:
                        for y in range(k):
                            s += m[h, y] * w[y] * reach[i, 1, y]
                    else:
                        for x in range(k):
                            s -= m[x, h] * w[x] * reach[i, 0, x]
                    cv[e, h] = s
        if a == player:
            for h in range(k):
                base = 0.0
                for e in range(lo, hi):
                    base += sigma[e, h] * cv[e, h]
                r = reach[i, player, h]
                for e in range(lo, hi):
                    regret[e, h] = max(regret[e, h] + cv[e, h] - base, 0.0)
                    total[e, h] += t * r * sigma[e, h]
    root = 0.0
    for x in range(k):
        for y in range(k):
            root += w[x] * values[0, x, y] * w[y]
    return root


def _walk(i: int, reach: FloatArray, br: int, actor: IntArray, first: IntArray, child: IntArray,
          tb: IntArray, tr: IntArray, pay: FloatArray, pol: FloatArray) -> FloatArray:
    """The best response's value per own hand below node ``i`` (a path of the whole tree), the strategy's
    hands weighted by ``reach``; ``pay`` is [bid, bidder, hand of the responder, hand of the strategy]."""
    k = reach.shape[0]
    out = np.zeros(k)
    if reach.sum() <= 0.0:
        return out
    if actor[i] != br:
        for e in range(first[i], first[i + 1]):
            r = reach * pol[e]
            if r.sum() <= 0.0:
                continue
            c = child[e]
            if c >= 0:
                out += _walk(c, r, br, actor, first, child, tb, tr, pay, pol)
            else:
                out += (pay[tb[e], tr[e]] * r).sum(axis=1)
        return out
    out[:] = -np.inf
    for e in range(first[i], first[i + 1]):
        c = child[e]
        if c >= 0:
            v = _walk(c, reach, br, actor, first, child, tb, tr, pay, pol)
        else:
            v = (pay[tb[e], tr[e]] * reach).sum(axis=1)
        out = np.maximum(out, v)
    return out


_KERNELS: dict[str, Callable[..., Any]] = {}


def jit_kernels(functions: tuple[Callable[..., Any], ...], helpers: tuple[Callable[..., Any], ...],
                parallel: tuple[Callable[..., Any], ...] = ()) -> dict[str, Callable[..., Any]] | None:
    """``functions`` compiled by numba, each by its name, able to call ``helpers`` (compiled too, and returned by
    their names as well); each of ``parallel`` (some of ``functions``) also compiled to run its ``prange`` loops on
    numba's threads, as ``<name>_parallel``.  None when numba is not installed.  A kernel is compiled from its
    source in a namespace whose helpers are the compiled ones (numba calls only compiled functions), where
    ``prange`` and ``_thread_id`` are numba's (in plain Python a module defines them as ``range`` and 0)."""
    try:
        import numba  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    import inspect
    import textwrap

    g: dict[str, Any] = {"np": np, "FloatArray": FloatArray, "IntArray": IntArray, "max": max,
                         "prange": numba.prange, "_thread_id": numba.get_thread_id}  # type: ignore[attr-defined,unused-ignore]
    g.update({h.__name__: numba.njit(cache=False)(h) for h in helpers})
    out = {h.__name__: g[h.__name__] for h in helpers}
    for f in functions:
        exec(compile(textwrap.dedent(inspect.getsource(f)), inspect.getfile(f), "exec"), g)  # our own functions
        if f in parallel:
            out[f"{f.__name__}_parallel"] = numba.njit(cache=False, parallel=True)(g[f.__name__])
        g[f.__name__] = out[f.__name__] = numba.njit(cache=False)(g[f.__name__])
    return out


def kernels(compiled: bool = True) -> dict[str, Callable[..., Any]]:
    """``update`` and ``walk``, compiled by numba when it is installed (and ``compiled``), else the plain functions."""
    if not compiled:
        return {"update": _update, "walk": _walk}
    if not _KERNELS:
        jitted = jit_kernels((_update, _walk), (current_strategy, forward_reach))
        _KERNELS.update(update=_update, walk=_walk) if jitted is None else _KERNELS.update(
            update=jitted["_update"], walk=jitted["_walk"])
    return _KERNELS


def exploitability(fmt: Format, graph: Graph, pol: FloatArray, compiled: bool = True) -> tuple[float, float]:
    """What a best response earns against the policy ``pol`` ([edge, hand]) in seat 0 and in seat 1."""
    walk = kernels(compiled)["walk"]
    pay = payoffs(fmt)
    values = []
    for br in (0, 1):
        oriented = pay if br == 0 else -pay.transpose(0, 1, 3, 2)
        oriented = np.ascontiguousarray(oriented)
        v = walk(0, fmt.weights.copy(), br, graph.actor, graph.first, graph.child, graph.term_bid,
                 graph.term_bidder, oriented, pol)
        values.append(float(fmt.weights @ v))
    return values[0], values[1]


class FullSolver:
    """CFR+ over :func:`build`'s graph of ``fmt`` (2 players)."""

    def __init__(self, fmt: Format, memory: int, compiled: bool = True) -> None:
        self.fmt = fmt
        self.compiled = compiled
        self.memory = memory
        self.graph = g = build(fmt, memory)
        n, e, k = len(g.keys), len(g.child), fmt.size
        self.regret = np.zeros((e, k))
        self.total = np.zeros((e, k))
        self._sigma = np.zeros((e, k))
        self._cv = np.zeros((e, k))
        self._reach = np.zeros((n, 2, k))
        self._values = np.zeros((n, k, k))
        self._pay = payoffs(fmt)
        self.iterations = 0

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.regret, self.total, self._sigma, self._cv, self._reach, self._values))

    def iterate(self, count: int = 1) -> None:
        update = kernels(self.compiled)["update"]
        g = self.graph
        for _ in range(count):
            self.iterations += 1
            for player in (0, 1):
                update(player, float(self.iterations), g.actor, g.first, g.child, g.term_bid, g.term_bidder,
                       self._pay, self.fmt.weights, self.regret, self.total, self._sigma, self._reach, self._values,
                       self._cv)

    def average(self) -> FloatArray:
        """The average strategy, [edge, hand] (uniform where a node was never reached)."""
        g = self.graph
        out = np.empty_like(self.total)
        for i in range(len(g.keys)):
            lo, hi = g.first[i], g.first[i + 1]
            block = self.total[lo:hi]
            sums = block.sum(axis=0)
            out[lo:hi] = np.where(sums > 0, block / np.where(sums > 0, sums, 1.0), 1.0 / (hi - lo))
        return out

    def exploitability(self, pol: FloatArray | None = None) -> float:
        v0, v1 = exploitability(self.fmt, self.graph, self.average() if pol is None else pol, self.compiled)
        return (v0 + v1) / 2
