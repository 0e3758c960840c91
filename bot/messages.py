"""The table's own words (lobby, seats, timers, ledgers, errors) and how a game's words become messages.

Each game writes its own words (``core/<game>/text.py``) with mentions as ``<@id>`` and money as
``<$n>`` tokens; here the money tokens are written out with the server's unit, and the game's
:class:`~core.game.Say` values become :class:`~bot.model.Message` values for the adapters.

Privacy rule: a game's private :class:`~core.game.Say` (a serial, a hand) becomes a message addressed
to its holder only; computer seats get none.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from core.game import Control, Panel, Say, SayKind

from .model import Button, Message, MessageKind
from .table import TableState, TableStatus

__all__ = [
    "closed_message",
    "lobby_message",
    "mention",
    "panel_message",
    "say_messages",
    "seat_list",
    "settings_text",
    "signed_units",
    "table_message",
    "turn_message",
    "units",
    "with_units",
]

B_JOIN = Button("join", "Join", "primary")
B_LEAVE = Button("leave", "Leave", "secondary")
B_DEAL = Button("deal", "Deal", "success")

_KIND = {
    SayKind.NOTE: MessageKind.NOTE,
    SayKind.DEAL: MessageKind.DEAL,
    SayKind.PRIVATE: MessageKind.PRIVATE,
    SayKind.RESULT: MessageKind.RESULT,
    SayKind.END: MessageKind.INFO,
}
_UNITS = re.compile(r"<\$(-?\d+)>")


def mention(player: str) -> str:
    return f"<@{player}>"


def units(n: int, settings: Mapping[str, Any] | None = None) -> str:
    """``3 units ($3.00)`` — money is integers: ``unit_value`` is in minor units (cents)."""
    text = f"{n} unit{'s' if abs(n) != 1 else ''}"
    if settings and settings.get("unit_value"):
        minor = n * int(settings["unit_value"])
        sign = "-" if minor < 0 else ""
        whole, cents = divmod(abs(minor), 100)
        text += f" ({sign}{settings.get('currency', '$')}{whole:,}.{cents:02d})"
    return text


def signed_units(n: int, settings: Mapping[str, Any] | None = None) -> str:
    return ("+" if n > 0 else "") + units(n, settings)


def with_units(text: str, settings: Mapping[str, Any] | None) -> str:
    """Write a game's ``<$n>`` money tokens out with the server's unit."""
    return _UNITS.sub(lambda m: units(int(m.group(1)), settings), text)


def button(control: Control) -> Button:
    return Button(control.verb, control.label, control.style, control.form)


def table_message(table: TableState, text: str, kind: MessageKind, **kw: Any) -> Message:
    text = text.replace("<#table>", f"<#{table.key.channel_id}>")
    return Message(key=table.key, text=text, kind=kind, names=dict(table.names), humans=table.humans, **kw)


def seat_list(table: TableState) -> str:
    parts = []
    for p in table.seats:
        tag = " (host)" if p == table.host else ""
        if table.is_computer(p):
            tag += " 🤖"
        if p in table.pending_leave:
            tag += " (leaving)"
        parts.append(f"{mention(p)}{tag}")
    return ", ".join(parts)


def lobby_message(table: TableState, fresh: bool = False) -> Message:
    if table.status == TableStatus.ENDED:
        text = f"🃏 This table is closed. {table.ended_reason}".strip()
        return table_message(table, text, MessageKind.LOBBY, panel="lobby")
    text = (
        f"🃏 **{table.game.title}** — {mention(table.host)} opened a table ({table.rules.preset}, "
        f"stake {units(table.rules.stake)}, up to {table.seat_limit} seats).\n"
        f"Seated ({len(table.seats)}/{table.seat_limit}): {seat_list(table)}\n"
        + ("Press **Join** to sit down; the host presses **Deal** to start." if table.status == TableStatus.LOBBY
           else "Play is under way.")
    )
    buttons = (B_JOIN, B_LEAVE, B_DEAL) if table.status == TableStatus.LOBBY else ()
    return table_message(table, text, MessageKind.LOBBY, panel="lobby", fresh=fresh, buttons=buttons)


def panel_message(table: TableState, settings: Mapping[str, Any] | None, *, note: str = "",
                  fresh: bool = False) -> Message:
    """The table message, edited in place as the round goes."""
    assert table.match is not None
    panel: Panel = table.match.panel(seat_list(table), note)
    return table_message(table, with_units(panel.text, settings), MessageKind.TABLE, panel="table", fresh=fresh,
                         buttons=tuple(button(c) for c in panel.controls), to_act=table.to_act, note=note)


def turn_message(table: TableState) -> Message | None:
    """A small new message that pings the player to act (edits of the table panel notify nobody)."""
    text = table.match.turn_text() if table.match is not None else None
    if text is None:
        return None
    return table_message(table, text, MessageKind.TURN, panel="turn", replace=True, to_act=table.to_act)


def say_messages(table: TableState, says: Sequence[Say], settings: Mapping[str, Any] | None) -> list[Message]:
    """A game's words as messages; a private one goes to its holder only, and never to a computer seat."""
    out = []
    for say in says:
        if say.to is not None and table.is_computer(say.to):
            continue
        out.append(table_message(table, with_units(say.text, settings), _KIND[say.kind], to=say.to,
                                 picture=say.picture))
    return out


def closed_message(table: TableState, reason: str) -> Message:
    return table_message(table, f"🃏 The table is closed: {reason}", MessageKind.END)


def settings_text(settings: Mapping[str, Any]) -> str:
    opts = ", ".join(f"{k}={v}" for k, v in settings.get("options", {}).items()) or "none"
    return (
        f"Server settings: preset {settings['preset']}; option overrides: {opts}; one unit = {units(1, settings)}; "
        f"turn timeout {settings['turn_timeout']} s; lobby timeout {settings['lobby_timeout']} s; "
        f"computer level {settings.get('computer_level', 'hard')}."
    )
