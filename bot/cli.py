"""The ``liars`` console script.  Each subcommand imports what it needs, so ``liars odds`` stays quick.

Nothing here knows a game's rules: a game's own tools (``liars odds``, ``arena``, ``exploit``) are the
research adapter's (:mod:`adapters.research.cli`), registered by module path like the platforms'."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["main"]

_MENTION = re.compile(r"<@([^<>\s]+)>")


def _plain_names(text: str) -> str:
    """``<@zed>`` (a game's words for a player, which chat renders) as ``zed`` for the terminal."""
    return _MENTION.sub(r"\1", text)


def _read_json(path: str) -> Any:
    where = "standard input" if path == "-" else path
    if path == "":
        raise SystemExit(fail("name a record file (or - for standard input)"))
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except OSError as exc:
        raise SystemExit(fail(f"cannot read {path}: {exc.strerror}")) from None
    except UnicodeDecodeError:
        raise SystemExit(fail(f"{where} is not UTF-8 text")) from None
    text = text.removeprefix("\ufeff")  # a byte-order mark (Notepad's, PowerShell's "UTF-8"): "malformed JSON"
    if text.strip() == "":
        raise SystemExit(fail(f"{where} is empty: a record is one JSON object, or a list of them"))
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        message = f"malformed JSON in {where}: {exc.msg} at line {exc.lineno} column {exc.colno}"
        raise SystemExit(fail(message)) from None
    except RecursionError:
        raise SystemExit(fail(f"malformed JSON in {where}: nested too deeply")) from None
    except ValueError:  # (after JSONDecodeError, a ValueError itself): Python's limit on an integer's digits
        raise SystemExit(fail(f"malformed JSON in {where}: a number of more than {sys.get_int_max_str_digits():,} "
                              "digits")) from None


SERVER_FORM = "A server is written as its ledger names it: slack:T0123, discord:1234 or local."
SERVER_PLATFORMS = ("slack", "discord")


def server_hint(server: str) -> str:
    """" (did you mean …?)" for a server written without its platform (or ``local`` in capitals), else ""."""
    if server.lower() == "local" != server:
        return " (did you mean local?)"
    if ":" not in server and server != "local":
        return f" (did you mean {' or '.join(f'{p}:{server}' for p in SERVER_PLATFORMS)}?)"
    return ""


def fail(message: str) -> int:
    """Print ``liars: message`` on stderr; the exit status of a refused command line."""
    print(f"liars: {message}", file=sys.stderr)
    return 2


def cmd_replay(args: argparse.Namespace, verify: bool = False) -> int:
    from core.records import IllegalRecordedAction, RecordError, game_of
    from core.registry import get_game

    def one(record: Any) -> Any:
        try:
            game = get_game(game_of(record))  # the record names its game (none: records.DEFAULT_GAME)
        except KeyError as exc:
            raise RecordError(str(exc.args[0])) from None
        return game.verify(record) if verify else game.replay(record)

    record = _read_json(args.file)
    if record == []:
        return fail("the file holds an empty list: no record to " + ("verify" if verify else "replay"))
    session: int | None = None  # which record of a list (an exported table whose seats changed: one per session)
    try:
        if isinstance(record, list):
            result: Any = []
            for index, each in enumerate(record):
                session = index  # (named in the error, below)
                result.append(one(each))
        else:
            result = one(record)
    except RecordError as exc:
        where = "" if session is None else f"session {session}: "
        return fail(where + _plain_names(str(exc)))
    except IllegalRecordedAction as exc:  # a game's words name players as chat mentions: here, by their names
        named = {} if session is None else {"session": session}
        print(json.dumps({**named, **exc.to_dict(), "error": _plain_names(exc.error)}))
        return 2
    if verify:
        result = {"verified": True, "sessions": result} if isinstance(result, list) else {"verified": True, **result}
    try:
        text = json.dumps(result, indent=2 if args.pretty else None)
    except ValueError:  # a figure past Python's limit on an integer's digits (a stake just under it, doubled)
        return fail(f"a figure of the {'verification' if verify else 'replay'} has more than "
                    f"{sys.get_int_max_str_digits():,} digits: too large to print")
    print(text)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    return cmd_replay(args, verify=True)


def cmd_migrate(args: argparse.Namespace) -> int:
    import asyncio

    from adapters.migrate import MigrationError, migrate

    try:
        report = asyncio.run(migrate(args.source, args.target))
    except MigrationError as exc:
        return fail(str(exc))
    print(report.summary())
    return 0 if report.ok else 1


def cmd_forget(args: argparse.Namespace) -> int:
    import asyncio

    from .bootstrap import open_store
    from .ports import OpenTables

    if not args.yes:
        return fail(f"this erases {args.server}'s ledger, rounds, tables and settings for good: add --yes")

    async def run() -> dict[str, int]:
        store = await open_store(args.db, existing=True)  # a mistyped --db: refused, not made and "erased"
        try:
            return await store.erase_server(args.server)
        finally:
            await store.close()

    try:
        erased = asyncio.run(run())
    except OpenTables as exc:
        return fail(str(exc))
    if not any(erased.values()):  # a typo, or the platform's prefix left out: it said "erased" and exited 0
        return fail(f"no server {args.server} in this database: nothing was erased{server_hint(args.server)}. "
                    f"{SERVER_FORM}")
    print(f"erased {args.server}: " + ", ".join(f"{n} {table}" for table, n in erased.items()))
    return 0


def build_parser() -> argparse.ArgumentParser:
    from core.registry import GAMES

    parser = argparse.ArgumentParser(prog="liars", description="The Liar's Poker bot and its tools; its games: "
                                     + ", ".join(game.title for game in GAMES.values()) + ".")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("replay", help="re-score a game record (JSON file, or - for stdin)")
    p.add_argument("file")
    p.add_argument("--pretty", action="store_true", help="indent the JSON output")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("verify", help="check a record's fairness commitments and re-score it")
    p.add_argument("file")
    p.add_argument("--pretty", action="store_true")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("migrate", help="copy a SQLite database into an empty PostgreSQL database, and check it")
    p.add_argument("--from", dest="source", required=True, help="sqlite:///path (or a path)")
    p.add_argument("--to", dest="target", required=True, help="postgresql://user:password@host/database")
    p.set_defaults(func=cmd_migrate)

    p = sub.add_parser("forget", help="erase one server's ledger, rounds, tables and settings (an admin's erase)")
    p.add_argument("server", help="the ledger server, e.g. slack:T0123 or discord:1234")
    p.add_argument("--db", default=None, help="SQLite file or postgresql:// URL "
                   "(default: $LIARS_DATABASE_URL, else $LIARS_DB, else ./liars.sqlite3)")
    p.add_argument("--yes", action="store_true", help="really erase")
    p.set_defaults(func=cmd_forget)

    for extra in _EXTRA_COMMANDS:
        extra(sub)
    return parser


# Later layers register their subcommands here (play, ledger, sheet, discord, slack; the research tools:
# odds, arena, exploit, train).
_EXTRA_COMMANDS: list[Callable[[Any], None]] = []


def _register_extras() -> None:
    import importlib

    # By module path, never imported here: the service imports no adapter, no research tool and no game's
    # own modules (odds, arena, exploit live in adapters.research).
    for module in ("bot.cli_play", "adapters.discord.cli", "adapters.slack.cli", "adapters.research.cli"):
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            continue
        _EXTRA_COMMANDS.append(mod.register)


def main(argv: Sequence[str] | None = None) -> int:
    if not _EXTRA_COMMANDS:
        _register_extras()
    args = build_parser().parse_args(argv)
    if isinstance(getattr(args, "db", None), str) and not args.db.strip():  # it was taken as not given: ./liars.sqlite3
        print("liars: --db needs a SQLite file or a postgresql:// URL, not an empty value", file=sys.stderr)
        return 2
    from adapters.stores import StoreUnavailable  # the composition root's: every command opens a store

    try:
        code: int = args.func(args)
    except StoreUnavailable as exc:  # one line naming the database, not a traceback (`migrate` said it alone)
        print(f"liars: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`liars odds … | head`): nothing more to say, no traceback
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's own flush at exit would fail on the closed pipe too
        return 141  # as a shell reports a command ended by SIGPIPE
    return code


if __name__ == "__main__":
    sys.exit(main())
