"""The table message as one Components V2 container (discord.py's ``LayoutView``).

One message per round says everything, in one accent-coloured container: the table's state (the
panel's text: the standing bid, who is to act, what just happened), the moves before it in small print,
the buttons — and at the count or a card challenge, the result and its picture (a media gallery showing
the PNG attached to the same message), where the classic layout posts them as separate messages and
the picture in an embed.

Components V2 allows 4,000 characters of text and 40 components in a message; a table that does not fit
(:func:`table_layout` returns None) is drawn the classic way, as is everything with ``layout="classic"``
(``DISCORD_LAYOUT``, for clients and bridges that do not show V2 messages yet).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import discord

from bot.model import Message, TableKey

from .render import buttons_view, render

__all__ = ["TEXT_LIMIT", "table_layout"]

TEXT_LIMIT = 4000  # characters of text in one Components V2 message
COMPONENT_LIMIT = 40
ACCENT = discord.Colour.dark_green()


def table_layout(panel: Message, *, moves: Sequence[str] = (), result: Message | None = None,
                 picture: tuple[str, str] | None = None) -> discord.ui.LayoutView | None:
    """The table message: ``panel`` (its text and buttons), the ``moves`` before its own note, the
    ``result`` and its ``picture`` (attachment file name, alt text).  None if it does not fit V2."""
    texts = [render(panel)]
    if moves:
        texts.append("\n".join(f"-# {move}" for move in moves))
    if result is not None:
        texts.append(render(result))
    if sum(len(t) for t in texts) > TEXT_LIMIT:
        return None
    children: list[discord.ui.Item[discord.ui.LayoutView]] = []
    for i, text in enumerate(texts):
        if i:
            children.append(discord.ui.Separator())
        children.append(discord.ui.TextDisplay(text))
    if picture is not None:
        name, alt = picture
        children.append(discord.ui.MediaGallery(discord.MediaGalleryItem(f"attachment://{name}", description=alt)))
    children.extend(_rows(panel.key, panel))
    container = discord.ui.Container(*children, accent_colour=ACCENT)
    view = discord.ui.LayoutView(timeout=None)
    view.add_item(container)
    if len(list(view.walk_children())) > COMPONENT_LIMIT:
        return None
    return view


def _rows(key: TableKey, panel: Message) -> list[discord.ui.ActionRow[discord.ui.LayoutView]]:
    """The panel's buttons, five to a row (the classic layout's own buttons, in the container)."""
    classic = buttons_view(panel.buttons, key, panel.table_id, panel.turn)
    if classic is None:
        return []
    items = cast(list[discord.ui.Item[discord.ui.LayoutView]], list(classic.children))
    return [discord.ui.ActionRow(*items[i:i + 5]) for i in range(0, len(items), 5)]
