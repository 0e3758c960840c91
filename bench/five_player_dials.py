"""Screen changed 5-player dials against ``binomial`` and ``reader``, the way the README's "Five players: keeping
the edge over binomial" does, without shipping them.

    .venv/bin/python bench/five_player_dials.py --preset salomon --dials '{"bid_ratio": 8}' [--dials '{...}' ...]
        [--players 5] [--rounds 4000] [--seed 2] [--vs binomial,reader] [--revert]

Plays the table's trained reader (``hard``) with ``--dials`` changed (none: the shipped dials) in one seat and
``binomial`` or ``reader`` in the others, seats rotated — the same lineups, deals and decision seeds as
``liars arena --strategies hard,binomial --players 5 --rounds R --preset P --seed S`` with these dials shipped —
and prints one JSON line per setting: its edge over each (mean, 95 % interval), its final bids made/failed and
challenges won/lost, and against ``binomial`` its edge minus ``reader``'s own edge on the same deals, round by
round (``minus_reader``, with its interval). ``--dials`` may be given more than once: every setting plays the
same deals, and ``reader``'s own arena against ``binomial`` is played once for them all. ``--revert`` also plays
each dial that differs from ``reader``'s default put back to that default, one at a time.

Run by hand: 4,000 rounds against ``binomial`` take about ten CPU-seconds, against four ``reader`` s forty.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any

from core.figures import Interval
from core.serial import make_rules
from core.serial.players import Binomial, Reader, ReaderParams, Strategy
from core.serial.players.trained import trained_params
from core.serial.rules import Rules
from core.serial.solve.arena import ArenaResult, run_arena


def _arena(params: ReaderParams, versus: str, rules: Rules, players: int, rounds: int, seed: int) -> ArenaResult:
    other: Strategy = Reader(name="reader") if versus == "reader" else Binomial()
    strategies: dict[str, Strategy] = {"hard": Reader(params, name="hard"), versus: other}
    lineup = ["hard"] + [versus] * (players - 1)
    return run_arena(lineup, rounds, rules, seed, strategies=strategies, clock=lambda: 0.0)


def _edge_rounds(result: ArenaResult, versus: str) -> list[float]:
    return [a - b for a, b in zip(result.stats["hard"].per_round, result.stats[versus].per_round, strict=True)]


def _figures(iv: Interval) -> list[float]:
    return [round(iv.mean, 4), round(iv.mean - iv.half_width, 4), round(iv.mean + iv.half_width, 4)]


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--dials", action="append", help="JSON: the dials to change, e.g. '{\"bid_ratio\": 8}' "
                        "(default '{}', the shipped dials; may be repeated)")
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--vs", default="binomial,reader", help="comma-separated: binomial, reader")
    parser.add_argument("--revert", action="store_true", help="also each differing dial put back to reader's")
    args = parser.parse_args()
    rules = make_rules(args.preset)
    versus = [v.strip() for v in args.vs.split(",") if v.strip()]
    if not set(versus) <= {"binomial", "reader"}:
        parser.error("--vs takes binomial and/or reader")
    default = ReaderParams()
    settings: list[tuple[str, dict[str, Any], ReaderParams]] = []
    for text in args.dials or ["{}"]:
        changes: dict[str, Any] = json.loads(text)
        base = dataclasses.replace(trained_params(rules, args.players)[0], **changes)
        settings.append(("dials", changes, base))
        if args.revert:
            for f in dataclasses.fields(ReaderParams):
                if getattr(base, f.name) != getattr(default, f.name):
                    settings.append((f"revert {f.name}", changes,
                                     dataclasses.replace(base, **{f.name: getattr(default, f.name)})))
    reference: list[float] | None = None
    for label, changes, params in settings:
        out: dict[str, Any] = {"setting": label, "preset": args.preset, "players": args.players,
                               "rounds": args.rounds, "seed": args.seed, "dials": changes}
        for v in versus:
            result = _arena(params, v, rules, args.players, args.rounds, args.seed)
            stats = result.stats["hard"]
            edge = _edge_rounds(result, v)
            out[v] = _figures(Interval.of(edge))
            out[f"{v} bids made/failed, challenges won/lost"] = [
                stats.bids_made, stats.bids_failed, stats.challenges_won, stats.challenges_lost]
            if v == "binomial":
                if reference is None:
                    reference = _edge_rounds(_arena(default, v, rules, args.players, args.rounds, args.seed), v)
                out["reader vs binomial"] = round(sum(reference) / len(reference), 4)
                out["minus_reader"] = _figures(Interval.of([a - b for a, b in zip(edge, reference, strict=True)]))
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
