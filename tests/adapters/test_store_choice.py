"""``LIARS_DATABASE_URL`` picks the database for every bot entry point (``liars play``, ``discord``,
``slack``); unset, SQLite in ``LIARS_DB``."""

from __future__ import annotations

import asyncio
import re
import tempfile
from pathlib import Path

import pytest

from adapters.discord.config import DiscordConfig
from adapters.postgres.store import PostgresStore
from adapters.slack.config import SlackConfig
from adapters.sqlite.store import SqliteStore
from bot.bootstrap import build_service
from bot.cli import main
from tests.adapters.store_support import raw_sql
from tests.doubles import RecordingNotifier


async def test_the_service_opens_postgres_when_the_url_says_so(postgres_url: str, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIARS_DB", str(tmp_path / "unused.sqlite3"))
    monkeypatch.setenv("LIARS_DATABASE_URL", postgres_url)
    service = await build_service(RecordingNotifier())
    try:
        assert isinstance(service.store, PostgresStore)
        await service.store.ping()
    finally:
        await service.close()
    assert not (tmp_path / "unused.sqlite3").exists()

    monkeypatch.delenv("LIARS_DATABASE_URL")
    service = await build_service(RecordingNotifier())
    try:
        assert isinstance(service.store, SqliteStore)
    finally:
        await service.close()
    assert (tmp_path / "unused.sqlite3").exists()


def test_the_platform_configs_prefer_the_url_and_an_explicit_db_to_both() -> None:
    url = "postgresql://liars@127.0.0.1/liars"
    env = {"LIARS_DATABASE_URL": url, "LIARS_DB": "x.sqlite3"}
    discord = {"DISCORD_TOKEN": "t"}
    slack = {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s"}
    assert DiscordConfig.from_env({**discord, **env}).db_path == url
    assert SlackConfig.from_env({**slack, **env}).db_path == url
    assert DiscordConfig.from_env({**discord, "LIARS_DB": "x.sqlite3"}).db_path == "x.sqlite3"
    assert SlackConfig.from_env({**slack, **env}, db_path="y.sqlite3").db_path == "y.sqlite3"


def test_a_database_setting_of_spaces_is_unset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A blank setting is unset (adapters/config.py), but `LIARS_DB="   "` reached the store raw: `liars discord`
    and `liars slack` made a SQLite file named by the spaces."""
    from adapters.stores import make_store, store_url_from_env

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LIARS_DB", "   ")
    monkeypatch.setenv("LIARS_DATABASE_URL", " ")
    assert DiscordConfig.from_env({"DISCORD_TOKEN": "t", "LIARS_DB": "   "}).db_path is None
    assert store_url_from_env() == "./liars.sqlite3"
    store = make_store(None)
    assert isinstance(store, SqliteStore) and store.path == "./liars.sqlite3"
    assert SqliteStore().path == "./liars.sqlite3"


def test_liars_play_stores_on_postgres(postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    # With no SQLite file to sit beside, the terminal's pictures go to the temporary folder's liars-pictures.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("LIARS_DB", str(tmp_path / "unused.sqlite3"))
    monkeypatch.setenv("LIARS_DATABASE_URL", postgres_url)
    code = main(["play", "--humans", "0", "--seats", "3", "--rounds", "1", "--seed", "3"])
    out = capsys.readouterr().out
    assert code == 0, out
    [(rounds,)] = asyncio.run(raw_sql(postgres_url, "SELECT COUNT(*) FROM rounds"))
    assert rounds == 1
    [picture] = re.findall(r"🖼  Picture: (\S+)", out)
    assert Path(picture) == tmp_path / "liars-pictures" / "liars-count-1.png" and Path(picture).is_file()
    assert not (tmp_path / "unused.sqlite3").exists()
