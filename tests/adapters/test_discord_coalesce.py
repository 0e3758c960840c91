"""Under Discord's rate limits a table's messages queue up; a panel message that a later one in the
same batch makes moot is dropped, so the table message does not fall behind by a queue of stale edits."""

from __future__ import annotations

from adapters.discord.notifier import drop_moot_panels
from bot.model import Message, MessageKind, TableKey

KEY = TableKey("discord", "1", "2")


def table(text: str, *, fresh: bool = False) -> Message:
    return Message(KEY, text, MessageKind.TABLE, panel="table", fresh=fresh)


def ping(text: str) -> Message:
    return Message(KEY, text, MessageKind.TURN, panel="turn", replace=True)


def post(text: str) -> Message:
    return Message(KEY, text, MessageKind.NOTE)


def dm(text: str, to: str) -> Message:
    return Message(KEY, text, MessageKind.PRIVATE, to=to)


def texts(messages: list[Message]) -> list[str]:
    return [m.text for m in messages]


def test_only_the_latest_edit_of_a_panel_goes_and_everything_else_keeps_its_order() -> None:
    batch = [table("bid 1"), ping("@b"), post("note"), table("bid 2"), ping("@c"), dm("serial", "u1"), table("bid 3")]
    assert texts(drop_moot_panels(batch)) == ["note", "@c", "serial", "bid 3"]


def test_a_new_rounds_table_message_is_never_dropped_nor_what_edits_the_previous_one() -> None:
    batch = [table("round 1, bid 5"), table("round 1, counted"), table("round 2", fresh=True),
             table("round 2, bid 1"), table("round 2, bid 2")]
    assert texts(drop_moot_panels(batch)) == ["round 1, counted", "round 2", "round 2, bid 2"]


def test_a_ping_is_dropped_only_for_a_later_ping_and_an_edit_never_hides_a_ping() -> None:
    turn_edit = Message(KEY, "edited ping", MessageKind.TURN, panel="turn")
    assert texts(drop_moot_panels([ping("@b"), turn_edit])) == ["@b", "edited ping"]
    assert texts(drop_moot_panels([turn_edit, ping("@c")])) == ["@c"]
    assert texts(drop_moot_panels([ping("@b"), ping("@c"), ping("@a")])) == ["@a"]


def test_a_batch_without_repeats_is_sent_as_it_is() -> None:
    batch = [table("bid 1"), ping("@b"), post("count"), dm("serial", "u2")]
    assert drop_moot_panels(batch) == batch
