"""The Discord :class:`~bot.ports.Notifier`: what a table says, sent to Discord.

* A message with ``panel`` (the lobby, the table) is one channel message edited in place; ``fresh``
  posts a new one (a new round).  Its id is kept in the table's panel book (:class:`bot.panels.Panels`,
  handed over at construction: the notifier knows nothing of the service), so a restarted bot goes on
  editing the same message.  If the message was deleted, a new one is posted.
* A message with ``to`` (a dealt serial) goes by DM, with a link back to the table.  If the DM is
  refused (the player's DMs are closed), one notice in the table's channel mentions every such
  player and tells them to press the game's hand button, which answers ephemerally: its words (**My
  serial**, **My hand**) come on the message (``Message.hand_label``), so a restarted bot names it too.
  The notice never carries the serial.
* Anything else is a plain channel message.  One that carries a ``picture`` (the count, a challenge,
  a chart) goes as text at once; its picture is drawn in the picture worker process
  (``pictures.draw``) off the table's queue and then edited into the message as a PNG attachment shown
  in an embed, below the text (kept for screen readers and notifications).  So the table's next
  messages (the next deal, the next bids) never wait for a drawing: under load the one worker process
  queues pictures, not play.  If drawing fails, the text stays alone and one WARNING is logged.

Channel traffic stays low: each bid is one edit of the table message.  Rate limits are discord.py's
business (it waits out 429s per route); nothing here retries by itself.  While it waits, the table's
next messages queue up (the service's outbox hands them over together), and a panel message that a
later one in the same batch makes moot is dropped (:func:`drop_moot_panels`): under load the latest
state wins and a busy channel's table message does not fall behind by a queue of stale edits.

**Components V2** (``layout="v2"``, the default): the table message is one container
(:mod:`adapters.discord.layout`) and the result of its round (the count, a card challenge) and its
picture go into it rather than into messages of their own.  The classic layout stays for
``layout="classic"`` and for a table message too long for V2.

**Private channels** (the app installed to a user: group DMs, DMs between friends): the same messages
go through the interactions' webhooks (:mod:`adapters.discord.links`): public ones as follow-ups and
edits, private ones as ephemeral follow-ups to their reader's own live interaction, or, when the reader
has none, a notice asking them to press the game's hand button (never the secret).

Privacy: nothing here logs a message's text (a private message carries a serial); logs name the
message's kind, channel and Discord's error code only.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord

from adapters import pictures
from bot.background import spawn
from bot.model import Message, TableKey
from bot.ports import PanelRefs

from .layout import table_layout
from .links import ChannelSurface, Links, NoLink, Surface, WebhookSurface
from .render import (
    ALLOWED_MENTIONS,
    CONTENT_LIMIT,
    TEXT,
    buttons_view,
    chunks,
    hand_button,
    jump_view,
    mention,
    picture_attachment,
    render,
)

__all__ = ["DiscordNotifier", "drop_moot_panels"]

# a request that got no answer from Discord (a dropped connection, a timeout), not one Discord refused:
# aiohttp's ServerDisconnectedError is no OSError
CONNECTION_ERRORS = (OSError, aiohttp.ClientError, discord.ClientException, TimeoutError)

log = logging.getLogger(__name__)


def drop_moot_panels(messages: Sequence[Message]) -> list[Message]:
    """The batch without the panel messages that a later message of the same panel makes moot.

    An edit is moot when the same panel is edited again or replaced later in the batch (the later one
    draws the newer state); a replacing message (a new turn ping, which notifies) is moot only when
    another replacing one follows.  A ``fresh`` message (a new round's table message) is never dropped,
    and nothing before it is made moot by what comes after it: those edit the previous message.
    Messages that are not panels (DMs, plain posts, pictures) always go."""
    kept: list[Message] = []
    nearest: dict[str, Message] = {}  # per panel, the nearest later message that is being sent
    for message in reversed(messages):
        panel = message.panel
        if panel is None or message.to is not None:
            kept.append(message)
            continue
        later = nearest.get(panel)
        if (not message.fresh and later is not None and not later.fresh
                and (later.replace or not message.replace)):
            continue
        nearest[panel] = message
        kept.append(message)
    kept.reverse()
    return kept


@dataclass(slots=True)
class _Result:
    """V2: a round's result drawn into its table message, with the panel and the moves it was drawn with,
    and its picture once attached (what the message is drawn again with while it shows that result)."""

    panel: Message
    moves: list[str]
    result: Message
    picture: tuple[str, str] | None = None

    def layout(self) -> discord.ui.LayoutView | None:
        return table_layout(self.panel, moves=self.moves, result=self.result, picture=self.picture)


class DiscordNotifier:
    def __init__(self, client: discord.Client, panels: PanelRefs, *, layout: str = "v2",
                 links: Links | None = None) -> None:
        self.client = client
        self.panels = panels  # the ids of the tables' panel messages (read when sending, told of each post)
        self.v2 = layout == "v2"
        self.links = links or Links()
        self._locks: dict[TableKey, asyncio.Lock] = {}
        self.coalesced = 0  # panel messages dropped as moot (for the load bench and tests)
        self._pictures: set[asyncio.Task[None]] = set()  # pictures being drawn, then edited in
        self._tables: dict[TableKey, Message] = {}  # the table message as last drawn (V2: redrawn with more)
        self._results: dict[TableKey, _Result] = {}  # V2: the round's result drawn into the table message
        self._moves: dict[TableKey, deque[str]] = {}  # the round's earlier moves (V2's small print)
        self.unsent: set[TableKey] = set()  # private channels' tables with messages no interaction could carry

    async def deliver(self, messages: Sequence[Message]) -> None:
        if not messages:
            return
        key = messages[0].key
        sending = drop_moot_panels(messages)
        self.coalesced += len(messages) - len(sending)
        messages = sending
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:  # one table's messages go out in order, even from concurrent commands
            refused: list[Message] = []
            for message in messages:
                try:
                    if message.to is not None:
                        if not await self._direct(message):
                            refused.append(message)
                    elif message.panel is not None:
                        await self._panel(message)
                    elif not await self._into_table(message):
                        await self._post(message)
                        if message.kind == "end":
                            await self._retire(message.key, "table")
                except NoLink:
                    self.unsent.add(message.key)
                    log.info("no live interaction in channel %s: a %s message waits for the next one",
                             message.key.channel_id, message.kind)
                except discord.HTTPException as exc:
                    log.warning("discord refused a %s message for channel %s: %s %s", message.kind,
                                message.key.channel_id, exc.status, exc.code)
                except Exception:
                    log.exception("delivering a %s message to channel %s failed", message.kind,
                                  message.key.channel_id)
            if refused:
                try:
                    await self._dm_refused(refused)
                except NoLink:
                    self.unsent.add(key)

    # -- where a table's messages go ---------------------------------------------------------------
    def _channel(self, key: TableKey) -> discord.PartialMessageable:
        guild = int(key.server_id) if key.server_id.isdigit() else None
        return self.client.get_partial_messageable(int(key.channel_id), guild_id=guild, type=discord.ChannelType.text)

    def _surface(self, key: TableKey) -> Surface:
        if self.links.served(key):
            return WebhookSurface(self.links, key)
        return ChannelSurface(self._channel(key))

    async def idle(self) -> None:
        """Wait until every picture under way has been drawn and attached (or given up)."""
        while self._pictures:
            await asyncio.gather(*list(self._pictures), return_exceptions=True)

    def _later(self, work: Any, key: TableKey) -> None:
        """A picture drawn and attached off the table's queue (a failure is logged once)."""
        task = spawn(work, f"attaching a picture in channel {key.channel_id}", name="liars-discord-picture", logger=log)
        self._pictures.add(task)
        task.add_done_callback(self._pictures.discard)

    # -- the three kinds ---------------------------------------------------------------------------
    async def _attach_picture(self, message: Message, surface: Surface, message_id: str,
                              redraw: _Result | None = None) -> None:
        """Draw the message's picture and edit it into the message already sent (``redraw``: the V2 table
        message it went into, with the round's moves, as it is drawn now: the table may have closed since)."""
        assert message.picture is not None
        try:
            png = await pictures.draw(message.picture, message.names)
        except pictures.TooManyWaiting:
            return  # too many pictures waiting: the text stays alone (the worker says so, once a minute)
        except Exception as exc:
            log.warning("drawing the %s picture for channel %s failed (%s); the text goes alone", message.kind,
                        message.key.channel_id, type(exc).__name__)
            return
        file, embed = picture_attachment(message, png)
        try:
            if redraw is not None:
                # under the table's delivery lock, drawn from the table message as it stands: a close (or the
                # "Counted" panel) drawn while this edit was under way would otherwise land after it, without it
                async with self._locks.setdefault(message.key, asyncio.Lock()):
                    picture = (file.filename, file.description or "")
                    view = table_layout(redraw.panel, moves=redraw.moves, result=message, picture=picture)
                    await surface.edit(message_id, attachments=[file], view=view)
                    redraw.picture = picture
            else:
                await surface.edit(message_id, attachments=[file], embed=embed)
        except (discord.HTTPException, NoLink) as exc:
            log.warning("the %s picture for channel %s was not attached (%s)", message.kind, message.key.channel_id,
                        getattr(exc, "code", type(exc).__name__))
        except CONNECTION_ERRORS as exc:  # the connection, not Discord, failed
            log.warning("editing the %s picture into channel %s failed (%s); the text stays alone", message.kind,
                        message.key.channel_id, type(exc).__name__)

    async def _post(self, message: Message) -> None:
        surface = self._surface(message.key)
        parts = chunks(render(message))
        sent: str | None = None
        last = len(parts) - 1
        for i, part in enumerate(parts):
            view = buttons_view(message.buttons, message.key, message.table_id, message.turn) if i == last else None
            sent = await surface.send(content=part, view=view, allowed_mentions=ALLOWED_MENTIONS)
        if message.picture is not None and sent is not None:  # drawn off the table's queue, then edited in
            self._later(self._attach_picture(message, surface, sent), message.key)

    async def _into_table(self, message: Message) -> bool:
        """V2: a round's result (the count, a challenge) goes into its table message, the picture too.
        False if it cannot (the classic layout, no table message, or too long)."""
        key = message.key
        drawn = self._tables.get(key)
        ref = self.panels.ref(key, "table", message.table_id)
        if not self.v2 or message.kind != "result" or drawn is None or ref is None:
            return False
        moves = self._earlier(drawn)  # taken now: by the time the picture is drawn the next round has its own
        view = table_layout(drawn, moves=moves, result=message)
        surface = self._surface(key)
        if view is None or not await surface.edit(ref, content=None, view=view, allowed_mentions=ALLOWED_MENTIONS):
            return False
        shown = self._results[key] = _Result(drawn, moves, message)
        if message.picture is not None:
            self._later(self._attach_picture(message, surface, ref, redraw=shown), key)
        return True

    def _earlier(self, panel: Message) -> list[str]:
        """The round's moves before the one the table message says now."""
        return [m for m in self._moves.get(panel.key, ()) if m != panel.note]

    def _table_view(self, message: Message) -> dict[str, Any]:
        """What the table message is drawn with: a V2 container, else content and buttons."""
        if message.panel == "table" and self.v2:
            moves = self._moves.setdefault(message.key, deque(maxlen=4))
            if message.fresh:
                moves.clear()
            earlier = self._earlier(message)
            if message.note and (not moves or moves[-1] != message.note):
                moves.append(message.note)
            self._tables[message.key] = message
            shown = self._results.get(message.key)
            if message.fresh or shown is None:  # a new round's table message: the last one's result stays there
                self._results.pop(message.key, None)
                view = table_layout(message, moves=earlier[-3:])
            else:  # the round's table message drawn again after its result ("Counted"): the result stays in it
                shown.panel = message
                view = shown.layout()
            if view is not None:
                return {"content": None, "view": view}
        return {"content": render(message)[:CONTENT_LIMIT],
                "view": buttons_view(message.buttons, message.key, message.table_id, message.turn)}

    async def _panel(self, message: Message) -> None:
        assert message.panel is not None
        key, name = message.key, message.panel
        drawn = self._table_view(message)
        ref = None if message.fresh else self.panels.ref(key, name, message.table_id)
        surface = self._surface(key)
        if message.replace:
            # a new message (mentions notify only in new messages), then the previous one goes
            previous, ref = ref, None
        else:
            previous = None
        if ref is not None:
            if await surface.edit(ref, allowed_mentions=ALLOWED_MENTIONS, **drawn):
                return
            log.info("the %s message in channel %s is gone; posting it again", name, key.channel_id)
        sent = await surface.send(allowed_mentions=ALLOWED_MENTIONS, **drawn)
        if sent is None:
            return
        await self.panels.posted(message, sent)
        if previous is not None:
            await surface.delete(previous)

    async def _retire(self, key: TableKey, name: str) -> None:
        """A closed table's panel keeps its text (V2: and the last round's result and picture drawn into it)
        but loses its buttons."""
        ref = self.panels.ref(key, name)
        if ref is None:
            return
        drawn = self._tables.pop(key, None)
        shown = self._results.pop(key, None)
        view = None
        if drawn is not None and self.v2:
            bare = Message(drawn.key, drawn.text, drawn.kind, names=drawn.names, humans=drawn.humans, note=drawn.note)
            if shown is not None:
                shown.panel = bare  # a picture still being drawn goes in without the buttons too
            view = shown.layout() if shown is not None else table_layout(bare)
        await self._surface(key).edit(ref, view=view)

    async def _direct(self, message: Message) -> bool:
        """DM the message to its one reader (in a private channel: an ephemeral follow-up to their own
        live interaction); False if that cannot be done."""
        assert message.to is not None
        surface = self._surface(message.key)
        if isinstance(surface, WebhookSurface):
            return await surface.whisper(message.to, content=render(message)[:CONTENT_LIMIT],
                                         allowed_mentions=ALLOWED_MENTIONS)
        try:
            dm = await self.client.create_dm(discord.Object(id=int(message.to)))
            view = jump_view(message.key, self.panels.ref(message.key, "table"))
            parts = chunks(render(message))
            for i, part in enumerate(parts):
                if i == len(parts) - 1:
                    await dm.send(part, view=view, allowed_mentions=ALLOWED_MENTIONS)
                else:
                    await dm.send(part, allowed_mentions=ALLOWED_MENTIONS)
        except discord.HTTPException as exc:
            log.info("cannot DM a %s message to user %s (%s %s)", message.kind, message.to, exc.status, exc.code)
            return False
        except CONNECTION_ERRORS as exc:  # no answer at all: the player is told in the channel, as for closed DMs
            log.warning("a %s message to user %s was not delivered (%s)", message.kind, message.to,
                        type(exc).__name__)
            return False
        return True

    async def _dm_refused(self, refused: Sequence[Message]) -> None:
        """One channel notice for the players whose serial could not be sent (never the serial), naming
        the button the bot says shows it (the message's ``hand_label``)."""
        secrets = [m for m in refused if m.to is not None and m.kind == "private"]
        players = sorted({m.to for m in secrets if m.to is not None})
        if not players:
            return
        key = refused[0].key
        label = next((m.hand_label for m in secrets if m.hand_label), None)
        text = TEXT["dm_closed" if not self.links.served(key) else "press_hand"].format(
            players=", ".join(mention(p) for p in players), hand=hand_button(label))
        try:
            await self._surface(key).send(content=text, allowed_mentions=ALLOWED_MENTIONS)
        except discord.HTTPException as exc:
            log.warning("could not post the closed-DM notice in channel %s: %s %s", key.channel_id, exc.status,
                        exc.code)
