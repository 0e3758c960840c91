"""The elimination arena: whole games of who pays for dinner between computer players, through the real engine.

A lineup names one player per seat: ``hard`` is today's player as it plays a money table (it sees the
table's full rules and values every round in units), ``hard+elim`` the same player adapted to the
elimination (:func:`core.serial.elimination.eliminating`: one unit a round, no multipliers, a later
challenge turned into a raise).  Each game is an :class:`~core.serial.elimination.EliminationMatch`
dealt from one seeded ``random.Random``; the lineup is rotated one seat per game, so each entry sits in
each seat (and opens first under ``first_opener=random``) equally often.  The figure is each entry's
**pay rate**: the share of its games in which it paid for dinner, with a 95% confidence interval (normal
approximation over games), beside the fair share 1/n a player has at a table of equals.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.figures import Interval, bracket

from ..elimination import EliminationMatch, eliminating
from ..game import action_to_json
from ..players import Strategy, get_strategy
from ..rules import Format, Rules
from ..view import seat_view
from .arena import ArenaError

__all__ = ["ADAPTED", "EliminationResult", "format_elimination", "run_elimination_arena"]

ADAPTED = "+elim"
"""A lineup entry's suffix for the player adapted to the elimination."""


def _strategy(name: str) -> Strategy:
    base = name.removesuffix(ADAPTED)
    try:
        strategy = get_strategy(base)
    except KeyError as exc:
        raise ArenaError(str(exc.args[0])) from None
    return eliminating(strategy) if name.endswith(ADAPTED) else strategy


@dataclass(frozen=True, slots=True)
class EliminationResult:
    lineup: tuple[str, ...]
    games: int
    seed: int
    preset: str
    paid: dict[str, list[float]]  # per entry name: 1.0 for each seat-game it paid, else 0.0
    rounds: int  # rounds dealt, pushes included

    def pay_rate(self, name: str) -> Interval:
        return Interval.of(self.paid[name])

    def to_dict(self) -> dict[str, Any]:
        n = len(self.lineup)
        return {
            "format": "elimination", "players": n, "preset": self.preset, "games": self.games, "seed": self.seed,
            "lineup": list(self.lineup), "fair_share": 1 / n, "rounds_per_game": self.rounds / max(self.games, 1),
            "entries": [{"name": name, "seat_games": len(v), "paid": int(sum(v)),
                         "pay_rate": self.pay_rate(name).to_dict()} for name, v in self.paid.items()],
        }


def run_elimination_arena(lineup: Sequence[str], games: int, rules: Rules, seed: int) -> EliminationResult:
    """Play ``games`` elimination games with the lineup rotated one seat per game."""
    if not rules.elimination:
        rules = Rules.from_dict({**rules.to_dict(), "format": Format.ELIMINATION.value})
    names = list(lineup)
    strategies = {name: _strategy(name) for name in dict.fromkeys(names)}
    deal_rng = random.Random(seed)
    decide_rng = {name: random.Random(f"{seed}:{name}") for name in strategies}
    paid: dict[str, list[float]] = {name: [] for name in strategies}
    rounds = 0
    n = len(names)
    for game in range(games):
        seats = [f"s{i}" for i in range(n)]
        entry = {seats[i]: names[(i + game) % n] for i in range(n)}
        match = EliminationMatch(rules, seats, host=seats[0])
        while not match.over:
            match.apply_deal(match.deal(deal_rng))
            rounds += 1
            while (round_ := match.live_round) is not None:
                player = round_.to_act
                assert player is not None
                name = entry[player]
                action = strategies[name].decide(seat_view(round_, player), decide_rng[name])
                match.apply(action_to_json(action))
        for seat in seats:
            paid[entry[seat]].append(1.0 if seat == match.payer else 0.0)
    return EliminationResult(tuple(names), games, seed, rules.preset, paid, rounds)


def format_elimination(result: EliminationResult) -> str:
    d = result.to_dict()
    lines = [f"{d['players']} players, preset {d['preset']}, elimination, {d['games']} games, seed {d['seed']}: "
             f"{', '.join(d['lineup'])}",
             f"seats rotated one a game; {d['rounds_per_game']:.2f} rounds per game; "
             f"fair share of paying: {d['fair_share']:.3f}", "",
             f"{'player':<22}{'seat-games':>10}  {'paid':>6}  {'pay rate':>8}  {'95% CI':>17}"]
    for e in d["entries"]:
        r = e["pay_rate"]
        lines.append(f"{e['name']:<22}{e['seat_games']:>10}  {e['paid']:>6}  {r['mean']:>8.4f}  "
                     f"{bracket(r['ci95'], '.4f', column=True)}")
    return "\n".join(lines)
