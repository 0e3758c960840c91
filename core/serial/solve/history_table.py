"""The perfect-recall solver's average strategy as the small table ``core`` plays, and back.

:func:`table_from` rounds each node's mixture to thousandths (dropping probabilities under
``floor`` and renormalising), then keeps only the nodes and hands the strategy itself reaches with
positive probability under the rounded mixtures, whatever the opponent does.  :func:`policy_from`
turns a table back into the solver's [edge, hand] policy, so that the exploitability reported is
the shipped table's own.
"""

from __future__ import annotations

import numpy as np

from core.serial.players.solved import Row, table_players
from core.serial.players.solved_history import HistoryKey, HistoryTable, SolvedHistory

from .cfr_full import Graph, exploitability
from .format import FloatArray, Format

__all__ = ["history_table_of", "policy_from", "table_exploitability", "table_from"]


def _rounded(pol: FloatArray, graph: Graph, floor: float) -> FloatArray:
    """Each node's mixtures without the probabilities under ``floor``, in thousandths summing to 1000
    (largest remainders), as probabilities."""
    out = np.zeros_like(pol)
    for i in range(len(graph.keys)):
        lo, hi = graph.first[i], graph.first[i + 1]
        block = pol[lo:hi]
        if floor > 0:
            kept = np.where(block >= floor, block, 0.0)
            sums = kept.sum(axis=0)
            block = np.where(sums > 0, kept / np.where(sums > 0, sums, 1.0), block)
        raw = block / block.sum(axis=0) * 1000.0
        base = np.floor(raw)
        short = 1000 - base.sum(axis=0)
        rank = np.argsort(np.argsort(-(raw - base), axis=0, kind="stable"), axis=0, kind="stable")
        out[lo:hi] = (base + (rank < short)) / 1000.0
    return out


def _reached(pol: FloatArray, graph: Graph) -> np.ndarray:
    """[node, hand]: whether the actor there can hold that hand having played ``pol`` so far."""
    n, k = len(graph.keys), pol.shape[1]
    pos = np.zeros((n, 2, k), dtype=bool)
    pos[0] = True
    for i in range(n):
        a = graph.actor[i]
        for e in range(graph.first[i], graph.first[i + 1]):
            c = graph.child[e]
            if c >= 0:
                pos[c, a] |= pos[i, a] & (pol[e] > 0)
                pos[c, 1 - a] |= pos[i, 1 - a]
    return pos[np.arange(n), graph.actor]


def table_from(fmt: Format, graph: Graph, pol: FloatArray, memory: int, floor: float = 0.001) -> HistoryTable:
    rounded = _rounded(pol, graph, floor)
    reached = _reached(rounded, graph)
    entries: dict[HistoryKey, tuple[Row, ...]] = {}
    for i, (actor, phase, bids) in enumerate(graph.keys):
        if not reached[i].any():
            continue
        lo, hi = graph.first[i], graph.first[i + 1]
        rows: list[Row] = []
        for h in range(fmt.size):
            if not reached[i, h]:
                rows.append(())
                continue
            milli = np.rint(rounded[lo:hi, h] * 1000).astype(int)
            rows.append(tuple((int(graph.action[e]), int(milli[e - lo])) for e in range(lo, hi) if milli[e - lo] > 0))
        while rows and not rows[-1]:
            rows.pop()
        entries[(actor == 0, phase, bids)] = tuple(rows)
    return HistoryTable(fmt.rules.digits, fmt.rules.serial_length, fmt.rules.rebid, memory, entries)


def policy_from(fmt: Format, graph: Graph, table: HistoryTable) -> FloatArray:
    """The table as the solver's [edge, hand] policy (zero where it has no node or no row)."""
    pol = np.zeros((len(graph.child), fmt.size))
    for i, (actor, phase, bids) in enumerate(graph.keys):
        rows = table.entries.get((actor == 0, phase, bids))
        if rows is None:
            continue
        lo, hi = graph.first[i], graph.first[i + 1]
        col = {int(graph.action[e]): e for e in range(lo, hi)}
        for h, row in enumerate(rows):
            for action, p in row:
                pol[col[action], h] = p / 1000
    return pol


def table_exploitability(fmt: Format, table: HistoryTable, compiled: bool = True) -> tuple[float, float]:
    """What a best response earns against ``table`` in seat 0 and in seat 1 (the whole tree walked)."""
    from .cfr_full import build

    graph = build(fmt, table.memory)
    return exploitability(fmt, graph, policy_from(fmt, graph, table), compiled)


def history_table_of(strategy: object, fmt: Format) -> HistoryTable | None:
    """The history table ``strategy`` plays in ``fmt`` (``solver``, ``hard``), or None."""
    for s in table_players(strategy):
        if isinstance(s, SolvedHistory) and s.shape.fits(fmt.rules, 2):
            return s.history_table
    return None
