"""A fake Slack for end-to-end tests. Binds to 127.0.0.1 only and never talks to real Slack.

One aiohttp server (random free port) provides:

* the Web API under ``/api/<method>`` (``FakeSlack.api_base`` ends with ``/`` because
  ``AsyncWebClient`` joins method names with ``urllib.parse.urljoin``);
* ``response_url`` endpoints under ``POST /response/<token>``;
* a Socket Mode websocket under ``/socket`` (the URL ``apps.connections.open`` returns).

It also has helpers that act as Slack towards the app: signing HTTP requests, building
slash-command, ``block_actions``, ``view_submission`` and ``app_home_opened`` payloads, and
pushing or redelivering Socket Mode envelopes.

The Web API methods are the ones the bot (``adapters/slack``, through slack_sdk) calls; see
``FakeSlack._handlers``. Any other method is answered ``unknown_method`` (below), so a test
fails when the bot starts calling something new; add the method then.

Realism notes (how the fake copies Slack):

* Web API errors are HTTP 200 with ``{"ok": false, "error": ...}``, so slack_sdk raises
  ``SlackApiError``. An injected ``ratelimited`` error uses HTTP 429 with ``Retry-After``.
* Tokens come from ``Authorization: Bearer`` or a ``token`` parameter. A missing token gives
  ``not_authed``. An ``xapp-`` token on a bot method, or a non-``xapp-`` token on
  ``apps.connections.open``, gives ``not_allowed_token_type``.
* The DM channel for user ``U123`` is always ``DU123``. ``chat.postMessage`` with
  ``channel=U123`` posts into that DM, as real Slack does.
* DM failures (``fail_dm``): stage ``"open"`` makes ``conversations.open`` for that user fail
  (default error ``cannot_dm_bot``; ``user_not_found`` and ``user_disabled`` are also real
  errors). Posting straight to the user id fails the same way. Stage ``"post"`` lets
  ``conversations.open`` succeed but makes ``chat.postMessage`` to the DM fail (default error
  ``messages_tab_disabled``, which real Slack returns when the user turned off the app's
  Messages tab).
* ``views.open`` (and ``views.push``, not used) check the ``trigger_id``: one this fake did not issue gives
  ``invalid_trigger_id``, and one older than ``trigger_ttl`` (3 s, as on Slack) gives
  ``expired_trigger_id``. Builders on the ``FakeSlack`` instance issue fresh trigger ids.
* ``users.info`` makes up a plain member for any unknown user id. Use ``add_user`` to set
  ``is_admin``. (On Slack owners and primary owners are admins too.)
* ``views.update`` with a ``hash`` older than the stored view's gives ``hash_conflict``. It keeps what the
  user chose in an input block whose ``block_id`` and ``action_id`` the new view keeps (``view.state``),
  as Slack does; ``view_action`` records the choice it sends there.
* A ``view_submission``'s acknowledgement is what Slack does with the modal: ``answer_submission`` takes
  its body. Empty: the modal closes (it leaves ``views()``; ``views.update`` on it gives ``not_found``).
  ``{"response_action": "errors", "errors": {block_id: text}}``: the modal stays open with each text
  under its input block (``view_errors``); a block id that is no input block of the view makes Slack
  refuse the response (the user sees a generic error), recorded as ``"invalid"``.
* Unknown methods are recorded and answered with ``{"ok": false, "error": "unknown_method"}``.
* ``response_url`` posts are accepted for any token and answered ``200 ok``. A missing
  ``response_type`` is recorded as ``"ephemeral"``, which is Slack's default.
* Block Kit's limits (``block_error``): more than 50 blocks or a section's text over 3,000 characters is
  ``invalid_blocks``, a text over 40,000 ``msg_too_long`` — on ``chat.postMessage``, ``chat.update``,
  ``chat.postEphemeral`` and a ``response_url`` (HTTP 400 there).
* File uploads (the external-upload flow, what ``files_upload_v2`` does): ``files.getUploadURLExternal``
  (``filename`` and ``length`` required) returns an ``upload_url`` on this server (``POST
  /upload/<file_id>`` takes the raw bytes; a length that differs from the announced one gives 400), and
  ``files.completeUploadExternal`` shares uploaded files (``file_not_found`` for one never uploaded)
  with ``channel_id``. ``shared_files()`` lists what was shared, with its bytes.
* ``app_home_opened(user_id)`` builds the Events API body Slack posts when a user opens the Home tab;
  ``view_action`` the ``block_actions`` a choice in a modal's ``dispatch_action`` select sends.
* Rate-limit mode (``rate_limit``): like Slack's "about one message per second per channel",
  ``chat.postMessage``/``chat.update`` to a channel faster than one per ``interval`` seconds get
  HTTP 429, ``{"ok": false, "error": "ratelimited"}`` and ``Retry-After`` (whole seconds, rounded up).
* Every recorded call and ``response_url`` post notes the client's address and port (``peer``): a
  client that keeps its connections alive shows few ports. ``observers`` are called with each
  finished call (``ApiCall``) and each ``response_url`` post (``ResponseUrlPost``), for benchmarks.
* Many workspaces, installing by OAuth v2 and removing the app: see :mod:`tests.fakes.slack_oauth`.
* Socket Mode: the socket answers pings with pongs carrying the same data. Slack also sends
  ``{"type": "disconnect", "reason": "refresh_requested"}`` every few hours; slack_sdk then calls
  ``apps.connections.open`` again and reconnects (not modelled here: the bot leaves it to slack_sdk).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal, NamedTuple, TypeVar
from urllib.parse import urlencode

import aiohttp
from aiohttp import WSMsgType, web
from slack_sdk.signature import SignatureVerifier

from .slack_oauth import OAuthFake

# How long a wait_for* waits by default: a bound on liveness, not a timing assertion (a wait returns as
# soon as what it waits for happens), so generous: a starved machine must not fail a passing test.
WAIT = 30.0
RESPONSE_URL_USES = 5  # a response_url takes answers "up to 5 times within 30 minutes" (Slack)
MOST_BLOCKS = 50  # Block Kit: "up to 50 blocks in each message"
MOST_SECTION_TEXT = 3000  # a section block's text
MOST_TEXT = 40_000  # a message's text ("truncated" past it by Slack; refused here, so that a test sees it)


def block_error(params: Mapping[str, Any]) -> str | None:
    """Slack's error for a message whose blocks or text break its limits (None: within them)."""
    blocks: Any = params.get("blocks")
    if isinstance(blocks, str):
        try:
            blocks = json.loads(blocks)
        except json.JSONDecodeError:
            return "invalid_blocks_format"
    text = params.get("text")
    if isinstance(text, str) and len(text) > MOST_TEXT:
        return "msg_too_long"
    if isinstance(blocks, list):
        if len(blocks) > MOST_BLOCKS:
            return "invalid_blocks"
        for block in blocks:
            inner = block.get("text") if isinstance(block, dict) and block.get("type") == "section" else None
            if isinstance(inner, dict) and len(str(inner.get("text", ""))) > MOST_SECTION_TEXT:
                return "invalid_blocks"
    return None

T = TypeVar("T")

# proxy variables slack_sdk honours (it ignores NO_PROXY): the suite clears them (tests/conftest.py)
PROXY_VARS = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")

FORM_CONTENT_TYPE = "application/x-www-form-urlencoded"
DEFAULT_TEAM_ID = "T0FAKE"
DEFAULT_TEAM_DOMAIN = "fake-team"
DEFAULT_APP_ID = "A0FAKEAPP"
DEFAULT_USER_ID = "U0PLAYER1"
DEFAULT_CHANNEL_ID = "C0GAME"
VERIFICATION_TOKEN = "fake-verification-token"  # the deprecated token Slack still puts in payloads

RequestVariant = Literal["valid", "unsigned", "wrong_signature", "stale", "tampered"]
DmFailureStage = Literal["open", "post"]


class WaitTimeout(AssertionError):
    """Raised by ``FakeSlack.wait_for`` when the predicate never turned truthy."""


# --------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------


@dataclass
class ApiCall:
    """One Web API request received by the fake."""

    method: str
    params: dict[str, Any]
    token: str | None
    http_method: str
    body_format: str  # "json" | "form" | "multipart" | "query"
    timestamp: float
    response: dict[str, Any] | None = None  # None while the call is held or delayed
    status: int | None = None
    peer: tuple[str, int] | None = None  # the client's address and port
    team: str | None = None  # the workspace whose bot token the call carried (tokens issued by oauth.v2.access)

    @property
    def ok(self) -> bool:
        return bool(self.response and self.response.get("ok"))


@dataclass(frozen=True)
class ResponseUrlPost:
    """One POST to a ``response_url`` (what bolt's ``respond()`` sends)."""

    token: str
    url: str
    body: dict[str, Any]
    timestamp: float
    channel_id: str | None = None  # channel the url was minted for (FakeSlack builders), if known
    peer: tuple[str, int] | None = None  # the client's address and port

    @property
    def response_type(self) -> str:
        return str(self.body.get("response_type") or "ephemeral")

    @property
    def replace_original(self) -> bool:
        return bool(self.body.get("replace_original", False))

    @property
    def delete_original(self) -> bool:
        return bool(self.body.get("delete_original", False))

    @property
    def text(self) -> str | None:
        text = self.body.get("text")
        return None if text is None else str(text)


@dataclass(frozen=True)
class Envelope:
    """A Socket Mode envelope the fake pushed to a client."""

    envelope_id: str
    type: str
    payload: dict[str, Any]
    accepts_response_payload: bool
    retry_attempt: int | None
    retry_reason: str | None
    connection_id: int
    timestamp: float

    def to_message(self) -> dict[str, Any]:
        msg: dict[str, Any] = {
            "envelope_id": self.envelope_id,
            "type": self.type,
            "payload": self.payload,
            "accepts_response_payload": self.accepts_response_payload,
        }
        if self.retry_attempt is not None:
            msg["retry_attempt"] = self.retry_attempt
        if self.retry_reason is not None:
            msg["retry_reason"] = self.retry_reason
        return msg


@dataclass(frozen=True)
class SocketAck:
    """An envelope acknowledgement sent by the client: ``{"envelope_id", "payload"?}``."""

    envelope_id: str
    payload: dict[str, Any] | None
    raw: dict[str, Any]
    connection_id: int
    timestamp: float


@dataclass
class SocketConnection:
    id: int
    ws: web.WebSocketResponse
    path_qs: str
    connected_at: float
    closed_at: float | None = None

    @property
    def open(self) -> bool:
        return self.closed_at is None and not self.ws.closed


@dataclass
class SharedFile:
    """A file uploaded by the external-upload flow and shared by ``files.completeUploadExternal``."""

    id: str
    filename: str
    title: str
    data: bytes
    channel: str | None
    alt_txt: str
    timestamp: float  # when it was shared (the completeUploadExternal call)


@dataclass
class FakeUser:
    id: str
    name: str
    team_id: str
    is_admin: bool = False

    def to_dict(self) -> dict[str, Any]:
        """As ``users.info`` has it. (Owners are admins too; the bot checks all three flags.)"""
        return {
            "id": self.id,
            "team_id": self.team_id,
            "name": self.name,
            "deleted": False,
            "real_name": self.name,
            "tz": "Europe/London",
            "tz_offset": 0,
            "is_admin": self.is_admin,
            "is_owner": False,
            "is_primary_owner": False,
            "is_restricted": False,
            "is_ultra_restricted": False,
            "is_bot": False,
            "is_app_user": False,
            "profile": {"real_name": self.name, "display_name": self.name, "team": self.team_id},
        }


@dataclass
class _Failure:
    error: str
    status: int
    remaining: int | None
    headers: dict[str, str] = field(default_factory=dict)
    plain: str | None = None  # answered as this text/plain body instead of Slack's JSON (a proxy's error page)
    drop: bool = False  # no answer at all: the connection is closed (aiohttp's ServerDisconnectedError)


# --------------------------------------------------------------------------------------
# Request helpers (acting as Slack towards the app's HTTP endpoint)
# --------------------------------------------------------------------------------------


class AppResponse(NamedTuple):
    status: int
    body: str
    elapsed: float  # seconds from sending the request to reading the whole response


def sign(body: bytes | str, secret: str, timestamp: int | str) -> str:
    """Returns the ``X-Slack-Signature`` value (``v0=<hex>``) for body and timestamp."""
    signature = SignatureVerifier(secret).generate_signature(timestamp=str(timestamp), body=body)
    assert signature is not None
    return signature


def form_encode(fields: Mapping[str, Any]) -> bytes:
    """Form-encodes ``fields`` the way Slack sends slash commands (None values are dropped)."""
    return urlencode({k: v for k, v in fields.items() if v is not None}).encode()


def interactive_body(payload: Mapping[str, Any]) -> bytes:
    """Form body ``payload=<json>`` as Slack sends interactivity requests over HTTP."""
    return urlencode({"payload": json.dumps(payload)}).encode()


def signed_headers(
    body: bytes,
    secret: str,
    *,
    timestamp: int | None = None,
    retry_num: int | None = None,
    retry_reason: str = "http_timeout",
    content_type: str = FORM_CONTENT_TYPE,
) -> dict[str, str]:
    """Headers of a correctly signed Slack request, plus retry headers if ``retry_num`` is set."""
    ts = int(time.time()) if timestamp is None else timestamp
    headers = {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": str(ts),
        "X-Slack-Signature": sign(body, secret, ts),
        "User-Agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
    }
    if retry_num is not None:
        headers["X-Slack-Retry-Num"] = str(retry_num)
        headers["X-Slack-Retry-Reason"] = retry_reason
    return headers


def build_signed_request(
    body: bytes,
    secret: str,
    *,
    variant: RequestVariant = "valid",
    retry_num: int | None = None,
    retry_reason: str = "http_timeout",
    content_type: str = FORM_CONTENT_TYPE,
) -> tuple[bytes, dict[str, str]]:
    """Returns ``(body, headers)`` for a request that is valid or broken in one way.

    * ``valid``: correct signature and a current timestamp.
    * ``unsigned``: no ``X-Slack-Signature`` / ``X-Slack-Request-Timestamp`` headers.
    * ``wrong_signature``: signed with a different secret.
    * ``stale``: correctly signed, but the timestamp is 10 minutes old (bolt allows 5).
    * ``tampered``: signature computed for the original body, but one more field is appended to it.
    """
    if variant not in ("valid", "unsigned", "wrong_signature", "stale", "tampered"):
        raise ValueError(f"unknown variant {variant!r}")
    now = int(time.time())
    headers = signed_headers(
        body,
        secret + "-wrong" if variant == "wrong_signature" else secret,
        timestamp=now - 600 if variant == "stale" else now,
        retry_num=retry_num,
        retry_reason=retry_reason,
        content_type=content_type,
    )
    if variant == "unsigned":
        del headers["X-Slack-Signature"]
        del headers["X-Slack-Request-Timestamp"]
    if variant == "tampered":
        body += b"&tampered=1"
    return body, headers


async def post_to_app(
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    *,
    timeout: float = 10.0,  # noqa: ASYNC109 - per-request HTTP timeout, not a cancel scope
) -> AppResponse:
    """POSTs ``body`` to the app. Returns ``(status, text body, elapsed seconds)``.

    ``trust_env`` is off, so proxy environment variables never redirect loopback traffic.
    """
    assert url.startswith(("http://127.0.0.1", "http://localhost")), "post_to_app is loopback-only"
    started = time.perf_counter()
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as session:
        async with session.post(url, data=body, headers=dict(headers)) as resp:
            text = await resp.text()
            return AppResponse(resp.status, text, time.perf_counter() - started)


def new_trigger_id() -> str:
    """Looks like a real trigger id: ``<digits>.<digits>.<hex>``."""
    return f"{int(time.time() * 1000)}.{uuid.uuid4().int % 10**12}.{uuid.uuid4().hex[:32]}"


def _peer(request: web.Request) -> tuple[str, int] | None:
    peer = request.transport.get_extra_info("peername") if request.transport is not None else None
    return (str(peer[0]), int(peer[1])) if isinstance(peer, tuple) and len(peer) >= 2 else None


# --------------------------------------------------------------------------------------
# The fake server
# --------------------------------------------------------------------------------------


class FakeSlack(OAuthFake):
    """Fake Slack Web API + response_url + Socket Mode server on 127.0.0.1.

    Use ``async with FakeSlack() as fake:`` or ``await fake.start()`` / ``await fake.stop()``.
    Stop any Socket Mode client first (``await handler.close_async()``). Otherwise the
    client sees the socket close, reconnects, and logs errors while the fake shuts down.
    """

    def __init__(self, *, bot_token: str | None = None, app_token: str | None = None) -> None:
        self.team_id = DEFAULT_TEAM_ID
        self.hold_socket = False  # True: the Socket Mode websocket refuses every connection (Slack is down)
        self.team_name = "Fake Team"
        self.team_domain = DEFAULT_TEAM_DOMAIN
        self.bot_user_id = "U0BOT"
        self.bot_id = "B0BOT"
        self.bot_name = "liars"
        self.app_id = DEFAULT_APP_ID
        self.bot_token = bot_token  # if set, bot methods require exactly this token
        self.app_token = app_token  # if set, apps.connections.open requires exactly this token
        self.trigger_ttl = 3.0  # seconds a trigger_id stays usable, as on Slack
        self._init_oauth()

        self._runner: web.AppRunner | None = None
        self._port: int | None = None

        self._calls: list[ApiCall] = []
        self._response_posts: list[ResponseUrlPost] = []
        self._envelopes: list[Envelope] = []
        self._acks: list[SocketAck] = []
        self._connections: list[SocketConnection] = []

        self._users: dict[str, FakeUser] = {}
        self._dm_failures: dict[str, tuple[DmFailureStage, str]] = {}
        self._failures: dict[str, _Failure] = {}
        self._holds: dict[str, asyncio.Event] = {}
        self._opened_dms: set[str] = set()
        self._messages: dict[tuple[str, str], dict[str, Any]] = {}
        self._views: dict[str, dict[str, Any]] = {}
        self._view_errors: dict[str, dict[str, str]] = {}  # view id -> the errors its modal shows now
        self._triggers: dict[str, float] = {}
        self._response_url_channels: dict[str, str | None] = {}
        self._rate_interval: float | None = None
        self._rate_methods: frozenset[str] = frozenset()
        self._rate_last: dict[str, float] = {}  # channel -> when its last write was allowed
        self._pending_files: dict[str, dict[str, Any]] = {}  # file id -> announced name, length, bytes
        self._shared_files: list[SharedFile] = []
        self.observers: list[Callable[[ApiCall | ResponseUrlPost], None]] = []

        self._ts_counter = itertools.count(1)
        self._ts_base_us = int(time.time()) * 1_000_000
        self._id_counter = itertools.count(1)
        self._conn_counter = itertools.count(1)

        self._handlers: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "auth.test": self._auth_test,
            "chat.postMessage": self._chat_post_message,
            "chat.update": self._chat_update,
            "chat.postEphemeral": self._chat_post_ephemeral,
            "chat.delete": self._chat_delete,
            "conversations.open": self._conversations_open,
            "views.open": self._views_open,
            "views.update": self._views_update,
            "views.publish": self._views_publish,
            "users.info": self._users_info,
            "files.getUploadURLExternal": self._files_get_upload_url,
            "files.completeUploadExternal": self._files_complete_upload,
            "apps.connections.open": self._apps_connections_open,
            "oauth.v2.access": self._oauth_v2_access,
        }

    # ---------------------------------------------------------------- lifecycle

    async def start(self) -> FakeSlack:
        app = web.Application()
        app.router.add_route("*", "/api/{method}", self._handle_api)
        app.router.add_post("/response/{token}", self._handle_response_url)
        app.router.add_post("/upload/{file_id}", self._handle_upload)
        app.router.add_get("/socket", self._handle_socket)
        app.router.add_get("/oauth/v2/authorize", self._handle_authorize)
        self._runner = web.AppRunner(app, shutdown_timeout=1.0, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self._port = int(self._runner.addresses[0][1])
        return self

    async def stop(self) -> None:
        for conn in self._connections:
            if not conn.ws.closed:
                await conn.ws.close(code=1001, message=b"fake slack stopping")
        for event in self._holds.values():
            event.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeSlack:
        return await self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    # ---------------------------------------------------------------- addresses

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("FakeSlack not started")
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        """``http://127.0.0.1:PORT/api/``; pass as ``AsyncWebClient(base_url=...)``."""
        return f"{self.base_url}/api/"

    @property
    def socket_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/socket"

    # ---------------------------------------------------------------- configuration

    def add_user(self, user_id: str, *, name: str | None = None, is_admin: bool = False,
                 team: str | None = None) -> FakeUser:
        user = FakeUser(id=user_id, name=name or user_id.lower(), team_id=team or self.team_id, is_admin=is_admin)
        self._users[user_id] = user
        if team is not None:
            self.user_teams[user_id] = team
        return user

    def fail_dm(self, user_id: str, *, stage: DmFailureStage = "open", error: str | None = None) -> None:
        """Makes DMs to ``user_id`` fail (see the module docstring for the stages and errors)."""
        default = "cannot_dm_bot" if stage == "open" else "messages_tab_disabled"
        self._dm_failures[user_id] = (stage, error or default)

    def fail_method(
        self,
        method: str,
        error: str,
        *,
        times: int | None = None,
        status: int | None = None,
        retry_after: int = 1,
        plain: str | None = None,
        drop: bool = False,
    ) -> None:
        """The next ``times`` calls to ``method`` (all of them if None) fail with ``error``.
        ``ratelimited`` defaults to HTTP 429 + ``Retry-After``; other errors to 200.  ``plain``: the
        answer is that text/plain body (what a proxy in front of Slack sends), not Slack's JSON.  ``drop``: no
        answer at all, the connection closed."""
        headers: dict[str, str] = {}
        if error == "ratelimited":
            headers["Retry-After"] = str(retry_after)
        self._failures[method] = _Failure(
            error=error,
            status=status if status is not None else (429 if error == "ratelimited" else 200),
            remaining=times,
            headers=headers,
            plain=plain,
            drop=drop,
        )

    def rate_limit(
        self, interval: float | None = 1.0, methods: tuple[str, ...] = ("chat.postMessage", "chat.update")
    ) -> None:
        """Rate-limit mode: at most one of ``methods`` per channel per ``interval`` seconds; faster calls
        get 429 + ``Retry-After``. ``None`` turns it off."""
        self._rate_interval = interval
        self._rate_methods = frozenset(methods)
        self._rate_last.clear()

    def rate_limited_calls(self) -> list[ApiCall]:
        return [c for c in self._calls if c.status == 429]

    def _rate_check(self, method: str, params: dict[str, Any]) -> float | None:
        """Seconds to wait if this call is over the channel's rate, else None (and the call counts)."""
        if self._rate_interval is None or method not in self._rate_methods:
            return None
        channel = str(params.get("channel") or "")
        now = time.monotonic()
        last = self._rate_last.get(channel)
        if last is not None and now - last < self._rate_interval:
            return self._rate_interval - (now - last)
        self._rate_last[channel] = now
        return None

    def clear_failures(self) -> None:
        self._failures.clear()

    def hold(self, method: str) -> asyncio.Event:
        """Stalls responses for ``method`` (a Web API method, or ``"response_url"``) until
        ``release(method)`` (or the returned event is set).  Calls are recorded on arrival, with
        ``response=None`` until they are released."""
        event = asyncio.Event()
        self._holds[method] = event
        return event

    def release(self, method: str) -> None:
        event = self._holds.pop(method, None)
        if event is not None:
            event.set()

    # ---------------------------------------------------------------- minting

    def new_response_url(self, channel_id: str | None = None) -> str:
        token = f"T{next(self._id_counter)}x{uuid.uuid4().hex[:16]}"
        self._response_url_channels[token] = channel_id
        return f"{self.base_url}/response/{token}"

    def new_trigger_id(self) -> str:
        trigger = new_trigger_id()
        self._triggers[trigger] = time.monotonic()
        return trigger

    @staticmethod
    def dm_channel_for(user_id: str) -> str:
        return f"D{user_id}"

    def next_ts(self) -> str:
        value = self._ts_base_us + next(self._ts_counter)
        return f"{value // 1_000_000}.{value % 1_000_000:06d}"

    # ---------------------------------------------------------------- payload builders (fresh urls/triggers)

    def slash_command(
        self,
        text: str,
        *,
        user_id: str = DEFAULT_USER_ID,
        user_name: str = "player1",
        channel_id: str = DEFAULT_CHANNEL_ID,
        channel_name: str = "liars-poker",
        command: str = "/liars",
        team_id: str | None = None,
        enterprise_id: str | None = None,
    ) -> dict[str, str]:
        """Slash command fields, as sent form-encoded over HTTP or as the Socket Mode payload dict,
        with a fresh response_url and trigger_id."""
        fields = {"token": VERIFICATION_TOKEN, "team_id": team_id or self.team_id, "team_domain": self.team_domain}
        if enterprise_id is not None:
            fields.update(enterprise_id=enterprise_id, enterprise_name="Fake Enterprise")
        fields.update(
            channel_id=channel_id,
            channel_name=channel_name,
            user_id=user_id,
            user_name=user_name,
            command=command,
            text=text,
            api_app_id=self.app_id,
            is_enterprise_install="false",
            response_url=self.new_response_url(channel_id),
            trigger_id=self.new_trigger_id(),
        )
        return fields

    def _interactive(self, kind: str, user_id: str, user_name: str) -> dict[str, Any]:
        """The fields every interactivity payload has (a fresh trigger_id included)."""
        return {
            "type": kind,
            "user": {"id": user_id, "username": user_name, "name": user_name, "team_id": self.team_id},
            "api_app_id": self.app_id,
            "token": VERIFICATION_TOKEN,
            "trigger_id": self.new_trigger_id(),
            "team": {"id": self.team_id, "domain": self.team_domain},
            "enterprise": None,
            "is_enterprise_install": False,
        }

    def block_actions(
        self,
        action_id: str,
        value: str,
        *,
        message_ts: str,
        user_id: str = DEFAULT_USER_ID,
        user_name: str = "player1",
        channel_id: str = DEFAULT_CHANNEL_ID,
        button_text: str = "Click",
    ) -> dict[str, Any]:
        """A ``block_actions`` payload for a button click on a message, with a fresh response_url."""
        return {
            **self._interactive("block_actions", user_id, user_name),
            "container": {"type": "message", "message_ts": message_ts, "channel_id": channel_id, "is_ephemeral": False},
            "channel": {"id": channel_id, "name": "liars-poker"},
            "message": {"type": "message", "user": self.bot_user_id, "ts": message_ts, "text": "", "blocks": []},
            "state": {"values": {}},
            "response_url": self.new_response_url(channel_id),
            "actions": [
                {
                    "action_id": action_id,
                    "block_id": "actions",
                    "text": {"type": "plain_text", "text": button_text, "emoji": True},
                    "value": value,
                    "type": "button",
                    "action_ts": f"{time.time():.6f}",
                }
            ],
        }

    def view_submission(
        self,
        callback_id: str,
        values: Mapping[str, Mapping[str, Mapping[str, Any]]],
        *,
        private_metadata: str = "",
        user_id: str = DEFAULT_USER_ID,
        user_name: str = "player1",
        view_id: str | None = None,
    ) -> dict[str, Any]:
        """A ``view_submission`` payload. ``values`` is ``view.state.values``:
        ``{block_id: {action_id: {"type": "plain_text_input", "value": "3"}}}``. With ``view_id`` (a
        modal this fake stores), the view is that modal as shown (its id, hash, blocks and buttons)."""
        stored = self._views.get(view_id) if view_id is not None else None
        view_id = view_id or "V0FAKEVIEW"
        payload = {
            **self._interactive("view_submission", user_id, user_name),
            "view": {
                "id": view_id,
                "team_id": self.team_id,
                "type": "modal",
                "blocks": [],
                "private_metadata": private_metadata,
                "callback_id": callback_id,
                "state": {"values": {k: dict(v) for k, v in values.items()}},
                "hash": f"{int(time.time())}.fakehash",
                "title": {"type": "plain_text", "text": "Liar's Poker", "emoji": True},
                "clear_on_close": False,
                "notify_on_close": False,
                "close": None,
                "submit": {"type": "plain_text", "text": "Submit", "emoji": True},
                "previous_view_id": None,
                "root_view_id": view_id,
                "app_id": self.app_id,
                "external_id": "",
                "app_installed_team_id": self.team_id,
                "bot_id": self.bot_id,
            },
            "response_urls": [],
        }
        if stored is not None:
            payload["view"].update({k: stored.get(k) for k in ("blocks", "hash", "title", "submit", "close")})
        return payload

    def view_action(
        self, view_id: str, action_id: str, value: str | list[str], *, user_id: str, user_name: str = "player1"
    ) -> dict[str, Any]:
        """The ``block_actions`` a choice in a stored modal's ``dispatch_action`` input sends (with the view
        as it is now): ``value`` for a select, the values marked now for checkboxes."""
        view = self._views[view_id]
        block = next(b for b in view.get("blocks", []) if (b.get("element") or {}).get("action_id") == action_id)
        element = block["element"]
        if isinstance(value, list):
            options = [o for o in element["options"] if o["value"] in value]
            state: dict[str, Any] = {"type": element["type"], "selected_options": options}
        else:
            state = {"type": element["type"],
                     "selected_option": next(o for o in element["options"] if o["value"] == value)}
        view["state"]["values"][block["block_id"]] = {action_id: state}  # what the modal holds now
        return {
            **self._interactive("block_actions", user_id, user_name),
            "container": {"type": "view", "view_id": view_id},
            "view": json.loads(json.dumps(view)),
            "actions": [{**state, "action_id": action_id, "block_id": block["block_id"],
                         "action_ts": f"{time.time():.6f}"}],
        }

    def answer_submission(self, view_id: str, body: str | Mapping[str, Any] | None) -> str:
        """Do with the modal ``view_id`` what Slack does with this acknowledgement of its submission (the
        HTTP response's body, or the Socket Mode ack's payload): ``"closed"``, ``"errors"`` or
        ``"invalid"``."""
        answer = json.loads(body) if isinstance(body, str) and body.strip() else body or {}
        view = self._views.get(view_id)
        if not isinstance(answer, Mapping) or view is None:
            return "invalid"
        if answer.get("response_action") == "errors":
            errors = answer.get("errors")
            inputs = {b.get("block_id") for b in view.get("blocks", []) if b.get("type") == "input"}
            if not isinstance(errors, Mapping) or not errors or not set(errors) <= inputs:
                return "invalid"
            self._view_errors[view_id] = {str(k): str(v) for k, v in errors.items()}
            return "errors"
        if answer.get("response_action") is None:  # a bare ack ("update", "push", "clear" are not used)
            self._views.pop(view_id, None)
            self._view_errors.pop(view_id, None)
            return "closed"
        return "invalid"

    def view_errors(self, view_id: str) -> dict[str, str]:
        """The errors a modal shows now (after ``answer_submission``); empty when it shows none."""
        return dict(self._view_errors.get(view_id, {}))

    def app_home_opened(self, user_id: str, *, tab: str = "home") -> dict[str, Any]:
        """The Events API body for ``app_home_opened`` (post it as JSON, signed)."""
        return {
            "token": VERIFICATION_TOKEN,
            "team_id": self.team_id,
            "enterprise_id": None,
            "api_app_id": self.app_id,
            "type": "event_callback",
            "event_id": self._new_id("Ev"),
            "event_time": int(time.time()),
            "event": {
                "type": "app_home_opened",
                "user": user_id,
                "channel": self.dm_channel_for(user_id),
                "tab": tab,
                "event_ts": f"{time.time():.6f}",
            },
            "authorizations": [{"team_id": self.team_id, "user_id": self.bot_user_id, "is_bot": True}],
        }

    # ---------------------------------------------------------------- queries

    def calls(self, method: str | None = None) -> list[ApiCall]:
        """All recorded Web API calls (failed ones and ones still held), optionally for one method."""
        return [c for c in self._calls if method is None or c.method == method]

    def messages_to(self, channel: str) -> list[ApiCall]:
        """Successful ``chat.postMessage`` calls whose resolved channel is ``channel``.
        A ``channel=U123`` post resolves to ``DU123``."""
        return [
            c
            for c in self._calls
            if c.method == "chat.postMessage" and c.ok and c.response is not None and c.response["channel"] == channel
        ]

    def dms_to(self, user_id: str) -> list[ApiCall]:
        """Successful ``chat.postMessage`` calls into the user's DM (posted to ``D<user>`` or to ``<user>``)."""
        return self.messages_to(self.dm_channel_for(user_id))

    def ephemerals_to(self, user_id: str) -> list[ApiCall]:
        """Successful ``chat.postEphemeral`` calls for ``user_id`` (response_url posts are separate)."""
        return [c for c in self._calls if c.method == "chat.postEphemeral" and c.ok and c.params.get("user") == user_id]

    def response_url_posts(self, url: str | None = None) -> list[ResponseUrlPost]:
        return [p for p in self._response_posts if url is None or p.url == url]

    def envelopes(self) -> list[Envelope]:
        return list(self._envelopes)

    def acks(self, envelope_id: str | None = None) -> list[SocketAck]:
        return [a for a in self._acks if envelope_id is None or a.envelope_id == envelope_id]

    @property
    def connections(self) -> list[SocketConnection]:
        return list(self._connections)

    def open_connections(self) -> list[SocketConnection]:
        return [c for c in self._connections if c.open]

    def message(self, channel: str, ts: str) -> dict[str, Any] | None:
        """Current state of a stored message (after any ``chat.update``); None if missing or deleted."""
        return self._messages.get((channel, ts))

    def views(self) -> dict[str, dict[str, Any]]:
        return dict(self._views)

    def shared_files(self, channel: str | None = None) -> list[SharedFile]:
        """Files shared by ``files.completeUploadExternal`` (optionally into one channel), oldest first."""
        return [f for f in self._shared_files if channel is None or f.channel == channel]

    async def wait_for(
        self,
        predicate: Callable[[], T | None],
        timeout: float = WAIT,  # noqa: ASYNC109 - deadline for polling, part of the public API
        *,
        interval: float = 0.01,
        description: str = "",
    ) -> T:
        """Polls ``predicate`` until it returns something truthy, then returns that value.
        Raises ``WaitTimeout`` (an ``AssertionError``) with a summary of recorded calls."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() >= deadline:
                summary = ", ".join(
                    f"{c.method}({'ok' if c.ok else (c.response or {}).get('error', 'pending')})" for c in self._calls
                )
                raise WaitTimeout(
                    f"timed out after {timeout}s waiting for {description or predicate!r}; "
                    f"api calls: [{summary}]; acks: {[a.envelope_id for a in self._acks]}"
                )
            await asyncio.sleep(interval)

    async def wait_for_socket(self, count: int = 1, timeout: float = WAIT) -> SocketConnection:  # noqa: ASYNC109
        """Waits until ``count`` connections have been made in total and one is open; returns the newest open one."""

        def ready() -> SocketConnection | None:
            open_conns = self.open_connections()
            if len(self._connections) >= count and open_conns:
                return open_conns[-1]
            return None

        return await self.wait_for(ready, timeout, description=f"socket connection #{count}")

    async def wait_for_ack(self, envelope_id: str, timeout: float = WAIT) -> SocketAck:  # noqa: ASYNC109
        acks = await self.wait_for(lambda: self.acks(envelope_id), timeout, description=f"ack of {envelope_id}")
        return acks[0]

    # ---------------------------------------------------------------- Socket Mode pushing

    async def push_envelope(
        self,
        type: str,
        payload: dict[str, Any],
        *,
        envelope_id: str | None = None,
        accepts_response_payload: bool | None = None,
        retry_attempt: int | None = None,
        retry_reason: str | None = None,
        connection: SocketConnection | None = None,
        timeout: float = WAIT,  # noqa: ASYNC109 - how long to wait for an open connection
    ) -> Envelope:
        """Sends an envelope to the newest open connection (waiting up to ``timeout`` for one).
        ``accepts_response_payload`` defaults to True for slash_commands, False otherwise
        (interactive view_submission envelopes on Slack also carry True)."""
        conn = connection or await self.wait_for_socket(timeout=timeout)
        if accepts_response_payload is None:
            accepts_response_payload = type == "slash_commands" or (
                type == "interactive" and payload.get("type") in ("view_submission", "block_suggestion")
            )
        envelope = Envelope(
            envelope_id=envelope_id or str(uuid.uuid4()),
            type=type,
            payload=payload,
            accepts_response_payload=accepts_response_payload,
            retry_attempt=retry_attempt,
            retry_reason=retry_reason,
            connection_id=conn.id,
            timestamp=time.time(),
        )
        self._envelopes.append(envelope)
        await conn.ws.send_str(json.dumps(envelope.to_message()))
        return envelope

    async def push_slash_command(self, text: str, **kwargs: Any) -> Envelope:
        return await self.push_envelope("slash_commands", self.slash_command(text, **kwargs))

    async def redeliver(
        self,
        envelope: Envelope,
        *,
        same_envelope_id: bool = False,
        retry_reason: str = "timeout",
    ) -> Envelope:
        """Sends ``envelope``'s payload again, as Slack does when an ack is late. The retry is
        ``retry_attempt = previous + 1`` (0 means first delivery), and it gets a new envelope
        id unless ``same_envelope_id``. Bolt turns the retry fields into
        ``x-slack-retry-num`` / ``x-slack-retry-reason`` request headers."""
        return await self.push_envelope(
            envelope.type,
            envelope.payload,
            envelope_id=envelope.envelope_id if same_envelope_id else None,
            accepts_response_payload=envelope.accepts_response_payload,
            retry_attempt=(envelope.retry_attempt or 0) + 1,
            retry_reason=retry_reason,
        )

    # ---------------------------------------------------------------- HTTP handlers

    async def _handle_api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params: dict[str, Any] = dict(request.query)
        body_format = "query"
        if request.method == "POST" and request.can_read_body:
            ctype = request.content_type
            if ctype == "application/json":
                body_format = "json"
                try:
                    data = await request.json()
                except json.JSONDecodeError:
                    data = None
                if isinstance(data, dict):
                    params.update(data)
            elif ctype in (FORM_CONTENT_TYPE, "multipart/form-data"):
                body_format = "form" if ctype == FORM_CONTENT_TYPE else "multipart"
                form = await request.post()
                for key, value in form.items():
                    params[key] = value if isinstance(value, str) else f"<file {getattr(value, 'filename', '')}>"
        token: str | None = None
        auth = request.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            token = auth[len("Bearer ") :]
        if "token" in params:
            token = str(params.pop("token"))
        if method == "oauth.v2.access":
            self._basic_auth(auth, params)

        call = ApiCall(
            method=method,
            params=params,
            token=token,
            http_method=request.method,
            body_format=body_format,
            timestamp=time.time(),
            peer=_peer(request),
            team=self.team_of_token(token),
        )
        self._calls.append(call)

        hold = self._holds.get(method)
        if hold is not None:
            await hold.wait()

        status = 200
        headers: dict[str, str] = {}
        failure = self._failures.get(method)
        auth_error = self._oauth_token_error(method, token) or self._check_token(method, token)
        if auth_error is None:
            auth_error = self._crossing_error(token, params)
        wait = self._rate_check(method, params) if auth_error is None else None
        if auth_error is not None:
            result: dict[str, Any] = {"ok": False, "error": auth_error}
        elif wait is not None:
            result = {"ok": False, "error": "ratelimited"}
            status = 429
            headers["Retry-After"] = str(max(1, math.ceil(wait)))
        elif failure is not None:
            result = {"ok": False, "error": failure.error}
            status = failure.status
            headers.update(failure.headers)
            if failure.remaining is not None:
                failure.remaining -= 1
                if failure.remaining <= 0:
                    del self._failures[method]
            if failure.drop:
                call.status = 0
                if request.transport is not None:
                    request.transport.close()
                raise asyncio.CancelledError()
            if failure.plain is not None:
                call.response, call.status = result, status
                return web.Response(text=failure.plain, status=status, headers=headers, content_type="text/plain")
        elif method in self._handlers:
            result = (method == "auth.test" and self._auth_test_for(token)) or self._handlers[method](params)
        else:
            result = {"ok": False, "error": "unknown_method", "req_method": method}
        if method == "auth.test" and result.get("ok"):
            headers["x-oauth-scopes"] = "chat:write,commands,im:write,users:read"

        call.response = result
        call.status = status
        for observe in self.observers:
            observe(call)
        return web.json_response(result, status=status, headers=headers)

    def _check_token(self, method: str, token: str | None) -> str | None:
        if method == "oauth.v2.access":
            return None  # the client's id and secret, not a token
        if not token:
            return "not_authed"
        if method == "apps.connections.open":
            if not token.startswith("xapp-"):
                return "not_allowed_token_type"
            if self.app_token is not None and token != self.app_token:
                return "invalid_auth"
            return None
        if token.startswith("xapp-"):
            return "not_allowed_token_type"
        if self.bot_token is not None and token != self.bot_token and token not in self.tokens:
            return "invalid_auth"
        return None

    async def _handle_response_url(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        raw = await request.read()
        body: dict[str, Any]
        try:
            parsed = json.loads(raw) if raw else {}
            body = parsed if isinstance(parsed, dict) else {"_raw": parsed}
        except json.JSONDecodeError:
            return web.Response(status=400, text="invalid_payload")
        if sum(p.token == token for p in self._response_posts) >= RESPONSE_URL_USES:
            return web.Response(status=404, text="used_url")  # Slack takes a response_url's answers 5 times
        if (error := block_error(body)) is not None:
            return web.Response(status=400, text=error)
        post = ResponseUrlPost(
            token=token,
            url=f"{self.base_url}/response/{token}",
            body=body,
            timestamp=time.time(),
            channel_id=self._response_url_channels.get(token),
            peer=_peer(request),
        )
        self._response_posts.append(post)
        for observe in self.observers:
            observe(post)
        hold = self._holds.get("response_url")  # hold("response_url") stalls the answers' responses
        if hold is not None:
            await hold.wait()
        return web.Response(status=200, text="ok")

    async def _handle_socket(self, request: web.Request) -> web.StreamResponse:
        if self.hold_socket:  # Socket Mode's endpoint is down: every connection attempt fails
            return web.Response(status=503, text="socket mode is unavailable")
        # autoping answers every PING with a PONG carrying the same data (slack_sdk reads
        # "sdk-ping-pong:<time>" back from it, and reconnects when pongs stop coming).
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        conn = SocketConnection(id=next(self._conn_counter), ws=ws, path_qs=request.path_qs, connected_at=time.time())
        self._connections.append(conn)
        hello = {
            "type": "hello",
            "num_connections": len(self.open_connections()),
            "debug_info": {"host": "applink-fake-1", "build_number": 1, "approximate_connection_time": 18060},
            "connection_info": {"app_id": self.app_id},
        }
        await ws.send_str(json.dumps(hello))
        try:
            async for msg in ws:
                if msg.type == WSMsgType.ERROR:
                    break  # (a CLOSE ends the iteration by itself)
                if msg.type != WSMsgType.TEXT:
                    continue
                try:
                    data = json.loads(msg.data)
                except json.JSONDecodeError:
                    continue
                if isinstance(data, dict) and "envelope_id" in data:
                    ack = SocketAck(str(data["envelope_id"]), data.get("payload"), data, conn.id, time.time())
                    self._acks.append(ack)
        finally:
            conn.closed_at = time.time()
        return ws

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._id_counter):08d}"

    def _auth_test(self, params: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = {
            "ok": True,
            "url": f"https://{self.team_domain}.slack.com/",
            "team": self.team_name,
            "user": self.bot_name,
            "team_id": self.team_id,
            "user_id": self.bot_user_id,
            "bot_id": self.bot_id,
            "is_enterprise_install": False,
        }
        return result

    def _dm_user(self, channel: str) -> str | None:
        """The user whose DM ``channel`` designates (``D<user>`` or a bare user id)."""
        if channel.startswith("D") and channel[1:2] in ("U", "W"):
            return channel[1:]
        if channel[:1] in ("U", "W"):
            return channel
        return None

    def _chat_post_message(self, params: dict[str, Any]) -> dict[str, Any]:
        channel = str(params.get("channel") or "")
        if not channel:
            return {"ok": False, "error": "channel_not_found"}
        if not (params.get("text") or params.get("blocks") or params.get("attachments")):
            return {"ok": False, "error": "no_text"}
        if (error := block_error(params)) is not None:
            return {"ok": False, "error": error}
        dm_user = self._dm_user(channel)
        if dm_user is not None:
            failure = self._dm_failures.get(dm_user)
            is_bare_user = channel == dm_user
            if failure is not None and (failure[0] == "post" or is_bare_user):
                return {"ok": False, "error": failure[1]}
            channel = self.dm_channel_for(dm_user)
        ts = self.next_ts()
        message: dict[str, Any] = {
            "type": "message",
            "user": self.bot_user_id,
            "bot_id": self.bot_id,
            "app_id": self.app_id,
            "team": self.team_id,
            "ts": ts,
            "text": params.get("text", ""),
        }
        if "blocks" in params:
            message["blocks"] = params["blocks"]
        self._messages[(channel, ts)] = message
        return {"ok": True, "channel": channel, "ts": ts, "message": message}

    def _chat_update(self, params: dict[str, Any]) -> dict[str, Any]:
        channel = str(params.get("channel") or "")
        ts = str(params.get("ts") or "")
        if not channel:
            return {"ok": False, "error": "channel_not_found"}
        message = self._messages.get((channel, ts))
        if message is None:
            return {"ok": False, "error": "message_not_found"}
        if (error := block_error(params)) is not None:
            return {"ok": False, "error": error}
        for key in ("text", "blocks"):
            if key in params:
                message[key] = params[key]
        message["edited"] = {"user": self.bot_user_id, "ts": self.next_ts()}
        return {"ok": True, "channel": channel, "ts": ts, "text": message.get("text", ""), "message": message}

    def _chat_post_ephemeral(self, params: dict[str, Any]) -> dict[str, Any]:
        if not params.get("channel"):
            return {"ok": False, "error": "channel_not_found"}
        if not params.get("user"):
            return {"ok": False, "error": "user_not_found"}
        if not (params.get("text") or params.get("blocks") or params.get("attachments")):
            return {"ok": False, "error": "no_text"}
        if (error := block_error(params)) is not None:
            return {"ok": False, "error": error}
        return {"ok": True, "message_ts": self.next_ts()}

    def _chat_delete(self, params: dict[str, Any]) -> dict[str, Any]:
        channel = str(params.get("channel") or "")
        ts = str(params.get("ts") or "")
        if self._messages.pop((channel, ts), None) is None:
            return {"ok": False, "error": "message_not_found"}
        return {"ok": True, "channel": channel, "ts": ts}

    def _conversations_open(self, params: dict[str, Any]) -> dict[str, Any]:
        user = str(params.get("users") or "")
        if not user:
            return {"ok": False, "error": "users_list_not_supplied"}
        failure = self._dm_failures.get(user)
        if failure is not None and failure[0] == "open":
            return {"ok": False, "error": failure[1]}
        channel_id = self.dm_channel_for(user)
        result: dict[str, Any] = {"ok": True, "channel": {"id": channel_id}}
        if channel_id in self._opened_dms:
            result.update({"no_op": True, "already_open": True})
        self._opened_dms.add(channel_id)
        return result

    def _check_trigger(self, trigger_id: Any) -> str | None:
        if not trigger_id:
            return "invalid_arguments"
        issued = self._triggers.get(str(trigger_id))
        if issued is None:
            return "invalid_trigger_id"
        if self.trigger_ttl is not None and time.monotonic() - issued > self.trigger_ttl:
            return "expired_trigger_id"
        return None

    @staticmethod
    def _view_arg(params: dict[str, Any]) -> dict[str, Any] | None:
        view = params.get("view")
        if isinstance(view, str):  # form-encoded callers send JSON text
            try:
                view = json.loads(view)
            except json.JSONDecodeError:
                return None
        return view if isinstance(view, dict) else None

    def _store_view(self, view: dict[str, Any], *, view_id: str | None = None) -> dict[str, Any]:
        view_id = view_id or self._new_id("V")
        stored = dict(view)
        stored.update(
            {
                "id": view_id,
                "team_id": self.team_id,
                "app_id": self.app_id,
                "bot_id": self.bot_id,
                "hash": f"{int(time.time())}.{uuid.uuid4().hex[:8]}",
                "state": {"values": {}},
                "private_metadata": view.get("private_metadata", ""),
                "callback_id": view.get("callback_id", ""),
                "external_id": view.get("external_id", ""),
            }
        )
        self._views[view_id] = stored
        return stored

    def _views_open(self, params: dict[str, Any]) -> dict[str, Any]:
        error = self._check_trigger(params.get("trigger_id"))
        if error is not None:
            return {"ok": False, "error": error}
        view = self._view_arg(params)
        if view is None:
            return {"ok": False, "error": "invalid_arguments"}
        return {"ok": True, "view": self._store_view(view)}

    def _views_update(self, params: dict[str, Any]) -> dict[str, Any]:
        view = self._view_arg(params)
        if view is None:
            return {"ok": False, "error": "invalid_arguments"}
        view_id = str(params.get("view_id") or "")
        if view_id not in self._views:
            return {"ok": False, "error": "not_found"}
        expected_hash = params.get("hash")
        if expected_hash and self._views[view_id]["hash"] != expected_hash:
            return {"ok": False, "error": "hash_conflict"}
        held = self._views[view_id]["state"]["values"]
        kept = {b.get("block_id"): (b.get("element") or {}).get("action_id") for b in view.get("blocks", [])
                if b.get("type") == "input"}
        self._view_errors.pop(view_id, None)  # a redrawn modal shows no errors
        stored = self._store_view(view, view_id=view_id)
        stored["state"]["values"] = {k: v for k, v in held.items() if kept.get(k) in v}
        return {"ok": True, "view": stored}

    def _views_publish(self, params: dict[str, Any]) -> dict[str, Any]:
        view = self._view_arg(params)
        if view is None or not params.get("user_id"):
            return {"ok": False, "error": "invalid_arguments"}
        return {"ok": True, "view": self._store_view(view, view_id=f"VHOME{params['user_id']}")}

    def _files_get_upload_url(self, params: dict[str, Any]) -> dict[str, Any]:
        filename, length = params.get("filename"), str(params.get("length") or "")
        if not filename or not length.isdigit():
            return {"ok": False, "error": "invalid_arguments"}
        file_id = self._new_id("F")
        self._pending_files[file_id] = {"filename": str(filename), "length": int(length), "data": None,
                                        "alt_txt": str(params.get("alt_txt") or "")}
        return {"ok": True, "upload_url": f"{self.base_url}/upload/{file_id}", "file_id": file_id}

    async def _handle_upload(self, request: web.Request) -> web.Response:
        pending = self._pending_files.get(request.match_info["file_id"])
        data = await request.read()
        if pending is None:
            return web.Response(status=404, text="not found")
        if len(data) != pending["length"]:
            return web.Response(status=400, text="length mismatch")
        pending["data"] = data
        return web.Response(text=f"OK - {len(data)}")

    def _files_complete_upload(self, params: dict[str, Any]) -> dict[str, Any]:
        files = params.get("files")
        if isinstance(files, str):
            try:
                files = json.loads(files)
            except json.JSONDecodeError:
                files = None
        if not isinstance(files, list) or not files:
            return {"ok": False, "error": "invalid_arguments"}
        done = []
        for f in files:
            pending = self._pending_files.get(str(f.get("id")))
            if pending is None or pending["data"] is None:
                return {"ok": False, "error": "file_not_found"}
            done.append((str(f["id"]), str(f.get("title") or pending["filename"]), pending))
        shared = []
        for file_id, title, pending in done:
            del self._pending_files[file_id]
            channel = params.get("channel_id")
            self._shared_files.append(SharedFile(
                file_id, pending["filename"], title, pending["data"], str(channel) if channel else None,
                pending["alt_txt"], time.time()))
            shared.append({"id": file_id, "title": title, "name": pending["filename"]})
        return {"ok": True, "files": shared}

    def _users_info(self, params: dict[str, Any]) -> dict[str, Any]:
        user_id = str(params.get("user") or "")
        if not user_id:
            return {"ok": False, "error": "user_not_found"}
        user = self._users.get(user_id) or self.add_user(user_id)
        return {"ok": True, "user": user.to_dict()}

    def _apps_connections_open(self, params: dict[str, Any]) -> dict[str, Any]:
        ticket = uuid.uuid4().hex
        return {"ok": True, "url": f"{self.socket_url}?ticket={ticket}&app_id={self.app_id}"}
