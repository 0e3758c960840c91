"""The computer players' long runs: the figures the README quotes for ``reader`` and the difficulty levels.

Each run is ``liars arena`` with the same arguments (see ``bot/arena.py`` for how seats rotate and
how stakes carry); this script only plays them one after another and prints one line per
strategy.  Run::

    .venv/bin/python bench/arena.py [--rounds N] [--seed S] [--only NAME ...] [--json]

Not part of the test suite.  The issue's targets: at 3 players (classic) ``reader`` beats
``binomial`` by at least 0.10 units per round with a 95% confidence interval that excludes 0 over
20,000 rounds, stays ahead at 4 and 5 players and under the Salomon rules, beats ``random``,
``always-challenge`` and ``raise-by-one`` by wide margins, and decides in p99 ≤ 10 ms.
"""

from __future__ import annotations

import argparse
import json
import time

from core.figures import plus_minus
from core.serial.rules import make_rules
from core.serial.solve.arena import ArenaResult, run_arena

# name, players, lineup (padded with its last name), preset, share of --rounds
RUNS: list[tuple[str, int, list[str], str, float]] = [
    ("reader-vs-binomial-3", 3, ["reader", "binomial"], "classic", 1.0),
    ("reader-vs-binomial-4", 4, ["reader", "binomial"], "classic", 1.0),
    ("reader-vs-binomial-5", 5, ["reader", "binomial"], "classic", 1.0),
    ("reader-vs-binomial-3-salomon", 3, ["reader", "binomial"], "salomon", 1.0),
    ("reader-vs-binomial-3-quick", 3, ["reader", "binomial"], "quick", 1.0),
    ("reader-vs-random-3", 3, ["reader", "random"], "classic", 1.0),
    ("reader-vs-always-challenge-3", 3, ["reader", "always-challenge"], "classic", 1.0),
    # raise-by-one never challenges, so its rounds run to the top bid (~240 actions at 3 players)
    ("reader-vs-raise-by-one-3", 3, ["reader", "raise-by-one"], "classic", 0.1),
    ("levels-3", 3, ["hard", "normal", "easy"], "classic", 1.0),
    ("levels-4-salomon", 4, ["hard", "normal", "easy", "easy"], "salomon", 1.0),
]


def describe(name: str, result: ArenaResult, seconds: float) -> list[str]:
    lines = [
        f"{name}: {result.players} players, {result.rules.preset}, {result.rounds} rounds, seed {result.seed} "
        f"({seconds:.0f} s)"
    ]
    for stats in result.stats.values():
        u = stats.units
        ms = stats.decision_ms()
        lines.append(
            f"  {stats.name:<17} {u.mean:+.4f} {plus_minus(u.half_width, '.4f')} units/round  "
            f"bids made/failed {stats.bids_made}/{stats.bids_failed}  "
            f"challenges won/lost {stats.challenges_won}/{stats.challenges_lost}  "
            f"decide p50 {ms['p50']:.3f} ms p99 {ms['p99']:.3f} ms"
        )
    for first, other, iv in result.edges():
        lines.append(f"  {first} minus {other}: {iv.mean:+.4f} {plus_minus(iv.half_width, '.4f')}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", nargs="*", help="run only these (by name)")
    parser.add_argument("--json", action="store_true", help="one JSON object per run instead")
    args = parser.parse_args()
    for name, n, lineup, preset, share in RUNS:
        if args.only and name not in args.only:
            continue
        names = lineup + [lineup[-1]] * (n - len(lineup))
        rounds = max(1, int(args.rounds * share))
        start = time.perf_counter()
        result = run_arena(names, rounds, make_rules(preset), args.seed, clock=time.perf_counter)
        seconds = time.perf_counter() - start
        if args.json:
            print(json.dumps({"run": name, "seconds": seconds, **result.to_dict()}), flush=True)
        else:
            print("\n".join(describe(name, result, seconds)), flush=True)


if __name__ == "__main__":
    main()
