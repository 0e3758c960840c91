"""The Slack bot: a slack-bolt ``AsyncApp`` wired to the table service, served over HTTP or Socket Mode.

The composition root (:func:`bot.bootstrap.slack_bot`) builds the bot from a
:class:`~adapters.slack.config.SlackConfig` with the pieces here (``web_client``, ``workspaces``,
``bolt_app``); ``serve_http`` and ``connect_socket`` put it on the wire, behind
:mod:`adapters.slack.door`; ``run`` is what ``liars slack`` does.  The tests use the very same functions
against a fake Slack on 127.0.0.1 (``SLACK_API_URL``).

One workspace (``SLACK_BOT_TOKEN``), or every workspace that installs the app (``SLACK_CLIENT_ID`` and
``SLACK_CLIENT_SECRET``: bolt's OAuth flow over our database, :mod:`adapters.slack.oauth`; the HTTP
server then also serves ``GET /slack/install`` and ``GET /slack/oauth_redirect``).

Every HTTP call the bot makes goes over one shared aiohttp session (keep-alive connections): the Web
API client's, and the answers to ``response_url``s.  The Web API client retries connection errors and
waits out HTTP 429 (slack_sdk's retry handlers); the notifier's outboxes retry beyond that.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.logger.messages import warning_client_prioritized_and_token_skipped
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from adapters import metrics, pictures
from adapters.installs import SlackInstalls
from bot.bootstrap import slack_bot
from bot.service import Service

from .config import SlackConfig
from .door import MAX_BODY, Door, GuardedSocketModeHandler, store_ready
from .handlers import Listeners
from .notifier import SlackNotifier
from .oauth import NOT_INSTALLED, InstallationStore, Uninstalls, Workspaces, oauth_settings, serve_oauth, server_of
from .outbox import api_error

__all__ = ["OAuth", "SlackBot", "bolt_app", "connect_socket", "run", "serve_http", "web_client", "workspaces"]

log = logging.getLogger(__name__)

#: How long a stopping process waits for the messages still queued (behind a ``Retry-After``) to go out:
#: within the 30 s a platform (Heroku, Kubernetes' default) gives between SIGTERM and SIGKILL.
SHUTDOWN_GRACE = 20.0


@dataclass
class SlackBot:
    config: SlackConfig
    app: AsyncApp
    service: Service
    notifier: SlackNotifier
    listeners: Listeners
    session: aiohttp.ClientSession
    shutdown_grace: float = SHUTDOWN_GRACE

    @property
    def processed(self) -> deque[tuple[str, str]]:
        """``(request id, "done" | "duplicate" | "error")`` for each request taken, newest last."""
        return self.listeners.processed

    async def ready(self) -> bool:
        """Whether the bot can serve: its store answers (``/readyz``)."""
        return await store_ready(self.service.store)

    async def close(self) -> None:
        await self.listeners.drain()
        await self.service.stop_timers()  # no timeout nor computer move queues a message the notifier then drops
        await self.service.drain()  # the service's per-table outbox hands the rest to the notifier
        await self.notifier.close(self.shutdown_grace)  # (the count of a round behind a Retry-After goes out)
        await self.service.close()
        await self.session.close()


def web_client(config: SlackConfig) -> tuple[aiohttp.ClientSession, AsyncWebClient]:
    """The one aiohttp session (API calls counted in the metrics) and the Web API client over it."""
    session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30),
                                    trace_configs=[metrics.http_trace("slack")])
    client = AsyncWebClient(
        token=config.bot_token,
        base_url=config.api_url,  # Slack's own, or a proxy, or a fake on 127.0.0.1
        session=session,
        retry_handlers=[AsyncConnectionErrorRetryHandler(max_retry_count=2),
                        AsyncRateLimitErrorRetryHandler(max_retry_count=2)],
    )
    return session, client


@dataclass(frozen=True)
class OAuth:
    """Distributed to many workspaces: bolt's OAuth settings over our store, and each workspace's client."""

    settings: Any
    store: InstallationStore
    workspaces: Workspaces


def workspaces(config: SlackConfig, client: AsyncWebClient, installs: SlackInstalls) -> OAuth | None:
    """The OAuth flow's settings and the workspaces' clients when the app is distributed, else None."""
    if not config.distributed:
        return None
    if config.client_id is None or config.client_secret is None:  # a real check: not dropped by python -O
        raise ValueError("a Slack app without a bot token installs itself by OAuth: "
                         "set SLACK_CLIENT_ID and SLACK_CLIENT_SECRET")
    settings = oauth_settings(client_id=config.client_id, client_secret=config.client_secret, api_url=config.api_url,
                              installs=installs, redirect_uri=config.redirect_uri)
    installations = settings.installation_store
    assert isinstance(installations, InstallationStore)
    return OAuth(settings, installations, Workspaces(client, installations))


class _NotInstalledIsAWarning(logging.Filter):
    """bolt logs every request from a workspace with no installation (one that removed the app, a stale
    button there) at ERROR; it is answered (:data:`NOT_INSTALLED`) and is no fault of ours: a WARNING, as
    the door logs other input we did not produce."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.ERROR and "should be installed into this workspace" in record.getMessage():
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


_NOT_INSTALLED_FILTER = _NotInstalledIsAWarning()


class _TokenGivenOnce(logging.Filter):
    """bolt reads SLACK_BOT_TOKEN from the environment by itself, then warns at every start that "as you gave
    `client` as well, `token` will be unused": the client it is given carries that same token — nothing to say."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != warning_client_prioritized_and_token_skipped()


_TOKEN_GIVEN_ONCE = _TokenGivenOnce()


def bolt_app(config: SlackConfig, client: AsyncWebClient, service: Service, oauth: OAuth | None) -> AsyncApp:
    """bolt's app: for one workspace's token, or (distributed) with the OAuth flow over our store and the
    uninstall events."""
    common: dict[str, Any] = {
        "client": client,
        "signing_secret": config.signing_secret or "",
        # the listener runs before the response: it acknowledges after the service has committed
        "process_before_response": True,
        "ssl_check_enabled": True,
    }
    logging.getLogger("slack_bolt.AsyncApp").addFilter(_TOKEN_GIVEN_ONCE)  # once: a logger's filters are a set
    if oauth is None:
        app = AsyncApp(**common)
        _single_workspace_removal(app, service)
        return app
    app = AsyncApp(**common, oauth_settings=oauth.settings, installation_store_bot_only=True,
                   user_facing_authorize_error_message=NOT_INSTALLED)
    logging.getLogger("slack_bolt.AsyncMultiTeamsAuthorization").addFilter(_NOT_INSTALLED_FILTER)  # once: a set
    Uninstalls(oauth.store, service.close_server, oauth.workspaces).register(app)

    async def heard(context: AsyncBoltContext, next: Callable[[], Awaitable[None]]) -> None:  # (`next`: by name)
        # which workspace of an Enterprise Grid organisation each channel is (its install's token posts there)
        if context.enterprise_id and context.team_id and context.channel_id:
            oauth.workspaces.heard(context.enterprise_id, context.team_id, context.channel_id)
        await next()

    app.use(heard)
    return app


def _single_workspace_removal(app: AsyncApp, service: Service) -> None:
    """With one workspace's token, ``app_uninstalled`` (and ``tokens_revoked`` naming the bot's token): the
    workspace's open tables close, as with OAuth, and the operator is told the token is dead.  Unhandled, bolt
    answered Slack 404 (which Slack retries) and logged a page suggesting code."""

    async def removed(body: dict[str, Any]) -> None:
        server = server_of(body.get("enterprise_id"), body.get("team_id"))
        closed = await service.close_server(f"slack:{server}")
        log.warning("the app was removed from workspace %s (or its bot token revoked): %d open tables closed, ledger "
                    "kept; SLACK_BOT_TOKEN no longer works there — stop this process, or install the app again and "
                    "set the new token", server, closed)

    async def revoked(event: dict[str, Any], body: dict[str, Any]) -> None:
        if (event.get("tokens") or {}).get("bot"):  # (a user's token alone: the app asks for none; nothing to do)
            await removed(body)

    app.event("app_uninstalled")(removed)
    app.event("tokens_revoked")(revoked)


class MalformedRequests(logging.Filter):
    """aiohttp logs a request it cannot parse (an 8 KB URL or header, a scanner's garbage) as an ERROR with its
    traceback, one a request: any scanner could fill the log.  Those become one WARNING a minute, with a count; the
    sender was answered 400 all the same.  Attached to ``aiohttp.server`` (a handler's own failure still logs)."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0
        self._said_at = float("-inf")

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if not isinstance(exc, HttpProcessingError):
            return True
        self.count += 1
        now = time.monotonic()
        if now - self._said_at >= 60:
            self._said_at = now
            log.warning("malformed HTTP requests answered 400 (%d so far; the last: %s)", self.count,
                        type(exc).__name__)
        return False


MALFORMED = MalformedRequests()


@contextlib.asynccontextmanager
async def serve_http(bot: SlackBot, host: str = "0.0.0.0", port: int | None = None) -> AsyncIterator[str]:
    """Serve the Events/Interactivity endpoint (``config.path``) behind the door, ``GET /healthz``
    (the process is up), ``GET /readyz`` (503 while the store is unreachable) and ``GET /metrics``
    (Prometheus, :mod:`adapters.metrics`); yields the endpoint's URL (``port=0`` picks a free port)."""
    port = bot.config.port if port is None else port
    if MALFORMED not in logging.getLogger("aiohttp.server").filters:
        logging.getLogger("aiohttp.server").addFilter(MALFORMED)
    door = Door(bot.app, bot.config.signing_secret or "", max_body=MAX_BODY)
    web_app = web.Application(client_max_size=MAX_BODY)

    async def health(_: web.Request) -> web.Response:
        return web.Response(text="ok")

    async def ready(_: web.Request) -> web.Response:
        if await bot.ready():
            return web.Response(text="ready")
        return web.Response(status=503, text="the store is unreachable")

    async def scrape(_: web.Request) -> web.Response:
        return web.Response(body=metrics.exposition(), headers={"Content-Type": metrics.CONTENT_TYPE})

    web_app.router.add_post(bot.config.path, door.handle)
    web_app.router.add_get("/metrics", scrape)
    web_app.router.add_get("/healthz", health)
    web_app.router.add_get("/readyz", ready)
    if bot.config.distributed:
        serve_oauth(bot.app, web_app)  # GET /slack/install and /slack/oauth_redirect
    runner = web.AppRunner(web_app, access_log=None, shutdown_timeout=2.0)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        bound = runner.addresses[0][1]
        yield f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{bound}{bot.config.path}"
    finally:
        await runner.cleanup()


TOKEN_REFUSED = frozenset({"invalid_auth", "not_authed", "missing_scope", "token_revoked", "account_inactive",
                           "not_allowed_token_type", "team_not_found", "no_permission"})


class AppTokenRefused(Exception):
    """Slack refused SLACK_APP_TOKEN (Socket Mode)."""


@contextlib.asynccontextmanager
async def connect_socket(bot: SlackBot) -> AsyncIterator[GuardedSocketModeHandler]:
    """Connect by Socket Mode (``apps.connections.open`` through the app's client, so through
    ``SLACK_API_URL``); an envelope is acknowledged when its listener returns (after the commit), a
    malformed one is acknowledged and dropped by the door's check."""
    if not bot.config.app_token:
        raise ValueError("Socket Mode needs SLACK_APP_TOKEN")
    try:  # slack_sdk's connect retries a refused token every 10 s for ever, a traceback each time: asked once
        await bot.app.client.apps_connections_open(app_token=bot.config.app_token)
    except SlackApiError as exc:
        if api_error(exc) in TOKEN_REFUSED:  # the token's own fault; Slack's (internal_error, a 503…) is retried
            raise AppTokenRefused(api_error(exc)) from None
        log.warning("Socket Mode: Slack answered %s; connecting all the same (retried until it answers)",
                    api_error(exc))  # a 503, a rate limit: not the token's fault
    except (aiohttp.ClientError, OSError, TimeoutError) as exc:
        log.warning("Socket Mode: Slack could not be reached (%s); connecting all the same", type(exc).__name__)
    handler = GuardedSocketModeHandler(bot.app, app_token=bot.config.app_token)
    try:
        await handler.connect_async()  # type: ignore[no-untyped-call]
    except BaseException:  # stopped while connecting (or failed): its client session is closed, not leaked
        with contextlib.suppress(Exception):
            await handler.close_async()  # type: ignore[no-untyped-call]
        raise
    try:
        yield handler
    finally:
        await handler.close_async()  # type: ignore[no-untyped-call]


TOKEN_REFUSED = frozenset({"invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired",
                           "not_allowed_token_type", "no_permission", "missing_scope", "team_access_not_granted"})
"""auth.test's errors that say the token itself is refused (reset it); any other is Slack's or the proxy's trouble."""


async def run(config: SlackConfig, *, host: str = "0.0.0.0", stop: asyncio.Event | None = None) -> int:
    """``liars slack``: run until SIGINT/SIGTERM (or ``stop`` is set).  Returns the exit status."""
    bot = await slack_bot(config)
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    exporter = None
    try:
        if config.distributed:
            log.info("serving every workspace that installs the app (OAuth): install at /slack/install")
        else:
            # a stop while Slack has not answered ends it now (it waited out the client's 30 s timeout, past the
            # platform's grace before SIGKILL)
            checking = asyncio.ensure_future(bot.app.client.auth_test())
            stopping = asyncio.ensure_future(stop.wait())
            await asyncio.wait({checking, stopping}, return_when=asyncio.FIRST_COMPLETED)
            stopping.cancel()
            if not checking.done():
                checking.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await checking
                log.info("stopping (Slack had not answered yet)")
                return 0
            try:
                who = checking.result()
            except SlackApiError as exc:
                error = api_error(exc)
                if error.isdigit():  # no Slack answer (a proxy's 500, an HTML page): the token is not the matter
                    log.error("Slack at SLACK_API_URL %s answered HTTP %s, not a Slack answer: is it Slack's API?",
                              config.api_url, error)
                elif error in TOKEN_REFUSED:
                    log.error("SLACK_BOT_TOKEN was refused by %s: %s", config.api_url, error)
                else:  # (Slack's own trouble, "fatal_error", "service_unavailable": no reason to reset the token)
                    log.error("Slack at %s could not check SLACK_BOT_TOKEN: %s", config.api_url, error)
                return 1
            except (aiohttp.ClientError, OSError, TimeoutError) as exc:  # one line, not a traceback
                log.error("cannot reach Slack at SLACK_API_URL %s: %s: %s", config.api_url, type(exc).__name__, exc)
                return 1
            except (AttributeError, TypeError, ValueError):  # slack_sdk reading a 200 that is no JSON (a portal's page)
                log.error("Slack at SLACK_API_URL %s answered HTTP 200, not a Slack answer: is it Slack's API?",
                          config.api_url)
                return 1
            log.info("signed in to Slack team %s as %s", who.get("team_id"), who.get("user"))
        if config.metrics_port is not None:  # (Socket Mode serves no HTTP: this is its only /metrics)
            exporter = metrics.start(config.metrics_port, config.metrics_host)
            if exporter is None:  # one line said why; before any table was redrawn or timed
                return 1

        async def begin() -> None:
            # every open table's messages as committed: a move stored just before a crash is shown now
            log.info("redrawing %d open tables", await bot.service.redraw())
            bot.service.start_timers()
            pictures.start()  # the picture worker is ready before the first count

        if config.socket_mode:
            await begin()
            async with contextlib.AsyncExitStack() as stack:
                # a stop while connecting (Slack unreachable: slack_sdk retries) ends it: not only once connected
                connecting = asyncio.ensure_future(stack.enter_async_context(connect_socket(bot)))
                stopping = asyncio.ensure_future(stop.wait())
                await asyncio.wait({connecting, stopping}, return_when=asyncio.FIRST_COMPLETED)
                stopping.cancel()
                if not connecting.done():
                    connecting.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await connecting
                else:
                    try:
                        connecting.result()
                    except AppTokenRefused as exc:
                        log.error("SLACK_APP_TOKEN was refused by %s: %s", config.api_url, exc)
                        return 1
                    log.info("connected by Socket Mode; waiting for /liars")
                    await stop.wait()
        else:
            async with contextlib.AsyncExitStack() as stack:
                try:
                    url = await stack.enter_async_context(serve_http(bot, host, config.port))
                except OSError as exc:  # the port is taken, the host is no address here: one line
                    log.error("cannot listen on %s:%d (PORT, --host): %s", host, config.port, exc)
                    return 1  # before any table was redrawn or timed (a second process on a taken port played)
                await begin()
                log.info("serving Slack requests at %s", url)
                await stop.wait()
        log.info("stopping: %s", bot.listeners.summary())
        return 0
    finally:
        if exporter is not None:
            exporter.shutdown()
        await bot.close()
        # the picture worker stopped and joined now, not by the interpreter's exit hook, which races the
        # executor's own thread when the worker died with the bot's group (a SIGTERM as it started: "Exception
        # ignored … OSError: Bad file descriptor" on stderr)
        await asyncio.to_thread(pictures.shutdown)
