"""The table as one Components V2 message, end to end (the real bot against the fake Discord, which checks
V2's rules): during the round it is one container — the table's text, the earlier moves in small print,
its buttons in action rows — edited in place; at the count the result and its picture (a media gallery
showing the PNG attached to that same message) go into it, and no count message of its own is posted.
The classic layout (``DISCORD_LAYOUT=classic``, and a table message too long for V2) posts text,
buttons and a separate count with its picture in an embed."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.discord.layout import TEXT_LIMIT, table_layout
from adapters.pictures import worker
from bot.model import Button, Message, MessageKind, TableKey
from tests.e2e import discord_helpers
from tests.e2e.discord_helpers import Harness, assert_no_serial_before_count
from tests.fakes.discord_private import COMPONENTS_V2
from tests.fakes.discord_server import RecordedMessage

world = discord_helpers.world
no_errors = discord_helpers.no_errors


def container(msg: RecordedMessage) -> list[dict[str, Any]]:
    """The one container's children, as the fake received them."""
    assert msg.flags & COMPONENTS_V2 and msg.content == "" and msg.embeds == []
    [box] = msg.components
    assert box["type"] == 17 and box["accent_color"]
    return list(box["components"])


def kinds(children: list[dict[str, Any]]) -> list[int]:
    return [c["type"] for c in children]


async def dealt(h: Harness, layout: str) -> RecordedMessage:
    """The bot started with this layout, a table dealt: its table message."""
    h.layout = layout
    await h.start()
    await h.open_table()
    await h.wait_dms(1)
    return h.panel("table")


async def test_the_table_is_one_v2_message_with_the_count_and_its_picture_in_it(world: Harness) -> None:
    h = world
    table = await dealt(h, "v2")
    opener = h.to_act()
    second = h.after(opener)
    third = h.after(second)
    children = container(table)
    assert kinds(children) == [10, 1]  # the table's text, its buttons
    assert f"<@{opener.id}> to act" in children[0]["content"]
    assert {b["custom_id"] for b in children[1]["components"]} == {h.button(a) for a in ("open-bid", "hand", "odds")}

    # a bid and a challenge: the same message edited; the bid is in small print once the challenge is the news
    await h.ask(opener, "bid", quantity=1, digit=5)
    await h.press(second, h.panel("table"), h.button("challenge"))
    assert h.panel("table").id == table.id
    children = container(table)
    assert kinds(children) == [10, 14, 10, 1]  # text, separator, earlier moves, buttons
    assert children[2]["content"].startswith("-# ") and "1 five" in children[2]["content"]
    assert h.button("challenge") in table.custom_ids()

    # the count: into the table message, with its picture; no count message of its own
    await h.ask(third, "challenge")
    # round 2 opens at once, most often before the picture is drawn: the counted round's message keeps its
    # own moves in small print (it showed the next round's when the picture came after them)
    round_two = await h.fake.wait_for(lambda: (p := h.panel("table")).id != table.id and p)
    await h.ask(h.to_act(), "bid", quantity=3, digit=9)
    await h.fake.wait_for(lambda: table.attachments and True)
    await h.notifier.idle()
    children = container(table)
    small = [c["content"] for c in children if c["type"] == 10 and c["content"].startswith("-# ")]
    assert small and "1 five" in small[0] and "3 nines" not in small[0], small
    assert round_two.id != table.id
    assert 12 in kinds(children) and 10 in kinds(children)
    texts = [c["content"] for c in children if c["type"] == 10]
    assert any("**The count**" in t and "Payments:" in t for t in texts)
    [gallery] = [c for c in children if c["type"] == 12]
    [attachment] = table.attachments
    assert gallery["items"][0]["media"]["url"] == f"attachment://{attachment['filename']}"
    assert "The count" in gallery["items"][0]["description"]  # alt text
    assert h.fake.uploads[int(attachment["id"])].startswith(b"\x89PNG")
    assert table.custom_ids() == []  # counted: no buttons left
    posted = [m for m in h.channel_messages() if "The count" in m.text() and m.id != table.id]
    assert posted == []
    # the next round is a new V2 table message; no serial was public before its count
    new = await h.fake.wait_for(lambda: (p := h.panel("table")).id != table.id and p)
    assert kinds(container(new))[0] == 10 and "Round 2" in new.text()
    assert_no_serial_before_count(h)


@pytest.mark.parametrize("picture", ["drawn", "shed"])
async def test_the_last_rounds_count_stays_in_the_closed_table_message(world: Harness, picture: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A table of one round: its count goes into the table message, then the table closes and the message
    loses its buttons — and keeps the count and its picture (the count went when no picture came to draw it
    back: the "Counted" panel and the close redrew the message from the panel alone)."""
    if picture == "shed":  # the picture worker refuses every picture at once: the text goes alone
        monkeypatch.setattr(worker, "MAX_WAITING", 0)
    h = world
    h.layout = "v2"
    await h.start()
    await h.ask(h.alice, "start", options="rounds=1")
    await h.ask(h.bob, "join")
    await h.ask(h.carol, "join")
    await h.press(h.alice, h.panel("lobby"), h.button("deal"))
    await h.wait_dms(1)
    table = h.panel("table")
    opener = h.to_act()
    await h.ask(opener, "bid", quantity=1, digit=5)
    await h.ask(h.after(opener), "challenge")
    await h.ask(h.after(h.after(opener)), "challenge")
    await h.service.drain()
    await h.notifier.idle()
    assert h.service.table(h.key) is None  # closed
    children = container(table)
    assert any("**The count**" in c["content"] and "Payments:" in c["content"] for c in children if c["type"] == 10)
    assert table.custom_ids() == []
    galleries = [c for c in children if c["type"] == 12]
    if picture == "drawn":
        [attachment] = table.attachments
        assert [g["items"][0]["media"]["url"] for g in galleries] == [f"attachment://{attachment['filename']}"]
    else:
        assert galleries == [] and table.attachments == []


async def test_the_classic_layout_posts_the_count_apart_with_its_picture_in_an_embed(world: Harness) -> None:
    h = world
    table = await dealt(h, "classic")
    assert not table.flags & COMPONENTS_V2 and "to act" in table.content
    assert all(row["type"] == 1 for row in table.components)
    opener = h.to_act()
    await h.ask(opener, "bid", quantity=1, digit=5)
    await h.ask(h.after(opener), "challenge")
    await h.ask(h.after(h.after(opener)), "challenge")
    count = await h.fake.wait_for_message(lambda m: "**The count**" in m.content and bool(m.attachments))
    assert count.id != table.id and count.embeds[0]["image"]["url"].startswith("attachment://")


def test_a_table_message_too_long_for_v2_is_drawn_the_classic_way() -> None:
    key = TableKey("discord", "1", "2")
    buttons = (Button("challenge", "Challenge"),)
    fits = Message(key, "x" * (TEXT_LIMIT - 10), MessageKind.TABLE, panel="table", buttons=buttons)
    assert table_layout(fits) is not None
    too_long = Message(key, "x" * (TEXT_LIMIT + 1), MessageKind.TABLE, panel="table", buttons=buttons)
    assert table_layout(too_long) is None  # the notifier then sends content and buttons
    result = Message(key, "y" * 20, MessageKind.RESULT)
    assert table_layout(fits, result=result) is None
