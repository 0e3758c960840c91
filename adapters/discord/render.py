"""The service's messages and replies as Discord message parts; and the Raise… form.

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

from adapters.forms import Picker
from bot.model import Button, Message, Reply, TableKey, render_mentions, split_text

from .components import BidButton, RaiseSelect, TableButton

__all__ = [
    "ALLOWED_MENTIONS",
    "CONTENT_LIMIT",
    "TEXT",
    "buttons_view",
    "chunks",
    "jump_url",
    "jump_view",
    "mention",
    "raise_form",
    "read_raise_form",
    "record_file",
    "render",
]

CONTENT_LIMIT = 2000
# Players are pinged by their own mention; nobody can make the bot ping @everyone or a role.
ALLOWED_MENTIONS = discord.AllowedMentions(everyone=False, roles=False, users=True, replied_user=False)

TEXT = {
    "dm_refusal": "Tables live in server channels: use `/liars` in the channel where you play. "
    "Here I can show your serial again (`/liars hand`) or `/liars help`.",
    "apology": "Sorry, something went wrong on my side. Please try again in a moment.",
    "bad_input": "I could not read that command's options. `/liars help` lists what each one takes.",
    "dm_closed": "{players}: I could not send you a direct message (your DMs are closed), so your serial "
    "was not sent. Press **My serial** on the table message: it shows your serial to you alone.",
    "no_hand": "You hold no serial right now: it comes by DM when a round is dealt at your table.",
    "raise_standing": "Standing bid: **{standing}**. Choose a bid that beats it, then press **Bid**.",
    "raise_opening": "No bid yet: choose the opening bid, then press **Bid**.",
    "raise_quantity": "How many",
    "raise_digit": "Of which digit",
    "raise_bid": "Bid {quantity} {digits}",
    "raise_choose": "Bid",
    "raise_none": "There is no higher bid to make: challenge instead.",
    "jump": "Go to the table",
    "record": "liars-record-{channel}.json",
    "stale_button": "That button is not one of mine any more. `/liars status` shows the table here.",
}


def mention(uid: str) -> str:
    return f"<@{uid}>"


def render(item: Message | Reply) -> str:
    """The text with mentions rendered (humans pinged, computer players named)."""
    return render_mentions(item, mention)


def chunks(text: str, limit: int = CONTENT_LIMIT) -> list[str]:
    """Split at line ends so each piece fits in one message (an empty text becomes a zero-width space)."""
    return [piece or "\u200b" for piece in split_text(text, limit)]


def buttons_view(buttons: Sequence[Button], key: TableKey) -> discord.ui.View | None:
    """A view of table buttons (persistent: no timeout, ids carry the table); None if no buttons."""
    if not buttons:
        return None
    view = discord.ui.View(timeout=None)
    for b in buttons[:25]:
        view.add_item(TableButton(b.action, key, b.label, b.style))
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


# -- the Raise… form ------------------------------------------------------------------------------
def raise_form(
    key: TableKey,
    options: Picker,
    quantity: int | None = None,
    digit: int | None = None,
    note: str = "",
) -> tuple[str, discord.ui.View | None]:
    """Content and view of the ephemeral Raise… form: a quantity select, a digit select (named by the
    table's rank order, highest first) and a Bid button, offering only the legal bids the game lists
    (quantity → digits that beat the standing bid at that quantity)."""

    def legal_digits(q: int) -> list[tuple[int, str]]:
        return [(int(d), label) for d, label in options.seconds(str(q))]

    quantities = [int(q) for q, _ in options.choices][:25]
    intro = TEXT["raise_standing"].format(standing=options.intro) if options.intro else TEXT["raise_opening"]
    content = f"{note}\n{intro}" if note else intro
    if not quantities:
        return f"{note}\n{TEXT['raise_none']}" if note else TEXT["raise_none"], None
    if quantity not in quantities:
        quantity = quantities[0]
    allowed = legal_digits(quantity)
    if digit not in [d for d, _ in allowed]:
        digit = None
    view = discord.ui.View(timeout=None)
    q_options = [discord.SelectOption(label=str(q), value=str(q), default=q == quantity) for q in quantities]
    d_options = [discord.SelectOption(label=label, value=str(d), default=d == digit) for d, label in allowed]
    view.add_item(RaiseSelect("q", key, q_options, TEXT["raise_quantity"]))
    view.add_item(RaiseSelect("d", key, d_options, TEXT["raise_digit"]))
    if digit is None:
        view.add_item(discord.ui.Button(label=TEXT["raise_choose"], style=discord.ButtonStyle.primary,
                                        custom_id=f"liars:bid-pending:{key.server_id}:{key.channel_id}",
                                        disabled=True))
    else:
        name = dict(allowed)[digit].split(" (")[0]
        view.add_item(BidButton(key, quantity, digit, TEXT["raise_bid"].format(quantity=quantity, digits=name)))
    return content, view


def read_raise_form(message: discord.Message | None) -> tuple[int | None, int | None]:
    """The quantity and digit currently chosen on a Raise… form message (its selects' defaults)."""
    chosen: dict[str, int | None] = {"q": None, "d": None}
    if message is None:
        return None, None
    for row in message.components:
        for comp in getattr(row, "children", []):
            custom_id = getattr(comp, "custom_id", None) or ""
            if not custom_id.startswith("liars:pick-"):
                continue
            part = custom_id[len("liars:pick-")]
            for opt in getattr(comp, "options", []):
                if opt.default and opt.value.isdigit():
                    chosen[part] = int(opt.value)
    return chosen["q"], chosen["d"]
