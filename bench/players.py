"""The shipped computer players' artefact: its size, how long it takes to load, and how long `hard` takes to decide.

    .venv/bin/python bench/players.py [--rounds 300] [--loads 3]

Size: the trained dials and the solved tables' data modules.
Load: a fresh interpreter imports the players, builds ``hard`` and makes its first decision, timed from
before the import (wall clock, and the process's CPU time, steadier on a shared machine): in the full
game (the trained dials parsed, the reader's tables built) and in each small format where ``hard``
plays a solved table (that table inflated and parsed on its first use there).
Decisions: ``hard`` in every seat of ``--rounds`` rounds after one untimed decision (the load), each
``decide`` timed, p50/p99 (nearest rank) and max in milliseconds: 2 to 6 players in the full game,
classic and Salomon; heads-up 5×5 with and without the rebid right and 3×3 with it; 3 players 3×3
with and without it (classic rules there, the flat payoffs the tables are solved for).  Targets
(issue #24): artefact ≤ 20 MB, load ≤ 2 s, decision p99 ≤ 20 ms.

    .venv/bin/python bench/players.py --expert 20

Only ``expert``'s decisions instead: it sits in one seat (rotating) of ``--expert`` rounds, ``hard`` in the
others, at 2, 3, 5 and 6 players, classic and Salomon; p50/p99 of its decisions (target p99 ≤ 1 s).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from core.figures import decision_ms
from core.serial import Round, deal_serial, make_rules
from core.serial.players import Expert, get_strategy
from core.serial.rules import Rules
from core.serial.view import seat_view

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = ROOT / "core" / "serial" / "players"
ARTEFACT = PLAYERS / "trained_data.py"
TABLES = [PLAYERS / f"{name}.py" for name in
          ("solved_data", "solved_packed_data", "solved_history_data", "solved_multi_data")]

# (label, players, rules options): the small formats where ``hard`` plays a shipped solved table
SMALL: list[tuple[str, int, dict[str, object]]] = [
    ("heads-up 5×5, rebid", 2, {"digits": 5, "serial_length": 5, "rebid": True}),
    ("heads-up 5×5, no rebid", 2, {"digits": 5, "serial_length": 5, "rebid": False}),
    ("heads-up 3×3, rebid", 2, {"digits": 3, "serial_length": 3, "rebid": True}),
    ("3 players 3×3, rebid", 3, {"digits": 3, "serial_length": 3, "rebid": True}),
    ("3 players 3×3, no rebid", 3, {"digits": 3, "serial_length": 3, "rebid": False}),
]

LOAD = """
import time
t, c = time.perf_counter(), time.process_time()
import json, random, sys
from core.serial import Round, deal_serial, make_rules
from core.serial.players import get_strategy
from core.serial.view import seat_view
n, options = json.loads(sys.argv[1])
rules = make_rules("classic", **options)
rng = random.Random(1)
seats = tuple(f"p{i}" for i in range(n))
r = Round(rules, seats, {p: deal_serial(rng, rules.serial_length, rules.digits) for p in seats}, "p0")
view = seat_view(r, "p0")
hard = get_strategy("hard")
hard.decide(view, rng)
print(time.perf_counter() - t, time.process_time() - c, "solved" in hard.explain(view))
"""


def load(players: int, options: Mapping[str, object], times: int) -> tuple[list[float], list[float], bool]:
    """Wall and CPU seconds of import + build + first decision, each in a fresh process; whether a table played."""
    walls, cpus, solved = [], [], True
    for _ in range(times):
        out = subprocess.run([sys.executable, "-c", LOAD, json.dumps([players, options])], capture_output=True,
                             text=True, check=True, cwd=ROOT).stdout.split()
        walls.append(float(out[0]))
        cpus.append(float(out[1]))
        solved = solved and out[2] == "True"
    return walls, cpus, solved


def decisions(rules: Rules, n: int, rounds: int) -> list[float]:
    """Seconds of each of ``hard``'s decisions in every seat of ``rounds`` rounds, after one untimed decision
    (a packed table is parsed on its first use in a process: that is the load, timed apart)."""
    rng = random.Random(n)
    seats = tuple(f"p{i}" for i in range(n))
    players = {p: get_strategy("hard") for p in seats}
    first = Round(rules, seats, {p: deal_serial(rng, rules.serial_length, rules.digits) for p in seats}, seats[0])
    players[seats[0]].decide(seat_view(first, seats[0]), rng)
    times: list[float] = []
    for k in range(rounds):
        round_ = Round(rules, seats, {p: deal_serial(rng, rules.serial_length, rules.digits) for p in seats},
                       seats[k % n])
        while not round_.is_over:
            who = round_.to_act
            assert who is not None
            view = seat_view(round_, who)
            t = time.perf_counter()
            action = players[who].decide(view, rng)
            times.append(time.perf_counter() - t)
            round_.apply(action)
    return times


def expert_decisions(rules: Rules, n: int, rounds: int) -> list[float]:
    """Seconds of each of ``expert``'s searches in ``rounds`` rounds, its seat rotating, ``hard`` elsewhere (the
    search at every table size: the shipped level searches heads up only and plays as ``hard`` beyond)."""
    rng = random.Random(n)
    seats = tuple(f"p{i}" for i in range(n))
    expert, hard = get_strategy("expert"), get_strategy("hard")
    assert isinstance(expert, Expert)
    expert.max_players = None  # the shipped level, its type mixture included, searching at every size
    times: list[float] = []
    for k in range(rounds):
        me = seats[k % n]
        round_ = Round(rules, seats, {p: deal_serial(rng, rules.serial_length, rules.digits) for p in seats}, seats[0])
        while not round_.is_over:
            who = round_.to_act
            assert who is not None
            view = seat_view(round_, who)
            t = time.perf_counter()
            action = (expert if who == me else hard).decide(view, rng)
            if who == me:
                times.append(time.perf_counter() - t)
            round_.apply(action)
    return times


def _line(label: str, times: list[float]) -> tuple[str, float]:
    ms = decision_ms(times)
    return (f"hard, {label}: {len(times):,} decisions, p50 {ms['p50']:.2f} ms, p99 {ms['p99']:.2f} ms, "
            f"max {ms['max']:.1f} ms"), ms["p99"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--loads", type=int, default=3, help="fresh processes per load figure")
    parser.add_argument("--expert", type=int, default=0, metavar="ROUNDS", help="time expert instead, in ROUNDS rounds")
    parser.add_argument("--sizes", default="2,3,5,6", help="with --expert: the table sizes (default %(default)s)")
    args = parser.parse_args()
    if args.expert:
        worst = 0.0
        for preset in ("classic", "salomon"):
            for n in (int(x) for x in args.sizes.split(",")):
                times = expert_decisions(make_rules(preset), n, args.expert)
                ms = decision_ms(times)
                worst = max(worst, ms["p99"])
                print(f"expert, {preset}, {n} players, {len(times)} decisions: p50 {ms['p50']:.0f} ms, "
                      f"p99 {ms['p99']:.0f} ms, max {ms['max']:.0f} ms", flush=True)
        print(f"worst p99 {worst:.0f} ms (target ≤ 1000 ms)")
        return
    tables = sum(p.stat().st_size for p in TABLES)
    print(f"artefact {ARTEFACT.relative_to(ROOT)}: {ARTEFACT.stat().st_size / 1e3:.1f} KB; with the solved tables' "
          f"data modules {(ARTEFACT.stat().st_size + tables) / 1e6:.2f} MB (target ≤ 20 MB)")
    worst_load = 0.0
    for label, n, options in [("full game, 3 players", 3, {}), *SMALL]:
        walls, cpus, solved = load(n, options, args.loads)
        worst_load = max(worst_load, *walls)
        played = "" if not options else "" if solved else "  (NO solved table played: check the bench)"
        print(f"load + first decision, {label}: {', '.join(f'{x:.2f}' for x in walls)} s wall, "
              f"{', '.join(f'{x:.2f}' for x in cpus)} s CPU ({args.loads} fresh processes){played}")
    print(f"worst load {worst_load:.2f} s (target ≤ 2 s)")
    worst = 0.0
    for preset in ("classic", "salomon"):
        rules = make_rules(preset)
        for n in range(2, 7):
            line, p99 = _line(f"{preset}, {n} players", decisions(rules, n, args.rounds))
            worst = max(worst, p99)
            print(line)
    for label, n, options in SMALL:
        line, p99 = _line(label, decisions(make_rules("classic", **options), n, args.rounds))
        worst = max(worst, p99)
        print(line)
    print(f"worst p99 {worst:.2f} ms (target ≤ 20 ms)")


if __name__ == "__main__":
    main()
