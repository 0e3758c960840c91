"""A heads-up table solved against an exploiter that remembers more than it does.

The tables of :mod:`.cfr` and :class:`~.cfr_multi.MultiSolver` are solved in self-play: both seats remember the same
``memory`` bids.  What a best response takes from them is mostly what they forget (README, "What the tries
showed"), and self-play never meets a player who remembers more.  Here one seat's table remembers ``memory`` bids
and the other seat ``against`` bids (more): the graph is :class:`~.cfr_multi.MultiSolver`'s at ``against``, and
every node of the table's seat shares its regrets and its average with the nodes its shorter key merges it with —
CFR+ on the game in which the table forgets, each group's instantaneous regrets summed over its members before
regret matching+ (the usual way CFR runs on a game of imperfect recall: no guarantee, measured instead).  The
other seat plays the whole graph, so the table learns against a player who can hold it to what it forgot.

Each seat's table comes from a solve of its own (:class:`RobustSolver`: the table in seat 0 against an exploiter
in seat 1, and the other way round); :func:`robust_table` joins the two into one table of the usual kind, keyed
by ``memory`` bids, played as any other.  Heads-up 3×3 with the rebid right, by the exact best response after 200
iterations (uniform averages): the table remembering one bid gives up 0.0945 when solved in self-play, 0.0608
solved against an exploiter remembering two bids, 0.0290 against one remembering three (README, "Solved against a
player who remembers more").

Pure: numpy (and the compiled passes), no I/O.
"""

from __future__ import annotations

import numpy as np

from core.serial.players.solved import Row, SolvedTable, StateKey, truncate_memory
from core.serial.rules import Rules

from .cfr import drop_under, normalise_rows, thousandths_rows
from .cfr_multi import MultiFormat, MultiSolver
from .format import FloatArray

__all__ = ["RobustSolver", "robust_seat_table", "robust_table"]


class RobustSolver:
    """CFR+ for 2 players on :class:`~.cfr_multi.MultiSolver`'s graph at ``against`` bids, ``seat``'s regrets
    tied across the nodes that share its key at ``memory`` bids (see the module docstring).

    ``against`` = ``memory`` is self-play, every group a single node (the iterates
    :class:`~.cfr_multi.MultiSolver`'s up to rounding).  ``threads``, ``single`` (node values in float32) and
    ``uniform`` (every iterate alike in the average) are the solver's; ``values``: the node values' buffer of
    another solve of the same graph, shared (it is scratch for one pass at a time).  The state is the solver's
    ``regret`` and ``total``: the table's nodes hold their group's regrets, so those two arrays and its
    ``iterations`` restore it whole."""

    def __init__(self, rules: Rules, memory: int, against: int, seat: int, *, threads: int = 1,
                 single: bool = False, uniform: bool = False, values: FloatArray | None = None) -> None:
        if not 0 <= memory <= against:
            raise ValueError(f"the exploiter must remember at least the table's {memory} bids, not {against}")
        if seat not in (0, 1):
            raise ValueError(f"the table sits in seat 0 or 1, not {seat}")
        self.solver = solver = MultiSolver(MultiFormat(rules, 2), against, threads=threads, single=single,
                                           uniform=uniform)
        if solver.kernels is None:
            raise ValueError("the solve against an exploiter runs on the compiled passes: it needs numba")
        self.rules, self.memory, self.against, self.seat = rules, memory, against, seat
        nbids = len(solver.fmt.bids)
        groups: dict[tuple[int, int, int, int, int, int], int] = {}
        self.keys: list[tuple[tuple[int, int, int, int, int, int], list[int]]] = []  # each group's key, actions
        starts = [0]  # each group's first edge among the groups' edges
        members: list[int] = []  # every edge of the table's nodes
        slots: list[int] = []  # and its group's edge
        for i, node in enumerate(solver.nodes):
            if node.actor != seat:
                continue
            actor, standing, bidder, phase, is_rebid, prev = node.key
            key = (actor, standing, bidder, phase, is_rebid, truncate_memory(prev, memory, nbids))
            if key not in groups:
                groups[key] = len(groups)
                self.keys.append((key, node.actions))
                starts.append(starts[-1] + len(node.actions))
            lo = int(solver.first[i])
            members.extend(range(lo, lo + len(node.actions)))
            slots.extend(range(starts[groups[key]], starts[groups[key]] + len(node.actions)))
        order = np.argsort(np.array(slots, dtype=np.int64), kind="stable")  # the members by group's edge
        self._members = np.array(members, dtype=np.int64)[order]
        self._slot = np.array(slots, dtype=np.int64)[order]
        self._runs = np.flatnonzero(np.r_[True, self._slot[1:] != self._slot[:-1]])  # each group edge's first
        self._starts = starts
        if values is not None and (values.shape != (len(solver.nodes), solver.fmt.size ** 2)
                                   or values.dtype != solver.values_dtype):
            raise ValueError("a shared node values' buffer must be another solve's of the same graph and type")
        self._values = solver._values_buffer() if values is None else values
        self._sigma: FloatArray = np.empty_like(solver.regret)

    @property
    def values(self) -> FloatArray:
        return self._values

    @property
    def iterations(self) -> int:
        return self.solver.iterations

    def _group_regret(self) -> FloatArray:
        """The table's regrets, one row per group's edge (each member holds its group's)."""
        out: FloatArray = self.solver.regret[self._members[self._runs]]
        return out

    def iterate(self, count: int = 1) -> None:
        """``count`` CFR+ iterations: seat 0 then seat 1 updated, the table's members' regrets summed per group."""
        s = self.solver
        for _ in range(count):
            s.iterations += 1
            for seat in (0, 1):
                sigma = s._normalised(s.regret, self._sigma)
                if seat != self.seat:
                    s._fast_pass(seat, sigma, self._values, t=s._weight())
                    continue
                held = self._group_regret()
                s.regret[self._members] = 0.0  # the pass adds each member's instantaneous regrets, unclipped
                s._fast_pass(seat, sigma, self._values, t=s._weight(), floor=-np.inf)
                summed = np.add.reduceat(s.regret[self._members], self._runs, axis=0)
                s.regret[self._members] = np.maximum(held + summed, 0.0)[self._slot]

    def average(self) -> list[FloatArray]:
        """The table's average strategy, per group [hand, action] (in the order of :attr:`keys`)."""
        totals = np.add.reduceat(self.solver.total[self._members], self._runs, axis=0)
        return [normalise_rows(totals[lo:hi].T) for lo, hi in zip(self._starts[:-1], self._starts[1:], strict=True)]

    def entries(self, floor: float = 0.001) -> dict[StateKey, tuple[Row, ...]]:
        """The table's states as :class:`~core.serial.players.solved.SolvedTable` keys them, with their rows
        (actions under ``floor`` dropped, thousandths)."""
        out: dict[StateKey, tuple[Row, ...]] = {}
        for (key, actions), probs in zip(self.keys, self.average(), strict=True):
            actor, standing, _, phase, is_rebid, prev = key
            if floor > 0:
                probs = drop_under(probs, floor)
            out[(actor == 0, standing, phase, bool(is_rebid), prev)] = thousandths_rows(probs, actions)
        return out


def robust_table(solvers: tuple[RobustSolver, RobustSolver], floor: float = 0.001) -> SolvedTable:
    """One table from the solve with the table in seat 0 (its opener's states) and the one with it in seat 1."""
    first, second = solvers
    if (first.seat, second.seat) != (0, 1) or first.rules != second.rules or first.memory != second.memory:
        raise ValueError("the table is joined from its solves in seat 0 and in seat 1, of one format and memory")
    entries = {**first.entries(floor), **second.entries(floor)}
    rules = first.rules
    return SolvedTable(digits=rules.digits, serial_length=rules.serial_length, rebid=rules.rebid,
                       memory=first.memory, entries=entries)


def robust_seat_table(solver: RobustSolver, base: SolvedTable, floor: float = 0.001) -> SolvedTable:
    """``base`` with the states of ``solver``'s seat (the opener's for seat 0, the answerer's for seat 1) replaced
    by the solve's: one seat solved on its own.  The two seats' solves of :func:`robust_table` share nothing but
    scratch (each is the table in one seat against an exploiter in the other), so a seat solved alone is what it
    is in the joint solve, and an exploiter in the other seat meets only its states — half the time of the joint
    solve (not half its memory: the node values' buffer stays), and half of its measure."""
    rules = solver.rules
    if not base.fits(rules, 2) or base.memory != solver.memory:
        raise ValueError(f"the other seat's states come from a table for 2-player {rules.format_name} "
                         f"{'with' if rules.rebid else 'without'} the rebid right remembering {solver.memory} bids")
    opener = solver.seat == 0
    entries = {key: rows for key, rows in base.entries.items() if key[0] != opener}
    entries.update(solver.entries(floor))
    return SolvedTable(digits=rules.digits, serial_length=rules.serial_length, rebid=rules.rebid,
                       memory=solver.memory, entries=entries)
