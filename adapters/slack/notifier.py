"""The Slack :class:`~bot.ports.Notifier`: what a table says, posted to Slack.

* ``deliver`` only queues (see :mod:`adapters.slack.outbox`): the service's command returns as
  soon as its events are committed, and the person who acted hears back without waiting for the Web
  API.  Each channel, and each user's DM, has its own queue, sent in order by one worker; waiting
  panel updates coalesce, so under rate limits the latest state wins.  ``idle()`` waits until
  everything queued has gone out.
* A message with ``panel`` (the lobby, the table) is one Slack message edited in place with
  ``chat.update``; ``fresh`` posts a new one.  The message's ``ts`` is kept in the panel book handed
  over at construction (:class:`bot.panels.Panels`: the notifier knows nothing of the service), which
  stores it with the table, so a restart goes on editing the same message.
* A message with ``to`` (a dealt serial) goes by DM: ``conversations.open`` + ``chat.postMessage``.
  If the DM cannot be opened or posted to, the same text goes as an ephemeral message to that player
  in the table's channel, which nobody else sees.  ``hand`` shows it again at any time.  A rate limit
  is not a failure: the DM waits and goes.
* Anything else is a plain channel message.  One that carries a ``picture`` (the count, a card
  challenge, a chart) is followed in the same channel by the picture as a PNG file: drawn on a worker
  thread (:func:`adapters.pictures.render`) and uploaded with the Web API's external-upload flow
  (``files_upload_v2``: ``files.getUploadURLExternal``, the upload, ``files.completeUploadExternal``).
  The text goes first and never waits for the drawing; the picture is queued once the text is, in the
  channel's own picture queue, so drawing and uploading never hold back the table's next messages.  If
  drawing or uploading fails, the text stays alone and one WARNING says why.  The picture is made
  only for a result (public by then).

Answer first.  While the person who acted is being answered (``hold(key)`` … the release it returns),
``deliver`` keeps that table's messages back (at most :data:`HOLD_LIMIT` seconds), so the private
answer reaches Slack before the table moves.  The service's per-table outbox calls ``deliver`` after
the commit, off the table's lock, so a held table delays only its own messages.

Many workspaces (``liars slack`` installed by OAuth): each message goes with the token of its
table's workspace (``workspaces``, :class:`~adapters.slack.oauth.Workspaces`); a message for a
workspace that has no installation any more is dropped with one INFO line, and one that Slack refuses
because the token was revoked makes the notifier read the installation again next time.  Queues and
the DM channels it remembers are per workspace, so nothing of one workspace is sent with another's.

If the bot cannot post in a channel at all (``not_in_channel`` …), ``on_channel_error`` (given at
construction: :class:`~adapters.slack.responder.CannotPost`) tells the person who acted there last,
privately.

Privacy: nothing here logs a message's text (a private message carries a serial); logs name the
message's kind, channel and Slack's error code only.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace

import aiohttp
from slack_sdk.errors import SlackApiError, SlackRequestError
from slack_sdk.web.async_client import AsyncWebClient

from adapters import pictures
from bot.model import Message, TableKey, render_mentions
from bot.ports import PanelRefs

from .oauth import REVOKED, Workspaces
from .outbox import Item, Outboxes, api_error, retry_after
from .render import render_message

__all__ = ["HOLD_LIMIT", "SlackNotifier"]

log = logging.getLogger(__name__)

# chat.update errors after which posting a new panel message is the right repair
_REPOST_ERRORS = frozenset({"message_not_found", "cant_update_message", "edit_window_closed"})
# errors that mean the bot cannot speak in the channel at all (worth telling the person who acted)
_CHANNEL_ERRORS = frozenset({"not_in_channel", "channel_not_found", "is_archived", "restricted_action"})
HOLD_LIMIT = 2.0  # seconds a table's messages wait at most for the answer to the person who acted
# a Web API call that got no answer (the connection dropped, a timeout): not Slack's refusal
NO_ANSWER = (aiohttp.ClientError, SlackRequestError, OSError, TimeoutError)
DELETE_ATTEMPTS = 4  # a replaced message's delete, rate limits waited out between (slack_sdk retries inside too)
TEXT_WAIT = 120.0  # seconds a picture waits at most for its text to be posted (rate limits, retries)


@dataclass
class _Picture:
    """An outbox item: the picture of ``message``, once drawn (kept across a rate-limited retry).
    ``text_sent`` is set once the message's text has gone (or been given up): the picture follows it."""

    message: Message
    text_sent: asyncio.Event = field(default_factory=asyncio.Event)
    png: bytes | None = None


class SlackNotifier:
    def __init__(self, client: AsyncWebClient, panels: PanelRefs, workspaces: Workspaces | None = None,
                 on_channel_error: Callable[[TableKey, str], Awaitable[None]] | None = None) -> None:
        self.client = client
        self.panels = panels  # the ids of the tables' panel messages (read at send time, told of each post)
        self.workspaces = workspaces  # many workspaces: the client of each (else ``client``'s)
        self.on_channel_error = on_channel_error  # tells whoever acted there (adapters.slack.responder)
        self._channel_errors: dict[str, str] = {}
        self._dm_channels: dict[tuple[str, str], str] = {}  # (server, user) -> DM channel (conversations.open)
        self._tables: dict[TableKey, Message] = {}  # each table's message as last drawn here (see _retire)
        # called after each table message is edited or posted (Service.redraw_if_behind: workers' edits of one
        # message are not ordered, so an older one may land last); set by the composition root
        self.after_panel: Callable[[Message], Awaitable[object]] | None = None
        self.outboxes = Outboxes(self._send)
        self._holds: dict[TableKey, set[asyncio.Future[None]]] = {}
        self.hold_limit = HOLD_LIMIT

    def hold(self, key: TableKey) -> Callable[[], None]:
        """Keep ``key``'s table messages back until the returned release is called (or ``hold_limit``
        seconds have passed: a lost release never stalls a table)."""
        held: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._holds.setdefault(key, set()).add(held)

        def release() -> None:
            if not held.done():
                held.set_result(None)
            holds = self._holds.get(key)
            if holds is not None:
                holds.discard(held)
                if not holds:
                    del self._holds[key]
        return release

    def take_channel_error(self, channel: str) -> str | None:
        """Slack's error if a channel message could not be posted since the last call (then forgotten)."""
        return self._channel_errors.pop(channel, None)

    async def deliver(self, messages: Sequence[Message]) -> None:
        """Queue the messages (each destination keeps their order) once no answer holds their table."""
        for key in dict.fromkeys(m.key for m in messages):
            holds = self._holds.get(key)
            if holds:
                await asyncio.wait(list(holds), timeout=self.hold_limit)
        for message in messages:
            server = message.key.server_id
            if message.to is not None:
                self.outboxes.put(("dm", server, message.to), Item((message, None)))
                continue
            dest = ("channel", server, message.key.channel_id)
            if message.panel is None:
                picture = _Picture(message) if message.picture is not None else None
                self.outboxes.put(dest, Item((message, picture)))
                if picture is not None:  # its own queue: drawing and uploading hold no table message back
                    self.outboxes.put(("picture", server, message.key.channel_id), Item(picture))
                continue
            self.outboxes.put(dest, Item((message, None), panel=(message.key, message.panel), fresh=message.fresh))

    async def idle(self) -> None:
        """Wait until everything delivered so far has been sent (or given up)."""
        await self.outboxes.idle()

    async def close(self, timeout: float = 5.0) -> None:  # noqa: ASYNC109 - a grace period at shutdown
        await self.outboxes.close(timeout)

    async def _client(self, key: TableKey) -> AsyncWebClient | None:
        """The client for the table's workspace (None: the app is not installed there now)."""
        if self.workspaces is None:
            return self.client
        return await self.workspaces.client(key)

    async def _send(self, dest: Hashable, item: Item, *, reread: bool = True) -> None:
        message = item.payload.message if isinstance(item.payload, _Picture) else item.payload[0]
        client = await self._client(message.key)
        if client is None:
            log.info("not installed in %s: a %s message for %s is dropped", message.key.server_id, message.kind,
                     message.key.channel_id)
            if isinstance(item.payload, tuple) and isinstance(item.payload[1], _Picture):
                item.payload[1].text_sent.set()
            return
        if isinstance(item.payload, _Picture):
            await self._picture(client, item.payload)
            return
        message, extra = item.payload
        try:
            await self._deliver(client, message, item.fresh)
        except SlackApiError as exc:
            status = getattr(exc.response, "status_code", 200)
            if retry_after(exc) is not None or (isinstance(status, int) and status >= 500):
                raise  # the outbox waits and sends it again
            error = api_error(exc)
            log.warning("slack refused a %s message for %s: %s", message.kind, message.key.channel_id, error)
            if error in REVOKED and self.workspaces is not None:
                self.workspaces.forget(message.key.server_id)
                fresh = await self._client(message.key) if reread else None
                if fresh is not None and fresh.token != client.token:
                    # the workspace installed the app again (another worker heard the uninstall, this one kept
                    # the old token for up to a minute): sent once more with the new token, not dropped
                    await self._send(dest, item, reread=False)
                    return
            if reread and error in _CHANNEL_ERRORS and await self._other_workspace(client, message, item.fresh):
                if isinstance(extra, _Picture):
                    extra.text_sent.set()
                return
            if message.to is None and error in _CHANNEL_ERRORS:
                self._channel_errors[message.key.channel_id] = error
                if self.on_channel_error is not None:
                    await self.on_channel_error(message.key, error)
        if isinstance(extra, _Picture):
            extra.text_sent.set()  # sent or refused for good: its picture may follow

    async def _deliver(self, client: AsyncWebClient, message: Message, fresh: bool) -> None:
        """Send one message with ``client`` (raises Slack's refusal)."""
        if message.to is not None:
            await self._direct(client, message)
        elif message.panel is not None:
            await self._panel(client, message, fresh)
        else:
            text, blocks = render_message(message)
            await client.chat_postMessage(channel=message.key.channel_id, text=text, blocks=blocks)
            if message.kind == "end":
                await self._retire(client, message.key)

    async def _other_workspace(self, client: AsyncWebClient, message: Message, fresh: bool) -> bool:
        """Slack refused the table's channel to ``client``'s workspace: the message is sent with each other
        workspace install of the same Enterprise Grid organisation in turn (no scope the app holds lets it ask
        which workspace a channel is), and the one that takes it is the channel's from then on.  A channel no
        install takes is not searched again for a while (:meth:`Workspaces.searched`).  Whether one took it."""
        if self.workspaces is None or not self.workspaces.may_search(message.key):
            return False
        for team, other in await self.workspaces.others(message.key, client.token):
            try:
                await self._deliver(other, message, fresh)
            except SlackApiError as exc:
                if retry_after(exc) is not None:
                    raise  # (seen by that workspace, rate-limited: the outbox sends it again)
                continue
            log.info("channel %s of %s is workspace %s's", message.key.channel_id, message.key.server_id, team)
            self.workspaces.heard(message.key.server_id, team, message.key.channel_id)
            return True
        self.workspaces.searched(message.key)
        return False

    async def _picture(self, client: AsyncWebClient, picture: _Picture) -> None:
        """Once the text has gone, draw the message's picture off the event loop and upload it."""
        message = picture.message
        assert message.picture is not None
        channel = message.key.channel_id
        try:
            await asyncio.wait_for(picture.text_sent.wait(), TEXT_WAIT)
        except TimeoutError:
            log.warning("the %s message for %s was not posted; its picture is dropped", message.kind, channel)
            return
        if picture.png is None:
            try:
                picture.png = await pictures.draw(message.picture, message.names)
            except pictures.TooManyWaiting:
                return  # too many pictures waiting: the text went alone (the worker says so, once a minute)
            except Exception as exc:
                log.warning("drawing the %s picture for %s failed (%s); the text went alone", message.kind,
                            channel, type(exc).__name__)
                return
        name = pictures.filename(message.picture)
        alt = render_mentions(message).replace("*", "").split("\n")[0][:1000]  # the text's first line
        try:
            await client.files_upload_v2(channel=channel, file=picture.png, filename=name,
                                              title=name.removesuffix(".png"), alt_txt=alt)
        except SlackApiError as exc:
            if retry_after(exc) is not None:
                raise  # rate-limited: the outbox sends it again
            log.warning("uploading the %s picture to %s failed (%s); the text went alone", message.kind, channel,
                        api_error(exc))
        except (SlackRequestError, OSError, TimeoutError) as exc:
            log.warning("uploading the %s picture to %s failed (%s); the text went alone", message.kind, channel,
                        type(exc).__name__)

    async def _retire(self, client: AsyncWebClient, key: TableKey) -> None:
        """A closed table's message keeps its text and loses its buttons (they act on nothing now: a
        closed table's button names its table and is refused).  Only a message drawn by this process."""
        drawn = self._tables.pop(key, None)
        ref = self.panels.ref(key, "table", drawn.table_id) if drawn is not None else None
        if drawn is None or ref is None or not drawn.buttons:
            return
        text, blocks = render_message(replace(drawn, buttons=()))
        try:
            await client.chat_update(channel=key.channel_id, ts=ref, text=text, blocks=blocks)
        except SlackApiError as exc:
            log.info("the closed table's message in %s was not redrawn (%s)", key.channel_id, api_error(exc))
        except NO_ANSWER as exc:  # raised, the outbox would post "The table is closed" again
            log.info("the closed table's message in %s was not redrawn (%s)", key.channel_id, type(exc).__name__)

    async def _panel(self, client: AsyncWebClient, message: Message, fresh: bool) -> None:
        assert message.panel is not None
        key, name = message.key, message.panel
        if name == "table":
            self._tables[key] = message
        text, blocks = render_message(message)
        previous = None
        # the panel's message as known at send time: this process's posts at once, another's once caught up
        ref = None if fresh else self.panels.ref(key, name, message.table_id)
        if name == "table" and not fresh and message.table_id is not None and not message.final:  # (closing: drawn)
            known = await self.panels.current(key, message.table_id)
            if known != ref:  # another process dealt this round and is posting its message: not stored yet
                if known is None:
                    log.info("the table message in %s is being posted by another process; it draws the table "
                             "as it stands once posted", key.channel_id)
                    return
                ref = known
        if message.replace:
            # a new message (mentions notify only in new messages), then the previous one goes
            previous, ref = ref, None
        if ref is not None:
            try:
                await client.chat_update(channel=key.channel_id, ts=ref, text=text, blocks=blocks)
                await self._drawn(message)
                return
            except SlackApiError as exc:
                if api_error(exc) not in _REPOST_ERRORS:
                    raise
                log.info("the %s panel in %s is gone (%s); posting it again", name, key.channel_id, api_error(exc))
        response = await client.chat_postMessage(channel=key.channel_id, text=text, blocks=blocks)
        await self.panels.posted(message, str(response["ts"]))
        if previous is not None:
            await self._delete(client, key.channel_id, previous, name)
        await self._drawn(message)

    async def _drawn(self, message: Message) -> None:
        if self.after_panel is not None and message.panel == "table":
            try:
                await self.after_panel(message)
            except Exception as exc:  # the edit went out; checking it is a courtesy
                log.warning("could not check the table in %s was drawn last (%s)", message.key.channel_id,
                            type(exc).__name__)

    async def _delete(self, client: AsyncWebClient, channel: str, ts: str, name: str) -> None:
        """Delete the message a new one replaced, waiting out rate limits here: raising would have the
        outbox send the whole item again — a second new message (a second ping), and the delete aimed at
        the first new one."""
        for attempt in range(DELETE_ATTEMPTS):
            try:
                await client.chat_delete(channel=channel, ts=ts)
                return
            except NO_ANSWER as exc:  # no answer at all: tried again here, like a rate limit
                if attempt + 1 == DELETE_ATTEMPTS:
                    log.warning("the earlier %s message in %s was not deleted (%s)", name, channel,
                                type(exc).__name__)
                    return
                await asyncio.sleep(1.0)
                continue
            except SlackApiError as exc:
                if api_error(exc) in _REPOST_ERRORS:
                    return  # gone already
                status = getattr(exc.response, "status_code", 200)
                wait = retry_after(exc)
                if wait is None and isinstance(status, int) and status >= 500:
                    wait = 1.0
                if wait is None or attempt + 1 == DELETE_ATTEMPTS:
                    log.warning("the earlier %s message in %s was not deleted (%s)", name, channel, api_error(exc))
                    return
                await asyncio.sleep(min(wait, 30.0))

    async def _direct(self, client: AsyncWebClient, message: Message) -> None:
        assert message.to is not None
        text, blocks = render_message(message)
        who = (message.key.server_id, message.to)
        try:
            channel = self._dm_channels.get(who)
            if channel is None:
                opened = await client.conversations_open(users=message.to)
                channel = self._dm_channels[who] = str(opened["channel"]["id"])
                while len(self._dm_channels) > 100_000:
                    del self._dm_channels[next(iter(self._dm_channels))]
            await client.chat_postMessage(channel=channel, text=text, blocks=blocks)
        except SlackApiError as exc:
            if retry_after(exc) is not None:
                raise  # rate-limited, not refused: the outbox sends it again
            if api_error(exc) in REVOKED:
                raise  # the workspace's token is gone: nothing can be shown there
            self._dm_channels.pop(who, None)  # open it again next time
            log.warning("cannot DM %s (%s); showing the %s message ephemerally in %s", message.to, api_error(exc),
                        message.kind, message.key.channel_id)
            await client.chat_postEphemeral(channel=message.key.channel_id, user=message.to, text=text,
                                                 blocks=blocks)

