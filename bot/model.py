"""Platform-neutral values that cross the boundary between the service and its adapters.

An adapter turns a slash command or a button press into a :class:`Command`, calls
``Service.handle``, and renders the :class:`Reply` to the person who acted.  Everything else the
table says (the lobby, the table panel, dealt serials, the count) reaches the adapter as
:class:`Message` values through its :class:`~bot.ports.Notifier`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeAlias

from core.game import Option

__all__ = [
    "Actor",
    "Button",
    "Command",
    "Message",
    "MessageKind",
    "Reply",
    "TableKey",
    "render_mentions",
    "split_text",
]


@dataclass(frozen=True, slots=True)
class TableKey:
    """One table per channel: (platform, server id, channel id)."""

    platform: str
    server_id: str
    channel_id: str

    @property
    def server(self) -> str:
        """The ledger's server key, e.g. ``discord:1234`` or ``slack:T0123``; the local table's is ``local``."""
        return self.server_id if self.platform == "local" else f"{self.platform}:{self.server_id}"

    @classmethod
    def from_server(cls, server: str, channel_id: str) -> TableKey:
        """Inverse of :attr:`server` (``local`` or ``platform:id``)."""
        platform, sep, server_id = server.partition(":")
        if not sep:
            return cls("local", server, channel_id)
        return cls(platform, server_id, channel_id)

    def to_custom_id(self) -> str:
        return f"{self.server_id}:{self.channel_id}"


@dataclass(frozen=True, slots=True)
class Actor:
    """The person who sent a command.  ``is_admin``: the platform says they administer the server.
    ``peer``: they administer it only as every member of a private group does (a Discord group DM keeps its
    own books, and nobody there has Manage Server): trusted with the books and the tables, but a party to
    every game there, so not to overrule one at stake (end it, or kick a rival still in it)."""

    user_id: str
    name: str
    is_admin: bool = False
    peer: bool = False


JsonValue: TypeAlias = "bool | int | float | str | Sequence[JsonValue] | Mapping[str, JsonValue] | None"
"""A value JSON can hold: what a reply's data, a picture's data and a stored reply are made of."""
JsonObject: TypeAlias = Mapping[str, JsonValue]


class MessageKind(StrEnum):
    LOBBY = "lobby"  # the lobby panel
    TABLE = "table"  # the table panel
    TURN = "turn"  # the ping for the player to act
    DEAL = "deal"  # a deal's public announcement
    PRIVATE = "private"  # one player's secret (a serial, a hand)
    NOTE = "note"  # a public line about play
    RESULT = "result"  # a reveal and its payments (the count, a challenge)
    WARNING = "warning"  # a timer's warning
    INFO = "info"  # anything else the table announces
    END = "end"  # the table is closed


@dataclass(frozen=True, slots=True)
class Command:
    """``name`` from :func:`bot.commands.commands`; ``args`` the words after it; ``options`` named
    arguments, typed as their declaration says (an integer stays an ``int``).

    ``request_id``: a platform delivery id; a command with a request id already applied is not
    applied again (the stored reply is returned).

    ``table_id``: the table a button or form was drawn for (None: a typed command, which acts on whatever
    table is here); at any other table — the channel's next one — it is refused, not applied.

    ``turn``: the turn a form, or a button that answers the table as drawn (``Button.at_turn``: a challenge), was
    drawn at (``TableState.turn``: the stored event that began it); once the table has moved on — the timer played
    the turn, a new round was dealt, the player moved by another way — its command is refused, not applied: a
    form's when it is the sender's turn again (else the game says whose it is), a button's whoever sends it
    (``Runtime.need_same_table``).  None: a typed command, or a button that acts on the table as it is.

    ``secrets_here``: where the command was sent, no DM can reach the players (a Discord group DM): what
    is dealt in secret comes to each holder privately in the channel, and the answers say so.
    """

    name: str
    key: TableKey
    actor: Actor
    args: tuple[str, ...] = ()
    options: Mapping[str, Option] = field(default_factory=dict)
    request_id: str | None = None
    table_id: int | None = None
    turn: int | None = None
    secrets_here: bool = False


@dataclass(frozen=True, slots=True)
class Button:
    """An action a message offers.  ``action`` is a command name; adapters build their ids from it."""

    action: str
    label: str
    style: str = "secondary"  # primary | secondary | success | danger
    form: bool = False  # the button opens the command's form (``Service.form``) instead of sending it
    at_turn: bool = False  # a move on the table as drawn: the button carries the turn (``Command.turn``)


@dataclass(frozen=True, slots=True)
class Reply:
    """The answer to the person who acted.  ``private``: ephemeral (always, for errors).  ``turn``: the turn under
    way when a reply with buttons was drawn (its ``at_turn`` buttons carry it; None: they act on the table as it
    is, as a typed command does)."""

    text: str
    ok: bool = True
    private: bool = True
    buttons: tuple[Button, ...] = ()
    data: JsonObject | None = None
    code: str | None = None
    turn: int | None = None

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "text": self.text,
            "ok": self.ok,
            "private": self.private,
            "buttons": [[b.action, b.label, b.style, b.form, b.at_turn] for b in self.buttons],
            "data": dict(self.data) if self.data is not None else None,
            "code": self.code,
            "turn": self.turn,
        }

    @classmethod
    def from_dict(cls, d: JsonObject) -> Reply:
        """The reply :meth:`to_dict` wrote (a stored request's answer)."""
        text, ok, private, data, code = d["text"], d["ok"], d["private"], d.get("data"), d.get("code")
        buttons, turn = d.get("buttons", []), d.get("turn")
        if not (isinstance(text, str) and isinstance(ok, bool) and isinstance(private, bool)
                and (data is None or isinstance(data, Mapping)) and (code is None or isinstance(code, str))
                and isinstance(buttons, Sequence) and (turn is None or type(turn) is int)):
            raise TypeError(f"not a stored reply: {sorted(d)}")
        return cls(text=text, ok=ok, private=private, buttons=tuple(_button(b) for b in buttons), data=data,
                   code=code, turn=turn)


def _button(fields: JsonValue) -> Button:
    """``[action, label, style, form, at_turn]`` as :meth:`Reply.to_dict` writes it (older replies stored fewer)."""
    if isinstance(fields, Sequence) and not isinstance(fields, str) and 2 <= len(fields) <= 5:
        action, label, *rest = fields
        style = rest[0] if rest else "secondary"
        form = rest[1] if len(rest) > 1 else False
        at_turn = rest[2] if len(rest) > 2 else False
        if (isinstance(action, str) and isinstance(label, str) and isinstance(style, str) and isinstance(form, bool)
                and isinstance(at_turn, bool)):
            return Button(action, label, style, form, at_turn)
    raise TypeError(f"not a stored button: {fields!r}")


@dataclass(frozen=True, slots=True)
class Message:
    """Something the table says.

    ``to`` is None for the channel, or the one user id the message is for (a DM).  A serial or a hand
    appears only in a message with ``to`` set to its holder, until the game reveals it.  ``panel``
    names a message the adapter should edit in place (``lobby`` or ``table``); ``fresh`` asks for a
    new panel message (a new round); ``replace`` asks for a new message that takes the place of the
    panel's previous one, which is deleted (the ``turn`` ping: a mention notifies only in a new
    message, never in an edit, so the channel holds one small ping at a time).  ``text`` carries
    mentions as ``<@id>``; render them with :func:`render_mentions`.  A table panel says who is
    ``to_act`` and what just happened (``note``); a result may carry a ``picture`` (its data).  A
    private message names the words on its game's button that shows its reader what they hold
    (``hand_label``: **My serial**, **My hand**), so a platform that cannot deliver it can point there
    without knowing the game; empty if the game deals nothing hidden.
    """

    key: TableKey
    text: str
    kind: MessageKind
    to: str | None = None
    panel: str | None = None
    fresh: bool = False
    replace: bool = False
    buttons: tuple[Button, ...] = ()
    names: Mapping[str, str] = field(default_factory=dict)
    humans: frozenset[str] = frozenset()
    to_act: str | None = None
    note: str = ""
    picture: JsonObject | None = None
    table_id: int | None = None  # the table that says it (a panel's message id is kept per table)
    hand_label: str = ""  # on a private message: its game's hand button (``Game.hand``'s label)
    seq: int | None = None  # the table's events when it was drawn (a panel drawn later shows a newer state)
    turn: int | None = None  # the turn under way when it was drawn (``TableState.turn``: its at_turn buttons carry it)
    final: bool = False  # the closed table's message, drawn once more without its buttons

    @property
    def private(self) -> bool:
        return self.to is not None


def split_text(text: str, limit: int) -> list[str]:
    """Split a message at line ends into pieces of at most ``limit`` characters (long lines are cut).

    Platforms cap a message (Discord) or a block (Slack); adapters send one piece per message or block.
    """
    pieces: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > limit:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(line[:limit])
            line = line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            pieces.append(current)
            current = line
        else:
            current = candidate
    if current or not pieces:
        pieces.append(current)
    return pieces


_MENTION = re.compile(r"<@([^>\s]+)>")


def render_mentions(message: Message | Reply, mention: Callable[[str], str] | None = None) -> str:
    """Replace ``<@id>`` by ``mention(id)`` for human players, else by the display name.  A reply names people
    by ``<@id>`` for the platform to show (one who never played here, the admins a setting lists): where the
    platform has mentions, they stay mentions (the adapters send replies pinging nobody)."""
    names: Mapping[str, str] = getattr(message, "names", {}) or {}
    humans: frozenset[str] = getattr(message, "humans", frozenset())
    reply = isinstance(message, Reply)

    def sub(m: re.Match[str]) -> str:
        uid = m.group(1)
        if mention is not None and (uid in humans or (reply and uid not in names)):
            return mention(uid)
        return names.get(uid, uid)

    return _MENTION.sub(sub, message.text)
