"""``liars arena``: computer players against each other (:mod:`core.serial.solve.arena`), and their figures."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from core.commands import whole_arg

from .shell import fail

if TYPE_CHECKING:
    from core.serial.solve.arena import ArenaResult

__all__ = ["cmd_arena", "format_result", "register"]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "arena",
        help="play computer players against each other and measure them",
        description=(
            "Play rounds between computer players through the real engine, rotating the seats over every "
            "distinct order so no strategy profits from its seat, and print each strategy's mean units per "
            "round (95% confidence interval), final bids made/failed, challenges won/lost and decision times."
        ),
    )
    p.add_argument("--players", type=whole_arg, default=None, help="table size (default: one seat per strategy named)")
    p.add_argument(
        "--strategies",
        default=None,
        help="comma-separated strategy per seat; a short list is padded with its last name (default: "
             f"{SERIAL_LINEUP}; with --game cards, {CARD_LINEUP})",
    )
    p.add_argument("--rounds", type=whole_arg, default=2000,
                   help="rounds to play; with --game cards, whole games (default: %(default)s)")
    p.add_argument("--game", default="serial", choices=("serial", "cards"),
                   help="the serial-number game or the card game (default: %(default)s)")
    p.add_argument("--preset", default=None,
                   help="serial: classic, quick or salomon (default classic); cards: standard, wild or knockout "
                        "(default standard)")
    p.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="override one rule option (repeatable)"
    )
    p.add_argument("--seed", type=whole_arg, default=1, help="seeds the deal and every strategy (default: %(default)s)")
    p.add_argument("--format", default="rounds", choices=("rounds", "elimination"),
                   help="elimination: play whole games of who pays for dinner and measure each player's pay "
                   "rate; a strategy name ending in +elim is adapted to the elimination (default: %(default)s)")
    p.add_argument("--games", type=whole_arg, default=None, help="elimination games to play (default: 1000)")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    p.set_defaults(func=cmd_arena)


SERIAL_LINEUP = "reader,binomial,binomial"
CARD_LINEUP = "hard,normal,normal"


def _lineup(args: argparse.Namespace, known: Sequence[str], most: int, suffix: str = "\0") -> list[str] | str:
    """The strategy of each seat (``--strategies`` padded to ``--players``), or what is wrong: the names first,
    then the count (an unknown name was reported as "--players must be 2 to 12")."""
    default = CARD_LINEUP if args.game == "cards" else SERIAL_LINEUP
    names = [s.strip().lower().replace("_", "-") for s in str(args.strategies or default).split(",") if s.strip()]
    if not names:
        return "--strategies names no strategy"
    unknown = [n for n in names if n.removesuffix(suffix) not in known]
    if unknown:
        return f"unknown strategy {unknown[0]!r}; strategies are: {', '.join(known)}"
    players = args.players if args.players is not None else len(names)
    if not 2 <= players <= most:
        if args.players is None:
            return f"--strategies names {len(names)}: name 2 to {most} (one a seat), or give --players"
        return f"--players must be 2 to {most}"
    if len(names) > players:
        return f"--strategies names {len(names)} strategies for {players} seats"
    return names + [names[-1]] * (players - len(names))


def _overrides(items: list[str]) -> dict[str, str] | str:
    """The ``--option NAME=VALUE`` words as rule overrides, or what is wrong with one of them."""
    overrides: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            return f"--option takes NAME=VALUE, not {item!r}"
        overrides[key] = value
    return overrides


MOST = 100_000_000
"""The most rounds (or games) an arena plays: days of CPU already (a 20-digit --rounds ran on, unbounded)."""


def cmd_arena(args: argparse.Namespace) -> int:
    for flag, value in (("--rounds", args.rounds), ("--games", args.games)):
        if value is not None and value > MOST:
            return fail(f"{flag} must be at most {MOST:,}")
    if args.game == "cards":
        return cmd_card_arena(args)
    from core.serial.bids import MAX_PLAYERS
    from core.serial.players import STRATEGY_NAMES
    from core.serial.rules import RulesError, make_rules
    from core.serial.solve.arena import ArenaError, run_arena

    overrides = _overrides(args.option)
    if isinstance(overrides, str):
        return fail(overrides)
    named = overrides.pop("format", None)  # `--option format=elimination` is the format, as --format is
    if named is not None and args.format != "rounds" and named != args.format:
        return fail(f"--format {args.format} and --option format={named} disagree: give one")
    args.format = named or args.format
    if args.format not in ("rounds", "elimination"):
        return fail(f"--format takes rounds or elimination, not {args.format!r}")
    names = _lineup(args, STRATEGY_NAMES, MAX_PLAYERS, "+elim" if args.format == "elimination" else "\0")
    if isinstance(names, str):
        return fail(names)
    if args.rounds < 1:
        return fail("--rounds must be at least 1")
    try:
        rules = make_rules(args.preset or "classic", **overrides)
    except RulesError as exc:
        return fail(str(exc))
    if args.format == "elimination":
        return _elimination(names, args, overrides)
    if args.games is not None:  # (it was ignored: the rounds played were --rounds')
        return fail("--games counts games of --format elimination: give --rounds here")
    try:
        result = run_arena(names, args.rounds, rules, args.seed, clock=time.perf_counter)
    except ArenaError as exc:
        return fail(str(exc))
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(format_result(result))
    return 0


def _elimination(names: list[str], args: argparse.Namespace, overrides: dict[str, str]) -> int:
    from core.serial.rules import RulesError, make_rules
    from core.serial.solve.arena import ArenaError
    from core.serial.solve.elimination_arena import format_elimination, run_elimination_arena

    args.games = 1000 if args.games is None else args.games
    if args.games < 1:
        return fail("--games must be at least 1")
    try:
        rules = make_rules(args.preset or "classic", **{**overrides, "format": "elimination"})
        result = run_elimination_arena(names, args.games, rules, args.seed)
    except (RulesError, ArenaError) as exc:
        return fail(str(exc))
    print(json.dumps(result.to_dict()) if args.json else format_elimination(result))
    return 0


def format_result(result: ArenaResult) -> str:
    """The figures as a table people read."""
    from core.figures import bracket

    d = result.to_dict()
    lines = [
        f"{d['players']} players, preset {d['preset']}, {d['rounds']} rounds, seed {d['seed']}: "
        f"{', '.join(d['lineup'])}",
        f"seats rotated over {d['rotation']['orders']} orders "
        f"({'every distinct one' if d['rotation']['kind'] == 'permutations' else 'cyclic shifts'}); "
        f"{d['actions_per_round']:.1f} actions per round; mean stake {d['mean_stake']:.2f}",
        "",
        f"{'strategy':<17}{'seats':>5}  {'units/round':>11}  {'95% CI':>19}  {'bids made/failed':>16}  "
        f"{'challenges won/lost':>19}  {'p50 ms':>7}  {'p99 ms':>7}",
    ]
    for s in d["strategies"]:
        u = s["units_per_round"]
        ms = s["decision_ms"]
        lines.append(
            f"{s['name']:<17}{s['seats']:>5}  {u['mean']:>+11.4f}  {bracket(u['ci95'], '>+8.4f', column=True)}  "
            f"{s['bids_made']:>7}/{s['bids_failed']:<8}  {s['challenges_won']:>9}/{s['challenges_lost']:<9}  "
            f"{ms['p50']:>7.3f}  {ms['p99']:>7.3f}"
        )
    if d["edges"]:
        lines.append("")
        for e in d["edges"]:
            lines.append(
                f"{e['strategy']} minus {e['versus']}: {e['mean']:+.4f} units per round, 95% CI "
                f"{bracket(e['ci95'], '+.4f')}"
            )
    return "\n".join(lines)


def cmd_card_arena(args: argparse.Namespace) -> int:
    from core.cards.arena import CARD_PLAYERS, CardArenaError, run_card_arena
    from core.cards.rules import RulesError, make_rules
    from core.figures import bracket, decision_ms

    overrides = _overrides(args.option)
    if isinstance(overrides, str):
        return fail(overrides)
    if args.format != "rounds" or overrides.get("format", "rounds") != "rounds":
        return fail("the card game has one format: leave --format out")
    if args.games is not None:  # (it played --rounds' 2,000 games all the same)
        return fail("with --game cards, --rounds counts whole games: give --rounds, not --games")
    overrides.pop("format", None)
    names = _lineup(args, CARD_PLAYERS, 12)
    if isinstance(names, str):
        return fail(names)
    players = len(names)
    try:
        rules = make_rules(args.preset or "standard", overrides)
        result = run_card_arena(names, args.rounds, rules, args.seed, clock=time.perf_counter)
    except (RulesError, CardArenaError) as exc:
        return fail(str(exc))
    rows: list[dict[str, Any]] = [{"name": name, "seats": st.seats, "games_won": st.won.to_dict(),
             "units_per_game": st.units_per_game.to_dict(), "decision_ms": decision_ms(st.seconds)}
            for name, st in result.stats.items()]
    edges: list[dict[str, Any]] = [{"strategy": result.lineup[0], "versus": other, **result.edge(other).to_dict()}
             for other in list(result.stats)[1:]]
    if args.json:
        print(json.dumps({"game": "cards", "players": players, "preset": rules.preset, "games": args.rounds,
                          "seed": args.seed, "lineup": names, "rounds": result.rounds, "actions": result.actions,
                          "players_figures": rows, "edges": edges}))
        return 0
    print(f"cards, {players} players, preset {rules.preset}, {args.rounds} games ({result.rounds} rounds), seed "
          f"{args.seed}: {', '.join(names)}; seats rotated one place a game")
    print(f"{'player':<12}{'seats':>5}  {'games won':>9}  {'95% CI':>17}  {'units/game':>10}  {'95% CI':>19}  "
          f"{'p50 ms':>7}  {'p99 ms':>7}")
    for r in rows:
        w, u, ms = r["games_won"], r["units_per_game"], r["decision_ms"]
        print(f"{r['name']:<12}{r['seats']:>5}  {w['mean']:>9.3f}  {bracket(w['ci95'], '>6.3f', column=True)}  "
              f"{u['mean']:>+10.3f}  {bracket(u['ci95'], '>+8.3f', column=True)}  "
              f"{ms['p50']:>7.3f}  {ms['p99']:>7.3f}")
    for e in edges:
        print(f"{e['strategy']} minus {e['versus']}: {e['mean']:+.3f} units per game, 95% CI "
              f"{bracket(e['ci95'], '+.3f')}")
    return 0
