"""A game's form left open after the turn moved on: choosing in it says so, and sending it changes nothing."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio

from adapters.slack.app import serve_http
from tests.adapters.slack.harness import ALICE, BOB, BOT_TOKEN, CAROL, HttpDriver, event_count, key_of, make_bot
from tests.fakes.slack_server import FakeSlack


@pytest_asyncio.fixture
async def driver(tmp_path: Path) -> AsyncIterator[HttpDriver]:
    async with FakeSlack(bot_token=BOT_TOKEN) as fake:
        bot = await make_bot(fake, tmp_path / "liars.sqlite3")
        try:
            async with serve_http(bot, "127.0.0.1", 0) as url:
                d = HttpDriver(fake, bot)
                d.url = url
                yield d
        finally:
            await bot.close()


async def test_a_stale_form_says_the_turn_moved_on_and_sends_nothing(driver: HttpDriver, tmp_path: Path) -> None:
    d, key = driver, key_of(driver.fake)
    await d.slash(ALICE, "start")
    await d.slash(BOB, "join")
    await d.slash(CAROL, "join")
    await d.slash(ALICE, "deal")
    table = d.bot.service.table(key)
    assert table is not None and table.match.live_round is not None
    opener = table.match.live_round.to_act
    assert opener is not None
    ts = d.bot.service.panel(key, "table")
    assert ts is not None

    refused = await d.click(next(p for p in (ALICE, BOB, CAROL) if p != opener), ts, "open-raise")
    assert refused.response_type == "ephemeral" and "not your turn" in (refused.text or "")

    # a bare `bid` opens the same form as the Raise… button (`raise` too); a bare `challenge` does not
    bare = d.fake.slash_command("bid", user_id=opener)
    await d.send_slash(bare)
    opened = await d.fake.wait_for(lambda: [c for c in d.fake.calls("views.open")
                                            if c.ok and c.params.get("trigger_id") == bare["trigger_id"]])
    assert opened[0].params["view"]["callback_id"] == "liars:form"
    second = next(p for p in (ALICE, BOB, CAROL) if p != opener)
    said = await d.slash(second, "challenge")
    assert "no bid to challenge" in (said.text or "") and len(d.fake.calls("views.open")) == 1

    view = await d.open_raise(opener, ts)
    assert (await d.slash(opener, "bid 1 1")).text == "Bid placed."  # by command, with the form still open
    redrawn = await d.choose(opener, view, "quantity", "2")
    assert "submit" not in redrawn and "not your turn" in json.dumps(redrawn["blocks"])

    events = event_count(tmp_path / "liars.sqlite3")
    answer = await d.submit_form(opener, view, {"quantity": "1", "digit": "9"})
    assert "not your turn" in answer
    assert event_count(tmp_path / "liars.sqlite3") == events
