"""Neural self-play with exact expectations over the whole 2-player tree (issue #24).

The learner trains the network of :mod:`core.serial.solve.neural_net` (one network for both seats: it
scores each legal action from format-general features) in the regularised game of magnetic mirror
descent (MMD: Sokota et al., ICLR 2023) and R-NaD: at every decision the seat that acts is charged
``α log(π(a)/ρ(a))`` and the other seat credited as much (the game stays zero-sum), with ``ρ`` the
*magnet* policy.  With ``magnet_every = m > 0`` the magnet is reset to the current network every ``m``
steps (R-NaD's outer loop: the fixed points of the regularised games move towards a Nash equilibrium);
with ``m = 0`` it stays the uniform policy (the learner then converges towards a quantal response
equilibrium whose distance from Nash shrinks with ``α``).  Three update rules (``TrainConfig.rule``):

* ``"mmd"`` (the default): at every decision and hand, MMD's closed-form step in policy space,
  ``π' ∝ (π ρ^{αη} e^{η q})^{1/(1+αη)}`` with ``q`` the acting seat's expected value of each action
  there (the regularised game's), then ``fit_steps`` Adam steps fitting the network to those targets
  (KL, each decision weighed by the acting seat's own reach and the chance of its hand, plus a floor).
  The values weigh the other seat's hands by their chance times its reach *plus a tremble*
  (``belief_floor``): without it, at a decision the other seat (almost) never lets happen, the values
  hang on the ratios of its vanishing probabilities, which the network sets by generalisation; they
  swing, the network follows them (the actor does reach those decisions, so their weight in the fit is
  large), and the best response deviates into them: that is what made the fitted runs leave the
  equilibrium at a seed-dependent step (README, "Neural self-play, tried");
* ``"pg"``: the exact policy gradient of each seat's regularised value, summed over both seats (one
  network), ``weight × π(a) (Q(a) − Σ_b π(b) Q(b))`` at the logits, then Adam;
* ``"neurd"``: the same advantage without the ``π(a)`` factor (Neural Replicator Dynamics, R-NaD's rule).

``mode`` sets the weight of a decision in ``pg``/``neurd`` and in MMD's fit: the acting seat's own reach
times its hand's chance (``"reach"``: the exact gradient, checked against finite differences in the
tests), the hand's chance only (``"cf"``, as CFR weighs information sets), or that over the other
seat's reach mass (``"flat"``).

**Nothing is sampled.**  The formats are small enough (2×2: 2,584 decisions; 3×2: 121,393) to build the
whole public tree once (:class:`Tree`, walked with the engine's own rounds), with every hand of the
acting seat at every decision and the feature rows of its legal actions (deduplicated: histories that
agree on what the features read share rows).  A sweep computes, level by level with numpy: the policy
(the network's logits for the unique rows, a softmax over each decision's actions), each seat's own
reach of every node (top-down), the regularised value of every node as a matrix [hand of seat 0,
hand of seat 1] (bottom-up), and each decision's action values for the acting seat, the other seat's
hands weighed by their reach and chance.

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
    """The whole public tree of a 2-player format, with the feature rows of every decision and hand.

    Rows are shared by the histories that agree on what the features read (:func:`window_key`); with the
    history's summary or the whole history, which tell most histories apart, by the feature vectors' values
    instead."""

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
    def build(cls, fmt: Format, window: int = WINDOW, summary: bool = False, history: bool = False) -> Tree:
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
        blocks: dict[tuple[object, ...], list[int]] = {}
        seen: dict[tuple[float, ...], int] = {}  # with ``summary`` or ``history``: a row per distinct feature vector
        by_value = summary or history
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
                   view.legal.call_count, window_key(view, window, summary, history))
            ids: list[list[int]] = []
            actions = list(view.legal)  # feature_rows' order
            for h in range(k):
                block = (h, *key)
                got = blocks.get(block)
                if got is None:
                    _, feats = feature_rows(dataclasses.replace(view, serial=fmt.serials[h]), window, summary,
                                            history)
                    if by_value:  # these tell most histories apart: share rows by value instead
                        got = [seen.setdefault(tuple(f), len(seen)) for f in feats]
                        for f, i in zip(feats, got, strict=True):
                            if i == len(x):  # new rows are numbered in order of first appearance
                                x.append(f)
                    else:
                        got = list(range(len(x), len(x) + len(feats)))
                        x.extend(feats)
                    blocks[block] = got
                ids.append(got)
            for j, action in enumerate(actions):
                nxt = rnd.copy()
                nxt.apply(action)
                child_id = len(actor)
                actor.append(0)
                depth.append(depth[node] + 1)
                parent.append(node)
                child.append(child_id)
                rows.append([got[j] for got in ids])
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
    lr: float = 0.01
    lr_final: float | None = 0.001  # anneal the learning rate geometrically to this by the last step (None: keep it)
    alpha: float = 0.2  # the regularisation's weight (units per round per nat)
    alpha_final: float | None = None  # anneal α geometrically to this by the last step (None: keep α)
    magnet_every: int = 50  # reset the magnet to the network every so many steps; 0: the uniform magnet
    rule: str = "mmd"  # "pg": the policy gradient; "neurd": the advantage at the logits without π(a) (NeuRD);
    # "mmd": each decision's magnetic-mirror-descent step in policy space, the network fitted to it
    eta: float = 0.5  # MMD's step size
    fit_steps: int = 20  # MMD: Adam steps fitting the network to the step's target
    batch: int = 0  # MMD: if > 0, each fit step reads this many (decision, hand) pairs drawn in proportion to
    # their weight in the fit (with replacement, seeded) instead of the whole tree: an unbiased estimate of the
    # full gradient, for trees whose rows make a full pass costly (3×2 with ``history``: 1.2 million rows)
    float32: bool = False  # the network's weights and the feature rows in single precision (about twice as fast)
    floor: float = 1e-3  # MMD: added to every decision's weight in the fit, so that none is ignored
    beta: float = 8.0  # NeuRD's logit threshold
    mode: str = "reach"  # how a decision's gradient is weighed: "reach", "cf" or "flat" (see the module's note)
    beta1: float = 0.9  # Adam's momentum (0: RMSprop; momentum makes self-play cycle wider)
    reset_adam: bool = False  # MMD: start each step's fit with fresh Adam moments
    magnet_tau: float = 0.0  # MMD: if > 0, move the magnet towards the network at every step, geometrically:
    # log ρ ← (1 − τ) log ρ + τ log π, renormalised (the MMD paper's moving magnet), instead of resetting it
    belief_floor: float = 1e-3  # MMD: the action values read the other seat's reach as if each of its hands also
    # reached every decision with this probability (a tremble), so that where it (almost) never goes the values
    # follow the chance of its hands, not the ratios of its vanishing probabilities (0: the values as they are)
    magnet_from: str = "net"  # MMD: reset the magnet to the network ("net") or to the last step's target ("target")
    hidden: tuple[int, ...] = (64, 64)
    window: int = WINDOW
    summary: bool = False  # the features also read the history's summary (:mod:`.neural_net`'s note)
    history: bool = False  # the features also read the whole history, a bit per bid and side (ditto; not
    # format-general: the input's width is the format's number of bids)
    seed: int = 1
    every: int = 25  # measure the exact exploitability every so many steps

    def __post_init__(self) -> None:
        if self.rule not in ("pg", "neurd", "mmd"):
            raise ValueError(f"rule is pg, neurd or mmd, not {self.rule!r}")
        if self.mode not in ("reach", "cf", "flat"):
            raise ValueError(f"mode is reach, cf or flat, not {self.mode!r}")
        if self.belief_floor < 0:
            raise ValueError("belief_floor ≥ 0")
        if not 0.0 <= self.magnet_tau <= 1.0:
            raise ValueError("magnet_tau is in [0, 1]")
        if self.batch < 0:
            raise ValueError("batch ≥ 0 (0: the whole tree at every fit step)")
        if self.steps < 0 or self.every < 1 or self.magnet_every < 0 or self.alpha < 0 or self.lr <= 0:
            raise ValueError("steps ≥ 0, every ≥ 1, magnet_every ≥ 0, alpha ≥ 0 and lr > 0")
        if self.alpha_final is not None and not (self.alpha_final > 0 and self.alpha > 0):
            raise ValueError("alpha_final > 0 (a geometric schedule), with alpha > 0")
        if self.lr_final is not None and not self.lr_final > 0:
            raise ValueError("lr_final > 0 (a geometric schedule)")

    def alpha_at(self, step: int) -> float:
        """α at ``step`` (0-based): constant, or geometric from ``alpha`` to ``alpha_final`` over the steps."""
        return self._schedule(self.alpha, self.alpha_final, step)

    def lr_at(self, step: int) -> float:
        return self._schedule(self.lr, self.lr_final, step)

    def _schedule(self, first: float, last: float | None, step: int) -> float:
        if last is None or self.steps <= 1:
            return first
        return float(first * (last / first) ** (min(step, self.steps - 1) / (self.steps - 1)))


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
    _t: int = 0  # Adam's steps
    best: tuple[int, float, Net] | None = None  # (step, exact exploitability, network) at the lowest measured point
    target: FloatArray | None = None  # MMD: the last step's target policy [edge, hand]
    fit_weight: FloatArray | None = None  # MMD: the last step's fit weights [edge, hand]
    fit_kl: tuple[float, float] | None = None  # MMD: the last step's weighed KL(target ‖ network) before and after
    # its fit, per unit of weight (how far the step asked the network to move, and how far it was left short)
    x: FloatArray = field(default_factory=lambda: np.zeros((0, 0)))  # the tree's feature rows, as the net reads them
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))  # the fit's mini-batches

    def __post_init__(self) -> None:
        if not self.x.size:
            self.x = self.tree.x

    @classmethod
    def create(cls, tree: Tree, config: TrainConfig) -> Learner:
        net = Net.create(tree.x.shape[1], config.hidden, config.seed)
        dtype = np.float32 if config.float32 else np.float64
        net.params = [p.astype(dtype) for p in net.params]
        learner = cls(tree, config, net, np.zeros((len(tree.parent), tree.fmt.size)),
                      x=tree.x.astype(dtype, copy=False), rng=np.random.default_rng(config.seed))
        moving = config.magnet_every or config.magnet_tau
        learner.magnet = learner.log_policy() if moving else learner._uniform()
        return learner

    def _uniform(self) -> FloatArray:
        counts = np.bincount(self.tree.edge_seg)[self.tree.edge_seg].astype(np.float64)
        return np.repeat(-np.log(counts)[:, None], self.tree.fmt.size, axis=1)

    def log_policy(self, net: Net | None = None) -> FloatArray:
        return self.tree.log_policy((net or self.net).logits(self.x).astype(np.float64))

    def strategy(self, name: str = "neural", net: Net | None = None) -> NeuralStrategy:
        return NeuralStrategy((net or self.net).copy(), self.config.window, name, self.config.summary,
                              self.config.history)

    def exploitability(self) -> float:
        seats = exploitability(self.tree, np.exp(self.log_policy()))
        return float(seats[0] + seats[1]) / 2

    def _sweep(self, logp: FloatArray, alpha: float, tremble: float = 0.0) -> _Sweep:
        """One pass over the tree under the policy ``exp(logp)``: reaches top-down, values bottom-up.

        ``tremble`` is added to the other seat's reach where the action values weigh its hands (``qv``, ``mass``)."""
        tree, w = self.tree, self.tree.fmt.weights
        seat0 = tree.edge_actor == 0
        pi = np.exp(logp)
        lr = logp - self.magnet
        r = tree.reach(pi)
        v = np.zeros((tree.nodes, tree.fmt.size, tree.fmt.size))
        v[tree.terminals] = tree.pay
        qv = np.zeros_like(pi)
        mass = np.zeros(len(pi))
        for lv in reversed(tree.levels):
            e = slice(lv.lo, lv.hi)
            s0 = seat0[e]
            vc = v[tree.child[e]]
            # the acting seat's value of each action after its own −α log(π/ρ), and seat 0's
            own = np.where(s0[:, None, None], vc, -vc)
            soft = own - alpha * _broadcast(lr[e], s0)
            v[lv.nodes] = np.add.reduceat(_broadcast(pi[e], s0) * np.where(s0[:, None, None], soft, -soft),
                                          lv.starts, axis=0)
            opp = w * (r[tree.parent[e], np.where(s0, 1, 0), :] + tremble)  # [edge, hand of the other seat]
            qv[e] = np.where(s0[:, None], (own * opp[:, None, :]).sum(2), (own * opp[:, :, None]).sum(1))
            mass[e] = opp.sum(1)
        return _Sweep(float(w @ v[0] @ w), pi, lr, r, qv, mass)

    def gradients(self, nets: tuple[Net, Net] | None = None) -> tuple[float, list[list[FloatArray]]]:
        """(seat 0's regularised value, [the gradient of each seat's own value w.r.t. its net's params]).

        ``nets`` gives each seat its own network (the tests' finite differences); in self-play (one network)
        the list holds one entry, the two seats' gradients summed."""
        tree, cfg = self.tree, self.config
        alpha = cfg.alpha_at(self.step)
        pair = nets or (self.net, self.net)
        fwd = [pair[0].forward(self.x)]
        fwd.append(fwd[0] if pair[1] is pair[0] else pair[1].forward(self.x))
        seat0 = tree.edge_actor == 0
        z = np.where(seat0[:, None], fwd[0][0][tree.rows], fwd[1][0][tree.rows])
        sw = self._sweep(tree.log_policy(z, rows=False), alpha)
        # the acting seat's value of each action, the other seat's hands weighed by their reach and chance
        q = sw.qv - alpha * sw.lr * sw.mass[:, None]
        mean = np.add.reduceat(sw.pi * q, tree.seg_starts, axis=0)[tree.edge_seg]
        gz = self._weight(sw) * (q - mean) * (1.0 if cfg.rule == "neurd" else sw.pi)
        if cfg.rule == "neurd":  # NeuRD's threshold: no logit pushed further than ±beta from its decision's mean
            counts = np.diff(np.append(tree.seg_starts, len(z)))[:, None]
            centred = z - (np.add.reduceat(z, tree.seg_starts, axis=0) / counts)[tree.edge_seg]
            gz = np.where(((gz > 0) & (centred > cfg.beta)) | ((gz < 0) & (centred < -cfg.beta)), 0.0, gz)
        if pair[1] is pair[0]:  # self-play: one backward pass for both seats' (summed) gradients
            return sw.value, [pair[0].backward(fwd[0][1], self._rows(gz))]
        grads = []
        for seat in (0, 1):
            mine = (tree.edge_actor == seat)[:, None]
            grads.append(pair[seat].backward(fwd[seat][1], self._rows(np.where(mine, gz, 0.0))))
        return sw.value, grads

    def _weight(self, sw: _Sweep) -> FloatArray:
        """How much each (decision, hand of the acting seat) counts (see the module's note on ``mode``)."""
        w, mode = self.tree.fmt.weights, self.config.mode
        if mode == "reach":
            out: FloatArray = w * sw.r[self.tree.parent, self.tree.edge_actor, :]
        elif mode == "cf":
            out = np.broadcast_to(w, sw.pi.shape)
        else:
            out = w / np.maximum(sw.mass, 1e-300)[:, None]
        return out

    def _rows(self, per_edge: FloatArray) -> FloatArray:
        """[edge, hand] → summed onto the unique feature rows."""
        out: FloatArray = np.bincount(self.tree.rows.ravel(), weights=per_edge.ravel(),
                                      minlength=len(self.tree.x)).astype(np.float64)
        return out

    def _adam(self, grad: list[FloatArray], lr: float) -> None:
        """One Adam ascent step."""
        self._t += 1
        b1, b2, eps = self.config.beta1, 0.999, 1e-8
        if not self._m:
            self._m = [np.zeros_like(p) for p in self.net.params]
            self._v = [np.zeros_like(p) for p in self.net.params]
        for i, p in enumerate(self.net.params):
            g = grad[i]
            self._m[i] = b1 * self._m[i] + (1 - b1) * g
            self._v[i] = b2 * self._v[i] + (1 - b2) * g * g
            m_hat = self._m[i] / (1 - b1**self._t)
            v_hat = self._v[i] / (1 - b2**self._t)
            p += lr * m_hat / (np.sqrt(v_hat) + eps)

    def _mmd(self) -> None:
        """Magnetic mirror descent: each decision's closed-form step in policy space, then the net fitted to it.

        ``π' ∝ (π ρ^{αη} e^{η q})^{1/(1+αη)}`` with ``q`` the acting seat's expected value of each action at
        that decision (the other seat's hands weighed by their reach and chance, normalised); the network
        then takes ``fit_steps`` Adam steps down the weighed KL(π' ‖ π_θ)."""
        tree, cfg = self.tree, self.config
        alpha, eta = cfg.alpha_at(self.step), cfg.eta
        logp = self.log_policy()
        sw = self._sweep(logp, alpha, cfg.belief_floor)
        q = sw.qv / np.maximum(sw.mass, 1e-300)[:, None]
        target = (logp + alpha * eta * self.magnet + eta * q) / (1 + alpha * eta)
        target = np.exp(tree.log_policy(target, rows=False))
        weight = self._weight(sw) + cfg.floor
        if cfg.reset_adam:
            self._m, self._v, self._t = [], [], 0
        for _ in range(cfg.fit_steps):
            if cfg.batch:
                self._adam(self._batch_gradient(target, weight), cfg.lr_at(self.step))
                continue
            logits, acts = self.net.forward(self.x)
            pi = np.exp(tree.log_policy(logits.astype(np.float64)))
            grad = self._rows(weight * (target - pi)).astype(self.x.dtype)
            self._adam(self.net.backward(acts, grad), cfg.lr_at(self.step))
        self.target = np.log(np.maximum(target, 1e-300))
        self.fit_weight = weight
        wt = weight * target
        norm = float(wt.sum())
        self.fit_kl = (float((wt * (self.target - logp)).sum()) / norm,
                       float((wt * (self.target - self.log_policy())).sum()) / norm)

    def _batch_gradient(self, target: FloatArray, weight: FloatArray) -> list[FloatArray]:
        """The fit's gradient estimated from ``config.batch`` (decision, hand) pairs drawn in proportion to their
        weight (a decision's weight is the same on each of its edges), each scaled so the sum is unbiased."""
        tree, k = self.tree, self.tree.fmt.size
        cum = np.cumsum(weight[tree.seg_starts].ravel())  # [decision × hand]
        draws = self.rng.random(self.config.batch) * cum[-1]
        seg, hand = np.divmod(np.minimum(np.searchsorted(cum, draws, side="right"), len(cum) - 1), k)
        size = np.diff(np.append(tree.seg_starts, len(tree.parent)))[seg]  # each drawn decision's actions
        starts = np.concatenate(([0], np.cumsum(size)[:-1]))
        edges = np.repeat(tree.seg_starts[seg] - starts, size) + np.arange(size.sum())
        hands = np.repeat(hand, size)
        logits, acts = self.net.forward(self.x[tree.rows[edges, hands]])
        z = logits.astype(np.float64)
        e = np.exp(z - np.repeat(np.maximum.reduceat(z, starts), size))
        pi = e / np.repeat(np.add.reduceat(e, starts), size)
        grad = (target[edges, hands] - pi) * (cum[-1] / self.config.batch)
        return self.net.backward(acts, grad.astype(self.x.dtype))

    def row_projection_kl(self, steps: int = 300, lr: float = 0.05) -> float | None:
        """MMD: the weighed KL(target ‖ ·) left when the last step's target is fitted by a free logit per feature
        row instead of the network (Adam from the network's logits): what no network on these features can beat."""
        if self.target is None or self.fit_weight is None:
            return None
        tree, weight, target = self.tree, self.fit_weight, np.exp(self.target)
        z = self.net.logits(self.x).astype(np.float64)
        m, v = np.zeros_like(z), np.zeros_like(z)
        for t in range(1, steps + 1):
            g = self._rows(weight * (target - np.exp(tree.log_policy(z))))
            m = 0.9 * m + 0.1 * g
            v = 0.999 * v + 0.001 * g * g
            z += lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
        wt = weight * target
        return float((wt * (self.target - tree.log_policy(z))).sum()) / float(wt.sum())

    def target_exploitability(self) -> float | None:
        """MMD: the exact exploitability of the last step's target as a table (what the network was fitted to)."""
        if self.target is None:
            return None
        seats = exploitability(self.tree, np.exp(self.target))
        return float(seats[0] + seats[1]) / 2

    def update(self) -> None:
        """One step of the configured rule (both seats, one network), then the magnet if it is due."""
        if self.config.rule == "mmd":
            self._mmd()
        else:
            _, (grad,) = self.gradients()
            self._adam(grad, self.config.lr_at(self.step))
        self.step += 1
        if self.config.magnet_tau:
            tau = self.config.magnet_tau
            self.magnet = self.tree.log_policy((1 - tau) * self.magnet + tau * self.log_policy(), rows=False)
        elif self.config.magnet_every and self.step % self.config.magnet_every == 0:
            use_target = self.config.magnet_from == "target" and self.target is not None
            self.magnet = self.target.copy() if use_target and self.target is not None else self.log_policy()


@dataclass(frozen=True)
class _Sweep:
    value: float  # seat 0's regularised value
    pi: FloatArray  # [edge, hand of the acting seat]
    lr: FloatArray  # log(π/ρ), same layout
    r: FloatArray  # [node, seat, hand]: own reach
    qv: FloatArray  # [edge, hand]: the acting seat's value of the action, the other's hands weighed by reach × chance
    mass: FloatArray  # [edge]: the other seat's reach × chance, summed over its hands


def train(fmt: Format, config: TrainConfig, report: Callable[[int, float], None] | None = None,
          tree: Tree | None = None, learner: Learner | None = None) -> tuple[Learner, list[tuple[int, float]]]:
    """Train for ``config.steps``; the exact exploitability at step 0, every ``config.every`` and at the end.

    ``learner`` (made by :meth:`Learner.create`) lets the caller read it while it trains, e.g. from ``report``.
    ``learner.best`` is then the network at the lowest measured point (step, value, network): a selection by
    the exact best response, which only the small formats have."""
    if learner is None:
        learner = Learner.create(tree or Tree.build(fmt, config.window, config.summary, config.history), config)
    curve: list[tuple[int, float]] = []

    def measure() -> None:
        value = learner.exploitability()
        curve.append((learner.step, value))
        if learner.best is None or value < learner.best[1]:
            learner.best = (learner.step, value, learner.net.copy())
        if report is not None:
            report(learner.step, value)

    measure()
    for _ in range(config.steps):
        learner.update()
        if learner.step % config.every == 0 or learner.step == config.steps:
            measure()
    return learner, curve


def tabular_mmd(tree: Tree, config: TrainConfig, report: Callable[[int, float], None] | None = None,
                ) -> list[tuple[int, float]]:
    """The same MMD steps with a table (a policy per decision and hand) instead of the network: what the step
    does when nothing has to be fitted, the reference the network's run is compared with.  The exact
    exploitability at step 0, every ``config.every`` and at the end."""
    learner = Learner.create(tree, dataclasses.replace(config, magnet_every=0, magnet_tau=0.0))  # starts from uniform
    logp = learner.magnet.copy()
    curve: list[tuple[int, float]] = []
    for step in range(config.steps + 1):
        if step % config.every == 0 or step == config.steps:
            seats = exploitability(tree, np.exp(logp))
            curve.append((step, (seats[0] + seats[1]) / 2))
            if report is not None:
                report(*curve[-1])
        if step == config.steps:
            break
        alpha, eta = config.alpha_at(step), config.eta
        sw = learner._sweep(logp, alpha, config.belief_floor)
        q = sw.qv / np.maximum(sw.mass, 1e-300)[:, None]
        logp = tree.log_policy((logp + alpha * eta * learner.magnet + eta * q) / (1 + alpha * eta), rows=False)
        if config.magnet_tau:
            tau = config.magnet_tau
            learner.magnet = tree.log_policy((1 - tau) * learner.magnet + tau * logp, rows=False)
        elif config.magnet_every and (step + 1) % config.magnet_every == 0:
            learner.magnet = logp.copy()
    return curve
