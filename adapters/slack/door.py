"""The door: what stands between the network and bolt.

HTTP (``POST /slack/events``), in this order, before bolt sees anything:

1. a body longer than ``max_body`` is refused with 413 (by ``Content-Length``, or while reading);
2. the signature and timestamp are checked on the raw bytes (slack_sdk's ``SignatureVerifier``):
   anything unsigned, badly signed or older than five minutes gets 401, and is never parsed;
3. the signed body is parsed (bolt's own ``AsyncBoltRequest``): one that does not parse as what its
   ``Content-Type`` says gets 400;
4. its shape is checked (:func:`inspect`): a payload missing a field the listeners need (a slash
   command without ``user_id``, an action without ``action_id``, an ``app_home_opened`` without its
   user …) gets 400; a kind of request the bot does not handle (another slash command, another event,
   a shortcut) gets an empty 200.

Every refusal writes one log line (WARNING for signed input, a rate-limited WARNING for bad
signatures) and never a traceback: input we did not produce is not our error.  Only then does bolt
dispatch the request.

Socket Mode envelopes get the same shape check (:class:`GuardedSocketModeHandler`): a malformed or
unhandled envelope is acknowledged (so Slack does not redeliver it) and dropped, with one line.

``GET /healthz`` says the process is up; ``GET /readyz`` answers 503 while the store is unreachable.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Mapping
from typing import Any

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.adapter.socket_mode.async_internals import run_async_bolt_app, send_async_response
from slack_bolt.async_app import AsyncApp, AsyncBoltRequest
from slack_sdk.signature import SignatureVerifier
from slack_sdk.socket_mode.async_client import AsyncBaseSocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse

from adapters import metrics

from .render import ACTION_PREFIX, SLASH

__all__ = ["MAX_BODY", "Door", "GuardedSocketModeHandler", "inspect", "store_ready"]

log = logging.getLogger(__name__)

MAX_BODY = 1024 * 1024  # bytes; Slack's largest payloads (a block_actions with its message) are far smaller
UNAUTHORIZED = {"error": "invalid request"}  # what bolt itself answers a bad signature with
EVENTS = frozenset({"app_home_opened", "app_uninstalled", "tokens_revoked"})  # the manifest's bot_events
USER_EVENTS = frozenset({"app_home_opened"})  # those that name the user they are about


def _text(body: Mapping[str, Any], name: str) -> bool:
    value = body.get(name)
    return isinstance(value, str) and value != ""


def _user(body: Mapping[str, Any]) -> bool:
    user = body.get("user")
    return isinstance(user, Mapping) and _text(user, "id")


def inspect(body: Any) -> tuple[str, str | None]:
    """``("ok" | "malformed" | "unhandled", why)`` for a parsed Slack request body."""
    if not isinstance(body, Mapping):
        return "malformed", "the body is not an object"
    for name in ("trigger_id", "response_url", "text"):
        if name in body and not isinstance(body[name], str):
            return "malformed", f"{name} is not a string"
    if "response_url" in body and not str(body["response_url"]).startswith(("https://", "http://")):
        return "malformed", "response_url is not a URL"  # (posting to it was an ERROR with a traceback)
    if "command" in body:
        missing = [name for name in ("command", "user_id", "channel_id") if not _text(body, name)]
        if missing:
            return "malformed", "a slash command without " + ", ".join(missing)
        if not (_text(body, "team_id") or _text(body, "enterprise_id")):
            return "malformed", "a slash command without team_id"
        if body["command"] != SLASH:
            return "unhandled", f"the slash command {body['command'][:40]!r}"
        return "ok", None
    kind = body.get("type")
    if kind == "block_actions":
        actions = body.get("actions")
        if not _user(body):
            return "malformed", "block_actions without user.id"
        if not isinstance(actions, list) or not actions:
            return "malformed", "block_actions without actions"
        if not all(isinstance(a, Mapping) and _text(a, "action_id") for a in actions):
            return "malformed", "an action without action_id"
        for name in ("channel", "container", "team", "enterprise"):
            if body.get(name) is not None and not isinstance(body[name], Mapping):
                return "malformed", f"{name} is not an object"
        if not str(actions[0]["action_id"]).startswith(ACTION_PREFIX):
            return "unhandled", "a button that is not ours"
        return "ok", None
    if kind == "view_submission":
        view = body.get("view")
        if not _user(body):
            return "malformed", "view_submission without user.id"
        if not isinstance(view, Mapping) or not isinstance(view.get("callback_id"), str):
            return "malformed", "view_submission without view.callback_id"
        if not view["callback_id"].startswith(ACTION_PREFIX):
            return "unhandled", "a form that is not ours"
        return "ok", None
    if kind == "event_callback":
        event = body.get("event")
        if not isinstance(event, Mapping) or not _text(event, "type"):
            return "malformed", "an event callback without its event"
        if event["type"] not in EVENTS:
            return "unhandled", f"the event {str(event['type'])[:40]!r}"
        if event["type"] in USER_EVENTS and not _text(event, "user"):
            return "malformed", f"{event['type']} without user"
        if not (_text(body, "team_id") or _text(body, "enterprise_id")):
            return "malformed", "an event callback without team_id"
        return "ok", None
    if kind == "url_verification":  # Event Subscriptions' handshake: bolt answers the challenge
        return ("ok", None) if _text(body, "challenge") else ("malformed", "url_verification without challenge")
    if isinstance(kind, str) and kind:
        return "unhandled", f"a {kind[:40]!r} request"
    return "malformed", "neither a slash command nor an interaction"


class _Throttled:
    """Logs one WARNING per ``every`` seconds and counts the rest (unsigned junk must not flood the log)."""

    def __init__(self, every: float = 60.0) -> None:
        self.every = every
        self._last = -float("inf")
        self._quiet = 0

    def warn(self, msg: str, *args: Any) -> None:
        now = time.monotonic()
        if now - self._last >= self.every:
            more = f" (and {self._quiet} more since the last report)" if self._quiet else ""
            log.warning(msg + more, *args)
            self._last, self._quiet = now, 0
        else:
            self._quiet += 1
            log.debug(msg, *args)


async def store_ready(store: Any, timeout: float = 1.0) -> bool:  # noqa: ASYNC109 - a probe's own deadline
    """Whether the store answers.  ``store.ping()`` when the store has one; until then (``Store.ping`` is
    being added to the service's store), a query-free check that its connection and writer are alive."""
    ping = getattr(store, "ping", None)
    try:
        if callable(ping):
            result = await asyncio.wait_for(ping(), timeout)
            return result is not False
        if getattr(store, "_db", True) is None:  # SqliteStore before open() / after close()
            return False
        writer = getattr(store, "_writer", None)
        return not (isinstance(writer, asyncio.Task) and writer.done())
    except Exception:
        return False


class Door:
    """The aiohttp handler in front of bolt for ``POST /slack/events`` (see the module's docstring)."""

    def __init__(self, app: AsyncApp, signing_secret: str, *, max_body: int = MAX_BODY) -> None:
        self.app = app
        self.verifier = SignatureVerifier(signing_secret)
        self.max_body = max_body
        self._bad_signature = _Throttled()
        self.refused: dict[int, int] = {}  # status -> how many (for tests and the logs)

    def _refuse(self, status: int, body: Any = "") -> web.Response:
        self.refused[status] = self.refused.get(status, 0) + 1
        if isinstance(body, dict):
            return web.json_response(body, status=status)
        return web.Response(status=status, text=body)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """Serve one request (counted and timed in ``liars_requests_total`` / ``liars_request_seconds``)."""
        started = time.perf_counter()
        status = 500
        try:
            response = await self._handle(request)
            status = response.status
            return response
        finally:
            _count(status, time.perf_counter() - started)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        if request.content_length is not None and request.content_length > self.max_body:
            log.warning("refused a %d-byte request (the limit is %d)", request.content_length, self.max_body)
            return self._refuse(413, "too large")
        try:
            raw = await request.read()
        except web.HTTPRequestEntityTooLarge:
            log.warning("refused a request longer than %d bytes", self.max_body)
            return self._refuse(413, "too large")
        if len(raw) > self.max_body:
            return self._refuse(413, "too large")
        timestamp = request.headers.get("X-Slack-Request-Timestamp")
        signature = request.headers.get("X-Slack-Signature")
        try:
            valid = self.verifier.is_valid(body=raw, timestamp=timestamp, signature=signature)
        except (ValueError, TypeError):  # a timestamp that is not a number, a body that is not UTF-8
            valid = False
        if not valid:
            what = "unsigned" if not (timestamp and signature) else "badly signed or stale"
            self._bad_signature.warn("refused a %s request from %s", what, request.remote)
            return self._refuse(401, UNAUTHORIZED)
        try:
            bolt_request = AsyncBoltRequest(body=raw.decode("utf-8"), query=request.query_string,
                                            headers={k: request.headers.getall(k) for k in request.headers})
        except Exception as exc:  # signed, but not what its Content-Type says
            log.warning("refused a signed request that does not parse as %s (%s)", request.content_type,
                        type(exc).__name__)
            return self._refuse(400, "malformed request")
        verdict, why = inspect(bolt_request.body)
        if verdict == "malformed":
            log.warning("refused a signed request: %s", why)
            return self._refuse(400, "malformed request")
        if verdict == "unhandled":
            log.warning("ignoring %s", why)
            return web.Response(status=200, text="")
        response = await self.app.async_dispatch(bolt_request)
        return await to_aiohttp_response(response)


def _count(status: int, seconds: float) -> None:
    outcome = "ok" if status < 400 else "rejected" if status < 500 else "error"
    metrics.REQUESTS.labels("slack", outcome).inc()
    metrics.REQUEST_SECONDS.labels("slack").observe(seconds)


class GuardedSocketModeHandler(AsyncSocketModeHandler):
    """bolt's Socket Mode handler with the door's shape check in front of dispatch."""

    async def handle(self, client: AsyncBaseSocketModeClient, req: SocketModeRequest) -> None:
        started = time.time()
        clock = time.perf_counter()
        verdict, why = inspect(req.payload)
        if verdict != "ok":
            log.warning("dropping a Socket Mode %s envelope: %s", req.type, why)
            with contextlib.suppress(Exception):
                await client.send_socket_mode_response(SocketModeResponse(envelope_id=req.envelope_id))
            _count(400, time.perf_counter() - clock)
            return
        try:
            response = await run_async_bolt_app(self.app, req)
        except Exception as exc:  # a payload bolt cannot even read: ours to drop, not to crash on
            log.warning("dropping a Socket Mode %s envelope bolt cannot read (%s)", req.type, type(exc).__name__)
            with contextlib.suppress(Exception):
                await client.send_socket_mode_response(SocketModeResponse(envelope_id=req.envelope_id))
            _count(400, time.perf_counter() - clock)
            return
        await send_async_response(client, req, response, started)
        _count(response.status, time.perf_counter() - clock)

