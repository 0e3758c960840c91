"""The Slack notifier on its own: the real service talks to a fake Slack Web API through it."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.notifier import SlackNotifier
from bot.bootstrap import build_service
from bot.model import Actor, Command, Reply
from bot.service import Service
from tests.adapters.slack.harness import ALICE, BOB, BOT_TOKEN, CHANNEL, key_of
from tests.fakes.slack_server import FakeSlack


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    async with FakeSlack(bot_token=BOT_TOKEN) as server:
        yield server


@pytest_asyncio.fixture
async def service(fake: FakeSlack, tmp_path: Path) -> AsyncIterator[Service]:
    notifier = SlackNotifier(AsyncWebClient(token=BOT_TOKEN, base_url=fake.api_base))
    svc = await build_service(notifier, db_path=str(tmp_path / "liars.sqlite3"), rng=random.Random(3),
                              platform="slack")
    notifier.panels = svc
    yield svc
    await svc.close()


async def do(service: Service, fake: FakeSlack, user: str, name: str, *args: str) -> Reply:
    reply = await service.handle(Command(name, key_of(fake), Actor(user, user.lower()), args))
    await service.drain()  # the table's messages go out after the command, off its lock
    return reply


async def test_the_lobby_is_edited_in_place_to_the_end(service: Service, fake: FakeSlack) -> None:
    assert (await do(service, fake, ALICE, "start")).ok
    lobby_ts = service.panel(key_of(fake), "lobby")
    assert (await do(service, fake, BOB, "join")).ok
    assert (await do(service, fake, ALICE, "end")).ok  # the service forgets the table at once

    lobbies = [c for c in fake.messages_to(CHANNEL) if "opened a table" in c.params["text"]]
    assert len(lobbies) == 1 and lobbies[0].response is not None and lobbies[0].response["ts"] == lobby_ts
    assert lobby_ts is not None
    final = fake.message(CHANNEL, lobby_ts)
    assert final is not None and final["text"].startswith("🃏 This table is closed")
    assert [b["type"] for b in final["blocks"]] == ["section"]  # no buttons left on a closed table
    assert all(c.ok for c in fake.calls("chat.update"))


async def test_a_deleted_panel_is_posted_again(service: Service, fake: FakeSlack) -> None:
    await do(service, fake, ALICE, "start")
    old = service.panel(key_of(fake), "lobby")
    assert old is not None
    client = AsyncWebClient(token=BOT_TOKEN, base_url=fake.api_base)
    await client.chat_delete(channel=CHANNEL, ts=old)

    assert (await do(service, fake, BOB, "join")).ok

    new = service.panel(key_of(fake), "lobby")
    assert new is not None and new != old
    message = fake.message(CHANNEL, new)
    assert message is not None and "<@U0BOB>" in message["text"]


async def test_a_serial_that_cannot_be_dmed_is_shown_ephemerally(service: Service, fake: FakeSlack) -> None:
    fake.fail_dm(BOB, stage="open")  # e.g. cannot_dm_bot
    await do(service, fake, ALICE, "start")
    await do(service, fake, BOB, "join")
    await do(service, fake, ALICE, "deal")
    table = service.table(key_of(fake))
    assert table is not None and table.match.live_round is not None

    [ephemeral] = fake.ephemerals_to(BOB)
    assert ephemeral.params["channel"] == CHANNEL
    assert table.match.live_round.serials[BOB].digits in ephemeral.params["text"]
    assert fake.dms_to(BOB) == [] and len(fake.dms_to(ALICE)) == 1
