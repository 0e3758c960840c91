"""``liars play``, ``liars ledger`` and ``liars sheet``: the local table and the ledger from the shell."""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from core.commands import whole_arg
from core.registry import DEFAULT_GAME, GAMES

from .cli import SERVER_FORM, SERVER_PLATFORMS, fail, server_hint
from .commands import either, format_lines, options_examples
from .model import Actor, Command, TableKey


def register(sub: Any) -> None:
    p = sub.add_parser("play", help="play at a local table in the terminal against computer players")
    p.add_argument("--seats", type=whole_arg, default=None, help="seats at a new table, you included (default 4) ("
                   + ", ".join(f"{g.name}: {g.min_players}-{g.max_players}" for g in GAMES.values()) + ")")
    p.add_argument("--game", default=DEFAULT_GAME, type=str.lower, choices=tuple(GAMES),
                   help=either([f"{DEFAULT_GAME} (default)", *(name for name in GAMES if name != DEFAULT_GAME)]))
    p.add_argument("--preset", default=None, help="the game's preset ("
                   + "; ".join(f"{name}: {either(game.presets)}" for name, game in GAMES.items() if game.presets) + ")")
    p.add_argument("--stake", type=whole_arg, default=None)
    p.add_argument("--format", default=None, type=str.lower,  # (`--format Elimination`, as chat takes it)
                   choices=tuple(dict.fromkeys(f for g in GAMES.values() for f in g.formats)),
                   help="the game's format: " + format_lines())
    p.add_argument("--humans", type=whole_arg, choices=(0, 1), default=1, help="0: an all-computer table")
    p.add_argument("--rounds", type=whole_arg, default=None, help="stop after this many rounds")
    p.add_argument("--seed", type=whole_arg, default=None, help="deal from a seeded source (demos and tests)")
    levels = list(dict.fromkeys(level for game in GAMES.values() for level in game.levels))
    p.add_argument("--level", default=None, help=f"computer players' level: {either(levels)} (default hard)")
    p.add_argument("--db", default=None, help="SQLite file or postgresql:// URL "
                   "(default: $LIARS_DATABASE_URL, else $LIARS_DB, else ./liars.sqlite3)")
    p.add_argument("--option", action="append", default=[], help="a rule option of the game, once for each, e.g. "
                   + ", ".join(options_examples("--option {first} ({game})")))
    p.set_defaults(func=cmd_play)

    for name in ("ledger", "sheet", "export"):
        p = sub.add_parser(name, help=f"the server's {name} from the command line"
                           if name != "export" else "a channel's game record (the liars replay format)")
        p.add_argument("--server", default="local", help="local, or platform:id such as discord:1234")
        p.add_argument("--db", default=None)
        if name == "export":
            p.add_argument("--channel", default="terminal", help="the channel id (the local table: terminal)")
        else:
            p.add_argument("--json", action="store_true")
        if name == "sheet":
            p.add_argument("--period", default=None, help="YYYY-MM (default: this month)")
        p.set_defaults(func=cmd_ledger, what=name)


# what the table's `start` takes besides the game's rules, and the flag of `liars play` that says it
_FLAGGED = {"game": "--game", "seats": "--seats", "computers": "--seats (every seat but yours is a computer's)",
            "level": "--level", "preset": "--preset", "stake": "--stake", "rounds": "--rounds",
            "host_computer": "--humans 0"}


def _options(words: list[str], fmt: str | None) -> str | None:
    """Why the ``--option`` words (and ``--format``) cannot be taken, or None: an option that has its own flag,
    or one given twice with different values, is refused by name (the last one silently won)."""
    given: dict[str, str] = {"format": fmt} if fmt is not None else {}
    for word in words:
        typed, _, value = word.partition("=")
        name = typed.strip().lower().replace("-", "_")
        if name in _FLAGGED:
            return f"--option {typed.strip()}: give it as {_FLAGGED[name]}"
        if name in given and given[name].strip().lower() != value.strip().lower():
            was = "--format" if name == "format" and fmt is not None else f"--option {name}={given[name]}"
            return f"--option {typed.strip()}={value} contradicts {was}: give each option once"
        given[name] = value
    return None


def cmd_play(args: argparse.Namespace) -> int:
    from adapters.console.app import play

    game = GAMES[args.game]
    if args.seats is not None and not game.min_players <= args.seats <= game.max_players:
        return fail(f"--seats must be {game.min_players} to {game.max_players}")
    if (refused := _options(args.option, args.format)) is not None:
        return fail(refused)
    # given to a table left open, these would have made another one (the resumed table says so)
    new_only = [flag for flag, given in (("--format", args.format), ("--option", args.option),
                                         ("--level", args.level)) if given]
    if args.format is not None:
        if args.format not in game.formats:
            return fail(f"--format {args.format} is not a format of the {args.game} game"
                        + (f" ({', '.join(game.formats)})" if game.formats else " (it has none)"))
        args.option = [*args.option, f"format={args.format}"]
    named = next((o.partition("=")[2].strip().lower() for o in args.option  # --format, or --option format=…
                  if o.partition("=")[0].strip().lower().replace("-", "_") == "format"), args.format)
    if args.humans == 0 and args.rounds is None and game.formats and named in (None, next(iter(game.formats))):
        args.rounds = 20  # an all-computer table in the game's usual format stops; another ends by itself
    return asyncio.run(
        play(
            seats=args.seats,
            preset=args.preset,
            stake=args.stake,
            humans=args.humans,
            rounds=args.rounds,
            seed=args.seed,
            level=args.level or "hard",
            db_path=args.db,
            options=args.option,
            game=args.game,
            new_only=new_only,
        )
    )


def cmd_ledger(args: argparse.Namespace) -> int:
    from .bootstrap import build_service
    from .ports import NullNotifier

    platform = args.server.partition(":")[0]
    if args.server != "local" and (":" not in args.server or platform not in SERVER_PLATFORMS):
        # (a typo, or the platform left out: it showed an empty ledger and exited 0)
        return fail(f"--server {args.server} names no server{server_hint(args.server)}. {SERVER_FORM}")

    async def run() -> int:
        service = await build_service(NullNotifier(), db_path=args.db, platform="none", existing=True)
        try:
            key = TableKey.from_server(args.server, getattr(args, "channel", "cli"))
            period = getattr(args, "period", None)
            # as the named option, not a word: `sheet` reads the words "settle" and "chart" as what to do
            options = {"period": period} if period is not None else {}  # ("": refused, not this month)
            # the shell's user holds the database: they see every month (history=month binds players only); past 30
            # players the text lists the top and the bottom as in chat, and --json lists everyone
            reply = await service.handle(Command(args.what, key, Actor("cli", "cli", is_admin=True), (), options))
        finally:
            await service.close()
        if args.what == "export" and reply.ok and reply.data:
            print(reply.data["record"])
        elif getattr(args, "json", False) and reply.ok:
            print(json.dumps(reply.data))
        elif getattr(args, "json", False):  # a refusal: its reason, not null
            print(json.dumps({"error": reply.text, "code": reply.code}))
        elif not reply.ok:  # on standard error, as every command's refusal (it went into `export > rec.json`)
            return fail(reply.text.replace("**", "").replace("`", ""))
        else:
            print(reply.text.replace("**", "").replace("`", ""))
        return 0 if reply.ok else 2

    return asyncio.run(run())
