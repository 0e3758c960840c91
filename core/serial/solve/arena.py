"""The arena: computer players against each other through the real engine, with the figures that judge them.

How a run is played (the choices that make the figures fair):

* **Seats rotate.**  The lineup (one strategy name per seat, names may repeat) is assigned to the
  seats in every distinct order, one order per round in turn, so each strategy sits in each seat,
  opens, and follows every other strategy equally often (up to one round per order when the round
  count is not a multiple of the number of orders).  Seat 0 always opens: the order decides who
  that is.  This replaces the rules' opener rules (random, letters, final bidder, winner), which
  would otherwise hand a seat advantage to whoever won or bid last.  When the distinct orders
  outnumber the rounds (7+ players with a mixed lineup) the arena uses the n cyclic shifts instead.
* **Fresh serials** every round, dealt by :func:`core.serials.deal_serial` from one
  ``random.Random(seed)``; each strategy slot draws its decisions from its own seeded
  ``random.Random``, so a run replays exactly from its seed.
* **Scoring is the engine's**: each round is a :class:`core.round.Round` at the current stake and
  its :class:`~core.scoring.Outcome` is the result.  With progressive stakes the stake carries from
  round to round through ``outcome.next_stake`` (the table's stake, whatever the seat order), so a
  strategy's units include the stakes it played at.  SLIPS, the declared last hand and
  out-of-turn challenges in ``first`` mode are not played: every round is a fresh deal, and only
  the player to act is asked for an action.
* **Figures** per strategy: mean units per round per seat it holds, with a 95% confidence interval
  (normal approximation over rounds); final bids made/failed (a skunk counts as made);
  challenges of final bids won/lost; and the wall-clock time of each ``decide`` call
  (by the ``clock`` the caller passes: the CLI and the bench pass ``time.perf_counter``; ``core`` reads
  no clock of its own), as p50/p99.  The first strategy of the
  lineup is also compared round by round with each other one ("edge": the mean per-round
  difference, with its own interval).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.figures import Interval, decision_ms
from core.serial.bids import MAX_PLAYERS, MIN_PLAYERS
from core.serial.errors import GameError
from core.serial.players import Strategy, get_strategy
from core.serial.round import Round
from core.serial.rules import Rules
from core.serial.serials import deal_serial
from core.serial.view import seat_view

__all__ = ["ArenaError", "ArenaResult", "StrategyStats", "assignments", "run_arena"]

MAX_ORDERS = 40_320


class ArenaError(ValueError):
    """A lineup the arena cannot play, or a strategy that returned an illegal action."""


@dataclass(slots=True)
class StrategyStats:
    name: str
    seats: int
    per_round: list[float] = field(default_factory=list)
    bids_made: int = 0
    bids_failed: int = 0
    challenges_won: int = 0
    challenges_lost: int = 0
    actions: int = 0
    times: list[float] = field(default_factory=list)

    @property
    def units(self) -> Interval:
        return Interval.of(self.per_round)

    def decision_ms(self) -> dict[str, float]:
        return decision_ms(self.times)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "seats": self.seats,
            "units_per_round": self.units.to_dict(),
            "bids_made": self.bids_made,
            "bids_failed": self.bids_failed,
            "challenges_won": self.challenges_won,
            "challenges_lost": self.challenges_lost,
            "decisions": len(self.times),
            "decision_ms": self.decision_ms(),
        }


@dataclass(slots=True)
class ArenaResult:
    players: int
    rules: Rules
    rounds: int
    seed: int
    lineup: tuple[str, ...]
    rotation: str
    orders: int
    stats: dict[str, StrategyStats]
    actions: int = 0
    stake_total: int = 0

    def edges(self) -> list[tuple[str, str, Interval]]:
        """The first strategy of the lineup against each other one: per-round difference of mean units."""
        first = self.lineup[0]
        out = []
        mine = self.stats[first].per_round
        for name, stats in self.stats.items():
            if name == first:
                continue
            diffs = [a - b for a, b in zip(mine, stats.per_round, strict=True)]
            out.append((first, name, Interval.of(diffs)))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "preset": self.rules.preset,
            "rules": self.rules.to_dict(),
            "rounds": self.rounds,
            "seed": self.seed,
            "lineup": list(self.lineup),
            "rotation": {"kind": self.rotation, "orders": self.orders},
            "actions_per_round": self.actions / self.rounds if self.rounds else 0.0,
            "mean_stake": self.stake_total / self.rounds if self.rounds else 0.0,
            "strategies": [s.to_dict() for s in self.stats.values()],
            "edges": [{"strategy": a, "versus": b, **iv.to_dict()} for a, b, iv in self.edges()],
        }


def _name_orders(names: list[str], counts: dict[str, int], prefix: list[str], out: list[tuple[str, ...]]) -> None:
    if not any(counts.values()):
        out.append(tuple(prefix))
        return
    for name in names:
        if counts[name]:
            counts[name] -= 1
            prefix.append(name)
            _name_orders(names, counts, prefix, out)
            prefix.pop()
            counts[name] += 1


def assignments(lineup: Sequence[str], rounds: int) -> tuple[str, list[tuple[int, ...]]]:
    """The seat orders to cycle through: ``order[seat]`` is the lineup slot sitting there.

    Every distinct order of the lineup's names (slots holding the same name are interchangeable),
    or the n cyclic shifts when there are more distinct orders than rounds.
    """
    n = len(lineup)
    names = list(dict.fromkeys(lineup))
    distinct = math.factorial(n)
    for name in names:
        distinct //= math.factorial(lineup.count(name))
    if distinct <= max(rounds, n) and distinct <= MAX_ORDERS:
        name_orders: list[tuple[str, ...]] = []
        _name_orders(names, {name: lineup.count(name) for name in names}, [], name_orders)
        orders: list[tuple[int, ...]] = []
        for key in name_orders:
            slots = {name: [i for i, x in enumerate(lineup) if x == name] for name in names}
            orders.append(tuple(slots[name].pop(0) for name in key))
        return "permutations", orders
    return "cyclic", [tuple((seat + shift) % n for seat in range(n)) for shift in range(n)]


def run_arena(
    lineup: Sequence[str],
    rounds: int,
    rules: Rules,
    seed: int = 1,
    *,
    strategies: Mapping[str, Strategy] | None = None,
    clock: Callable[[], float],
) -> ArenaResult:
    """Play ``rounds`` rounds with ``lineup`` (one strategy name per seat) and gather the figures.

    ``strategies`` may supply instances by name (for experiments); other names go through
    :func:`core.players.get_strategy`.
    """
    n = len(lineup)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise ArenaError(f"the arena seats {MIN_PLAYERS} to {MAX_PLAYERS} players")
    if rounds < 1:
        raise ArenaError("play at least one round")
    supplied = dict(strategies or {})
    try:
        players = [supplied[name] if name in supplied else get_strategy(name) for name in lineup]
    except KeyError as exc:
        raise ArenaError(str(exc.args[0]) if exc.args else str(exc)) from None
    rotation, orders = assignments(lineup, rounds)
    deal_rng = random.Random(seed)
    slot_rngs = [random.Random(f"arena:{seed}:{slot}") for slot in range(n)]
    seats = tuple(f"seat{i + 1}" for i in range(n))
    stats: dict[str, StrategyStats] = {}
    for name in lineup:
        if name not in stats:
            stats[name] = StrategyStats(name, lineup.count(name))
    result = ArenaResult(n, rules, rounds, seed, tuple(lineup), rotation, len(orders), stats)
    seat_count = {name: float(s.seats) for name, s in stats.items()}
    stake = rules.stake
    for r in range(rounds):
        order = orders[r % len(orders)]
        slot_of = {seats[i]: order[i] for i in range(n)}
        serials = {p: deal_serial(deal_rng, rules.serial_length, rules.digits) for p in seats}
        round_ = Round(rules, seats, serials, seats[0], stake)
        result.stake_total += stake
        while not round_.is_over:
            player = round_.to_act
            assert player is not None
            slot = slot_of[player]
            strategy = players[slot]
            view = seat_view(round_, player)
            start = clock()
            action = strategy.decide(view, slot_rngs[slot])
            elapsed = clock() - start
            st = stats[lineup[slot]]
            st.times.append(elapsed)
            try:
                round_.apply(action)
            except GameError as exc:
                raise ArenaError(f"{lineup[slot]} returned an illegal action {action!r}: {exc}") from exc
            result.actions += 1
        outcome = round_.outcome
        assert outcome is not None
        totals = dict.fromkeys(stats, 0.0)
        for player, units in outcome.net.items():
            totals[lineup[slot_of[player]]] += units
        for name, st in stats.items():
            st.per_round.append(totals[name] / seat_count[name])
        bidder = stats[lineup[slot_of[outcome.bidder]]]
        won = outcome.made or outcome.skunk
        if won:
            bidder.bids_made += 1
        else:
            bidder.bids_failed += 1
        for player in outcome.challengers:
            ch = stats[lineup[slot_of[player]]]
            if won:
                ch.challenges_lost += 1
            else:
                ch.challenges_won += 1
        if rules.progressive_stakes:
            stake = outcome.next_stake
    return result
