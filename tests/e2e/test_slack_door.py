"""The door in front of bolt, over real HTTP: unsigned junk, signed junk, size, readiness; and the order
commit → acknowledge → answer → table messages."""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from adapters.slack.door import MAX_BODY
from tests.adapters.slack.harness import (
    ACK_LIMIT,
    ALICE,
    BOB,
    CAROL,
    SECRET,
    HttpDriver,
    event_count,
)
from tests.fakes.slack_server import (
    FakeSlack,
    build_signed_request,
    form_encode,
    interactive_body,
    post_to_app,
    signed_headers,
)


def _no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not bad, [(r.levelname, r.name, r.getMessage()) for r in bad]


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and r.name.startswith("adapters")]


JSON = "application/json"
FORM = "application/x-www-form-urlencoded"


@pytest.mark.parametrize(("content_type", "body", "extra"), [
    (JSON, b"payload=%7B%22type%22%3A%22block_actions%22%7D", {}),  # a form body that says it is JSON
    (JSON, b"{not json", {}),
    (FORM, b"payload=%7Bnot-json", {}),
    (FORM, b"\xff\xfe\x00binary", {}),
    (JSON, b'{"type": "event_callback"}', {"X-Slack-Request-Timestamp": "soon", "X-Slack-Signature": "v0=00"}),
    (FORM, b"command=%2Fliars", {"X-Slack-Request-Timestamp": str(int(time.time())), "X-Slack-Signature": "v0=00"}),
])
async def test_unsigned_junk_gets_401_before_any_parsing(driver: HttpDriver, caplog: pytest.LogCaptureFixture,
                                                         content_type: str, body: bytes, extra: dict[str, str]) -> None:
    caplog.set_level(logging.DEBUG)
    resp = await post_to_app(driver.url, body, {"Content-Type": content_type, **extra})
    assert resp.status == 401 and json.loads(resp.body) == {"error": "invalid request"}
    _no_traceback(caplog)
    assert driver.fake.calls() == [] and len(driver.bot.processed) == 0


async def test_a_body_over_the_limit_gets_413(driver: HttpDriver, caplog: pytest.LogCaptureFixture) -> None:
    body = b"text=" + b"x" * MAX_BODY
    _, headers = build_signed_request(body, SECRET)
    resp = await post_to_app(driver.url, body, headers)
    assert resp.status == 413
    _no_traceback(caplog)


def _signed(body: bytes, content_type: str = FORM) -> tuple[bytes, dict[str, str]]:
    return body, signed_headers(body, SECRET, content_type=content_type)


def _cases(fake: FakeSlack) -> dict[str, tuple[bytes, dict[str, str]]]:
    click = fake.block_actions("liars:join", "T0FAKE:C0GAME", message_ts="1.000001", user_id=BOB)
    del click["actions"][0]["action_id"]
    no_user = fake.slash_command("join")
    del no_user["user_id"]
    no_channel = fake.slash_command("join", user_id=BOB)
    del no_channel["channel_id"]
    view = fake.view_submission("liars:raise", {}, user_id=BOB)
    del view["view"]["callback_id"]
    return {
        "payload not JSON": _signed(b"payload=%7Bnot-json"),
        "a form body sent as JSON": _signed(form_encode(fake.slash_command("join", user_id=BOB)), JSON),
        "an action without action_id": _signed(interactive_body(click)),
        "a slash command without user_id": _signed(form_encode(no_user)),
        "a slash command without channel_id": _signed(form_encode(no_channel)),
        "a payload that is a list": _signed(b"payload=%5B1%2C2%5D"),
        "a user that is a string": _signed(interactive_body({**click, "user": "U0BOB"})),
        "a view without callback_id": _signed(interactive_body(view)),
        "an enterprise that is a string": _signed(interactive_body({**click_ok(fake), "enterprise": "E123"})),
        "a response_url that is no URL": _signed(interactive_body({**click_ok(fake), "response_url": "not a url"})),
    }


def click_ok(fake: FakeSlack) -> dict[str, Any]:
    return fake.block_actions("liars:join", "T0FAKE:C0GAME", message_ts="1.000001", user_id=BOB)


@pytest.mark.parametrize("case", ["payload not JSON", "a form body sent as JSON", "an action without action_id",
                                  "a slash command without user_id", "a slash command without channel_id",
                                  "a payload that is a list", "a user that is a string",
                                  "a view without callback_id", "an enterprise that is a string",
                                  "a response_url that is no URL"])
async def test_signed_but_malformed_requests_get_a_quick_400_and_one_warning(
    driver: HttpDriver, db: Path, caplog: pytest.LogCaptureFixture, case: str
) -> None:
    await driver.slash(ALICE, "start")
    before = (len(driver.fake.calls()), len(driver.fake.response_url_posts()), event_count(db))
    body, headers = _cases(driver.fake)[case]
    caplog.clear()
    with caplog.at_level(logging.INFO):
        resp = await post_to_app(driver.url, body, headers)
        await driver.settled()

    assert resp.status == 400 and resp.elapsed < ACK_LIMIT, (resp.status, resp.body)
    _no_traceback(caplog)
    assert len(_warnings(caplog)) == 1, _warnings(caplog)
    assert (len(driver.fake.calls()), len(driver.fake.response_url_posts()), event_count(db)) == before
    assert (await driver.slash(BOB, "join")).text == "You are seated (2/12)."  # and the door still opens


async def test_a_slash_command_with_a_stray_enterprise_field_is_served_by_its_team(
    driver: HttpDriver, caplog: pytest.LogCaptureFixture
) -> None:
    """A signed slash command with a form field ``enterprise`` (a string, where Slack's JSON bodies put an object)
    is no organisation: the table is the team's, with no traceback (it was an ERROR and a 500)."""
    command = {**driver.fake.slash_command("start", user_id=ALICE), "enterprise": "E123"}
    body, headers = _signed(form_encode(command))
    caplog.clear()
    with caplog.at_level(logging.INFO):
        resp = await post_to_app(driver.url, body, headers)
        await driver.settled()
    assert resp.status == 200, (resp.status, resp.body)
    _no_traceback(caplog)
    assert "already" in ((await driver.slash(ALICE, "start")).text or "")  # the team's table was opened


async def test_kinds_the_bot_does_not_handle_are_acknowledged_quietly(
    driver: HttpDriver, caplog: pytest.LogCaptureFixture
) -> None:
    fake = driver.fake
    other = form_encode(fake.slash_command("weather", command="/weather", user_id=BOB))
    shortcut = interactive_body({"type": "shortcut", "callback_id": "x", "user": {"id": BOB},
                                 "trigger_id": fake.new_trigger_id()})
    button = interactive_body(fake.block_actions("someone-elses", "v", message_ts="1.000001", user_id=BOB))
    for body in (other, shortcut, button):
        caplog.clear()
        resp = await post_to_app(driver.url, *_signed(body))
        assert resp.status == 200 and resp.body == ""
        assert len(_warnings(caplog)) == 1
        _no_traceback(caplog)
    assert fake.response_url_posts() == [] and len(driver.bot.processed) == 0


async def test_readyz_fails_while_the_store_is_unreachable(driver: HttpDriver) -> None:
    base = driver.url.rsplit("/slack/", 1)[0]
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{base}/healthz") as resp:
            assert resp.status == 200
        async with http.get(f"{base}/readyz") as resp:
            assert resp.status == 200
        await driver.bot.service.store.close()  # the database goes away under the running bot
        async with http.get(f"{base}/readyz") as resp:
            assert resp.status == 503
        async with http.get(f"{base}/healthz") as resp:
            assert resp.status == 200  # the process itself is up
        await driver.bot.service.store.open()


async def test_the_ack_waits_for_the_commit(driver: HttpDriver, db: Path) -> None:
    fake = driver.fake
    await driver.slash(ALICE, "start")
    events = event_count(db)
    blocker = sqlite3.connect(db, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another writer holds the database: the bot cannot commit
    try:
        payload = fake.slash_command("join", user_id=BOB, user_name="bob")
        body, headers = build_signed_request(form_encode(payload), SECRET)
        request = asyncio.create_task(post_to_app(driver.url, body, headers))
        await fake.wait_for(lambda: [c for c in fake.calls("users.info") if c.params.get("user") == BOB])
        await asyncio.sleep(0.3)
        assert not request.done()  # no acknowledgement while the join is not stored
        assert fake.response_url_posts(payload["response_url"]) == []
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    resp = await request
    assert resp.status == 200 and resp.body == ""
    assert event_count(db) == events + 1  # acknowledged: so it is in the file
    reply = await driver.reply_to(payload["response_url"])
    assert reply.text == "You are seated (2/12)."


async def test_the_answer_goes_before_the_table_messages(driver: HttpDriver) -> None:
    fake = driver.fake
    await driver.slash(ALICE, "start")
    fake.hold("response_url")  # Slack is slow to take the answer to Bob's join
    payload = fake.slash_command("join", user_id=BOB, user_name="bob")
    body, headers = build_signed_request(form_encode(payload), SECRET)
    before = len(fake.calls("chat.update"))

    resp = await post_to_app(driver.url, body, headers)

    assert resp.status == 200 and resp.body == ""  # acknowledged: the join is committed
    [answer] = await fake.wait_for(lambda: fake.response_url_posts(payload["response_url"]))
    for _ in range(20):  # let every task that is ready run: the lobby edit must still be waiting
        await asyncio.sleep(0)
    assert len(fake.calls("chat.update")) == before  # the table waits for the answer
    fake.release("response_url")
    await driver.settled()
    [edit] = fake.calls("chat.update")[before:]
    assert answer.timestamp <= edit.timestamp and "<@U0BOB>" in edit.params["text"]


async def test_answers_and_web_api_calls_reuse_connections(driver: HttpDriver) -> None:
    fake = driver.fake
    for user in (ALICE, BOB, CAROL) * 4:
        await driver.slash(user, "help")
    await driver.slash(ALICE, "start")
    await driver.slash(BOB, "join")
    posts = fake.response_url_posts()
    assert len(posts) == 14
    assert len({p.peer for p in posts}) <= 2, {p.peer for p in posts}  # keep-alive, not one connection each
    calls: list[Any] = fake.calls()
    assert len(calls) >= 4 and len({c.peer for c in calls}) <= 2
