"""Engine throughput: uniformly random complete 3-player rounds per second, in one process.

Each round gets fresh serials from a seeded ``random.Random``; every action is
``rng.choice(round.legal_actions())`` (uniform over the legal actions; ``LegalActions`` is a lazy
sequence, so this builds no list of bids).  Run::

    .venv/bin/python bench/engine.py [--preset classic|quick|salomon] [--seconds S] [--profile]

Not part of the test suite; the issue's target is 15,000 rounds/s under the classic rules.  The
rate per CPU second is printed too: on a shared machine it is the steadier figure.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time

from core.serial import Round, deal_serial, make_rules

PLAYERS = ("ann", "bob", "cat")


def play_rounds(count: int, preset: str = "classic", seed: int = 1) -> tuple[int, int]:
    """Play ``count`` complete random rounds; returns (rounds, actions) so the work is not optimised away."""
    rules = make_rules(preset)
    rng = random.Random(seed)
    choice = rng.choice
    actions = 0
    for i in range(count):
        serials = {p: deal_serial(rng) for p in PLAYERS}
        round_ = Round(rules, PLAYERS, serials, PLAYERS[i % 3])
        apply = round_.apply
        legal = round_.legal_actions
        while not round_.is_over:
            apply(choice(legal()))
            actions += 1
        assert round_.outcome is not None
        assert sum(round_.outcome.net.values()) == 0
    return count, actions


def measure(preset: str, seconds: float) -> tuple[float, float, float]:
    """(rounds per wall-clock second, rounds per CPU second, actions per round)."""
    play_rounds(500, preset)  # warm up caches
    batch, done, actions = 2000, 0, 0
    wall, cpu = time.perf_counter(), time.process_time()
    while True:
        _, a = play_rounds(batch, preset, seed=done + 1)
        done += batch
        actions += a
        elapsed = time.perf_counter() - wall
        if elapsed >= seconds:
            return done / elapsed, done / (time.process_time() - cpu), actions / done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default=None, help="one preset (default: all three)")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--profile", action="store_true", help="cProfile 20,000 rounds instead")
    args = parser.parse_args()
    presets = [args.preset] if args.preset else ["classic", "quick", "salomon"]
    if args.profile:
        for preset in presets:
            prof = cProfile.Profile()
            prof.runcall(play_rounds, 20_000, preset)
            pstats.Stats(prof).sort_stats("tottime").print_stats(15)
        return
    for preset in presets:
        wall, cpu, per_round = measure(preset, args.seconds)
        print(f"{preset:8s} {wall:8,.0f} rounds/s  ({cpu:,.0f} per CPU second; {per_round:.1f} actions a round)")


if __name__ == "__main__":
    main()
