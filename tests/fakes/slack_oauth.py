"""The fake Slack's many workspaces: installing an app by OAuth v2, each workspace's bot token, and
removing the app (``app_uninstalled``, ``tokens_revoked``).  :class:`FakeSlack` mixes this in.

* ``add_team(team_id)`` adds a workspace; ``add_channel(channel, team)`` and ``add_user(user, team=)``
  say whose a channel and a user are.
* ``GET /oauth/v2/authorize?client_id&scope&state[&redirect_uri]`` is Slack's "Add to Slack" page with
  the installer's approval already given (``approve_as(team, user)`` says who installs next): it
  answers 302 to the redirect URL (``redirect_uri``, else ``redirect_url``) with a one-time ``code``
  and the ``state``; a ``client_id`` other than the app's gives 400 ``invalid_client_id``.
* ``oauth.v2.access`` checks the client id and secret (HTTP Basic, as slack_sdk sends them, or form
  fields: ``invalid_client_id`` / ``bad_client_secret``), the code (``invalid_code`` when unknown or
  used) and a ``redirect_uri`` matching the authorize request's (``bad_redirect_uri``); it issues the
  workspace a bot token ``xoxb-<team>-<n>`` and answers what Slack answers for a bot install.
* A token this fake issued is the token of its workspace: ``auth.test`` answers for that workspace, and
  a call that names a channel or a user of another workspace gets ``channel_not_found`` /
  ``user_not_found``, as on Slack, so nothing of one workspace can be done with another's token.  Each
  recorded call notes the workspace its token belongs to (``ApiCall.team``).
* ``app_uninstalled(team)`` / ``tokens_revoked(team)`` revoke the workspace's tokens (later calls with
  them get ``token_revoked``) and return the Events API body Slack sends (post it signed).
"""

from __future__ import annotations

import base64
import itertools
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from aiohttp import web

__all__ = ["FakeTeam", "OAuthFake"]

DEFAULT_CLIENT_ID = "1111.2222"
DEFAULT_CLIENT_SECRET = "fake-client-secret"


@dataclass
class FakeTeam:
    id: str
    name: str
    bot_user_id: str
    bot_id: str
    enterprise_id: str | None = None


class OAuthFake:
    """Mixed into :class:`~tests.fakes.slack_server.FakeSlack` (see the module's docstring)."""

    team_id: str
    app_id: str
    bot_token: str | None
    client_id: str
    client_secret: str
    redirect_url: str | None

    def _init_oauth(self) -> None:
        self.client_id = DEFAULT_CLIENT_ID
        self.client_secret = DEFAULT_CLIENT_SECRET
        self.redirect_url = None  # the app's registered redirect URL (used when a link names none)
        self.teams: dict[str, FakeTeam] = {}
        self.channel_teams: dict[str, str] = {}
        self.user_teams: dict[str, str] = {}
        self.tokens: dict[str, str] = {}  # bot token -> team, as issued
        self.revoked: set[str] = set()
        self._approver: tuple[str, str] | None = None
        self._codes: dict[str, tuple[str, str, str | None]] = {}  # code -> (team, user, redirect_uri)
        self._token_counter = itertools.count(1)

    # ---------------------------------------------------------------- configuration

    def add_team(self, team_id: str, name: str | None = None, *, enterprise: str | None = None) -> FakeTeam:
        """A workspace (of the Enterprise Grid organisation ``enterprise``, if given)."""
        team = FakeTeam(team_id, name or f"Team {team_id}", bot_user_id=f"U0BOT{team_id}", bot_id=f"B0BOT{team_id}",
                        enterprise_id=enterprise)
        self.teams[team_id] = team
        return team

    def add_channel(self, channel_id: str, team_id: str) -> None:
        self.channel_teams[channel_id] = team_id

    def approve_as(self, team_id: str, user_id: str) -> None:
        """The next authorize request is approved by ``user_id`` installing into ``team_id``."""
        self._approver = (team_id, user_id)

    def tokens_of(self, team_id: str) -> set[str]:
        return {t for t, team in self.tokens.items() if team == team_id}

    # ---------------------------------------------------------------- events Slack sends when the app goes

    def _event_body(self, team_id: str, event: dict[str, Any]) -> dict[str, Any]:
        return {
            "token": "fake-verification-token", "team_id": team_id, "enterprise_id": self.teams[team_id].enterprise_id,
            "api_app_id": self.app_id, "type": "event_callback", "event_id": f"Ev{next(self._token_counter):08d}",
            "event_time": int(time.time()), "event": event, "is_enterprise_install": False,
            "authorizations": [{"team_id": team_id, "user_id": self.teams[team_id].bot_user_id, "is_bot": True}],
        }

    def app_uninstalled(self, team_id: str) -> dict[str, Any]:
        """Uninstall the app from ``team_id`` (its tokens stop working); the event body Slack sends."""
        self.revoked |= self.tokens_of(team_id)
        return self._event_body(team_id, {"type": "app_uninstalled", "event_ts": f"{time.time():.6f}"})

    def tokens_revoked(self, team_id: str) -> dict[str, Any]:
        """Revoke the workspace's bot token; the event body Slack sends."""
        self.revoked |= self.tokens_of(team_id)
        bot = self.teams[team_id].bot_user_id
        return self._event_body(team_id, {"type": "tokens_revoked", "tokens": {"oauth": [], "bot": [bot]},
                                          "event_ts": f"{time.time():.6f}"})

    # ---------------------------------------------------------------- the authorize page and oauth.v2.access

    async def _handle_authorize(self, request: web.Request) -> web.Response:
        query = request.query
        if query.get("client_id") != self.client_id:
            return web.Response(status=400, text="invalid_client_id")
        if "commands" not in str(query.get("scope", "")).split(","):
            return web.Response(status=400, text="invalid_scope")
        redirect = query.get("redirect_uri") or self.redirect_url
        if not redirect or self._approver is None:
            return web.Response(status=400, text="no redirect URL or nobody to approve")
        team, user = self._approver
        code = f"code-{team}-{next(self._token_counter)}"
        self._codes[code] = (team, user, query.get("redirect_uri"))
        target = f"{redirect}?{urlencode({'code': code, 'state': query.get('state', '')})}"
        raise web.HTTPFound(target)

    @staticmethod
    def _basic_auth(header: str, params: dict[str, Any]) -> None:
        """Client credentials from ``Authorization: Basic`` into the params, as Slack reads either."""
        if header.startswith("Basic "):
            client_id, _, secret = base64.b64decode(header[6:]).decode().partition(":")
            params.setdefault("client_id", client_id)
            params.setdefault("client_secret", secret)

    def _oauth_v2_access(self, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("client_id") != self.client_id:
            return {"ok": False, "error": "invalid_client_id"}
        if params.get("client_secret") != self.client_secret:
            return {"ok": False, "error": "bad_client_secret"}
        grant = self._codes.pop(str(params.get("code") or ""), None)
        if grant is None:
            return {"ok": False, "error": "invalid_code"}
        team_id, user_id, redirect = grant
        if redirect is not None and params.get("redirect_uri") != redirect:
            return {"ok": False, "error": "bad_redirect_uri"}
        team = self.teams[team_id]
        token = f"xoxb-{team_id}-{next(self._token_counter)}"
        self.tokens[token] = team_id
        return {
            "ok": True, "app_id": self.app_id, "access_token": token, "token_type": "bot",
            "scope": "commands,chat:write,chat:write.public,files:write,im:write,users:read",
            "bot_user_id": team.bot_user_id, "team": {"id": team.id, "name": team.name}, "enterprise": None,
            "is_enterprise_install": False, "authed_user": {"id": user_id},
        }

    # ---------------------------------------------------------------- whose token is this

    def team_of_token(self, token: str | None) -> str | None:
        return self.tokens.get(token or "")

    def _oauth_token_error(self, method: str, token: str | None) -> str | None:
        """``token_revoked`` for a revoked token, ``invalid_auth`` for one never issued (once any was)."""
        if method == "oauth.v2.access":
            return None
        if token in self.revoked:
            return "token_revoked"
        if self.tokens and token not in self.tokens and token != self.bot_token and not str(token).startswith("xapp-"):
            return "invalid_auth"
        return None

    def _crossing_error(self, token: str | None, params: dict[str, Any]) -> str | None:
        """A channel or a user of another workspace than the token's: Slack knows no such thing there."""
        team = self.team_of_token(token)
        if team is None:
            return None
        channel = str(params.get("channel") or params.get("channel_id") or params.get("channels") or "")
        if channel.startswith("D"):  # a DM channel is the user's
            channel, user = "", channel[1:]
        else:
            user = str(params.get("user") or params.get("users") or "")
        if channel and self.channel_teams.get(channel, team) != team:
            return "channel_not_found"
        if user and self.user_teams.get(user, team) != team:
            return "user_not_found"
        return None

    def _auth_test_for(self, token: str | None) -> dict[str, Any] | None:
        team = self.teams.get(self.team_of_token(token) or "")
        if team is None:
            return None
        return {"ok": True, "url": f"https://{team.id.lower()}.slack.com/", "team": team.name, "user": "liars",
                "team_id": team.id, "user_id": team.bot_user_id, "bot_id": team.bot_id,
                "is_enterprise_install": False}
