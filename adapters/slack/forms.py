"""A game's :class:`~core.game.Form` as a Slack modal, and a submitted modal back as command options.

* A two-step form (the serial game's Raise…: quantity → digit; the card game's Declare…: hand type →
  ranks) is two selects.  A many-choice form (the card game's Discard…) is one checkbox per option
  (the holder's cards).
* Every field is a ``dispatch_action`` input: a choice in it sends a ``block_actions`` (action id
  ``liars:field:<name>``), and the listener redraws the modal with ``views.update``: the second select
  re-listed for the first choice, and the submit button saying the move (``Bid 2 sevens``, ``Discard
  2 and draw``; Slack cannot change it as the player picks, only on a redraw).  The second select's
  ``block_id`` carries the first choice, so Slack forgets a second choice the new list lacks.
* A refused submission keeps the modal open: the listener acknowledges it with ``response_action:
  errors`` naming :func:`error_block`; an applied one is acknowledged bare, which closes the modal.

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

__all__ = ["FIELD_PREFIX", "FORM_CALLBACK", "chosen", "error_block", "fit", "form_modal",
           "notice_modal", "parse_form", "view_key", "view_table"]

FORM_CALLBACK = "liars:form"
FIELD_PREFIX = "liars:field:"
OPTION_TEXT = 75  # Slack's limit on an option's text
SELECT_OPTIONS = 100
CHECKBOXES = 10
TITLE = 24  # a modal's title and its buttons


def _option(text: str, value: str, *, markdown: bool = False) -> dict[str, Any]:
    if markdown:
        return {"text": {"type": "mrkdwn", "text": mrkdwn(text)[:OPTION_TEXT]}, "value": value}
    shown = plain(text)
    if len(shown) > OPTION_TEXT:  # keep the words, drop the gloss: "two pair, … (at least 7-7-3-3-2)"
        shown = shown.split(" (")[0]
    return {"text": {"type": "plain_text", "text": shown[:OPTION_TEXT], "emoji": True}, "value": value}


def _intro(form: Form) -> str:
    return mrkdwn(form.intro or form.title)


def fit(text: str, limit: int = TITLE) -> str:
    """``text`` within ``limit`` characters.  A longer label keeps its first word, the verb (``Declare …``:
    the choice is in the selects above).  Its last words alone often named another hand ("Declare … seven
    high" for a flush, seven high; "… straight flush" for the colour one), so they are not kept."""
    if len(text) <= limit:
        return text
    verb = text.split(" ")[0]
    return f"{verb} …" if len(verb) + 2 <= limit else text[:limit - 1].rstrip() + "…"


def form_modal(key: TableKey, form: Form, opener: str, choices: Mapping[str, str] | None = None,
               table: int | None = None, turn: int | None = None) -> dict[str, Any] | None:
    """The modal for ``form`` (opened by the ``opener`` button) with these choices made (field name ->
    value; a many-choice field's values space-separated): a two-step form's first select shows its
    choice (default: its first option), the second its choice if it is still listed, the checkboxes
    theirs.  Once the form's command is complete, the submit button says it (``Bid 2 sevens``,
    ``Discard 2 and draw``), as the Discord send button does.  ``table``, ``turn``: the table and the move the
    form is drawn at (what it sends names them: :func:`view_table`, :func:`view_turn`).  None if the form
    offers nothing."""
    choices = choices or {}
    meta: dict[str, Any] = {"server": key.server_id, "channel": key.channel_id, "open": opener, "verb": form.verb}
    if table is not None:  # the table the form is for: what it sends names it (``view_table``)
        meta["table"] = table
    if turn is not None:  # the move it is drawn at: once the table has moved on, it sends nothing
        meta["turn"] = turn
    blocks: list[dict[str, Any]] = [{"type": "section", "text": {"type": "mrkdwn", "text": _intro(form)}}]
    label = form.pending_label
    if form.fields and form.fields[0].multi:
        field = form.fields[0]
        options = [_option(text, value, markdown=True) for value, text in field.options[:CHECKBOXES]]
        if not options:
            return None
        wanted = set(choices.get(field.name, "").split())
        marked = [o for o in options if o["value"] in wanted]
        # at least one mark: discarding nothing is simply declaring (Slack asks for a mark before sending);
        # each mark is sent (dispatch_action) so that the modal is redrawn with the count on its button
        element: dict[str, Any] = {"type": "checkboxes", "action_id": FIELD_PREFIX + field.name, "options": options}
        if marked:
            element["initial_options"] = marked
            label = form.submit_label({field.name: len(marked)})
        blocks.append({"type": "input", "block_id": f"f:{field.name}", "optional": False, "dispatch_action": True,
                       "label": {"type": "plain_text", "text": field.label[:TITLE * 4]}, "element": element})
    else:
        p = picker(form)
        if not p.choices:
            return None
        values = [value for value, _ in p.choices]
        first = choices.get(p.first)
        first = first if first in values else values[0]
        firsts = [_option(text, value) for value, text in p.choices[:SELECT_OPTIONS]]
        shown = next((o for o in firsts if o["value"] == first), firsts[0])
        words = (p.first_label, p.second_label)
        blocks.append({"type": "input", "block_id": f"f:{p.first}", "dispatch_action": True,
                       "label": {"type": "plain_text", "text": words[0]},
                       "element": {"type": "static_select", "action_id": FIELD_PREFIX + p.first,
                                   "options": firsts, "initial_option": shown}})
        if p.second:
            seconds = [_option(text, value) for value, text in p.seconds(first)[:SELECT_OPTIONS]]
            second = next((o for o in seconds if o["value"] == choices.get(p.second)), None)
            element = {"type": "static_select", "action_id": FIELD_PREFIX + p.second, "options": seconds}
            if second is not None:  # still listed for this first choice: kept, and the button says the move
                element["initial_option"] = second
                label = form.submit_label({p.first: first, p.second: second["value"]})
            # the block is new for each first choice, so Slack forgets a second choice it does not list
            blocks.append({"type": "input", "block_id": f"f:{p.second}:{first}"[:255], "dispatch_action": True,
                           "label": {"type": "plain_text", "text": words[1]}, "element": element})
        else:
            label = form.submit_label({p.first: first})
    return {
        "type": "modal",
        "callback_id": FORM_CALLBACK,
        "private_metadata": json.dumps(meta),
        "title": {"type": "plain_text", "text": plain(form.title)[:TITLE]},
        "submit": {"type": "plain_text", "text": fit(plain(label))},
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
    if "verb" not in meta:  # a modal that names no command (the Raise… modals of old versions) is not ours
        return None
    return key, str(meta.get("open") or meta["verb"]), str(meta["verb"])


def view_table(view: Mapping[str, Any] | None) -> int | None:
    """The id of the table a modal was opened for (modals opened before 2 Dec 2026 name none)."""
    return _meta_int(view, "table")


def view_turn(view: Mapping[str, Any] | None) -> int | None:
    """The move a modal was drawn at (``Command.turn``; modals opened before session 27 name none)."""
    return _meta_int(view, "turn")


def _meta_int(view: Mapping[str, Any] | None, name: str) -> int | None:
    try:
        value = json.loads((view or {}).get("private_metadata") or "{}").get(name)
    except (AttributeError, TypeError, ValueError):
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


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
                value = _value(state) if isinstance(state, Mapping) else None
                if value is not None:
                    options[name] = value
    except (KeyError, TypeError, AttributeError):
        return None
    return key, verb, options


def _value(state: Mapping[str, Any]) -> str | None:
    """What one element holds: a select's value, or a many-choice element's values space-separated."""
    if isinstance(state.get("selected_options"), list):
        return " ".join(str(o["value"]) for o in state["selected_options"] if isinstance(o, Mapping))
    option = state.get("selected_option")
    return str(option["value"]) if isinstance(option, Mapping) and "value" in option else None


def chosen(view: Mapping[str, Any], action: Mapping[str, Any]) -> dict[str, str]:
    """The choices made in a modal when ``action`` (a ``block_actions`` from one of its fields) came:
    what the modal was drawn with (its selects' initial options), then what Slack says its inputs hold
    (``view.state.values``), then the action's own choice."""
    out: dict[str, str] = {}
    try:
        for block in view.get("blocks") or []:
            element = block.get("element") or {}
            name = str(element.get("action_id", "")).removeprefix(FIELD_PREFIX)
            drawn = _value({"selected_option": element.get("initial_option"),
                            "selected_options": element.get("initial_options")})
            if drawn is not None:
                out[name] = drawn
        for block in ((view.get("state") or {}).get("values") or {}).values():
            for action_id, state in block.items():
                value = _value(state) if isinstance(state, Mapping) else None
                if value is not None:
                    out[str(action_id).removeprefix(FIELD_PREFIX)] = value
    except (AttributeError, KeyError, TypeError):
        pass
    try:
        value = _value(action)
    except (AttributeError, KeyError, TypeError):
        value = None
    if value is not None:
        out[str(action.get("action_id", "")).removeprefix(FIELD_PREFIX)] = value
    return out


def error_block(view: Mapping[str, Any]) -> str | None:
    """Where a refusal of a submitted modal is shown: its last input block (nearest the submit button)."""
    try:
        values = (view.get("state") or {}).get("values") or {}
        drawn = [b.get("block_id") for b in view.get("blocks") or [] if b.get("type") == "input"]
    except (AttributeError, TypeError):
        return None
    ids = [b for b in drawn if b in values] or [str(b) for b in values]
    return str(ids[-1]) if ids else None
