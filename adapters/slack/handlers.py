"""Bolt listeners: ``ack()`` first, then parse, call the service, render the reply.

Every listener acknowledges before doing anything else, so Slack hears back well inside its 3
seconds whatever the Web API or the database are doing; the work goes on after the acknowledgement
(``process_before_response=False``).

Retries.  Slack redelivers a request whose acknowledgement it missed: over HTTP with
``X-Slack-Retry-Num``, over Socket Mode as a new envelope with the same payload.  A redelivery
carries the same ``trigger_id`` (unique per user action), so ``slack:<trigger_id>:<command>`` is a
stable request id.  A request id this process has already taken is dropped at once; one it has not
(say, after a restart) still reaches the service, which returns the stored reply of a command it has
already applied and changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import re
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltRequest, AsyncRespond
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.forms import picker
from bot.model import COMMANDS, Actor, Command, Reply, TableKey
from bot.service import Service, UserError

from .notifier import SlackNotifier
from .render import (
    ACTION_PREFIX,
    RAISE_CALLBACK,
    SLASH,
    TEXT,
    key_from_value,
    parse_raise,
    raise_modal,
    render_reply,
    server_id,
    usage,
)

__all__ = ["Listeners"]

log = logging.getLogger(__name__)

DM_COMMANDS = frozenset({"hand", "help"})  # what makes sense in a DM with the bot
# With should_escape on, Slack sends "@bob" as <@U123|bob> (the name may hold spaces): keep <@U123>.
_ESCAPED_MENTION = re.compile(r"<@([UW][A-Z0-9]+)\|[^>]*>")
SEEN_LIMIT = 10_000


class Listeners:
    """The slash command, the buttons and the Raise… modal, over one :class:`Service`."""

    def __init__(self, service: Service, notifier: SlackNotifier | None = None, *, user_ttl: float = 300.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.service = service
        self.notifier = notifier
        self.user_ttl = user_ttl
        self._clock = clock
        self._users: dict[str, tuple[float, Actor]] = {}
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._inflight: set[asyncio.Task[Any]] = set()
        # (request id, "done" | "duplicate" | "error"), newest last: for logs, health checks and tests
        self.processed: deque[tuple[str, str]] = deque(maxlen=1000)

    def register(self, app: AsyncApp) -> None:
        app.command(SLASH)(self.on_command)
        app.action(re.compile("^" + re.escape(ACTION_PREFIX)))(self.on_action)
        app.view(RAISE_CALLBACK)(self.on_raise)
        app.error(self.on_error)

    async def drain(self, timeout: float = 5.0) -> None:  # noqa: ASYNC109 - a grace period at shutdown
        """Let work already acknowledged finish (at shutdown), for at most ``timeout`` seconds."""
        pending = [t for t in self._inflight if not t.done()]
        if pending:
            await asyncio.wait(pending, timeout=timeout)

    # -- listeners ---------------------------------------------------------------------------------
    async def on_command(self, ack: AsyncAck, command: dict[str, Any], client: AsyncWebClient,
                         respond: AsyncRespond, request: AsyncBoltRequest) -> None:
        await ack()
        words = _ESCAPED_MENTION.sub(r"<@\1>", str(command.get("text") or "")).split()
        name = words[0].lower() if words else "help"
        channel, user = str(command["channel_id"]), str(command["user_id"])
        key = TableKey("slack", server_id(command), channel)

        async def answer(reply: Reply, at: TableKey = key) -> None:
            await self._answer(client, respond, channel, user, reply, at)

        async def work() -> None:
            if name == "raise":  # the Raise… form, by command as well as by button
                await self._open_raise(client, str(command["trigger_id"]), key, user, answer)
                return
            if name not in COMMANDS:
                await answer(Reply(usage(name), ok=False, code="usage"))
                return
            in_dm = channel.startswith("D") or command.get("channel_name") == "directmessage"
            if in_dm and name not in DM_COMMANDS:
                await answer(Reply(TEXT["dm_only_hand"], ok=False, code="dm"))
                return
            actor = await self._actor(client, user, command.get("user_name"))
            if in_dm and name == "hand":  # the serials of every round this player is in, on this server
                keys = self._tables_of(key.server_id, user)
                if not keys:
                    await answer(Reply(TEXT["no_hand"], ok=False, code="no-round"))
                for at in keys:
                    await answer(await self._handle(Command(name, at, actor)), at)
                return
            cmd = Command(name, key, actor, tuple(words[1:]), request_id=self._request_id(command, name))
            await answer(self._note_channel_error(await self._handle(cmd), channel))

        await self._process(self._request_id(command, name), request, work, answer)

    async def on_action(self, ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient,
                        respond: AsyncRespond, request: AsyncBoltRequest) -> None:
        await ack()
        name = str(action.get("action_id", "")).removeprefix(ACTION_PREFIX)
        user = str(body["user"]["id"])
        channel = str((body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id", ""))
        key = TableKey("slack", server_id(body), channel)
        drawn = key_from_value(action.get("value"))  # the table that drew the button
        if drawn is not None and drawn != key:
            if channel:
                log.warning("a %s button drawn for %s was pressed in %s; acting on %s", name, drawn, key, key)
            else:
                key = drawn

        async def answer(reply: Reply) -> None:
            await self._answer(client, respond, key.channel_id, user, reply, key)

        async def work() -> None:
            if name == "raise":
                await self._open_raise(client, str(body["trigger_id"]), key, user, answer)
            elif name in COMMANDS:
                actor = await self._actor(client, user, body["user"].get("name") or body["user"].get("username"))
                reply = await self._handle(Command(name, key, actor, request_id=self._request_id(body, name)))
                await answer(self._note_channel_error(reply, key.channel_id))
            else:
                log.warning("ignoring an unknown button %r", name)

        await self._process(self._request_id(body, name), request, work, answer)

    async def on_raise(self, ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient,
                       request: AsyncBoltRequest) -> None:
        await ack()  # closes the modal; a refused bid is answered ephemerally in the table's channel
        user = str(body["user"]["id"])
        parsed = parse_raise(view)

        async def answer(reply: Reply) -> None:
            if parsed is not None:
                await self._answer(client, None, parsed[0].channel_id, user, reply, parsed[0])

        async def work() -> None:
            if parsed is None:
                log.warning("a Raise… submission without its table or selections; ignored")
                return
            key, quantity, digit = parsed
            actor = await self._actor(client, user, body["user"].get("name") or body["user"].get("username"))
            cmd = Command("bid", key, actor, options={"quantity": str(quantity), "digit": str(digit)},
                          request_id=self._request_id(body, "bid"))
            await answer(self._note_channel_error(await self._handle(cmd), key.channel_id))

        await self._process(self._request_id(body, "bid"), request, work, answer)

    async def on_error(self, error: Exception, body: dict[str, Any]) -> None:
        log.error("a Slack %s request failed before its work began", body.get("type") or body.get("command"),
                  exc_info=error)

    # -- the common path ---------------------------------------------------------------------------
    @staticmethod
    def _request_id(body: Mapping[str, Any], name: str) -> str | None:
        trigger = body.get("trigger_id")
        return f"slack:{trigger}:{name}" if trigger else None

    async def _process(self, rid: str | None, request: AsyncBoltRequest, work: Callable[[], Awaitable[None]],
                       answer: Callable[[Reply], Awaitable[None]]) -> None:
        retry = _header(request, "x-slack-retry-num")
        if rid is not None:
            if rid in self._seen:
                log.info("dropping redelivery #%s of %s: already taken", retry, rid)
                self.processed.append((rid, "duplicate"))
                return
            self._seen[rid] = None
            while len(self._seen) > SEEN_LIMIT:
                self._seen.popitem(last=False)
        task = asyncio.current_task()
        if task is not None:
            self._inflight.add(task)
        try:
            await work()
            self.processed.append((rid or "", "done"))
        except Exception:
            log.exception("handling Slack request %s (retry %s) failed", rid, retry)
            if rid is not None:
                self._seen.pop(rid, None)  # let a redelivery try again; the service applies a command once
            self.processed.append((rid or "", "error"))
            with contextlib.suppress(Exception):
                await answer(Reply(TEXT["apology"], ok=False, code="internal"))
        finally:
            if task is not None:
                self._inflight.discard(task)

    async def _answer(self, client: AsyncWebClient, respond: AsyncRespond | None, channel: str, user: str,
                      reply: Reply, key: TableKey) -> None:
        """Ephemeral to the person who acted, unless the service made the reply public."""
        text, blocks = render_reply(reply, key)
        public = reply.ok and not reply.private
        if respond is not None and respond.response_url:
            await respond(text=text, blocks=blocks or None, response_type="in_channel" if public else "ephemeral",
                          replace_original=False)
        elif public:
            await client.chat_postMessage(channel=channel, text=text, blocks=blocks or None)
        else:
            await client.chat_postEphemeral(channel=channel, user=user, text=text, blocks=blocks or None)

    async def _handle(self, cmd: Command) -> Reply:
        """The service's answer, once the table's messages for it have gone out (the channel's errors
        are read from the notifier after)."""
        reply = await self.service.handle(cmd)
        await self.service.drain()
        return reply

    async def _open_raise(self, client: AsyncWebClient, trigger_id: str, key: TableKey, user: str,
                          answer: Callable[[Reply], Awaitable[None]]) -> None:
        try:
            options = picker(self.service.form(key, user, "bid"))
        except UserError as exc:
            await answer(Reply(exc.text, ok=False, code=exc.code))
            return
        if options.refusal is not None:
            await answer(Reply(options.refusal, ok=False, code="not-your-turn"))
            return
        try:
            await client.views_open(trigger_id=trigger_id, view=raise_modal(key, options))
        except SlackApiError as exc:
            error = str(exc.response.get("error"))
            log.warning("views.open for the Raise… form failed: %s", error)
            await answer(Reply(TEXT["raise_failed"].format(error=error), ok=False, code="modal"))

    def _note_channel_error(self, reply: Reply, channel: str) -> Reply:
        """Tell the person who acted if the table's messages could not be posted in the channel."""
        error = self.notifier.take_channel_error(channel) if self.notifier is not None else None
        if error is None:
            return reply
        return dataclasses.replace(reply, text=f"{reply.text}\n{TEXT['cannot_post'].format(error=error)}")

    async def _actor(self, client: AsyncWebClient, user_id: str, fallback: str | None) -> Actor:
        """Who acted, with their display name and whether they administer the workspace (cached)."""
        now = self._clock()
        hit = self._users.get(user_id)
        if hit is not None and hit[0] > now:
            return hit[1]
        ttl = self.user_ttl
        try:
            info = (await client.users_info(user=user_id))["user"]
            profile = info.get("profile") or {}
            name = (profile.get("display_name") or profile.get("real_name") or info.get("real_name")
                    or info.get("name") or fallback or user_id)
            admin = bool(info.get("is_admin") or info.get("is_owner") or info.get("is_primary_owner"))
            actor = Actor(user_id, str(name), admin)
        except SlackApiError as exc:
            log.warning("users.info for %s failed (%s); treating them as a member", user_id,
                        exc.response.get("error"))
            actor, ttl = Actor(user_id, fallback or user_id, False), 30.0
        self._users[user_id] = (now + ttl, actor)
        return actor

    def _tables_of(self, server: str, user: str) -> list[TableKey]:
        """Tables on this server where ``user`` holds a serial now (for ``hand`` sent by DM)."""
        return [t.key for t in self.service.tables_of("slack", user, server)]


def _header(request: AsyncBoltRequest, name: str) -> str | None:
    values = request.headers.get(name) if request is not None else None
    return values[0] if values else None
