"""The service's messages and replies as Discord message parts (forms: ``forms.py``).

Only translation lives here.  What the bot says is written in ``bot/messages.py``: its ``**bold**``
is Discord's own markdown and its ``<@id>`` mentions are Discord's own for human players, so text
passes through :func:`~bot.model.render_mentions` (computer players become their names) and is cut
to Discord's 2,000 characters.  Buttons become :class:`~adapters.discord.components.TableButton`s
whose ids name the table.

The few words that belong to Discord alone (the Raise… form, the notice for closed DMs, the answer to
a command sent in a DM, the apology) are in :data:`TEXT`.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import discord

from adapters import pictures
from bot.commands import first_or, hand_labels
from bot.model import Button, Message, Reply, TableKey, render_mentions, split_text

from .components import FormButton, TableButton

__all__ = [
    "ALLOWED_MENTIONS",
    "CONTENT_LIMIT",
    "TEXT",
    "buttons_view",
    "chunks",
    "hand_button",
    "jump_url",
    "jump_view",
    "mention",
    "picture_attachment",
    "record_file",
    "render",
    "suits",
]

CONTENT_LIMIT = 2000
# Players are pinged by their own mention; nobody can make the bot ping @everyone or a role.
ALLOWED_MENTIONS = discord.AllowedMentions(everyone=False, roles=False, users=True, replied_user=False)

TEXT = {
    "dm_refusal": "Tables live in server channels: use `/liars` in the channel where you play. "
    "Here I can show what you hold again (`/liars hand`) or `/liars help`.",
    "apology": "Sorry, something went wrong on my side. Please try again in a moment.",
    "stopping": "The bot is restarting: nothing was done. Please try again in a moment.",
    "cannot_post": "I cannot post in this channel (I need View Channel and Send Messages here), so nobody would see "
    "the table: ask an admin to let me post, or open it in another channel.",
    "bad_input": "I could not read that command's options. `/liars help` lists what each one takes.",
    "stale_command": "That command is not one this bot has any more (Discord may still be updating its list): "
    "`/liars help` lists them.",
    "dm_closed": "{players}: I could not send you a direct message (your DMs are closed), so what you were "
    "dealt was not sent. Press {hand} on the table message: it shows it to you alone.",
    "press_hand": "{players}: here I can only answer you, not write to you: press {hand} "
    "on the table message to see yours, privately.",
    "no_hand": "You hold nothing right now: what you are dealt comes by DM when a round is dealt at your table.",
    "jump": "Go to the table",
    "record": "liars-record-{channel}.json",
    "stale_button": "That button is not one of mine any more. `/liars status` shows the table here.",
}


def mention(uid: str) -> str:
    return f"<@{uid}>"


def hand_button(label: str | None) -> str:
    """How a notice names the table message's button that shows a player what they hold: the label the
    bot put on the undelivered message (**My serial**), else every game's (**My serial** (or **My hand**)):
    a message the bot did not label (its game deals nothing hidden)."""
    return first_or([f"**{words}**" for words in ((label,) if label else hand_labels())])


# Card suits in emoji presentation: Discord draws hearts and diamonds red, spades and clubs black.
SUITS = str.maketrans({"♥": "♥\ufe0f", "♦": "♦\ufe0f", "♠": "♠\ufe0f", "♣": "♣\ufe0f"})


def suits(text: str) -> str:
    """Cards in two colours (``7♥ Q♠`` → red 7♥️, black Q♠️)."""
    return text.translate(SUITS)


def render(item: Message | Reply) -> str:
    """The text with mentions rendered (humans pinged, computer players named) and suits coloured."""
    return suits(render_mentions(item, mention))


def chunks(text: str, limit: int = CONTENT_LIMIT) -> list[str]:
    """Split at line ends so each piece fits in one message (an empty text becomes a zero-width space)."""
    return [piece or "\u200b" for piece in split_text(text, limit)]


def buttons_view(buttons: Sequence[Button], key: TableKey, table: int | None = None,
                 turn: int | None = None) -> discord.ui.View | None:
    """A view of table buttons (persistent: no timeout, ids carry the table, and ``table``: the one they
    were drawn for; a button that answers the table as drawn, ``turn`` too); None if no buttons."""
    if not buttons:
        return None
    view = discord.ui.View(timeout=None)
    for b in buttons[:25]:
        if b.form:
            view.add_item(FormButton(key, b.action, b.label, b.style, table=table))
        else:
            view.add_item(TableButton(key, b.action, b.label, b.style, table=table,
                                      turn=turn if b.at_turn else None))
    return view


def jump_url(key: TableKey, message_id: str | None = None) -> str:
    url = f"https://discord.com/channels/{key.server_id}/{key.channel_id}"
    return f"{url}/{message_id}" if message_id else url


def jump_view(key: TableKey, message_id: str | None = None) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(label=TEXT["jump"], url=jump_url(key, message_id)))
    return view


def record_file(reply: Reply, key: TableKey) -> discord.File | None:
    """An exported game record, as a JSON attachment."""
    record = (reply.data or {}).get("record") if reply.ok else None
    if not isinstance(record, str):
        return None
    return discord.File(io.BytesIO(record.encode("utf-8")), filename=TEXT["record"].format(channel=key.channel_id))


def picture_attachment(message: Message, png: bytes) -> tuple[discord.File, discord.Embed]:
    """A message's drawn picture (``pictures.draw``) as a PNG attachment, and the embed that shows it
    (``attachment://``)."""
    assert message.picture is not None
    name = pictures.filename(message.picture)
    embed = discord.Embed(colour=discord.Colour.dark_green())
    embed.set_image(url=f"attachment://{name}")
    alt = render_mentions(message).replace("*", "").split("\n")[0][:1000]  # the alt text: the text's first line
    return discord.File(io.BytesIO(png), filename=name, description=alt), embed
