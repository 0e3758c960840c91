"""Pictures on Discord, end to end (the real bot and service against the fake Discord): the count comes
with its picture (its text at once, then a PNG attachment shown in the embed edited in), nothing before the count
carries a picture, a chart asked for is posted with its picture, and a picture that cannot be drawn
leaves the text to go alone with one WARNING."""

from __future__ import annotations

import io
import logging
from typing import Any

import aiohttp
import discord
import pytest
from PIL import Image

from bot.model import Actor, Command, Message, MessageKind
from tests.e2e import discord_helpers
from tests.e2e.discord_helpers import Harness, assert_no_serial_before_count
from tests.fakes.discord_server import RecordedMessage
from tests.typed import data

world = discord_helpers.world
no_errors = discord_helpers.no_errors


def _png(h: Harness, msg: RecordedMessage) -> Image.Image:
    [attachment] = msg.attachments
    data = h.fake.uploads[int(attachment["id"])]
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    return Image.open(io.BytesIO(data))


async def _play_round(h: Harness) -> RecordedMessage:
    await h.open_table()
    await h.wait_dms(1)
    opener = h.to_act()
    second = h.after(opener)
    third = h.after(second)
    assert (await h.ask(opener, "bid", quantity=1, digit=5)).ephemeral
    assert (await h.ask(second, "challenge")).ephemeral
    assert (await h.ask(third, "challenge")).ephemeral
    # the text goes at once; the picture is drawn off the table's queue and edited into it
    return await h.fake.wait_for_message(lambda m: "**The count**" in m.content and bool(m.attachments))


async def test_the_count_arrives_with_its_picture_and_nothing_before_it_has_one(world: Harness) -> None:
    h = world
    await h.start()
    count = await _play_round(h)
    assert not count.ephemeral and count.channel_id == h.channel.id
    assert "**The count**" in count.content and "Payments:" in count.content  # the text is kept
    [attachment] = count.attachments
    assert attachment["filename"] == "count-1.png"
    assert "The count" in attachment["description"]  # alt text for screen readers
    [embed] = count.embeds
    assert embed["image"]["url"] == "attachment://count-1.png"
    image = _png(h, count)
    assert image.width == 760 and image.height > 300
    # the picture is made at the count only: no earlier message in any channel or DM carries a file
    earlier = [m for m in h.fake.messages.values() if m.id < count.id and (m.attachments or m.embeds)]
    assert earlier == []
    assert assert_no_serial_before_count(h) >= 1


async def test_a_sheet_chart_is_posted_with_its_picture(world: Harness) -> None:
    h = world
    await h.start()
    await _play_round(h)
    # the slash commands have no leaderboard nor chart option yet (adapters/discord/commands.py, the
    # integrator's): ask the service as they will
    key, bob = h.key, Actor(str(h.bob.id), h.bob.username)
    board = await h.service.handle(Command("leaderboard", key, bob))
    assert board.ok and "🏆 Leaderboard" in board.text and len(data(board)["standings"]) == 3
    asked = await h.service.handle(Command("sheet", key, bob, ("chart",)))
    assert asked.ok and "chart is posted" in asked.text
    await h.service.drain()
    chart = await h.fake.wait_for_message(lambda m: m.content.startswith("🧾 Sheet") and bool(m.attachments))
    assert chart.channel_id == int(key.channel_id)
    assert chart.embeds[0]["image"]["url"] == f"attachment://{chart.attachments[0]['filename']}"
    assert _png(h, chart).size == (760, 420)


async def test_a_picture_that_cannot_be_drawn_leaves_the_text_alone_with_one_warning(
    world: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    h = world
    await h.start()
    broken = Message(h.key, "📈 A chart that cannot be drawn", MessageKind.INFO, picture={"chart": "nets",
                                                                                         "nets": {"a": "lots"}})
    with caplog.at_level(logging.WARNING, logger="adapters.discord"):
        await h.notifier.deliver([broken])
        await h.notifier.idle()  # the picture was given up
    sent = await h.fake.wait_for_message(lambda m: m.content == "📈 A chart that cannot be drawn")
    assert sent.attachments == [] and sent.embeds == []
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING and r.name.startswith("adapters.discord")]
    assert len(warnings) == 1 and "picture" in warnings[0].getMessage() and "lots" not in warnings[0].getMessage()



@pytest.mark.parametrize("failure", [aiohttp.ClientOSError(104, "Connection reset by peer"), ValueError("odd")])
async def test_a_failed_picture_edit_is_handled_and_logged_once(
    world: Harness, no_errors: list[logging.LogRecord], caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch, failure: Exception,
) -> None:
    """The edit that adds the picture fails (the connection drops; or something unforeseen): the text stays
    alone, and the failure is one log line naming the picture and the channel — a WARNING for the
    connection, an ERROR with its traceback otherwise — never an unretrieved task exception."""
    h = world
    await h.start()

    async def broken_edit(self: discord.Message, **_: Any) -> discord.Message:
        raise failure

    # discord.py's calls (the notifier edits by message id: a PartialMessage), failing as the network can
    monkeypatch.setattr(discord.Message, "edit", broken_edit)
    monkeypatch.setattr(discord.PartialMessage, "edit", broken_edit)
    chart = Message(h.key, "📈 Nets", MessageKind.INFO, picture={"chart": "nets", "nets": {"a": 1, "b": -1}})
    with caplog.at_level(logging.WARNING):
        await h.notifier.deliver([chart])
        await h.notifier.idle()
    sent = await h.fake.wait_for_message(lambda m: m.content == "📈 Nets")
    assert sent.attachments == [] and sent.embeds == []
    said = [r for r in caplog.records if r.levelno >= logging.WARNING and "picture" in r.getMessage()]
    assert len(said) == 1 and f"channel {h.key.channel_id}" in said[0].getMessage()
    if isinstance(failure, OSError):
        assert said[0].levelno == logging.WARNING
    else:
        assert said[0].levelno == logging.ERROR and said[0].exc_info is not None
        no_errors.remove(said[0])  # provoked on purpose
