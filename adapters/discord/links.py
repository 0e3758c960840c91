"""Where the bot cannot post: group DMs and DMs between friends, through the interactions' webhooks.

Installed to a user (not to a server), the app has no bot in the channel — a group DM, a DM between
friends, or a server that lets its members use their own apps but never added this one: it may not post there, nor
DM anyone (Discord refuses both).  All it can do is answer an interaction, and for 15 minutes after
it, use that interaction's token: send follow-ups (public, or ephemeral to the one who acted), and edit
the messages that token may edit — the interaction's own message (``@original``: for a button, the
message the button is on) and the follow-ups it sent.

:class:`Links` remembers, per table, the live interactions (each for :data:`TOKEN_LIFE`, a little less
than Discord's 15 minutes): the newest of anyone's (what new public messages go through), each
player's newest (their private messages go to them alone as ephemeral follow-ups), and, per message,
the interactions that may edit it, newest first.  A click may edit the message it is on only if it was
answered as an update of that message: a click answered by a private message (a form, a refusal, My
serial) has that private message as its ``@original``, so it is passed over (before session 22 the table
was drawn into the clicker's private message, and the table message went stale).  Every interaction in
such a channel refreshes them: a click on any button of the table message — My serial, Odds, Status —
gives the table 15 more minutes.

:class:`Surface` is where the notifier sends: a channel (:class:`ChannelSurface`, the usual), or the
interactions' webhooks (:class:`WebhookSurface`).  When no interaction is live, nothing can be sent:
the message is dropped (one INFO line) and the table message shows the state again at the next
interaction (the bot redraws it then).  When no live interaction may edit the table message, a new
one is posted through the newest interaction and becomes the table message.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import discord

from bot.model import TableKey

from .config import PRIVATE_PREFIX, is_private_server

__all__ = ["TOKEN_LIFE", "ChannelSurface", "Link", "Links", "NoLink", "Surface", "WebhookSurface", "private_key"]

log = logging.getLogger(__name__)

TOKEN_LIFE = 14 * 60.0  # seconds an interaction's token is used (Discord's tokens last 15 minutes)
EDITORS_KEPT = 8  # interactions remembered per message that may edit it
ANSWER_WAIT = 3.0  # seconds a follow-up waits for the interaction's own answer (Discord needs it first)
LATE_ANSWER_WAIT = 20.0  # a public message with no interaction answered waits this much longer for the newest's


def private_key(channel_id: int | str) -> TableKey:
    """The table key of a group DM or a DM between friends: its own ledger, ``discord:dm<channel>``."""
    return TableKey("discord", f"{PRIVATE_PREFIX}{channel_id}", str(channel_id))


class NoLink(Exception):
    """No interaction in the channel is live: nothing can be sent there now."""


@dataclass
class Link:
    """One interaction, usable until ``until``.  ``answered``, when set by whoever answers it, says its own
    answer has gone."""

    interaction: discord.Interaction[Any]
    user: str
    until: float
    answered: asyncio.Event | None = None

    def done(self) -> bool:
        """Whether its own answer has gone (a follow-up through it is then a message of its own)."""
        return (self.answered is None or self.answered.is_set()) and self.interaction.response.is_done()

    async def ready(self) -> bool:
        """Wait (a little) for the interaction's own answer: a follow-up may only come after it, and the
        first follow-up after a "thinking" answer would take its place — seen as that answer is: a serial
        whispered through a slow command's public "thinking…" would be shown to the whole channel.  False if
        the answer has not gone in that time (the follow-up must go another way, or not at all)."""
        if self.answered is not None:
            try:
                await asyncio.wait_for(self.answered.wait(), ANSWER_WAIT)
            except TimeoutError:
                return False
        for _ in range(int(ANSWER_WAIT / 0.01)):
            if self.done():  # (the command's wait, ``answered``, may be set on this link while it waits)
                return True
            await asyncio.sleep(0.01)
        return False


@dataclass
class _Channel:
    newest: Link | None = None
    users: dict[str, Link] = field(default_factory=dict)
    editors: dict[str, list[tuple[Link, bool]]] = field(default_factory=dict)  # message id -> [(link, is @original)]


class Links:
    """The live interactions of the tables in private channels (see the module's docstring)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, life: float = TOKEN_LIFE) -> None:
        self.clock = clock
        self.life = life
        self._channels: dict[TableKey, _Channel] = {}
        self._without_bot: set[TableKey] = set()  # server channels where the app is a member's, not the server's

    def served(self, key: TableKey) -> bool:
        """Whether the table's messages go through interactions (a private channel's table, or one in a
        server without the bot, as its interactions said)."""
        return is_private_server(key.server_id) or key in self._without_bot

    def note(self, key: TableKey, interaction: discord.Interaction[Any]) -> Link:
        """An interaction arrived at this table: it is the newest, and may edit the message it is on.  Noted twice
        (``on_interaction`` and the command's own handling, in either order), it is one link: the command's wait
        for its answer (``answered``) holds for both."""
        seen = self._channels.get(key)
        known = seen.users.get(str(interaction.user.id)) if seen is not None else None
        if known is not None and known.interaction.id == interaction.id:
            return known
        link = Link(interaction, str(interaction.user.id), self.clock() + self.life)
        if interaction.guild_id is not None:  # a server: the bot is in it if the app is installed to it
            if interaction.is_guild_integration():
                self._without_bot.discard(key)
            else:
                self._without_bot.add(key)
        channel = self._channels.setdefault(key, _Channel())
        channel.newest = link
        channel.users[link.user] = link
        message = getattr(interaction, "message", None)
        if message is not None:  # it may edit the message, if it is answered as an update of it (``editors``)
            self._add_editor(channel, str(message.id), (link, True))
        self._forget_expired(channel)
        return link

    def created(self, key: TableKey, message_id: str, link: Link) -> None:
        """``link`` sent this message: it may edit it."""
        self._add_editor(self._channels.setdefault(key, _Channel()), message_id, (link, False))

    @staticmethod
    def _add_editor(channel: _Channel, message_id: str, editor: tuple[Link, bool]) -> None:
        older = [e for e in channel.editors.get(message_id, []) if e[0] is not editor[0]]
        channel.editors[message_id] = [editor, *older][:EDITORS_KEPT]

    def newest(self, key: TableKey) -> Link:
        channel = self._channels.get(key)
        link = channel.newest if channel is not None else None
        if link is None or link.until <= self.clock():
            raise NoLink()
        return link

    def answered(self, key: TableKey) -> Link | None:
        """The newest live interaction whose own answer has gone (each player's newest is remembered)."""
        channel = self._channels.get(key)
        now = self.clock()
        live = [link for link in (channel.users.values() if channel is not None else ()) if link.until > now]
        return max((link for link in live if link.done()), key=lambda link: link.until, default=None)

    def of_user(self, key: TableKey, user: str) -> Link | None:
        channel = self._channels.get(key)
        link = channel.users.get(user) if channel is not None else None
        return link if link is not None and link.until > self.clock() else None

    def editors(self, key: TableKey, message_id: str) -> list[tuple[Link, bool]]:
        """The live interactions that may edit this message, newest first: ``(link, True)`` through its
        ``@original`` (to be checked with :func:`edits_original` once answered), ``(link, False)`` as
        the follow-up it sent."""
        channel = self._channels.get(key)
        now = self.clock()
        return [e for e in (channel.editors.get(message_id, []) if channel is not None else []) if e[0].until > now]

    def _forget_expired(self, channel: _Channel) -> None:
        now = self.clock()
        for name, found in list(channel.editors.items()):
            live = [e for e in found if e[0].until > now]
            if live:
                channel.editors[name] = live
            else:
                del channel.editors[name]
        for user in [u for u, link in channel.users.items() if link.until <= now]:
            del channel.users[user]


class Surface(Protocol):
    """Where a table's messages go: ``send`` returns the new message's id (None if it has none to keep);
    ``edit`` returns False when the message is gone or cannot be edited any more (post it anew)."""

    async def send(self, **kwargs: Any) -> str | None: ...

    async def edit(self, message_id: str, **kwargs: Any) -> bool: ...

    async def delete(self, message_id: str) -> None: ...


class ChannelSurface:
    """A server channel the bot posts in."""

    def __init__(self, channel: discord.PartialMessageable) -> None:
        self.channel = channel

    async def send(self, **kwargs: Any) -> str | None:
        content = kwargs.pop("content", None)
        return str((await self.channel.send(content, **kwargs)).id)

    async def edit(self, message_id: str, **kwargs: Any) -> bool:
        try:
            await self.channel.get_partial_message(int(message_id)).edit(**kwargs)
        except discord.NotFound:
            return False
        return True

    async def delete(self, message_id: str) -> None:
        try:
            await self.channel.get_partial_message(int(message_id)).delete()
        except discord.NotFound:
            pass


class WebhookSurface:
    """A private channel's table: follow-ups and edits through its live interactions."""

    def __init__(self, links: Links, key: TableKey) -> None:
        self.links = links
        self.key = key

    async def send(self, **kwargs: Any) -> str | None:
        link = self.links.newest(self.key)
        if not await link.ready():  # (a slow command's "thinking…": the message would take its place)
            found = self.links.answered(self.key)
            if found is None and link.answered is not None:  # none other: it goes once that answer has
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(link.answered.wait(), LATE_ANSWER_WAIT)
                found = link if link.done() else None
            if found is None:
                raise NoLink()  # (the table is drawn again at the next interaction)
            link = found
        kwargs.pop("suppress", None)
        sent = await link.interaction.followup.send(wait=True, **_followup(kwargs))
        self.links.created(self.key, str(sent.id), link)
        return str(sent.id)

    async def _editor(self, message_id: str) -> tuple[Link, bool] | None:
        """The newest live interaction that may edit this message, once its own answer has gone."""
        for link, original in self.links.editors(self.key, message_id):
            if not await link.ready():
                continue
            if not original or edits_original(link.interaction):
                return link, original
        return None

    async def edit(self, message_id: str, **kwargs: Any) -> bool:
        found = await self._editor(message_id)
        if found is None:
            return False
        link, original = found
        try:
            if original:
                await link.interaction.edit_original_response(**kwargs)
            else:
                await link.interaction.followup.edit_message(int(message_id), **kwargs)
        except discord.NotFound:
            return False
        return True

    async def delete(self, message_id: str) -> None:
        found = await self._editor(message_id)
        if found is None:
            return  # too late to delete it: it stays
        link, original = found
        try:
            if original:
                await link.interaction.delete_original_response()
            else:
                await link.interaction.followup.delete_message(int(message_id))
        except discord.NotFound:
            pass

    async def whisper(self, user: str, **kwargs: Any) -> bool:
        """An ephemeral follow-up to ``user`` through their own live interaction; False if they have none."""
        link = self.links.of_user(self.key, user)
        if link is None or not await link.ready():  # never through an answer still to come: it may be public
            return False
        await link.interaction.followup.send(ephemeral=True, **_followup(kwargs))
        return True


_UPDATES = frozenset({discord.InteractionResponseType.deferred_message_update,
                       discord.InteractionResponseType.message_update})


def edits_original(interaction: discord.Interaction[Any]) -> bool:
    """Whether the interaction was answered as an update of the message it came from, so that its
    ``@original`` is that message (not a private answer of its own)."""
    return interaction.response.type in _UPDATES


def _followup(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``send`` arguments as a webhook takes them (``content`` may not be None; a view None is no view)."""
    out = {k: v for k, v in kwargs.items() if v is not None}
    return out
