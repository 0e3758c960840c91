"""The Slack adapter's configuration, read from the environment (never from module globals).

=========================  ===================================================================
``SLACK_BOT_TOKEN``        the bot token (``xoxb-…``) of the one workspace the bot serves; or, to
                           serve every workspace that installs the app, leave it unset and set:
``SLACK_CLIENT_ID``        the app's client id and secret (Basic Information → App Credentials):
``SLACK_CLIENT_SECRET``    ``GET /slack/install`` and ``/slack/oauth_redirect`` install the app
                           (OAuth v2), each workspace's token kept in the database
``SLACK_REDIRECT_URI``     optional: the redirect URL registered with Slack, when there are several
``SLACK_SIGNING_SECRET``   verifies Slack's HTTP requests; required in HTTP mode
``SLACK_APP_TOKEN``        an app-level token (``xapp-…``, scope ``connections:write``); when set,
                           the bot connects by Socket Mode and serves no HTTP
``SLACK_API_URL``          the Web API base, default ``https://slack.com/api/``; for tests and
                           proxies (``http://127.0.0.1:PORT/api/`` points at a local fake)
``PORT``                   the HTTP port (default 3000); requests arrive at ``/slack/events``
``LIARS_DATABASE_URL``     optional: ``postgresql://user:password@host/db`` to share one database
                           between several processes (unset: SQLite)
``LIARS_DB``               the SQLite file (default ``./liars.sqlite3``)
``LIARS_COMPUTER_DELAY``   seconds a computer player waits before it acts (default 1.5)
``LIARS_METRICS_PORT``     optional: serve Prometheus metrics (``GET /metrics``, ``/healthz``) on a
                           port of their own, as ``liars discord`` does (``0``: any free port,
                           logged) — for Socket Mode, which serves no HTTP; over HTTP they are on
                           ``PORT`` as well
``LIARS_METRICS_HOST``     optional: the address those listen on (default ``0.0.0.0``)
=========================  ===================================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from adapters.config import DEFAULT_COMPUTER_DELAY, ConfigError, Env, checked_url

__all__ = ["DEFAULT_API_URL", "ConfigError", "SlackConfig"]

DEFAULT_API_URL = "https://slack.com/api/"
DEFAULT_PORT = 3000
DEFAULT_PATH = "/slack/events"

@dataclass(frozen=True, slots=True)
class SlackConfig:
    bot_token: str | None
    signing_secret: str | None = None
    client_id: str | None = None
    client_secret: str | None = None
    redirect_uri: str | None = None
    app_token: str | None = None
    api_url: str = DEFAULT_API_URL
    port: int = DEFAULT_PORT
    path: str = DEFAULT_PATH
    db_path: str | None = None
    computer_delay: float = DEFAULT_COMPUTER_DELAY
    metrics_port: int | None = None
    metrics_host: str = "0.0.0.0"

    @property
    def distributed(self) -> bool:
        """Whether the app serves every workspace that installs it (OAuth v2), not one bot token's."""
        return self.bot_token is None

    @property
    def socket_mode(self) -> bool:
        return bool(self.app_token)

    @property
    def api_is_loopback(self) -> bool:
        host = urlsplit(self.api_url).hostname or ""
        return host in ("127.0.0.1", "localhost", "::1")

    @classmethod
    def from_env(cls, env: Mapping[str, str], *, port: int | None = None, db_path: str | None = None) -> SlackConfig:
        """Read and check the settings; raise :class:`ConfigError` naming what is wrong."""

        settings = Env(env)
        get = settings.get

        bot_token = get("SLACK_BOT_TOKEN")
        client_id, client_secret = get("SLACK_CLIENT_ID"), get("SLACK_CLIENT_SECRET")
        if bot_token is not None and (client_id or client_secret):
            raise ConfigError("Set SLACK_BOT_TOKEN to serve one workspace, or SLACK_CLIENT_ID and SLACK_CLIENT_SECRET "
                              "to serve every workspace that installs the app (OAuth), not both.")
        if bot_token is None and not (client_id and client_secret):
            if client_id or client_secret:
                missing = "SLACK_CLIENT_SECRET" if client_id else "SLACK_CLIENT_ID"
                raise ConfigError(f"{missing} is not set: installing the app in many workspaces (OAuth) needs both "
                                  "the client id and the client secret (Basic Information → App Credentials).")
            raise ConfigError("SLACK_BOT_TOKEN is not set: copy the Bot User OAuth Token (xoxb-…) from the app's "
                              "OAuth & Permissions page (or set SLACK_CLIENT_ID and SLACK_CLIENT_SECRET to let "
                              "many workspaces install the app).")
        if bot_token is not None and bot_token.startswith("xapp-"):
            raise ConfigError("SLACK_BOT_TOKEN holds an app-level token (xapp-…); that one goes in SLACK_APP_TOKEN.")
        app_token = get("SLACK_APP_TOKEN")
        if app_token is not None and not app_token.startswith("xapp-"):
            raise ConfigError("SLACK_APP_TOKEN must be an app-level token starting with xapp- (Basic Information → "
                              "App-Level Tokens, scope connections:write).")
        if app_token is not None and bot_token is None:
            raise ConfigError("Installing the app in many workspaces (SLACK_CLIENT_ID) needs HTTP mode: the install "
                              "pages are served over HTTP. Unset SLACK_APP_TOKEN and set SLACK_SIGNING_SECRET.")
        signing_secret = get("SLACK_SIGNING_SECRET")
        if app_token is None and signing_secret is None:
            raise ConfigError("SLACK_SIGNING_SECRET is not set: HTTP mode needs it to verify Slack's requests "
                              "(Basic Information → Signing Secret). Set SLACK_APP_TOKEN instead for Socket Mode.")
        api_url = get("SLACK_API_URL") or DEFAULT_API_URL
        checked_url("SLACK_API_URL", api_url, ("http", "https"), DEFAULT_API_URL)
        if not api_url.endswith("/"):
            api_url += "/"  # slack_sdk joins method names onto it
        named = "PORT" if port is None else "--port"  # the refusal names what was typed
        if port is None:
            port = int(settings.number("PORT", int, DEFAULT_PORT))
        if not 0 <= port <= 65535:
            raise ConfigError(f"{named} must be 0 to 65535, not {port}.")
        delay = settings.computer_delay()
        settings.picture_process()  # checked here; the picture worker reads it
        metrics_port, metrics_host = settings.metrics()
        redirect = get("SLACK_REDIRECT_URI")
        if redirect is not None:
            checked_url("SLACK_REDIRECT_URI", redirect, ("http", "https"), "https://liars.example/slack/oauth_redirect")
        return cls(
            bot_token=bot_token,
            signing_secret=signing_secret,
            client_id=client_id,
            client_secret=client_secret,
            redirect_uri=redirect,
            app_token=app_token,
            api_url=api_url,
            port=port,
            db_path=settings.database(db_path),
            computer_delay=delay,
            metrics_port=metrics_port,
            metrics_host=metrics_host,
        )

