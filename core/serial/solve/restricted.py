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

from dataclasses import dataclass

from core.serial.players.solved import SolvedTable, truncate_memory

from .cfr import Solver, table_rows
from .format import FloatArray, Format

__all__ = ["RestrictedResult", "restricted_best_response"]


class _Exploiter:
    """CFR+ for seat ``seat`` only, on a :class:`~.cfr.Solver`'s graph; the other seat plays ``table`` (frozen)."""

    def __init__(self, fmt: Format, memory: int, table: SolvedTable, seat: int) -> None:
        self.solver = Solver(fmt, memory=memory)
        self.seat = seat
        nbids = len(fmt.bids)
        self._fixed: dict[int, FloatArray] = {}
        for i, node in enumerate(self.solver.nodes):
            if node.actor != seat:
                opener, standing, phase, rebid, prev = node.key
                kept = truncate_memory(prev, table.memory, nbids)  # the table's shorter memory
                rows = table.entries[(opener, standing, phase, rebid, kept)]
                self._fixed[i] = table_rows(rows, node.actions, fmt.size)

    def _sigma(self, own: list[FloatArray]) -> list[FloatArray]:
        """Every node's mixture: the table's where the frozen seat acts, ``own`` (per node) elsewhere."""
        return [self._fixed.get(i, mine) for i, mine in enumerate(own)]

    def learn(self, iterations: int) -> None:
        for t in range(1, iterations + 1):  # CFR+ iteration t updates the exploiter's seat only
            self.solver.update(self.seat, self._sigma(self.solver.current()), t)

    def value(self, average: bool) -> float:
        """The exploiter's units per round against the table (exact on the graph), playing its average
        strategy or its last one."""
        solver = self.solver
        own = list(solver.average().values()) if average else solver.current()
        root = solver.update(self.seat, self._sigma(own))
        return root if self.seat == 0 else -root


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
        exploiter = _Exploiter(fmt, memory, table, seat)
        exploiter.learn(iterations)
        values.append(max(exploiter.value(average=True), exploiter.value(average=False)))
    return RestrictedResult((values[0], values[1]), memory, iterations)
