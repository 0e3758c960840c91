"""Persistent message components: buttons and selects whose ``custom_id`` names the table.

Every id starts with ``liars:`` and carries the table key (guild and channel ids), so a click is
routed by the id alone — no view object has to survive in memory.  The classes are
``discord.ui.DynamicItem``s, registered once in ``setup_hook`` (:data:`DYNAMIC_ITEMS`); a restarted
bot therefore handles the buttons on messages an earlier process posted.

=====================================  ==============================================================
``liars:<action>:<guild>:<channel>``   a table button: ``join``, ``leave``, ``deal``, ``challenge``,
                                       ``raise``, ``count``, ``hand``, ``odds`` (any command name)
``liars:open-<verb>:<guild>:<channel>``  a button that opens a game's form (Raise…, Declare…, Discard…)
``liars:pick-<verb>-<n>:<g>:<c>``      a form's first (``1``) or second (``2``) select
``liars:tog-<verb>:<g>:<c>:<mask>:<i>`` a card toggle: ``mask`` is what is marked, ``i`` the card
``liars:go-<verb>:<g>:<c>:<a>:<b>``    a form's send button: the two chosen values, or the mask
=====================================  ==============================================================

``<guild>`` is the table key's server id: a guild's id, or ``dm<channel>`` for a group DM or a DM
between friends (where the app is installed to a user, not a server).  ``<channel>`` may be followed by
``.<table>``, the id of the table the component was drawn for (since 2 Dec 2026): the command it sends
names that table (``Command.table_id``), so a closed table's button or form never moves the channel's next
table.  A component drawn before carries none, and acts on the table that is there.  A form's components
(its selects, toggles and send button) also carry ``.<turn>`` after the table (since 2 Dec 2026), the move
the form was drawn at (``Command.turn``): once the table has moved on, the form sends nothing.  So does a
table button that answers the table as its message shows it (``Button.at_turn``: Challenge, Call the count,
Take the hand, Pass; since 2 Dec 2026 too): a click on a message drawn before the last move changes nothing.
An id that would pass Discord's 100 characters with it goes without it (a table of a trillion ids, say).

One base class, :class:`Routed`, does what every component shares: its ``custom_id`` is the head,
the table key and the values; ``from_custom_id`` rebuilds it from the id's named fields (converted
by the class's ``fields``); its callback hands the key and the values to the bot's method named by
``route`` (:class:`ComponentHandler`), which does all the work and catches every error in one place.
Each subclass only draws its item.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar, Protocol, cast

import discord

from bot.model import TableKey

__all__ = [
    "DYNAMIC_ITEMS",
    "TABLE_EXTRA",
    "ComponentHandler",
    "FormButton",
    "FormSelect",
    "Routed",
    "SendButton",
    "TableButton",
    "ToggleButton",
    "custom_id",
    "drawn_at",
    "drawn_for",
]

PLATFORM = "discord"
STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}
# a guild's id (or dm<channel> in a private channel), the channel's, and the table's the item was drawn for
_KEY = r"(?P<guild>(?:dm)?\d+):(?P<channel>\d+)(?:\.(?P<table>\d{1,12})(?:\.(?P<turn>\d{1,12}))?)?"
TABLE_EXTRA = "liars_table"  # ``Interaction.extras`` key: the table id the clicked component carries
TURN_EXTRA = "liars_turn"  # and the move a form's component was drawn at
ID_LIMIT = 100  # Discord's longest custom_id


class ComponentHandler(Protocol):
    """What the bot offers the components (see ``LiarsBot``): each takes the table key, then the values
    the component's id carries."""

    async def table_button(self, interaction: discord.Interaction[Any], key: TableKey, action: str) -> None: ...

    async def open_form(self, interaction: discord.Interaction[Any], key: TableKey, verb: str) -> None: ...

    async def form_pick(self, interaction: discord.Interaction[Any], key: TableKey, verb: str, part: int,
                        value: str) -> None: ...

    async def form_toggle(self, interaction: discord.Interaction[Any], key: TableKey, verb: str, mask: int,
                          index: int) -> None: ...

    async def form_send(self, interaction: discord.Interaction[Any], key: TableKey, verb: str, first: str,
                        second: str) -> None: ...


def drawn_for(interaction: discord.Interaction[Any]) -> int | None:
    """The id of the table the clicked component was drawn for (None: a command, or an id drawn before)."""
    table = interaction.extras.get(TABLE_EXTRA)
    return table if isinstance(table, int) else None


def drawn_at(interaction: discord.Interaction[Any]) -> int | None:
    """The move the clicked component was drawn at (None: a button that acts on the table as it is, or an id drawn
    before)."""
    turn = interaction.extras.get(TURN_EXTRA)
    return turn if isinstance(turn, int) else None


def custom_id(head: str, key: TableKey, *values: object, table: int | None = None, turn: int | None = None) -> str:
    """``liars:<head>:<server>:<channel>[.<table>[.<turn>]][:<value>...]``; without the turn where it would make
    the id longer than Discord takes."""
    channel = key.channel_id if table is None else f"{key.channel_id}.{table}"
    made = ":".join(("liars", head, key.server_id, channel, *map(str, values)))
    if table is None or turn is None:
        return made
    with_turn = ":".join(("liars", head, key.server_id, f"{channel}.{turn}", *map(str, values)))
    return with_turn if len(with_turn) <= ID_LIMIT else made


def _style(name: str) -> discord.ButtonStyle:
    return STYLES.get(name, discord.ButtonStyle.secondary)


class Routed(discord.ui.DynamicItem[Any], template=r"liars:(?!)"):
    """A component whose id carries its table key and values (see the module's docstring).  Its own
    template matches no id: only its subclasses are registered.

    A subclass names its ``template`` (with the ``guild`` and ``channel`` groups of :data:`_KEY`), the
    bot's method it calls (``route``), and its values' groups with their types (``fields``), in the
    order its constructor takes them after the key."""

    route: ClassVar[str]
    fields: ClassVar[tuple[tuple[str, Callable[[str], Any]], ...]]

    def __init__(self, item: discord.ui.Item[Any], key: TableKey, *values: Any, table: int | None = None,
                 turn: int | None = None) -> None:
        super().__init__(item)
        self.key = key
        self.values = values
        self.table = table
        self.turn = turn

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str]) -> Routed:
        key = TableKey(PLATFORM, match["guild"], match["channel"])
        build: Callable[..., Routed] = cls  # a subclass takes the key, then its values
        table = int(match["table"]) if match["table"] else None
        drawn: dict[str, int] = {"turn": int(match["turn"])} if match["turn"] else {}
        return build(key, *(kind(match[name]) for name, kind in cls.fields), table=table, **drawn)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if self.table is not None:
            interaction.extras[TABLE_EXTRA] = self.table
        if self.turn is not None:
            interaction.extras[TURN_EXTRA] = self.turn
        handler = cast(ComponentHandler, interaction.client)
        await getattr(handler, self.route)(interaction, self.key, *self._routed_values(interaction))

    def _routed_values(self, interaction: discord.Interaction[Any]) -> tuple[Any, ...]:
        return self.values


class TableButton(Routed, template=rf"liars:(?P<action>[a-z]+):{_KEY}"):
    """A table button: it sends its command (``action``) for whoever clicks it."""

    route, fields = "table_button", (("action", str),)

    def __init__(self, key: TableKey, action: str, label: str = "", style: str = "secondary", *,
                 table: int | None = None, turn: int | None = None) -> None:
        button: discord.ui.Button[Any] = discord.ui.Button(label=label or action, style=_style(style),
                                                           custom_id=custom_id(action, key, table=table, turn=turn))
        super().__init__(button, key, action, table=table, turn=turn)  # (the turn: only a move on the table as drawn)


class FormButton(Routed, template=rf"liars:open-(?P<verb>[a-z]+):{_KEY}"):
    """A table button that opens a game's form for whoever clicks it (ephemeral)."""

    route, fields = "open_form", (("verb", str),)

    def __init__(self, key: TableKey, verb: str, label: str = "", style: str = "secondary", *,
                 table: int | None = None, turn: int | None = None) -> None:
        button: discord.ui.Button[Any] = discord.ui.Button(label=label or verb, style=_style(style),
                                                           custom_id=custom_id(f"open-{verb}", key, table=table))
        super().__init__(button, key, verb, table=table, turn=turn)  # (drawn with no turn: it opens the form now)


class FormSelect(Routed, template=rf"liars:pick-(?P<verb>[a-z]+)-(?P<part>[12]):{_KEY}"):
    """A form's first or second choice (a bid's quantity, then digit; a declaration's type, then ranks);
    the bot gets the value chosen after the part."""

    route, fields = "form_pick", (("verb", str), ("part", int))

    def __init__(self, key: TableKey, verb: str, part: int, options: list[discord.SelectOption] | None = None,
                 placeholder: str | None = None, *, table: int | None = None, turn: int | None = None) -> None:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=custom_id(f"pick-{verb}-{part}", key, table=table, turn=turn), placeholder=placeholder,
            min_values=1, max_values=1, options=options or [discord.SelectOption(label="-", value="-")])
        super().__init__(select, key, verb, part, table=table, turn=turn)

    def _routed_values(self, interaction: discord.Interaction[Any]) -> tuple[Any, ...]:
        chosen = cast(discord.ui.Select[Any], self.item).values
        return (*self.values, chosen[0] if chosen else "")


class ToggleButton(Routed, template=rf"liars:tog-(?P<verb>[a-z]+):{_KEY}:(?P<mask>\d{{1,3}}):(?P<i>\d{{1,2}})"):
    """One card of a many-choice form (Discard…): a click marks or unmarks it."""

    route, fields = "form_toggle", (("verb", str), ("mask", int), ("i", int))

    def __init__(self, key: TableKey, verb: str, mask: int, index: int, label: str = "", *,
                 table: int | None = None, turn: int | None = None) -> None:
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=label or str(index + 1),
            custom_id=custom_id(f"tog-{verb}", key, mask, index, table=table, turn=turn),
            style=discord.ButtonStyle.danger if mask >> index & 1 else discord.ButtonStyle.secondary)
        super().__init__(button, key, verb, mask, index, table=table, turn=turn)


class SendButton(Routed, template=rf"liars:go-(?P<verb>[a-z]+):{_KEY}:(?P<a>[\w\-#]{{0,30}}):(?P<b>[\w\-#]{{0,30}})"):
    """A form's send button, carrying what was chosen (so no state lives in memory)."""

    route, fields = "form_send", (("verb", str), ("a", str), ("b", str))

    def __init__(self, key: TableKey, verb: str, first: str, second: str, label: str = "Send", *,
                 table: int | None = None, turn: int | None = None) -> None:
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=label[:80], style=discord.ButtonStyle.primary,
            custom_id=custom_id(f"go-{verb}", key, first, second, table=table, turn=turn))
        super().__init__(button, key, verb, first, second, table=table, turn=turn)


DYNAMIC_ITEMS: tuple[type[Routed], ...] = (TableButton, FormButton, FormSelect, ToggleButton, SendButton)
"""Every persistent component, for ``Client.add_dynamic_items``."""
