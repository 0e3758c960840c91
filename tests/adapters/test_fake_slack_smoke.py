"""Smoke tests: the real slack-bolt AsyncApp talks to tests.fakes.slack_server.FakeSlack.

They show that:

* over HTTP (bolt's own aiohttp app from ``AsyncApp.web_app()``, served on 127.0.0.1),
  signed requests are acked quickly and the Web API calls reach the fake, and
  unsigned, wrongly signed, stale or tampered requests get 401;
* ``block_actions`` and ``view_submission`` payloads are handled;
* over Socket Mode (``AsyncSocketModeHandler``), envelopes are acked (the fake records
  the acks) and redeliveries are processed again;
* Slack's retry markers reach the listener as ``request.headers["x-slack-retry-num"]``
  in both modes. Bolt does not skip or deduplicate retries.

The bolt app is a small throwaway defined here, not the real liars adapter.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltRequest, AsyncRespond
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from tests.fakes.slack_server import (
    DEFAULT_CHANNEL_ID,
    FakeSlack,
    build_signed_request,
    form_encode,
    interactive_body,
    post_to_app,
)

pytestmark = pytest.mark.asyncio

SIGNING_SECRET = "fake-signing-secret"
BOT_TOKEN = "xoxb-test"
APP_TOKEN = "xapp-1-A0FAKEAPP-1-test"


@dataclass
class Seen:
    """What the throwaway listeners observed."""

    commands: list[dict[str, Any]] = field(default_factory=list)
    retry_headers: list[tuple[str | None, str | None]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    submissions: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _first(headers: dict[str, Sequence[str]], name: str) -> str | None:
    values = headers.get(name)
    return values[0] if values else None


def build_app(fake: FakeSlack, seen: Seen) -> AsyncApp:
    app = AsyncApp(
        client=AsyncWebClient(token=BOT_TOKEN, base_url=fake.api_base),
        signing_secret=SIGNING_SECRET,
        process_before_response=False,
    )

    @app.command("/liars")
    async def liars_command(
        ack: AsyncAck,
        command: dict[str, Any],
        client: AsyncWebClient,
        request: AsyncBoltRequest,
        respond: AsyncRespond,
    ) -> None:
        await ack(text="Shuffling…")  # becomes the HTTP response body / the Socket Mode ack payload
        seen.commands.append(command)
        seen.retry_headers.append(
            (_first(request.headers, "x-slack-retry-num"), _first(request.headers, "x-slack-retry-reason"))
        )
        user = command["user_id"]
        text = f"<@{user}> opened a table: {command['text']}"
        await client.chat_postMessage(channel=command["channel_id"], text=text)
        try:
            dm = await client.conversations_open(users=user)
            await client.chat_postMessage(channel=dm["channel"]["id"], text="Your serial number: 31415926")
        except SlackApiError as e:
            seen.errors.append(str(e.response["error"]))
            await respond(text="I can't DM you; check your Slack settings.", response_type="ephemeral")

    @app.action("bid")
    async def on_bid(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        seen.actions.append(action)
        ts = body["container"]["message_ts"]
        await client.chat_update(channel=body["channel"]["id"], ts=ts, text=f"bid: {action['value']}")
        await client.views_open(
            trigger_id=body["trigger_id"],
            view={
                "type": "modal",
                "callback_id": "bid_modal",
                "private_metadata": ts,
                "title": {"type": "plain_text", "text": "Your bid"},
                "submit": {"type": "plain_text", "text": "Bid"},
                "blocks": [
                    {
                        "type": "input",
                        "block_id": "qty",
                        "label": {"type": "plain_text", "text": "How many?"},
                        "element": {"type": "plain_text_input", "action_id": "qty_input"},
                    }
                ],
            },
        )

    @app.view("bid_modal")
    async def on_bid_submit(ack: AsyncAck, view: dict[str, Any], body: dict[str, Any], client: AsyncWebClient) -> None:
        qty = str(view["state"]["values"]["qty"]["qty_input"]["value"])
        if not qty.isdigit():
            await ack(response_action="errors", errors={"qty": "Enter a whole number"})
            return
        await ack()
        seen.submissions.append(qty)
        await client.chat_postEphemeral(channel=DEFAULT_CHANNEL_ID, user=body["user"]["id"], text=f"You bid {qty}")

    return app


@contextlib.asynccontextmanager
async def serve_http(app: AsyncApp, path: str = "/slack/events") -> AsyncIterator[str]:
    """Serves bolt's own aiohttp application (AsyncApp.web_app) on 127.0.0.1:<free port>."""
    runner = web.AppRunner(app.web_app(path=path), shutdown_timeout=1.0, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        await runner.cleanup()



@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    async with FakeSlack() as server:
        yield server


@pytest.fixture
def seen() -> Seen:
    return Seen()


@pytest_asyncio.fixture
async def http_url(fake: FakeSlack, seen: Seen) -> AsyncIterator[str]:
    async with serve_http(build_app(fake, seen)) as url:
        yield url


@pytest_asyncio.fixture
async def socket_handler(fake: FakeSlack, seen: Seen) -> AsyncIterator[AsyncSocketModeHandler]:
    # The handler's SocketModeClient uses app.client (base_url -> fake) for apps.connections.open.
    # It must be built inside the running loop (its __init__ creates an aiohttp session and a task).
    handler = AsyncSocketModeHandler(build_app(fake, seen), app_token=APP_TOKEN)
    await handler.connect_async()  # type: ignore[no-untyped-call]  # slack_bolt leaves it unannotated
    try:
        yield handler
    finally:
        await handler.close_async()  # type: ignore[no-untyped-call]  # (unannotated) before the fake stops, or the client tries to reconnect


# ------------------------------------------------------------------------------------ HTTP


async def test_http_slash_command_acks_before_web_api_work(fake: FakeSlack, http_url: str, seen: Seen) -> None:
    fake.hold("chat.postMessage")  # the listener's first Web API call stalls until released
    body, headers = build_signed_request(form_encode(fake.slash_command("new 5", user_id="U0ALICE")), SIGNING_SECRET)

    resp = await post_to_app(http_url, body, headers)

    assert resp.status == 200
    assert resp.body == "Shuffling…"  # ack(text=...) alone is sent as text/plain, not JSON
    assert resp.elapsed < 2.5  # Slack's limit is 3 s
    # The 200 came back while the listener was still stuck in chat.postMessage.
    held = await fake.wait_for(lambda: fake.calls("chat.postMessage"))
    assert held[0].response is None
    fake.release("chat.postMessage")

    dms = await fake.wait_for(lambda: fake.dms_to("U0ALICE"))
    assert dms[0].params["text"] == "Your serial number: 31415926"
    assert dms[0].token == BOT_TOKEN and dms[0].body_format == "json"
    public = fake.messages_to(DEFAULT_CHANNEL_ID)
    assert public[0].params["text"] == "<@U0ALICE> opened a table: new 5"
    # The single-team authorization middleware ran auth.test once before ack.
    auth = fake.calls("auth.test")
    assert len(auth) == 1 and auth[0].token == BOT_TOKEN
    # Bolt's per-request client adds team_id (from the request) to every Web API call.
    assert fake.calls("conversations.open")[0].params == {"users": "U0ALICE", "team_id": "T0FAKE"}
    assert dms[0].params["team_id"] == "T0FAKE"
    assert seen.retry_headers == [(None, None)]


@pytest.mark.parametrize("variant", ["unsigned", "wrong_signature", "stale", "tampered"])
async def test_http_rejects_bad_signatures(fake: FakeSlack, http_url: str, seen: Seen, variant: Any) -> None:
    body, headers = build_signed_request(form_encode(fake.slash_command("new")), SIGNING_SECRET, variant=variant)

    resp = await post_to_app(http_url, body, headers)

    assert resp.status == 401
    assert json.loads(resp.body) == {"error": "invalid request"}
    assert seen.commands == []
    assert fake.calls() == []  # verification runs before authorization, so not even auth.test


async def test_http_retry_headers_reach_listener_and_are_not_skipped(
    fake: FakeSlack, http_url: str, seen: Seen
) -> None:
    body, headers = build_signed_request(
        form_encode(fake.slash_command("new", user_id="U0BOB")), SIGNING_SECRET, retry_num=1
    )

    resp = await post_to_app(http_url, body, headers)

    assert resp.status == 200
    await fake.wait_for(lambda: fake.dms_to("U0BOB"))
    assert seen.retry_headers == [("1", "http_timeout")]  # bolt processed the retry like a first delivery


@pytest.mark.parametrize(("stage", "error"), [("open", "cannot_dm_bot"), ("post", "messages_tab_disabled")])
async def test_http_dm_failure_surfaces_as_slack_api_error(
    fake: FakeSlack, http_url: str, seen: Seen, stage: Any, error: str
) -> None:
    fake.fail_dm("U0CAROL", stage=stage)
    body, headers = build_signed_request(form_encode(fake.slash_command("new", user_id="U0CAROL")), SIGNING_SECRET)

    resp = await post_to_app(http_url, body, headers)

    assert resp.status == 200
    posts = await fake.wait_for(fake.response_url_posts)
    assert posts[0].response_type == "ephemeral" and not posts[0].replace_original
    assert posts[0].channel_id == DEFAULT_CHANNEL_ID
    assert seen.errors == [error]
    assert fake.dms_to("U0CAROL") == []
    assert len(fake.messages_to(DEFAULT_CHANNEL_ID)) == 1


async def test_http_block_actions_then_view_submission(fake: FakeSlack, http_url: str, seen: Seen) -> None:
    poster = AsyncWebClient(token=BOT_TOKEN, base_url=fake.api_base)
    table = await poster.chat_postMessage(channel=DEFAULT_CHANNEL_ID, text="table")
    ts = str(table["ts"])

    payload = fake.block_actions("bid", "3x5", message_ts=ts, user_id="U0DAVE")
    body, headers = build_signed_request(interactive_body(payload), SIGNING_SECRET)
    resp = await post_to_app(http_url, body, headers)

    assert resp.status == 200 and resp.body == ""
    opened = await fake.wait_for(lambda: [c for c in fake.calls("views.open") if c.ok])
    assert opened[0].params["view"]["callback_id"] == "bid_modal"
    assert fake.calls("chat.update")[0].ok
    message = fake.message(DEFAULT_CHANNEL_ID, ts)
    assert message is not None and message["text"] == "bid: 3x5"
    assert seen.actions[0]["action_id"] == "bid"

    bad = fake.view_submission(
        "bid_modal", {"qty": {"qty_input": {"type": "plain_text_input", "value": "lots"}}}, private_metadata=ts
    )
    body, headers = build_signed_request(interactive_body(bad), SIGNING_SECRET)
    resp = await post_to_app(http_url, body, headers)
    assert resp.status == 200
    assert json.loads(resp.body) == {"response_action": "errors", "errors": {"qty": "Enter a whole number"}}

    good = fake.view_submission(
        "bid_modal",
        {"qty": {"qty_input": {"type": "plain_text_input", "value": "4"}}},
        private_metadata=ts,
        user_id="U0DAVE",
    )
    body, headers = build_signed_request(interactive_body(good), SIGNING_SECRET)
    resp = await post_to_app(http_url, body, headers)
    assert resp.status == 200 and resp.body == ""
    ephemerals = await fake.wait_for(lambda: fake.ephemerals_to("U0DAVE"))
    assert ephemerals[0].params["text"] == "You bid 4"
    assert seen.submissions == ["4"]


async def test_fake_web_api_edges(fake: FakeSlack) -> None:
    client = AsyncWebClient(token=BOT_TOKEN, base_url=fake.api_base)
    fake.add_user("U0ADMIN", is_admin=True)
    assert (await client.users_info(user="U0ADMIN"))["user"]["is_admin"] is True
    assert (await client.users_info(user="U0NOBODY"))["user"]["is_admin"] is False
    with pytest.raises(SlackApiError) as unknown:
        await client.api_call("games.cheat")
    assert unknown.value.response["error"] == "unknown_method"
    assert fake.calls("games.cheat")
    with pytest.raises(SlackApiError) as bad_trigger:
        await client.views_open(trigger_id="123.456.abc", view={"type": "modal", "title": {}, "blocks": []})
    assert bad_trigger.value.response["error"] == "invalid_trigger_id"
    with pytest.raises(SlackApiError) as wrong_type:
        await AsyncWebClient(token=APP_TOKEN, base_url=fake.api_base).auth_test()
    assert wrong_type.value.response["error"] == "not_allowed_token_type"
    fake.fail_method("chat.postMessage", "ratelimited", times=1)
    with pytest.raises(SlackApiError) as limited:
        await client.chat_postMessage(channel="C1", text="x")
    assert limited.value.response.status_code == 429
    assert limited.value.response.headers["Retry-After"] == "1"
    assert (await client.chat_postMessage(channel="U0EVE", text="hi"))["channel"] == "DU0EVE"
    assert len(fake.dms_to("U0EVE")) == 1


# ------------------------------------------------------------------------------ Socket Mode


async def test_socket_mode_slash_command_is_acked_and_processed(
    fake: FakeSlack, socket_handler: AsyncSocketModeHandler, seen: Seen
) -> None:
    await fake.wait_for_socket()
    connect_calls = fake.calls("apps.connections.open")
    assert len(connect_calls) == 1
    assert connect_calls[0].token == APP_TOKEN and connect_calls[0].http_method == "POST"

    envelope = await fake.push_slash_command("new 6", user_id="U0FRAN")
    ack = await fake.wait_for_ack(envelope.envelope_id)

    assert ack.payload == {"text": "Shuffling…"}  # the text/plain ack body, wrapped by bolt's socket adapter
    await fake.wait_for(lambda: fake.dms_to("U0FRAN"))
    assert fake.messages_to(DEFAULT_CHANNEL_ID)[0].params["text"] == "<@U0FRAN> opened a table: new 6"
    assert seen.retry_headers == [(None, None)]
    assert await socket_handler.client.is_connected()


async def test_socket_mode_interactive_envelope(fake: FakeSlack, socket_handler: AsyncSocketModeHandler) -> None:
    poster = AsyncWebClient(token=BOT_TOKEN, base_url=fake.api_base)
    ts = str((await poster.chat_postMessage(channel=DEFAULT_CHANNEL_ID, text="table"))["ts"])

    envelope = await fake.push_envelope("interactive", fake.block_actions("bid", "2x9", message_ts=ts))
    ack = await fake.wait_for_ack(envelope.envelope_id)

    assert ack.payload is None  # a bare ack() sends {"envelope_id": ...} only
    assert envelope.accepts_response_payload is False
    await fake.wait_for(lambda: [c for c in fake.calls("views.open") if c.ok])
    message = fake.message(DEFAULT_CHANNEL_ID, ts)
    assert message is not None and message["text"] == "bid: 2x9"


async def test_socket_mode_redelivery_is_processed_again_with_retry_headers(
    fake: FakeSlack, socket_handler: AsyncSocketModeHandler, seen: Seen
) -> None:
    first = await fake.push_slash_command("new", user_id="U0GIL")
    await fake.wait_for_ack(first.envelope_id)
    await fake.wait_for(lambda: len(seen.commands) == 1)

    again = await fake.redeliver(first)
    await fake.wait_for_ack(again.envelope_id)
    await fake.wait_for(lambda: len(fake.dms_to("U0GIL")) == 2)

    assert again.envelope_id != first.envelope_id and again.payload == first.payload
    assert (again.retry_attempt, again.retry_reason) == (1, "timeout")
    # Bolt does not deduplicate: the listener ran twice. The second run saw the retry headers.
    assert seen.retry_headers == [(None, None), ("1", "timeout")]
    assert seen.commands[0] == seen.commands[1]


async def test_the_fake_refuses_what_block_kit_refuses() -> None:
    from tests.fakes.slack_server import block_error

    section = {"type": "section", "text": {"type": "mrkdwn", "text": "x"}}
    assert block_error({"text": "t", "blocks": [section] * 50}) is None
    assert block_error({"text": "t", "blocks": [section] * 51}) == "invalid_blocks"
    assert block_error({"blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 3001}}]}) \
        == "invalid_blocks"
    assert block_error({"text": "x" * 40_001}) == "msg_too_long"
    assert block_error({"blocks": "[" + ", ".join(['{"type": "divider"}'] * 51) + "]"}) == "invalid_blocks"
