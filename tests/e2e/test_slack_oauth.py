"""Many workspaces: two real ``liars slack`` processes in OAuth mode (no bot token; the fake's client id
and secret) on one database — a SQLite file, and PostgreSQL — install two workspaces through the real
"Add to Slack" flow (``/slack/install`` → the fake's authorize page → ``/slack/oauth_redirect`` →
``oauth.v2.access``), each through a different process, then play a round in each at the same time,
requests sprayed across both processes.

What must hold: every Web API call carried the token the fake issued to the workspace it concerns (the
fake refuses a channel or user of another workspace, and none was refused), every DM went with its
player's workspace's token; each workspace's ledger, tables and players are its own and sum to 0.  A
workspace that never installed gets a clear answer (HTTP 200, the text through its response_url).
Then ``app_uninstalled`` for one workspace, delivered to the process that did not install it: its
installation is gone from the shared database, its open table is closed with no money moved for the
round under way, its ledger is kept, its requests are answered "not installed", nothing is sent with its
revoked token any more — and the other workspace plays on.  Finally an admin erases the removed
workspace's figures (``liars forget slack:TA``, the real command): every row of it goes, the other's
stay, and the ledger is append-only again; a workspace with an open table is refused.  Then the other
workspace revokes the bot's token (``tokens_revoked``): removed the same way.
"""

from __future__ import annotations

import asyncio
import html
import json
import random
import re
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest
import pytest_asyncio

from adapters.slack.oauth import NOT_INSTALLED, SCOPES
from tests.adapters.slack.harness import SECRET
from tests.adapters.store_support import raw_sql
from tests.e2e.slack_processes import ROOT, Bot, Table, start_bot, stop_bot
from tests.fakes.slack_server import FakeSlack, form_encode, signed_headers

PLAYERS = {"TA": ["UA1", "UA2", "UA3"], "TB": ["UB1", "UB2", "UB3"]}
CHANNELS = {"TA": "CA1", "TB": "CB1"}


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    async with FakeSlack() as server:
        for team, users in PLAYERS.items():
            server.add_team(team)
            server.add_channel(CHANNELS[team], team)
            for user in users:
                server.add_user(user, team=team)
        server.add_team("TC")  # never installs the app
        yield server


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    if request.param == "sqlite":
        return {"LIARS_DB": str(tmp_path / "liars.sqlite3")}
    return {"LIARS_DATABASE_URL": request.getfixturevalue("postgres_url")}


def db_url(database: dict[str, str]) -> str:
    return database.get("LIARS_DATABASE_URL") or database["LIARS_DB"]


async def install(fake: FakeSlack, bot: Bot, team: str, user: str) -> None:
    """``user`` installs the app in ``team`` through ``bot``'s install page, as a browser would."""
    base = bot.url.removesuffix("/slack/events")
    fake.redirect_url = f"{base}/slack/oauth_redirect"  # the app's registered redirect URL (behind the balancer)
    fake.approve_as(team, user)
    async with aiohttp.ClientSession() as browser:
        async with browser.get(f"{base}/slack/install") as page:
            assert page.status == 200
            text = await page.text()
            cookie = page.cookies["slack-app-oauth-state"].value  # Secure: sent back over HTTPS in real life
        [link] = {html.unescape(href) for href in re.findall(r'href="([^"]+)"', text) if "authorize" in href}
        url = urlsplit(link)
        query = parse_qs(url.query)
        assert link.startswith(f"{fake.base_url}/oauth/v2/authorize?")
        assert query["client_id"] == [fake.client_id] and set(query["scope"][0].split(",")) == set(SCOPES)
        assert query["state"] == [cookie]
        async with browser.get(link, allow_redirects=False) as approved:
            assert approved.status == 302
            back = approved.headers["Location"]
        assert back.startswith(fake.redirect_url)
        async with browser.get(back, headers={"Cookie": f"slack-app-oauth-state={cookie}"}) as done:
            assert done.status == 200, await done.text()
        # the state was used up: the same redirect again is refused, and installs nothing
        async with browser.get(back, headers={"Cookie": f"slack-app-oauth-state={cookie}"}) as again:
            assert again.status in (400, 401)


async def slash(http: aiohttp.ClientSession, fake: FakeSlack, bot: Bot, text: str, *, team: str, user: str,
                channel: str) -> str:
    """A signed slash command; the text of its answer through its response_url."""
    payload = fake.slash_command(text, user_id=user, channel_id=channel, team_id=team)
    body = form_encode(payload)
    async with http.post(bot.url, data=body, headers=signed_headers(body, SECRET)) as resp:
        assert resp.status == 200, await resp.text()
    posts = await fake.wait_for(lambda: fake.response_url_posts(payload["response_url"]), timeout=10)
    return str(posts[-1].text)


async def event(http: aiohttp.ClientSession, bot: Bot, body: dict[str, object]) -> None:
    raw = json.dumps(body).encode()
    async with http.post(bot.url, data=raw, headers=signed_headers(raw, SECRET, content_type="application/json")) as r:
        assert r.status == 200, await r.text()


def check_tokens(fake: FakeSlack) -> None:
    """Every Web API call carried the token issued to the workspace it concerns."""
    user_team = {u: t for t, users in PLAYERS.items() for u in users}
    channel_team = {c: t for t, c in CHANNELS.items()}
    calls = [c for c in fake.calls() if c.method != "oauth.v2.access"]
    assert calls
    for call in calls:
        assert call.team is not None, f"{call.method} carried no workspace's token: {call.token}"
        assert call.response is None or call.response.get("error") not in (
            "channel_not_found", "user_not_found", "invalid_auth", "not_authed"), (call.method, call.response)
        channel = str(call.params.get("channel") or call.params.get("channel_id") or "")
        user = str(call.params.get("user") or call.params.get("users") or "")
        if channel.startswith("D"):
            channel, user = "", channel[1:]
        if channel:
            assert channel_team[channel] == call.team, (call.method, channel, call.team)
        if user:
            assert user_team[user] == call.team, (call.method, user, call.team)
    for team, users in PLAYERS.items():  # each player's serials came by DM with their workspace's token
        for user in users:
            dms = fake.dms_to(user)
            assert dms and {c.team for c in dms} == {team}


async def test_two_workspaces_install_play_at_once_and_one_uninstalls(fake: FakeSlack,
                                                                      database: dict[str, str]) -> None:
    seed = random.randrange(1_000_000)
    url = db_url(database)
    bots = list(await asyncio.gather(*(start_bot(fake, name, oauth=True, **database) for name in "XY")))
    try:
        async with aiohttp.ClientSession() as http, asyncio.timeout(90):
            # not installed anywhere yet: a clear answer, never a 500
            answer = await slash(http, fake, bots[0], "start", team="TC", user="UC1", channel="CC1")
            assert answer == NOT_INSTALLED

            await install(fake, bots[0], "TA", "UA1")
            await install(fake, bots[1], "TB", "UB1")
            assert len(fake.tokens_of("TA")) == len(fake.tokens_of("TB")) == 1
            rows = await raw_sql(url, "SELECT server, team_id FROM slack_bots ORDER BY server")
            assert rows == [("TA", "TA"), ("TB", "TB")]

            tables = {team: Table(fake, CHANNELS[team], users, team=team) for team, users in PLAYERS.items()}
            await asyncio.gather(*(t.play_across(http, bots, random.Random(seed + n), lambda t: len(t.counts()) >= 1)
                                   for n, t in enumerate(tables.values())))
            check_tokens(fake)
            ledger = await raw_sql(url, "SELECT server, player, SUM(units) FROM ledger GROUP BY server, player")
            assert {s for s, _, _ in ledger} == {"slack:TA", "slack:TB"}
            for server, player, _ in ledger:
                assert player in PLAYERS[server.removeprefix("slack:")], (server, player)
            for team in PLAYERS:
                assert sum(u for s, _, u in ledger if s == f"slack:{team}") == 0
            seen = await raw_sql(url, "SELECT DISTINCT server, channel FROM tables")
            assert sorted(seen) == [("slack:TA", "CA1"), ("slack:TB", "CB1")]

            # A deals a second round and it is under way when the app is removed from A (through the
            # process that did not install it): the round is void, the table closed, the ledger kept
            a = tables["TA"]
            rounds_before = await raw_sql(url, "SELECT COUNT(*) FROM rounds WHERE server = 'slack:TA'")
            await fake.wait_for(lambda: len([c for c in fake.dms_to("UA1")]) >= 2, timeout=10)
            uninstalled_at = time.time()
            await event(http, bots[1], fake.app_uninstalled("TA"))  # answered once it is done (bolt's
            # listeners run before the response here)
            assert await raw_sql(url, "SELECT id FROM tables WHERE server = 'slack:TA' AND status = 'open'") == []
            assert await raw_sql(url, "SELECT team_id FROM slack_bots") == [("TB",)]
            assert await raw_sql(url, "SELECT team_id FROM slack_installations") == [("TB",)]
            assert await raw_sql(url, "SELECT COUNT(*) FROM rounds WHERE server = 'slack:TA'") == rounds_before
            [(kept,)] = await raw_sql(url, "SELECT COUNT(*) FROM ledger WHERE server = 'slack:TA'")
            assert kept > 0  # the ledger stays (until an admin erases it)
            for bot in bots:  # every process answers A: not installed
                answer = await slash(http, fake, bot, "status", team="TA", user="UA2", channel=a.channel)
                assert answer == NOT_INSTALLED

            # B plays on: another round, through both processes
            b = tables["TB"]
            await b.play_across(http, bots, random.Random(seed + 7), lambda t: len(t.counts()) >= 2)
            check_tokens(fake)
            after = [c for c in fake.calls() if c.team == "TA" and c.timestamp > uninstalled_at and c.ok]
            assert after == [], [c.method for c in after]  # nothing went out with A's revoked token

            # an admin erases A's figures; B, whose table is open, is refused and keeps everything
            assert await forget(url, "slack:TB") == 2
            assert await forget(url, "slack:TA") == 0
            for table in ("ledger", "rounds", "tables", "players"):
                assert await raw_sql(url, f"SELECT COUNT(*) FROM {table} WHERE server = 'slack:TA'") == [(0,)]
                [(kept,)] = await raw_sql(url, f"SELECT COUNT(*) FROM {table} WHERE server = 'slack:TB'")
                assert kept > 0, table
            with pytest.raises(Exception, match="append-only"):  # the triggers are back
                await raw_sql(url, "DELETE FROM ledger WHERE server = 'slack:TB'")

            # B revokes the bot's token (tokens_revoked, through the process that installed it): the same as
            # removing the app there — installation gone, table closed, ledger kept
            await event(http, bots[1], fake.tokens_revoked("TB"))
            assert await raw_sql(url, "SELECT team_id FROM slack_bots") == []
            assert await raw_sql(url, "SELECT team_id FROM slack_installations") == []
            assert await raw_sql(url, "SELECT id FROM tables WHERE status = 'open'") == []
            [(kept,)] = await raw_sql(url, "SELECT COUNT(*) FROM ledger WHERE server = 'slack:TB'")
            assert kept > 0
            answer = await slash(http, fake, bots[0], "start", team="TB", user="UB1", channel=b.channel)
            assert answer == NOT_INSTALLED
    finally:
        logs = [await stop_bot(bot) for bot in bots]
    for log in logs:
        assert "Traceback" not in log, log
    # bolt's ERROR for each request from a workspace with no installation is a WARNING: answered, no fault of ours
    bolt = [line for log in logs for line in log.splitlines() if "should be installed into this workspace" in line]
    assert bolt and all(" WARNING slack_bolt." in line for line in bolt), bolt


async def forget(url: str, server: str) -> int:
    """``liars forget SERVER --yes`` as a process; its exit status."""
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot.cli", "forget", server, "--db", url,
                                                "--yes", cwd=ROOT, stdout=asyncio.subprocess.DEVNULL,
                                                stderr=asyncio.subprocess.DEVNULL)
    return await proc.wait()
