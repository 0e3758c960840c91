"""Which token the bot posts with, outside requests, when it serves many workspaces (OAuth): in-process bots
(``slack_bot`` in OAuth mode) against the fake Slack on 127.0.0.1, two workers on one SQLite file.

* A workspace that removes the app and installs it again at once: each worker keeps a workspace's client
  for a minute (``TOKEN_SECONDS``); the uninstall reached the other worker, and the next message this one
  sent went with the revoked token and was dropped (a new table's lobby never appeared).
* Enterprise Grid, the app installed workspace by workspace: the organisation is the ledger server, and
  every message went with the organisation's newest install's token, which cannot see another workspace's
  channels (a table in the first workspace lost its lobby, table messages and serial DMs).
"""

from __future__ import annotations

import json
import random
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import aiohttp
from slack_sdk.oauth.installation_store.models.installation import Installation

from adapters.slack.app import SlackBot, serve_http
from adapters.slack.config import SlackConfig
from bot.bootstrap import slack_bot
from bot.model import TableKey
from tests.adapters.slack.harness import SECRET
from tests.fakes.slack_server import FakeSlack, form_encode, interactive_body, signed_headers


async def start(stack: AsyncExitStack, fake: FakeSlack, db: str, seed: int) -> tuple[SlackBot, str]:
    config = SlackConfig(bot_token=None, signing_secret=SECRET, client_id=fake.client_id,
                         client_secret=fake.client_secret, api_url=fake.api_base, db_path=db, computer_delay=0.0)
    bot = await slack_bot(config, rng=random.Random(seed))
    stack.push_async_callback(bot.close)
    url = await stack.enter_async_context(serve_http(bot, "127.0.0.1", 0))
    return bot, url


async def install(bot: SlackBot, fake: FakeSlack, team: str, enterprise: str | None = None) -> str:
    """The app installed in ``team`` as bolt's OAuth flow saves it (the fake issues the token)."""
    token = f"xoxb-{team}-{len(fake.tokens) + 1}-{time.time_ns()}"
    fake.tokens[token] = team
    workspaces = bot.notifier.workspaces
    assert workspaces is not None
    await workspaces.store.async_save(Installation(
        app_id=fake.app_id, enterprise_id=enterprise, team_id=team, user_id="UINST", bot_token=token,
        bot_id=fake.teams[team].bot_id, bot_user_id=fake.teams[team].bot_user_id,
        bot_scopes="commands,chat:write,chat:write.public,files:write,im:write,users:read",
        is_enterprise_install=False, installed_at=time.time()))
    return token


async def post(http: aiohttp.ClientSession, url: str, body: bytes, content_type: str | None = None) -> None:
    headers = signed_headers(body, SECRET) if content_type is None else signed_headers(body, SECRET,
                                                                                       content_type=content_type)
    async with http.post(url, data=body, headers=headers) as resp:
        assert resp.status == 200, await resp.text()


async def test_a_reinstall_heard_by_another_worker_loses_no_message(tmp_path: Path) -> None:
    db = str(tmp_path / "liars.sqlite3")
    async with FakeSlack() as fake, AsyncExitStack() as stack, aiohttp.ClientSession() as http:
        fake.add_team("TA")
        for channel in ("CA1", "CA2"):
            fake.add_channel(channel, "TA")
        fake.add_user("UA1", team="TA")
        x, x_url = await start(stack, fake, db, 1)
        y, y_url = await start(stack, fake, db, 2)
        await install(x, fake, "TA")

        async def start_table(url: str, channel: str) -> None:
            payload: dict[str, Any] = fake.slash_command("start", user_id="UA1", channel_id=channel, team_id="TA")
            await post(http, url, form_encode(payload))
            await fake.wait_for(lambda: fake.response_url_posts(payload["response_url"]), timeout=10)

        await start_table(x_url, "CA2")  # worker X now holds TA's client (and token) for a minute
        await fake.wait_for(lambda: fake.messages_to("CA2"), timeout=10)
        await post(http, y_url, json.dumps(fake.app_uninstalled("TA")).encode(), "application/json")  # heard by Y
        new_token = await install(y, fake, "TA")  # installed again at once
        before = len(fake.messages_to("CA1"))
        await start_table(x_url, "CA1")  # the next table reaches X
        await x.service.drain()
        await x.notifier.idle()
        refused = [c.response.get("error") for c in fake.calls("chat.postMessage")
                   if c.params.get("channel") == "CA1" and c.response and not c.response.get("ok")]
        assert refused == ["token_revoked"]  # the old token was tried: the test exercises the re-read
        lobby = fake.messages_to("CA1")[before:]
        assert [c.token for c in lobby] == [new_token]
        assert "opened a table" in lobby[0].params["text"]


async def test_grid_workspaces_each_post_with_their_own_token(tmp_path: Path) -> None:
    db = str(tmp_path / "liars.sqlite3")
    async with FakeSlack() as fake, AsyncExitStack() as stack, aiohttp.ClientSession() as http:
        for team, channel, users in (("TA", "CA1", ("UA1", "UA2")), ("TB", "CB1", ("UB1",))):
            fake.add_team(team, enterprise="E1")
            fake.add_channel(channel, team)
            for user in users:
                fake.add_user(user, team=team)
        x, x_url = await start(stack, fake, db, 1)
        token_a = await install(x, fake, "TA", "E1")
        token_b = await install(x, fake, "TB", "E1")  # the organisation's newest install

        async def slash(user: str, text: str, team: str, channel: str) -> None:
            payload: dict[str, Any] = fake.slash_command(text, user_id=user, channel_id=channel, team_id=team,
                                                         enterprise_id="E1")
            await post(http, x_url, form_encode(payload))
            await fake.wait_for(lambda: fake.response_url_posts(payload["response_url"]), timeout=10)

        for user, text in (("UA1", "start classic 1"), ("UA2", "join"), ("UA1", "deal")):
            await slash(user, text, "TA", "CA1")
        await slash("UB1", "start", "TB", "CB1")
        await x.service.drain()
        await x.notifier.idle()
        assert {c.token for c in fake.messages_to("CA1")} == {token_a}  # the lobby, the table
        assert {c.token for c in fake.messages_to("CB1")} == {token_b}
        assert {c.token for user in ("UA1", "UA2") for c in fake.dms_to(user)} == {token_a}  # the serials
        assert not [c for c in fake.calls() if c.response and not c.response.get("ok")]

        # a second worker that no request from CA1 reached: its first edit there goes with TB's token, is
        # refused, and the workspace that sees the channel is found and used from then on
        y, _ = await start(stack, fake, db, 2)
        key = TableKey("slack", "E1", "CA1")
        assert await y.service.redraw() == 2  # (the tables of CA1 and CB1, loaded as the worker started)
        await y.service.drain()
        await y.notifier.idle()
        refused = [c for c in fake.calls() if c.response and not c.response.get("ok")]
        assert refused and {c.token for c in refused} == {token_b}  # the search was exercised
        redrawn = [c for c in fake.calls("chat.update") if c.params.get("channel") == "CA1"]
        assert redrawn and redrawn[-1].token == token_a and redrawn[-1].response and redrawn[-1].response["ok"]

        # a channel no install can post in any more (moved out of both workspaces): searched once, not for every
        # message (each search is a call per install)
        fake.add_channel("CA1", "TZ")
        for _ in range(3):
            await y.service.redraw([key])
            await y.service.drain()
            await y.notifier.idle()
        tried_b = [c for c in fake.calls() if c.params.get("channel") == "CA1" and c.token == token_b]
        assert len(tried_b) == 1 + 1  # the first search above, and one more now
        fake.add_channel("CA1", "TA")

        # TA removes the app; TB keeps it: the organisation's ledger stays, CA1's table (no token reaches it) closes
        await post(http, x_url, json.dumps(fake.app_uninstalled("TA")).encode(), "application/json")
        assert x.service.table(key) is None and await x.service.store.balances("slack:E1") == {}
        assert x.service.table(TableKey("slack", "E1", "CB1")) is not None


async def test_a_channel_shared_between_workspaces_tells_the_other_workspace_its_table_is_not_theirs(
        tmp_path: Path) -> None:
    """(session 37) Slack Connect: channel CS shared by TA and TB, both installed; TA's member opens a table.  TB's
    member pressing Join was told "That is from an earlier table in this channel, which is closed", `/liars join`
    "There is no table in this channel", and `/liars start` opened a second table in the channel.  Now each is told
    the table is another workspace's, and nothing is opened; the books (their own ledger) and help still answer."""
    db = str(tmp_path / "liars.sqlite3")
    async with FakeSlack() as fake, AsyncExitStack() as stack, aiohttp.ClientSession() as http:
        for team, user in (("TA", "UA1"), ("TB", "UB1")):
            fake.add_team(team)
            fake.add_user(user, team=team)
        bot, url = await start(stack, fake, db, 1)
        await install(bot, fake, "TA")
        await install(bot, fake, "TB")

        async def slash(user: str, text: str, team: str) -> str:
            payload = fake.slash_command(text, user_id=user, channel_id="CS", team_id=team)
            await post(http, url, form_encode(payload))
            posts = await fake.wait_for(lambda: fake.response_url_posts(payload["response_url"]), timeout=10)
            return str(posts[0].text)

        assert "opened a table" in await slash("UA1", "start classic 1", "TA")
        await bot.service.drain()
        await bot.notifier.idle()
        lobby = fake.messages_to("CS")[0]
        assert lobby.response is not None
        ts = lobby.response["ts"]
        message = fake.message("CS", ts)
        assert message is not None
        join = next(e for b in message.get("blocks", []) for e in b.get("elements", [])
                    if isinstance(e, dict) and str(e.get("action_id", "")).endswith("join"))
        click = fake.block_actions(join["action_id"], join["value"], message_ts=ts, user_id="UB1", channel_id="CS")
        click["team"] = {"id": "TB", "domain": "tb"}
        click["user"]["team_id"] = "TB"
        await post(http, url, interactive_body(click), "application/x-www-form-urlencoded")
        [pressed] = await fake.wait_for(lambda: fake.response_url_posts(click["response_url"]), timeout=10)
        assert str(pressed.text).startswith("This table is kept in another workspace's ledger"), pressed.text
        for text in ("join", "status", "start", "bid 2 7"):
            said = await slash("UB1", text, "TB")
            assert said.startswith("This table is kept in another workspace's ledger"), (text, said)
        assert [k.server_id for k in bot.service.tables] == ["TA"]  # no second table in the channel
        table = bot.service.table(TableKey("slack", "TA", "CS"))
        assert table is not None and table.seats == ["UA1"]
        for text in ("help", "ledger", "rules salomon", "config"):  # what is not the table's: answered
            said = await slash("UB1", text, "TB")
            assert said and not said.startswith("This table is kept"), (text, said)
        # the table closed by an admin of TA: TB's member may open one, the button left on its message is "closed"
        fake.add_user("UA0", team="TA", is_admin=True)
        assert "closed" in (await slash("UA0", "end", "TA")).lower()
        again = fake.block_actions(join["action_id"], join["value"], message_ts=ts, user_id="UB1", channel_id="CS")
        again["team"] = {"id": "TB", "domain": "tb"}
        again["user"]["team_id"] = "TB"
        await post(http, url, interactive_body(again), "application/x-www-form-urlencoded")
        [later] = await fake.wait_for(lambda: fake.response_url_posts(again["response_url"]), timeout=10)
        assert "closed" in str(later.text) and not str(later.text).startswith("This table is kept"), later.text
        assert "opened a table" in await slash("UB1", "start", "TB")
