"""Self-play training of the ``reader``'s dials for one table (preset and size): the ``hard`` player's artefact.

The method (the README argues it against what else was tried): **population self-play over a
parametric strategy**.  The strategy is ``reader`` — beliefs over every other seat's holding, valued
under the table's real payoffs (rebid right, size/sixes/hero bonuses, skunk) — and what is learned
are its dials (:class:`~core.serial.players.reading.ReaderParams`: how much it trusts bids and
challenges, how it models the others' challenges, how often and how far it bluffs, how much it
mixes).  Training is the cross-entropy method against a growing *pool*: every generation, ``size``
candidates are drawn from a Gaussian over the (scaled) dials; each plays ``rounds`` rounds in one
seat against every pool member in all the other seats (seats rotated, the same deals for every
candidate: common random numbers); the fitness is the mean over the pool of its units per round; the
best ``elite`` move the Gaussian, and the generation's best joins the pool — so later candidates
must beat earlier champions (fictitious self-play), not only today's ``reader`` and ``binomial``,
which stay in the pool as anchors.

**Exploitability in the objective** (``exploit_weight`` λ > 0; used for the heads-up tables): the
pool rewards winning against readers, and a reader wins against readers by trusting their bids —
which is exactly what a best response bluffs into.  With λ > 0 each candidate is also played by the
local best response (:mod:`.approx`, lookahead 1, few particles, ``exploit_rounds`` rounds, the same
deals for every candidate of a generation) and its fitness is (units per round over the pool) −
λ · (what the best response earned against it).  ``start`` warm-starts the search (e.g. from the
shipped dials) with a smaller ``sigma``; with no generations at all, ``train`` only judges ``start``
(its figures against the anchors and the best response), which is how a hand-set table is shipped
with measured figures.

Pure: seeded ``random.Random`` only; the caller times it and writes the result.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.serial.players import Binomial, Reader, ReaderParams, Strategy
from core.serial.rules import Rules

from .approx import approx_exploitability
from .arena import run_arena

__all__ = ["DIALS", "Exploit", "Generation", "TrainResult", "train"]

# (name, low, high, log scale): the dials searched; the others keep the reader's defaults.
DIALS: tuple[tuple[str, float, float, bool], ...] = (
    ("bid_floor", 0.02, 0.8, True),
    ("bid_ratio", 1.5, 30.0, True),
    ("challenge_weight", 0.0, 1.5, False),
    ("noraise_weight", 0.0, 1.5, False),
    ("steep", 2.0, 20.0, True),
    ("raise_shift", 0.0, 2.0, False),
    ("raised_value", -0.5, 1.0, False),
    ("continue_value", -0.5, 0.5, False),
    ("min_naive", 0.0, 0.4, False),
    ("bluff_rate", 0.0, 0.5, False),
    ("bluff_margin", 0.0, 1.5, False),
    ("temperature", 0.0, 0.3, False),
    ("stack_read", 0.0, 1.0, False),
    ("self_read", 0.0, 1.0, False),
    ("shade", 0.0, 0.5, False),
)


def _to_unit(name: str, value: float) -> float:
    for dial, lo, hi, log in DIALS:
        if dial == name:
            if log:
                return (math.log(value) - math.log(lo)) / (math.log(hi) - math.log(lo))
            return (value - lo) / (hi - lo)
    raise KeyError(name)


def _from_unit(x: Sequence[float], base: ReaderParams | None = None) -> ReaderParams:
    values: dict[str, Any] = {}
    for (dial, lo, hi, log), u in zip(DIALS, x, strict=True):
        u = min(1.0, max(0.0, u))
        values[dial] = math.exp(math.log(lo) + u * (math.log(hi) - math.log(lo))) if log else lo + u * (hi - lo)
    return dataclasses.replace(base or ReaderParams(), **values)


@dataclass
class Generation:
    index: int
    best: float  # the best candidate's fitness (mean units per round over the pool)
    vs_reader: float  # the best candidate's units per round against today's reader
    params: ReaderParams
    exploit: float | None = None  # what the local best response earned against it (when in the objective)


@dataclass
class TrainResult:
    rules: Rules
    players: int
    params: ReaderParams
    generations: list[Generation] = field(default_factory=list)
    rounds_played: int = 0
    final: float = 0.0  # the shipped dials' fitness against the whole final pool
    final_vs: float = 0.0  # ... and against today's reader alone
    final_exploit: float | None = None  # ... and what the local best response earned against them


def _fitness(
    params: ReaderParams, pool: Sequence[Strategy], rules: Rules, players: int, rounds: int, seed: int
) -> tuple[float, list[float], int]:
    scores = []
    played = 0
    for k, opponent in enumerate(pool):
        lineup = ["candidate"] + ["pool"] * (players - 1)
        strategies: dict[str, Strategy] = {"candidate": Reader(params, name="candidate"), "pool": opponent}
        result = run_arena(lineup, rounds, rules, seed * 1000 + k, strategies=strategies, clock=lambda: 0.0)
        per_round = result.stats["candidate"].per_round
        scores.append(sum(per_round) / len(per_round) / rules.stake)
        played += rounds
    return sum(scores) / len(scores), scores, played


@dataclass(frozen=True)
class Exploit:
    """The exploitability term of the objective: fitness −= ``weight`` × the local best response's units."""

    weight: float = 0.0
    rounds: int = 200
    particles: int = 16

    def measure(self, params: ReaderParams, rules: Rules, players: int, seed: int, rounds: int = 0) -> float:
        result = approx_exploitability(
            lambda: Reader(params, name="candidate"),
            rules,
            players,
            rounds or self.rounds,
            seed,
            particles=self.particles,
            lookahead=1,
        )
        return result.value


def _score(
    params: ReaderParams,
    pool: Sequence[Strategy],
    rules: Rules,
    players: int,
    rounds: int,
    seed: int,
    exploit: Exploit,
    scale: int = 1,
) -> tuple[float, float, float | None, int]:
    """(fitness, units vs today's reader, the best response's units or None, rounds played)."""
    fit, per_opponent, played = _fitness(params, pool, rules, players, scale * rounds, seed)
    if exploit.weight <= 0:
        return fit, per_opponent[0], None, played
    lbr = exploit.measure(params, rules, players, seed, scale * exploit.rounds)
    return fit - exploit.weight * lbr, per_opponent[0], lbr, played + scale * exploit.rounds


def train(
    rules: Rules,
    players: int,
    *,
    generations: int = 8,
    size: int = 8,
    elite: int = 3,
    rounds: int = 600,
    seed: int = 1,
    pool_cap: int = 4,
    progress: Callable[[Generation], None] | None = None,
    start: ReaderParams | None = None,
    sigma0: float = 0.2,
    exploit: Exploit | None = None,
) -> TrainResult:
    """Train the dials for ``players`` seats under ``rules``; ``progress`` hears each generation."""
    rng = random.Random(f"train:{seed}:{rules.preset}:{players}")
    elite = min(elite, size)
    default = ReaderParams() if start is None else start
    exploit = exploit or Exploit()
    mean = [_to_unit(dial, getattr(default, dial)) for dial, *_ in DIALS]
    sigma = [sigma0] * len(DIALS)
    anchors: list[Strategy] = [Reader(name="reader"), Binomial()]
    champions: list[Strategy] = []
    result = TrainResult(rules, players, default)
    for g in range(generations):
        pool = anchors + champions[-pool_cap:]
        draws = [[m + s * rng.gauss(0.0, 1.0) for m, s in zip(mean, sigma, strict=True)] for _ in range(size - 1)]
        candidates = [mean, *draws]
        scored = []
        for x in candidates:
            x = [min(1.0, max(0.0, u)) for u in x]
            fit, vs, lbr, played = _score(_from_unit(x, default), pool, rules, players, rounds, seed + g, exploit)
            result.rounds_played += played
            scored.append((fit, vs, lbr, x))
        scored.sort(key=lambda t: -t[0])
        top = [x for *_, x in scored[:elite]]
        mean = [sum(col) / elite for col in zip(*top, strict=True)]
        columns = list(zip(*top, strict=True))
        sigma = [
            max(0.03, math.sqrt(sum((v - m) ** 2 for v in col) / elite)) for col, m in zip(columns, mean, strict=True)
        ]
        fit, vs_reader, lbr, x = scored[0]
        params = _from_unit(x, default)
        champions.append(Reader(params, name=f"champion{g}"))
        generation = Generation(g, fit, vs_reader, params, lbr)
        result.generations.append(generation)
        if progress is not None:
            progress(generation)
    # The shipped dials: the final mean (what the elites agreed on) or the last champion, whichever
    # does better against the whole pool on fresh deals (one lucky candidate is not enough).
    pool = anchors + champions
    finalists = [_from_unit(mean, default), result.generations[-1].params] if result.generations else [default]
    judged = [(_score(p, pool, rules, players, rounds, seed + 10_000, exploit, scale=2), p) for p in finalists]
    result.rounds_played += sum(played for (*_, played), _ in judged)
    (fit, result.final_vs, result.final_exploit, _), result.params = max(judged, key=lambda j: j[0][0])
    # The figure reported against the pool stays units per round (the exploitability term taken out).
    result.final = fit + (exploit.weight * result.final_exploit if result.final_exploit is not None else 0.0)
    return result
