"""``liars train``: self-play training of ``hard``'s dials (:mod:`core.serial.solve.train`), written as the
data module ``core`` plays (:mod:`core.serial.players.trained_data`).

::

    nice -n 19 liars train --presets classic,salomon --players 2,3,5 --write core/serial/players/trained_data.py
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from typing import Any

from .shell import fail

__all__ = ["cmd_train", "register"]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "train",
        help="train the hard player's dials by self-play for the given presets and table sizes",
        description=(
            "Population self-play (the cross-entropy method against a pool of earlier champions, today's reader "
            "and binomial) over the reader's dials, one table (preset, players) at a time; writes the data module "
            "after each table, so an interrupted run keeps what it finished."
        ),
    )
    p.add_argument("--presets", default="classic,salomon", help="comma-separated presets (default: %(default)s)")
    p.add_argument("--players", default="2,3,5", help="comma-separated table sizes (default: %(default)s)")
    p.add_argument("--generations", type=int, default=8)
    p.add_argument("--size", type=int, default=8, help="candidates per generation")
    p.add_argument("--rounds", default="2:600,3:400,5:250", help="rounds per pairing, by table size (n:rounds,…)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--write", help="the data module to (re)write after each table")
    p.set_defaults(func=cmd_train)


def cmd_train(args: argparse.Namespace) -> int:
    from core.serial.players.trained import key_of, load
    from core.serial.rules import RulesError, make_rules
    from core.serial.solve.train import Generation, train

    from .files import write_trained_module

    try:
        tables = [(make_rules(p.strip()), int(n)) for n in args.players.split(",") for p in args.presets.split(",")]
        rounds = {int(k): int(v) for k, v in (item.split(":") for item in args.rounds.split(","))}
    except (RulesError, ValueError) as exc:
        return fail(str(exc))
    trained: dict[str, dict[str, Any]] = dict(load()) if args.write else {}
    for rules, n in tables:
        start = time.process_time()
        r = rounds.get(n, min(rounds.values()))

        def progress(g: Generation, n: int = n, start: float = start, preset: str = rules.preset) -> None:
            print(f"  {preset} {n}p generation {g.index}: best {g.best:+.3f} units/round over the pool, "
                  f"{g.vs_reader:+.3f} against reader ({time.process_time() - start:.0f} s CPU)", flush=True)

        print(f"{rules.preset}, {n} players: {args.generations} generations of {args.size}, {r} rounds a pairing",
              flush=True)
        result = train(rules, n, generations=args.generations, size=args.size, rounds=r, seed=args.seed,
                       progress=progress)
        seconds = time.process_time() - start
        print(f"{rules.preset} {n}p done: {result.final:+.3f} over the final pool, {result.final_vs:+.3f} against "
              f"reader; {result.rounds_played:,} rounds, {seconds:.0f} s CPU", flush=True)
        trained[key_of(rules, n)] = {
            "params": dataclasses.asdict(result.params),
            "pool": round(result.final, 4),
            "vs_reader": round(result.final_vs, 4),
            "rounds": result.rounds_played,
            "cpu_seconds": round(seconds),
        }
        if args.write:
            write_trained_module(args.write, trained)
            print(f"wrote {args.write}", flush=True)
    return 0
