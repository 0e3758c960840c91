"""The Slack test harness itself: ``serving`` closes each bot once, even after a restart that failed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from adapters.stores import StoreUnavailable
from tests.adapters.slack.harness import BOT_TOKEN, HttpDriver, serving
from tests.fakes.slack_server import FakeSlack


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    async with FakeSlack(bot_token=BOT_TOKEN) as server:
        yield server


async def test_a_failed_restart_leaves_the_first_bot_closed_once(fake: FakeSlack, tmp_path: Path) -> None:
    driver: HttpDriver | None = None
    with pytest.raises(StoreUnavailable, match="that is a folder, not a database"):  # (the store's error, once)
        async with serving(fake, tmp_path / "liars.sqlite3") as d:
            driver, first = d, d.bot
            await d.restart(tmp_path)  # a directory: the new bot cannot open its database
    assert driver is not None and driver.bot is first and driver.closed == [first]


async def test_a_restarted_bot_is_closed_at_the_end_and_the_first_only_once(fake: FakeSlack, tmp_path: Path) -> None:
    db = tmp_path / "liars.sqlite3"
    async with serving(fake, db) as d:
        first = d.bot
        second = await d.restart(db)
        assert d.closed == [first] and d.bot is second
    assert d.closed == [first, second]
