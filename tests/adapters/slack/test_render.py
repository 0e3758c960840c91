"""Block Kit rendering: markup, escaping, buttons, the Raise… modal and its submission."""

from __future__ import annotations

import json

from adapters.forms import picker
from adapters.slack.render import (
    SECTION_LIMIT,
    key_from_value,
    mrkdwn,
    parse_raise,
    raise_modal,
    render_message,
    render_reply,
    server_id,
    usage,
)
from bot.model import Button, Message, Reply, TableKey
from core.game import Form, FormField

KEY = TableKey("slack", "T0FAKE", "C0GAME")


def test_bold_becomes_slack_bold_and_mentions_survive_escaping() -> None:
    assert mrkdwn("**2 sevens** by <@U0ALICE> at <#C0GAME> & co") == "*2 sevens* by <@U0ALICE> at <#C0GAME> &amp; co"
    assert mrkdwn("<!channel> <script>") == "&lt;!channel&gt; &lt;script&gt;"


def test_humans_are_mentioned_and_computers_named() -> None:
    message = Message(KEY, "Your turn, <@cpu-gekko>; then <@U0BOB>.", "table", names={"cpu-gekko": "Gekko (hard)"},
                      humans=frozenset({"U0BOB"}))
    text, blocks = render_message(message)
    assert text == "Your turn, Gekko (hard); then <@U0BOB>."
    assert blocks == [{"type": "section", "text": {"type": "mrkdwn", "text": text}}]


def test_buttons_carry_the_command_and_the_table() -> None:
    buttons = (Button("join", "Join", "primary"), Button("leave", "Leave"), Button("deal", "Deal", "success"),
               Button("challenge", "Challenge", "danger"))
    _, blocks = render_message(Message(KEY, "lobby", "lobby", panel="lobby", buttons=buttons))
    actions = blocks[-1]
    assert actions["type"] == "actions"
    assert [e["action_id"] for e in actions["elements"]] == ["liars:join", "liars:leave", "liars:deal",
                                                             "liars:challenge"]
    assert [e.get("style") for e in actions["elements"]] == ["primary", None, "primary", "danger"]
    assert {e["value"] for e in actions["elements"]} == {"T0FAKE:C0GAME"}
    assert key_from_value("T0FAKE:C0GAME") == KEY
    assert key_from_value("nonsense") is None and key_from_value(None) is None


def test_long_text_is_split_into_sections_at_line_ends() -> None:
    lines = [f"line {i} " + "x" * 90 for i in range(100)]
    _, blocks = render_message(Message(KEY, "\n".join(lines), "count"))
    texts = [b["text"]["text"] for b in blocks]
    assert len(texts) > 3 and all(len(t) <= SECTION_LIMIT for t in texts)
    assert "\n".join(texts) == "\n".join(lines)


def test_an_exported_record_is_shown_verbatim_as_text() -> None:
    record = json.dumps({"players": ["U1", "U2"], "names": {"U1": "a<b"}})
    text, blocks = render_reply(Reply("Game record (1 session).", data={"record": record}), KEY)
    assert blocks == [] and text.startswith("Game record") and "```" in text and "a&lt;b" in text


def test_the_raise_modal_offers_the_legal_quantities_and_every_digit() -> None:
    names = ["zeros", "ones", "twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines"]
    digits = {4: [9, 8], 5: list(range(9, -1, -1)), 6: list(range(9, -1, -1))}
    options = picker(Form("bid", "Raise", (
        FormField("quantity", "Quantity", tuple((str(q), str(q)) for q in (4, 5, 6))),
        FormField("digit", "Digit", depends_on="quantity", options_by={
            str(q): tuple((str(d), f"{names[d]} ({d})") for d in ds) for q, ds in digits.items()})),
        intro="4 sevens"))
    view = raise_modal(KEY, options)
    assert view["type"] == "modal" and len(view["title"]["text"]) <= 24
    assert "*4 sevens*" in view["blocks"][0]["text"]["text"]
    quantity, digit = view["blocks"][1]["element"], view["blocks"][2]["element"]
    assert [o["value"] for o in quantity["options"]] == ["4", "5", "6"] and quantity["initial_option"]["value"] == "4"
    assert [o["value"] for o in digit["options"]] == [str(d) for d in range(9, -1, -1)]

    state = {"quantity": {"quantity": {"type": "static_select", "selected_option": quantity["options"][1]}},
             "digit": {"digit": {"type": "static_select", "selected_option": digit["options"][0]}}}
    submitted = {"private_metadata": view["private_metadata"], "state": {"values": state}}
    assert parse_raise(submitted) == (KEY, "5", "9")
    assert parse_raise({"private_metadata": "", "state": {"values": {}}}) is None


def test_the_server_is_the_grid_organisation_or_else_the_workspace() -> None:
    assert server_id({"team_id": "T1", "enterprise_id": "E1"}) == "E1"
    assert server_id({"team_id": "T1"}) == "T1"
    assert server_id({"team": {"id": "T2"}, "enterprise": None}) == "T2"
    assert server_id({"team": {"id": "T2"}, "enterprise": {"id": "E2"}}) == "E2"


def test_usage_names_every_subcommand() -> None:
    text = usage("dance")
    assert text.startswith("I don't know `dance`.")
    for name in ("start", "join", "bid", "challenge", "kick", "ledger", "sheet", "help"):
        assert f"`{name}`" in text


def test_a_record_too_long_for_a_message_says_how_to_get_it() -> None:
    key = TableKey("slack", "T1", "C1")
    text, _blocks = render_reply(Reply("Game record.", data={"record": "x" * 50_000}), key)
    assert "liars export" in text and "x" * 100 not in text
