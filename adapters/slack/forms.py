"""A game's :class:`~core.game.Form` as a Slack modal, and a submitted modal back as command options.

* A two-step form (the serial game's Raise…: quantity → digit; the card game's Declare…: hand type →
  ranks) is two selects.  The first is a ``dispatch_action`` select: choosing in it sends a
  ``block_actions`` (action id ``liars:field:<name>``), and the listener re-lists the second with
  ``views.update``.  The second select's ``block_id`` carries the first choice, so Slack forgets a
  second choice that no longer fits.
* A many-choice form (the card game's Discard…) is one checkbox per option (the holder's cards).

The modal's ``private_metadata`` names the table, the button's verb (what to ask ``Service.form``
again) and the form's verb (the command it sends).  Submitting sends ``Command(form.verb,
options={field: value, ...})``; a many-choice field's values are space-separated.  Only the clicker
sees the modal (``views.open`` with their ``trigger_id``), so the cards in a Discard… form reach their
holder alone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from adapters.forms import picker
from bot.model import TableKey
from core.game import Form

from .render import TEXT, mrkdwn, plain

__all__ = ["FIELD_PREFIX", "FORM_CALLBACK", "LEGACY_CALLBACK", "chosen", "form_modal", "notice_modal", "parse_form",
           "view_key"]

FORM_CALLBACK = "liars:form"
LEGACY_CALLBACK = "liars:raise"  # the Raise… modals opened before forms were generic
FIELD_PREFIX = "liars:field:"
OPTION_TEXT = 75  # Slack's limit on an option's text
SELECT_OPTIONS = 100
CHECKBOXES = 10
TITLE = 24  # a modal's title and its buttons
FIELD_WORDS = {"bid": ("How many", "Of which digit")}  # the serial game's labels, as Slack always showed them


def _option(text: str, value: str, *, markdown: bool = False) -> dict[str, Any]:
    if markdown:
        return {"text": {"type": "mrkdwn", "text": mrkdwn(text)[:OPTION_TEXT]}, "value": value}
    shown = plain(text)
    if len(shown) > OPTION_TEXT:  # keep the words, drop the gloss: "two pair, … (at least 7-7-3-3-2)"
        shown = shown.split(" (")[0]
    return {"text": {"type": "plain_text", "text": shown[:OPTION_TEXT], "emoji": True}, "value": value}


def _intro(form: Form) -> str:
    if form.verb == "bid":  # the serial game's intro is the standing bid; its words are the platform's
        return TEXT["raise_standing"].format(standing=mrkdwn(form.intro)) if form.intro else TEXT["raise_opening"]
    return mrkdwn(form.intro or form.title)


def form_modal(key: TableKey, form: Form, opener: str, first: str | None = None) -> dict[str, Any] | None:
    """The modal for ``form`` (opened by the ``opener`` button), with ``first`` chosen in a two-step
    form's first select (default: its first option).  None if the form offers nothing to choose."""
    meta = {"server": key.server_id, "channel": key.channel_id, "open": opener, "verb": form.verb}
    blocks: list[dict[str, Any]] = [{"type": "section", "text": {"type": "mrkdwn", "text": _intro(form)}}]
    if form.fields and form.fields[0].multi:
        field = form.fields[0]
        options = [_option(label, value, markdown=True) for value, label in field.options[:CHECKBOXES]]
        if not options:
            return None
        # at least one mark: discarding nothing is simply declaring (Slack asks for a mark before sending)
        blocks.append({"type": "input", "block_id": f"f:{field.name}", "optional": False,
                       "label": {"type": "plain_text", "text": field.label[:TITLE * 4]},
                       "element": {"type": "checkboxes", "action_id": FIELD_PREFIX + field.name,
                                   "options": options}})
    else:
        p = picker(form)
        if not p.choices:
            return None
        values = [value for value, _ in p.choices]
        first = first if first in values else values[0]
        firsts = [_option(label, value) for value, label in p.choices[:SELECT_OPTIONS]]
        chosen = next((o for o in firsts if o["value"] == first), firsts[0])
        words = FIELD_WORDS.get(form.verb, (p.first_label, p.second_label))
        blocks.append({"type": "input", "block_id": f"f:{p.first}", "dispatch_action": True,
                       "label": {"type": "plain_text", "text": words[0]},
                       "element": {"type": "static_select", "action_id": FIELD_PREFIX + p.first,
                                   "options": firsts, "initial_option": chosen}})
        if p.second:
            seconds = [_option(label, value) for value, label in p.seconds(first)[:SELECT_OPTIONS]]
            blocks.append({"type": "input", "block_id": f"f:{p.second}:{first}"[:255],
                           "label": {"type": "plain_text", "text": words[1]},
                           "element": {"type": "static_select", "action_id": FIELD_PREFIX + p.second,
                                       "options": seconds}})
    return {
        "type": "modal",
        "callback_id": FORM_CALLBACK,
        "private_metadata": json.dumps(meta),
        "title": {"type": "plain_text", "text": plain(TEXT.get(f"{form.verb}_title", form.title))[:TITLE]},
        "submit": {"type": "plain_text", "text": TEXT.get(f"{form.verb}_submit", form.verb.capitalize())[:TITLE]},
        "close": {"type": "plain_text", "text": TEXT["raise_close"]},
        "blocks": blocks,
    }


def notice_modal(view: Mapping[str, Any], text: str) -> dict[str, Any]:
    """The modal redrawn as a notice (the form is no longer the player's to use: the turn moved on)."""
    return {"type": "modal", "title": view.get("title") or {"type": "plain_text", "text": "Liar's Poker"},
            "close": {"type": "plain_text", "text": TEXT["raise_close"]},
            "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": mrkdwn(text)}}]}


def view_key(view: Mapping[str, Any]) -> tuple[TableKey, str, str] | None:
    """``(table, opener, verb)`` from a modal's ``private_metadata``; None if it is not ours."""
    try:
        meta = json.loads(view.get("private_metadata") or "{}")
        key = TableKey("slack", str(meta["server"]), str(meta["channel"]))
    except (KeyError, TypeError, ValueError):
        return None
    if not isinstance(meta, dict) or not key.server_id or not key.channel_id:
        return None
    if view.get("callback_id") == LEGACY_CALLBACK or "verb" not in meta:
        return key, "raise", "bid"
    return key, str(meta.get("open") or meta["verb"]), str(meta["verb"])


def parse_form(view: Mapping[str, Any]) -> tuple[TableKey, str, dict[str, str]] | None:
    """``(table, verb, options)`` from a submitted modal; None if it is malformed."""
    where = view_key(view)
    if where is None:
        return None
    key, _, verb = where
    options: dict[str, str] = {}
    try:
        values = view["state"]["values"]
        for block in values.values():
            for action_id, state in block.items():
                name = action_id.removeprefix(FIELD_PREFIX)
                if not isinstance(state, Mapping):
                    continue
                if isinstance(state.get("selected_options"), list):
                    options[name] = " ".join(str(o["value"]) for o in state["selected_options"])
                elif isinstance(state.get("selected_option"), Mapping):
                    options[name] = str(state["selected_option"]["value"])
    except (KeyError, TypeError, AttributeError):
        return None
    return key, verb, options


def chosen(action: Mapping[str, Any]) -> str | None:
    """The value just chosen in a form's first select (a ``block_actions`` from the modal)."""
    option = action.get("selected_option")
    return str(option["value"]) if isinstance(option, Mapping) and "value" in option else None

