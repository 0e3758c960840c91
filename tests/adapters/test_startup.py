"""A process whose start-up fails after its store opened closes the store (``bot.bootstrap``): the
process exits with the error, and the database is closed.

Both are seen from outside, on a real SQLite file: a store left open keeps aiosqlite's connection
threads — and so the process — alive after the error (``liars slack`` would hang instead of exiting),
and SQLite removes a WAL database's ``-wal`` and ``-shm`` files when its last connection closes.  Each
start-up runs as its own Python process, so a regression fails here by the hang guard instead of
hanging the test run.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bot.bootstrap import build_service
from bot.ports import NullNotifier

ROOT = Path(__file__).resolve().parents[2]
HANG = 120  # seconds: only a process that never exits takes this long

FAILED_STARTS = {
    # discord.py refuses the client's options after the store opened and before the bot exists
    "discord-client-refused": ("ClientException", """
        from adapters.discord.config import DiscordConfig
        from bot.bootstrap import discord_bot
        asyncio.run(discord_bot(DiscordConfig("token", db_path=DB), sync_commands=False, shard_ids=[0]))
    """),
    # the OAuth flow without the app's credentials fails after the store opened (and the HTTP session)
    "slack-oauth-without-credentials": ("ValueError: a Slack app without a bot token installs itself by OAuth", """
        from adapters.slack.config import SlackConfig
        from bot.bootstrap import slack_bot
        asyncio.run(slack_bot(SlackConfig(None, signing_secret="s", db_path=DB, api_url="http://127.0.0.1:9/api/")))
    """),
    # bolt refuses its app once the service has started
    "slack-app-refused": ("BoltError", """
        from adapters.slack.config import SlackConfig
        from bot.bootstrap import slack_bot
        asyncio.run(slack_bot(SlackConfig("", signing_secret="s", db_path=DB, api_url="http://127.0.0.1:9/api/")))
    """),
}


def _database_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_store_that_fails_while_opening_is_closed(tmp_path: Path) -> None:
    """A file that is not a database: the store's first connection opens, its first statement fails;
    the process exits with the error instead of hanging on the half-open connection's thread."""
    db = tmp_path / "liars.sqlite3"
    db.write_bytes(bytes(range(256)) * 16)  # 4 KB that are not an SQLite header
    script = f"""import asyncio
from bot.bootstrap import build_service
from bot.ports import NullNotifier
asyncio.run(build_service(NullNotifier(), db_path={str(db)!r}))
"""
    try:
        done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=HANG)
    except subprocess.TimeoutExpired:
        pytest.fail("the process did not exit after its store failed to open (the connection was left open)")
    assert done.returncode == 1 and "file is not a database" in done.stderr, done.stderr


@pytest.mark.parametrize("case", FAILED_STARTS)
def test_a_start_up_that_fails_after_the_store_opened_closes_it(case: str, tmp_path: Path) -> None:
    error, body = FAILED_STARTS[case]
    script = f"import asyncio\nDB = {str(tmp_path / 'liars.sqlite3')!r}\n" + textwrap.dedent(body)
    try:
        done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=HANG)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case}: the process did not exit after its start-up failed (its store was left open)")
    last = done.stderr.splitlines()[-1] if done.stderr.strip() else ""
    assert done.returncode == 1 and error in last, done.stderr
    assert _database_files(tmp_path) == ["liars.sqlite3"]  # created by the store, and closed


async def test_an_open_store_is_seen_by_its_wal_files(tmp_path: Path) -> None:
    """What the check above reads: an open store has its ``-wal`` and ``-shm`` files, a closed one not."""
    service = await build_service(NullNotifier(), db_path=str(tmp_path / "liars.sqlite3"))
    try:
        assert _database_files(tmp_path) == ["liars.sqlite3", "liars.sqlite3-shm", "liars.sqlite3-wal"]
    finally:
        await service.close()
    assert _database_files(tmp_path) == ["liars.sqlite3"]
