"""The 3-player CFR+ solver's iterations on one thread and on several (``liars exploit --solve --threads``).

Builds :class:`core.serial.solve.cfr_multi.MultiSolver` twice for one format, compiles both kernels with one
iteration each, then times ``--iterations`` more on one thread and on ``--threads``, in alternating batches
so a busy machine's load falls on both alike, and checks that the two solves agree bit for bit.  Run::

    .venv/bin/python bench/solver.py [--digits 3 --serial-length 3 --memory 2 --iterations 20 --threads 2]

Not part of the test suite.  Prints wall-clock and CPU seconds an iteration for each, and the speed-up in
wall-clock time (what a solve's deadline sees; CPU time counts every thread).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from core.serial.rules import make_rules
from core.serial.solve.cfr_multi import MultiFormat, MultiSolver


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--digits", type=int, default=3)
    parser.add_argument("--serial-length", type=int, default=3)
    parser.add_argument("--no-rebid", action="store_true")
    parser.add_argument("--memory", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--batch", type=int, default=5, help="iterations a turn, alternating the two solves")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    rules = make_rules("classic", rebid=not args.no_rebid, digits=args.digits, serial_length=args.serial_length)
    fmt = MultiFormat(rules, args.players)
    solvers = {1: MultiSolver(fmt, args.memory), args.threads: MultiSolver(fmt, args.memory, threads=args.threads)}
    print(f"{args.players}-player {rules.format_name}, memory {args.memory}: {len(solvers[1].nodes):,} states, "
          f"{len(solvers[1].level) - 1} levels")
    for solver in solvers.values():
        solver.iterate(1)  # compiles the kernel
    wall = dict.fromkeys(solvers, 0.0)
    cpu = dict.fromkeys(solvers, 0.0)
    done = 0
    while done < args.iterations:
        batch = min(args.batch, args.iterations - done)
        for threads, solver in solvers.items():
            w, c = time.perf_counter(), time.process_time()
            solver.iterate(batch)
            wall[threads] += time.perf_counter() - w
            cpu[threads] += time.process_time() - c
        done += batch
    for threads in solvers:
        print(f"{threads} thread{'s' if threads > 1 else ' '}: {wall[threads] / done:.3f} s wall, "
              f"{cpu[threads] / done:.3f} s CPU an iteration")
    one, many = solvers[1], solvers[args.threads]
    same = np.array_equal(one.regret, many.regret) and np.array_equal(one.total, many.total)
    print(f"speed-up in wall-clock time: {wall[1] / wall[args.threads]:.2f}x on {args.threads} threads; "
          f"the two solves {'agree bit for bit' if same else 'DIFFER'}")


if __name__ == "__main__":
    main()
