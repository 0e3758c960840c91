"""The exact best response to a solved table, walked over the whole public tree (compiled when numba is there).

:mod:`core.serial.solve.best_response` walks the engine's own rounds and merges nodes whose opponent
hand distributions coincide.  Against a hand-dependent mixed strategy with memory (a CFR+ table
remembers the bid before the standing one) almost no two histories merge, and in 3×3 with the rebid
right the tree has 24,157,816 terminal histories: too many for Python.  Here the same recursion runs
over integers and arrays (:func:`walk`), so numba can compile it when it is installed (``pip install
numba``; a few seconds per seat in 3×3); without it the same function runs as plain Python (fine for
2×2 and 3×2, which is how the tests check it against the engine-driven best response).

The game, for 2 players in a format of ``B`` bids (index ``(q − 1) × D + rank position``): a node is
the standing bid ``s`` (−1 before the opening), its bidder, the phase (0: answering a bid; 1: the
bidder, challenged, decides between the count and a rebid), whether the standing bid is a rebid
(then a challenge is counted at once), and the bid before the standing one.  Seat 0 opens.  The
table's policy is a dense array over (opened, s + 1, phase, rebid, previous + 1, hand, action), with
action 0 the answer that is not a raise (challenge or count) and 1 + j a bid of index j.  A 2-player
table of the solver for 3 or more (:class:`~core.serial.players.solved_multi.MultiTable`) is walked the
same way, with the digits each seat has named when it remembers them (``named``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from core.serial.hands import hand_order
from core.serial.players.solved import Row, Solved, SolvedTable, table_players
from core.serial.players.solved_history import SolvedHistory
from core.serial.players.solved_multi import MultiTable
from core.serial.rules import Rules

from .format import FloatArray, Format

IntArray = npt.NDArray[np.int64]

__all__ = ["compiled", "multi_policy_tensor", "multi_table_exploitability", "policy_tensor", "table_exploitability",
           "table_of", "walk"]


def walk(s: int, bidder: int, phase: int, rebid: int, prev: int, to_act: int, reach: FloatArray, br: int,
         sid: IntArray, pol: FloatArray, pay: FloatArray, nbids: int, rebid_rule: int, memory: int, named: int,
         digits: int) -> FloatArray:
    """The best response's value per own hand class at a node, the table's hands weighted by ``reach``."""
    k = reach.shape[0]
    out = np.zeros(k)
    if reach.sum() <= 0.0:
        return out
    opponent = 1 - br
    if to_act == opponent:
        opened = 1 if opponent == 0 else 0
        row = pol[sid[opened, s + 1, phase, rebid, prev + 1]]  # [hand, action]
        if s >= 0:  # the answer: challenge (bidding) or count (deciding on a rebid)
            p = row[:, 0]
            if p.any():
                out += _answer(s, bidder, phase, rebid, prev, to_act, reach * p, br, sid, pol, pay, nbids,
                               rebid_rule, memory, named, digits)
        for j in range(s + 1, nbids):
            p = row[:, 1 + j]
            if p.any():
                out += _raise(j, s, bidder, phase, prev, to_act, reach * p, br, sid, pol, pay, nbids, rebid_rule,
                              memory, named, digits)
        return out
    best = np.full(k, -np.inf)
    if s >= 0:
        best = np.maximum(best, _answer(s, bidder, phase, rebid, prev, to_act, reach, br, sid, pol, pay, nbids,
                                        rebid_rule, memory, named, digits))
    for j in range(s + 1, nbids):
        best = np.maximum(best, _raise(j, s, bidder, phase, prev, to_act, reach, br, sid, pol, pay, nbids,
                                       rebid_rule, memory, named, digits))
    return best


def _answer(s: int, bidder: int, phase: int, rebid: int, prev: int, to_act: int, reach: FloatArray, br: int,
            sid: IntArray, pol: FloatArray, pay: FloatArray, nbids: int, rebid_rule: int, memory: int, named: int,
            digits: int) -> FloatArray:
    if phase == 0 and rebid_rule == 1 and rebid == 0:  # challenged all around: the bidder decides
        return walk(s, bidder, 1, 0, prev, bidder, reach, br, sid, pol, pay, nbids, rebid_rule, memory, named,
                    digits)
    # [own hand, the table's hand], to the best response; no ``@``: numba's matmul needs scipy's BLAS
    out: FloatArray = (pay[s, bidder] * reach).sum(axis=1)
    return out


def _raise(j: int, s: int, bidder: int, phase: int, prev: int, to_act: int, reach: FloatArray, br: int,
           sid: IntArray, pol: FloatArray, pay: FloatArray, nbids: int, rebid_rule: int, memory: int, named: int,
           digits: int) -> FloatArray:
    # push_memory(prev, s, memory, nbids) and, with named digits, pack_named's set: inline so that numba compiles it
    base = nbids + 1
    scale = base ** memory
    kept = (prev + 1) % scale  # the packed bids, + 1 (the whole of prev + 1 without named digits)
    digit_set = (prev + 1) // scale
    if s >= 0 and (named >> bidder) & 1 == 1:
        digit_set |= 1 << (bidder * digits + s % digits)
    bids = 0  # the new packed bids, + 1
    if memory > 0:
        bids = (s + 1) + base * (kept % base ** (memory - 1))
    return walk(j, to_act, 0, 1 if phase == 1 else 0, bids + scale * digit_set - 1, 1 - to_act, reach, br, sid, pol,
                pay, nbids, rebid_rule, memory, named, digits)


def policy_tensor(fmt: Format, table: SolvedTable) -> tuple[IntArray, FloatArray]:
    """The table as (state index by (opened, s + 1, phase, rebid, memory + 1), policy [state, hand, action]).

    Action 0 is the answer that is not a raise, 1 + j a bid of index j; unknown states index an
    all-zero policy (the table never reaches them)."""
    states = {(int(opened), s, phase, int(rebid), prev): rows
              for (opened, s, phase, rebid, prev), rows in table.entries.items()}
    return _tensor(fmt, states, (len(fmt.bids) + 1) ** table.memory, hand_order(table.digits, table.serial_length))


def multi_policy_tensor(fmt: Format, table: MultiTable) -> tuple[IntArray, FloatArray]:
    """:func:`policy_tensor` for a 2-player :class:`~core.serial.players.solved_multi.MultiTable` (keyed by the seat
    to act and the bidder, its memory with named digits above the bids: :func:`~.solved_multi.pack_named`)."""
    states = {(int(actor == 0), s, phase, rebid, prev): rows
              for (actor, s, _, phase, rebid, prev), rows in table.entries.items()}
    size = (len(fmt.bids) + 1) ** table.memory << (2 * table.digits if table.named else 0)
    return _tensor(fmt, states, size, hand_order(table.digits, table.serial_length))


def _tensor(fmt: Format, states: dict[tuple[int, int, int, int, int], tuple[Row, ...]], memories: int,
            order: dict[tuple[int, ...], int]) -> tuple[IntArray, FloatArray]:
    nbids, k = len(fmt.bids), fmt.size
    sid = np.zeros((2, nbids + 1, 2, 2, memories), dtype=np.int64)
    pol = np.zeros((len(states) + 1, k, nbids + 1))
    rows_of = [order[h] for h in fmt.hands]  # the format's hand classes in the table's order
    for i, ((opened, s, phase, rebid, prev), rows) in enumerate(states.items(), start=1):
        for h in range(k):
            for action, p in rows[rows_of[h]]:
                pol[i, h, 0 if action == -1 else 1 + action] += p / 1000
        sid[opened, s + 1, phase, rebid, prev + 1] = i
    return sid, pol


def _payoffs(fmt: Format, br: int) -> FloatArray:
    """[bid, bidder, hand of the best response, hand of the table]: units to the best response."""
    nbids, k = len(fmt.bids), fmt.size
    pay = np.zeros((nbids, 2, k, k))
    for b in range(nbids):
        for bidder in (0, 1):
            m = fmt.payoff(b, bidder)  # [hand of seat 0, hand of seat 1], to seat 0
            pay[b, bidder] = m if br == 0 else -m.T
    return pay


_COMPILED: Callable[..., FloatArray] | None = None


def compiled() -> Callable[..., FloatArray] | None:
    """The walk compiled by numba (all three functions), or None when numba is not installed."""
    global _COMPILED
    if _COMPILED is not None:
        return _COMPILED
    try:
        import numba  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    g: dict[str, Any] = {"np": np, "FloatArray": FloatArray, "IntArray": IntArray}
    jit = numba.njit(cache=False)
    # Recompile the three mutually recursive functions in one namespace, each calling the others' jitted forms.
    import inspect
    import textwrap

    source = "\n\n".join(textwrap.dedent(inspect.getsource(f)) for f in (walk, _answer, _raise))
    exec(compile(source, __file__, "exec"), g)  # our own three functions, so that numba compiles them together
    for name in ("walk", "_answer", "_raise"):
        g[name] = jit(g[name])
    _COMPILED = g["walk"]
    return _COMPILED


def table_exploitability(fmt: Format, table: SolvedTable, *, fast: bool = True) -> tuple[float, float]:
    """What a best response earns against ``table`` in seat 0 and in seat 1 (units per round, stake 1)."""
    if not table.fits(fmt.rules, 2):
        raise ValueError(f"the table is for {table.digits}×{table.serial_length}, not {fmt.rules.format_name}")
    return _values(fmt, policy_tensor(fmt, table), table.memory, 0, fast)


def multi_table_exploitability(fmt: Format, table: MultiTable, *, fast: bool = True) -> tuple[float, float]:
    """:func:`table_exploitability` for a 2-player :class:`~core.serial.players.solved_multi.MultiTable`, with or
    without named digits (not with the opening)."""
    if not table.fits(fmt.rules, 2) or table.opening:
        raise ValueError(f"the table is not a 2-player {fmt.rules.format_name} one without the opening")
    return _values(fmt, multi_policy_tensor(fmt, table), table.memory, table.named, fast)


def _values(fmt: Format, tensor: tuple[IntArray, FloatArray], memory: int, named: int,
            fast: bool) -> tuple[float, float]:
    sid, pol = tensor
    fn = compiled() if fast else None
    run = fn if fn is not None else walk
    nbids, rebid_rule = len(fmt.bids), int(fmt.rules.rebid)
    values = []
    for br in (0, 1):
        v = run(-1, 0, 0, 0, -1, 0, fmt.weights.copy(), br, sid, pol, _payoffs(fmt, br), nbids, rebid_rule,
                memory, named, fmt.rules.digits)
        values.append(float(fmt.weights @ v))
    return values[0], values[1]


def table_of(strategy: object, rules: Rules) -> SolvedTable | None:
    """The abstract solved table ``strategy`` plays in 2-player ``rules`` (``solver``, ``hard``), or None.

    A history table (:mod:`core.serial.solve.history_table`) comes first where there is one: check that first."""
    for s in table_players(strategy):
        if isinstance(s, Solved) and not isinstance(s, SolvedHistory) and s.shape.fits(rules, 2):
            return s.table
    return None
