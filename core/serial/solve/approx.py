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

import math
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from core.figures import Interval
from core.serial.players.base import Strategy
from core.serial.players.search import EXACT_BELIEF_LIMIT, EXPAND_DEPTH, LIKELIHOOD_FLOOR, PRUNE, LocalBestResponse
from core.serial.round import Action, Round
from core.serial.rules import Rules
from core.serial.scoring import Outcome
from core.serial.serials import deal_serial
from core.serial.view import seat_view

__all__ = [
    "EXACT_BELIEF_LIMIT",
    "EXPAND_DEPTH",
    "LIKELIHOOD_FLOOR",
    "PRUNE",
    "ApproxResult",
    "ExploitRound",
    "LocalBestResponse",
    "approx_exploitability",
    "exploit_rounds",
    "play_out",
]


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
