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

from core.commands import whole_arg

from .shell import fail, unwritable

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
    p.add_argument("--generations", type=whole_arg, default=8)
    p.add_argument("--size", type=whole_arg, default=8, help="candidates per generation")
    p.add_argument("--rounds", default="2:600,3:400,5:250", help="rounds per pairing, by table size (n:rounds,…)")
    p.add_argument("--seed", type=whole_arg, default=1)
    p.add_argument("--write", help="the data module to (re)write after each table")
    p.add_argument("--exploit-weight", type=float, default=0.0,
                   help="λ: the fitness loses λ × what a local best response earns against the candidate "
                        "(default: %(default)s, off)")
    p.add_argument("--exploit-rounds", type=whole_arg, default=200,
                   help="with --exploit-weight: the best response's rounds per candidate (default: %(default)s)")
    p.add_argument("--exploit-particles", type=whole_arg, default=16,
                   help="with --exploit-weight: its sampled holdings (default: %(default)s)")
    p.add_argument("--from-shipped", action="store_true",
                   help="start the search from the shipped dials of each table instead of reader's defaults")
    p.add_argument("--set", default="", metavar="DIAL=VALUE,…",
                   help="start from these dial values (over the shipped dials with --from-shipped); with "
                        "--generations 0 the run only judges them and writes them with their figures")
    p.add_argument("--sigma", type=float, default=0.2,
                   help="the search's first spread, in units of each dial's range (default: %(default)s)")
    p.set_defaults(func=cmd_train)


def cmd_train(args: argparse.Namespace) -> int:
    from core.serial.players import ReaderParams
    from core.serial.players.trained import key_of, load, trained_params
    from core.serial.rules import RulesError, make_rules
    from core.serial.solve.train import Exploit, Generation, train

    from .files import write_trained_module

    try:
        sizes = [int(n) for n in args.players.split(",")]
    except ValueError:
        return fail(f"--players takes table sizes 2 to 12, comma-separated, not {args.players!r}")
    if not all(2 <= n <= 12 for n in sizes):
        return fail(f"--players takes table sizes 2 to 12, comma-separated, not {args.players!r}")
    try:
        rounds = {int(k): int(v) for k, v in (item.split(":") for item in args.rounds.split(","))}
    except ValueError:
        return fail(f"--rounds takes size:rounds pairs like 2:600,3:300, not {args.rounds!r}")
    if not all(v >= 1 for v in rounds.values()):
        return fail(f"--rounds: each table plays at least one round a pairing, not {args.rounds!r}")
    try:
        tables = [(make_rules(p.strip()), n) for n in sizes for p in args.presets.split(",")]
    except RulesError as exc:
        return fail(str(exc))
    if args.write is not None and (why := unwritable(args.write)) is not None:
        return fail(why)
    if args.exploit_weight < 0 or args.exploit_rounds < 1 or args.exploit_particles < 1 or not 0 < args.sigma <= 1:
        return fail("--exploit-weight must be at least 0, --exploit-rounds and --exploit-particles at least 1, "
                    "--sigma above 0 and at most 1")
    exploit = Exploit(args.exploit_weight, args.exploit_rounds, args.exploit_particles)
    try:
        overrides = _dial_values(args.set)
    except ValueError as exc:
        return fail(str(exc))
    if args.generations < 0 or args.size < 1:
        return fail("--generations must be at least 0 and --size at least 1")
    trained: dict[str, dict[str, Any]] = dict(load()) if args.write is not None else {}
    for rules, n in tables:
        start = time.process_time()
        r = rounds.get(n, min(rounds.values()))

        def progress(g: Generation, n: int = n, start: float = start, preset: str = rules.preset) -> None:
            lbr = "" if g.exploit is None else f", the best response earns {g.exploit:+.3f}"
            print(f"  {preset} {n}p generation {g.index}: best {g.best:+.3f} (fitness), {g.vs_reader:+.3f} "
                  f"against reader{lbr} ({time.process_time() - start:.0f} s CPU)", flush=True)

        print(f"{rules.preset}, {n} players: {args.generations} generations of {args.size}, {r} rounds a pairing",
              flush=True)
        start_params = trained_params(rules, n)[0] if args.from_shipped else None
        if overrides:
            start_params = dataclasses.replace(start_params or ReaderParams(), **overrides)
        result = train(rules, n, generations=args.generations, size=args.size, rounds=r, seed=args.seed,
                       progress=progress, start=start_params, sigma0=args.sigma, exploit=exploit)
        seconds = time.process_time() - start
        lbr = "" if result.final_exploit is None else f", the best response earns {result.final_exploit:+.3f}"
        print(f"{rules.preset} {n}p done: {result.final:+.3f} over the final pool, {result.final_vs:+.3f} against "
              f"reader{lbr}; {result.rounds_played:,} rounds, {seconds:.0f} s CPU", flush=True)
        entry: dict[str, Any] = {
            "params": dataclasses.asdict(result.params),
            "pool": round(result.final, 4),
            "vs_reader": round(result.final_vs, 4),
            "rounds": result.rounds_played,
            "cpu_seconds": round(seconds),
        }
        if result.final_exploit is not None:
            entry["exploit"] = round(result.final_exploit, 4)
            entry["exploit_weight"] = args.exploit_weight
        trained[key_of(rules, n)] = entry
        if args.write is not None:
            write_trained_module(args.write, trained)
            print(f"wrote {args.write}", flush=True)
    return 0


def _dial_values(text: str) -> dict[str, Any]:
    """``"self_read=1,bid_ratio=6.5"`` -> the reader's dials by name, typed as the dials are."""
    from core.serial.players import ReaderParams

    kinds = {f.name: type(getattr(ReaderParams(), f.name)) for f in dataclasses.fields(ReaderParams)}
    out: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep or name not in kinds:
            raise ValueError(f"--set takes DIAL=VALUE pairs; the dials are: {', '.join(kinds)}")
        kind = kinds[name]
        try:
            if kind is bool:
                if raw.strip().lower() not in ("true", "false", "1", "0"):
                    raise ValueError(raw)
                out[name] = raw.strip().lower() in ("true", "1")
            else:
                out[name] = kind(raw)
        except ValueError:
            what = {bool: "true or false", int: "a whole number"}.get(kind, "a number")
            raise ValueError(f"--set {name}: {raw!r} is not {what}") from None
    return out
