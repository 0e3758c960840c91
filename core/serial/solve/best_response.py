"""The exact best response to a strategy in a 2-player format, by backward induction over the public tree.

The tree is walked with the engine's own :class:`~core.serial.round.Round` (copied at each branch),
so the rules are the engine's.  At every node the opponent's hand is a vector over hand classes: the
chance of each class times the probability that the strategy, holding it, took every action so far
(:func:`core.serial.players.base.policy_of`, its exact mixture).  The responder's value is a vector
over its own hand classes; at its decisions it takes the best action for each hand separately (it
sees its hand and the public history, nothing else), at the strategy's it sums over the actions.

Two nodes with the same public state (standing bid, bidder, phase, challengers), the same
strategy memory (:func:`~core.serial.players.base.memo_key_of`: nothing for the Markov players, the
reading for ``reader``) and proportional opponent vectors have proportional values, so each is
computed once (exact: the vectors are compared after normalising, to 12 decimals).  The memo holds
each key as a 128-bit BLAKE2b digest of its text and each value as float64 bytes, not the key's
tuples of floats: where a strategy's memory tells almost every history apart (the trained reader's
mixed dials) the memo holds a node for nearly every history, and the tuples took ~1.2 KB a node
(3×3 ran out of memory); a digest collision, the one way the lean memo can err, has a chance of
about n²/2¹²⁹ among n nodes.

The figures: ``value(seat)`` is what the best response earns per round in that seat (seat 0 opens),
and :func:`exploitability` averages the two seats.  Deviations: at the first few decisions the
responder's gain over what the strategy itself would do in its seat, summed by situation, so the
report can say in words where the strategy leaks.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from core.serial.bids import Bid
from core.serial.players.base import Strategy, bid_text, memo_key_of, policy_of
from core.serial.round import Action, CallCount, Challenge, MakeBid, Phase, Round
from core.serial.view import SeatView, seat_view

from .format import SEATS, FloatArray, Format

__all__ = ["BestResponse", "Deviation", "Exploitability", "action_key", "exploitability"]

ActionKey = tuple[str, int]


def action_key(action: Action) -> ActionKey:
    if isinstance(action, MakeBid):
        return ("bid", action.bid.id)
    return ("challenge", -1) if isinstance(action, Challenge) else ("count", -1)


@dataclass(frozen=True, slots=True)
class Deviation:
    """Where a best response gains most against a strategy: a situation and what it does there."""

    situation: str
    action: str
    gain: float  # units per round (both seats averaged) over playing the strategy's own choice there

    def text(self) -> str:
        return f"{self.situation}: {self.action} (+{self.gain:.4f} units/round)"


@dataclass(slots=True)
class _Entry:
    value: FloatArray
    deviations: dict[tuple[str, str], float]


@dataclass
class BestResponse:
    """The best response to ``strategy`` (which plays the other seat) in ``fmt``."""

    fmt: Format
    strategy: Strategy
    track_depth: int = 3
    nodes: int = 0
    _memo: dict[bytes, tuple[bytes, dict[tuple[str, str], float] | None]] = field(default_factory=dict)

    def value(self, br_seat: int) -> tuple[float, dict[tuple[str, str], float]]:
        """(units per round the best response earns in ``br_seat``, its deviation gains by situation)."""
        fmt = self.fmt
        serial = fmt.serials[0]
        root = Round(fmt.rules, SEATS, dict.fromkeys(SEATS, serial), SEATS[0], 1)
        self._memo = {}
        self._br = br_seat
        entry = self._value(root, fmt.weights.copy(), 0)
        total = float(fmt.weights @ entry.value)
        devs = {k: v for k, v in entry.deviations.items()}
        return total, devs

    # -- the recursion -------------------------------------------------------------------------------
    def _views(self, rnd: Round, seat: int) -> list[SeatView]:
        view = seat_view(rnd, SEATS[seat])
        return [dataclasses.replace(view, serial=s) for s in self.fmt.serials]

    def _policy(self, views: list[SeatView], legal: dict[ActionKey, Action]) -> FloatArray:
        """[hand, legal action] probabilities of the strategy."""
        keys = list(legal)
        col = {k: i for i, k in enumerate(keys)}
        out = np.zeros((len(views), len(keys)))
        for h, view in enumerate(views):
            for action, p in policy_of(self.strategy, view):
                out[h, col[action_key(action)]] += p
        return out

    def _terminal(self, rnd: Round, reach: FloatArray) -> FloatArray:
        outcome = rnd.outcome
        assert outcome is not None
        m = self.fmt.payoff(self.fmt.bid_index[outcome.bid.id], SEATS.index(outcome.bidder))
        if self._br == 0:  # rows: the responder's hand; payoff to seat 0
            return m @ reach
        return -(reach @ m)

    def _value(self, rnd: Round, reach: FloatArray, depth: int) -> _Entry:
        self.nodes += 1
        k = self.fmt.size
        if rnd.is_over:
            return _Entry(self._terminal(rnd, reach), {})
        total = float(reach.sum())
        if total <= 0.0:
            return _Entry(np.zeros(k), {})
        sigma_seat = 1 - self._br
        sigma_view = seat_view(rnd, SEATS[sigma_seat])
        memory = memo_key_of(self.strategy, sigma_view)
        if memory is None:
            memory = ("history", *(repr(a) for a in rnd.history))
        norm = reach / total
        key = (
            rnd.standing_bid.id if rnd.standing_bid is not None else -1,
            rnd.bidder,
            rnd.phase,
            rnd.standing_is_rebid,
            rnd.challengers,
            rnd.to_act,
            memory,
            tuple(np.round(norm, 12)),
        )
        digest = hashlib.blake2b(repr(key).encode(), digest_size=16).digest()
        stored = self._memo.get(digest)
        if stored is None:
            hit = self._compute(rnd, norm, depth)
            stored = (hit.value.astype(np.float64).tobytes(), hit.deviations or None)
            self._memo[digest] = stored
        value = np.frombuffer(stored[0], dtype=np.float64) * total
        return _Entry(value, {s: g * total for s, g in (stored[1] or {}).items()})

    def _compute(self, rnd: Round, reach: FloatArray, depth: int) -> _Entry:
        legal = {action_key(a): a for a in rnd.legal_actions()}
        devs: dict[tuple[str, str], float] = defaultdict(float)
        actor = SEATS.index(rnd.to_act or "")
        if actor != self._br:
            probs = self._policy(self._views(rnd, actor), legal)
            value = np.zeros(self.fmt.size)
            for j, action in enumerate(legal.values()):
                col = probs[:, j]
                if not col.any():
                    continue
                child = rnd.copy()
                child.apply(action)
                sub = self._value(child, reach * col, depth + 1)
                value += sub.value
                for s, g in sub.deviations.items():
                    devs[s] += g
            return _Entry(value, dict(devs))
        children: list[FloatArray] = []
        below: list[dict[tuple[str, str], float]] = []
        actions = list(legal.values())
        for action in actions:
            child = rnd.copy()
            child.apply(action)
            sub = self._value(child, reach, depth + 1)
            children.append(sub.value)
            below.append(sub.deviations)
        stacked = np.stack(children, axis=1)  # [hand, action]
        best = stacked.argmax(axis=1)
        value = stacked[np.arange(self.fmt.size), best]
        # The deviations further down count where the responder goes: each child's, by the share of
        # hands (chance-weighted) that choose it (exact when one action is best for every hand).
        weights = self.fmt.weights
        for j, sub_devs in enumerate(below):
            share = float(weights[best == j].sum() / weights.sum())
            if share > 0:
                for s, g in sub_devs.items():
                    devs[s] += g * share
        if depth <= self.track_depth:
            own = self._policy(self._views(rnd, actor), legal)
            reference = (own * stacked).sum(axis=1)
            for h in range(self.fmt.size):
                gain = (value[h] - reference[h]) * weights[h]
                if gain > 1e-12:
                    devs[self._label(rnd, actions[best[h]], self.fmt.hands[h])] += gain
        return _Entry(value, dict(devs))

    def _label(self, rnd: Round, action: Action, hand: tuple[int, ...]) -> tuple[str, str]:
        digits = self.fmt.digits
        standing = rnd.standing_bid

        def held(bid: Bid) -> int:
            return hand[digits.index(bid.digit)]

        if standing is None:
            assert isinstance(action, MakeBid)
            return ("as opener", f"opens {bid_text(action.bid)} holding {held(action.bid)} of them")
        if rnd.phase is Phase.REBID:
            situation = f"its {bid_text(standing)} challenged (holding {held(standing)})"
            if isinstance(action, CallCount):
                return (situation, "calls for the count")
            assert isinstance(action, MakeBid)
            return (situation, f"rebids {bid_text(action.bid)} holding {held(action.bid)} of them")
        rebid = " (a rebid)" if rnd.standing_is_rebid else ""
        situation = f"facing {bid_text(standing)}{rebid} holding {held(standing)}"
        if isinstance(action, Challenge):
            return (situation, "challenges")
        assert isinstance(action, MakeBid)
        return (situation, f"raises to {bid_text(action.bid)} holding {held(action.bid)} of them")


@dataclass(frozen=True)
class Exploitability:
    """A best response's earnings against a strategy in each seat, and the average (the exploitability)."""

    strategy: str
    fmt: str
    seat_values: tuple[float, float]
    deviations: tuple[Deviation, ...]
    nodes: int

    @property
    def value(self) -> float:
        return (self.seat_values[0] + self.seat_values[1]) / 2


def exploitability(fmt: Format, strategy: Strategy, *, top: int = 6, track_depth: int = 3) -> Exploitability:
    """The exact exploitability of ``strategy`` in ``fmt`` (units per round, both seats averaged)."""
    br = BestResponse(fmt, strategy, track_depth=track_depth)
    values: list[float] = []
    devs: dict[tuple[str, str], float] = defaultdict(float)
    for seat in (0, 1):
        v, d = br.value(seat)
        values.append(v)
        for label, g in d.items():
            devs[label] += g / 2
    ranked = sorted(devs.items(), key=lambda kv: -kv[1])[:top]
    deviations = tuple(Deviation(s, a, g) for (s, a), g in ranked)
    return Exploitability(strategy.name, fmt.rules.format_name, (values[0], values[1]), deviations, br.nodes)
