"""Persistent message components: buttons and selects whose ``custom_id`` names the table.

Every id starts with ``liars:`` and carries the table key (guild and channel ids), so a click is
routed by the id alone — no view object has to survive in memory.  The classes are
``discord.ui.DynamicItem``s, registered once in ``setup_hook``; a restarted bot therefore handles
the buttons on messages an earlier process posted.

=====================================  ==============================================================
``liars:<action>:<guild>:<channel>``   a table button: ``join``, ``leave``, ``deal``, ``challenge``,
                                       ``raise``, ``count``, ``hand``, ``odds`` (any command name)
``liars:open-<verb>:<guild>:<channel>``  a button that opens a game's form (Raise…, Declare…, Discard…)
``liars:pick-<verb>-<n>:<g>:<c>``      a form's first (``1``) or second (``2``) select
``liars:tog-<verb>:<g>:<c>:<mask>:<i>`` a card toggle: ``mask`` is what is marked, ``i`` the card
``liars:go-<verb>:<g>:<c>:<a>:<b>``    a form's send button: the two chosen values, or the mask
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
    "ComponentHandler",
    "FormButton",
    "FormSelect",
    "SendButton",
    "TableButton",
    "ToggleButton",
    "button_custom_id",
    "open_custom_id",
    "select_custom_id",
    "send_custom_id",
    "toggle_custom_id",
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

    async def open_form(self, interaction: discord.Interaction[Any], key: TableKey, verb: str) -> None: ...

    async def form_pick(self, interaction: discord.Interaction[Any], key: TableKey, verb: str, part: int,
                        value: str) -> None: ...

    async def form_toggle(self, interaction: discord.Interaction[Any], key: TableKey, verb: str, mask: int,
                          index: int) -> None: ...

    async def form_send(self, interaction: discord.Interaction[Any], key: TableKey, verb: str, first: str,
                        second: str) -> None: ...


def _handler(interaction: discord.Interaction[Any]) -> ComponentHandler:
    return cast(ComponentHandler, interaction.client)


def _key(match: re.Match[str]) -> TableKey:
    return TableKey(PLATFORM, match["guild"], match["channel"])


def button_custom_id(action: str, key: TableKey) -> str:
    return f"liars:{action}:{key.server_id}:{key.channel_id}"


def open_custom_id(verb: str, key: TableKey) -> str:
    return f"liars:open-{verb}:{key.server_id}:{key.channel_id}"


def select_custom_id(verb: str, part: int, key: TableKey) -> str:
    return f"liars:pick-{verb}-{part}:{key.server_id}:{key.channel_id}"


def toggle_custom_id(verb: str, key: TableKey, mask: int, index: int) -> str:
    return f"liars:tog-{verb}:{key.server_id}:{key.channel_id}:{mask}:{index}"


def send_custom_id(verb: str, key: TableKey, first: str, second: str) -> str:
    return f"liars:go-{verb}:{key.server_id}:{key.channel_id}:{first}:{second}"


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


class FormButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"liars:open-(?P<verb>[a-z]+):(?P<guild>\d+):(?P<channel>\d+)",
):
    """A table button that opens a game's form for whoever clicks it (ephemeral)."""

    def __init__(self, verb: str, key: TableKey, label: str = "", style: str = "secondary") -> None:
        super().__init__(
            discord.ui.Button(
                label=label or verb,
                style=STYLES.get(style, discord.ButtonStyle.secondary),
                custom_id=open_custom_id(verb, key),
            )
        )
        self.verb = verb
        self.key = key

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> FormButton:
        return cls(match["verb"], _key(match))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _handler(interaction).open_form(interaction, self.key, self.verb)


class FormSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"liars:pick-(?P<verb>[a-z]+)-(?P<part>[12]):(?P<guild>\d+):(?P<channel>\d+)",
):
    """A form's first or second choice (a bid's quantity, then digit; a declaration's type, then ranks)."""

    def __init__(self, verb: str, part: int, key: TableKey, options: list[discord.SelectOption] | None = None,
                 placeholder: str | None = None) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=select_custom_id(verb, part, key),
                options=options or [discord.SelectOption(label="-", value="-")],
                placeholder=placeholder,
                min_values=1,
                max_values=1,
            )
        )
        self.verb = verb
        self.part = part
        self.key = key

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> FormSelect:
        return cls(match["verb"], int(match["part"]), _key(match))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = self.item.values
        await _handler(interaction).form_pick(interaction, self.key, self.verb, self.part,
                                              values[0] if values else "")


class ToggleButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"liars:tog-(?P<verb>[a-z]+):(?P<guild>\d+):(?P<channel>\d+):(?P<mask>\d{1,3}):(?P<i>\d{1,2})",
):
    """One card of a many-choice form (Discard…): a click marks or unmarks it."""

    def __init__(self, verb: str, key: TableKey, mask: int, index: int, label: str = "") -> None:
        marked = bool(mask >> index & 1)
        super().__init__(
            discord.ui.Button(
                label=label or str(index + 1),
                style=discord.ButtonStyle.danger if marked else discord.ButtonStyle.secondary,
                custom_id=toggle_custom_id(verb, key, mask, index),
            )
        )
        self.verb = verb
        self.key = key
        self.mask = mask
        self.index = index

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ToggleButton:
        return cls(match["verb"], _key(match), int(match["mask"]), int(match["i"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _handler(interaction).form_toggle(interaction, self.key, self.verb, self.mask, self.index)


class SendButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"liars:go-(?P<verb>[a-z]+):(?P<guild>\d+):(?P<channel>\d+):(?P<a>[\w\-#]{0,30}):(?P<b>[\w\-#]{0,30})",
):
    """A form's send button, carrying what was chosen (so no state lives in memory)."""

    def __init__(self, verb: str, key: TableKey, first: str, second: str, label: str = "Send") -> None:
        super().__init__(
            discord.ui.Button(
                label=label[:80],
                style=discord.ButtonStyle.primary,
                custom_id=send_custom_id(verb, key, first, second),
            )
        )
        self.verb = verb
        self.key = key
        self.first = first
        self.second = second

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> SendButton:
        return cls(match["verb"], _key(match), match["a"], match["b"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _handler(interaction).form_send(interaction, self.key, self.verb, self.first, self.second)
