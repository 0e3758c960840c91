"""A small numpy MLP that scores each legal action from format-general features, and the strategy it plays.

The policy at a decision is the exact softmax of the network's score of every legal action
(:meth:`NeuralStrategy.policy`), so the exact best response (:mod:`core.serial.solve.best_response`)
reads it as it is.  Nothing in the input is a one-hot of a format's bids or history: every feature is
a count, a probability or a rank *relative to the format* (quantities over the table's total digits,
ranks over the digits in play, copies held over the serial length), so the same network, with the
same input width, scores an action in 2×2 or at 8×10 with 2 to 12 players.

The features of one (view, action) pair (:data:`FEATURES` names them):

* the state: opening / deciding on a rebid / the standing bid is a rebid; the standing bid's quantity
  and digit rank; copies of its digit held; P(it is true) from one's own serial (exact binomial);
  the largest count held; and for each of the ``window − 1`` bids before the standing one (most recent
  first): whether it exists, whether I made it, its quantity, whether its digit is the standing one's,
  and how many of its digit I hold;
* the action: raise / challenge / count; for a raise its quantity, digit rank, copies held, how far
  above the smallest legal raise it is, whether its digit is the standing one's or that of a bid in
  the window, and the table's size/sixes multiplier; for every action the chance it wins from one's
  own serial (a raise: the bid is true; a challenge: the standing bid is false; the count: it is true).

What the features depend on is the public state plus the last ``window`` bids
(:meth:`NeuralStrategy.memo_key`), so a best-response search may merge histories that agree there.
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass, field

import numpy as np

from core.serial.bids import Bid
from core.serial.odds import at_least
from core.serial.players.base import base_multiplier, choice_index
from core.serial.players.solved import mix_text
from core.serial.round import Action, CallCount, Challenge, MakeBid, Phase
from core.serial.view import SeatView

from .format import FloatArray

__all__ = ["FEATURES", "Net", "NeuralStrategy", "feature_rows", "window_key"]

_STATE = ["opening", "rebid_phase", "standing_is_rebid", "standing_q", "standing_rank", "standing_held",
          "standing_p", "max_held"]
_PAST = ["exists", "mine", "q", "same_digit", "held"]
_ACTION = ["raise", "challenge", "count", "q", "rank", "held", "p_win", "same_as_standing", "jump",
           "same_as_window", "multiplier"]
WINDOW = 3


def feature_names(window: int = WINDOW) -> tuple[str, ...]:
    past = [f"bid-{k}_{n}" for k in range(1, window) for n in _PAST]
    return tuple(_STATE + past + [f"action_{n}" for n in _ACTION])


FEATURES = feature_names()


def _recent_bids(view: SeatView, window: int) -> list[tuple[Bid, bool]]:
    """The last ``window`` bids, most recent (the standing one) first, each with whether I made it."""
    out: list[tuple[Bid, bool]] = []
    for action in reversed(view.history):
        if isinstance(action, MakeBid):
            out.append((action.bid, action.player == view.me))
            if len(out) == window:
                break
    return out


def window_key(view: SeatView, window: int = WINDOW) -> tuple[object, ...]:
    """Everything besides the public state and the serial the features read (see the module's note)."""
    return (view.phase, view.standing_is_rebid, tuple((b.id, mine) for b, mine in _recent_bids(view, window)))


def feature_rows(view: SeatView, window: int = WINDOW) -> tuple[list[Action], list[list[float]]]:
    """The legal actions of ``view`` (in ``view.legal``'s order) and one feature row for each."""
    rules = view.rules
    digits = rules.digit_set
    top_rank = max(len(digits) - 1, 1)
    rank = {d: i / top_rank for i, d in enumerate(digits)}
    length = rules.serial_length
    total = length * view.n
    others = length * (view.n - 1)
    values = max(len(digits), 2)
    counts = view.serial.counts

    def p_true(q: int, d: int) -> float:
        return at_least(q - counts[d], others, values)

    recent = _recent_bids(view, window)
    standing = view.standing_bid
    state: list[float] = [
        float(standing is None), float(view.phase is Phase.REBID), float(view.standing_is_rebid),
    ]
    if standing is None:
        state += [0.0, 0.0, 0.0, 0.0]
        p_standing = 0.0
    else:
        p_standing = p_true(standing.quantity, standing.digit)
        state += [standing.quantity / total, rank[standing.digit], counts[standing.digit] / length, p_standing]
    state.append(max(counts[d] for d in digits) / length)
    past_digits: list[int] = []
    for k in range(1, window):
        if k < len(recent):
            bid, mine = recent[k]
            past_digits.append(bid.digit)
            same = standing is not None and bid.digit == standing.digit
            state += [1.0, float(mine), bid.quantity / total, float(same), counts[bid.digit] / length]
        else:
            state += [0.0] * len(_PAST)
    actions: list[Action] = []
    rows: list[list[float]] = []
    legal = view.legal
    for j, bid in enumerate(legal.bids()):
        q, d = bid.quantity, bid.digit
        mult = base_multiplier(view, q, d)
        actions.append(MakeBid(view.me, bid))
        rows.append([
            *state, 1.0, 0.0, 0.0, q / total, rank[d], counts[d] / length, p_true(q, d),
            float(standing is not None and d == standing.digit), j / values, float(d in past_digits),
            math.log2(mult) / 3,
        ])
    # the answers: no bid's features, only the chance the answer wins
    if legal.challenge:
        actions.append(Challenge(view.me))
        rows.append([*state, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0 - p_standing, 0.0, 0.0, 0.0, 0.0])
    if legal.call_count:
        actions.append(CallCount(view.me))
        rows.append([*state, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, p_standing, 0.0, 0.0, 0.0, 0.0])
    return actions, rows


@dataclass
class Net:
    """Scores: ``x → tanh(x W₁ + b₁) → … → w·h + b``, one logit per feature row."""

    params: list[FloatArray]

    @classmethod
    def create(cls, inputs: int, hidden: tuple[int, ...], seed: int) -> Net:
        rng = np.random.default_rng(seed)
        sizes = [inputs, *hidden, 1]
        params: list[FloatArray] = []
        for a, b in itertools.pairwise(sizes):
            params.append(rng.normal(0.0, 1.0 / math.sqrt(a), size=(a, b)))
            params.append(np.zeros(b))
        params[-2] *= 0.1  # start near the uniform policy
        return cls(params)

    def copy(self) -> Net:
        return Net([p.copy() for p in self.params])

    def forward(self, x: FloatArray) -> tuple[FloatArray, list[FloatArray]]:
        """(logits [rows], the activations the backward pass needs)."""
        acts = [x]
        h = x
        layers = len(self.params) // 2
        for i in range(layers):
            h = h @ self.params[2 * i] + self.params[2 * i + 1]
            if i < layers - 1:
                h = np.tanh(h)
            acts.append(h)
        return h[:, 0], acts

    def backward(self, acts: list[FloatArray], grad_logits: FloatArray) -> list[FloatArray]:
        """d(Σ grad_logits · logits)/d params, in ``params``' order."""
        layers = len(self.params) // 2
        grads: list[FloatArray] = [np.zeros(0)] * len(self.params)
        g = grad_logits[:, None]
        for i in range(layers - 1, -1, -1):
            grads[2 * i] = acts[i].T @ g
            grads[2 * i + 1] = g.sum(axis=0)
            if i > 0:
                g = (g @ self.params[2 * i].T) * (1.0 - acts[i] ** 2)
        return grads

    def logits(self, x: FloatArray) -> FloatArray:
        return self.forward(x)[0]


def softmax(z: FloatArray) -> FloatArray:
    e = np.exp(z - z.max())
    out: FloatArray = e / e.sum()
    return out


@dataclass
class NeuralStrategy:
    """Plays the network's exact softmax over the legal actions (2 players and up, any format)."""

    net: Net
    window: int = WINDOW
    name: str = "neural"
    _cache: dict[tuple[object, ...], list[float]] = field(default_factory=dict, repr=False)

    def policy(self, view: SeatView) -> list[tuple[Action, float]]:
        actions, rows = feature_rows(view, self.window)
        key = (view.rules, view.n, view.serial.counts, view.standing_bid.id if view.standing_bid else -1, len(actions),
               view.legal.challenge, view.legal.call_count, self.memo_key(view))
        probs = self._cache.get(key)
        if probs is None:
            probs = [float(p) for p in softmax(self.net.logits(np.array(rows)))]
            self._cache[key] = probs
        return list(zip(actions, probs, strict=True))

    def memo_key(self, view: SeatView) -> tuple[object, ...]:
        return window_key(view, self.window)

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        pairs = self.policy(view)
        return pairs[choice_index([p for _, p in pairs], rng)][0]

    def explain(self, view: SeatView) -> str:
        return f"My network's likeliest choices here: {mix_text(self.policy(view))}."
