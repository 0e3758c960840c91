"""Fixtures the Slack end-to-end tests share: a fake Slack with the bot's token, a database path, and
the bot served over HTTP with a driver.
A module that needs another fake Slack (an app token, several workspaces) defines its own ``fake``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from tests.adapters.slack.harness import BOT_TOKEN, HttpDriver, serving
from tests.fakes.slack_server import FakeSlack


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    """A fake Slack on 127.0.0.1 that knows the bot's token."""
    async with FakeSlack(bot_token=BOT_TOKEN) as server:
        yield server


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """The SQLite file the bot under test keeps its tables and ledger in."""
    return tmp_path / "liars.sqlite3"


@pytest_asyncio.fixture
async def driver(fake: FakeSlack, db: Path) -> AsyncIterator[HttpDriver]:
    """The Slack bot on ``db`` served over HTTP on 127.0.0.1, and a driver acting as Slack and the players.
    At the end it closes the bot then serving (a test that restarts the bot leaves its successor there)."""
    async with serving(fake, db) as d:
        yield d
