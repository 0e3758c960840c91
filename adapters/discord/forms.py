"""A game's forms on Discord: ephemeral messages whose components carry every choice in their ids.

* A two-step form (the serial game's Raise…: quantity → digit; the card game's Declare…: hand type →
  ranks) is two selects and a send button; picking the first re-lists the second.
* A many-choice form (the card game's Discard…) is one toggle button per card, marked in red when
  chosen, and a send button.

The chosen values (or the toggles' bit mask) ride in the ``custom_id``s, so a form works after a restart
and two players' forms never mix.  The form's contents always come fresh from the service
(``Service.form``), so only what is legal for the clicker now is offered.  The one thing kept in memory
is which form messages have sent their move (the last 1,024), so a double click's second send changes
nothing; a click is acknowledged at once, before it waits for the other's send to finish.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol

import discord

from adapters.forms import Picker, picker
from bot.model import Actor, Command, Reply, TableKey
from bot.service import Service, UserError
from core.game import Form, FormField

from .components import FormSelect, SendButton, ToggleButton, drawn_at, drawn_for
from .render import suits

__all__ = ["FORM_TEXT", "FormFlows", "chosen_values", "form_view", "picker_view", "toggle_view"]

FORM_TEXT = {
    "choose": "Choose first",
    "none": "There is nothing higher to choose: challenge instead.",
    "sent": "Done.",
    "more": "{count} higher choices are not listed here (a menu holds 25): type one with `/liars {verb}`.",
}
MAX_CHOICES = 25  # a select's options, and a message's buttons


def _intro(form: Form) -> str:
    return form.intro or form.title


def picker_view(key: TableKey, form: Form, first: str | None = None, second: str | None = None, note: str = "",
                table: int | None = None, turn: int | None = None) -> tuple[str, discord.ui.View | None]:
    """Content and view of a two-step form, offering only the legal choices the game lists."""
    p: Picker = picker(form)
    intro = _intro(form)
    content = f"{note}\n{intro}" if note else intro
    if len(p.choices) > MAX_CHOICES:  # (a 12-seat table's Raise… offers quantities up to 96: the lowest 25 listed)
        content += "\n" + FORM_TEXT["more"].format(count=len(p.choices) - MAX_CHOICES, verb=form.verb)
    firsts = [value for value, _ in p.choices][:MAX_CHOICES]
    if not firsts:
        none = FORM_TEXT["none"]
        return (f"{note}\n{none}" if note else none), None
    if first not in firsts:
        first = firsts[0]
    seconds = list(p.seconds(first))[:MAX_CHOICES]
    if second not in [v for v, _ in seconds]:
        second = None
    view = discord.ui.View(timeout=None)
    first_options = [discord.SelectOption(label=label[:100], value=value, default=value == first)
                     for value, label in p.choices[:MAX_CHOICES]]
    second_options = [discord.SelectOption(label=label[:100], value=value, default=value == second)
                      for value, label in seconds]
    view.add_item(FormSelect(key, form.verb, 1, first_options, p.first_label, table=table, turn=turn))
    if not p.second:  # a one-choice form: the first choice is the whole move
        view.add_item(SendButton(key, form.verb, first, "", form.submit_label({p.first: first}), table=table,
                                 turn=turn))
        return content, view
    view.add_item(FormSelect(key, form.verb, 2, second_options, p.second_label, table=table, turn=turn))
    if second is None:
        view.add_item(discord.ui.Button(label=FORM_TEXT["choose"], style=discord.ButtonStyle.primary,
                                        custom_id=f"liars:go-pending:{key.server_id}:{key.channel_id}",
                                        disabled=True))
    else:
        label = form.submit_label({p.first: first, p.second: second})
        view.add_item(SendButton(key, form.verb, first, second, label, table=table, turn=turn))
    return content, view


def toggle_view(key: TableKey, form: Form, mask: int = 0, note: str = "", table: int | None = None,
                turn: int | None = None) -> tuple[str, discord.ui.View | None]:
    """Content and view of a many-choice form: one toggle per option, then the send button."""
    field = form.fields[0]
    options = field.options[:MAX_CHOICES - 1]
    mask &= (1 << len(options)) - 1
    intro = _intro(form)
    content = suits(f"{note}\n{intro}" if note else intro)
    view = discord.ui.View(timeout=None)
    for i, (_, label) in enumerate(options):
        view.add_item(ToggleButton(key, form.verb, mask, i, suits(label), table=table, turn=turn))
    marked = bin(mask).count("1")
    # the send button names the marked options too (cards), so that pressed later — at another hand — it
    # throws away nothing it did not show (the mask alone would pick the same places in the new hand)
    codes = "-".join(value for i, (value, _) in enumerate(options) if mask >> i & 1)
    send = SendButton(key, form.verb, str(mask), codes, form.submit_label({field.name: marked}), table=table,
                      turn=turn)
    send.item.disabled = marked == 0  # discarding nothing is simply declaring
    view.add_item(send)
    return content, view


def form_view(key: TableKey, form: Form, first: str | None = None, second: str | None = None,
              note: str = "", table: int | None = None, turn: int | None = None) -> tuple[str, discord.ui.View | None]:
    """``table``: the table the form is for, ``turn`` the move it is drawn at (its components carry both, and
    what it sends names them: ``Command.table_id``, ``Command.turn``)."""
    if form.fields and form.fields[0].multi:
        mask = int(first) if first and first.isascii() and first.isdigit() else 0
        return toggle_view(key, form, mask, note, table, turn)
    return picker_view(key, form, first, second, note, table, turn)


def chosen_values(message: discord.Message | None) -> tuple[str | None, str | None]:
    """The values chosen so far on a two-step form message (its selects' defaults)."""
    chosen: dict[str, str | None] = {"1": None, "2": None}
    if message is None:
        return None, None
    for row in message.components:
        for comp in getattr(row, "children", []):
            custom_id = getattr(comp, "custom_id", None) or ""
            if not custom_id.startswith("liars:pick-"):
                continue
            part = custom_id.split(":")[1][-1]
            for opt in getattr(comp, "options", []):
                if opt.default:
                    chosen[part] = opt.value
    return chosen["1"], chosen["2"]


def _command_options(form: Form, first: str, second: str) -> dict[str, str] | None:
    """The command options a send button's values stand for; None if they no longer fit the form."""
    if not form.fields:
        return None
    field: FormField = form.fields[0]
    if field.multi:
        if not first.isdigit():
            return None
        mask = int(first)
        picked = [value for i, (value, _) in enumerate(field.options) if mask >> i & 1]
        if second and second != "-".join(picked):  # drawn for another hand (a send drawn before names none)
            return None
        return {field.name: " ".join(picked)} if picked else None
    if len(form.fields) < 2:
        return {field.name: first}
    return {field.name: first, form.fields[1].name: second}


class Host(Protocol):
    """What the form flows need from the bot (``LiarsBot``)."""

    service: Service

    async def _guard(self, interaction: discord.Interaction[Any], what: str,
                     work: Callable[[], Awaitable[None]]) -> None: ...

    async def send_private(self, interaction: discord.Interaction[Any], text: str) -> None: ...

    def own_key(self, interaction: discord.Interaction[Any], key: TableKey) -> TableKey: ...

    @staticmethod
    def actor(interaction: discord.Interaction[Any]) -> Actor: ...


SENT_KEPT = 1024  # form messages remembered as sent (a double click comes within a second)


class FormFlows:
    """Opening a form, picking, toggling and sending — each a click on an ephemeral message."""

    def __init__(self, host: Host, render: Callable[[Reply], str]) -> None:
        self.host = host
        self.render = render
        self._sent: OrderedDict[int, None] = OrderedDict()  # form messages whose move went through (the newest)
        self._sending: dict[int, tuple[asyncio.Lock, int]] = {}  # a form's sends, one at a time: lock, users

    @contextlib.asynccontextmanager
    async def _one_send(self, message: int) -> AsyncIterator[bool]:
        """One send of a form message at a time; yields whether an earlier send of it went through (a
        double click: its second click was refused and wrote "not your turn" over "Bid placed.")."""
        lock, users = self._sending.get(message, (asyncio.Lock(), 0))
        self._sending[message] = (lock, users + 1)
        try:
            async with lock:
                yield message in self._sent
        finally:
            lock, users = self._sending[message]
            if users > 1:
                self._sending[message] = (lock, users - 1)
            else:
                del self._sending[message]

    def _went_through(self, message: int) -> None:
        self._sent[message] = None
        while len(self._sent) > SENT_KEPT:
            self._sent.popitem(last=False)

    async def _form(self, interaction: discord.Interaction[Any], key: TableKey, verb: str) -> Form | str:
        """The form for the clicker now, or why they cannot use it (a form drawn for a closed table, or at an
        earlier move, included: the clicked component names its table and move)."""
        try:
            form = await self.host.service.form(key, str(interaction.user.id), verb, drawn_for(interaction),
                                          drawn_at(interaction))
        except UserError as exc:
            return exc.text
        return form.refusal if form.refusal is not None else form

    def _table(self, interaction: discord.Interaction[Any], key: TableKey) -> int | None:
        """The table a form is drawn for: the one its component named, else the one here now."""
        named = drawn_for(interaction)
        return named if named is not None else self.host.service.table_id(key)

    def _turn(self, interaction: discord.Interaction[Any], key: TableKey) -> int | None:
        """The move a form is drawn at: the one its component named, else the one under way (a form opened now)."""
        named = drawn_at(interaction)
        return named if named is not None else self.host.service.turn(key)

    async def open(self, interaction: discord.Interaction[Any], key: TableKey, verb: str) -> None:
        async def work() -> None:
            form = await self._form(interaction, self.host.own_key(interaction, key), verb)
            if isinstance(form, str):
                await self.host.send_private(interaction, form)
                return
            own = self.host.own_key(interaction, key)
            content, view = form_view(own, form, table=self._table(interaction, own),
                                      turn=self._turn(interaction, own))
            if view is None:
                await interaction.response.send_message(content, ephemeral=True)
            else:
                await interaction.response.send_message(content, view=view, ephemeral=True)

        await self.host._guard(interaction, verb, work)

    async def _redraw(self, interaction: discord.Interaction[Any], key: TableKey, verb: str,
                      first: str | None, second: str | None) -> None:
        own = self.host.own_key(interaction, key)
        form = await self._form(interaction, own, verb)
        if isinstance(form, str):
            await interaction.response.edit_message(content=form, view=None)
            return
        content, view = form_view(own, form, first, second, table=self._table(interaction, own),
                                  turn=self._turn(interaction, own))
        await interaction.response.edit_message(content=content, view=view)

    async def pick(self, interaction: discord.Interaction[Any], key: TableKey, verb: str, part: int,
                   value: str) -> None:
        async def work() -> None:
            first, second = chosen_values(interaction.message)
            if part == 1:
                first, second = value, (second if value == first else None)
            else:
                second = value
            await self._redraw(interaction, key, verb, first, second)

        await self.host._guard(interaction, verb, work)

    async def toggle(self, interaction: discord.Interaction[Any], key: TableKey, verb: str, mask: int,
                     index: int) -> None:
        await self.host._guard(interaction, verb,
                               lambda: self._redraw(interaction, key, verb, str(mask ^ (1 << index)), None))

    async def send(self, interaction: discord.Interaction[Any], key: TableKey, verb: str, first: str,
                   second: str) -> None:
        async def work() -> None:
            # acknowledged at once (Discord allows 3 s), before waiting for another click's send to finish
            await interaction.response.defer()
            message = interaction.message.id if interaction.message is not None else interaction.id
            async with self._one_send(message) as done:
                if not done:  # (a second click on a form that has sent its move: the form keeps what it says)
                    await send(message)

        async def send(message: int) -> None:
            own = self.host.own_key(interaction, key)
            form = await self._form(interaction, own, verb)
            if isinstance(form, str):
                await interaction.edit_original_response(content=form, view=None)
                return
            options = _command_options(form, first, second)
            if options is None:
                content, view = form_view(own, form, note=FORM_TEXT["choose"], table=self._table(interaction, own),
                                          turn=self._turn(interaction, own))
                await interaction.edit_original_response(content=content, view=view)
                return
            cmd = Command(form.verb, own, self.host.actor(interaction), options=options,
                          request_id=f"discord:{interaction.id}", table_id=drawn_for(interaction),
                          turn=drawn_at(interaction))
            reply = await self.host.service.handle(cmd)
            text = self.render(reply)
            if reply.ok:
                self._went_through(message)
                await interaction.edit_original_response(content=text, view=None)
                return
            again = await self._form(interaction, own, verb)
            if isinstance(again, str):
                await interaction.edit_original_response(content=f"{text}\n{again}", view=None)
                return
            content, view = form_view(own, again, first, second, note=text, table=self._table(interaction, own),
                                      turn=self._turn(interaction, own))
            await interaction.edit_original_response(content=content, view=view)

        await self.host._guard(interaction, verb, work)
