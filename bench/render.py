"""Render times of the pictures: p50 / p99 / max over N renders of each (after a warm-up).

    .venv/bin/python bench/render.py [--count 200] [--all] [--profile]

The count picture (RULES.md §1's worked example, 3 players) is the one drawn on every counted round;
the issue's target is p99 ≤ 50 ms.  CPU time per render is printed too: on a shared machine it is the
steadier figure.  ``--all`` also times the challenge picture and the charts.  Not part of the tests.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from collections.abc import Callable

from adapters.pictures import (
    balance_series,
    render_balance_chart,
    render_challenge,
    render_count,
    render_nets_chart,
)
from adapters.pictures.samples import challenge_example, count_example, ledger_example, names_example


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def measure(name: str, render: Callable[[], bytes], count: int) -> None:
    for _ in range(5):
        render()
    wall: list[float] = []
    cpu: list[float] = []
    size = 0
    for _ in range(count):
        w, c = time.perf_counter(), time.process_time()
        size = len(render())
        wall.append((time.perf_counter() - w) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    print(
        f"{name:10s} {count} renders, {size / 1024:.0f} KiB: wall p50 {_pct(wall, 50):.1f} ms, "
        f"p99 {_pct(wall, 99):.1f} ms, max {max(wall):.1f} ms; cpu p50 {_pct(cpu, 50):.1f} ms, "
        f"p99 {_pct(cpu, 99):.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--all", action="store_true")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    data = count_example()
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(lambda: [render_count(data) for _ in range(args.count)])
        pstats.Stats(profile).sort_stats("tottime").print_stats(20)
        return
    measure("count", lambda: render_count(data), args.count)
    if args.all:
        rows, names = ledger_example(), names_example()
        nets = balance_series(rows)[-1][1]
        cases: dict[str, Callable[[], bytes]] = {
            "challenge": lambda: render_challenge(challenge_example()),
            "balances": lambda: render_balance_chart(balance_series(rows), names),
            "nets": lambda: render_nets_chart(nets, names),
        }
        for name, render in cases.items():
            measure(name, render, max(20, args.count // 4))


if __name__ == "__main__":
    main()
