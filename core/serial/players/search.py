"""Search from beliefs over the others' holdings: the local best response's engine, shared by the
exploiter (:mod:`core.serial.solve.approx`) and the ``expert`` player (:mod:`.expert`).

A :class:`LocalBestResponse` sits in one seat of one round.  It keeps *particles* — joint holdings of
the other seats — weighed by their prior and by a *model* strategy's exact mixture
(:func:`~core.serial.players.base.policy_of`) for every action the others took; at its own decision
it values each candidate (the challenge or the count, and per digit the smallest raises) over the
particles, assuming the others then play the model and it itself then challenges, and plays the best.
With ``types`` (several models, each with a prior weight) every holding is dealt once per type: a
particle is a holding *and* the model the others play, so the same reweighing infers which model they
are playing, and each particle's continuation draws from its own; types that play alike for the rest of
the round may then be merged (:meth:`LocalBestResponse.merge_types`), the belief over them kept.
See :mod:`core.serial.solve.approx` for the method and its validation.

Pure: every random choice comes from the seeded ``random.Random`` it is handed; no clock.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..bids import Bid
from ..hands import HandClasses
from ..round import Action, CallCount, Challenge, MakeBid, Round
from ..rules import Rules
from ..serials import Serial, deal_serial
from ..view import seat_view
from .base import Strategy, policy_of

__all__ = ["EXACT_BELIEF_LIMIT", "EXPAND_DEPTH", "LIKELIHOOD_FLOOR", "PRUNE", "LocalBestResponse"]

EXACT_BELIEF_LIMIT = 100  # enumerate the others' joint holdings when there are at most this many classes
LIKELIHOOD_FLOOR = 1e-4  # a particle that the strategy would "never" have played keeps this much weight
EXPAND_DEPTH = 3  # the others' decisions summed over exactly after a candidate; deeper ones are sampled
PRUNE = 1e-3  # branches of the others' mixtures below this probability are dropped when summing


_Live = tuple[Round, float, Strategy]  # a particle in the walk: its round, its weight, the model its others play


@dataclass(frozen=True)
class _Particle:
    serials: dict[str, Serial]
    prior: float


def _holdings(rules: Rules, others: Sequence[str], rng: random.Random, particles: int) -> list[_Particle]:
    """The others' joint holdings: every hand class (exact) when few, else ``particles`` dealt from the prior."""
    if rules.digits < 10 or rules.serial_length < 8:
        classes = HandClasses(rules)
        if classes.size ** len(others) <= EXACT_BELIEF_LIMIT:
            out = []
            for combo in itertools.product(range(classes.size), repeat=len(others)):
                prior = math.prod(classes.weights[h] for h in combo)
                out.append(_Particle({p: classes.serials[h] for p, h in zip(others, combo, strict=True)}, prior))
            return out
    return [
        _Particle({p: deal_serial(rng, rules.serial_length, rules.digits) for p in others}, 1.0)
        for _ in range(particles)
    ]


def _probability(strategy: Strategy, round_: Round, action: Action) -> float:
    view = seat_view(round_, action.player)
    return sum(p for a, p in policy_of(strategy, view) if a == action)


def _default(round_: Round) -> Action:
    """The exploiter's own play after its choice: challenge, else call for the count, else the smallest raise."""
    legal = round_.legal_actions()
    who = legal.player
    assert who is not None
    if legal.challenge:
        return Challenge(who)
    if legal.call_count:
        return CallCount(who)
    return MakeBid(who, Bid.from_id(legal.raise_ids[0], round_.rules.rank_order))


class LocalBestResponse:
    """The exploiter for one seat of one round: its belief, updated action by action, and its choices."""

    def __init__(
        self,
        strategy: Strategy,
        round_: Round,
        me: str,
        rng: random.Random,
        *,
        particles: int = 64,
        lookahead: int = 2,
        raises_per_digit: int = 2,
        rollout: bool = False,
        types: Sequence[tuple[Strategy, float]] = (),
    ) -> None:
        """``rollout``: past the lookahead, every particle is played out alone (the others' actions drawn from
        the model, its own by the default continuation) instead of summing the others' mixtures over the
        public tree — far cheaper at 3 or more players, noisier (the ``expert`` player's setting).
        ``types``: the models the others may be playing, with prior weights (summing to 1), instead of
        ``strategy`` alone: each holding is crossed with every type (the holdings dealt as without them)."""
        self.strategy = strategy
        kinds = list(types) or [(strategy, 1.0)]
        self.lookahead = lookahead
        self.raises_per_digit = raises_per_digit
        self.rollout = rollout
        self.me = me
        self.rng = rng
        others = [p for p in round_.players if p != me]
        self.replicas: list[Round] = []
        self.weights: list[float] = []
        self.models: list[Strategy] = []  # the model each particle's others play
        self._types = [model for model, _ in kinds]
        self._kinds = len(kinds)  # particles per holding (consecutive)
        # each particle's make-up over the types (one share per type, summing to 1): one type until merged
        self._shares: list[tuple[float, ...]] = []
        one_hot = [tuple(float(i == t) for i in range(len(kinds))) for t in range(len(kinds))]
        for particle in _holdings(round_.rules, others, rng, particles):
            serials = {me: round_.serials[me], **particle.serials}
            for t, (model, prior) in enumerate(kinds):
                self.replicas.append(Round(round_.rules, round_.players, serials, round_.opener, round_.stake))
                self.weights.append(particle.prior * prior)
                self.models.append(model)
                self._shares.append(one_hot[t])

    def type_weights(self) -> list[tuple[Strategy, float]]:
        """The belief over the types: each type's share of the particles' weight (one entry per type, in the
        order given), merged particles counted by their make-up (:meth:`merge_types`)."""
        total = sum(self.weights)
        mass = [0.0] * len(self._types)
        for w, shares in zip(self.weights, self._shares, strict=True):
            for t, share in enumerate(shares):
                mass[t] += w * share
        return [(model, m / total if total > 0 else 0.0) for model, m in zip(self._types, mass, strict=True)]

    @property
    def holdings(self) -> int:
        """How many holdings of the others its particles deal (each once per type, or per group once merged)."""
        return len(self.replicas) // self._kinds

    def merge_types(self, groups: Sequence[Sequence[int]] | None = None) -> None:
        """Each holding's particles of the types in one group (indices into the types; default: all in one)
        become one: weighted by their sum, its others playing the group's first type, its make-up over the types
        kept, so :meth:`type_weights` stays the belief.  Only for types that play alike for the rest of the round
        (the caller knows: ``expert``'s ``hard`` types differ in their opening alone); types in no group, or
        alone in one, stay apart.  Once only, before any other merge."""
        k = self._kinds
        if k != len(self._types):
            raise ValueError("the types are merged once only")
        parts = [list(g) for g in groups] if groups is not None else [list(range(k))]
        parts += [[t] for t in range(k) if not any(t in g for g in parts)]
        if sorted(t for g in parts for t in g) != list(range(k)) or any(not g for g in parts):
            raise ValueError(f"merge groups {groups!r} are not disjoint groups of the {k} types")
        if len(parts) == k:
            return
        parts.sort(key=lambda g: min(g))  # each holding's particles stay in the types' order
        replicas, weights, models, shares = [], [], [], []
        for base in range(0, len(self.replicas), k):
            for group in parts:
                members = [base + t for t in group]
                weight = sum(self.weights[i] for i in members)
                scale = [self.weights[i] / weight if weight > 0 else 1.0 / len(members) for i in members]
                mix = [sum(s * self._shares[i][t] for s, i in zip(scale, members, strict=True)) for t in range(k)]
                replicas.append(self.replicas[members[0]])
                weights.append(weight)
                models.append(self.models[members[0]])
                shares.append(tuple(mix))
        self.replicas, self.weights, self.models, self._shares = replicas, weights, models, shares
        self._kinds = len(parts)

    def observe(self, action: Action) -> None:
        """Another seat's (or its own) action: reweigh the particles by the strategy's odds of it, then apply."""
        for i, replica in enumerate(self.replicas):
            if action.player != self.me and self.weights[i] > 0:
                self.weights[i] *= max(_probability(self.models[i], replica, action), LIKELIHOOD_FLOOR)
            replica.apply(action)
        total = sum(self.weights)
        if total > 0:
            self.weights = [w / total for w in self.weights]

    def candidates(self, round_: Round) -> list[Action]:
        legal = round_.legal_actions()
        out: list[Action] = []
        if legal.challenge:
            out.append(Challenge(self.me))
        if legal.call_count:
            out.append(CallCount(self.me))
        order = round_.rules.rank_order
        ids = list(legal.raise_ids)
        seen: set[int] = set()
        for digit in round_.rules.digit_set:
            on_digit = [b for b in ids if b % 10 == order.rank(digit)][: self.raises_per_digit]
            for bid_id in on_digit:
                if bid_id not in seen:
                    seen.add(bid_id)
                    out.append(MakeBid(self.me, Bid.from_id(bid_id, order)))
        return out

    def values(self, round_: Round) -> list[tuple[Action, float]]:
        """Each candidate's value to the exploiter under its belief (units), looking ``lookahead`` of its
        own decisions ahead."""
        live = [
            (r, w, m) for r, w, m in zip(self.replicas, self.weights, self.models, strict=True) if w > 1e-9
        ]
        return [(a, self._after(live, a, self.lookahead - 1)) for a in self.candidates(round_)]

    def decide(self, round_: Round) -> Action:
        return max(self.values(round_), key=lambda av: av[1])[0]

    def _after(self, live: list[_Live], action: Action, lookahead: int) -> float:
        nxt = []
        for replica, w, model in live:
            branch = replica.copy()
            branch.apply(action)
            nxt.append((branch, w, model))
        return self._walk(nxt, lookahead)

    def _walk(self, live: list[_Live], lookahead: int) -> float:
        """The public tree from here, summed over the particles: the exploiter's best candidate at each of
        its decisions (one choice for every particle: it sees only its own serial), the strategy's
        mixture at the others'; past ``lookahead`` decisions, the default continuation."""
        head = live[0][0]
        if head.outcome is not None:
            return sum(w * r.outcome.net[self.me] for r, w, _ in live if r.outcome is not None)
        who = head.to_act
        assert who is not None
        if lookahead <= 0 and self.rollout:
            return sum(w * self._continue(r.copy(), 0, m) for r, w, m in live)
        if who == self.me:
            if lookahead <= 0:
                return sum(w * self._continue(r.copy(), EXPAND_DEPTH, m) for r, w, m in live)
            return max(self._after(live, a, lookahead - 1) for a in self.candidates(head))
        branches: dict[Action, list[_Live]] = {}
        for replica, w, model in live:
            for action, p in policy_of(model, seat_view(replica, who)):
                if p * w > 1e-9:
                    branches.setdefault(action, []).append((replica, w * p, model))
        total = 0.0
        for action, group in branches.items():
            if sum(w for _, w, _ in group) >= PRUNE * sum(w for _, w, _ in live) or lookahead > 0:
                total += self._after(group, action, lookahead)
        return total

    def _continue(self, round_: Round, depth: int, model: Strategy) -> float:
        """The exploiter's units from here: the others play ``model``, the exploiter its default."""
        while True:
            if round_.outcome is not None:
                return float(round_.outcome.net[self.me])
            who = round_.to_act
            assert who is not None
            if who == self.me:
                round_.apply(_default(round_))
                continue
            view = seat_view(round_, who)
            if depth <= 0:
                round_.apply(model.decide(view, self.rng))
                continue
            total = 0.0
            for action, p in policy_of(model, view):
                if p >= PRUNE:
                    branch = round_.copy()
                    branch.apply(action)
                    total += p * self._continue(branch, depth - 1, model)
            return total


