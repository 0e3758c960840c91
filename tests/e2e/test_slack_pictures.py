"""Pictures on Slack: the count (and a card challenge, a chart) is followed by its PNG, uploaded with the
Web API's external-upload flow (``files.getUploadURLExternal``, the upload, ``files.completeUploadExternal``)
to the fake Slack.  The upload never holds back the acknowledgement or the answer; if drawing or
uploading fails, the text goes alone and one WARNING says so.
"""

from __future__ import annotations

import logging

import pytest

from adapters.pictures.samples import count_picture_example, names_example
from bot.model import Message, MessageKind
from tests.adapters.slack.harness import (
    ACK_LIMIT,
    ALICE,
    CHANNEL,
    NAMES,
    HttpDriver,
    key_of,
    play_round,
)
from tests.fakes.slack_server import FakeSlack
from tests.typed import live_round, serial_match

PNG = b"\x89PNG\r\n\x1a\n"
COUNT = count_picture_example()  # as the serial game sends it


def _count_posts(fake: FakeSlack) -> list[float]:
    return [c.timestamp for c in fake.messages_to(CHANNEL) if "The count" in c.params["text"]]


async def test_the_count_arrives_with_its_png_and_nothing_before_it_carries_a_file(
        driver: HttpDriver, caplog: pytest.LogCaptureFixture) -> None:
    fake = driver.fake
    await play_round(driver)

    [counted] = _count_posts(fake)
    [picture] = await fake.wait_for(lambda: fake.shared_files(CHANNEL), description="the count's picture")
    assert picture.data.startswith(PNG) and len(picture.data) > 5000
    assert picture.filename.startswith("count") and picture.filename.endswith(".png")
    assert picture.timestamp > counted and picture.channel == CHANNEL
    assert "count" in picture.alt_txt.lower()  # the text's first line, for screen readers
    # the picture is made only at the count: no upload was even begun before it
    uploads = fake.calls("files.getUploadURLExternal")
    assert len(uploads) == 1 and uploads[0].timestamp > counted
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text

    # Round 2, with Slack's upload stalled: the last challenge is acknowledged and answered, and the count
    # posted, all while its picture is still on its way.
    table = driver.bot.service.table(key_of(fake))
    assert table is not None and serial_match(table).live_round is not None
    opener = live_round(table).to_act
    assert opener is not None
    assert (await driver.slash(opener, "bid 1 1")).text == "Bid placed."
    second = live_round(table).to_act
    assert second is not None
    assert (await driver.slash(second, "challenge")).text == "You challenged."
    third = live_round(table).to_act
    assert third is not None and third in NAMES
    fake.hold("files.getUploadURLExternal")
    acks = len(driver.acks)
    answer = await driver.slash(third, "challenge", settle=False)
    assert answer.text == "You challenged." and driver.acks[acks].elapsed < ACK_LIMIT
    await fake.wait_for(lambda: len(_count_posts(fake)) == 2, description="the second count")
    held = await fake.wait_for(lambda: fake.calls("files.getUploadURLExternal")[1:])
    # nor does it hold back the table: round 3's table message is posted while the picture is on its way
    second_count = _count_posts(fake)[1]
    await fake.wait_for(lambda: [c for c in fake.messages_to(CHANNEL)
                                 if c.timestamp > second_count and " to act: " in c.params["text"]],
                        description="round 3's table message")
    assert held[0].response is None and len(fake.shared_files(CHANNEL)) == 1
    fake.release("files.getUploadURLExternal")
    await driver.settled()
    files = fake.shared_files(CHANNEL)
    assert len(files) == 2 and files[1].data.startswith(PNG) and files[1].timestamp > _count_posts(fake)[1]


async def test_a_picture_that_cannot_be_drawn_or_uploaded_leaves_the_text_alone(
        driver: HttpDriver, caplog: pytest.LogCaptureFixture) -> None:
    fake, notifier, key = driver.fake, driver.bot.notifier, key_of(driver.fake)
    caplog.set_level(logging.INFO)

    # a picture the adapter cannot draw
    await notifier.deliver([Message(key, "The count: a broken picture", MessageKind.RESULT,
                                    picture={"what": "nothing we draw"})])
    await notifier.idle()
    assert [c.params["text"] for c in fake.messages_to(CHANNEL)] == ["The count: a broken picture"]
    assert fake.calls("files.getUploadURLExternal") == []
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "picture" in warnings[0].getMessage(), caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR and r.exc_info]

    # a picture Slack will not take
    caplog.clear()
    fake.fail_method("files.completeUploadExternal", "invalid_channel")
    await notifier.deliver([Message(key, "The count: round 1", MessageKind.RESULT, picture=COUNT,
                                    names=names_example())])
    await notifier.idle()
    assert [c.params["text"] for c in fake.messages_to(CHANNEL)][-1] == "The count: round 1"
    assert len(fake.calls("files.completeUploadExternal")) == 1 and fake.shared_files() == []
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "invalid_channel" in warnings[0].getMessage(), caplog.text

    # and when Slack takes it again, the picture goes
    fake.clear_failures()
    await notifier.deliver([Message(key, "The count: round 2", MessageKind.RESULT, picture=COUNT,
                                    names=names_example())])
    await notifier.idle()
    [shared] = fake.shared_files(CHANNEL)
    assert shared.data.startswith(PNG)


async def test_a_chart_is_posted_with_its_png(driver: HttpDriver) -> None:
    await play_round(driver)
    reply = await driver.slash(ALICE, "sheet chart")
    assert "chart" in (reply.text or "").lower()
    files = await driver.fake.wait_for(lambda: [f for f in driver.fake.shared_files(CHANNEL)
                                                if f.filename.startswith("balances")])
    assert files[0].data.startswith(PNG)


async def test_a_rate_limited_upload_is_sent_again_and_the_text_only_once(
        driver: HttpDriver, caplog: pytest.LogCaptureFixture) -> None:
    fake, notifier, key = driver.fake, driver.bot.notifier, key_of(driver.fake)
    # more 429s than slack_sdk's own retry handler waits out: the notifier's outbox sends the picture again
    fake.fail_method("files.getUploadURLExternal", "ratelimited", times=3, retry_after=0)
    await notifier.deliver([Message(key, "The count: round 1", MessageKind.RESULT, picture=COUNT,
                                    names=names_example())])
    await notifier.idle()
    assert [c.params["text"] for c in fake.messages_to(CHANNEL)] == ["The count: round 1"]
    assert len(fake.calls("files.getUploadURLExternal")) == 4
    [shared] = fake.shared_files(CHANNEL)
    assert shared.data.startswith(PNG) and notifier.outboxes.rate_limited >= 1
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
