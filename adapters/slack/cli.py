"""``liars slack``: run the Slack bot.  Kept light: Slack's libraries load only when the command runs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register"]

_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "slack",
        help="run the Slack bot: HTTP on $PORT (/slack/events), or Socket Mode when SLACK_APP_TOKEN is set",
        description="Reads SLACK_BOT_TOKEN (one workspace) or SLACK_CLIENT_ID and SLACK_CLIENT_SECRET (every "
        "workspace that installs the app: GET /slack/install), SLACK_REDIRECT_URI, SLACK_SIGNING_SECRET (HTTP mode), "
        "SLACK_APP_TOKEN (Socket Mode), "
        "SLACK_API_URL, PORT, LIARS_DATABASE_URL, LIARS_DB, LIARS_COMPUTER_DELAY, LIARS_LOG_LEVEL, "
        "LIARS_PICTURE_PROCESS and LIARS_METRICS_PORT/LIARS_METRICS_HOST (metrics on a port of their own: Socket "
        "Mode's only /metrics) from the environment (no .env file).",
    )
    p.add_argument("--host", default="0.0.0.0", help="address to serve HTTP on (default 0.0.0.0)")
    p.add_argument("--port", type=int, default=None, help="HTTP port (default: $PORT or 3000)")
    p.add_argument("--db", default=None, help="SQLite file or postgresql:// URL "
                   "(default: $LIARS_DATABASE_URL, else $LIARS_DB, else ./liars.sqlite3)")
    p.add_argument("--log-level", default=None, choices=_LEVELS, help="default: $LIARS_LOG_LEVEL, else INFO")
    p.add_argument("--manifest", action="store_true", help="print the Slack app manifest and exit")
    p.set_defaults(func=cmd_slack)


def cmd_slack(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    if args.manifest:
        sys.stdout.write((Path(__file__).parent / "manifest.yml").read_text(encoding="utf-8"))
        return 0
    from ..config import Env, configure_logging
    from .config import ConfigError, SlackConfig

    try:
        level = args.log_level or Env(os.environ).log_level()  # as `liars discord` reads it
        config = SlackConfig.from_env(os.environ, port=args.port, db_path=args.db)
    except ConfigError as exc:
        print(f"liars slack: {exc}", file=sys.stderr)
        return 2
    configure_logging(level)
    from bot.bootstrap import run_loop, tune_runtime

    from .app import run

    tune_runtime()
    return run_loop(run(config, host=args.host))
