"""Engine throughput: uniformly random complete 3-player rounds per second, in one process.

Each round gets fresh serials from a seeded ``random.Random`` (``deal_serial``, one per player); every
action is ``round.random_action(rng)``, uniform over exactly ``round.legal_actions()`` (one
``randrange`` draw, the same draw ``rng.choice(round.legal_actions())`` makes; tests/core/serial/
test_random_action.py checks the two agree), applied with ``round.apply`` (events and all); every
round is counted and scored.  ``--legal-actions`` plays ``rng.choice(round.legal_actions())``
instead, the way this bench measured before ``random_action`` existed.  Run::

    .venv/bin/python bench/engine.py [--preset classic|quick|salomon] [--seconds S] [--profile] [--legal-actions]

Not part of the test suite; the issue's target is 15,000 rounds/s under the classic rules.  The
rate per CPU second is printed too: on a shared machine it is the steadier figure.

``--openspiel`` also plays OpenSpiel's ``python_liars_poker`` (3 players, serials of 8, 10 digits:
the classic format) in the same run, uniformly random, deals included, and prints the ratio (issue
#12's target: 5×).  OpenSpiel is only for this bench, never a dependency:
``.venv/bin/pip install open-spiel==2.0.2``.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time

from core.serial import Round, deal_serial, make_rules

PLAYERS = ("ann", "bob", "cat")


def play_rounds(count: int, preset: str = "classic", seed: int = 1, via_legal: bool = False) -> tuple[int, int]:
    """Play ``count`` complete random rounds; returns (rounds, actions) so the work is not optimised away."""
    rules = make_rules(preset)
    rng = random.Random(seed)
    choice = rng.choice
    actions = 0
    for i in range(count):
        serials = {p: deal_serial(rng) for p in PLAYERS}
        round_ = Round(rules, PLAYERS, serials, PLAYERS[i % 3])
        apply = round_.apply
        if via_legal:
            legal = round_.legal_actions
            while not round_.is_over:
                apply(choice(legal()))
                actions += 1
        else:
            pick = round_.random_action
            while not round_.is_over:
                apply(pick(rng))
                actions += 1
        assert round_.outcome is not None
        assert sum(round_.outcome.net.values()) == 0
    return count, actions


def measure(preset: str, seconds: float, via_legal: bool = False) -> tuple[float, float, float]:
    """(rounds per wall-clock second, rounds per CPU second, actions per round)."""
    play_rounds(500, preset, via_legal=via_legal)  # warm up caches
    batch, done, actions = 2000, 0, 0
    wall, cpu = time.perf_counter(), time.process_time()
    while True:
        _, a = play_rounds(batch, preset, seed=done + 1, via_legal=via_legal)
        done += batch
        actions += a
        elapsed = time.perf_counter() - wall
        if elapsed >= seconds:
            return done / elapsed, done / (time.process_time() - cpu), actions / done


def openspiel_rounds(count: int, seed: int = 1) -> int:
    """``count`` uniformly random rounds of OpenSpiel's python_liars_poker in the classic format; returns actions."""
    import numpy as np
    import pyspiel
    from open_spiel.python.games import liars_poker  # noqa: F401  (registers the game)

    game = pyspiel.load_game("python_liars_poker", {"players": 3, "hand_length": 8, "num_digits": 10})
    rng = np.random.default_rng(seed)
    actions = 0
    for _ in range(count):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.integers(len(legal)))])
                actions += 1
    return actions


def measure_openspiel(seconds: float) -> tuple[float, float, float] | None:
    try:
        openspiel_rounds(50)
    except ImportError:
        return None
    batch, done, actions = 200, 0, 0
    wall, cpu = time.perf_counter(), time.process_time()
    while True:
        actions += openspiel_rounds(batch, seed=done + 1)
        done += batch
        elapsed = time.perf_counter() - wall
        if elapsed >= seconds:
            return done / elapsed, done / (time.process_time() - cpu), actions / done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default=None, help="one preset (default: all three)")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--profile", action="store_true", help="cProfile 20,000 rounds instead")
    parser.add_argument(
        "--legal-actions", action="store_true", help="pick with rng.choice(legal_actions()) instead of random_action"
    )
    parser.add_argument("--openspiel", action="store_true", help="also measure OpenSpiel's python_liars_poker")
    args = parser.parse_args()
    presets = [args.preset] if args.preset else ["classic", "quick", "salomon"]
    if args.profile:
        for preset in presets:
            prof = cProfile.Profile()
            prof.runcall(play_rounds, 20_000, preset, 1, args.legal_actions)
            pstats.Stats(prof).sort_stats("tottime").print_stats(15)
        return
    ours: dict[str, float] = {}
    for preset in presets:
        wall, cpu, per_round = measure(preset, args.seconds, args.legal_actions)
        ours[preset] = cpu
        print(f"{preset:8s} {wall:8,.0f} rounds/s  ({cpu:,.0f} per CPU second; {per_round:.1f} actions a round)")
    if args.openspiel:
        theirs = measure_openspiel(args.seconds)
        if theirs is None:
            print("OpenSpiel is not installed: .venv/bin/pip install open-spiel==2.0.2 (for this bench only)")
            return
        wall, cpu, per_round = theirs
        print(f"openspiel {wall:7,.0f} rounds/s  ({cpu:,.0f} per CPU second; {per_round:.1f} actions a round)")
        if "classic" in ours:
            print(f"classic / openspiel: {ours['classic'] / cpu:.1f}x per CPU second")


if __name__ == "__main__":
    main()
