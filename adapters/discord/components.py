"""Persistent message components: buttons and selects whose ``custom_id`` names the table.

Every id starts with ``liars:`` and carries the table key (guild and channel ids), so a click is
routed by the id alone — no view object has to survive in memory.  The classes are
``discord.ui.DynamicItem``s, registered once in ``setup_hook``; a restarted bot therefore handles
the buttons on messages an earlier process posted.

=====================================  ==============================================================
``liars:<action>:<guild>:<channel>``   a table button: ``join``, ``leave``, ``deal``, ``challenge``,
                                       ``raise``, ``count``, ``hand``, ``odds`` (any command name)
``liars:pick-q:<guild>:<channel>``     the Raise… form's quantity select
``liars:pick-d:<guild>:<channel>``     the Raise… form's digit select
``liars:bid:<g>:<c>:<quantity>:<d>``   the Raise… form's Bid button, once both are chosen
=====================================  ==============================================================

Callbacks only hand over to the bot (:class:`ComponentHandler`), which does all the work and catches
every error in one place.
"""

from __future__ import annotations

import re
from typing import Any, Protocol, cast

import discord

from bot.model import TableKey

__all__ = [
    "BidButton",
    "ComponentHandler",
    "RaiseSelect",
    "TableButton",
    "bid_custom_id",
    "button_custom_id",
    "select_custom_id",
]

PLATFORM = "discord"
STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}


class ComponentHandler(Protocol):
    """What the bot offers the components (see ``LiarsBot``)."""

    async def table_button(self, interaction: discord.Interaction[Any], action: str, key: TableKey) -> None: ...

    async def raise_pick(self, interaction: discord.Interaction[Any], key: TableKey, part: str,
                         value: str) -> None: ...

    async def raise_bid(self, interaction: discord.Interaction[Any], key: TableKey, quantity: int,
                        digit: int) -> None: ...


def _handler(interaction: discord.Interaction[Any]) -> ComponentHandler:
    return cast(ComponentHandler, interaction.client)


def _key(match: re.Match[str]) -> TableKey:
    return TableKey(PLATFORM, match["guild"], match["channel"])


def button_custom_id(action: str, key: TableKey) -> str:
    return f"liars:{action}:{key.server_id}:{key.channel_id}"


def select_custom_id(part: str, key: TableKey) -> str:
    return f"liars:pick-{part}:{key.server_id}:{key.channel_id}"


def bid_custom_id(key: TableKey, quantity: int, digit: int) -> str:
    return f"liars:bid:{key.server_id}:{key.channel_id}:{quantity}:{digit}"


class TableButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"liars:(?P<action>[a-z]+):(?P<guild>\d+):(?P<channel>\d+)",
):
    def __init__(self, action: str, key: TableKey, label: str = "", style: str = "secondary") -> None:
        super().__init__(
            discord.ui.Button(
                label=label or action,
                style=STYLES.get(style, discord.ButtonStyle.secondary),
                custom_id=button_custom_id(action, key),
            )
        )
        self.action = action
        self.key = key

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> TableButton:
        return cls(match["action"], _key(match))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _handler(interaction).table_button(interaction, self.action, self.key)


class RaiseSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"liars:pick-(?P<part>[qd]):(?P<guild>\d+):(?P<channel>\d+)",
):
    def __init__(self, part: str, key: TableKey, options: list[discord.SelectOption] | None = None,
                 placeholder: str | None = None) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=select_custom_id(part, key),
                options=options or [discord.SelectOption(label="-", value="-")],
                placeholder=placeholder,
                min_values=1,
                max_values=1,
            )
        )
        self.part = part
        self.key = key

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> RaiseSelect:
        return cls(match["part"], _key(match))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = self.item.values
        await _handler(interaction).raise_pick(interaction, self.key, self.part, values[0] if values else "")


class BidButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"liars:bid:(?P<guild>\d+):(?P<channel>\d+):(?P<q>\d{1,3}):(?P<d>\d)",
):
    def __init__(self, key: TableKey, quantity: int, digit: int, label: str = "Bid") -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.primary,
                custom_id=bid_custom_id(key, quantity, digit),
            )
        )
        self.key = key
        self.quantity = quantity
        self.digit = digit

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> BidButton:
        return cls(_key(match), int(match["q"]), int(match["d"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _handler(interaction).raise_bid(interaction, self.key, self.quantity, self.digit)
