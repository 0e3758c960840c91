"""Block Kit rendering: the service's messages and replies as Slack payloads, and back.

Only translation lives here.  What the bot says is written in ``bot/messages.py``; this module turns
``**bold**`` into Slack's ``*bold*``, escapes ``&``, ``<`` and ``>`` (so a name can never ping
``<!channel>``) while keeping the ``<@U…>`` and ``<#C…>`` references Slack resolves, and builds
buttons whose ``action_id`` is ``liars:<command>`` and whose ``value`` names the table
(``server_id:channel_id``), so a click always lands on the table that drew the button.

The few words that belong to Slack alone (the Raise… modal, usage of the slash command, the answer to
a command sent from a DM) are in :data:`TEXT`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from adapters.forms import Picker
from bot.model import COMMANDS, Button, Message, Reply, TableKey, render_mentions, split_text

__all__ = [
    "ACTION_PREFIX",
    "RAISE_CALLBACK",
    "SLASH",
    "TEXT",
    "button_value",
    "key_from_value",
    "mrkdwn",
    "parse_raise",
    "raise_modal",
    "render_message",
    "render_reply",
    "server_id",
    "usage",
]

SLASH = "/liars"
ACTION_PREFIX = "liars:"
RAISE_CALLBACK = "liars:raise"
SECTION_LIMIT = 2900  # Slack allows 3000 characters in a section's text
MESSAGE_LIMIT = 39000  # and 40000 in a message's text

TEXT = {
    "dm_only_hand": "Tables live in channels: use `/liars` in the channel where you play. "
    "Here I can only show your serial again (`/liars hand`) or `/liars help`.",
    "apology": "Sorry, something went wrong on my side and nothing was changed. Please try again in a moment.",
    "raise_title": "Raise",
    "raise_submit": "Bid",
    "raise_close": "Cancel",
    "raise_quantity": "How many",
    "raise_digit": "Of which digit",
    "raise_standing": "Standing bid: *{standing}*. Your bid must beat it.",
    "raise_opening": "No bid yet: make the opening bid.",
    "raise_failed": "The Raise… form would not open (Slack said {error}); `/liars bid 5 7` does the same.",
    "no_hand": "You hold no serial right now: it comes by DM when a round is dealt at your table.",
    "record_too_long": "The record is too long for a Slack message. On the bot's host, "
    "`liars export --server SERVER --channel CHANNEL` prints it whole.",
    "cannot_post": "I could not post in this channel (Slack said {error}), so nobody else sees the table. "
    "Invite me with `/invite @liars`: the table shows up with the next move.",
}

_BOLD = re.compile(r"\*\*(.+?)\*\*", re.S)
_SLACK_REF = re.compile(r"<(?:@[UW][A-Z0-9]+|#[CGD][A-Z0-9]+(?:\|[^<>]*)?)>")
_STYLES = {"primary": "primary", "success": "primary", "danger": "danger"}


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
    return _BOLD.sub(r"*\1*", "".join(out))


def _mention(uid: str) -> str:
    return f"<@{uid}>"




def button_value(key: TableKey) -> str:
    return key.to_custom_id()


def key_from_value(value: str | None) -> TableKey | None:
    """The table a button belongs to, from its ``value``; None if the value is not ours."""
    server, sep, channel = (value or "").partition(":")
    if not sep or not server or not channel:
        return None
    return TableKey("slack", server, channel)


def _buttons_block(buttons: Sequence[Button], key: TableKey) -> dict[str, Any]:
    elements = []
    for b in buttons:
        element: dict[str, Any] = {
            "type": "button",
            "action_id": f"{ACTION_PREFIX}{b.action}",
            "text": {"type": "plain_text", "text": b.label, "emoji": True},
            "value": button_value(key),
        }
        style = _STYLES.get(b.style)
        if style:
            element["style"] = style
        elements.append(element)
    return {"type": "actions", "block_id": "liars-actions", "elements": elements}


def _blocks(text: str, buttons: Sequence[Button], key: TableKey) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": piece or " "}}
        for piece in split_text(text, SECTION_LIMIT)
    ]
    if buttons:
        blocks.append(_buttons_block(buttons, key))
    return blocks


def render_message(message: Message) -> tuple[str, list[dict[str, Any]]]:
    """``(text, blocks)`` for ``chat.postMessage`` / ``chat.update`` / ``chat.postEphemeral``."""
    text = mrkdwn(render_mentions(message, _mention))[:MESSAGE_LIMIT]
    return text, _blocks(text, message.buttons, message.key)


def render_reply(reply: Reply, key: TableKey) -> tuple[str, list[dict[str, Any]]]:
    """A reply to the person who acted.  An exported record is attached as a JSON code block."""
    text = mrkdwn(render_mentions(reply, _mention))
    record = (reply.data or {}).get("record") if reply.ok else None
    if isinstance(record, str):
        if len(text) + len(record) + 10 < MESSAGE_LIMIT:
            # Text only (no blocks: a section holds 3000 characters); a code block shows JSON verbatim.
            return f"{text}\n```{_escape(record)}```", []
        text = f"{text}\n{TEXT['record_too_long']}"
    return text[:MESSAGE_LIMIT], _blocks(text, reply.buttons, key)


def usage(unknown: str | None = None) -> str:
    names = ", ".join(f"`{name}`" for name in COMMANDS)
    head = f"I don't know `{_escape(unknown)}`. " if unknown else ""
    return (f"{head}Usage: `{SLASH} <subcommand> [args]`, e.g. `{SLASH} start`, `{SLASH} bid 5 sevens`.\n"
            f"Subcommands: {names}.\n`{SLASH} help` says what each one does.")


def server_id(body: Mapping[str, Any]) -> str:
    """The ledger's server: the Enterprise Grid organisation if there is one, else the workspace."""
    enterprise = body.get("enterprise_id") or (body.get("enterprise") or {}).get("id")
    if enterprise:
        return str(enterprise)
    team = body.get("team_id") or (body.get("team") or {}).get("id") or (body.get("user") or {}).get("team_id")
    return str(team or "")


# -- the Raise… modal -----------------------------------------------------------------------------
def _option(text: str, value: str) -> dict[str, Any]:
    return {"text": {"type": "plain_text", "text": text, "emoji": True}, "value": value}


def raise_modal(key: TableKey, options: Picker) -> dict[str, Any]:
    """A modal with static selects for the legal quantities and the digits (highest first)."""
    q_options = [_option(label, q) for q, label in options.choices][:100]
    digits = dict(d for q, _ in options.choices for d in options.seconds(q))
    d_options = [_option(label, d) for d, label in sorted(digits.items(), key=lambda x: -int(x[0]))]
    standing = options.intro
    intro = TEXT["raise_standing"].format(standing=_escape(standing)) if standing else TEXT["raise_opening"]
    return {
        "type": "modal",
        "callback_id": RAISE_CALLBACK,
        "private_metadata": json.dumps({"server": key.server_id, "channel": key.channel_id}),
        "title": {"type": "plain_text", "text": TEXT["raise_title"]},
        "submit": {"type": "plain_text", "text": TEXT["raise_submit"]},
        "close": {"type": "plain_text", "text": TEXT["raise_close"]},
        "blocks": [
            {"type": "section", "text": {"type": "mrkdwn", "text": intro}},
            {
                "type": "input",
                "block_id": "quantity",
                "label": {"type": "plain_text", "text": TEXT["raise_quantity"]},
                "element": {
                    "type": "static_select",
                    "action_id": "quantity",
                    "options": q_options,
                    "initial_option": q_options[0],
                },
            },
            {
                "type": "input",
                "block_id": "digit",
                "label": {"type": "plain_text", "text": TEXT["raise_digit"]},
                "element": {"type": "static_select", "action_id": "digit", "options": d_options},
            },
        ],
    }


def parse_raise(view: Mapping[str, Any]) -> tuple[TableKey, str, str] | None:
    """``(table, quantity, digit)`` from a submitted Raise… modal; None if it is malformed."""
    try:
        meta = json.loads(view.get("private_metadata") or "{}")
        values = view["state"]["values"]
        quantity = values["quantity"]["quantity"]["selected_option"]["value"]
        digit = values["digit"]["digit"]["selected_option"]["value"]
        key = TableKey("slack", str(meta["server"]), str(meta["channel"]))
    except (KeyError, TypeError, ValueError):
        return None
    return key, str(quantity), str(digit)
