"""A reduced format (issue #12) at a real table: options through the game seam, play, restart, export."""

from __future__ import annotations

import json
import re

from core.serial.record import replay
from tests.typed import data, live_round, serial_match

from .conftest import ALICE, BOB, KEY, Harness, actor


async def open_3x3(h: Harness) -> None:
    assert (await h.do(ALICE, "start", "classic", "digits=3", "serial_length=3", "rebid=on")).ok
    assert (await h.do(BOB, "join")).ok
    assert (await h.do(ALICE, "deal")).ok


async def play_out(h: Harness) -> None:
    number = h.serial().round_number
    assert (await h.do(actor(h.to_act()), "bid", "2", "3")).ok
    while h.serial().round_number == number:
        round_ = live_round(h.service.table(KEY))
        name = "count" if round_.phase.value == "rebid" else "challenge"
        assert (await h.do(actor(h.to_act()), name)).ok


async def test_a_3x3_table_deals_short_serials_and_says_its_format(harness: Harness) -> None:
    h = harness
    await open_3x3(h)
    rules = (await h.do(ALICE, "rules")).text
    assert "reduced format 3×3: serials of 3 digits, each 1 to 3" in rules
    private = [m.text for m in h.notifier.messages if m.kind == "private" and m.to == ALICE.user_id]
    assert private and re.search(r"\*\*[A-Z]{2} [1-3]{3} [A-Z]\*\*", private[-1])
    odds = (await h.do(ALICE, "odds")).text
    assert "≥7" not in odds and "zeros" not in odds.lower()  # at most 6 copies of a digit at 2 × 3; no 0


async def test_a_digit_out_of_play_or_too_many_copies_is_refused(harness: Harness) -> None:
    h = harness
    await open_3x3(h)
    opener = actor(h.to_act())
    for words in (("1", "5"), ("1", "0"), ("7", "2")):
        reply = await h.do(opener, "bid", *words)
        assert not reply.ok, words
    assert (await h.do(opener, "bid", "6", "2")).ok  # 6 = 3 digits × 2 players


async def test_a_3x3_table_survives_a_restart_and_exports_a_record_that_verifies(harness: Harness) -> None:
    h = harness
    await open_3x3(h)
    await play_out(h)
    assert (await h.do(actor(h.to_act()), "bid", "1", "1")).ok
    await h.restart()
    match = h.serial()
    assert match.live_round is not None
    assert all(len(s.digits) == 3 for s in match.live_round.serials.values())
    assert match.live_round.standing_bid is not None
    await h.do(actor(h.to_act()), "challenge")
    if match.live_round is not None and match.live_round.phase.value == "rebid":
        await h.do(actor(h.to_act()), "count")
    await play_out(h)
    record = json.loads(data(await h.do(ALICE, "export"))["record"])
    assert record["rules"]["digits"] == 3 and record["rules"]["serial_length"] == 3
    assert len(record["rounds"]) == 3
    result = replay(record, verify=True)
    ledger = data(await h.do(ALICE, "ledger"))
    assert result["totals"] == {p: ledger["all_time"].get(p, 0) for p in record["players"]}


async def test_computer_players_play_a_3x3_table(harness: Harness) -> None:
    h = harness
    assert (await h.do(ALICE, "start", "classic", "digits=3", "serial_length=3", "seats=2", "computers=1",
                       "rebid=on")).ok
    assert (await h.do(ALICE, "deal")).ok
    for _ in range(3):
        table = h.service.table(KEY)
        assert table is not None
        number = serial_match(table).round_number
        while serial_match(table).round_number == number and serial_match(table).live_round is not None:
            round_ = live_round(table)
            if round_.to_act != ALICE.user_id:
                break
            name = "count" if round_.phase.value == "rebid" else "challenge"
            if round_.standing_bid is None:
                assert (await h.do(ALICE, "bid", "1", "2")).ok
            else:
                assert (await h.do(ALICE, name)).ok
        hint = await h.do(ALICE, "hint")
        assert hint.ok or "turn" in hint.text.lower()
    session = serial_match(table).session
    assert session is not None and session.outcomes
