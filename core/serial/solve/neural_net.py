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

With ``summary`` (off by default: the input is then as before) the features also read a summary of the
whole history: whether I opened the round, how many bids were made, each earlier bid's digit rank in the
window, and for the standing bid's digit and for a raise's digit: the highest quantity of it each side
(I / the others) has named so far, how many times each side named it, and whether I named it.

With ``history`` (off by default) the features also read the whole history and the whole hand, as OpenSpiel's
liars_poker observation does: for every bid of the format (:func:`history_width`), whether I made it and whether
another player made it, and the copies held of every digit (the other features read only the digits of the
recent bids and the action).  Heads-up that is perfect recall (bids only rise, and the same seat bids twice
running only by a rebid, so the bits say who made each bid and which were rebids; the phase flags say the rest),
but it is the one input that is *not* format-general: its width is the format's number of bids and digits (3×2:
12 bids and 3 digits, 27 features).

What the features depend on is the public state plus the last ``window`` bids, with ``summary`` that
summary, and with ``history`` every bid and whether I made it (:meth:`NeuralStrategy.memo_key`), so a
best-response search may merge histories that agree there.
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

__all__ = ["FEATURES", "Net", "NeuralStrategy", "feature_rows", "history_width", "window_key"]

_STATE = ["opening", "rebid_phase", "standing_is_rebid", "standing_q", "standing_rank", "standing_held",
          "standing_p", "max_held"]
_PAST = ["exists", "mine", "q", "same_digit", "held"]
_ACTION = ["raise", "challenge", "count", "q", "rank", "held", "p_win", "same_as_standing", "jump",
           "same_as_window", "multiplier"]
_DIGIT = ["my_max", "my_times", "their_max", "their_times", "i_named"]  # a digit's summary (``summary``)
WINDOW = 3


def feature_names(window: int = WINDOW, summary: bool = False, history: int = 0, digits: int = 0,
                  ) -> tuple[str, ...]:
    """The features' names; ``history`` and ``digits`` are the format's numbers of bids (:func:`history_width`)
    and of digits when the features read the whole history and hand, else 0."""
    past = [f"bid-{k}_{n}" for k in range(1, window) for n in _PAST]
    names = _STATE + past + [f"action_{n}" for n in _ACTION]
    if summary:
        names += ["opener", "bids_made", *(f"bid-{k}_rank" for k in range(1, window))]
        names += [f"standing_{n}" for n in _DIGIT] + [f"action_{n}" for n in _DIGIT]
    names += [f"bid{i}_{who}" for i in range(history) for who in ("mine", "theirs")]
    names += [f"held_digit{r}" for r in range(digits)]
    return tuple(names)


def history_width(view: SeatView) -> int:
    """The number of bids of the view's format (quantities 1 to every serial's length, times the digits)."""
    return view.rules.serial_length * view.n * len(view.rules.digit_set)


def _history_bits(view: SeatView) -> list[float]:
    """For every bid of the format, in ascending order: (I made it, another player made it); then the copies held
    of every digit, in rank order, over the serial length."""
    digits = view.rules.digit_set
    bits = [0.0] * (2 * history_width(view))
    for action in view.history:
        if isinstance(action, MakeBid):
            i = (action.bid.quantity - 1) * len(digits) + digits.index(action.bid.digit)
            bits[2 * i + (action.player != view.me)] = 1.0
    return bits + [view.serial.counts[d] / view.rules.serial_length for d in digits]


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


@dataclass(frozen=True)
class _Named:
    """The history's summary (``summary``): whether I opened, the bids made, and per digit, for me and for the
    others, (the highest quantity named, how many times named)."""

    opener: bool
    bids: int
    mine: dict[int, tuple[int, int]]
    theirs: dict[int, tuple[int, int]]

    @classmethod
    def of(cls, view: SeatView) -> _Named:
        mine: dict[int, tuple[int, int]] = {}
        theirs: dict[int, tuple[int, int]] = {}
        bids = 0
        for action in view.history:
            if isinstance(action, MakeBid):
                bids += 1
                side = mine if action.player == view.me else theirs
                q, times = side.get(action.bid.digit, (0, 0))
                side[action.bid.digit] = (max(q, action.bid.quantity), times + 1)
        opener = (view.history[0].player if view.history else view.me) == view.me
        return cls(opener, bids, mine, theirs)

    def key(self) -> tuple[object, ...]:
        return (self.opener, self.bids, tuple(sorted(self.mine.items())), tuple(sorted(self.theirs.items())))

    def digit(self, d: int, total: int) -> list[float]:
        """The summary features of digit ``d`` (:data:`_DIGIT`)."""
        my_q, my_times = self.mine.get(d, (0, 0))
        their_q, their_times = self.theirs.get(d, (0, 0))
        return [my_q / total, my_times / total, their_q / total, their_times / total, float(my_times > 0)]


def window_key(view: SeatView, window: int = WINDOW, summary: bool = False,
               history: bool = False) -> tuple[object, ...]:
    """Everything besides the public state and the serial the features read (see the module's note)."""
    key = (view.phase, view.standing_is_rebid,
           tuple((b.id, mine) for b, mine in _recent_bids(view, len(view.history) if history else window)))
    return (*key, *_Named.of(view).key()) if summary else key


def feature_rows(view: SeatView, window: int = WINDOW, summary: bool = False, history: bool = False,
                 ) -> tuple[list[Action], list[list[float]]]:
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
    named = _Named.of(view) if summary else None
    extra: list[float] = []  # the summary's features of the state, after the action's own
    if named is not None:
        extra = [float(named.opener), named.bids / total]
        extra += [rank[recent[k][0].digit] if k < len(recent) else 0.0 for k in range(1, window)]
        extra += [0.0] * len(_DIGIT) if standing is None else named.digit(standing.digit, total)
    no_digit = [0.0] * len(_DIGIT) if summary else []
    bits = _history_bits(view) if history else []  # the whole history's and hand's, after everything else
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
            math.log2(mult) / 3, *extra, *(named.digit(d, total) if named is not None else []), *bits,
        ])
    # the answers: no bid's features, only the chance the answer wins
    if legal.challenge:
        actions.append(Challenge(view.me))
        rows.append([*state, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0 - p_standing, 0.0, 0.0, 0.0, 0.0, *extra, *no_digit,
                     *bits])
    if legal.call_count:
        actions.append(CallCount(view.me))
        rows.append([*state, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, p_standing, 0.0, 0.0, 0.0, 0.0, *extra, *no_digit, *bits])
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
    summary: bool = False  # the features also read the history's summary (see the module's note)
    history: bool = False  # the features also read the whole history (see the module's note)
    _cache: dict[tuple[object, ...], list[float]] = field(default_factory=dict, repr=False)

    def policy(self, view: SeatView) -> list[tuple[Action, float]]:
        actions, rows = feature_rows(view, self.window, self.summary, self.history)
        key = (view.rules, view.n, view.serial.counts, view.standing_bid.id if view.standing_bid else -1, len(actions),
               view.legal.challenge, view.legal.call_count, self.memo_key(view))
        probs = self._cache.get(key)
        if probs is None:
            probs = [float(p) for p in softmax(self.net.logits(np.array(rows)))]
            self._cache[key] = probs
        return list(zip(actions, probs, strict=True))

    def memo_key(self, view: SeatView) -> tuple[object, ...]:
        return window_key(view, self.window, self.summary, self.history)

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        pairs = self.policy(view)
        return pairs[choice_index([p for _, p in pairs], rng)][0]

    def explain(self, view: SeatView) -> str:
        return f"My network's likeliest choices here: {mix_text(self.policy(view))}."
