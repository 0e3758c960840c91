"""CFR+ for 3 or more players in a small format, vectorised over every seat's hand class on abstract public states.

:mod:`.cfr` solves heads-up formats on abstract public states with values as matrices over the two
hands.  Here the same method runs at a table of ``n`` ≥ 3 players (3-player 3×3: 10 hand classes a
seat, so a node's value is a 10 × 10 × 10 tensor); at 2 players its graph and iterates are :mod:`.cfr`'s,
so its compiled passes serve heads-up solves too (:func:`heads_up_table`).  The abstract state (a
:data:`MultiKey`) is what a player remembers at its decision, seats counted clockwise from the opener
(seat 0):

* the seat to act, the standing bid's index (−1 before the opening) and its bidder's seat (−1);
* the phase (0: bidding; 1: the bidder, challenged all around, chooses between the count and a
  rebid) and whether the standing bid is a rebid (challenged all around, it is counted at once);
* the last ``memory`` bids before the standing one (packed as
  :func:`~core.serial.players.solved.pack_memory` packs them), or with ``opening`` the last
  ``memory`` − 1 and the round's opening bid (:func:`~core.serial.players.solved_multi.opening_memory`);
  with ``named`` (seats as bits), also the digits each of those seats has named in the bids before the
  standing one (:func:`~core.serial.players.solved_multi.pack_named`).

Who has challenged the standing bid follows: in ``all`` mode the challenges since a bid are the
seats between its bidder and the seat to act, and the bid is challenged all around when the turn
comes back to the bidder (RULES.md "Turns and challenges"; :mod:`core.serial.round`).  Histories that
share an abstract state share a node, so the graph is small (5,165 nodes in 3-player 3×3 at memory
1).  Merged histories are handled exactly for the game in which players remember only that much:
for the seat being updated each node keeps the *joint* reach of the others' hands (a tensor over
their classes, chance included; the others' reaches do not factor once histories merge) and the
seat's own reach; values flow backward per seat as tensors over all hands.

Each iteration is CFR+ (regret matching+, alternating updates seat by seat, linear averaging; with
``uniform``, every iterate weighs alike in the average: on tables that forget bids, a game of imperfect
recall where CFR+ has no guarantee, that average gave the best response less heads up in 3×3 and 5×5, and at
3 players once solved on to 1,200 iterations (not at 400) — README, "Averaging the iterates").  With
three players CFR has no convergence guarantee to a Nash equilibrium, so :meth:`MultiSolver.gains`
measures what a best response *within the abstraction* (a pure strategy keyed by the same state and
its hand, built greedily bottom-up) earns against the average strategy in each seat: a real
strategy, so a lower bound on the table's exploitability in that seat.

The passes run over flat arrays (:class:`MultiSolver`'s ``first``/``child``/``term``, regrets and
totals as [edge, hand]) in one kernel compiled by numba when it is installed (:func:`multi_kernels`;
in 3-player 3×3 at memory 2, several times faster than the numpy loop over nodes); without numba,
or with ``compiled=False``, the numpy pass over nodes (:meth:`MultiSolver._pass`) runs instead, and
it is the reference the tests hold the kernel to.  Pure: numpy (and numba), no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from core.serial.bids import Bid
from core.serial.players.solved import SolvedTable, push_memory, table_players
from core.serial.players.solved_multi import (
    MultiKey,
    MultiTable,
    SolvedMulti,
    named_bit,
    pack_named,
    push_opening_memory,
    split_named,
)
from core.serial.rules import Rules
from core.serial.scoring import score
from core.serial.serials import Serial

from .cfr import ANSWER, drop_under, normalise_rows, split_children, table_rows, thousandths_rows
from .cfr_full import current_strategy, jit_kernels
from .format import FloatArray, Format

__all__ = ["ANSWER", "MultiFormat", "MultiSolver", "heads_up_table", "multi_kernels", "table_of", "table_policy"]

IntArray = npt.NDArray[np.int64]

_LETTERS = "abcdefghij"


@dataclass(frozen=True)
class MultiFormat:
    """The ``players``-seat game under ``rules`` in a small format: hand classes, bids, payoffs."""

    rules: Rules
    players: int
    _payoff: dict[tuple[int, int], FloatArray] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def base(self) -> Format:
        """The hand classes (what a seat sees of its serial), their weights and representatives."""
        return Format(self.rules)

    @property
    def size(self) -> int:
        return self.base.size

    @cached_property
    def bids(self) -> tuple[Bid, ...]:
        """Every bid at this table, ascending: index ``(q − 1) × D + rank position``, q up to L × n."""
        order = self.rules.rank_order
        top = self.rules.serial_length * self.players
        return tuple(Bid(q, d, order) for q in range(1, top + 1) for d in self.base.digits)

    def payoff(self, bid_index: int, bidder: int) -> FloatArray:
        """Units (stake 1) to every seat when ``bids[bid_index]`` by ``bidder`` is counted: [seat, hand, …, hand].

        From the engine's :func:`~core.serial.scoring.score` on representative serials; a payoff
        depends on the hands only through each seat's copies of the bid's digit, so each such
        combination is scored once."""
        key = (bid_index, bidder)
        if key not in self._payoff:
            n, k = self.players, self.size
            bid = self.bids[bid_index]
            seats = tuple(f"p{i}" for i in range(n))
            copies = [h[self.base.digits.index(bid.digit)] for h in self.base.hands]
            seen: dict[tuple[int, ...], list[int]] = {}
            out = np.zeros((n,) + (k,) * n)
            for combo in np.ndindex(*(k,) * n):
                held = tuple(copies[h] for h in combo)
                if held not in seen:
                    serials: Mapping[str, Serial] = {seats[i]: self.base.serials[h] for i, h in enumerate(combo)}
                    net = score(self.rules, seats, serials, bid, seats[bidder], 1, ()).net
                    seen[held] = [net[s] for s in seats]
                out[(slice(None), *combo)] = seen[held]
            out.setflags(write=False)
            self._payoff[key] = out
        return self._payoff[key]


@dataclass(slots=True)
class _Node:
    key: MultiKey
    actor: int
    actions: list[int]  # bid indices, or ANSWER
    children: list[int | tuple[int, int]]  # node index, or a count: (bid index, bidder seat)
    regret: FloatArray
    total: FloatArray


def _order(key: MultiKey, n: int) -> tuple[int, int, int]:
    """A topological order: by standing bid, then bidding before the rebid choice, then challenges so far."""
    actor, standing, bidder, phase, _, _ = key
    return (standing, phase, (actor - bidder - 1) % n)


# -- the compiled pass (plain Python without numba) -----------------------------------------------------
prange = range  # numba.prange where the pass is compiled with parallel=True (:func:`multi_kernels`)


def _thread_id() -> int:
    """This thread's slot in the scratch arrays: 0 here, numba.get_thread_id() where compiled."""
    return 0


def _multi_node(i: int, seat: int, t: float, respond: bool, floor: float, n: int, k: int, actor: IntArray,
                first: IntArray, child: IntArray, term: IntArray, pay: FloatArray, sigma: FloatArray,
                regret: FloatArray, total: FloatArray, reach: FloatArray, own: FloatArray, values: FloatArray,
                cv: FloatArray, strat: FloatArray) -> None:
    """One node of :func:`_multi_pass`'s backward sweep: ``values[i]`` from its children's values, and at
    the seat's own node with ``t`` > 0 its regrets (kept at ``floor`` or above: 0 for CFR+) and average too
    (``cv``, ``strat``: [action, hand])."""
    big = values.shape[1]
    a = actor[i]
    lo, hi = first[i], first[i + 1]
    post = k ** (n - 1 - a)  # the actor's stride in the joint hand
    pre = big // (post * k)
    v = values[i]
    v[:] = 0.0
    if a == seat and t > 0.0 and not respond:  # the counterfactual values and the node's value in one sweep
        for e in range(lo, hi):
            c = child[e]
            mat = values[c] if c >= 0 else pay[term[e], seat]
            if post == 1:  # the seat's hand varies fastest
                for h in range(k):
                    cv[e - lo, h] = 0.0
                for x in range(pre):
                    q = reach[i, x]
                    for h in range(k):
                        cv[e - lo, h] += mat[x * k + h] * q
                        v[x * k + h] += sigma[e, h] * mat[x * k + h]
                continue
            for h in range(k):
                p = sigma[e, h]
                s = 0.0
                for x in range(pre):
                    base = (x * k + h) * post
                    for r in range(post):
                        s += mat[base + r] * reach[i, x * post + r]
                        v[base + r] += p * mat[base + r]
                cv[e - lo, h] = s
        for h in range(k):
            s = 0.0
            for e in range(lo, hi):
                s += sigma[e, h] * cv[e - lo, h]
            for e in range(lo, hi):
                regret[e, h] = max(regret[e, h] + cv[e - lo, h] - s, floor)
                total[e, h] += t * own[i, h] * sigma[e, h]
        return
    for e in range(lo, hi):
        for h in range(k):
            strat[e - lo, h] = sigma[e, h]
    if a == seat and respond:
        for e in range(lo, hi):
            c = child[e]
            mat = values[c] if c >= 0 else pay[term[e], seat]
            for h in range(k):
                s = 0.0
                for x in range(pre):
                    base = (x * k + h) * post
                    for r in range(post):
                        s += mat[base + r] * reach[i, x * post + r]
                cv[e - lo, h] = s
        for h in range(k):
            best = 0
            for j in range(1, hi - lo):
                if cv[j, h] > cv[best, h]:
                    best = j
            for j in range(hi - lo):
                strat[j, h] = 1.0 if j == best else 0.0
    for e in range(lo, hi):
        played = False
        for h in range(k):
            if strat[e - lo, h] != 0.0:
                played = True
        if not played:  # adds nothing: its child's values are not read
            continue
        c = child[e]
        mat = values[c] if c >= 0 else pay[term[e], seat]
        if post == 1:
            for x in range(pre):
                for h in range(k):
                    v[x * k + h] += strat[e - lo, h] * mat[x * k + h]
        else:
            for x in range(pre):
                for h in range(k):
                    p = strat[e - lo, h]
                    base = (x * k + h) * post
                    for r in range(post):
                        v[base + r] += p * mat[base + r]


def _multi_pass(seat: int, t: float, respond: bool, floor: float, n: int, k: int, actor: IntArray, first: IntArray,
                child: IntArray, term: IntArray, pay: FloatArray, w: FloatArray, sigma: FloatArray,
                regret: FloatArray, total: FloatArray, reach: FloatArray, own: FloatArray, values: FloatArray,
                cv: FloatArray, strat: FloatArray, level: IntArray, order: IntArray) -> float:
    """:meth:`MultiSolver._pass` over flat arrays: ``sigma``, ``regret``, ``total`` [edge, hand]; ``pay``
    [count, seat, joint hand]; ``reach`` [node, the others' joint hand]; ``own`` [node, hand]; ``values``
    [node, joint hand] (C order, seat 0 the slowest); ``cv`` and ``strat`` [thread, action, hand] scratch.
    The backward sweep goes level by level (``order[level[j]:level[j + 1]]``: the nodes whose longest
    path to a count has ``j`` actions), so a level's nodes read only finished values and may run on
    several threads (``prange``); each node's arithmetic is the same in any order, so the sequential
    and the parallel kernel agree bit for bit.  Returns the seat's value per round."""
    nodes = first.shape[0] - 1
    big = values.shape[1]
    small = reach.shape[1]
    reach[:, :] = 0.0
    own[:, :] = 0.0
    for m in range(small):  # the others' joint reach at the root: the deal
        r = 1.0
        q = m
        for _ in range(n - 1):
            r *= w[q % k]
            q //= k
        reach[0, m] = r
    own[0, :] = 1.0
    for i in range(nodes):
        a = actor[i]
        if a == seat:
            for e in range(first[i], first[i + 1]):
                c = child[e]
                if c >= 0:
                    for h in range(k):
                        own[c, h] += own[i, h] * sigma[e, h]
                    for m in range(small):
                        reach[c, m] += reach[i, m]
        else:
            post = k ** (n - 2 - (a if a < seat else a - 1))  # the actor's stride among the others' hands
            pre = small // (post * k)
            for e in range(first[i], first[i + 1]):
                c = child[e]
                if c >= 0:
                    for h in range(k):
                        own[c, h] += own[i, h]
                    for x in range(pre):
                        for h in range(k):
                            p = sigma[e, h]
                            if p != 0.0:
                                base = (x * k + h) * post
                                for r in range(post):
                                    reach[c, base + r] += reach[i, base + r] * p
    for j in range(level.shape[0] - 1):
        for at in prange(level[j], level[j + 1]):
            slot = _thread_id()
            _multi_node(order[at], seat, t, respond, floor, n, k, actor, first, child, term, pay, sigma, regret,
                        total, reach, own, values, cv[slot], strat[slot])
    spost = k ** (n - 1 - seat)  # the seat's stride in the joint hand
    spre = big // (spost * k)
    out = 0.0
    for x in range(spre):
        for h in range(k):
            base = (x * k + h) * spost
            for r in range(spost):
                out += values[0, base + r] * w[h] * reach[0, x * spost + r]
    return out


_KERNELS: dict[str, Callable[..., Any]] = {}


def multi_kernels(compiled: bool = True) -> dict[str, Callable[..., Any]] | None:
    """``current`` (regret matching+ over [edge, hand]), ``pass_`` (:func:`_multi_pass`) and ``pass_parallel``
    (the same on numba's threads) compiled by numba, and ``threads`` (numba.set_num_threads), or None when
    numba is not installed or not ``compiled`` (the numpy pass runs instead).  Each is compiled on first use."""
    if not compiled:
        return None
    if _KERNELS:
        return _KERNELS
    jitted = jit_kernels((_multi_pass,), (_multi_node, current_strategy), parallel=(_multi_pass,))
    if jitted is None:
        return None
    import numba  # type: ignore[import-not-found,unused-ignore]

    _KERNELS.update(current=jitted["current_strategy"], pass_=jitted["_multi_pass"],
                    pass_parallel=jitted["_multi_pass_parallel"], threads=numba.set_num_threads)
    return _KERNELS


class MultiSolver:
    """CFR+ over the abstract public states of ``fmt`` (see the module docstring).

    ``regret`` and ``total`` are [edge, hand] arrays, a node's edges ``first[i]`` … ``first[i + 1]`` − 1 in
    the order of its actions; each node's ``regret`` and ``total`` ([hand, action]) are views of them."""

    def __init__(self, fmt: MultiFormat, memory: int = 1, compiled: bool = True, threads: int = 1,
                 opening: bool = False, named: int = 0, single: bool = False, uniform: bool = False) -> None:
        if threads < 1:
            raise ValueError(f"threads must be at least 1, not {threads}")
        if not 0 <= named < 1 << fmt.players:
            raise ValueError(f"named digits are kept for seats 0 to {fmt.players - 1} (bits), not {named}")
        self.fmt = fmt
        self.memory = memory
        self.opening = opening  # the opening remembered in place of the oldest bid (MultiTable.opening)
        self.named = named  # the seats whose named digits are remembered (MultiTable.named)
        self.uniform = uniform  # the average weighs every iterate alike (CFR+'s own: iterate t weighs t)
        self.iterations = 0
        self.nodes: list[_Node] = []
        self._build()
        self._prepare()
        self.kernels = multi_kernels(compiled)
        self.threads = threads if self.kernels is not None else 1  # the compiled passes' threads (numba's)
        if self.threads > 1:
            assert self.kernels is not None
            self.kernels["threads"](self.threads)
        self._buffers: tuple[FloatArray, FloatArray, FloatArray] | None = None
        # ``single``: the compiled passes keep node values (and the payoffs they start from) in float32, half
        # the memory of the largest array ([node, joint hand]: 15 GB a pass for 120,000 heads-up 5×5 states);
        # sums, reaches, regrets and averages stay float64
        self.values_dtype: type[np.floating[Any]] = np.float32 if single and self.kernels is not None else np.float64

    # -- the graph -------------------------------------------------------------------------------------
    def _build(self) -> None:
        n, nbids = self.fmt.players, len(self.fmt.bids)
        rebid_rule = self.fmt.rules.rebid
        specs: dict[MultiKey, tuple[list[int], list[MultiKey | tuple[int, int]]]] = {}
        pending: list[MultiKey] = [(0, -1, -1, 0, 0, -1)]
        while pending:
            key = pending.pop()
            if key in specs:
                continue
            actor, s, bidder, phase, is_rebid, prev = key
            push = push_opening_memory if self.opening else push_memory
            if self.named:
                bids, named = split_named(prev, self.memory, nbids)
                if s >= 0 and self.named >> bidder & 1:
                    named |= named_bit(bidder, s, self.fmt.rules.digits)
                remember = pack_named(push(bids, s, self.memory, nbids), named, self.memory, nbids)
            else:
                remember = push(prev, s, self.memory, nbids)
            nxt = (actor + 1) % n
            actions: list[int] = []
            children: list[MultiKey | tuple[int, int]] = []
            if s >= 0:
                actions.append(ANSWER)
                if phase == 1:
                    children.append((s, bidder))
                elif nxt != bidder:
                    children.append((nxt, s, bidder, 0, is_rebid, prev))
                elif rebid_rule and not is_rebid:
                    children.append((bidder, s, bidder, 1, 0, prev))
                else:
                    children.append((s, bidder))
            for b in range(s + 1, nbids):
                actions.append(b)
                children.append((nxt, b, actor, 0, phase, remember))
            specs[key] = (actions, children)
            pending.extend(c for c in children if len(c) == 6 and c not in specs)
        order = sorted(specs, key=lambda key: _order(key, n))
        index = {key: i for i, key in enumerate(order)}
        k = self.fmt.size
        edges = sum(len(specs[key][0]) for key in order)
        self.regret: FloatArray = np.zeros((edges, k))
        self.total: FloatArray = np.zeros((edges, k))
        lo = 0
        for key in order:
            actions, children = specs[key]
            kids: list[int | tuple[int, int]] = [index[c] if len(c) == 6 else c for c in children]
            hi = lo + len(actions)
            self.nodes.append(_Node(key, key[0], actions, kids, self.regret[lo:hi].T, self.total[lo:hi].T))
            lo = hi

    def _prepare(self) -> None:
        """The graph as flat arrays for the kernel (each action's child node, or its count as an index into the
        payoff tensors), and the nodes by level (the longest path to a count)."""
        counts: dict[tuple[int, int], int] = {}
        first, child, term = [0], [], []
        height = [0] * len(self.nodes)  # the longest path to a count, in actions
        for node in self.nodes:
            for c in node.children:
                if isinstance(c, int):
                    child.append(c)
                    term.append(-1)
                else:
                    child.append(-1)
                    term.append(counts.setdefault(c, len(counts)))
            first.append(len(child))
        for i in range(len(self.nodes) - 1, -1, -1):
            kids = [c for c in self.nodes[i].children if isinstance(c, int)]
            if kids:
                assert min(kids) > i  # the topological order: a node's children come after it
                height[i] = max(height[c] for c in kids) + 1
        n, k = self.fmt.players, self.fmt.size
        self._counts = counts
        self._pay: FloatArray = (np.stack([self.fmt.payoff(*c) for c in counts]) if counts
                                 else np.zeros((0, n) + (k,) * n))
        self.first = np.array(first, dtype=np.int64)
        self.child = np.array(child, dtype=np.int64)
        self.term = np.array(term, dtype=np.int64)
        self.actor = np.array([node.actor for node in self.nodes], dtype=np.int64)
        self.order = np.argsort(np.array(height), kind="stable").astype(np.int64)  # by level, each level by index
        self.level = np.concatenate(([0], np.cumsum(np.bincount(height)))).astype(np.int64)

    @cached_property
    def _split(self) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[tuple[np.ndarray, np.ndarray]]]:
        """Per node, for the numpy pass: the actions leading to nodes (columns, node indices) and to counts
        (columns, indices into the payoff tensors)."""
        kids_of, terms_of = [], []
        for node in self.nodes:
            cols, kids, tcols, terminals = split_children(node.children)
            kids_of.append((cols, kids))
            terms_of.append((tcols, np.array([self._counts[c] for c in terminals], dtype=int)))
        return kids_of, terms_of

    def restore(self, regret: FloatArray, total: FloatArray, iterations: int) -> None:
        """Continue from a saved state: ``regret`` and ``total`` as :attr:`regret` and :attr:`total` were
        after ``iterations`` iterations (on the same format and memory)."""
        if regret.shape != self.regret.shape or total.shape != self.total.shape:
            raise ValueError(f"a saved state of shape {regret.shape} does not fit this graph {self.regret.shape}")
        self.regret[...] = regret
        self.total[...] = total
        self.iterations = iterations

    # -- strategies ------------------------------------------------------------------------------------
    def current(self) -> list[FloatArray]:
        """The current strategy (regret matching+), per node [hand, action]."""
        return [normalise_rows(np.maximum(node.regret, 0.0)) for node in self.nodes]

    def average(self) -> list[FloatArray]:
        """The average strategy (linear averaging, or uniform), per node [hand, action]."""
        return [normalise_rows(node.total) for node in self.nodes]

    def _flat(self, sigma: list[FloatArray]) -> FloatArray:
        """A strategy per node [hand, action] as one [edge, hand] array."""
        out: FloatArray = np.ascontiguousarray(np.concatenate([s.T for s in sigma]), dtype=np.float64)
        return out

    # -- one pass for one seat -------------------------------------------------------------------------
    def _pass(
        self, seat: int, sigma: list[FloatArray], *, t: int = 0, respond: bool = False, floor: float = 0.0
    ) -> tuple[float, FloatArray]:
        """Forward reaches and backward values for ``seat``: its value per round (stake 1), and every
        node's value to it [node, hand, …, hand].

        ``t`` > 0: update the seat's regrets (kept at ``floor`` or above: 0 is regret matching+; −∞ adds each
        node's instantaneous regrets as they are), and its average with this iterate weighing ``t``.
        ``respond``: the seat plays the greedy best response within the abstraction instead of ``sigma``.  The
        numpy reference; :meth:`_fast_pass` is the same in the compiled kernel."""
        nodes, n, k = self.nodes, self.fmt.players, self.fmt.size
        w = self.fmt.base.weights
        others = [p for p in range(n) if p != seat]
        letters = _LETTERS[:n]
        mine, theirs = letters[seat], "".join(letters[p] for p in others)
        reach = np.zeros((len(nodes),) + (k,) * (n - 1))  # the others' joint reach, chance included
        own = np.zeros((len(nodes), k))
        reach[0] = _outer([w] * (n - 1))
        own[0] = 1.0
        kids_of, terms_of = self._split
        for i, node in enumerate(nodes):
            cols, kids = kids_of[i]
            if not len(kids):
                continue
            p = sigma[i][:, cols].T  # [child, hand of the actor]
            if node.actor == seat:
                own[kids] += own[i][None, :] * p
                reach[kids] += reach[i][None]
            else:
                axis = others.index(node.actor)
                shape = (len(kids),) + (1,) * axis + (k,) + (1,) * (n - 2 - axis)
                own[kids] += own[i][None, :]
                reach[kids] += reach[i][None] * p.reshape(shape)
        values = np.zeros((len(nodes),) + (k,) * n)
        for i in range(len(nodes) - 1, -1, -1):
            node = nodes[i]
            s = sigma[i]
            mats = np.empty((len(node.actions),) + (k,) * n)
            cols, kids = kids_of[i]
            if len(kids):
                mats[cols] = values[kids]
            tcols, terms = terms_of[i]
            if len(tcols):
                mats[tcols] = self._pay[terms, seat]
            if node.actor == seat and (respond or t > 0):
                cv = np.einsum(f"z{letters},{theirs}->{mine}z", mats, reach[i])
                if respond:
                    best = np.argmax(cv, axis=1)
                    s = np.zeros_like(s)
                    s[np.arange(k), best] = 1.0
                else:
                    node.regret[...] = np.maximum(node.regret + cv - (s * cv).sum(axis=1, keepdims=True), floor)
                    node.total += t * own[i][:, None] * s
            values[i] = np.einsum(f"{letters[node.actor]}z,z{letters}->{letters}", s, mats)
        value = float(np.einsum(f"{letters},{theirs}->", values[0] * w.reshape(_axis(seat, n, k)), reach[0]))
        return value, values

    def _fast_pass(self, seat: int, sigma: FloatArray, values: FloatArray, *, t: int = 0,
                   respond: bool = False, floor: float = 0.0) -> float:
        """:meth:`_pass` in the compiled kernel: ``sigma`` [edge, hand], every node's value to the seat
        written into ``values`` [node, joint hand]."""
        assert self.kernels is not None
        n, k = self.fmt.players, self.fmt.size
        if self._buffers is None:
            widest = int(np.diff(self.first).max())
            self._buffers = (np.zeros((len(self.nodes), k ** (n - 1))), np.zeros((len(self.nodes), k)),
                             np.zeros((2, self.threads, widest, k)))  # a thread's scratch: its own slot
        reach, own, scratch = self._buffers
        if self.threads > 1:  # numba's count is the process's: another solver may have changed it since
            self.kernels["threads"](self.threads)  # (a thread's slot must stay below self.threads)
        value: float = self.kernels["pass_parallel" if self.threads > 1 else "pass_"](
            seat, float(t), respond, floor, n, k, self.actor, self.first, self.child, self.term,
            self._kernel_pay, self.fmt.base.weights, sigma, self.regret, self.total,
            reach, own, values, scratch[0], scratch[1], self.level, self.order)
        return value

    @cached_property
    def _kernel_pay(self) -> FloatArray:
        """The payoff tensors as the kernel reads them: [count, seat, joint hand], in the node values' type."""
        n, k = self.fmt.players, self.fmt.size
        return np.ascontiguousarray(self._pay.reshape(len(self._pay), n, k ** n), dtype=self.values_dtype)

    def _values_buffer(self) -> FloatArray:
        return np.zeros((len(self.nodes), self.fmt.size ** self.fmt.players), dtype=self.values_dtype)

    def _seat_pass(
        self, seat: int, sigma: list[FloatArray] | None, *, respond: bool = False
    ) -> tuple[float, FloatArray]:
        """One pass without updating: ``sigma`` per node, or None for the average strategy."""
        n, k = self.fmt.players, self.fmt.size
        if self.kernels is None:
            return self._pass(seat, self.average() if sigma is None else sigma, respond=respond)
        flat = self._flat(sigma) if sigma is not None else self._normalised(self.total)
        values = self._values_buffer()
        value = self._fast_pass(seat, flat, values, respond=respond)
        return value, values.reshape((len(self.nodes),) + (k,) * n)

    def _normalised(self, x: FloatArray, out: FloatArray | None = None) -> FloatArray:
        """Each node's rows of ``x`` [edge, hand] (non-negative) normalised, uniform where they sum to 0 (into
        ``out`` when given)."""
        assert self.kernels is not None
        if out is None:
            out = np.empty_like(x)
        self.kernels["current"](x, self.first, out)
        return out

    def _weight(self) -> int:
        """The current iterate's weight in the average: its number (CFR+'s linear averaging), or 1."""
        return 1 if self.uniform else self.iterations

    def iterate(self, count: int = 1) -> None:
        if self.kernels is None:
            for _ in range(count):
                self.iterations += 1
                for seat in range(self.fmt.players):
                    self._pass(seat, self.current(), t=self._weight())
            return
        values = self._values_buffer()
        for _ in range(count):
            self.iterations += 1
            for seat in range(self.fmt.players):
                self._fast_pass(seat, self._normalised(self.regret), values, t=self._weight())

    def values(self, sigma: list[FloatArray] | None = None) -> list[float]:
        """Each seat's value per round when every seat plays ``sigma`` (default: the average strategy)."""
        return [self.value(seat, sigma) for seat in range(self.fmt.players)]

    def value(self, seat: int, sigma: list[FloatArray] | None = None) -> float:
        """``seat``'s value per round when every seat plays ``sigma`` (default: the average strategy)."""
        return self._seat_pass(seat, sigma)[0]

    def gains(self, sigma: list[FloatArray] | None = None) -> list[float]:
        """What the best response within the abstraction earns per round in each seat against ``sigma``
        (default: the average strategy) in the others: a lower bound on the exploitability there."""
        return [self._seat_pass(seat, sigma, respond=True)[0] for seat in range(self.fmt.players)]

    def node_values(self, seat: int, sigma: list[FloatArray]) -> FloatArray:
        """Every node's value per round to ``seat`` [node, hand, …, hand] when every seat plays ``sigma``."""
        return self._seat_pass(seat, sigma)[1]

    # -- the result ------------------------------------------------------------------------------------
    def table(self, floor: float = 0.01) -> MultiTable:
        """The average strategy as the table ``core`` plays: actions under ``floor`` dropped, thousandths."""
        entries = {node.key: thousandths_rows(drop_under(probs, floor), node.actions)
                   for node, probs in zip(self.nodes, self.average(), strict=True)}
        rules = self.fmt.rules
        return MultiTable(self.fmt.players, rules.digits, rules.serial_length, rules.rebid, self.memory, entries,
                          self.opening, self.named)


def heads_up_table(solver: MultiSolver, floor: float = 0.001) -> SolvedTable:
    """A 2-player solve's average strategy as the heads-up table :class:`.cfr.Solver` writes (floor and thousandths
    alike).  At 2 players the graph is the heads-up solver's, node for node (the key without the bidder, whom
    the seat to act and the phase decide), and its CFR+ iterates are the same up to rounding (a test holds
    them to 1e-9), so the compiled passes, their threads and checkpoints serve heads-up solves too."""
    if solver.fmt.players != 2 or solver.opening or solver.named:
        raise ValueError("a heads-up table comes from a 2-player solve without the opening or named digits")
    entries = {}
    for node, probs in zip(solver.nodes, solver.average(), strict=True):
        actor, standing, _, phase, is_rebid, prev = node.key
        if floor > 0:
            probs = drop_under(probs, floor)
        entries[(actor == 0, standing, phase, bool(is_rebid), prev)] = thousandths_rows(probs, node.actions)
    rules = solver.fmt.rules
    return SolvedTable(digits=rules.digits, serial_length=rules.serial_length, rebid=rules.rebid,
                       memory=solver.memory, entries=entries)


def _outer(vectors: list[FloatArray]) -> FloatArray:
    out = vectors[0]
    for v in vectors[1:]:
        out = np.multiply.outer(out, v)
    return out


def _axis(seat: int, n: int, k: int) -> tuple[int, ...]:
    """The shape that broadcasts a vector over ``seat``'s hands against an ``n``-seat tensor."""
    return tuple(k if p == seat else 1 for p in range(n))


def table_of(strategy: object, rules: Rules, players: int) -> MultiTable | None:
    """The table for ``players`` seats that ``strategy`` plays under ``rules`` (``hard``, ``solver``), or None.

    Picked by its shape: a packed table is not parsed unless it is the one."""
    for s in table_players(strategy):
        if isinstance(s, SolvedMulti) and s.shape.fits(rules, players):
            return s.table
    return None


def table_policy(fmt: MultiFormat, table: MultiTable, solver: MultiSolver) -> list[FloatArray]:
    """A table's strategy per node of ``solver``'s graph (for measuring the shipped, rounded table)."""
    return [table_rows(table.entries[node.key], node.actions, fmt.size) for node in solver.nodes]
