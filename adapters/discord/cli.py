"""``liars discord``: run the Discord bot.  Kept light: discord.py loads only when the command runs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register"]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "discord",
        help="run the Discord bot (/liars in a channel, what each player is dealt by DM)",
        description="Reads DISCORD_TOKEN, DISCORD_GUILD_ID, DISCORD_API_BASE, DISCORD_GATEWAY_URL, "
        "DISCORD_SHARD_COUNT, DISCORD_SHARD_IDS, DISCORD_LAYOUT, LIARS_DATABASE_URL, LIARS_DB, "
        "LIARS_COMPUTER_DELAY, LIARS_LOG_LEVEL, LIARS_METRICS_HOST, LIARS_METRICS_PORT and LIARS_PICTURE_PROCESS "
        "from the environment, and from ./.env if it exists (the environment wins).",
    )
    p.add_argument("--db", default=None, help="SQLite file or postgresql:// URL "
                   "(default: $LIARS_DATABASE_URL, else $LIARS_DB, else ./liars.sqlite3)")
    p.add_argument("--env-file", default=None,
                   help="development settings file (default ./.env, skipped if absent; one named here must exist)")
    p.add_argument("--log-level", default=None, choices=("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"),
                   help="default: $LIARS_LOG_LEVEL or INFO")
    p.add_argument("--no-sync", action="store_true",
                   help="do not sync the /liars command to Discord at start-up (it is already registered)")
    p.set_defaults(func=cmd_discord)


def cmd_discord(args: argparse.Namespace) -> int:
    import os

    from ..config import configure_logging
    from .config import ConfigError, DiscordConfig, load_dotenv

    try:
        if args.env_file is not None and not args.env_file.strip():
            raise ConfigError("--env-file names no file")
        if not load_dotenv(args.env_file or ".env") and args.env_file is not None:  # named on purpose: a typo
            raise ConfigError(f"{args.env_file}: no such file (--env-file)")  # started on an empty ledger, silently
        config = DiscordConfig.from_env(os.environ, db_path=args.db)
    except ConfigError as exc:
        print(f"liars discord: {exc}", file=sys.stderr)
        return 2
    configure_logging(args.log_level or config.log_level)
    from bot.bootstrap import run_loop, tune_runtime

    from .bot import run

    tune_runtime()
    return run_loop(run(config, sync_commands=not args.no_sync))  # uvloop: less CPU per interaction
