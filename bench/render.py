"""Render times of the pictures: p50 / p99 / max over N renders of each (after a warm-up), and the
picture worker at a steady pace.

    .venv/bin/python bench/render.py [--count 200] [--all] [--profile] [--pace 50 --seconds 20]

The count picture (RULES.md §1's worked example, 3 players) is the one drawn on every counted round;
target: p99 <= 10 ms.  CPU time per render is printed too: on a shared machine it is the steadier
figure.  ``--all`` also times the challenge picture (target the same) and the charts (drawn on
request: no target).  ``--pace N`` then asks the worker process (``pictures.draw``, as the bots do)
for N counts a second and prints the ask-to-PNG times and how many were shed (target: 0).  Not part
of the tests.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import time
from collections.abc import Callable

from adapters.pictures import (
    TooManyWaiting,
    balance_series,
    draw,
    render_balance_chart,
    render_challenge,
    render_count,
    render_nets_chart,
)
from adapters.pictures.samples import challenge_example, count_example, ledger_example, names_example
from core.figures import percentile


def _pct(values: list[float], p: float) -> float:
    """The nearest-rank ``p``-th percentile (:func:`core.figures.percentile`: never above the max)."""
    return percentile(sorted(values), p / 100)


TARGET_MS = 10.0


def measure(name: str, render: Callable[[], bytes], count: int, target: float | None = None) -> None:
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
    verdict = "" if target is None else (
        f"   target p99 <= {target:.0f} ms: {'met' if _pct(wall, 99) <= target else 'NOT met'}")
    print(
        f"{name:10s} {count} renders, {size / 1024:.0f} KiB: wall p50 {_pct(wall, 50):.1f} ms, "
        f"p99 {_pct(wall, 99):.1f} ms, max {max(wall):.1f} ms; cpu p50 {_pct(cpu, 50):.1f} ms, "
        f"p99 {_pct(cpu, 99):.1f} ms{verdict}"
    )


async def pace(rate: float, seconds: float) -> None:
    """Ask the picture worker for ``rate`` counts a second (each with other serials, as real rounds
    are), as the bots do, without waiting for one before asking for the next."""
    data = count_example()
    picture = {"game": "serial", "record": data, "last_challenger": "p2"}
    await draw(picture)  # the worker starts (and warms up) before the clock does
    times: list[float] = []
    shed = 0

    async def one(i: int) -> None:
        nonlocal shed
        record = {**data, "round": i, "serials": {p: f"{s[:3]}{(i * 7919 + k) % 10**8:08d}{s[-2:]}"
                                                   for k, (p, s) in enumerate(data["serials"].items())}}
        asked = time.perf_counter()
        try:
            await draw({**picture, "record": record})
        except TooManyWaiting:
            shed += 1
            return
        times.append((time.perf_counter() - asked) * 1000)

    tasks = []
    start = time.perf_counter()
    for i in range(int(rate * seconds)):
        delay = start + i / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(i)))
    await asyncio.gather(*tasks)
    print(f"worker at {rate:.0f} counts/s for {seconds:.0f} s: {len(times)} drawn, {shed} shed (target 0: "
          f"{'met' if shed == 0 else 'NOT met'}); ask-to-PNG p50 {_pct(times, 50):.1f} ms, p99 {_pct(times, 99):.1f} "
          f"ms, max {max(times):.1f} ms (target p99 <= {TARGET_MS:.0f} ms: "
          f"{'met' if _pct(times, 99) <= TARGET_MS else 'NOT met'}); machine load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores")


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--all", action="store_true")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--pace", type=float, default=0.0, help="then ask the worker for this many counts/s")
    parser.add_argument("--seconds", type=float, default=20.0, help="for this long (with --pace)")
    args = parser.parse_args()
    data = count_example()
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(lambda: [render_count(data) for _ in range(args.count)])
        pstats.Stats(profile).sort_stats("tottime").print_stats(20)
        return
    measure("count", lambda: render_count(data), args.count, TARGET_MS)
    if args.all:
        rows, names = ledger_example(), names_example()
        nets = balance_series(rows)[-1][1]
        cases: dict[str, Callable[[], bytes]] = {
            "challenge": lambda: render_challenge(challenge_example()),  # (target below)
            "balances": lambda: render_balance_chart(balance_series(rows), names),
            "nets": lambda: render_nets_chart(nets, names),
        }
        for name, render in cases.items():
            measure(name, render, max(20, args.count // 4), TARGET_MS if name == "challenge" else None)
    if args.pace:
        asyncio.run(pace(args.pace, args.seconds))


if __name__ == "__main__":
    main()
