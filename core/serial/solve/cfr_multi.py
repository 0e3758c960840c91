"""CFR+ for 3 or more players in a small format, vectorised over every seat's hand class on abstract public states.

:mod:`.cfr` solves heads-up formats on abstract public states with values as matrices over the two
hands.  Here the same method runs at a table of ``n`` ≥ 3 players (3-player 3×3: 10 hand classes a
seat, so a node's value is a 10 × 10 × 10 tensor).  The abstract state (a :data:`MultiKey`) is what a
player remembers at its decision, seats counted clockwise from the opener (seat 0):

* the seat to act, the standing bid's index (−1 before the opening) and its bidder's seat (−1);
* the phase (0: bidding; 1: the bidder, challenged all around, chooses between the count and a
  rebid) and whether the standing bid is a rebid (challenged all around, it is counted at once);
* the last ``memory`` bids before the standing one (packed as
  :func:`~core.serial.players.solved.pack_memory` packs them).

Who has challenged the standing bid follows: in ``all`` mode the challenges since a bid are the
seats between its bidder and the seat to act, and the bid is challenged all around when the turn
comes back to the bidder (RULES.md "Turns and challenges"; :mod:`core.serial.round`).  Histories that
share an abstract state share a node, so the graph is small (5,165 nodes in 3-player 3×3 at memory
1).  Merged histories are handled exactly for the game in which players remember only that much:
for the seat being updated each node keeps the *joint* reach of the others' hands (a tensor over
their classes, chance included; the others' reaches do not factor once histories merge) and the
seat's own reach; values flow backward per seat as tensors over all hands.

Each iteration is CFR+ (regret matching+, alternating updates seat by seat, linear averaging).  With
three players CFR has no convergence guarantee to a Nash equilibrium, so :meth:`MultiSolver.gains`
measures what a best response *within the abstraction* (a pure strategy keyed by the same state and
its hand, built greedily bottom-up) earns against the average strategy in each seat: a real
strategy, so a lower bound on the table's exploitability in that seat.  Pure: numpy, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from core.serial.bids import Bid
from core.serial.players.solved import push_memory, table_players
from core.serial.players.solved_multi import MultiKey, MultiTable, SolvedMulti
from core.serial.rules import Rules
from core.serial.scoring import score
from core.serial.serials import Serial

from .cfr import ANSWER, normalise_rows, split_children, table_rows, thousandths_rows
from .format import FloatArray, Format

__all__ = ["ANSWER", "MultiFormat", "MultiSolver", "table_of", "table_policy"]

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


class MultiSolver:
    """CFR+ over the abstract public states of ``fmt`` (see the module docstring)."""

    def __init__(self, fmt: MultiFormat, memory: int = 1) -> None:
        self.fmt = fmt
        self.memory = memory
        self.iterations = 0
        self.nodes: list[_Node] = []
        self._build()
        self._prepare()

    # -- the graph -------------------------------------------------------------------------------------
    def _build(self) -> None:
        n, nbids, k = self.fmt.players, len(self.fmt.bids), self.fmt.size
        rebid_rule = self.fmt.rules.rebid
        specs: dict[MultiKey, tuple[list[int], list[MultiKey | tuple[int, int]]]] = {}
        pending: list[MultiKey] = [(0, -1, -1, 0, 0, -1)]
        while pending:
            key = pending.pop()
            if key in specs:
                continue
            actor, s, bidder, phase, is_rebid, prev = key
            remember = push_memory(prev, s, self.memory, nbids)
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
        for key in order:
            actions, children = specs[key]
            kids: list[int | tuple[int, int]] = [index[c] if len(c) == 6 else c for c in children]
            a = len(actions)
            self.nodes.append(_Node(key, key[0], actions, kids, np.zeros((k, a)), np.zeros((k, a))))

    def _prepare(self) -> None:
        """Per node: the actions leading to nodes (columns, node indices) and the counts' payoff tensors."""
        self._kids: list[tuple[np.ndarray, np.ndarray]] = []
        self._terms: list[tuple[np.ndarray, FloatArray]] = []
        n, k = self.fmt.players, self.fmt.size
        empty = np.zeros((0, n) + (k,) * n)
        for node in self.nodes:
            cols, kids, tcols, terminals = split_children(node.children)
            self._kids.append((cols, kids))
            mats = [self.fmt.payoff(*c) for c in terminals]
            self._terms.append((tcols, np.stack(mats) if mats else empty))

    # -- strategies ------------------------------------------------------------------------------------
    def current(self) -> list[FloatArray]:
        """The current strategy (regret matching+), per node [hand, action]."""
        return [normalise_rows(np.maximum(node.regret, 0.0)) for node in self.nodes]

    def average(self) -> list[FloatArray]:
        """The average strategy (linear averaging), per node [hand, action]."""
        return [normalise_rows(node.total) for node in self.nodes]

    # -- one pass for one seat -------------------------------------------------------------------------
    def _pass(
        self, seat: int, sigma: list[FloatArray], *, t: int = 0, respond: bool = False
    ) -> tuple[float, FloatArray]:
        """Forward reaches and backward values for ``seat``: its value per round (stake 1), and every
        node's value to it [node, hand, …, hand].

        ``t`` > 0: update the seat's regrets and average (CFR+ iteration ``t``).  ``respond``: the seat
        plays the greedy best response within the abstraction instead of ``sigma``."""
        nodes, n, k = self.nodes, self.fmt.players, self.fmt.size
        w = self.fmt.base.weights
        others = [p for p in range(n) if p != seat]
        letters = _LETTERS[:n]
        mine, theirs = letters[seat], "".join(letters[p] for p in others)
        reach = np.zeros((len(nodes),) + (k,) * (n - 1))  # the others' joint reach, chance included
        own = np.zeros((len(nodes), k))
        reach[0] = _outer([w] * (n - 1))
        own[0] = 1.0
        for i, node in enumerate(nodes):
            cols, kids = self._kids[i]
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
            cols, kids = self._kids[i]
            if len(kids):
                mats[cols] = values[kids]
            tcols, tmats = self._terms[i]
            if len(tcols):
                mats[tcols] = tmats[:, seat]
            if node.actor == seat and (respond or t > 0):
                cv = np.einsum(f"z{letters},{theirs}->{mine}z", mats, reach[i])
                if respond:
                    best = np.argmax(cv, axis=1)
                    s = np.zeros_like(s)
                    s[np.arange(k), best] = 1.0
                else:
                    node.regret = np.maximum(node.regret + cv - (s * cv).sum(axis=1, keepdims=True), 0.0)
                    node.total += t * own[i][:, None] * s
            values[i] = np.einsum(f"{letters[node.actor]}z,z{letters}->{letters}", s, mats)
        value = float(np.einsum(f"{letters},{theirs}->", values[0] * w.reshape(_axis(seat, n, k)), reach[0]))
        return value, values

    def iterate(self, count: int = 1) -> None:
        for _ in range(count):
            self.iterations += 1
            for seat in range(self.fmt.players):
                self._pass(seat, self.current(), t=self.iterations)

    def values(self, sigma: list[FloatArray] | None = None) -> list[float]:
        """Each seat's value per round when every seat plays ``sigma`` (default: the average strategy)."""
        sigma = self.average() if sigma is None else sigma
        return [self._pass(seat, sigma)[0] for seat in range(self.fmt.players)]

    def gains(self, sigma: list[FloatArray] | None = None) -> list[float]:
        """What the best response within the abstraction earns per round in each seat against ``sigma``
        (default: the average strategy) in the others: a lower bound on the exploitability there."""
        sigma = self.average() if sigma is None else sigma
        return [self._pass(seat, sigma, respond=True)[0] for seat in range(self.fmt.players)]

    def node_values(self, seat: int, sigma: list[FloatArray]) -> FloatArray:
        """Every node's value per round to ``seat`` [node, hand, …, hand] when every seat plays ``sigma``."""
        return self._pass(seat, sigma)[1]

    # -- the result ------------------------------------------------------------------------------------
    def table(self, floor: float = 0.01) -> MultiTable:
        """The average strategy as the table ``core`` plays: actions under ``floor`` dropped, thousandths."""
        entries = {node.key: thousandths_rows(normalise_rows(np.where(probs >= floor, probs, 0.0)), node.actions)
                   for node, probs in zip(self.nodes, self.average(), strict=True)}
        rules = self.fmt.rules
        return MultiTable(self.fmt.players, rules.digits, rules.serial_length, rules.rebid, self.memory, entries)


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
