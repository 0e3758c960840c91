"""Distribution to many workspaces: slack-bolt's OAuth v2 flow over our own database.

With ``SLACK_CLIENT_ID`` and ``SLACK_CLIENT_SECRET`` (and no ``SLACK_BOT_TOKEN``) ``liars slack`` serves
``GET /slack/install`` (the "Add to Slack" page: a link to Slack's ``oauth/v2/authorize`` with the client
id, the scopes and a one-time state, also set as a cookie) and ``GET /slack/oauth_redirect`` (the state
checked and used up, the code exchanged with ``oauth.v2.access`` at ``SLACK_API_URL``, the installation
stored).  Both are bolt's own :class:`~slack_bolt.oauth.async_oauth_flow.AsyncOAuthFlow`; this module
gives it where to keep things.

**Which installation store, and why.**  slack_sdk ships installation stores for a SQLite file
(``SQLite3InstallationStore``: the synchronous ``sqlite3`` module on the event loop, its own schema
created outside our migrations, no PostgreSQL) and for SQLAlchemy (a new dependency, a second driver
and connection pool beside asyncpg, ``metadata.create_all`` instead of numbered migrations).  Neither
fits stores that every process shares through aiosqlite or asyncpg with numbered migrations, so
:class:`InstallationStore` and :class:`StateStore` implement slack_sdk's ``AsyncInstallationStore`` and
``AsyncOAuthStateStore`` interfaces over :class:`adapters.installs.SlackInstalls` (the
stores' methods and SQL; the rows hold slack_sdk's own ``Installation``/``Bot`` records as JSON, as slack_sdk's
file and S3 stores do).  An install through one process is seen by every process at once.

**Every request and every message with its workspace's token.**  For a request, bolt's authorize
finds the workspace's bot (``find_bot``: bot tokens only, we ask for no user scopes) and hands the
listener a client carrying that token.  The notifier posts outside requests too (timers, computer
seats, a round dealt after another's move): :class:`Workspaces` gives it the client of the table's
ledger server — the Enterprise Grid organisation's install if there is one, else the workspace's —
over the app's shared HTTP session, remembered for a minute and forgotten at once when Slack refuses
its token.

**Uninstalling.**  ``app_uninstalled``, and ``tokens_revoked`` naming a bot token, remove the
workspace's installation (:class:`Uninstalls`) and close its open tables in every process's store
(``Service.close_server``: a round under way is void, no money moves) — unless it was one workspace of an
Enterprise Grid organisation whose other workspaces keep the app: the organisation's ledger and tables are
theirs too, so they stay.  The workspace's ledger, rounds,
game records, names and settings stay, under its ledger server (``slack:T…``): they are its figures
again if it installs the app later; ``liars forget slack:T…`` erases them (``Store.erase_server``).  A request
from a workspace with no installation is answered by bolt with :data:`NOT_INSTALLED` (HTTP 200 and, for
a slash command, that text through its ``response_url``), never a 500.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.async_app import AsyncApp, AsyncBoltRequest
from slack_bolt.authorization.async_authorize import AsyncInstallationStoreAuthorize
from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore
from slack_sdk.oauth.installation_store.models.bot import Bot
from slack_sdk.oauth.installation_store.models.installation import Installation
from slack_sdk.oauth.state_store.async_state_store import AsyncOAuthStateStore
from slack_sdk.web.async_client import AsyncWebClient

from adapters.installs import SlackInstalls
from bot.model import TableKey

__all__ = ["NOT_INSTALLED", "REVOKED", "SCOPES", "InstallationStore", "StateStore", "Uninstalls", "Workspaces",
           "authorize_url", "oauth_settings", "serve_oauth"]

log = logging.getLogger(__name__)

SCOPES = ("commands", "chat:write", "chat:write.public", "files:write", "im:write", "users:read")
"""The bot scopes the app asks for (the manifest's ``oauth_config.scopes.bot``)."""
NOT_INSTALLED = ("Liar's Poker is not installed in this workspace (or it was removed). An admin can add "
                 "it again from the app's Add to Slack page.")
STATE_SECONDS = 600  # how long an install link's state stays usable
CHANNELS_KEPT = 100_000  # Grid channels whose workspace a process remembers
SEARCH_AGAIN = 600.0  # seconds before a Grid channel no install could post in is tried with each of them again
TOKEN_SECONDS = 60.0  # how long a process trusts a workspace's token it read (another may uninstall it)
# Slack's answers that mean a workspace's token is gone
REVOKED = frozenset({"token_revoked", "invalid_auth", "account_inactive", "not_authed", "team_not_found"})


def _key(value: str | None) -> str:
    return value or ""


def server_of(enterprise_id: str | None, team_id: str | None) -> str:
    """The ledger server of an install (as ``render.server_id`` of a request): the Enterprise Grid
    organisation if there is one, else the workspace."""
    return _key(enterprise_id) or _key(team_id)


class InstallationStore(AsyncInstallationStore):
    """slack_sdk's ``AsyncInstallationStore`` over our store (see the module's docstring)."""

    def __init__(self, installs: SlackInstalls) -> None:
        self.installs = installs

    @property
    def logger(self) -> logging.Logger:
        return log

    async def async_save(self, installation: Installation) -> None:
        enterprise = _key(installation.enterprise_id)
        team = "" if installation.is_enterprise_install else _key(installation.team_id)
        await self.installs.save_slack_installation(enterprise, team, _key(installation.user_id),
                                              installation.installed_at, json.dumps(installation.__dict__))
        if installation.bot_token is not None:
            await self.async_save_bot(installation.to_bot())
        log.info("installed in %s (%s)", server_of(installation.enterprise_id, installation.team_id),
                 installation.team_name or installation.enterprise_name or "?")

    async def async_save_bot(self, bot: Bot) -> None:
        team = "" if bot.is_enterprise_install else _key(bot.team_id)
        await self.installs.save_slack_bot(_key(bot.enterprise_id), team, server_of(bot.enterprise_id, bot.team_id),
                                     bot.installed_at, json.dumps(bot.__dict__))

    async def async_find_bot(self, *, enterprise_id: str | None, team_id: str | None,
                             is_enterprise_install: bool | None = False) -> Bot | None:
        team = "" if is_enterprise_install else _key(team_id)
        data = await self.installs.find_slack_bot(_key(enterprise_id), team)
        return None if data is None else Bot(**json.loads(data))

    async def bot_of_server(self, server: str) -> Bot | None:
        data = await self.installs.slack_bot_of_server(server)
        return None if data is None else Bot(**json.loads(data))

    async def bots_of_server(self, server: str) -> list[Bot]:
        return [Bot(**json.loads(data)) for data in await self.installs.slack_bots_of_server(server)]

    async def async_find_installation(self, *, enterprise_id: str | None, team_id: str | None,
                                      user_id: str | None = None,
                                      is_enterprise_install: bool | None = False) -> Installation | None:
        team = "" if is_enterprise_install else _key(team_id)
        data = await self.installs.find_slack_installation(_key(enterprise_id), team, user_id)
        if data is None:
            return None
        installation = Installation(**json.loads(data))
        if user_id is not None or installation.bot_token is None:  # the workspace's latest bot token
            bot = await self.async_find_bot(enterprise_id=enterprise_id, team_id=team_id,
                                            is_enterprise_install=is_enterprise_install)
            if bot is not None:
                installation.bot_token, installation.bot_id = bot.bot_token, bot.bot_id
                installation.bot_user_id, installation.bot_scopes = bot.bot_user_id, bot.bot_scopes
        return installation

    async def async_delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        await self.installs.delete_slack_bot(_key(enterprise_id), _key(team_id))

    async def async_delete_installation(self, *, enterprise_id: str | None, team_id: str | None,
                                        user_id: str | None = None) -> None:
        await self.installs.delete_slack_installations(_key(enterprise_id), _key(team_id), user_id)


class StateStore(AsyncOAuthStateStore):
    """slack_sdk's ``AsyncOAuthStateStore`` over our store: a state is issued with an install link and
    used up once by the redirect that comes back with it, in whichever process."""

    def __init__(self, installs: SlackInstalls, *, expiration_seconds: int = STATE_SECONDS,
                 clock: Callable[[], float] = time.time) -> None:
        self.installs = installs
        self.expiration_seconds = expiration_seconds
        self.clock = clock

    @property
    def logger(self) -> logging.Logger:
        return log

    async def async_issue(self, *args: Any, **kwargs: Any) -> str:
        state = secrets.token_urlsafe(24)
        now = self.clock()
        await self.installs.issue_oauth_state(state, now + self.expiration_seconds, now)
        return state

    async def async_consume(self, state: str) -> bool:
        return await self.installs.consume_oauth_state(state, self.clock())


def authorize_url(api_url: str) -> str:
    """Slack's authorize page beside its Web API: ``https://slack.com/api/`` → ``https://slack.com/oauth/v2/
    authorize`` (so ``SLACK_API_URL`` pointing at a proxy or a fake moves both)."""
    return api_url.rstrip("/").removesuffix("/api") + "/oauth/v2/authorize"


def oauth_settings(*, client_id: str, client_secret: str, api_url: str, installs: SlackInstalls,
                   redirect_uri: str | None = None) -> AsyncOAuthSettings:
    """bolt's OAuth flow settings: our stores, our scopes, Slack's pages beside ``api_url``."""
    store = InstallationStore(installs)
    # the callback is served at the redirect URL's own path (bolt's default path only otherwise: an install
    # sent back to another path ended on a bare 404)
    path = (urlsplit(redirect_uri).path or "/") if redirect_uri else "/slack/oauth_redirect"  # (no path: Slack's "/")
    settings = AsyncOAuthSettings(
        client_id=client_id, client_secret=client_secret, scopes=list(SCOPES), user_scopes=[],
        redirect_uri=redirect_uri, redirect_uri_path=path,
        authorization_url=authorize_url(api_url), installation_store=store,
        installation_store_bot_only=True, state_store=StateStore(installs), state_expiration_seconds=STATE_SECONDS,
        logger=log)
    # the same authorize, with its auth.test answers remembered per token (a removed install has no token
    # to look up, so nothing stale is served)
    settings.authorize = AsyncInstallationStoreAuthorize(
        logger=log, client_id=client_id, client_secret=client_secret, installation_store=store, bot_only=True,
        cache_enabled=True)
    return settings


class Workspaces:
    """The Web API client of each workspace (or Grid organisation), for what the bot posts outside a
    request; None where the app is not installed.

    An Enterprise Grid organisation's ledger server is the organisation, but an app installed workspace by
    workspace (the manifest's ``org_deploy_enabled: false``) has one token per workspace, each seeing only
    its own workspace's channels.  The workspace of each channel is taken from the requests made there
    (:meth:`heard`) and, for a channel no request has named since the process started, found when Slack
    refuses the channel to the organisation's newest install: the message is tried with the others
    (:meth:`others`), and the one that takes it is the channel's (:meth:`heard`)."""

    def __init__(self, base: AsyncWebClient, store: InstallationStore, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.base = base
        self.store = store
        self.clock = clock
        # (server, workspace or "") -> (until, client)
        self._clients: dict[tuple[str, str], tuple[float, AsyncWebClient | None]] = {}
        self._teams: OrderedDict[tuple[str, str], str] = OrderedDict()  # (server, channel) -> its workspace
        self._searched: OrderedDict[tuple[str, str], float] = OrderedDict()  # (server, channel) -> searched until

    def heard(self, server: str, team: str, channel: str) -> None:
        """A request from ``channel`` of workspace ``team`` in the organisation ``server`` (nothing is noted
        for a workspace that is its own ledger server)."""
        if not (server and team and channel) or server == team:
            return
        slot = (server, channel)
        self._searched.pop(slot, None)
        if self._teams.get(slot) != team:
            self._teams[slot] = team
            while len(self._teams) > CHANNELS_KEPT:
                self._teams.popitem(last=False)

    def may_search(self, key: TableKey) -> bool:
        """Whether a channel Slack refused may be tried with the organisation's other installs: not again for
        :data:`SEARCH_AGAIN` seconds after no install took it (each try is a call per install), unless a
        request from it is heard meanwhile."""
        until = self._searched.get((key.server_id, key.channel_id))
        return until is None or until <= self.clock()

    def searched(self, key: TableKey) -> None:
        """No install of the organisation took a message for this channel."""
        self._searched[(key.server_id, key.channel_id)] = self.clock() + SEARCH_AGAIN
        while len(self._searched) > CHANNELS_KEPT:
            self._searched.popitem(last=False)

    async def client(self, key: TableKey) -> AsyncWebClient | None:
        server = key.server_id
        team = self._teams.get((server, key.channel_id), "")
        now = self.clock()
        hit = self._clients.get((server, team))
        if hit is not None and hit[0] > now:
            return hit[1]
        bot = await self.store.async_find_bot(enterprise_id=server, team_id=team) if team else None
        if bot is None or not bot.bot_token:  # (an organisation-wide install, or the channel's not known yet)
            bot = await self.store.bot_of_server(server)
        if bot is None or not bot.bot_token:
            # not kept: an install a moment later (here or in another process) is used at once, not after
            # a silent minute (the new table's lobby and its serial DMs were dropped)
            self._clients.pop((server, team), None)
            return None
        client = self._client_for(bot.bot_token)
        self._clients[(server, team)] = (now + TOKEN_SECONDS, client)
        return client

    def channels_of(self, server: str, team: str) -> list[str]:
        """The channels heard (or found) to be workspace ``team``'s, of the organisation ``server``."""
        return [channel for (at, channel), heard_team in self._teams.items() if at == server and heard_team == team]

    async def others(self, key: TableKey, token: str | None) -> list[tuple[str, AsyncWebClient]]:
        """The organisation's other workspace installs (workspace, client), newest first, for a channel Slack
        refused to ``token``'s: empty for a workspace that is its own ledger server."""
        return [(str(bot.team_id), self._client_for(bot.bot_token))
                for bot in await self.store.bots_of_server(key.server_id)
                if bot.bot_token and bot.bot_token != token and bot.team_id and bot.team_id != key.server_id]

    def _client_for(self, token: str) -> AsyncWebClient:
        base = self.base
        return AsyncWebClient(token=token, base_url=base.base_url, session=base.session, timeout=base.timeout,
                              retry_handlers=list(base.retry_handlers), logger=base.logger)

    def forget(self, server: str) -> None:
        """Read the server's installs again next time (Slack refused a token, or one was removed)."""
        for slot in [slot for slot in self._clients if slot[0] == server]:
            del self._clients[slot]


class Uninstalls:
    """``app_uninstalled`` and ``tokens_revoked``: the installation goes, the workspace's tables close."""

    def __init__(self, store: InstallationStore, close_server: Callable[..., Awaitable[int]],
                 workspaces: Workspaces | None = None) -> None:
        self.store = store
        self.close_server = close_server  # Service.close_server bound to the ledger server's key
        self.workspaces = workspaces

    def register(self, app: AsyncApp) -> None:
        app.event("app_uninstalled")(self.on_uninstalled)
        app.event("tokens_revoked")(self.on_revoked)

    async def on_uninstalled(self, body: dict[str, Any]) -> None:
        await self._remove(body)

    async def on_revoked(self, event: dict[str, Any], body: dict[str, Any]) -> None:
        tokens = event.get("tokens") or {}
        users = [str(u) for u in tokens.get("oauth") or []]
        enterprise, team = body.get("enterprise_id"), body.get("team_id")
        for user in users:  # user tokens (the app asks for none, but an install may carry one)
            await self.store.async_delete_installation(enterprise_id=enterprise, team_id=team, user_id=user)
        if tokens.get("bot"):  # the bot's token: the app can do nothing more there
            await self._remove(body)

    async def _remove(self, body: dict[str, Any]) -> None:
        enterprise, team = body.get("enterprise_id"), body.get("team_id")
        is_org = bool(body.get("is_enterprise_install"))
        await self.store.async_delete_all(enterprise_id=enterprise, team_id=None if is_org else team)
        server = server_of(enterprise, team)
        if self.workspaces is not None:
            self.workspaces.forget(server)
        if await self.store.bot_of_server(server) is not None:
            # one workspace of an Enterprise Grid organisation: the organisation's ledger is shared by its other
            # workspaces, which still have the app; the tables of the channels known to be this workspace's
            # close (no token can reach them now)
            channels = self.workspaces.channels_of(server, str(team or "")) if self.workspaces is not None else []
            closed = 0
            for channel in channels:
                closed += await self.close_server(f"slack:{server}", channel=channel)
            log.info("removed from workspace %s of %s (%d open tables closed); the organisation's other workspaces "
                     "keep it", team, server, closed)
            return
        closed = await self.close_server(f"slack:{server}")
        log.info("removed from %s: installation deleted, %d open tables closed, ledger kept", server, closed)


def serve_oauth(app: AsyncApp, web_app: web.Application) -> None:
    """Route ``GET /slack/install`` and ``GET /slack/oauth_redirect`` (bolt's paths) to bolt's flow."""
    flow = app.oauth_flow
    assert flow is not None, "the app has no OAuth flow"

    async def install(request: web.Request) -> web.Response:
        return await to_aiohttp_response(await flow.handle_installation(_bolt_request(request)))

    async def redirect(request: web.Request) -> web.Response:
        return await to_aiohttp_response(await flow.handle_callback(_bolt_request(request)))

    web_app.router.add_get(flow.install_path, install)
    web_app.router.add_get(flow.redirect_uri_path, redirect)


def _bolt_request(request: web.Request) -> AsyncBoltRequest:
    return AsyncBoltRequest(body="", query=request.query_string,
                            headers={k: request.headers.getall(k) for k in request.headers})
