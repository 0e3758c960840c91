"""CFR+ for a 2-player format, vectorised over hand classes on the public state graph.

The strategy a player learns depends on its hand and on the *abstract* public state: whether it
opened, the standing bid, whether it is answering a bid or deciding on its own bid challenged all
around, whether the standing bid is a rebid, and the last ``memory`` bids before the standing one.
Histories that share an abstract state share a node, so the graph is small (a few thousand nodes in
3×3); reach probabilities of merged histories add up, and every node's value is a matrix over the
two players' hands, so each iteration is exact CFR+ (regret matching+, alternating updates, linear
averaging) for the game in which players remember only that much.

That game is not the real one (a player there remembers the whole history), so the figure that
counts is the exact best response of :mod:`core.serial.solve.best_response`, which does remember it;
``liars exploit --solve`` prints it as the solver converges (:func:`run`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from core.serial.players.solved import Row, SolvedTable, StateKey, push_memory

from .format import FloatArray, Format

__all__ = [
    "Iterative",
    "Solver",
    "StateKey",
    "drop_under",
    "normalise_rows",
    "run",
    "split_children",
    "table_rows",
    "thousandths_rows",
]

ANSWER = -1  # the action that is not a raise: challenge, or (after being challenged all around) count


def normalise_rows(x: FloatArray) -> FloatArray:
    """Each row divided by its sum; a row summing to 0 becomes uniform (regret matching's rule)."""
    sums = x.sum(axis=1, keepdims=True)
    out: FloatArray = np.where(sums > 0, x / np.where(sums > 0, sums, 1.0), 1.0 / x.shape[1])
    return out


def drop_under(probs: FloatArray, floor: float) -> FloatArray:
    """Each row's probabilities under ``floor`` dropped, the rest renormalised (what a written table keeps)."""
    return normalise_rows(np.where(probs >= floor, probs, 0.0))


def split_children(children: Sequence[object]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[Any]]:
    """A node's children split into (columns leading to nodes, those node indices, columns ending the
    round, the terminals there): a child is a node index, or a tuple describing the count."""
    cols = [j for j, c in enumerate(children) if not isinstance(c, tuple)]
    kids = [c for c in children if not isinstance(c, tuple)]
    tcols = [j for j, c in enumerate(children) if isinstance(c, tuple)]
    terminals = [c for c in children if isinstance(c, tuple)]
    return np.array(cols, dtype=int), np.array(kids, dtype=int), np.array(tcols, dtype=int), terminals


@dataclass(slots=True)
class _Node:
    key: StateKey
    actor: int  # seat: 0 opened
    actions: list[int]  # bid indices, or ANSWER
    children: list[int | tuple[int, int]]  # node index, or a terminal (bid index, bidder seat)
    regret: FloatArray
    total: FloatArray


@dataclass
class Solver:
    """CFR+ over the abstract public states of ``fmt`` (2 players)."""

    fmt: Format
    memory: int = 1
    nodes: list[_Node] = field(default_factory=list)
    iterations: int = 0

    def __post_init__(self) -> None:
        self._build()

    # -- the graph -------------------------------------------------------------------------------------
    def _build(self) -> None:
        nbids = len(self.fmt.bids)
        rebid = self.fmt.rules.rebid
        k = self.fmt.size
        index: dict[StateKey, int] = {}
        pending: list[StateKey] = [(True, -1, 0, False, -1)]
        specs: dict[StateKey, tuple[list[int], list[StateKey | tuple[int, int]]]] = {}
        while pending:
            key = pending.pop()
            if key in specs:
                continue
            opener, standing, phase, is_rebid, prev = key
            me, other = (0, 1) if opener else (1, 0)
            remember = push_memory(prev, standing, self.memory, nbids)
            actions: list[int] = []
            children: list[StateKey | tuple[int, int]] = []
            if phase == 0:
                if standing >= 0:
                    actions.append(ANSWER)
                    if rebid and not is_rebid:
                        children.append((not opener, standing, 1, False, prev))
                    else:
                        children.append((standing, other))
                for b in range(standing + 1, nbids):
                    actions.append(b)
                    children.append((not opener, b, 0, False, remember))
            else:
                actions.append(ANSWER)
                children.append((standing, me))
                for b in range(standing + 1, nbids):
                    actions.append(b)
                    children.append((not opener, b, 0, True, remember))
            specs[key] = (actions, children)
            pending.extend(c for c in children if len(c) == 5)
        order = sorted(specs, key=lambda s: (s[1], s[2]))
        index = {key: i for i, key in enumerate(order)}
        for key in order:
            actions, children = specs[key]
            kids: list[int | tuple[int, int]] = [
                index[c] if len(c) == 5 else c
                for c in children
            ]
            a = len(actions)
            self.nodes.append(_Node(key, 0 if key[0] else 1, actions, kids, np.zeros((k, a)), np.zeros((k, a))))

    # -- iterations -----------------------------------------------------------------------------------
    def current(self) -> list[FloatArray]:
        """The current strategy (regret matching+), per node [hand, action]."""
        return [normalise_rows(np.maximum(node.regret, 0.0)) for node in self.nodes]

    def _prepare(self) -> None:
        """Per node: which actions lead to nodes (their indices) and the stacked terminal payoffs."""
        self._kids: list[tuple[np.ndarray, np.ndarray]] = []
        self._terms: list[tuple[np.ndarray, FloatArray]] = []
        k = self.fmt.size
        for node in self.nodes:
            cols, kids, tcols, terminals = split_children(node.children)
            self._kids.append((cols, kids))
            mats = [self.fmt.payoff(*c) for c in terminals]
            self._terms.append((tcols, np.stack(mats) if mats else np.zeros((0, k, k))))

    def iterate(self, count: int = 1) -> None:
        for _ in range(count):
            self.iterations += 1
            for player in (0, 1):
                self.update(player, self.current(), self.iterations)

    def update(self, player: int, sigma: Sequence[FloatArray], t: int = 0) -> float:
        """One pass with every node playing ``sigma`` (per node [hand, action]): seat 0's value per round.

        ``t`` > 0: ``player``'s regrets and average strategy are updated as CFR+ iteration ``t`` does;
        ``t`` = 0 only values ``sigma`` (e.g. a frozen seat against a learned one)."""
        if not hasattr(self, "_kids"):
            self._prepare()
        nodes = self.nodes
        k = self.fmt.size
        w = self.fmt.weights
        reach = np.zeros((len(nodes), 2, k))
        reach[0] = 1.0
        for i, node in enumerate(nodes):
            cols, kids = self._kids[i]
            if not len(kids):
                continue
            actor = node.actor
            r = reach[i]
            reach[kids, 1 - actor] += r[1 - actor]  # children are distinct, so fancy += is safe
            reach[kids, actor] += r[actor][None, :] * sigma[i][:, cols].T
        values = np.zeros((len(nodes), k, k))
        for i in range(len(nodes) - 1, -1, -1):
            node = nodes[i]
            s = sigma[i]
            mats = np.empty((len(node.actions), k, k))
            cols, kids = self._kids[i]
            if len(kids):
                mats[cols] = values[kids]
            tcols, tmats = self._terms[i]
            if len(tcols):
                mats[tcols] = tmats
            if node.actor == 0:
                values[i] = np.einsum("aj,jab->ab", s, mats)
            else:
                values[i] = np.einsum("bj,jab->ab", s, mats)
            if t <= 0 or node.actor != player:
                continue
            if player == 0:
                cv = np.einsum("jab,b->aj", mats, w * reach[i, 1])
            else:
                cv = -np.einsum("jab,a->bj", mats, w * reach[i, 0])
            node.regret = np.maximum(node.regret + cv - (s * cv).sum(axis=1, keepdims=True), 0.0)
            node.total += t * reach[i, player][:, None] * s
        return float(w @ values[0] @ w)

    # -- the result -----------------------------------------------------------------------------------
    def average(self, floor: float = 0.0) -> dict[StateKey, FloatArray]:
        """The average strategy per abstract state ([hand, action]); probabilities below ``floor`` dropped."""
        out: dict[StateKey, FloatArray] = {}
        for node in self.nodes:
            probs = normalise_rows(node.total)
            if floor > 0:
                probs = drop_under(probs, floor)
            out[node.key] = probs
        return out

    def table(self, floor: float = 0.001) -> SolvedTable:
        """The average strategy as the table ``core`` plays (probabilities in thousandths)."""
        avg = self.average(floor)
        entries = {node.key: thousandths_rows(avg[node.key], node.actions) for node in self.nodes}
        return SolvedTable(
            digits=self.fmt.rules.digits,
            serial_length=self.fmt.rules.serial_length,
            rebid=self.fmt.rules.rebid,
            memory=self.memory,
            entries=entries,
        )


def table_rows(rows: Sequence[Row], actions: Sequence[int], size: int) -> FloatArray:
    """A solved table's rows at a node (per hand class: (action, thousandths) pairs) as probabilities
    [hand, action] over the node's ``actions``."""
    column = {action: j for j, action in enumerate(actions)}
    out = np.zeros((size, len(actions)))
    for h, row in enumerate(rows):
        for action, milli in row:
            out[h, column[action]] = milli / 1000
    return out


def thousandths_rows(probs: FloatArray, actions: Sequence[int]) -> tuple[Row, ...]:
    """Probabilities [hand, action] as a solved table's rows: per hand class its (action, thousandths) pairs
    above 0, summing to exactly 1000 (the inverse of :func:`table_rows`, up to the rounding)."""
    rows = []
    for row in probs:
        milli = _to_thousandths(row)
        rows.append(tuple((actions[j], m) for j, m in enumerate(milli) if m > 0))
    return tuple(rows)


def _to_thousandths(row: FloatArray) -> list[int]:
    """Round probabilities to thousandths summing to exactly 1000 (largest remainders)."""
    raw = row * 1000.0
    base = np.floor(raw).astype(int)
    short = 1000 - int(base.sum())
    if short > 0:
        for j in np.argsort(-(raw - base))[:short]:
            base[j] += 1
    return [int(x) for x in base]


class Iterative(Protocol):
    """A CFR+ solver of any kind here (:class:`Solver`, the 3-player and the history solvers)."""

    iterations: int

    def iterate(self, count: int = 1) -> None: ...


def run(solver: Iterative, iterations: int, every: int, report: Callable[[int], None]) -> None:
    """Iterate ``iterations`` more times, calling ``report(iterations so far)`` every ``every`` (≥ 1)
    iterations and at the end."""
    done = 0
    while done < iterations:
        step = min(every, iterations - done)
        solver.iterate(step)
        done += step
        report(solver.iterations)
