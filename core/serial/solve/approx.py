"""An approximate best response for any format and table size: local best response (LBR) from beliefs.

The exact best response (:mod:`.best_response`) walks the whole public tree: fine in 3×3 heads-up,
hopeless in the real game (8-digit serials, ten digits, up to 160 bids, 2 to 12 players).  This is
the measure of Lisý & Bowling's *local best response* ("Eqilibrium approximation quality of current
no-limit poker bots", 2017), adapted to the serial game:

* **Beliefs.**  The exploiter sits in one seat; the others all play the frozen strategy.  It keeps
  a set of *particles* — joint holdings of the other seats — each with a weight: its prior
  probability times the probability that the strategy, holding it, took every action the others
  took so far (:func:`~core.serial.players.base.policy_of`, the strategy's exact mixture).  Where
  the others' holdings are few (3×3 heads-up: 10 hand classes; 3-player 3×3: 100) every holding is
  a particle, with its multinomial weight, so the belief is exact; otherwise ``particles`` holdings
  are dealt from the prior (importance sampling; a likelihood floor keeps a belief alive when no
  particle explains a history).
* **Choosing.**  At each of its decisions the exploiter values every candidate — the challenge or
  the count, and for each digit the smallest legal raise and the one after it — under its belief,
  assuming that afterwards the others play the strategy (their mixtures summed over exactly, to a
  depth, then sampled) and that it itself then challenges (or calls for the count) at its next turn.
  It plays the best.  That is a real strategy, so what it earns against the frozen strategy is a
  **lower bound** on the strategy's exploitability, up to the sampling noise of the rounds played.
* **The figure** is what the exploiter earns per round (units at stake 1, the table's payoffs),
  with a 95% confidence interval, in each seat in turn (seat 0 opens); the mean over the seats is
  the comparable figure to the exact tool's exploitability heads-up.

Pure: every random choice comes from the seeded ``random.Random`` it is handed; no clock.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from core.figures import Interval
from core.serial.bids import Bid
from core.serial.players.base import Strategy, policy_of
from core.serial.round import Action, CallCount, Challenge, MakeBid, Round
from core.serial.rules import Rules
from core.serial.scoring import Outcome
from core.serial.serials import Serial, deal_serial
from core.serial.view import seat_view

from .format import Format

__all__ = ["ApproxResult", "ExploitRound", "LocalBestResponse", "approx_exploitability", "exploit_rounds", "play_out"]

EXACT_BELIEF_LIMIT = 100  # enumerate the others' joint holdings when there are at most this many classes
LIKELIHOOD_FLOOR = 1e-4  # a particle that the strategy would "never" have played keeps this much weight
EXPAND_DEPTH = 3  # the others' decisions summed over exactly after a candidate; deeper ones are sampled
PRUNE = 1e-3  # branches of the others' mixtures below this probability are dropped when summing


@dataclass(frozen=True)
class _Particle:
    serials: dict[str, Serial]
    prior: float


@dataclass
class ApproxResult:
    """What the local best response earned against ``strategy`` (units per round at stake 1)."""

    strategy: str
    format_name: str
    players: int
    rounds: int
    seat_rounds: list[list[float]] = field(default_factory=list)  # per seat: the exploiter's units per round

    def seat(self, i: int) -> Interval:
        """The mean and its 95% interval in seat ``i`` (seat 0 opens)."""
        return Interval.of(self.seat_rounds[i])

    def _played(self) -> list[Interval]:
        return [self.seat(i) for i in range(self.players) if self.seat_rounds[i]]

    @property
    def value(self) -> float:
        """The mean over the seats played (all by default; heads up: comparable to the exact exploitability)."""
        seats = self._played()
        return sum(s.mean for s in seats) / len(seats) if seats else 0.0

    @property
    def half_width(self) -> float:
        """95% half-width of :attr:`value` (the seats are independent samples)."""
        seats = self._played()
        return math.sqrt(sum(s.half_width ** 2 for s in seats)) / len(seats) if seats else math.inf


def _holdings(rules: Rules, others: Sequence[str], rng: random.Random, particles: int) -> list[_Particle]:
    """The others' joint holdings: every hand class (exact) when few, else ``particles`` dealt from the prior."""
    if rules.digits < 10 or rules.serial_length < 8:
        fmt = Format(rules)
        if fmt.size ** len(others) <= EXACT_BELIEF_LIMIT:
            out = []
            for combo in itertools.product(range(fmt.size), repeat=len(others)):
                prior = math.prod(float(fmt.weights[h]) for h in combo)
                out.append(_Particle({p: fmt.serials[h] for p, h in zip(others, combo, strict=True)}, prior))
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
    ) -> None:
        self.strategy = strategy
        self.lookahead = lookahead
        self.me = me
        self.rng = rng
        others = [p for p in round_.players if p != me]
        self.replicas: list[Round] = []
        self.weights: list[float] = []
        for particle in _holdings(round_.rules, others, rng, particles):
            serials = {me: round_.serials[me], **particle.serials}
            self.replicas.append(Round(round_.rules, round_.players, serials, round_.opener, round_.stake))
            self.weights.append(particle.prior)

    def observe(self, action: Action) -> None:
        """Another seat's (or its own) action: reweigh the particles by the strategy's odds of it, then apply."""
        for i, replica in enumerate(self.replicas):
            if action.player != self.me and self.weights[i] > 0:
                self.weights[i] *= max(_probability(self.strategy, replica, action), LIKELIHOOD_FLOOR)
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
            on_digit = [b for b in ids if b % 10 == order.rank(digit)][:2]
            for bid_id in on_digit:
                if bid_id not in seen:
                    seen.add(bid_id)
                    out.append(MakeBid(self.me, Bid.from_id(bid_id, order)))
        return out

    def values(self, round_: Round) -> list[tuple[Action, float]]:
        """Each candidate's value to the exploiter under its belief (units), looking ``lookahead`` of its
        own decisions ahead."""
        live = [(r, w) for r, w in zip(self.replicas, self.weights, strict=True) if w > 1e-9]
        return [(a, self._after(live, a, self.lookahead - 1)) for a in self.candidates(round_)]

    def decide(self, round_: Round) -> Action:
        return max(self.values(round_), key=lambda av: av[1])[0]

    def _after(self, live: list[tuple[Round, float]], action: Action, lookahead: int) -> float:
        nxt = []
        for replica, w in live:
            branch = replica.copy()
            branch.apply(action)
            nxt.append((branch, w))
        return self._walk(nxt, lookahead)

    def _walk(self, live: list[tuple[Round, float]], lookahead: int) -> float:
        """The public tree from here, summed over the particles: the exploiter's best candidate at each of
        its decisions (one choice for every particle: it sees only its own serial), the strategy's
        mixture at the others'; past ``lookahead`` decisions, the default continuation."""
        head = live[0][0]
        if head.outcome is not None:
            return sum(w * r.outcome.net[self.me] for r, w in live if r.outcome is not None)
        who = head.to_act
        assert who is not None
        if who == self.me:
            if lookahead <= 0:
                return sum(w * self._continue(r.copy(), EXPAND_DEPTH) for r, w in live)
            return max(self._after(live, a, lookahead - 1) for a in self.candidates(head))
        branches: dict[Action, list[tuple[Round, float]]] = {}
        for replica, w in live:
            for action, p in policy_of(self.strategy, seat_view(replica, who)):
                if p * w > 1e-9:
                    branches.setdefault(action, []).append((replica, w * p))
        total = 0.0
        for action, group in branches.items():
            if sum(w for _, w in group) >= PRUNE * sum(w for _, w in live) or lookahead > 0:
                total += self._after(group, action, lookahead)
        return total

    def _continue(self, round_: Round, depth: int) -> float:
        """The exploiter's units from here: the others play the strategy, the exploiter its default."""
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
                round_.apply(self.strategy.decide(view, self.rng))
                continue
            total = 0.0
            for action, p in policy_of(self.strategy, view):
                if p >= PRUNE:
                    branch = round_.copy()
                    branch.apply(action)
                    total += p * self._continue(branch, depth - 1)
            return total


@dataclass(frozen=True)
class ExploitRound:
    """One round the local best response played: its seat, the finished round and its actions in order."""

    seat: int
    round: Round
    actions: tuple[Action, ...]

    @property
    def me(self) -> str:
        return self.round.players[self.seat]

    @property
    def outcome(self) -> Outcome:
        assert self.round.outcome is not None
        return self.round.outcome

    @property
    def units(self) -> float:
        """What the exploiter earned, in units at stake 1."""
        return self.outcome.net[self.me] / self.round.stake


def exploit_rounds(
    strategy_factory: Callable[[], Strategy],
    rules: Rules,
    players: int,
    rounds: int,
    rngs: tuple[random.Random, random.Random, random.Random],
    *,
    particles: int = 64,
    lookahead: int = 2,
    seats: Sequence[int] | None = None,
) -> Iterator[ExploitRound]:
    """Play ``rounds`` rounds of the local best response against ``players − 1`` copies of the strategy,
    yielding each when it ends.  ``rngs`` are the deals', the strategies' and the exploiter's.

    The exploiter's seat rotates over ``seats`` (default: every seat), one round each in turn, so
    each seat's figure comes from about ``rounds / len(seats)`` rounds.
    """
    deal_rng, play_rng, lbr_rng = rngs
    chosen = list(range(players)) if seats is None else list(seats)
    names = tuple(f"p{i}" for i in range(players))
    opponents = {p: strategy_factory() for p in names}
    model = strategy_factory()
    for r in range(rounds):
        seat = chosen[r % len(chosen)]
        serials = {p: deal_serial(deal_rng, rules.serial_length, rules.digits) for p in names}
        round_ = Round(rules, names, serials, names[0], rules.stake)
        lbr = LocalBestResponse(model, round_, names[seat], lbr_rng, particles=particles, lookahead=lookahead)
        yield ExploitRound(seat, round_, tuple(play_out(round_, lbr, opponents, play_rng)))


def approx_exploitability(
    strategy_factory: Callable[[], Strategy],
    rules: Rules,
    players: int,
    rounds: int,
    seed: int = 1,
    *,
    particles: int = 64,
    lookahead: int = 2,
    seats: Sequence[int] | None = None,
) -> ApproxResult:
    """What the local best response earns in ``rounds`` rounds (:func:`exploit_rounds`), seat by seat."""
    rngs = (
        random.Random(f"approx-deal:{seed}"), random.Random(f"approx-play:{seed}"), random.Random(f"approx-lbr:{seed}")
    )
    result = ApproxResult(strategy_factory().name, rules.format_name, players, rounds, [[] for _ in range(players)])
    for played in exploit_rounds(
        strategy_factory, rules, players, rounds, rngs, particles=particles, lookahead=lookahead, seats=seats
    ):
        result.seat_rounds[played.seat].append(played.units)
    return result


def play_out(
    round_: Round, lbr: LocalBestResponse, opponents: Mapping[str, Strategy], rng: random.Random
) -> list[Action]:
    """Play ``round_`` to its end: the exploiter's seat by ``lbr``, the others by their strategies (drawing
    from ``rng``); returns the actions in order."""
    actions: list[Action] = []
    while round_.outcome is None:
        who = round_.to_act
        assert who is not None
        action = lbr.decide(round_) if who == lbr.me else opponents[who].decide(seat_view(round_, who), rng)
        lbr.observe(action)
        round_.apply(action)
        actions.append(action)
    return actions
