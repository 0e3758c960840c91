"""The games' forms as Slack modals: each choice redraws the modal with the move on its submit button; a
refused submission keeps the modal open with the refusal beside a field and changes nothing; an applied
one closes it.  A form left open after the turn moved on says so when chosen in."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_asyncio

from adapters.slack.app import connect_socket
from tests.adapters.slack.harness import (
    ALICE,
    APP_TOKEN,
    BOB,
    BOT_TOKEN,
    CAROL,
    CHANNEL,
    NAMES,
    Driver,
    HttpDriver,
    SocketDriver,
    event_count,
    key_of,
    make_bot,
)
from tests.fakes.slack_server import FakeSlack
from tests.typed import live_round, serial_match

PLAYERS = (ALICE, BOB, CAROL)


@pytest_asyncio.fixture
async def socket_driver(tmp_path: Path) -> AsyncIterator[SocketDriver]:
    async with FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN) as fake:
        bot = await make_bot(fake, tmp_path / "liars.sqlite3", socket=True)
        try:
            async with connect_socket(bot):
                await fake.wait_for_socket()
                yield SocketDriver(fake, bot)
        finally:
            await bot.close()


async def _dealt(d: Driver) -> tuple[str, str]:
    """Three players seated and dealt: (who opens, the table message's ts)."""
    await d.slash(ALICE, "start")
    await d.slash(BOB, "join")
    await d.slash(CAROL, "join")
    await d.slash(ALICE, "deal")
    table = d.bot.service.table(key_of(d.fake))
    assert table is not None and serial_match(table).live_round is not None
    opener = live_round(table).to_act
    ts = d.bot.service.panel(key_of(d.fake), "table")
    assert opener is not None and ts is not None
    return opener, ts


def _state(d: Driver) -> tuple[str, str | None, str | None]:
    """What a refused move must leave as it was: the standing bid and who is to act."""
    table = d.bot.service.table(key_of(d.fake))
    assert table is not None and serial_match(table).live_round is not None
    return str(live_round(table).standing_bid), live_round(table).to_act, serial_match(table).to_act


def _serials(d: Driver) -> dict[str, str]:
    table = d.bot.service.table(key_of(d.fake))
    assert table is not None and serial_match(table).live_round is not None
    return {p: s.digits for p, s in live_round(table).serials.items()}


def _others_serials_absent(d: Driver, user: str, view_id: str) -> None:
    """The modal is its opener's own: no other player's serial in anything it showed."""
    shown = json.dumps([c.params for c in d.fake.calls() if c.method.startswith("views.")
                        and str((c.response or {}).get("view", {}).get("id")) == view_id])
    shown += json.dumps(d.fake.view_errors(view_id))
    assert not [s for p, s in _serials(d).items() if p != user and s in shown]


async def test_each_choice_redraws_the_raise_modal_with_the_bid_on_its_button(driver: HttpDriver,
                                                                              tmp_path: Path) -> None:
    d = driver
    opener, ts = await _dealt(d)
    view = await d.open_raise(opener, ts)
    assert view["submit"]["text"] == "Bid"  # before a digit is chosen: the plain verb
    view = await d.choose(opener, view, "quantity", "2")
    assert view["submit"]["text"] == "Bid" and "initial_option" not in view["blocks"][2]["element"]
    view = await d.choose(opener, view, "digit", "7")
    assert view["submit"]["text"] == "Bid 2 sevens"
    assert view["blocks"][2]["element"]["initial_option"]["value"] == "7"
    # a new quantity keeps a digit it still lists (in a new block: Slack would forget it otherwise)
    view = await d.choose(opener, view, "quantity", "12")
    assert view["submit"]["text"] == "Bid 12 sevens" and view["blocks"][1]["element"]["initial_option"]["value"] == "12"
    assert all(len(v["submit"]["text"]) <= 24 for v in d.fake.views().values() if v.get("submit"))
    _others_serials_absent(d, opener, view["id"])

    events = event_count(tmp_path / "liars.sqlite3")
    assert await d.submit_form(opener, view, {"quantity": "12", "digit": "7"}) == "Bid placed."
    assert view["id"] not in d.fake.views()  # the bare acknowledgement closed it
    assert event_count(tmp_path / "liars.sqlite3") > events


async def test_the_raise_modal_lists_every_legal_quantity(driver: HttpDriver) -> None:
    """At four seats there are 32 quantities, and a Slack modal's select holds 100: the form held the first 25 for
    every platform (Discord's selects hold 25), so 26 to 32 could only be typed."""
    d = driver
    dave = "U0DAVE"
    d.fake.add_user(dave, name="dave")
    await d.slash(ALICE, "start")
    for user in (BOB, CAROL, dave):
        await d.slash(user, "join")
    await d.slash(ALICE, "deal")
    key = key_of(d.fake)
    opener = live_round(d.bot.service.table(key)).to_act
    ts = d.bot.service.panel(key, "table")
    assert opener is not None and ts is not None
    view = await d.open_raise(opener, ts)
    listed = [o["value"] for o in view["blocks"][1]["element"]["options"]]
    assert listed == [str(q) for q in range(1, 33)]
    view = await d.choose(opener, view, "quantity", "32")
    view = await d.choose(opener, view, "digit", "0")
    assert view["submit"]["text"] == "Bid 32 zeros"


async def test_a_refused_bid_keeps_the_modal_open_and_changes_nothing(driver: HttpDriver, tmp_path: Path) -> None:
    d, db = driver, tmp_path / "liars.sqlite3"
    opener, ts = await _dealt(d)
    assert (await d.slash(opener, "bid 3 5")).text == "Bid placed."
    bidder = _state(d)[1]
    assert bidder is not None and bidder != opener
    view = await d.open_raise(bidder, ts)
    view = await d.choose(bidder, view, "quantity", "3")
    assert [o["value"] for o in view["blocks"][2]["element"]["options"]] == ["9", "8", "7", "6"]

    # A Slack client that sent a choice this form never listed (an old modal, a hand-made payload): the
    # game refuses the bid, beside the digit, and the modal stays open for another choice.
    before, events, posts = _state(d), event_count(db), len(d.fake.calls("chat.postEphemeral"))
    view["blocks"][2]["element"]["options"].append({"text": {"type": "plain_text", "text": "threes"}, "value": "3"})
    refusal = await d.submit_refused(bidder, view, {"quantity": "3", "digit": "3"})
    assert refusal == "3 threes does not beat the standing bid of 3 fives.", refusal
    assert list(d.fake.view_errors(view["id"])) == [view["blocks"][2]["block_id"]]  # beside the digit
    assert view["id"] in d.fake.views()
    assert _state(d) == before and event_count(db) == events
    assert len(d.fake.calls("chat.postEphemeral")) == posts
    _others_serials_absent(d, bidder, view["id"])

    # the same modal, sent again with a bid that stands: applied, and the modal closes
    view = await d.choose(bidder, d.fake.views()[view["id"]], "digit", "8")
    assert view["submit"]["text"] == "Bid 3 eights" and d.fake.view_errors(view["id"]) == {}
    assert await d.submit_form(bidder, view, {"quantity": "3", "digit": "8"}) == "Bid placed."
    assert view["id"] not in d.fake.views() and event_count(db) > events
    assert _state(d)[0] == "3 eights"


async def test_a_stale_form_says_the_turn_moved_on_and_sends_nothing(driver: HttpDriver, tmp_path: Path) -> None:
    d, key = driver, key_of(driver.fake)
    opener, ts = await _dealt(d)

    refused = await d.click(next(p for p in PLAYERS if p != opener), ts, "open-bid")
    assert refused.response_type == "ephemeral" and "not your turn" in (refused.text or "")

    # a bare `bid` opens the same form as the Raise… button (`raise` too); a bare `challenge` does not
    bare = d.fake.slash_command("bid", user_id=opener)
    await d.send_slash(bare)
    opened = await d.fake.wait_for(lambda: [c for c in d.fake.calls("views.open")
                                            if c.ok and c.params.get("trigger_id") == bare["trigger_id"]])
    assert opened[0].params["view"]["callback_id"] == "liars:form"
    second = next(p for p in PLAYERS if p != opener)
    said = await d.slash(second, "challenge")
    assert "no bid to challenge" in (said.text or "") and len(d.fake.calls("views.open")) == 1

    view = await d.open_raise(opener, ts)
    assert (await d.slash(opener, "bid 1 1")).text == "Bid placed."  # by command, with the form still open
    table = d.bot.service.table(key)
    assert table is not None
    events, before = event_count(tmp_path / "liars.sqlite3"), _state(d)
    refusal = await d.submit_refused(opener, view, {"quantity": "1", "digit": "9"})
    assert f"not your turn: {NAMES[str(before[1])]} is to act" in refusal
    assert event_count(tmp_path / "liars.sqlite3") == events and _state(d) == before
    assert view["id"] in d.fake.views()  # still open, showing the refusal

    redrawn = await d.choose(opener, view, "quantity", "2")  # a choice in it: the form is gone
    assert "submit" not in redrawn and "not your turn" in json.dumps(redrawn["blocks"])


async def test_a_refusal_over_socket_mode_is_the_envelope_acks_payload(socket_driver: SocketDriver,
                                                                       tmp_path: Path) -> None:
    d = socket_driver
    opener, ts = await _dealt(d)
    view = await d.open_raise(opener, ts)
    view = await d.choose(opener, view, "quantity", "2")
    view = await d.choose(opener, view, "digit", "4")
    assert view["submit"]["text"] == "Bid 2 fours"
    assert (await d.slash(opener, "bid 2 5")).text == "Bid placed."
    events = event_count(tmp_path / "liars.sqlite3")
    assert "not your turn" in await d.submit_refused(opener, view, {"quantity": "2", "digit": "4"})
    submitted = d.fake.envelopes()[-1]
    ack: Any = d.fake.acks(submitted.envelope_id)[-1].payload
    assert submitted.payload["type"] == "view_submission"
    assert ack["response_action"] == "errors" and list(ack["errors"]) == [view["blocks"][2]["block_id"]]
    # Slack redelivers it (the ack was late, say): the redelivery is acknowledged with the same refusal
    again = await d.fake.redeliver(submitted)
    assert (await d.fake.wait_for_ack(again.envelope_id)).payload == ack
    assert event_count(tmp_path / "liars.sqlite3") == events


async def test_choices_made_faster_than_the_redraws_end_drawn_with_the_newest(driver: HttpDriver) -> None:
    """Quantity then digit picked before the first redraw lands: whichever order the two choices reach
    the bot, the modal ends drawn for the newer one (an older one never draws over it)."""
    d = driver
    opener, ts = await _dealt(d)
    for newest_first in (False, True):
        view = await d.open_raise(opener, ts)
        older = d.fake.view_action(view["id"], "liars:field:quantity", "2", user_id=opener)
        newer = d.fake.view_action(view["id"], "liars:field:digit", "7", user_id=opener)  # from the same drawing
        older["actions"][0]["action_ts"], newer["actions"][0]["action_ts"] = "1700000000.000001", "1700000000.000002"
        updates = len(d.fake.calls("views.update"))
        for payload in (newer, older) if newest_first else (older, newer):
            await d.send_interactive(payload)
            await d.settled()
        drawn = d.fake.views()[view["id"]]
        assert drawn["submit"]["text"] == "Bid 2 sevens", (newest_first, drawn["submit"])
        assert drawn["blocks"][1]["element"]["initial_option"]["value"] == "2"
        calls = d.fake.calls("views.update")[updates:]
        if newest_first:  # the older choice drew nothing
            assert [c.ok for c in calls] == [True]
        else:  # the newer choice's redraw met the older one's (hash_conflict) and drew over it
            assert [c.ok for c in calls] == [True, False, True] and calls[1].response == \
                {"ok": False, "error": "hash_conflict"}


async def test_a_form_an_earlier_version_opened_says_so_and_stays_open(driver: HttpDriver, tmp_path: Path) -> None:
    """A modal whose metadata this version does not read (an earlier version's Raise…) closed on submit with
    no word to its sender: it now says so beside its field, and nothing changes."""
    d = driver
    opener, ts = await _dealt(d)
    view = await d.open_raise(opener, ts)
    meta = json.loads(view["private_metadata"])
    meta.pop("verb")  # as an earlier version wrote it
    view = {**view, "private_metadata": json.dumps(meta)}
    events, before = event_count(tmp_path / "liars.sqlite3"), _state(d)
    refusal = await d.submit_refused(opener, view, {"quantity": "1", "digit": "9"})
    assert refusal == "This form is from an earlier version of the bot: close it and open it again from the table."
    assert event_count(tmp_path / "liars.sqlite3") == events and _state(d) == before


async def test_a_form_opened_at_a_closed_table_does_not_move_the_next_one(driver: HttpDriver, tmp_path: Path) -> None:
    """A Raise… modal opened at one table and submitted after the channel's next table was dealt placed its
    bid in the new game."""
    d = driver
    opener, ts = await _dealt(d)
    view = await d.open_raise(opener, ts)
    first = d.bot.service.table(key_of(d.fake))
    assert first is not None and json.loads(view["private_metadata"])["table"] == first.id
    d.fake.add_user("U0ADMIN", name="admin", is_admin=True)  # (a host's `end` would wait for the round's count)
    assert ((await d.slash("U0ADMIN", "end")).text or "").startswith("The table is closed.")
    await d.settled()
    closed = d.fake.message(CHANNEL, ts)  # the closed table's message keeps its text, loses its buttons
    assert closed is not None and "to act" in closed["text"]
    assert not [b for b in closed.get("blocks") or [] if b.get("type") == "actions"]
    await _dealt(d)
    events, before = event_count(tmp_path / "liars.sqlite3"), _state(d)
    refusal = await d.submit_refused(opener, view, {"quantity": "1", "digit": "9"})
    assert "earlier table" in refusal
    assert event_count(tmp_path / "liars.sqlite3") == events and _state(d) == before


async def test_a_form_drawn_before_the_tables_last_move_places_nothing(driver: HttpDriver, tmp_path: Path) -> None:
    """A Raise… modal opened at one turn and submitted at the player's next one — they had bid by typing
    meanwhile, or the timer had bid for them — placed a bid chosen on a table it no longer showed."""
    d = driver
    opener, ts = await _dealt(d)
    view = await d.open_raise(opener, ts)
    assert isinstance(json.loads(view["private_metadata"])["turn"], int)
    for digit in (1, 2, 3):  # round the table by typed bids, back to the opener
        table = d.bot.service.table(key_of(d.fake))
        assert table is not None
        to_act = live_round(table).to_act
        assert to_act is not None
        assert (await d.slash(to_act, f"bid 1 {digit}")).text == "Bid placed."
    events, before = event_count(tmp_path / "liars.sqlite3"), _state(d)
    assert before[1] == opener, before  # the opener's turn again, in the same round: 1 nine would be a legal raise
    refusal = await d.submit_refused(opener, view, {"quantity": "1", "digit": "9"})
    assert "before the table's last move" in refusal, refusal
    assert event_count(tmp_path / "liars.sqlite3") == events and _state(d) == before
    notice = await d.choose(opener, view, "quantity", "2")  # a choice in it: drawn again as the notice
    assert "before the table's last move" in json.dumps(notice["blocks"]) and "submit" not in notice
    assert await d.submit_raise(opener, await d.open_raise(opener, ts), "1", "9") == "Bid placed."


async def test_a_status_replys_challenge_pressed_after_the_tables_last_move_challenges_nothing(
        driver: HttpDriver, tmp_path: Path) -> None:
    """An ephemeral ``status`` reply keeps the table's buttons in its reader's channel; its Challenge, pressed once
    the table had gone round to them again, challenged a bid the reply never showed.  Its value now carries the
    turn it was drawn at (``@<table>.<turn>``; Raise… does not: its form is drawn when opened)."""
    d, key = driver, key_of(driver.fake)
    opener, _ = await _dealt(d)
    assert (await d.slash(opener, "bid 1 1")).text == "Bid placed."
    reader = _state(d)[1]
    assert reader is not None and reader != opener
    status = await d.slash(reader, "status")
    buttons = {e["action_id"]: e["value"] for b in status.body.get("blocks") or [] if b.get("type") == "actions"
               for e in b["elements"]}
    table = d.bot.service.table(key)
    assert table is not None
    drawn = f"{key.server_id}:{key.channel_id}@{table.id}"
    assert buttons["liars:challenge"] == f"{drawn}.{table.turn}" and buttons["liars:open-bid"] == drawn, buttons
    for digit in (2, 3, 4):  # round the table by typed bids, back to the reader
        to_act = _state(d)[1]
        assert to_act is not None
        assert (await d.slash(to_act, f"bid 1 {digit}")).text == "Bid placed."
    events, before = event_count(tmp_path / "liars.sqlite3"), _state(d)
    assert before[1] == reader, before  # their turn again, in the same round: a challenge of 1 four would stand

    async def press(value: str) -> str:
        payload = d.fake.block_actions("liars:challenge", value, message_ts="1700000000.000100", user_id=reader,
                                       channel_id=key.channel_id, button_text="Challenge")
        await d.send_interactive(payload)
        return (await d.reply_to(payload["response_url"])).text or ""

    refusal = await press(buttons["liars:challenge"])
    assert "before the table's last move" in refusal, refusal
    assert event_count(tmp_path / "liars.sqlite3") == events and _state(d) == before  # nothing challenged
    ts = d.bot.service.panel(key, "table")
    assert ts is not None
    now = d.button(ts, "challenge")["value"]  # the button as the table message draws it now
    assert now == f"{drawn}.{d.bot.service.turn(key)}" != buttons["liars:challenge"]
    assert await press(now) == "You challenged."
    assert event_count(tmp_path / "liars.sqlite3") > events


async def test_a_form_opened_on_another_worker_is_drawn_from_the_table_as_stored(driver: HttpDriver, fake: FakeSlack,
                                                                                 db: Path) -> None:
    """Two workers on one database (README "Several processes"): the Raise… button and a bare `/liars raise`
    reach the worker that did not move the table — one that never loaded it, then one whose copy is behind.
    Each opens the form for the player whose turn it is (it said "no table" or "not your turn")."""
    from adapters.slack.app import serve_http

    a = driver
    bot_b = await make_bot(fake, db)  # up before the table opens: it has never seen it
    b = HttpDriver(fake, bot_b)

    def modals(payload: dict[str, Any]) -> list[str]:
        return [json.dumps(c.params["view"]) for c in fake.calls("views.open")
                if c.params.get("trigger_id") == payload["trigger_id"]]

    async def answered(payload: dict[str, Any]) -> str:
        """The modal the action opened; fails with what was answered instead."""
        await fake.wait_for(lambda: fake.response_url_posts(payload["response_url"]) or modals(payload),
                            description="a modal or an answer")
        posts = fake.response_url_posts(payload["response_url"])
        assert not posts, posts[-1].body
        return modals(payload)[-1]

    try:
        async with serve_http(bot_b, "127.0.0.1", 0) as url:
            b.url = url
            await a.slash(ALICE, "start classic")
            await a.slash(BOB, "join")
            await a.slash(ALICE, "deal")
            table = a.bot.service.table(key_of(fake))
            first = live_round(table).to_act
            table_ts = a.bot.service.panel(key_of(fake), "table")
            assert first is not None and table_ts is not None
            click = b.click_payload(first, table_ts, "open-bid")
            await b.send_interactive(click)
            assert "Raise" in await answered(click)
            await a.slash(first, "bid 1 5")  # the move goes to worker A: B's copy is now behind
            second = BOB if first == ALICE else ALICE
            typed = fake.slash_command("raise", user_id=second, user_name=second.lower())
            await b.send_slash(typed)
            assert "1 five" in await answered(typed)  # the standing bid it must beat
    finally:
        await bot_b.close()
