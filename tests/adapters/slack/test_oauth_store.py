"""The installation store over our own database (slack_sdk's interface, adapters.installs' SQL), on SQLite
and on PostgreSQL: what bolt's OAuth flow saves is what its authorize finds, per workspace and per
Enterprise Grid organisation; a state is used up once; removing one workspace of an organisation leaves
the organisation's tables open for its other workspaces."""

from __future__ import annotations

from typing import Any

from slack_sdk.oauth.installation_store.models.installation import Installation
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.oauth import SEARCH_AGAIN, InstallationStore, StateStore, Uninstalls, Workspaces
from bot.model import TableKey
from tests.adapters.store_support import StoreFactory


def installation(team: str, enterprise: str | None = None, user: str = "U1", token: str = "xoxb-1", *,
                 org: bool = False, at: float = 1.0) -> Installation:
    return Installation(app_id="A1", enterprise_id=enterprise, team_id=None if org else team, user_id=user,
                        bot_token=token, bot_id="B1", bot_user_id="UB", bot_scopes="commands,chat:write",
                        is_enterprise_install=org, installed_at=at)


async def test_what_is_saved_is_found_per_workspace_and_organisation(open_store: StoreFactory) -> None:
    store = InstallationStore(await open_store())
    await store.async_save(installation("T1", token="xoxb-t1"))
    await store.async_save(installation("T2", token="xoxb-t2", user="U2"))
    await store.async_save(installation("", "E1", token="xoxb-org", org=True))
    bot = await store.async_find_bot(enterprise_id=None, team_id="T1")
    assert bot is not None and bot.bot_token == "xoxb-t1" and bot.bot_scopes == ["commands", "chat:write"]
    org = await store.async_find_bot(enterprise_id="E1", team_id="T9", is_enterprise_install=True)
    assert org is not None and org.bot_token == "xoxb-org"
    t2, e1 = await store.bot_of_server("T2"), await store.bot_of_server("E1")
    assert t2 is not None and t2.bot_token == "xoxb-t2"
    assert e1 is not None and e1.bot_token == "xoxb-org"
    assert await store.bot_of_server("T3") is None
    found = await store.async_find_installation(enterprise_id=None, team_id="T2", user_id="U2")
    assert found is not None and found.user_id == "U2" and found.bot_token == "xoxb-t2"
    assert await store.async_find_installation(enterprise_id=None, team_id="T2", user_id="U1") is None
    # a new install replaces the workspace's token
    await store.async_save(installation("T1", token="xoxb-t1-again", at=2.0))
    again = await store.async_find_bot(enterprise_id=None, team_id="T1")
    assert again is not None and again.bot_token == "xoxb-t1-again"
    await store.async_delete_all(enterprise_id=None, team_id="T1")
    assert await store.async_find_bot(enterprise_id=None, team_id="T1") is None
    assert await store.async_find_installation(enterprise_id=None, team_id="T1") is None
    assert (await store.async_find_bot(enterprise_id=None, team_id="T2")) is not None


async def test_a_state_is_used_up_once_and_not_after_it_expires(open_store: StoreFactory) -> None:
    now = [1000.0]
    states = StateStore(await open_store(), expiration_seconds=600, clock=lambda: now[0])
    first, second = await states.async_issue(), await states.async_issue()
    assert first != second
    assert await states.async_consume(first) and not await states.async_consume(first)
    assert not await states.async_consume("never-issued")
    now[0] += 600
    assert not await states.async_consume(second)  # expired


async def test_removing_one_workspace_of_an_organisation_keeps_the_organisations_tables(
        open_store: StoreFactory) -> None:
    store = InstallationStore(await open_store())
    await store.async_save(installation("T1", "E1", token="xoxb-1"))
    await store.async_save(installation("T2", "E1", token="xoxb-2", user="U2"))
    closed: list[str] = []

    async def close_server(server: str) -> int:
        closed.append(server)
        return 0

    uninstalls = Uninstalls(store, close_server)
    body: dict[str, Any] = {"enterprise_id": "E1", "team_id": "T1", "is_enterprise_install": False}
    await uninstalls.on_uninstalled(body)
    assert closed == [] and await store.async_find_bot(enterprise_id="E1", team_id="T1") is None
    await uninstalls.on_revoked({"tokens": {"oauth": [], "bot": ["UB"]}}, {**body, "team_id": "T2"})
    assert closed == ["slack:E1"]  # the organisation's last workspace: its tables close
    assert await store.bot_of_server("E1") is None


async def test_a_workspace_installed_again_is_used_at_once_not_a_minute_later(open_store: StoreFactory) -> None:
    """The answer "not installed" was kept for a minute: a workspace that removed the app and added it back
    had its new table's lobby, table message and serial DMs dropped in silence until then."""
    store = InstallationStore(await open_store())
    workspaces = Workspaces(AsyncWebClient(base_url="http://127.0.0.1:9/api/"), store, clock=lambda: 1000.0)
    key = TableKey("slack", "T1", "C1")
    assert await workspaces.client(key) is None  # not installed (yet, or any more)
    await store.async_save(installation("T1", token="xoxb-t1-again"))
    client = await workspaces.client(key)  # the same moment: no cached "not installed"
    assert client is not None and client.token == "xoxb-t1-again"


async def test_a_grid_channels_workspace_token_is_the_one_used_for_it(open_store: StoreFactory) -> None:
    """An organisation's workspaces installed one by one: each channel's messages go with its own workspace's
    token once a request from it was heard (before: the organisation's newest install, for every channel)."""
    store = InstallationStore(await open_store())
    await store.async_save(installation("T1", "E1", token="xoxb-1", at=1.0))
    await store.async_save(installation("T2", "E1", token="xoxb-2", user="U2", at=2.0))
    await store.async_save(installation("T3", token="xoxb-3", at=3.0))  # a workspace of no organisation
    assert [b.bot_token for b in await store.bots_of_server("E1")] == ["xoxb-2", "xoxb-1"]  # newest first
    assert [b.bot_token for b in await store.bots_of_server("T3")] == ["xoxb-3"]
    assert await store.bots_of_server("E9") == []
    workspaces = Workspaces(AsyncWebClient(base_url="http://127.0.0.1:9/api/"), store, clock=lambda: 1000.0)
    c1, c2 = TableKey("slack", "E1", "C1"), TableKey("slack", "E1", "C2")
    unheard = await workspaces.client(c1)
    assert unheard is not None and unheard.token == "xoxb-2"  # nothing known of C1 yet: the newest install
    assert [(team, c.token) for team, c in await workspaces.others(c1, "xoxb-2")] == [("T1", "xoxb-1")]
    workspaces.heard("E1", "T1", "C1")
    workspaces.heard("T3", "T3", "C3")  # a workspace that is its own ledger server: nothing to note
    heard = await workspaces.client(c1)
    assert heard is not None and heard.token == "xoxb-1"
    other = await workspaces.client(c2)
    assert other is not None and other.token == "xoxb-2"
    assert workspaces.channels_of("E1", "T1") == ["C1"] and workspaces.channels_of("T3", "T3") == []
    assert await workspaces.others(TableKey("slack", "T3", "C3"), "xoxb-3") == []
    # a channel no install took is not searched again for SEARCH_AGAIN seconds, unless a request is heard from it
    now = [1000.0]
    workspaces.clock = lambda: now[0]
    assert workspaces.may_search(c2)
    workspaces.searched(c2)
    assert not workspaces.may_search(c2) and workspaces.may_search(c1)
    now[0] += SEARCH_AGAIN
    assert workspaces.may_search(c2)
    workspaces.searched(c2)
    workspaces.heard("E1", "T2", "C2")
    assert workspaces.may_search(c2)
