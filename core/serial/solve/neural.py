"""Neural self-play with exact expected gradients over the whole 2-player tree (issue #24).

The learner trains the network of :mod:`core.serial.solve.neural_net` (one network for both seats: it
scores each legal action from format-general features) by **regularised policy-gradient self-play**,
the policy-space form of magnetic mirror descent (Sokota et al., ICLR 2023) and of R-NaD's inner loop:
each seat ascends its own value in the transformed zero-sum game whose payoffs add, at every decision,
``−α log(π(a)/ρ(a))`` for the seat that acts and ``+α log(π(a)/ρ(a))`` for the other, with ``ρ`` the
*magnet* policy.  With ``magnet_every = m > 0`` the magnet is reset to the current network every ``m``
steps (R-NaD's outer loop: the fixed points of the regularised games move towards a Nash equilibrium);
with ``m = 0`` it stays the uniform policy (MMD's fixed magnet: the learner converges towards a quantal
response equilibrium whose distance from Nash shrinks with ``α``).

**Nothing is sampled.**  The formats are small enough (2×2: 2,584 decisions; 3×2: 121,393) to build the
whole public tree once (:class:`Tree`, walked with the engine's own rounds), with every hand of the
acting seat at every decision and the feature rows of its legal actions (deduplicated: histories that
agree on what the features read share rows).  A step then computes, level by level with numpy:

1. the policy: the network's logits for the unique rows, a softmax over each decision's actions;
2. the reach of every node by each seat's own choices, top-down;
3. the regularised value of every node as a matrix [hand of seat 0, hand of seat 1], bottom-up;
4. for every decision, hand and action, the acting seat's value of the action weighted by the other
   seat's reach and the chance of its hand, and from it the gradient at the logits,
   ``weight × π(a) (Q(a) − Σ_b π(b) Q(b))`` (Q includes the action's own ``−α log(π/ρ)``), where
   ``weight`` is the acting seat's own reach (``mode="reach"``: the exact policy gradient of each
   seat's value, checked against finite differences in the tests), the chance of its hand only
   (``"cf"``: counterfactual, as CFR and tabular MMD weigh information sets), or that divided by the
   other seat's reach mass (``"flat"``: every information set counts alike);
5. the parameters' gradient by backpropagation, summed over both seats, and an Adam ascent step.

:func:`exploitability` computes the exact best response to the network's policy on the same arrays
(what :func:`core.serial.solve.best_response.exploitability` computes by walking the engine, which
the tests check it against).
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from core.serial.round import Round
from core.serial.view import seat_view

from .format import SEATS, FloatArray, Format
from .neural_net import WINDOW, Net, NeuralStrategy, feature_rows, window_key

__all__ = ["Learner", "TrainConfig", "Tree", "exploitability", "train"]

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class _Level:
    lo: int  # this depth's edges are lo..hi (their parents are this depth's decisions, in order)
    hi: int
    nodes: IntArray  # the decisions at this depth
    starts: IntArray  # where each decision's edges start, relative to lo


@dataclass
class Tree:
    """The whole public tree of a 2-player format, with the feature rows of every decision and hand."""

    fmt: Format
    actor: IntArray  # [node]: the seat to act, −1 at a terminal
    parent: IntArray  # [edge]
    child: IntArray  # [edge]
    edge_actor: IntArray  # [edge]
    edge_seg: IntArray  # [edge]: index of its decision among all decisions (a softmax group)
    seg_starts: IntArray  # [decision]: its first edge
    terminals: IntArray  # terminal nodes
    pay: FloatArray  # [terminal, hand of seat 0, hand of seat 1]: units to seat 0
    rows: IntArray  # [edge, hand of the acting seat] → row of x
    x: FloatArray  # [unique row, feature]
    levels: list[_Level]

    @classmethod
    def build(cls, fmt: Format, window: int = WINDOW) -> Tree:
        k = fmt.size
        root = Round(fmt.rules, SEATS, dict.fromkeys(SEATS, fmt.serials[0]), SEATS[0], 1)
        actor: list[int] = []
        depth: list[int] = []
        parent: list[int] = []
        child: list[int] = []
        rows: list[list[int]] = []
        terminals: list[int] = []
        pay: list[FloatArray] = []
        x: list[list[float]] = []
        blocks: dict[tuple[object, ...], int] = {}
        queue: deque[tuple[Round, int]] = deque([(root, 0)])
        actor.append(0)
        depth.append(0)
        while queue:
            rnd, node = queue.popleft()
            if rnd.is_over:
                outcome = rnd.outcome
                assert outcome is not None
                actor[node] = -1
                terminals.append(node)
                pay.append(fmt.payoff(fmt.bid_index[outcome.bid.id], SEATS.index(outcome.bidder)))
                continue
            seat = SEATS.index(rnd.to_act or "")
            actor[node] = seat
            view = seat_view(rnd, SEATS[seat])
            key = (rnd.standing_bid.id if rnd.standing_bid is not None else -1, view.legal.challenge,
                   view.legal.call_count, window_key(view, window))
            starts: list[int] = []
            actions = None
            for h in range(k):
                block = (h, *key)
                start = blocks.get(block)
                acts, feats = feature_rows(dataclasses.replace(view, serial=fmt.serials[h]), window)
                if start is None:
                    start = blocks[block] = len(x)
                    x.extend(feats)
                starts.append(start)
                actions = acts
            assert actions is not None
            for j, action in enumerate(actions):
                nxt = rnd.copy()
                nxt.apply(action)
                child_id = len(actor)
                actor.append(0)
                depth.append(depth[node] + 1)
                parent.append(node)
                child.append(child_id)
                rows.append([s + j for s in starts])
                queue.append((nxt, child_id))
        return cls._arrays(fmt, actor, depth, parent, child, rows, terminals, pay, x)

    @classmethod
    def _arrays(cls, fmt: Format, actor: list[int], depth: list[int], parent: list[int], child: list[int],
                rows: list[list[int]], terminals: list[int], pay: list[FloatArray], x: list[list[float]]) -> Tree:
        par = np.array(parent, dtype=np.int64)
        act = np.array(actor, dtype=np.int64)
        dep = np.array(depth, dtype=np.int64)
        decisions, seg_starts = np.unique(par, return_index=True)  # edges are grouped by parent, in order
        edge_seg = np.searchsorted(decisions, par)
        levels: list[_Level] = []
        edge_depth = dep[par]
        for d in range(int(edge_depth.max()) + 1):
            lo, hi = np.searchsorted(edge_depth, [d, d + 1])
            at = decisions[dep[decisions] == d]
            starts = seg_starts[np.searchsorted(decisions, at)] - lo
            levels.append(_Level(int(lo), int(hi), at, starts))
        return cls(fmt, act, par, np.array(child, dtype=np.int64), act[par], edge_seg, seg_starts,
                   np.array(terminals, dtype=np.int64), np.array(pay), np.array(rows, dtype=np.int64),
                   np.array(x), levels)

    @property
    def nodes(self) -> int:
        return len(self.actor)

    def log_policy(self, logits: FloatArray, rows: bool = True) -> FloatArray:
        """[edge, hand]: log π of each edge's action for each hand of the acting seat, from the logits of
        the unique rows (or, with ``rows=False``, already laid out as [edge, hand])."""
        z = logits[self.rows] if rows else logits
        top = np.maximum.reduceat(z, self.seg_starts, axis=0)[self.edge_seg]
        e = np.exp(z - top)
        total = np.add.reduceat(e, self.seg_starts, axis=0)[self.edge_seg]
        out: FloatArray = z - top - np.log(total)
        return out

    def reach(self, pi: FloatArray) -> FloatArray:
        """[node, seat, hand]: the product of that seat's own probabilities on the path to the node."""
        r = np.ones((self.nodes, 2, self.fmt.size))
        for lv in self.levels:
            e = slice(lv.lo, lv.hi)
            sub = r[self.parent[e]]
            sub[np.arange(lv.hi - lv.lo), self.edge_actor[e], :] *= pi[e]
            r[self.child[e]] = sub
        return r


def _broadcast(values: FloatArray, seat0: npt.NDArray[np.bool_]) -> FloatArray:
    """[edge, hand of the actor] → [edge, hand 0, hand 1], along the acting seat's axis."""
    out: FloatArray = np.where(seat0[:, None, None], values[:, :, None], values[:, None, :])
    return out


def exploitability(tree: Tree, pi: FloatArray) -> tuple[float, float]:
    """What an exact best response earns against the policy ``pi`` [edge, hand] in seat 0 and in seat 1."""
    w = tree.fmt.weights
    r = tree.reach(pi)
    out = []
    for br in (0, 1):
        other = 1 - br
        v = np.zeros((tree.nodes, tree.fmt.size))
        opp = w * r[tree.terminals, other, :]  # [terminal, hand of the other]
        if br == 0:
            v[tree.terminals] = np.einsum("tij,tj->ti", tree.pay, opp)
        else:
            v[tree.terminals] = -np.einsum("tij,ti->tj", tree.pay, opp)
        for lv in reversed(tree.levels):
            sub = v[tree.child[lv.lo:lv.hi]]
            total = np.add.reduceat(sub, lv.starts, axis=0)
            best = np.maximum.reduceat(sub, lv.starts, axis=0)
            v[lv.nodes] = np.where((tree.actor[lv.nodes] == br)[:, None], best, total)
        out.append(float(w @ v[0]))
    return out[0], out[1]


@dataclass(frozen=True)
class TrainConfig:
    steps: int = 300
    lr: float = 0.003
    alpha: float = 0.1  # the regularisation's weight (units per round per nat)
    alpha_final: float | None = None  # anneal α geometrically to this by the last step (None: keep α)
    magnet_every: int = 0  # reset the magnet to the network every so many steps; 0: the uniform magnet
    rule: str = "pg"  # "pg": the policy gradient; "neurd": the advantage at the logits without π(a) (NeuRD)
    beta: float = 8.0  # NeuRD's logit threshold
    mode: str = "cf"  # how a decision's gradient is weighed: "reach", "cf" or "flat" (see the module's note)
    beta1: float = 0.0  # Adam's momentum (0: RMSprop; momentum makes self-play cycle wider)
    hidden: tuple[int, ...] = (64, 64)
    window: int = WINDOW
    seed: int = 1
    every: int = 25  # measure the exact exploitability every so many steps

    def __post_init__(self) -> None:
        if self.rule not in ("pg", "neurd"):
            raise ValueError(f"rule is pg or neurd, not {self.rule!r}")
        if self.mode not in ("reach", "cf", "flat"):
            raise ValueError(f"mode is reach, cf or flat, not {self.mode!r}")
        if self.steps < 0 or self.every < 1 or self.magnet_every < 0 or self.alpha < 0 or self.lr <= 0:
            raise ValueError("steps ≥ 0, every ≥ 1, magnet_every ≥ 0, alpha ≥ 0 and lr > 0")
        if self.alpha_final is not None and not (self.alpha_final > 0 and self.alpha > 0):
            raise ValueError("alpha_final > 0 (a geometric schedule), with alpha > 0")

    def alpha_at(self, step: int) -> float:
        """α at ``step`` (0-based): constant, or geometric from ``alpha`` to ``alpha_final`` over the steps."""
        if self.alpha_final is None or self.steps <= 1:
            return self.alpha
        return float(self.alpha * (self.alpha_final / self.alpha) ** (step / (self.steps - 1)))


@dataclass
class Learner:
    """The network, its Adam state and its magnet, on one tree."""

    tree: Tree
    config: TrainConfig
    net: Net
    magnet: FloatArray  # [edge, hand]: log ρ
    step: int = 0
    _m: list[FloatArray] = field(default_factory=list)  # Adam's moments
    _v: list[FloatArray] = field(default_factory=list)

    @classmethod
    def create(cls, tree: Tree, config: TrainConfig) -> Learner:
        net = Net.create(tree.x.shape[1], config.hidden, config.seed)
        learner = cls(tree, config, net, np.zeros((len(tree.parent), tree.fmt.size)))
        learner.magnet = learner._uniform() if config.magnet_every == 0 else learner.log_policy()
        learner._m = [np.zeros_like(p) for p in net.params]
        learner._v = [np.zeros_like(p) for p in net.params]
        return learner

    def _uniform(self) -> FloatArray:
        counts = np.bincount(self.tree.edge_seg)[self.tree.edge_seg].astype(np.float64)
        return np.repeat(-np.log(counts)[:, None], self.tree.fmt.size, axis=1)

    def log_policy(self, net: Net | None = None) -> FloatArray:
        return self.tree.log_policy((net or self.net).logits(self.tree.x))

    def strategy(self, name: str = "neural") -> NeuralStrategy:
        return NeuralStrategy(self.net.copy(), self.config.window, name)

    def exploitability(self) -> float:
        seats = exploitability(self.tree, np.exp(self.log_policy()))
        return float(seats[0] + seats[1]) / 2

    def gradients(self, nets: tuple[Net, Net] | None = None) -> tuple[float, list[list[FloatArray]]]:
        """(seat 0's regularised value, [the gradient of each seat's own value w.r.t. its net's params]).

        ``nets`` gives each seat its own network (the tests' finite differences); in self-play (one network)
        the list holds one entry, the two seats' gradients summed."""
        tree, cfg, w = self.tree, self.config, self.tree.fmt.weights
        alpha = cfg.alpha_at(self.step)
        pair = nets or (self.net, self.net)
        fwd = [pair[0].forward(tree.x)]
        fwd.append(fwd[0] if pair[1] is pair[0] else pair[1].forward(tree.x))
        seat0 = tree.edge_actor == 0
        z = np.where(seat0[:, None], fwd[0][0][tree.rows], fwd[1][0][tree.rows])
        logp = tree.log_policy(z, rows=False)
        pi = np.exp(logp)
        lr = logp - self.magnet
        r = tree.reach(pi)
        v = np.zeros((tree.nodes, tree.fmt.size, tree.fmt.size))
        v[tree.terminals] = tree.pay
        gz = np.zeros_like(pi)
        for lv in reversed(tree.levels):
            e = slice(lv.lo, lv.hi)
            s0 = seat0[e]
            vc = v[tree.child[e]]
            pe, le = pi[e], lr[e]
            # the acting seat's value of each action, before and after its own −α log(π/ρ)
            own = np.where(s0[:, None, None], vc, -vc) - alpha * _broadcast(le, s0)
            v[lv.nodes] = np.add.reduceat(_broadcast(pe, s0) * np.where(s0[:, None, None], own, -own), lv.starts,
                                          axis=0)
            opp = w * r[tree.parent[e], np.where(s0, 1, 0), :]  # [edge, hand of the other seat]
            q = np.where(s0[:, None], (own * opp[:, None, :]).sum(2), (own * opp[:, :, None]).sum(1))
            mean = np.add.reduceat(pe * q, lv.starts, axis=0)
            seg = np.repeat(np.arange(len(lv.nodes)), np.diff(np.append(lv.starts, lv.hi - lv.lo)))
            if cfg.mode == "reach":
                weight = w * r[tree.parent[e], tree.edge_actor[e], :]
            elif cfg.mode == "cf":
                weight = np.broadcast_to(w, pe.shape)
            else:
                weight = w / np.maximum(opp.sum(1, keepdims=True), 1e-300)
            gz[e] = weight * (q - mean[seg]) * (pe if cfg.rule == "pg" else 1.0)
        if cfg.rule == "neurd":  # NeuRD's threshold: no logit pushed further than ±beta from its decision's mean
            counts = np.diff(np.append(tree.seg_starts, len(z)))[:, None]
            centred = z - (np.add.reduceat(z, tree.seg_starts, axis=0) / counts)[tree.edge_seg]
            gz = np.where(((gz > 0) & (centred > cfg.beta)) | ((gz < 0) & (centred < -cfg.beta)), 0.0, gz)
        value = float(w @ v[0] @ w)
        if pair[1] is pair[0]:  # self-play: one backward pass for both seats' (summed) gradients
            g_rows = np.bincount(tree.rows.ravel(), weights=gz.ravel(), minlength=len(tree.x)).astype(np.float64)
            return value, [pair[0].backward(fwd[0][1], g_rows)]
        grads = []
        for seat in (0, 1):
            mine = (tree.edge_actor == seat)[:, None]
            g_rows = np.bincount(tree.rows.ravel(), weights=np.where(mine, gz, 0.0).ravel(),
                                 minlength=len(tree.x)).astype(np.float64)
            grads.append(pair[seat].backward(fwd[seat][1], g_rows))
        return value, grads

    def update(self) -> None:
        """One Adam ascent step on both seats' gradients (one network), then the magnet if it is due."""
        _, (grad,) = self.gradients()
        self.step += 1
        b1, b2, eps = self.config.beta1, 0.999, 1e-8
        for i, p in enumerate(self.net.params):
            g = grad[i]
            self._m[i] = b1 * self._m[i] + (1 - b1) * g
            self._v[i] = b2 * self._v[i] + (1 - b2) * g * g
            m_hat = self._m[i] / (1 - b1**self.step)
            v_hat = self._v[i] / (1 - b2**self.step)
            p += self.config.lr * m_hat / (np.sqrt(v_hat) + eps)
        if self.config.magnet_every and self.step % self.config.magnet_every == 0:
            self.magnet = self.log_policy()


def train(fmt: Format, config: TrainConfig, report: Callable[[int, float], None] | None = None,
          tree: Tree | None = None) -> tuple[Learner, list[tuple[int, float]]]:
    """Train for ``config.steps``; the exact exploitability at step 0, every ``config.every`` and at the end."""
    learner = Learner.create(tree or Tree.build(fmt, config.window), config)
    curve: list[tuple[int, float]] = []

    def measure() -> None:
        value = learner.exploitability()
        curve.append((learner.step, value))
        if report is not None:
            report(learner.step, value)

    measure()
    for _ in range(config.steps):
        learner.update()
        if learner.step % config.every == 0 or learner.step == config.steps:
            measure()
    return learner, curve
