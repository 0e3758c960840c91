"""``liars odds``: the exact odds of a digit's count at a serial table (:mod:`core.serial.odds`), as a
table or JSON — the serial game's own tool, so it lives here beside ``arena`` and ``exploit``, not in
``bot/``, which knows no game's rules."""

from __future__ import annotations

import argparse
import json
from typing import Any

from core.commands import whole_arg

from .shell import fail

__all__ = ["cmd_odds", "register"]


def register(sub: Any) -> None:
    p = sub.add_parser("odds", help="exact odds of a digit's count")
    p.add_argument("--players", type=whole_arg, required=True)
    p.add_argument("--serial", help="your serial: odds given what you hold")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_odds)


def cmd_odds(args: argparse.Namespace) -> int:
    from core.serial.bids import MAX_PLAYERS, MIN_PLAYERS
    from core.serial.odds import at_least, count_distribution, player_odds
    from core.serial.serials import Serial

    n = args.players
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        return fail(f"--players must be {MIN_PLAYERS} to {MAX_PLAYERS}")
    if args.serial is None:
        k = 8 * n
        dist = count_distribution(k)
        rows = [{"k": j, "exactly": dist[j], "at_least": at_least(j, k)} for j in range(k + 1)]
        if args.json:
            print(json.dumps({"players": n, "digits": k, "rows": rows}))
        else:
            print(f"One digit among the {k} digits of {n} serials (Binomial({k}, 1/10)):")
            print(f"{'k':>3}  {'P(exactly k)':>12}  {'P(at least k)':>13}")
            for row in rows:
                if row["at_least"] < 5e-7 and row["k"] > 0:
                    break
                print(f"{row['k']:>3}  {row['exactly']:>12.6f}  {row['at_least']:>13.6f}")
        return 0
    try:
        serial = Serial.parse(args.serial)
    except ValueError as exc:
        return fail(str(exc))
    table = player_odds(serial, n)
    if args.json:
        print(
            json.dumps(
                {
                    "players": n,
                    "serial": serial.digits,
                    "digits": [
                        {"digit": d, "held": held, "at_least": {str(q + 1): p for q, p in enumerate(probs)}}
                        for d, held, probs in table
                    ],
                }
            )
        )
        return 0
    top = min(8 * n, 12)
    print(f"Serial {serial.digits} at a {n}-player table: P(total ≥ q) for each digit")
    print("digit held " + " ".join(f"{q:>6}" for q in range(1, top + 1)))
    for d, held, probs in table:
        print(f"{d:>5} {held:>4} " + " ".join(f"{p:>6.4f}" for p in probs[:top]))
    return 0
