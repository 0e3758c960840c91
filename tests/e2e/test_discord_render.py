"""The Discord rendering helpers on their own: message splitting, mentions, the Raise… form."""

from __future__ import annotations

from typing import Any

import discord

from adapters.discord.bot import _options_for
from adapters.discord.components import ID_LIMIT, SendButton, TableButton, custom_id
from adapters.discord.forms import form_view
from adapters.discord.render import CONTENT_LIMIT, buttons_view, chunks, render
from bot.model import Button, Message, MessageKind, TableKey
from core.game import Form, FormField
from core.serial import Bid

KEY = TableKey("discord", "111", "222")
DIGITS_ZERO_LOW = [(d, name) for d, name in zip(range(9, -1, -1), (
    "nines", "eights", "sevens", "sixes", "fives", "fours", "threes", "twos", "ones", "zeros"), strict=True)]


def parts(view: discord.ui.View | None) -> list[dict[str, Any]]:
    """The view's components as Discord receives them."""
    assert view is not None
    return [c for row in view.to_components() for c in row["components"]]


def test_chunks_split_at_line_ends_within_the_limit() -> None:
    text = "\n".join(f"• player {i}: +{i} units" for i in range(300))
    parts = chunks(text)
    assert len(parts) > 1 and all(0 < len(p) <= CONTENT_LIMIT for p in parts)
    assert "\n".join(parts) == text
    assert chunks("x" * 4500) == ["x" * 2000, "x" * 2000, "x" * 500]
    assert chunks("") == ["\u200b"]  # Discord refuses an empty message


def test_humans_are_mentioned_and_computers_named() -> None:
    msg = Message(KEY, "<@42> bid, <@cpu-gekko> challenged", MessageKind.TABLE,
                  names={"42": "Ann", "cpu-gekko": "Gekko"}, humans=frozenset({"42"}))
    assert render(msg) == "<@42> bid, Gekko challenged"


def options_for(quantity: int, digit: int, top: int = 28) -> Form:
    """What Service.raise_options says when (quantity, digit) stands, zero-low, up to ``top`` copies."""
    legal: dict[int, list[int]] = {}
    for bid_id in range(Bid(quantity, digit).id + 1, top * 10):
        bid = Bid.from_id(bid_id)
        legal.setdefault(bid.quantity, []).insert(0, bid.digit)
    quantities = sorted(legal)[:25]
    names = dict(DIGITS_ZERO_LOW)
    return Form("bid", "Raise", (
        FormField("quantity", "How many", tuple((str(q), str(q)) for q in quantities)),
        FormField("digit", "Of which digit", depends_on="quantity", options_by={
            str(q): tuple((str(d), f"{names[d]} ({d})") for d in legal[q]) for q in quantities})),
        intro=f"Standing bid: **{Bid(quantity, digit)}**. Your bid must beat it.", submit="Bid {quantity} {digit}")


async def test_raise_form_offers_only_bids_that_beat_the_standing_one() -> None:
    options = options_for(4, 7)
    content, view = form_view(KEY, options)
    assert "**4 sevens**" in content
    q_select, d_select, bid = parts(view)
    assert [o["value"] for o in q_select["options"]][:2] == ["4", "5"] and q_select["options"][0]["default"]
    assert [o["label"] for o in d_select["options"]] == ["nines (9)", "eights (8)"]  # at 4, only above sevens
    assert bid["disabled"]
    content, view = form_view(KEY, options, "5", "2")
    _, d_select, bid = parts(view)
    assert len(d_select["options"]) == 10
    assert bid["custom_id"] == "liars:go-bid:111:222:5:2" and bid["label"] == "Bid 5 twos"
    # 4 nines is the top bid at 4: with nines standing, 4 is no longer offered.
    _, view = form_view(KEY, options_for(4, 9))
    assert parts(view)[0]["options"][0]["value"] == "5"
    # Nothing beats the highest bid there is.
    content, view = form_view(KEY, options_for(16, 9, top=16))
    assert view is None and "challenge instead" in content


async def test_a_forms_components_carry_its_table_and_move_within_discords_100_characters() -> None:
    """Every component of a form names the table and the move it was drawn at (``.<table>.<turn>``), and reads
    them back; where the move would make an id longer than Discord takes, the id goes without it."""
    _, view = form_view(KEY, options_for(4, 7), "5", "2", table=7, turn=0)
    assert [c["custom_id"] for c in parts(view)] == [
        "liars:pick-bid-1:111:222.7.0", "liars:pick-bid-2:111:222.7.0", "liars:go-bid:111:222.7.0:5:2"]
    found = SendButton.__discord_ui_compiled_template__.fullmatch(parts(view)[2]["custom_id"])
    assert found is not None and (found["table"], found["turn"], found["a"], found["b"]) == ("7", "0", "5", "2")
    wide = TableKey("discord", "dm" + "9" * 19, "9" * 19)  # the widest key a group DM has
    ids = [custom_id("go-discard", wide, 31, "10S-10H-10D-10C-9S", table=table, turn=10 ** 12 - 1)
           for table in (1, 10 ** 12 - 1)]
    assert ids[0].endswith(f".1.{10 ** 12 - 1}:31:10S-10H-10D-10C-9S") and len(ids[0]) <= ID_LIMIT
    assert ids[1] == custom_id("go-discard", wide, 31, "10S-10H-10D-10C-9S", table=10 ** 12 - 1)  # no room
    assert len(ids[1]) <= ID_LIMIT


def test_a_move_on_the_table_as_drawn_carries_the_turn_in_its_id() -> None:
    """A table button that answers the table as its message shows it (``at_turn``: Challenge) names the table and
    the turn it was drawn at (``.<table>.<turn>``) and reads them back; the others the table only."""
    view = buttons_view((Button("challenge", "Challenge", "danger", at_turn=True),
                         Button("bid", "Raise…", "primary", form=True), Button("hand", "My serial")), KEY, 7, 0)
    assert view is not None
    ids = [c["custom_id"] for c in parts(view)]
    assert ids == ["liars:challenge:111:222.7.0", "liars:open-bid:111:222.7", "liars:hand:111:222.7"]
    found = TableButton.__discord_ui_compiled_template__.fullmatch(ids[0])
    assert found is not None and (found["action"], found["table"], found["turn"]) == ("challenge", "7", "0")
    found = TableButton.__discord_ui_compiled_template__.fullmatch(ids[2])
    assert found is not None and (found["table"], found["turn"]) == ("7", None)
    drawn = buttons_view((Button("challenge", "Challenge", "danger", at_turn=True),), KEY, None, 3)
    assert drawn is not None and [c["custom_id"] for c in parts(drawn)] == ["liars:challenge:111:222"]  # no table


def test_a_dependent_fields_autocomplete_reads_the_value_as_the_client_typed_it() -> None:
    """An autocomplete's namespace is not validated: the quantity may come as an int or as its text."""
    field = FormField("digit", "Of which digit", depends_on="quantity",
                      options_by={"2": (("9", "nines (9)"),), "3": (("1", "ones (1)"), ("9", "nines (9)"))})
    every = {"9": "nines (9)", "1": "ones (1)"}
    assert _options_for(field, 2) == {"9": "nines (9)"} and _options_for(field, "02") == {"9": "nines (9)"}
    assert _options_for(field, " 3 ") == every
    for unlisted in (None, "", 0, 4, "x", "٣", -2, "9" * 5000):
        assert _options_for(field, unlisted) == every, unlisted


async def test_a_raise_form_of_more_than_25_quantities_says_the_higher_ones_are_typed() -> None:
    """At a 12-seat table the Raise… form lists quantities up to 96; Discord's menu holds 25, and the higher ones
    were left out without a word (Slack's lists them all)."""
    quantities = [str(q) for q in range(1, 97)]
    form = Form("bid", "Raise", (
        FormField("quantity", "How many", tuple((q, q) for q in quantities)),
        FormField("digit", "Of which digit", depends_on="quantity",
                  options_by={q: (("9", "nines (9)"),) for q in quantities})), submit="Bid {quantity} {digit}")
    content, view = form_view(KEY, form)
    assert content.endswith("71 higher choices are not listed here (a menu holds 25): type one with `/liars bid`.")
    assert view is not None and len(parts(view)[0]["options"]) == 25
    assert "not listed" not in form_view(KEY, options_for(4, 7))[0]
