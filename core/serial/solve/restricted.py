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
* With ``compiled``, the same graph runs on :class:`~.cfr_multi.MultiSolver`'s compiled passes at 2 players
  (node for node the same graph, with ``threads``; ``single`` keeps its node values in float32): for 5×5,
  where an exploiter remembering two bids has 120,200 states and 15 GB of node values a pass in float64.
* Both strategies depend only on the node and the hand, so the graph carries the game exactly (the
  reach of merged histories adds up): the value of the learned exploiter against the table is
  computed **exactly**, not sampled.  It is a real strategy, so that value is a **lower bound** on the
  table's exploitability.  Remembering more, an exploiter *could* earn at least as much, but the search
  is not guaranteed to find it (in 2×2 one seat's figure dropped from memory 0 to 1 while the mean rose).

Pure: numpy arithmetic, no I/O, no randomness.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from core.serial.players.solved import SolvedTable, truncate_memory

from .cfr import Solver, table_rows
from .cfr_multi import MultiFormat, MultiSolver
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

    def learn(self, iterations: int, done: int = 0) -> None:
        for t in range(done + 1, done + iterations + 1):  # CFR+ iteration t updates the exploiter's seat only
            self.solver.update(self.seat, self._sigma(self.solver.current()), t)

    def value(self, average: bool) -> float:
        """The exploiter's units per round against the table (exact on the graph), playing its average
        strategy or its last one."""
        solver = self.solver
        own = list(solver.average().values()) if average else solver.current()
        root = solver.update(self.seat, self._sigma(own))
        return root if self.seat == 0 else -root


class _CompiledExploiter:
    """:class:`_Exploiter` on the compiled passes of :class:`~.cfr_multi.MultiSolver` at 2 players: strategies as
    [edge, hand] arrays, the table's rows written over the frozen seat's edges before every pass."""

    def __init__(self, fmt: Format, memory: int, table: SolvedTable, seat: int, threads: int, single: bool,
                 named: int = 0) -> None:
        self.solver = solver = MultiSolver(MultiFormat(fmt.rules, 2), memory, threads=threads, single=single,
                                           named=named)
        if solver.kernels is None:
            raise ValueError("the compiled restricted best response needs numba")
        self.seat = seat
        nbids, k = len(fmt.bids), fmt.size
        frozen: list[int] = []
        rows: list[FloatArray] = []
        for i, node in enumerate(solver.nodes):
            actor, standing, _, phase, is_rebid, prev = node.key
            if actor != seat:  # the table's key: (opener to act, standing, phase, rebid, its shorter memory)
                kept = truncate_memory(prev, table.memory, nbids)  # (named digits, packed above the bids, dropped)
                entry = table.entries[(actor == 0, standing, phase, bool(is_rebid), kept)]
                frozen.extend(range(int(solver.first[i]), int(solver.first[i + 1])))
                rows.append(table_rows(entry, node.actions, k).T)
        self._frozen = np.array(frozen, dtype=np.int64)
        self._fixed: FloatArray = np.concatenate(rows) if rows else np.zeros((0, k))
        self._sigma: FloatArray = np.empty_like(solver.regret)
        self._values = solver._values_buffer()

    def _pass(self, x: FloatArray, t: int = 0) -> float:
        """One pass with the exploiter playing ``x`` normalised (its regrets or its totals), the table elsewhere."""
        sigma = self.solver._normalised(x, self._sigma)
        sigma[self._frozen] = self._fixed
        return self.solver._fast_pass(self.seat, sigma, self._values, t=t)

    def learn(self, iterations: int, done: int = 0) -> None:
        for t in range(done + 1, done + iterations + 1):
            self._pass(self.solver.regret, t)

    def value(self, average: bool) -> float:
        """The exploiter's units per round (its own seat's value: the passes value every node to it)."""
        return self._pass(self.solver.total if average else self.solver.regret)


@dataclass(frozen=True)
class RestrictedResult:
    """What the learned exploiter earns against the table in each seat (seat 0 opens)."""

    seat_values: tuple[float, float]  # NaN in a seat not measured (``seats``)
    memory: int
    iterations: int
    table_digits: bool = False
    seats: tuple[int, ...] = (0, 1)  # the exploiter's seats measured

    @property
    def value(self) -> float:
        """The mean over the seats measured (both: the table's exploitability by this exploiter)."""
        return sum(self.seat_values[seat] for seat in self.seats) / len(self.seats)


def restricted_best_response(fmt: Format, table: SolvedTable, memory: int, iterations: int, *,
                             compiled: bool = False, threads: int = 1, single: bool = False, every: int = 0,
                             table_digits: bool = False, seats: tuple[int, ...] = (0, 1),
                             report: Callable[[int, int, float], None] | None = None) -> RestrictedResult:
    """Learn an exploiter remembering ``memory`` bids against ``table`` in each seat; its exact earnings.

    Each seat's figure is the better of the exploiter's average and last strategies (both real strategies).
    ``compiled``: on the compiled passes (``threads``; ``single``: node values in float32; ``table_digits``: the
    exploiter also remembers the digits the table's seat has named before the standing bid — what a table
    forgets of its own story — on the graph of :class:`~.cfr_multi.MultiSolver` with those named digits).
    ``every`` > 0: ``report(seat, iterations done, figure)`` every that many iterations before the last (two
    passes more each; the learning is the same); and with any ``every``, each seat's figure as that seat is done
    (in 5×5 a seat takes half an hour: the opening seat's figure need not wait for the answering seat's).
    ``seats``: the exploiter's seats to learn (the exploiter in seat 1 meets only the table's opening states: a
    table whose opening seat alone was solved anew is measured there alone); the others' figures are NaN."""
    if not table.fits(fmt.rules, 2):
        raise ValueError(f"the table is for {table.digits}×{table.serial_length}, not {fmt.rules.format_name}")
    if memory < table.memory:
        raise ValueError(f"the exploiter must remember at least the table's {table.memory} bids")
    if table_digits and not compiled:
        raise ValueError("an exploiter remembering the table's digits runs on the compiled passes")
    if not seats or any(seat not in (0, 1) for seat in seats) or len(set(seats)) != len(seats):
        raise ValueError(f"the exploiter sits in seat 0 (opening) or 1, or both, not {seats}")
    values = [math.nan, math.nan]
    for seat in sorted(seats):
        named = 1 << (1 - seat) if table_digits else 0  # the table's seat, as bits
        exploiter = (_CompiledExploiter(fmt, memory, table, seat, threads, single, named) if compiled
                     else _Exploiter(fmt, memory, table, seat))
        done = 0
        while every > 0 and report is not None and iterations - done > every:
            exploiter.learn(every, done)
            done += every
            report(seat, done, max(exploiter.value(average=True), exploiter.value(average=False)))
        exploiter.learn(iterations - done, done)
        values[seat] = max(exploiter.value(average=True), exploiter.value(average=False))
        if report is not None:
            report(seat, iterations, values[seat])
        del exploiter  # freed before the next seat's is built (in 5×5 remembering two bids: about 14 GB each)
    return RestrictedResult((values[0], values[1]), memory, iterations, table_digits, tuple(sorted(seats)))
