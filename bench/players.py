"""The shipped computer players' artefact: its size, how long it takes to load, and how long `hard` takes to decide.

    .venv/bin/python bench/players.py [--rounds 300]

Load: a fresh interpreter imports the players, builds ``hard`` and makes its first decision in the
full game (the trained dials parsed, the reader's tables built), timed from before the import.
Decisions: ``hard`` in every seat of ``--rounds`` rounds at 2 to 6 players, classic and Salomon, each
``decide`` timed; p50/p99/max in milliseconds.  Targets (issue #24): artefact ≤ 20 MB, load ≤ 2 s,
decision p99 ≤ 20 ms.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from pathlib import Path

from core.serial import Round, deal_serial, make_rules
from core.serial.players import get_strategy
from core.serial.view import seat_view

ROOT = Path(__file__).resolve().parents[1]
ARTEFACT = ROOT / "core" / "serial" / "players" / "trained_data.py"

LOAD = """
import time
t = time.perf_counter()
import random
from core.serial import Round, deal_serial, make_rules
from core.serial.players import get_strategy
from core.serial.view import seat_view
rules = make_rules("classic")
rng = random.Random(1)
seats = ("a", "b", "c")
r = Round(rules, seats, {p: deal_serial(rng) for p in seats}, "a")
get_strategy("hard").decide(seat_view(r, "a"), rng)
print(time.perf_counter() - t)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    print(f"artefact {ARTEFACT.relative_to(ROOT)}: {ARTEFACT.stat().st_size / 1e3:.1f} KB (target ≤ 20 MB)")
    loads = [float(subprocess.run([sys.executable, "-c", LOAD], capture_output=True, text=True, check=True,
                                  cwd=ROOT).stdout) for _ in range(3)]
    print(f"load + first decision: {', '.join(f'{x:.2f}' for x in loads)} s (three fresh processes; target ≤ 2 s)")
    worst = 0.0
    for preset in ("classic", "salomon"):
        rules = make_rules(preset)
        for n in range(2, 7):
            rng = random.Random(n)
            seats = tuple(f"p{i}" for i in range(n))
            players = {p: get_strategy("hard") for p in seats}
            times: list[float] = []
            for k in range(args.rounds):
                round_ = Round(rules, seats, {p: deal_serial(rng) for p in seats}, seats[k % n])
                while not round_.is_over:
                    who = round_.to_act
                    assert who is not None
                    view = seat_view(round_, who)
                    t = time.perf_counter()
                    action = players[who].decide(view, rng)
                    times.append(time.perf_counter() - t)
                    round_.apply(action)
            times.sort()
            p50, p99 = times[len(times) // 2] * 1e3, times[int(len(times) * 0.99)] * 1e3
            worst = max(worst, p99)
            print(f"hard, {preset}, {n} players: {len(times):,} decisions, p50 {p50:.2f} ms, p99 {p99:.2f} ms, "
                  f"max {times[-1] * 1e3:.1f} ms")
    print(f"worst p99 {worst:.2f} ms (target ≤ 20 ms)")


if __name__ == "__main__":
    main()
