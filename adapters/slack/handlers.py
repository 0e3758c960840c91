"""Bolt listeners: parse what Slack sent, call the service, answer the person who acted.

Every request takes the common path of :mod:`adapters.slack.ack`: the listener's work commits the
command, then the request is acknowledged, then the answers go out; a redelivery is taken once.

Forms.  A button ``liars:open-<verb>`` (Raise…, Declare…, Discard…) opens that game form as a modal
(:mod:`adapters.slack.forms`); a choice in its first select (``liars:field:<name>``) redraws it
with ``views.update``; submitting it sends the form's command with the chosen options.  The Home
tab (``app_home_opened``) is published after the event is acknowledged (:mod:`adapters.slack.home`).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands import resolve
from bot.model import Actor, Command, Reply, TableKey
from bot.service import Service, UserError
from core.commands import Section

from .ack import ACK_BUDGET, SEEN_LIMIT, AckBody, AckedRequests, After, nothing
from .forms import (
    FIELD_PREFIX,
    chosen,
    error_block,
    form_modal,
    notice_modal,
    parse_form,
    view_key,
    view_table,
    view_turn,
)
from .home import home_view
from .notifier import SlackNotifier
from .outbox import api_error
from .render import (
    ACTION_PREFIX,
    OPEN_PREFIX,
    SLASH,
    TEXT,
    key_from_value,
    plain,
    render_reply,
    server_id,
    table_from_value,
    turn_from_value,
    unsuit,
    usage,
)
from .responder import CannotPost, Responder

__all__ = ["ACK_BUDGET", "Listeners", "Responder"]

log = logging.getLogger(__name__)

RESPONSE_URL_USES = 5  # answers a slash command's response_url takes (Slack: "up to 5 times within 30 minutes")

USER_LOOKUP_WAIT = 1.0  # seconds an acting user's name and admin flag are waited for (rate limits: see _actor)
ERROR_TEXT = 500  # characters of a refusal shown in a modal (beside a field: keep it short)
# With should_escape on, Slack sends "@bob" as <@U123|bob> (the name may hold spaces): keep <@U123>.
_ESCAPED_MENTION = re.compile(r"<@([UW][A-Z0-9]+)\|[^>]*>")


def typed(text: str) -> str:
    """A slash command's text as the person typed it: Slack sends a mention with its name (``<@U1|ann>``), a
    suit emoji as its code (``:hearts:``) and ``< > &`` as entities (they were quoted back as ``&lt;``)."""
    text = unsuit(_ESCAPED_MENTION.sub(r"<@\1>", text))
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


class Listeners(AckedRequests):
    """The slash command, the buttons, the games' forms and the Home tab, over one :class:`Service`."""

    def __init__(self, service: Service, notifier: SlackNotifier | None = None, *, user_ttl: float = 300.0,
                 clock: Callable[[], float] = time.monotonic, responder: Responder | None = None,
                 cannot_post: CannotPost | None = None, ack_budget: float = ACK_BUDGET) -> None:
        """``cannot_post``: where the notifier tells whoever acted in a channel that the bot cannot post
        there (the listeners note who acted); the composition root hands the notifier the same one."""
        super().__init__(notifier, ack_budget=ack_budget)
        self.service = service
        self.responder = responder or Responder()
        self.user_ttl = user_ttl
        self._clock = clock
        # (the workspace's token, user) -> (until, who): a person's name and admin rights are per workspace
        self._users: dict[tuple[str, str], tuple[float, Actor]] = {}
        self.cannot_post = cannot_post or CannotPost(self.responder, TEXT["cannot_post"], SEEN_LIMIT)
        # the newest choice (its action_ts) made in each open modal: only it redraws the modal
        self._newest_choice: OrderedDict[str, float] = OrderedDict()

    def register(self, app: AsyncApp) -> None:
        app.command(SLASH)(self.on_command)
        app.action(re.compile("^" + re.escape(FIELD_PREFIX)))(self.on_field)  # before the buttons: first match wins
        app.action(re.compile("^" + re.escape(ACTION_PREFIX)))(self.on_action)
        app.view(re.compile("^" + re.escape(ACTION_PREFIX)))(self.on_form)
        app.event("app_home_opened")(self.on_home)
        app.error(self.on_error)

    # -- listeners ---------------------------------------------------------------------------------
    async def on_command(self, ack: AsyncAck, command: dict[str, Any], client: AsyncWebClient,
                         request: AsyncBoltRequest) -> BoltResponse | None:
        words = typed(str(command.get("text") or "")).split()
        name = words[0].lower() if words else "help"
        channel, user = str(command["channel_id"]), str(command["user_id"])
        key = TableKey("slack", server_id(command), channel)
        url = command.get("response_url")

        def answer(reply: Reply, at: TableKey = key) -> After:
            return lambda: self._answer(client, url, channel, user, reply, at)

        async def work() -> list[After]:
            spec = resolve(name)
            if spec is None:
                return [answer(Reply(usage(name), ok=False, code="usage"))]
            in_dm = channel.startswith("D") or command.get("channel_name") == "directmessage"
            if in_dm and not spec.in_dm:  # (a bare move too: it said "There is no table in this channel")
                return [answer(Reply(TEXT["dm_only_hand"], ok=False, code="dm"))]
            if not in_dm and spec.at_table and await self.service.table_elsewhere(key) is not None:
                # a channel shared between workspaces: its table is another workspace's ("no table here", and a
                # `start` opened a second one in the channel)
                return [answer(Reply(TEXT["other_workspace"], ok=False, code="other-workspace"))]
            if len(words) == 1 and spec.form:
                # a form by command as well as by button: a bare move that has one opens it (or says why not)
                return [lambda: self._open_form(client, str(command.get("trigger_id") or ""), key, user, spec.name,
                                                answer)]
            actor = await self._actor(client, user, command.get("user_name"))
            if in_dm and spec.section is Section.READ:  # what this player holds in every round, on this server
                hands = await self.service.hands_of("slack", user, key.server_id)
                if not hands:
                    return [answer(Reply(TEXT["no_hand"], ok=False, code="no-round"))]
                if len(hands) > RESPONSE_URL_USES:  # (the sixth table's hand and on were lost): one answer
                    return [answer(Reply("\n\n".join(reply.text for _, reply in hands)))]
                return [answer(reply, at) for at, reply in hands]
            cmd = Command(spec.name, key, actor, tuple(words[1:]),
                          request_id=self._service_request_id(command, spec.name))
            return [answer(await self.service.handle(cmd))]

        self.cannot_post.acted(channel, url)
        return await self._run(self._request_id(command, name), request, ack, work,
                               answer(Reply(TEXT["apology"], ok=False, code="internal")), key)

    async def on_action(self, ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient,
                        request: AsyncBoltRequest) -> BoltResponse | None:
        name = str(action.get("action_id", "")).removeprefix(ACTION_PREFIX)
        user = str(body["user"]["id"])
        channel = str((body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id", ""))
        key = TableKey("slack", server_id(body), channel)
        value = action.get("value") if isinstance(action.get("value"), str) else None
        drawn, table, turn = key_from_value(value), table_from_value(value), turn_from_value(value)
        # a channel shared between workspaces: its table may be the drawing workspace's, pressed by another's member
        shared = drawn is not None and drawn.channel_id == key.channel_id != "" and drawn != key
        if drawn is not None and drawn != key:
            if channel:
                (log.info if shared else log.warning)("a %s button drawn for %s was pressed in %s; acting on %s",
                                                      name, drawn, key, key)
            else:
                key = drawn
        url = body.get("response_url")

        def answer(reply: Reply) -> After:
            return lambda: self._answer(client, url, key.channel_id, user, reply, key)

        async def work() -> list[After]:
            if shared and await self.service.table_elsewhere(key) is not None:  # (acting on this workspace's key
                # said the live table was "closed"; a `start` there then opened a second table in the channel)
                return [answer(Reply(TEXT["other_workspace"], ok=False, code="other-workspace"))]
            opener = name.removeprefix(OPEN_PREFIX) if name.startswith(OPEN_PREFIX) else None
            spec = resolve(opener or name)
            if spec is not None and (opener or spec.form):  # a form's button (or one drawn before forms had theirs)
                return [lambda: self._open_form(client, str(body.get("trigger_id") or ""), key, user,
                                                opener or name, answer, table)]
            if spec is not None:
                actor = await self._actor(client, user, body["user"].get("name") or body["user"].get("username"))
                reply = await self.service.handle(Command(spec.name, key, actor, table_id=table, turn=turn,
                                                          request_id=self._service_request_id(body, spec.name)))
                return [answer(reply)]
            log.warning("ignoring an unknown button %r", name[:40])
            return []

        self.cannot_post.acted(key.channel_id, url)
        return await self._run(self._request_id(body, name), request, ack, work,
                               answer(Reply(TEXT["apology"], ok=False, code="internal")), key)

    async def on_field(self, ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient,
                       request: AsyncBoltRequest) -> BoltResponse | None:
        """A choice in a form's field: the modal is drawn again with the second select re-listed for the
        first choice and the submit button saying the move chosen so far."""
        view = body.get("view") if isinstance(body.get("view"), Mapping) else None
        where = view_key(view) if view is not None else None
        user = str(body["user"]["id"])
        view_id = str(view.get("id")) if view is not None else ""
        when = self._note_choice(view_id, action)

        async def redraw() -> None:
            if view is None or where is None or self._newest_choice.get(view_id, when) > when:
                return  # a newer choice in this modal draws it
            key, opener, _ = where
            table, turn = view_table(view), view_turn(view)
            modal: dict[str, Any] | None = None
            try:
                form = await self.service.form(key, user, opener, table, turn)
            except UserError as exc:
                refusal: str | None = exc.text
            else:
                refusal = form.refusal
                if refusal is None:
                    modal = form_modal(key, form, opener, chosen(view, action), table, turn)
            if modal is None:
                modal = notice_modal(view, refusal or TEXT["form_none"])
            try:
                await client.views_update(view_id=view_id, hash=view.get("hash"), view=modal)
            except SlackApiError as exc:
                error = api_error(exc)
                # hash_conflict: the modal was redrawn since this choice was made (for an earlier choice, as
                # two marks in quick succession go); the newest choice draws over it, with all of its choices
                if error != "hash_conflict" or self._newest_choice.get(view_id, when) > when:
                    log.warning("views.update for a form failed: %s", error)
                    return
                try:
                    await client.views_update(view_id=view_id, view=modal)
                except SlackApiError as again:
                    log.warning("views.update for a form failed: %s", api_error(again))

        async def work() -> list[After]:
            if where is None:
                log.warning("a form choice without its table; ignored")
                return []
            return [redraw]

        return await self._run(None, request, ack, work, nothing, None)

    async def on_form(self, ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient,
                      request: AsyncBoltRequest) -> BoltResponse | None:
        """A submitted form: ``Command(form.verb, options={field: value, ...})``."""
        user = str(body["user"]["id"])
        parsed = parse_form(view)
        verb = parsed[1] if parsed is not None else "form"

        def answer(reply: Reply) -> After:
            async def send() -> None:
                if parsed is not None:
                    await self._answer(client, None, parsed[0].channel_id, user, reply, parsed[0])
            return send

        async def work() -> list[After] | AckBody:
            if parsed is None:  # e.g. a modal an earlier version opened: say so beside its field (it stays open)
                log.warning("a form submission without its table or choices; refused")
                block = error_block(view)
                if block is None:
                    return []
                return AckBody({"response_action": "errors", "errors": {block: TEXT["form_outdated"]}})
            key, _, options = parsed
            actor = await self._actor(client, user, body["user"].get("name") or body["user"].get("username"))
            cmd = Command(verb, key, actor, options=options, request_id=self._request_id(body, verb),
                          table_id=view_table(view), turn=view_turn(view))
            reply = await self.service.handle(cmd)
            block = error_block(view)
            if not reply.ok and block is not None:
                # refused (the command changed nothing): the modal stays open, the refusal beside its field
                return AckBody({"response_action": "errors", "errors": {block: plain(reply.text)[:ERROR_TEXT]}})
            return [answer(reply)]

        # the bare acknowledgement closes the modal, and the move is answered ephemerally in the channel; a
        # refused move is acknowledged with the refusal, which keeps the modal open
        return await self._run(self._request_id(body, verb), request, ack, work,
                               answer(Reply(TEXT["apology"], ok=False, code="internal")),
                               parsed[0] if parsed is not None else None)

    async def on_home(self, event: dict[str, Any], body: dict[str, Any], client: AsyncWebClient) -> None:
        """The player opened the Home tab: publish their figures (after the event is acknowledged)."""
        if event.get("tab", "home") != "home":
            return
        user = str(event["user"])

        async def publish() -> None:
            actor = await self._actor(client, user, None)
            view = await home_view(self.service, server_id(body), actor, str(event.get("channel") or ""))
            try:
                await client.views_publish(user_id=user, view=view)
            except SlackApiError as exc:
                log.warning("views.publish of the Home tab failed: %s", api_error(exc))

        self._track(asyncio.ensure_future(self._quietly(publish)))

    async def on_error(self, error: Exception, body: dict[str, Any]) -> None:
        kind = (body.get("type") or body.get("command")) if isinstance(body, Mapping) else None
        log.error("a Slack %s request failed before its work began", kind, exc_info=error)

    def _note_choice(self, view_id: str, action: Mapping[str, Any]) -> float:
        """When this choice was made in the modal (its ``action_ts``), noted if it is the newest there."""
        try:
            when = float(action.get("action_ts") or 0.0)
        except (TypeError, ValueError):
            when = 0.0
        if view_id and when >= self._newest_choice.get(view_id, 0.0):
            self._newest_choice[view_id] = when
            self._newest_choice.move_to_end(view_id)
            while len(self._newest_choice) > SEEN_LIMIT:
                self._newest_choice.popitem(last=False)
        return when

    async def _answer(self, client: AsyncWebClient, url: Any, channel: str, user: str, reply: Reply,
                      key: TableKey) -> None:
        """Ephemeral to the person who acted, unless the service made the reply public."""
        text, blocks = render_reply(reply, key, self.service.table_id(key), reply.turn)
        public = reply.ok and not reply.private
        if isinstance(url, str) and url:
            await self.responder.post(url, text, blocks, public=public)
        elif public:
            await client.chat_postMessage(channel=channel, text=text, blocks=blocks or None)
        else:
            await client.chat_postEphemeral(channel=channel, user=user, text=text, blocks=blocks or None)

    async def _open_form(self, client: AsyncWebClient, trigger_id: str, key: TableKey, user: str, opener: str,
                         answer: Callable[[Reply], After], table: int | None = None) -> None:
        """Open the form behind the ``opener`` button (Raise…, Declare…, Discard…) for this player now;
        ``table``: the table the button was drawn for, if it names one (else the one here now)."""
        try:
            form = await self.service.form(key, user, opener, table)
        except UserError as exc:
            await answer(Reply(exc.text, ok=False, code=exc.code))()
            return
        if form.refusal is not None:
            await answer(Reply(form.refusal, ok=False, code="not-your-turn"))()
            return
        modal = form_modal(key, form, opener, table=table if table is not None else self.service.table_id(key),
                           turn=self.service.turn(key))
        if modal is None:
            await answer(Reply(TEXT["form_none"], ok=False, code="no-choice"))()
            return
        try:
            await client.views_open(trigger_id=trigger_id, view=modal)
        except SlackApiError as exc:
            error = api_error(exc)
            log.warning("views.open for the %s form failed: %s", form.verb, error)
            await answer(Reply(TEXT["raise_failed"].format(title=form.title, error=error, verb=form.verb),
                               ok=False, code="modal"))()

    async def _actor(self, client: AsyncWebClient, user_id: str, fallback: str | None) -> Actor:
        """Who acted, with their display name and whether they administer the workspace (cached)."""
        now = self._clock()
        cached = (client.token or "", user_id)
        hit = self._users.get(cached)
        if hit is not None and hit[0] > now:
            return hit[1]
        ttl = self.user_ttl
        try:
            # bounded: the answer to the person who acted must not wait out a rate limit for a name
            info = (await asyncio.wait_for(client.users_info(user=user_id), USER_LOOKUP_WAIT))["user"]
            profile = info.get("profile") or {}
            name = (profile.get("display_name") or profile.get("real_name") or info.get("real_name")
                    or info.get("name") or fallback or user_id)
            admin = bool(info.get("is_admin") or info.get("is_owner") or info.get("is_primary_owner"))
            actor = Actor(user_id, str(name), admin)
        except (SlackApiError, TimeoutError) as exc:
            log.warning("users.info for %s failed (%s); treating them as a member", user_id,
                        api_error(exc) if isinstance(exc, SlackApiError) else f"no answer in {USER_LOOKUP_WAIT:g} s")
            actor, ttl = Actor(user_id, fallback or user_id, False), 30.0
        self._users[cached] = (now + ttl, actor)
        return actor
