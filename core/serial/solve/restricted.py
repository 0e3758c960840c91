"""A best response restricted to an abstraction: an exploiter learned by CFR+ against a frozen solved table.

The exact best response to a table (:mod:`.tree`) walks the whole public tree: fine in 3×3, hopeless in
5×5 (50 bids).  The local best response (:mod:`.approx`) plans only a couple of its own decisions
ahead, so it finds little of a table's leaks (in 3×3 it finds about a fifth of what the exact best
response wins against the abstract table: the README).  This measure sits between the two:

* The **exploiter** remembers its hand and the abstract public state of :mod:`.cfr` with ``memory``
  bids before the standing one — at least as much as the table remembers.
* The **table** is frozen: at every node where it acts, its mixture is read from the table under its
  own, shorter memory (the node's memory truncated).
* The exploiter's strategy is learned by CFR+ on that graph, the table's seat never updated (regret
  matching+ against a fixed opponent: the average converges to a best response within the
  abstraction, the one a player remembering that much can find).
* Both strategies depend only on the node and the hand, so the graph carries the game exactly (the
  reach of merged histories adds up): the value of the learned exploiter against the table is
  computed **exactly**, not sampled.  It is a real strategy, so that value is a **lower bound** on the
  table's exploitability.  Remembering more, an exploiter *could* earn at least as much, but the search
  is not guaranteed to find it (in 2×2 one seat's figure dropped from memory 0 to 1 while the mean rose).

Pure: numpy arithmetic, no I/O, no randomness.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.serial.players.solved import SolvedTable, truncate_memory

from .cfr import Solver, StateKey, _Node, normalise_rows
from .format import FloatArray, Format

__all__ = ["RestrictedResult", "restricted_best_response"]


@dataclass
class _Exploiter(Solver):
    """CFR+ for seat ``seat`` only; the other seat plays ``table`` (frozen)."""

    frozen: SolvedTable | None = None
    seat: int = 0
    use_average: bool = False
    _fixed: dict[StateKey, FloatArray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__post_init__()
        assert self.frozen is not None
        for node in self.nodes:
            if node.actor != self.seat:
                self._fixed[node.key] = self._frozen_rows(node, self.frozen)

    def _frozen_rows(self, node: _Node, table: SolvedTable) -> FloatArray:
        opener, standing, phase, rebid, prev = node.key
        kept = truncate_memory(prev, table.memory, len(self.fmt.bids))  # the table's shorter memory
        rows = table.entries[(opener, standing, phase, rebid, kept)]
        column = {action: j for j, action in enumerate(node.actions)}
        out = np.zeros((self.fmt.size, len(node.actions)))
        for h, row in enumerate(rows):
            for action, milli in row:
                out[h, column[action]] = milli / 1000
        return out

    def _current(self, node: _Node) -> FloatArray:  # type: ignore[override]
        if node.actor != self.seat:
            return self._fixed[node.key]
        if self.use_average:
            return normalise_rows(node.total)
        return Solver._current(node)

    def learn(self, iterations: int) -> None:
        if not hasattr(self, "_kids"):
            self._prepare()
        for _ in range(iterations):
            self.iterations += 1
            self._update(self.seat, self.iterations)

    def value(self, average: bool) -> float:
        """The exploiter's units per round against the table (exact on the graph), playing its average
        strategy or its last one.  The pass updates the table's seat's regrets, which are never read."""
        self.use_average = average
        self._update(1 - self.seat, self.iterations)
        self.use_average = False
        return self._root_value if self.seat == 0 else -self._root_value


@dataclass(frozen=True)
class RestrictedResult:
    """What the learned exploiter earns against the table in each seat (seat 0 opens)."""

    seat_values: tuple[float, float]
    memory: int
    iterations: int

    @property
    def value(self) -> float:
        return sum(self.seat_values) / 2


def restricted_best_response(fmt: Format, table: SolvedTable, memory: int, iterations: int) -> RestrictedResult:
    """Learn an exploiter remembering ``memory`` bids against ``table`` in each seat; its exact earnings.

    Each seat's figure is the better of the exploiter's average and last strategies (both real strategies)."""
    if not table.fits(fmt.rules, 2):
        raise ValueError(f"the table is for {table.digits}×{table.serial_length}, not {fmt.rules.format_name}")
    if memory < table.memory:
        raise ValueError(f"the exploiter must remember at least the table's {table.memory} bids")
    values = []
    for seat in (0, 1):
        exploiter = _Exploiter(fmt, memory=memory, frozen=table, seat=seat)
        exploiter.learn(iterations)
        values.append(max(exploiter.value(average=True), exploiter.value(average=False)))
    return RestrictedResult((values[0], values[1]), memory, iterations)
