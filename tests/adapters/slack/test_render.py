"""Block Kit rendering: markup, escaping, suits, buttons, the games' forms as modals and their submission."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from adapters.slack.forms import chosen, error_block, fit, form_modal, parse_form
from adapters.slack.render import (
    SECTION_LIMIT,
    key_from_value,
    mrkdwn,
    plain,
    render_message,
    render_reply,
    server_id,
    table_from_value,
    turn_from_value,
    usage,
)
from bot.model import Button, Message, MessageKind, Reply, TableKey
from core.game import Form, FormField, Match
from core.registry import get_game

KEY = TableKey("slack", "T0FAKE", "C0GAME")


def test_bold_becomes_slack_bold_and_mentions_survive_escaping() -> None:
    assert mrkdwn("**2 sevens** by <@U0ALICE> at <#C0GAME> & co") == "*2 sevens* by <@U0ALICE> at <#C0GAME> &amp; co"
    assert mrkdwn("<!channel> <script>") == "&lt;!channel&gt; &lt;script&gt;"


def test_humans_are_mentioned_and_computers_named() -> None:
    message = Message(KEY, "Your turn, <@cpu-gekko>; then <@U0BOB>.", MessageKind.TABLE,
                      names={"cpu-gekko": "Gekko (hard)"}, humans=frozenset({"U0BOB"}))
    text, blocks = render_message(message)
    assert text == "Your turn, Gekko (hard); then <@U0BOB>."
    assert blocks == [{"type": "section", "text": {"type": "mrkdwn", "text": text}}]


def test_buttons_carry_the_command_and_the_table() -> None:
    buttons = (Button("join", "Join", "primary"), Button("leave", "Leave"), Button("deal", "Deal", "success"),
               Button("challenge", "Challenge", "danger"))
    _, blocks = render_message(Message(KEY, "lobby", MessageKind.LOBBY, panel="lobby", buttons=buttons))
    actions = blocks[-1]
    assert actions["type"] == "actions"
    assert [e["action_id"] for e in actions["elements"]] == ["liars:join", "liars:leave", "liars:deal",
                                                             "liars:challenge"]
    assert [e.get("style") for e in actions["elements"]] == ["primary", None, "primary", "danger"]
    assert {e["value"] for e in actions["elements"]} == {"T0FAKE:C0GAME"}
    assert key_from_value("T0FAKE:C0GAME") == KEY
    assert key_from_value("nonsense") is None and key_from_value(None) is None


def test_a_move_on_the_table_as_drawn_carries_the_turn_in_its_value() -> None:
    """A button that answers the table as its message shows it (``at_turn``: Challenge) carries the table and the
    turn it was drawn at, and reads them back; the others the table only; a value of an older version, or a
    malformed one, names no turn."""
    buttons = (Button("challenge", "Challenge", "danger", at_turn=True), Button("bid", "Raise…", "primary", form=True),
               Button("hand", "My serial"))
    message = Message(KEY, "table", MessageKind.TABLE, panel="table", buttons=buttons, table_id=7, turn=0)
    values = [e["value"] for e in render_message(message)[1][-1]["elements"]]
    assert values == ["T0FAKE:C0GAME@7.0", "T0FAKE:C0GAME@7", "T0FAKE:C0GAME@7"]
    assert render_reply(Reply("status", buttons=buttons), KEY, 7, 12)[1][-1]["elements"][0]["value"] == (
        "T0FAKE:C0GAME@7.12")
    assert render_reply(Reply("status", buttons=buttons), KEY)[1][-1]["elements"][0]["value"] == "T0FAKE:C0GAME"
    read = {v: (key_from_value(v), table_from_value(v), turn_from_value(v)) for v in (
        "T0FAKE:C0GAME@7.0", "T0FAKE:C0GAME@7", "T0FAKE:C0GAME", "T0FAKE:C0GAME@7.", "T0FAKE:C0GAME@7.x",
        "T0FAKE:C0GAME@x.5", "T0FAKE:C0GAME@.5", f"T0FAKE:C0GAME@7.{10 ** 12}", "T0FAKE:C0GAME@7.٣")}
    assert read == {
        "T0FAKE:C0GAME@7.0": (KEY, 7, 0), "T0FAKE:C0GAME@7": (KEY, 7, None), "T0FAKE:C0GAME": (KEY, None, None),
        "T0FAKE:C0GAME@7.": (KEY, 7, None), "T0FAKE:C0GAME@7.x": (KEY, 7, None), "T0FAKE:C0GAME@x.5": (KEY, None, None),
        "T0FAKE:C0GAME@.5": (KEY, None, None), f"T0FAKE:C0GAME@7.{10 ** 12}": (KEY, 7, None),
        "T0FAKE:C0GAME@7.٣": (KEY, 7, None)}


def test_long_text_is_split_into_sections_at_line_ends() -> None:
    lines = [f"line {i} " + "x" * 90 for i in range(100)]
    _, blocks = render_message(Message(KEY, "\n".join(lines), MessageKind.RESULT))  # a count
    texts = [b["text"]["text"] for b in blocks]
    assert len(texts) > 3 and all(len(t) <= SECTION_LIMIT for t in texts)
    assert "\n".join(texts) == "\n".join(lines)


def test_an_exported_record_is_shown_verbatim_as_text() -> None:
    record = json.dumps({"players": ["U1", "U2"], "names": {"U1": "a<b"}})
    text, blocks = render_reply(Reply("Game record (1 session).", data={"record": record}), KEY)
    assert blocks == [] and text.startswith("Game record") and "```" in text and "a&lt;b" in text


def _raise_form() -> Form:
    names = ["zeros", "ones", "twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines"]
    digits = {4: [9, 8], 5: list(range(9, -1, -1)), 6: list(range(9, -1, -1))}
    return Form("bid", "Raise", (
        FormField("quantity", "How many", tuple((str(q), str(q)) for q in (4, 5, 6))),
        FormField("digit", "Of which digit", depends_on="quantity", options_by={
            str(q): tuple((str(d), f"{names[d]} ({d})") for d in ds) for q, ds in digits.items()})),
        intro="Standing bid: **4 sevens**. Your bid must beat it.", submit="Bid {quantity} {digit}")


def _state(view: dict[str, Any], chosen: dict[str, str | list[str]]) -> dict[str, object]:
    values: dict[str, object] = {}
    for block in view["blocks"]:
        element = block.get("element") or {}
        name = str(element.get("action_id", "")).removeprefix("liars:field:")
        if name in chosen:
            want = chosen[name]
            if isinstance(want, list):
                state = {"selected_options": [o for o in element["options"] if o["value"] in want]}
            else:
                state = {"selected_option": next(o for o in element["options"] if o["value"] == want)}
            values[block["block_id"]] = {element["action_id"]: state}
    return {"callback_id": view["callback_id"], "private_metadata": view["private_metadata"],
            "state": {"values": values}}


def test_the_raise_modal_lists_the_digits_for_the_chosen_quantity() -> None:
    view = form_modal(KEY, _raise_form(), "raise")
    assert view is not None and view["type"] == "modal" and len(view["title"]["text"]) <= 24
    assert view["title"]["text"] == "Raise" and view["submit"]["text"] == "Bid"
    assert "*4 sevens*" in view["blocks"][0]["text"]["text"]
    quantity, digit = view["blocks"][1]["element"], view["blocks"][2]["element"]
    assert view["blocks"][1]["dispatch_action"] is True  # choosing a quantity re-lists the digits
    assert [o["value"] for o in quantity["options"]] == ["4", "5", "6"] and quantity["initial_option"]["value"] == "4"
    assert [o["value"] for o in digit["options"]] == ["9", "8"]
    again = form_modal(KEY, _raise_form(), "raise", {"quantity": "5"})
    assert again is not None and again["blocks"][1]["element"]["initial_option"]["value"] == "5"
    assert [o["value"] for o in again["blocks"][2]["element"]["options"]] == [str(d) for d in range(9, -1, -1)]
    # a new first choice is a new block for the second: Slack forgets a digit chosen for another quantity
    assert again["blocks"][2]["block_id"] != view["blocks"][2]["block_id"]

    assert parse_form(_state(again, {"quantity": "5", "digit": "0"})) == (KEY, "bid", {"quantity": "5", "digit": "0"})
    assert parse_form({"private_metadata": "", "state": {"values": {}}}) is None


def test_a_modal_that_names_no_command_is_not_taken() -> None:
    state = {"quantity": {"quantity": {"type": "static_select", "selected_option": {"value": "5"}}},
             "digit": {"digit": {"type": "static_select", "selected_option": {"value": "9"}}}}
    submitted = {"callback_id": "liars:raise", "state": {"values": state},
                 "private_metadata": json.dumps({"server": KEY.server_id, "channel": KEY.channel_id})}
    assert parse_form(submitted) is None


def test_the_raise_modal_says_the_bid_on_its_button_once_it_is_chosen() -> None:
    form = _raise_form()
    modal = form_modal(KEY, form, "raise", {"quantity": "5"})
    assert modal is not None and modal["submit"]["text"] == "Bid"
    view = form_modal(KEY, form, "raise", {"quantity": "5", "digit": "0"})
    assert view is not None and view["submit"]["text"] == "Bid 5 zeros"
    assert view["blocks"][2]["element"]["initial_option"]["value"] == "0"
    assert all(b["dispatch_action"] is True for b in view["blocks"][1:])  # every choice redraws the modal
    # a digit the new quantity does not list is dropped, and the button says the plain verb again
    view = form_modal(KEY, form, "raise", {"quantity": "4", "digit": "0"})
    assert view is not None and view["submit"]["text"] == "Bid"
    assert "initial_option" not in view["blocks"][2]["element"]
    view = form_modal(KEY, form, "raise", {"quantity": "6", "digit": "9", "other": "x"})
    assert view is not None and view["submit"]["text"] == "Bid 6 nines"


def test_a_label_longer_than_slack_allows_is_cut_at_a_word() -> None:
    assert fit("Bid 12 sevens") == "Bid 12 sevens"
    # the verb alone: a tail like "… straight flush" would name another hand than the colour one chosen
    assert fit("Declare colour straight flush to the queen") == "Declare …"
    assert fit("Declare full house, queens full") == "Declare …"
    assert len(fit("x" * 40)) == 24 and fit("x" * 40).endswith("…")


def test_the_choices_of_a_modal_come_from_its_drawing_its_state_and_the_action() -> None:
    view = form_modal(KEY, _raise_form(), "raise", {"quantity": "5", "digit": "3"})
    assert view is not None
    digit = {"type": "static_select", "action_id": "liars:field:digit", "selected_option": {"value": "7"}}
    assert chosen(view, digit) == {"quantity": "5", "digit": "7"}
    quantity = {"type": "static_select", "action_id": "liars:field:quantity", "selected_option": {"value": "6"}}
    assert chosen(view, quantity) == {"quantity": "6", "digit": "3"}
    view["state"] = {"values": {"f:digit:5": {"liars:field:digit": {"selected_option": {"value": "1"}}}}}
    assert chosen(view, quantity) == {"quantity": "6", "digit": "1"}  # what Slack says the input holds
    marks = {"type": "checkboxes", "action_id": "liars:field:cards",
             "selected_options": [{"value": "7H"}, {"value": "QS"}]}
    assert chosen({}, marks) == {"cards": "7H QS"}
    assert chosen({"blocks": "nonsense"}, {}) == {}


def test_a_refusal_goes_beside_the_last_field_of_the_submitted_modal() -> None:
    view = form_modal(KEY, _raise_form(), "raise", {"quantity": "5"})
    assert view is not None
    submitted = {**view, "state": {"values": {"f:quantity": {}, "f:digit:5": {}}}}
    assert error_block(submitted) == "f:digit:5"
    assert error_block({"state": {"values": {"f:digit:5": {}}}}) == "f:digit:5"  # a view sent without blocks
    assert error_block({"state": {"values": {}}}) is None


def _card_round() -> tuple[Match, str]:
    game = get_game("cards")
    match = game.new_match(game.make_rules(None, {}), ["U1", "U2", "U3"], host="U1")
    match.apply_deal(match.deal(random.Random(3)))
    holder = match.to_act
    assert holder is not None
    return match, holder


def test_the_declare_modal_is_type_then_ranks_and_only_legal_choices() -> None:
    match, holder = _card_round()
    form = match.form(holder, "declare")
    view = form_modal(KEY, form, "declare")
    assert view is not None and view["submit"]["text"] == "Declare"
    kinds = view["blocks"][1]["element"]["options"]
    first = kinds[0]["value"]
    ranks = view["blocks"][2]["element"]["options"]
    assert [o["value"] for o in ranks] == [v for v, _ in form.fields[1].options_by[first]]
    assert all(len(o["text"]["text"]) <= 75 for o in kinds + ranks)
    other = kinds[-1]["value"]
    redrawn = form_modal(KEY, form, "declare", {"type": other})
    assert redrawn is not None
    for value, label in form.fields[1].options_by[other]:  # the button says the declaration, within 24
        said = form_modal(KEY, form, "declare", {"type": other, "ranks": value})
        assert said is not None and len(said["submit"]["text"]) <= 24
        words, shown = f"Declare {label.split(' (')[0]}", said["submit"]["text"]
        assert shown == words or (shown == "Declare …" and len(words) > 24), (shown, words)
    assert [o["value"] for o in redrawn["blocks"][2]["element"]["options"]] == \
        [v for v, _ in form.fields[1].options_by[other]]
    rank = redrawn["blocks"][2]["element"]["options"][0]["value"]
    assert parse_form(_state(redrawn, {"type": other, "ranks": rank})) == \
        (KEY, "declare", {"type": other, "ranks": rank})


def test_the_discard_modal_has_a_checkbox_per_card_in_two_colours() -> None:
    match, holder = _card_round()
    match.apply(match.parse(holder, "declare", ["seven-six", "high"], {}))
    taker = match.to_act
    assert taker is not None
    match.apply(match.parse(taker, "take", [], {}))
    form = match.form(taker, "discard")
    assert form.refusal is None
    view = form_modal(KEY, form, "discard")
    assert view is not None and view["submit"]["text"] == "Discard and draw"
    marked = form_modal(KEY, form, "discard", {"cards": " ".join(v for v, _ in form.fields[0].options[:3])})
    assert marked is not None and marked["submit"]["text"] == "Discard 3 and draw"
    assert len(marked["blocks"][1]["element"]["initial_options"]) == 3 and marked["blocks"][1]["dispatch_action"]
    boxes = view["blocks"][1]["element"]
    assert boxes["type"] == "checkboxes" and len(boxes["options"]) == 5
    labels = " ".join(o["text"]["text"] for o in boxes["options"])
    assert not set("♥♦♠♣") & set(labels) and ":" in labels  # suits as Slack's red and black emoji
    picked = [o["value"] for o in boxes["options"][:2]]
    assert parse_form(_state(view, {"cards": picked})) == (KEY, "discard", {"cards": " ".join(picked)})
    assert parse_form(_state(view, {})) == (KEY, "discard", {})


def test_suits_come_out_red_and_black() -> None:
    assert mrkdwn("**7♥ Q♠** 10♦ 2♣ 🃏") == "*7:hearts: Q:spades:* 10:diamonds: 2:clubs: 🃏"
    assert plain("**Declare…** A♥") == "Declare… A:hearts:"
    message = Message(KEY, "Your hand: 7♥ Q♠", MessageKind.PRIVATE, to="U1")
    text, blocks = render_message(message)
    assert text == "Your hand: 7:hearts: Q:spades:" and "♥" not in json.dumps(blocks, ensure_ascii=False)


def test_a_form_button_opens_its_form() -> None:
    _, blocks = render_message(Message(KEY, "t", MessageKind.TABLE, buttons=(
        Button("declare", "Declare…", "primary", form=True), Button("take", "Take the hand"))))
    ids = [e["action_id"] for e in blocks[-1]["elements"]]
    assert ids == ["liars:open-declare", "liars:take"]


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


@pytest.mark.parametrize(("typed", "shown"), [
    ("<!channel>", "I don't know `&lt;!channel&gt;`."),  # escaped once, as every reply is: no ping, no &amp;lt;
    ("a&b", "I don't know `a&amp;b`."),
    ("x" * 5000, f"I don't know `{'x' * 39}…`."),
])
def test_an_unknown_subcommand_is_quoted_as_typed(typed: str, shown: str) -> None:
    text, _blocks = render_reply(Reply(usage(typed), ok=False), TableKey("slack", "T1", "C1"))
    assert text.startswith(shown + " Usage:"), text[:80]


def test_a_record_too_long_for_a_message_says_how_to_get_it() -> None:
    key = TableKey("slack", "T1", "C1")
    text, _blocks = render_reply(Reply("Game record.", data={"record": "x" * 50_000}), key)
    assert "liars export" in text and "x" * 100 not in text


def test_a_reply_longer_than_fifty_sections_is_cut_to_what_slack_takes() -> None:
    """A reply of 180,000 characters was cut to 39,000 for its text, but its blocks were made from all of it: 67
    sections, and Slack refuses more than 50 blocks a message (invalid_blocks): the player saw nothing."""
    lines = "\n".join(f"• Player {i:04d}: +{i} units" + " " * 60 for i in range(2_000))
    text, blocks = render_reply(Reply(lines, buttons=(Button("status", "Status"),)), KEY)
    assert len(blocks) <= 50 and blocks[-1]["type"] == "actions", len(blocks)
    sections = [b["text"]["text"] for b in blocks if b["type"] == "section"]
    assert all(len(s) <= 3_000 for s in sections) and sections[-1].endswith("…") and text.endswith("…")
    assert len(text) <= 40_000 and "".join(sections).replace("\n", "") == text.replace("\n", "")
