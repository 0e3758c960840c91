"""Block Kit rendering: the service's messages and replies as Slack payloads, and back.

Only translation lives here.  What the bot says is written in ``bot/messages.py``; this module turns
``**bold**`` into Slack's ``*bold*``, escapes ``&``, ``<`` and ``>`` (so a name can never ping
``<!channel>``) while keeping the ``<@U…>`` and ``<#C…>`` references Slack resolves, and builds
buttons whose ``action_id`` is ``liars:<command>`` and whose ``value`` names the table
(``server_id:channel_id``), so a click always lands on the table that drew the button.

Cards come out in two colours (``♥`` as ``:hearts:``…: :func:`suits`).  A button that opens a game's
form has the ``action_id`` ``liars:open-<verb>`` (:mod:`adapters.slack.forms` builds the modal).

The few words that belong to Slack alone (the forms' modal, usage of the slash command, the answer to
a command sent from a DM) are in :data:`TEXT`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from bot.commands import commands
from bot.model import Button, Message, Reply, TableKey, render_mentions, split_text
from core.errors import QUOTED_MOST

__all__ = [
    "ACTION_PREFIX",
    "OPEN_PREFIX",
    "SLASH",
    "SUITS",
    "TEXT",
    "button_value",
    "key_from_value",
    "mrkdwn",
    "plain",
    "render_message",
    "render_reply",
    "server_id",
    "suits",
    "table_from_value",
    "turn_from_value",
    "usage",
]

SLASH = "/liars"
ACTION_PREFIX = "liars:"
OPEN_PREFIX = "open-"  # ``liars:open-<verb>``: a button that opens the verb's form (Raise…, Declare…, Discard…)
SECTION_LIMIT = 2900  # Slack allows 3000 characters in a section's text
MESSAGE_LIMIT = 39000  # and 40000 in a message's text

TEXT = {
    "dm_only_hand": "Tables live in channels: use `/liars` in the channel where you play. "
    "Here I can only show what you hold again (`/liars hand`) or `/liars help`.",
    "apology": "Sorry, something went wrong on my side and nothing was changed. Please try again in a moment.",
    "raise_close": "Cancel",
    "form_none": "There is nothing to choose from: challenge instead.",
    "form_outdated": "This form is from an earlier version of the bot: close it and open it again from the table.",
    "raise_failed": "The {title} form would not open (Slack said {error}); `/liars {verb} …` does the same.",
    "no_hand": "You hold nothing right now: what you are dealt comes by DM when a round is dealt at your table.",
    "record_too_long": "The record is too long for a Slack message. On the bot's host, "
    "`liars export --server SERVER --channel CHANNEL` prints it whole.",
    "other_workspace": "This table is kept in another workspace's ledger (this channel is shared between "
    "workspaces), so only that workspace's members can play at it: nothing was done. Tables in shared (Slack Connect) "
    "channels across workspaces are not supported yet.",
    "cannot_post": "I could not post in this channel (Slack said {error}), so nobody else sees the table. "
    "Invite me with `/invite @liars`: the table shows up with the next move.",
}

_BOLD = re.compile(r"\*\*(.+?)\*\*", re.S)
_SLACK_REF = re.compile(r"<(?:@[UW][A-Z0-9]+|#[CGD][A-Z0-9]+(?:\|[^<>]*)?)>")
_STYLES = {"primary": "primary", "success": "primary", "danger": "danger"}


# Cards in two colours: Slack draws :hearts: and :diamonds: red, :spades: and :clubs: black.
SUITS = str.maketrans({"♥": ":hearts:", "♦": ":diamonds:", "♠": ":spades:", "♣": ":clubs:"})


def suits(text: str) -> str:
    """``7♥ Q♠`` → ``7:hearts: Q:spades:`` (red and black on Slack)."""
    return text.translate(SUITS)


_SUIT_CODES = re.compile(":(hearts|diamonds|spades|clubs):")
_SUIT_OF_CODE = {"hearts": "♥", "diamonds": "♦", "spades": "♠", "clubs": "♣"}


def unsuit(text: str) -> str:
    """What Slack sends for a suit typed or pasted as an emoji (``6:diamonds:``), back to the symbol."""
    return _SUIT_CODES.sub(lambda m: _SUIT_OF_CODE[m.group(1)], text)


def plain(text: str) -> str:
    """Chat markup for a ``plain_text`` object (a button, a select option): no bold, suits as emoji."""
    return suits(_BOLD.sub(r"\1", text))


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def mrkdwn(text: str) -> str:
    """Chat markup (``**bold**``, ``<@id>`` mentions already rendered) to Slack mrkdwn."""
    out: list[str] = []
    pos = 0
    for m in _SLACK_REF.finditer(text):
        out.append(_escape(text[pos : m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(_escape(text[pos:]))
    return suits(_BOLD.sub(r"*\1*", "".join(out)))


def _mention(uid: str) -> str:
    return f"<@{uid}>"




def button_value(key: TableKey, table: int | None = None, turn: int | None = None) -> str:
    """``<server>:<channel>``, and ``@<table>``: the table the button was drawn for (since 2 Dec 2026; its
    command names that table, so a closed table's button never moves the channel's next one), and ``.<turn>``
    after it on a button that answers the table as drawn (``Button.at_turn``: its command names the turn)."""
    if table is None:
        return key.to_custom_id()
    return f"{key.to_custom_id()}@{table}" + (f".{turn}" if turn is not None else "")


def key_from_value(value: str | None) -> TableKey | None:
    """The table a button belongs to, from its ``value``; None if the value is not ours."""
    server, sep, channel = (value or "").partition("@")[0].partition(":")
    if not sep or not server or not channel:
        return None
    return TableKey("slack", server, channel)


def table_from_value(value: str | None) -> int | None:
    """The id of the table a button was drawn for, from its ``value``; None if it names none."""
    return _drawn(value)[0]


def turn_from_value(value: str | None) -> int | None:
    """The turn a button that answers the table as drawn was drawn at, from its ``value``; None if it names none."""
    return _drawn(value)[1]


def _drawn(value: str | None) -> tuple[int | None, int | None]:
    table, dot, turn = (value or "").partition("@")[2].partition(".")

    def number(text: str) -> int | None:
        return int(text) if text.isascii() and text.isdigit() and len(text) <= 12 else None

    at_table = number(table)
    return at_table, number(turn) if dot and at_table is not None else None


def _buttons_block(buttons: Sequence[Button], key: TableKey, table: int | None = None,
                   turn: int | None = None) -> dict[str, Any]:
    elements = []
    for b in buttons:
        element: dict[str, Any] = {
            "type": "button",
            "action_id": f"{ACTION_PREFIX}{OPEN_PREFIX if b.form else ''}{b.action}",
            "text": {"type": "plain_text", "text": b.label, "emoji": True},
            "value": button_value(key, table, turn if b.at_turn else None),
        }
        style = _STYLES.get(b.style)
        if style:
            element["style"] = style
        elements.append(element)
    return {"type": "actions", "block_id": "liars-actions", "elements": elements}


def _blocks(text: str, buttons: Sequence[Button], key: TableKey, table: int | None = None,
            turn: int | None = None) -> list[dict[str, Any]]:
    # (``text`` is at most MESSAGE_LIMIT characters: some 14 sections, within Slack's 50 blocks a message)
    blocks: list[dict[str, Any]] = [{"type": "section", "text": {"type": "mrkdwn", "text": piece or " "}}
                                    for piece in split_text(text, SECTION_LIMIT)]
    if buttons:
        blocks.append(_buttons_block(buttons, key, table, turn))
    return blocks


def render_message(message: Message) -> tuple[str, list[dict[str, Any]]]:
    """``(text, blocks)`` for ``chat.postMessage`` / ``chat.update`` / ``chat.postEphemeral``."""
    text = mrkdwn(render_mentions(message, _mention))[:MESSAGE_LIMIT]
    return text, _blocks(text, message.buttons, message.key, message.table_id, message.turn)


def render_reply(reply: Reply, key: TableKey, table: int | None = None,
                 turn: int | None = None) -> tuple[str, list[dict[str, Any]]]:
    """A reply to the person who acted (its buttons drawn for ``table``, the one here as it was answered, and
    ``turn``, the turn under way then).
    An exported record is attached as a JSON code block."""
    text = mrkdwn(render_mentions(reply, _mention))
    record = (reply.data or {}).get("record") if reply.ok else None
    if isinstance(record, str):
        if len(text) + len(record) + 10 < MESSAGE_LIMIT:
            # Text only (no blocks: a section holds 3000 characters); a code block shows JSON verbatim.
            return f"{text}\n```{_escape(record)}```", []
        text = f"{text}\n{TEXT['record_too_long']}"
    text = text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 1] + "…"  # (its blocks made of what is sent)
    return text, _blocks(text, reply.buttons, key, table, turn)


def usage(unknown: str | None = None) -> str:
    """The slash command's usage, for a word that is no subcommand.  Chat markup, escaped once by
    :func:`render_reply` as every reply is (escaped here too, ``<!channel>`` read ``&amp;lt;!channel&amp;gt;``)."""
    names = ", ".join(f"`{name}`" for name in commands())
    if unknown and len(unknown) > QUOTED_MOST:
        unknown = unknown[: QUOTED_MOST - 1] + "…"
    head = f"I don't know `{unknown}`. " if unknown else ""
    return (f"{head}Usage: `{SLASH} <subcommand> [args]`, e.g. `{SLASH} start` "
            f"(`{SLASH} start game=NAME` for another game).\n"
            f"Subcommands: {names}.\n`{SLASH} help` says what each one does.")


def server_id(body: Mapping[str, Any]) -> str:
    """The ledger's server: the Enterprise Grid organisation if there is one, else the workspace.  A field of
    the wrong shape (a signed body's ``enterprise`` as a string) is no id: it is passed over, not a traceback."""
    enterprise = body.get("enterprise_id") or _id_of(body.get("enterprise"), "id")
    if enterprise:
        return str(enterprise)
    team = body.get("team_id") or _id_of(body.get("team"), "id") or _id_of(body.get("user"), "team_id")
    return str(team or "")


def _id_of(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, Mapping) else None
