"""The local best response of :mod:`.approx`, against a 3-player solved table, on the table's own graph.

:mod:`.approx` walks the engine's rounds once per particle and sums the others' mixtures branch by
branch: at 3 players, with the exact belief over the others' 100 joint hand classes of 3×3, each
exploiter decision costs seconds to minutes.  Against a strategy that is a
:class:`~core.serial.players.solved_multi.MultiTable` the same exploiter is computed on the
table's abstract graph (:class:`~.cfr_multi.MultiSolver`), with tensors:

* **Belief**: a [hand, hand] array over the two others' classes, the prior times the table's
  probability of each of their actions so far (each factor floored at
  :data:`~.approx.LIKELIHOOD_FLOOR`, as there), from the whole history.
* **Candidates**: as there: the challenge or the count, and per digit the two smallest raises.
* **Values**: as there, ``lookahead`` of its own decisions searched (the others' mixtures summed,
  every branch), then it *challenges* (or calls for the count, or opens with the smallest bid) for
  the rest of the round; that continuation's value is computed exactly, for every node, by one
  backward pass over the graph (:mod:`.approx` sums it to a depth and samples the rest, so the two
  differ by that sampling only).

Rounds are played on the graph (checked against the engine's rounds in the tests), the others
drawing from the table.  Each round reports the exploiter's units, and, with less noise, their
expectation given its serial and the whole public history (the exact posterior over the others'
hands at the count): the same mean, so both are unbiased figures of what the exploiter earns.  Beside
them, each seat's value when the table plays it too (:meth:`TableLBR.own_value`): a round is not fair to
every seat, so part of a seat's figure is what the seat is worth to anyone playing the table there.
Pure: numpy and a seeded ``random.Random``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from core.serial.players.solved_multi import MultiTable

from .approx import LIKELIHOOD_FLOOR
from .cfr_multi import ANSWER, MultiFormat, MultiSolver, table_policy
from .format import FloatArray

__all__ = ["TableLBR", "TableLBRResult"]


@dataclass
class TableLBRResult:
    """Per seat: the exploiter's realised units per round, their expectation given what it saw, and the
    round's number of bids (rebids included): where the gain comes from, by how much of the round a table
    with ``memory`` bids remembered (every bid when it has at most ``memory`` + 1)."""

    realised: list[list[float]] = field(default_factory=list)
    expected: list[list[float]] = field(default_factory=list)
    bids: list[list[int]] = field(default_factory=list)
    whole: int = 1  # the longest round the table remembers whole: its memory + 1 bids
    own: dict[int, float] = field(default_factory=dict)  # per seat played: the table's value there, playing all seats

    def gain(self, seat: int) -> float:
        """What the exploiter earns in ``seat`` beyond the table's own value there (the mean of the expected
        values less :attr:`own`): a round is not fair to every seat, so this is not the figure itself."""
        return sum(self.expected[seat]) / len(self.expected[seat]) - self.own[seat]

    def by_length(self, seat: int) -> tuple[list[float], list[float]]:
        """``seat``'s expected values split: rounds of at most :attr:`whole` bids, and longer ones."""
        pairs = list(zip(self.expected[seat], self.bids[seat], strict=True))
        return [v for v, b in pairs if b <= self.whole], [v for v, b in pairs if b > self.whole]


class TableLBR:
    """The local best response to ``table`` for 3 players (any seat), on the table's graph."""

    def __init__(self, fmt: MultiFormat, table: MultiTable, lookahead: int = 2) -> None:
        if fmt.players != 3:
            raise ValueError("the table's local best response is for 3 players")
        self.fmt, self.lookahead = fmt, lookahead
        self.solver = MultiSolver(fmt, table.memory, opening=table.opening, named=table.named)
        self.sigma = table_policy(fmt, table, self.solver)
        self.col = [{a: j for j, a in enumerate(node.actions)} for node in self.solver.nodes]
        self._default: dict[int, FloatArray] = {}
        k = fmt.size
        self._digits = len(fmt.base.digits)
        self._pay = {key: fmt.payoff(*key) for node in self.solver.nodes for key in node.children
                     if isinstance(key, tuple)}
        self._k = k

    def own_value(self, seat: int) -> float:
        """``seat``'s value per round when the table plays every seat, that one included (exact, on the graph)."""
        return self.solver.value(seat, self.sigma)

    def default_values(self, seat: int) -> FloatArray:
        """Every node's value to ``seat`` [h0, h1, h2] when it plays the default continuation throughout."""
        if seat not in self._default:
            sigma = []
            for node, s in zip(self.solver.nodes, self.sigma, strict=True):
                if node.actor != seat:
                    sigma.append(s)
                    continue
                one = np.zeros_like(s)
                one[:, 0] = 1.0  # ANSWER when there is a standing bid, else the smallest bid: column 0 both ways
                sigma.append(one)
            self._default[seat] = self.solver.node_values(seat, sigma)
        return self._default[seat]

    # -- values ----------------------------------------------------------------------------------------
    def _candidates(self, i: int) -> list[int]:
        node = self.solver.nodes[i]
        out = [0] if node.actions[0] == ANSWER else []
        per_digit: dict[int, int] = {}
        for j, a in enumerate(node.actions):
            if a != ANSWER and per_digit.get(a % self._digits, 0) < 2:
                per_digit[a % self._digits] = per_digit.get(a % self._digits, 0) + 1
                out.append(j)
        return out

    def _value(self, child: int | tuple[int, int], seat: int, hand: int, belief: FloatArray, depth: int) -> float:
        """The exploiter's value (unnormalised by the belief's mass) after reaching ``child``."""
        if isinstance(child, tuple):  # a count: its units to the exploiter, holding its hand
            return float((np.take(self._pay[child][seat], hand, axis=seat) * belief).sum())
        if depth <= 0:
            return float((np.take(self.default_values(seat)[child], hand, axis=seat) * belief).sum())
        node = self.solver.nodes[child]
        if node.actor == seat:
            return max(self._value(node.children[j], seat, hand, belief, depth - 1) for j in self._candidates(child))
        axis = [p for p in range(3) if p != seat].index(node.actor)
        total = 0.0
        s = self.sigma[child]
        for j, nxt in enumerate(node.children):
            p = s[:, j]
            if not p.any():
                continue
            b = belief * (p[:, None] if axis == 0 else p[None, :])
            if b.sum() > 1e-12:
                total += self._value(nxt, seat, hand, b, depth)
        return total

    def decide(self, i: int, seat: int, hand: int, belief: FloatArray) -> int:
        """The column of the best candidate at node ``i``."""
        node = self.solver.nodes[i]
        best = max(self._candidates(i),
                   key=lambda j: self._value(node.children[j], seat, hand, belief, self.lookahead - 1))
        return best

    # -- play ------------------------------------------------------------------------------------------
    def play(self, rounds: int, seed: int = 1, seats: list[int] | None = None) -> TableLBRResult:
        """``rounds`` rounds, the exploiter's seat rotating over ``seats`` (default all; seat 0 opens)."""
        chosen = [0, 1, 2] if seats is None else seats
        rng = random.Random(f"table-lbr:{seed}")
        w = self.fmt.base.weights
        k = self._k
        result = TableLBRResult([[] for _ in range(3)], [[] for _ in range(3)], [[] for _ in range(3)],
                                self.solver.memory + 1)
        for seat in dict.fromkeys(chosen[:rounds]):  # before the defaults: one pass's values at a time in memory
            result.own[seat] = self.own_value(seat)
        for r in range(rounds):
            seat = chosen[r % len(chosen)]
            others = [p for p in range(3) if p != seat]
            hands = [rng.choices(range(k), weights=list(w))[0] for _ in range(3)]
            belief = np.outer(w, w)  # floored, as the exploiter of .approx holds it
            exact = belief.copy()  # the true posterior, for the expectation at the count
            i: int | tuple[int, int] = 0
            bids = 0
            while not isinstance(i, tuple):
                node = self.solver.nodes[i]
                if node.actor == seat:
                    j = self.decide(i, seat, hands[seat], belief / belief.sum())
                else:
                    probs = self.sigma[i][hands[node.actor]]
                    j = rng.choices(range(len(probs)), weights=list(probs))[0]
                    p = self.sigma[i][:, j]
                    shape = (k, 1) if others.index(node.actor) == 0 else (1, k)
                    belief = belief * np.maximum(p, LIKELIHOOD_FLOOR).reshape(shape)
                    exact = exact * p.reshape(shape)
                bids += node.actions[j] != ANSWER
                i = node.children[j]
            result.bids[seat].append(bids)
            pay = self._pay[i][seat]
            result.realised[seat].append(float(pay[tuple(hands)]))
            mine = np.take(pay, hands[seat], axis=seat)
            result.expected[seat].append(float((mine * exact).sum() / exact.sum()))
        return result
