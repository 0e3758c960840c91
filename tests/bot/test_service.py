"""The table service on real SQLite files: lobby, play, ledger, restart, timers, idempotency."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping
from typing import Any

import pytest

from bot.model import Actor, Command, Reply, TableKey
from bot.table import TableState
from core.serial.rules import Rules
from tests.typed import data, live_round, serial_match

from .conftest import ADMIN, ALICE, BOB, CAROL, KEY, Harness, actor


async def open_three(h: Harness, *args: str) -> None:
    assert (await h.do(ALICE, "start", *args)).ok
    assert (await h.do(BOB, "join")).ok
    assert (await h.do(CAROL, "join")).ok
    assert (await h.do(ALICE, "deal")).ok


def refuse_deals(h: Harness) -> None:
    """Make the database refuse every deal's write (a real SQLite trigger, not a mock)."""
    with sqlite3.connect(h.path) as db:
        db.execute("""CREATE TRIGGER refuse_deal BEFORE INSERT ON table_events WHEN NEW.event LIKE '%"t":"deal"%'
                      BEGIN SELECT RAISE(ABORT, 'disk says no'); END""")


def event_count(h: Harness) -> int:
    with sqlite3.connect(h.path) as db:
        return int(db.execute("SELECT COUNT(*) FROM table_events").fetchone()[0])


def ledger_sum(h: Harness, server: str = KEY.server) -> tuple[int, int]:
    with sqlite3.connect(h.path) as db:
        n, total = db.execute("SELECT COUNT(*), COALESCE(SUM(units), 0) FROM ledger WHERE server = ?",
                              (server,)).fetchone()
    return int(n), int(total)


async def test_full_multi_round_game_settles_into_a_zero_sum_ledger(harness: Harness) -> None:
    h = harness
    await open_three(h, "classic", "2")
    nets: dict[str, int] = {}
    for _ in range(4):
        match = h.serial()
        number = match.round_number
        opener = h.to_act()
        assert (await h.do(actor(opener), "bid", "1", "0")).ok
        while h.serial().round_number == number:
            assert (await h.do(actor(h.to_act()), "challenge")).ok
        outcome = match.last_outcome
        assert outcome is not None and outcome.stake == 2
        for p, u in outcome.net.items():
            nets[p] = nets.get(p, 0) + u
    all_time = data(await h.do(ALICE, "ledger"))["all_time"]
    assert all_time == {p: u for p, u in nets.items() if u or p in all_time}
    assert sum(all_time.values()) == 0
    assert ledger_sum(h) == (12, 0)
    assert h.serial().round_number == 5


async def test_a_restart_mid_bidding_continues_the_same_round(harness: Harness) -> None:
    h = harness
    await open_three(h)
    first = h.to_act()
    assert (await h.do(actor(first), "bid", "two", "sevens")).ok
    round_ = live_round(h.table())
    before = (dict(round_.serials), round_.to_act, round_.standing_bid)
    service = await h.restart()
    match = serial_match(service.table(KEY))
    assert match.live_round is not None
    assert (dict(match.live_round.serials), match.live_round.to_act,
            match.live_round.standing_bid) == before
    # the old round goes on to its count
    assert (await h.do(actor(h.to_act()), "challenge")).ok
    assert (await h.do(actor(h.to_act()), "challenge")).ok
    assert match.last_outcome is not None and match.last_outcome.serials == before[0]
    assert ledger_sum(h)[1] == 0


async def test_a_table_whose_log_cannot_be_replayed_does_not_stop_the_others_from_starting(
        harness: Harness, caplog: pytest.LogCaptureFixture) -> None:
    """A stored log this code cannot replay (written by another version, say) was an exception out of
    ``Service.start``: the bot did not start at all, for any server.  Now that table alone is left out, as
    stored (not closed: an older process in a fleet mid-deploy would end the live tables a newer one wrote), said
    at ERROR without the event's text (a serial may be in it)."""
    h = harness
    other = TableKey(KEY.platform, KEY.server_id, "other-channel")
    await open_three(h)
    assert (await h.do(ALICE, "start", key=other)).ok and (await h.do(BOB, "join", key=other)).ok
    broken = h.table().id
    serials = [str(s) for s in live_round(h.table()).serials.values()]
    with sqlite3.connect(h.path) as db:  # a move by nobody seated: no version of the game can replay it
        seq = db.execute("SELECT MAX(seq) FROM table_events WHERE table_id = ?", (broken,)).fetchone()[0]
        db.execute("INSERT INTO table_events (table_id, seq, at, event) VALUES (?, ?, 0, ?)",
                   (broken, seq + 1, '{"t": "act", "player": "nobody", "bid": [1, 0]}'))
    caplog.set_level("INFO")
    service = await h.restart()
    assert service.table(KEY) is None and service.table(other) is not None  # the other table started
    assert (await h.do(BOB, "status", key=other)).ok
    [error] = [r for r in caplog.records if r.levelname == "ERROR"]
    assert f"table {broken} in" in error.getMessage() and "could not be rebuilt" in error.getMessage()
    logged = "\n".join(r.getMessage() for r in caplog.records if r.levelno >= 20)
    assert not any(serial in logged or serial.split()[1] in logged for serial in serials)
    with sqlite3.connect(h.path) as db:  # left as it was stored
        status, count = db.execute("SELECT status, (SELECT COUNT(*) FROM table_events WHERE table_id = ?) FROM tables "
                                   "WHERE id = ?", (broken, broken)).fetchone()
    assert status == "open" and count == seq + 1


async def test_an_away_player_whose_timeout_ends_the_last_round_is_not_said_to_leave_after_it(
        harness: Harness) -> None:
    """At a `rounds=3` table the away player's third timed-out turn counted the last round, and the table said
    "💤 … leaves the table after this round" (and wrote their leave) as it closed, all rounds played."""
    h = harness
    assert (await h.do(ADMIN, "config", "turn_timeout=60")).ok
    assert (await h.do(ALICE, "start", "classic", "rounds=3")).ok
    assert (await h.do(BOB, "join")).ok and (await h.do(ALICE, "deal")).ok

    async def time_out() -> None:
        h.clock.advance(61)
        for _ in range(3):  # the warning, then the timeout
            await h.service.tick()
        await h.service.drain()

    for _ in range(5):  # rounds 1 and 2 (an opening and a challenge each), and round 3's opening
        await time_out()
    assert h.service.table(KEY) is not None
    before = len(h.notifier.messages)
    await time_out()  # round 3's challenge: a third timed-out turn, and the last round counted
    assert h.service.table(KEY) is None
    said = [m.text for m in h.notifier.messages[before:]]
    assert any("The table is closed" in t for t in said), said
    assert not [t for t in said if "turns in a row run out" in t or "timer played your last turns" in t], said


async def test_bad_input_gets_one_private_reply_and_changes_nothing(harness: Harness) -> None:
    h = harness
    assert (await h.do(ALICE, "bid", "5", "7")).code == "no-table"
    assert (await h.do(ALICE, "start", "nonsense")).code == "bad-option"
    zero = await h.do(ALICE, "start", "classic", "0")  # 0 is a stake only the elimination takes
    assert zero.code == "bad-option" and "positive" in zero.text and "elimination" in zero.text
    assert (await h.do(ALICE, "start", "classic", "-3")).code == "bad-stake"
    assert event_count(h) == 0
    assert (await h.do(ALICE, "start")).ok
    assert (await h.do(ALICE, "deal")).code == "too-few"
    assert (await h.do(ALICE, "join")).code == "already-seated"
    assert (await h.do(BOB, "join")).ok
    assert (await h.do(BOB, "end")).code == "not-host"
    assert (await h.do(BOB, "config", "preset=salomon")).code == "not-admin"
    assert (await h.do(CAROL, "frobnicate")).code == "unknown-command"
    assert (await h.do(ALICE, "deal")).ok
    assert (await h.do(CAROL, "join")).code == "table-running"
    before = event_count(h)
    messages = len(h.notifier.messages)
    opener = h.to_act()
    other = BOB if opener == ALICE.user_id else ALICE
    cases = [
        (other, ("bid", "1", "5"), "not-your-turn"),
        (CAROL, ("bid", "1", "5"), "not-seated"),
        (actor(opener), ("bid", "57"), "bad-bid"),
        (actor(opener), ("bid", "five", "elevens"), "bad-bid"),
        (actor(opener), ("bid", "17", "5"), "quantity-out-of-range"),
        (actor(opener), ("challenge",), "no-standing-bid"),
        (actor(opener), ("count",), "count-not-available"),
    ]
    for who, (name, *args), code in cases:
        reply = await h.do(who, name, *args)
        assert (reply.ok, reply.private, reply.code) == (False, True, code), (name, args, reply)
    assert (await h.do(actor(opener), "bid", "2", "5")).ok
    assert (await h.do(actor(h.to_act()), "bid", "2", "4")).code == "bid-too-low"
    assert (await h.do(actor(opener), "challenge")).code in ("bidder-cannot-challenge", "not-your-turn")
    assert event_count(h) == before + 1
    # only the one good bid said anything: the table panel, and the ping for the next player
    assert [m.kind for m in h.notifier.messages[messages:]] == ["table", "turn"]
    assert ledger_sum(h) == (0, 0)


async def test_a_repeated_request_id_is_applied_once(harness: Harness) -> None:
    h = harness
    await open_three(h)
    opener = actor(h.to_act())
    first = await h.do(opener, "bid", "1", "3", request_id="req-42")
    count = event_count(h)
    again = await h.do(opener, "bid", "1", "3", request_id="req-42")
    assert first.ok and again == first
    assert event_count(h) == count
    # a fresh request id for the same words is a new (and now illegal) command
    assert (await h.do(opener, "bid", "1", "3", request_id="req-43")).code == "not-your-turn"
    # the request id survives a restart
    await h.restart()
    assert await h.do(opener, "bid", "1", "3", request_id="req-42") == first
    assert event_count(h) == count


async def test_a_settled_round_commits_ledger_and_events_together_or_not_at_all(harness: Harness) -> None:
    h = harness
    await open_three(h)
    opener = actor(h.to_act())
    assert (await h.do(opener, "bid", "1", "3")).ok
    assert (await h.do(actor(h.to_act()), "challenge")).ok
    events_before = event_count(h)
    # Make the database refuse the ledger write (a real SQLite failure, not a mock).
    with sqlite3.connect(h.path) as db:
        db.execute("CREATE TRIGGER refuse BEFORE INSERT ON ledger BEGIN SELECT RAISE(ABORT, 'disk says no'); END")
    last = actor(h.to_act())
    refused = await h.do(last, "challenge")
    assert not refused.ok and refused.code == "not-saved" and "try again" in refused.text
    assert event_count(h) == events_before
    assert ledger_sum(h) == (0, 0)
    with sqlite3.connect(h.path) as db:
        assert db.execute("SELECT COUNT(*) FROM rounds").fetchone()[0] == 0
    # the table was reloaded from the store: the challenge is not applied, the same player is to act
    assert h.to_act() == last.user_id
    with sqlite3.connect(h.path) as db:
        db.execute("DROP TRIGGER refuse")
    assert (await h.do(last, "challenge")).ok
    assert event_count(h) == events_before + 2  # the challenge, and the next round's deal
    assert ledger_sum(h) == (3, 0)


async def test_no_channel_message_carries_a_serial_before_the_count(harness: Harness) -> None:
    h = harness
    await open_three(h)
    for _ in range(3):
        table = h.table()
        serials = {p: s for p, s in live_round(table).serials.items()}
        start = len(h.notifier.messages)
        number = serial_match(table).round_number
        assert (await h.do(actor(h.to_act()), "bid", "1", "1")).ok
        while h.serial().round_number == number:
            assert (await h.do(actor(h.to_act()), "challenge")).ok
        msgs = h.notifier.messages[start:]
        count_at = next(i for i, m in enumerate(msgs) if m.kind == "result")
        for m in msgs[:count_at]:
            for p, s in serials.items():
                if m.to != p:
                    assert s.digits not in m.text, (m.kind, m.to)
        assert all(s.digits in msgs[count_at].text for s in serials.values())
    # and each private serial went to its holder alone
    for m in h.notifier.messages:
        if m.kind == "private":
            assert m.to is not None and "Your serial" in m.text


async def test_each_player_is_dealt_their_own_serial_privately(harness: Harness) -> None:
    h = harness
    await open_three(h)
    table = h.table()
    dealt = [m for m in h.notifier.messages if m.kind == "private"]
    assert sorted(m.to or "" for m in dealt) == ["U1", "U2", "U3"]
    for m in dealt:
        assert m.to is not None  # each went to a player (checked above)
        assert str(live_round(table).serials[m.to]) in m.text
    hand = await h.do(BOB, "hand")
    assert hand.private and str(live_round(table).serials["U2"]) in hand.text
    assert (await h.do(ADMIN, "hand")).code == "not-seated"


async def test_commitment_is_posted_at_the_deal_and_the_salt_revealed_at_the_count(harness: Harness) -> None:
    h = harness
    await open_three(h)
    deal = next(m for m in h.notifier.messages if m.kind == "deal")
    found = re.search(r"`([0-9a-f]{64})`", deal.text)
    assert found is not None
    digest = found.group(1)
    assert (await h.do(actor(h.to_act()), "bid", "1", "1")).ok
    assert (await h.do(actor(h.to_act()), "challenge")).ok
    assert (await h.do(actor(h.to_act()), "challenge")).ok
    count = next(m for m in h.notifier.messages if m.kind == "result")
    found = re.search(r"Salt: `([0-9a-f]+)`", count.text)
    assert found is not None
    salt = found.group(1)
    from core.serial import commitment

    outcome = h.serial().last_outcome
    assert outcome is not None
    assert commitment(list(outcome.serials), outcome.serials, salt) == digest


async def test_turn_timers_warn_then_challenge_and_survive_a_restart(harness: Harness) -> None:
    h = harness
    assert (await h.do(ADMIN, "config", "turn_timeout=60")).ok
    await open_three(h)
    opener = h.to_act()
    assert await h.service.tick() == 0
    h.clock.advance(31)
    assert await h.service.tick() == 1
    warning = h.notifier.messages[-1]
    assert warning.kind == "warning" and f"<@{opener}>" in warning.text and warning.to is None
    await h.restart()
    h.clock.advance(30)
    # after the restart the warning may be given again, then the timeout fires
    for _ in range(3):
        await h.service.tick()
    table = h.table()
    round_ = live_round(table)
    assert round_.standing_bid is not None
    # an opener who times out is given the lowest opening bid (classic: one zero), whatever they hold: the
    # bid they were sure of told the channel how many of their most frequent digit they held
    assert round_.bidder == opener
    assert (round_.standing_bid.quantity, round_.standing_bid.digit) == (1, 0)
    assert any(f"ran out of time. <@{opener}> bid 1 zero." in m.text for m in h.notifier.messages if m.to is None)
    nxt = h.to_act()
    h.clock.advance(61)
    await h.service.tick()
    await h.service.tick()
    assert nxt in live_round(table).challengers


async def test_a_turn_already_over_times_out_without_a_warning_of_no_time(harness: Harness) -> None:
    """A restart long after a turn's whole timeout (or a lowered turn_timeout) once warned "0 seconds
    left", then timed out: the timeout acts at once."""
    h = harness
    assert (await h.do(ADMIN, "config", "turn_timeout=60")).ok
    await open_three(h)
    opener = h.to_act()
    await h.restart()
    h.clock.advance(200)
    before = len(h.notifier.messages)
    assert await h.service.tick() == 1
    assert not [m for m in h.notifier.messages[before:] if m.kind == "warning"]
    assert live_round(h.table()).bidder == opener  # timed out: given the lowest opening bid
    h.clock.advance(29.8)  # the next player's warning comes at half the turn, and counts whole seconds up
    assert await h.service.tick() == 0
    h.clock.advance(0.4)
    assert await h.service.tick() == 1
    assert h.notifier.messages[-1].kind == "warning"
    assert h.notifier.messages[-1].text.endswith("30 seconds left to act.")


async def test_an_idle_lobby_closes_itself(harness: Harness) -> None:
    h = harness
    assert (await h.do(ALICE, "start")).ok
    h.clock.advance(601)
    assert await h.service.tick() == 1
    assert h.service.table(KEY) is None
    assert (await h.do(ALICE, "start")).ok  # the channel is free again


async def test_leaving_mid_game_takes_effect_at_the_next_deal(harness: Harness) -> None:
    h = harness
    await open_three(h)
    assert (await h.do(CAROL, "leave")).ok
    assert (await h.do(CAROL, "leave")).code == "already-leaving"
    table = h.table()
    assert "U3" in live_round(table).players
    assert (await h.do(actor(h.to_act()), "bid", "1", "1")).ok
    assert (await h.do(actor(h.to_act()), "challenge")).ok
    assert (await h.do(actor(h.to_act()), "challenge")).ok
    assert live_round(table).players == ("U1", "U2")
    assert (await h.do(BOB, "leave")).ok
    assert (await h.do(actor(h.to_act()), "bid", "1", "1")).ok
    assert (await h.do(actor(h.to_act()), "challenge")).ok
    assert h.service.table(KEY) is None
    assert ledger_sum(h) == (5, 0)


async def test_config_is_for_admins_and_shapes_new_tables(harness: Harness) -> None:
    h = harness
    assert (await h.do(ALICE, "config", "preset=salomon")).code == "not-admin"
    assert (await h.do(ADMIN, "config", "preset=salomon", "unit_value=0.25", "currency=€")).ok
    assert (await h.do(ADMIN, "config", "rebid=maybe")).code == "bad-option"
    assert (await h.do(ADMIN, "config", "unit_value=1.234")).code == "bad-option"
    assert (await h.do(ALICE, "start")).ok
    rules = h.table().rules
    assert isinstance(rules, Rules)
    assert rules.preset == "salomon" and rules.rebid
    reply = await h.do(BOB, "config")
    assert "€0.25" in reply.text


@pytest.mark.parametrize(("typed", "shown"), [("0.01", "$0.01"), ("1000000", "$1,000,000.00"), ("$2.5", "$2.50")])
async def test_config_takes_a_units_value_from_a_cent_to_a_million(harness: Harness, typed: str, shown: str) -> None:
    h = harness
    assert (await h.do(ADMIN, "config", f"unit_value={typed}")).ok
    assert f"one unit = 1 unit ({shown})" in (await h.do(BOB, "config")).text


@pytest.mark.parametrize("typed", ["²", "٣", "１", "1.234", "x", "-1", "1e3", "0", "0.00", ".", "",
                                   "1000000.01", "9" * 1_900])
async def test_a_bad_units_value_is_refused_to_its_sender_and_changes_nothing(harness: Harness, typed: str) -> None:
    h = harness
    before = (await h.do(BOB, "config")).text
    reply = await h.do(ADMIN, "config", f"unit_value={typed}")
    assert reply.code == "bad-option" and not reply.ok
    assert reply.text.startswith(("A unit's value is written like", "A unit must be worth", "A unit is worth at most",
                                  "'unit_value' needs a value"))
    assert (await h.do(BOB, "config")).text == before


@pytest.mark.parametrize(("option", "refusal"), [
    ("currency=<@&123>", "The currency label is 1 to 8 characters"),  # a role mention would show in every sum
    ("currency=<!here>", "The currency label is 1 to 8 characters"),
    ("currency=", "'currency' needs a value"),
    ("admins=<#C123|general>", "Admins are named by mention"),  # a channel is no admin
    ("admins=<@U9>,<@>", "Admins are named by mention"),
    ("admins=bob", "Admins are named by mention"),  # saved as the id "bob", which matches nobody
    ("admins=<@U9>,bob", "Admins are named by mention"),
])
async def test_config_refuses_what_names_no_one_and_changes_nothing(harness: Harness, option: str,
                                                                   refusal: str) -> None:
    before = (await harness.do(BOB, "config")).text
    reply = await harness.do(ADMIN, "config", option)
    assert not reply.ok and reply.code == "bad-option" and reply.text.startswith(refusal), reply.text
    assert (await harness.do(BOB, "config")).text == before


async def test_a_command_name_with_trailing_punctuation_is_the_command(harness: Harness) -> None:
    assert (await harness.do(ALICE, "start.")).ok
    assert "You are seated" in (await harness.do(BOB, "join,")).text
    assert (await harness.do(CAROL, "join!")).ok and (await harness.do(ALICE, "deal.")).ok
    assert (await harness.do(CAROL, "?")).ok  # help's own short name is no punctuation to strip


@pytest.mark.parametrize("mention", ["<@>", "<@!>", "@", "<#C123|general>", "<@&123>"])
async def test_stats_of_a_mention_of_nobody_is_refused_to_its_sender(harness: Harness, mention: str) -> None:
    reply = await harness.do(BOB, "stats", mention)
    assert not reply.ok and reply.code == "bad-option" and reply.text.startswith("Usage: `stats [@player]`")


async def test_sheet_lists_fewest_payments_and_admins_settle_it(harness: Harness) -> None:
    h = harness
    await open_three(h)
    for _ in range(3):
        number = h.serial().round_number
        assert (await h.do(actor(h.to_act()), "bid", "3", "9")).ok
        while h.serial().round_number == number:
            assert (await h.do(actor(h.to_act()), "challenge")).ok
    sheet = data(await h.do(BOB, "sheet"))
    balances = sheet["balances"]
    assert sum(balances.values()) == 0
    paid = dict.fromkeys(balances, 0)
    for payer, payee, units in sheet["payments"]:
        paid[payer] -= units
        paid[payee] += units
    assert all(paid[p] == balances[p] for p in balances)  # debtors pay what they owe, creditors receive theirs
    assert len(sheet["payments"]) <= max(0, sum(1 for v in balances.values() if v) - 1)
    assert (await h.do(BOB, "sheet", "settle")).code == "not-admin"
    settled = await h.do(ADMIN, "sheet", "settle")
    assert settled.ok and data(settled)["settled"]
    assert (await h.do(ADMIN, "sheet", "settle")).code == "already"
    assert (await h.do(ADMIN, "sheet", "2026-13")).code == "bad-period"
    for typed in ("２０２６-１１", "2026-1", "2026/11", "202６-11"):  # full-width digits read as a month before
        assert (await h.do(ADMIN, "sheet", typed)).code == "bad-period", typed
    refused = await h.do(BOB, "ledger", "2026-11")  # it showed this month's ledger, as if the word were not there
    assert refused.code == "bad-option" and "`ledger` takes only `chart`" in refused.text
    assert (await h.do(BOB, "ledger", "CHART")).ok
    future = await h.do(ADMIN, "sheet", "2099-01", "settle")  # it was accepted, "settled ✅" before it began
    assert future.code == "bad-period" and "has not begun" in future.text
    assert "2099-01" not in await h.service.store.settled_periods(KEY.server)
    read = await h.do(BOB, "sheet", "9999-12")  # read, it was an empty sheet ("No rounds were settled")
    assert read.code == "bad-period" and read.text.startswith("9999-12 has not begun: no round is played in it yet")


async def test_tables_in_different_channels_are_independent(harness: Harness) -> None:
    h = harness
    other = TableKey("discord", "guild1", "chan2")
    assert (await h.do(ALICE, "start")).ok
    assert (await h.do(ALICE, "start", key=other)).ok
    assert (await h.do(BOB, "join", key=other)).ok
    assert (await h.do(ALICE, "deal", key=other)).ok
    assert h.table(KEY).status == "lobby"
    assert h.table(other).status == "playing"


async def test_export_is_a_replayable_record(harness: Harness) -> None:
    import json

    from core.serial.record import replay

    h = harness
    await open_three(h, "salomon")
    for _ in range(2):
        number = h.serial().round_number
        assert (await h.do(actor(h.to_act()), "bid", "2", "2")).ok
        while h.serial().round_number == number:
            name = "count" if live_round(h.table()).phase.value == "rebid" else "challenge"
            assert (await h.do(actor(h.to_act()), name)).ok
    reply = await h.do(ALICE, "export")
    record = json.loads(data(reply)["record"])
    assert len(record["rounds"]) == 2  # the round under way is secret and left out
    result = replay(record, verify=True)
    ledger = data(await h.do(ALICE, "ledger"))
    assert result["totals"] == {p: ledger["all_time"].get(p, 0) for p in record["players"]}


async def test_two_deliveries_of_one_request_at_the_same_moment_apply_once(harness: Harness) -> None:
    import asyncio

    h = harness
    await open_three(h)
    opener = actor(h.to_act())
    count = event_count(h)
    first, second = await asyncio.gather(
        h.do(opener, "bid", "1", "4", request_id="dup-1"), h.do(opener, "bid", "1", "4", request_id="dup-1")
    )
    assert first.ok and second == first
    assert event_count(h) == count + 1


async def test_when_the_host_leaves_mid_game_the_next_human_hosts(harness: Harness) -> None:
    h = harness
    await open_three(h)
    assert (await h.do(ALICE, "leave")).ok
    assert (await h.do(actor(h.to_act()), "bid", "1", "1")).ok
    assert (await h.do(actor(h.to_act()), "challenge")).ok
    assert (await h.do(actor(h.to_act()), "challenge")).ok
    table = h.table()
    assert table.host == BOB.user_id and live_round(table).players == ("U2", "U3")
    assert (await h.do(ALICE, "end")).code == "not-host"
    assert (await h.do(BOB, "end")).ok


async def test_private_views_and_public_information(harness: Harness) -> None:
    h = harness
    assert "no table" in (await h.do(ALICE, "rules")).text.lower()
    await open_three(h, "salomon")
    opener = actor(h.to_act())
    other = BOB if opener is not BOB else CAROL
    hint = await h.do(opener, "hint")
    assert hint.ok and hint.private and "%" in hint.text
    assert (await h.do(other, "hint")).code == "not-your-turn"
    odds = await h.do(other, "odds")
    table = h.table()
    mine = live_round(table).serials[other.user_id]
    assert odds.private and "Your odds at 3 players" in odds.text
    # the odds speak of the asker's own holding, never of anyone else's serial
    for s in live_round(table).serials.values():
        assert s.digits not in odds.text
    assert f"hold {max(mine.counts)}" in odds.text
    status = await h.do(ADMIN, "status")
    assert status.private and "Round 1" in status.text and "<@" not in status.text
    assert "0 is the highest digit (called ten)" in (await h.do(ADMIN, "rules")).text
    assert "`bid`" in (await h.do(ADMIN, "help")).text
    assert (await h.do(opener, "bid", "2", "2")).ok
    while h.serial().round_number == 1:
        phase = live_round(h.table()).phase.value
        assert (await h.do(actor(h.to_act()), "count" if phase == "rebid" else "challenge")).ok
    history = await h.do(ADMIN, "history")
    assert "Round 1:" in history.text and "2 twos" in history.text
    stats = data(await h.do(opener, "stats"))
    assert stats["rounds"] == 1 and stats["serial"]["rounds"] == 1
    assert stats["serial"]["bids_made"] + stats["serial"]["bids_failed"] == 1
    their = data(await h.do(ADMIN, "stats", f"<@{other.user_id}>"))
    assert their["serial"]["challenges_won"] + their["serial"]["challenges_lost"] == 1


async def test_a_seat_change_carries_the_progressive_stake_and_the_opener_on(harness: Harness) -> None:
    h = harness
    await open_three(h, "salomon")
    assert (await h.do(CAROL, "leave")).ok
    table = h.table()
    bidder = actor(h.to_act())
    # a size-and-sixes bid: at 3 players "7 sixes" is n+3 (×2) and sixes (×2), so the next stake is 4
    # (unless the bidder holds no six, when the presumed skunk try sets it to 2)
    assert (await h.do(bidder, "bid", "7", "6")).ok
    while serial_match(table).round_number == 1:
        phase = live_round(table).phase.value
        assert (await h.do(actor(h.to_act()), "count" if phase == "rebid" else "challenge")).ok
    table = h.table()  # the seats changed: a new match
    outcome = (await h.service.store.rounds(KEY.server, limit=1))[0]["outcome"]
    assert isinstance(outcome, Mapping)
    assert outcome["next_stake"] in (2, 4)
    round_ = live_round(table)
    assert round_.players == tuple(p for p in ("U1", "U2", "U3") if p != "U3")
    assert round_.stake == outcome["next_stake"]
    expected_opener = outcome["next_opener"] if outcome["next_opener"] != "U3" else "U1"
    assert round_.opener == expected_opener
    # a restart rebuilds the same stake and opener from the log
    service = await h.restart()
    again = live_round(service.table(KEY))
    assert (again.stake, again.opener) == (round_.stake, round_.opener)


async def test_a_slips_session_under_way_is_not_exported(harness: Harness) -> None:
    import json

    h = harness
    await open_three(h, "classic", "serial_source=slips")
    table = h.table()
    assert (await h.do(actor(h.to_act()), "bid", "1", "1")).ok
    while serial_match(table).round_number == 1:
        assert (await h.do(actor(h.to_act()), "challenge")).ok
    live = {s.digits for s in live_round(table).serials.values()}
    reply = await h.do(BOB, "export")
    assert reply.code == "no-round"  # the slips hold this round's serials and the rounds to come
    assert all(d not in reply.text for d in live)
    assert reply.text.startswith("Rounds have been settled here, but this game's record is shown only once"), \
        reply.text  # not "Nothing has been settled at this table yet"
    assert (await h.do(ADMIN, "end")).ok
    record = json.loads(data(await h.do(BOB, "export"))["record"])
    assert len(record["slips"]["U1"]) == 15 and len(record["rounds"]) == 1


async def test_a_round_counted_but_never_followed_by_a_deal_is_dealt_by_the_timer(harness: Harness) -> None:
    h = harness
    await open_three(h)
    assert (await h.do(actor(h.to_act()), "bid", "1", "1")).ok
    assert (await h.do(actor(h.to_act()), "challenge")).ok
    refuse_deals(h)  # the next deal's write fails (a real SQLite failure)
    last = await h.do(actor(h.to_act()), "challenge")
    assert last.ok  # the challenge and the count are stored; the failed deal is not the sender's error
    table = h.table()
    assert table.status == "playing" and serial_match(table).live_round is None and table.rounds_settled == 1
    assert ledger_sum(h) == (3, 0)
    await h.service.tick()
    assert h.serial().live_round is None  # still failing
    with sqlite3.connect(h.path) as db:
        db.execute("DROP TRIGGER refuse_deal")
    service = await h.restart()
    assert await service.tick() == 1
    assert serial_match(service.table(KEY)).live_round is not None
    assert serial_match(service.table(KEY)).round_number == 2


async def test_the_declared_last_hand_plays_at_double_stake_and_closes_the_table(harness: Harness) -> None:
    h = harness
    await open_three(h, "classic", "3", "last_hand_double=on")
    assert (await h.do(BOB, "last")).code == "not-host"
    assert (await h.do(ALICE, "last")).ok
    assert (await h.do(ALICE, "last")).code == "already"
    match = h.serial()
    assert live_round(h.table()).stake == 6
    assert "stake 6 units" in [m for m in h.notifier.messages if m.kind == "table"][-1].text
    assert (await h.do(actor(h.to_act()), "bid", "1", "1")).ok
    assert (await h.do(actor(h.to_act()), "challenge")).ok
    assert (await h.do(actor(h.to_act()), "challenge")).ok
    assert h.service.table(KEY) is None
    outcome = match.last_outcome
    assert outcome is not None and outcome.stake == 6
    assert sorted(abs(u) for u in outcome.net.values()) == [6, 6, 12]


async def test_raise_options_offer_exactly_the_legal_bids_and_say_why_not(harness: Harness) -> None:
    h = harness
    await open_three(h)
    opener = actor(h.to_act())
    assert (await h.do(opener, "bid", "3", "7")).ok
    service = h.service
    nxt = h.to_act()
    form = await service.form(KEY, nxt, "bid")
    assert form.refusal is None and form.intro == "Standing bid: **3 sevens**. Your bid must beat it."
    quantity, digit = form.fields
    digits = {q: [int(d) for d, _ in options] for q, options in digit.options_by.items()}
    assert digits["3"] == [9, 8] and digits["4"] == list(range(9, -1, -1))
    assert quantity.options[0][0] == "3" and len(quantity.options) == 22  # 3 .. 24 at three players
    assert ((await service.form(KEY, opener.user_id, "bid")).refusal or "").startswith("It is not your turn")
    assert (await service.form(KEY, ADMIN.user_id, "bid")).refusal == "You are not seated at this table."
    # a form reads the table as stored first; with the database unreadable it is drawn from this process's copy
    await service.rt.store.close()
    again = await service.form(KEY, nxt, "bid")
    assert again.refusal is None and again.intro == form.intro


async def test_a_redelivered_config_or_settle_gets_its_first_answer_and_applies_nothing_again(
        harness: Harness) -> None:
    """A platform's retry (another worker, or after a restart) of a request that changed the server's settings or
    its books: every delivery gets the first answer.  A config applied again undid a later change; a settle
    delivered again was answered "already settled"."""
    h = harness

    async def deliver(name: str, *args: str, request_id: str) -> Reply:
        return await h.service.handle(Command(name, KEY, ADMIN, args, {}, request_id))

    first = await deliver("config", "turn_timeout=30", request_id="slack:T1:config")
    assert first.ok and (await deliver("config", "turn_timeout=90", request_id="slack:T2:config")).ok
    await h.restart()
    again = await deliver("config", "turn_timeout=30", request_id="slack:T1:config")
    assert (again.ok, again.text) == (first.ok, first.text)
    assert (await h.service.rt.settings(KEY.server))["turn_timeout"] == 90  # the later change stands

    await open_three(h)
    assert (await h.do(actor(h.to_act()), "bid", "1", "1")).ok
    while h.service.table(KEY) is not None and h.serial().round_number == 1:
        assert (await h.do(actor(h.to_act()), "challenge")).ok
    settled = await deliver("sheet", "settle", request_id="slack:T3:sheet")
    assert settled.ok and not settled.private
    await h.restart()
    again = await deliver("sheet", "settle", request_id="slack:T3:sheet")
    assert (again.ok, again.private, again.text) == (True, False, settled.text)


@pytest.mark.parametrize("typed", ["٦٠", "6_0", "６０", "1" * 1_900, ""])
async def test_a_number_in_another_script_or_with_underscores_is_refused(harness: Harness, typed: str) -> None:
    h = harness
    before = (await h.do(BOB, "config")).text
    reply = await h.do(ADMIN, "config", f"turn_timeout={typed}")
    assert not reply.ok and reply.code == "bad-option" and "turn_timeout" in reply.text
    assert (await h.do(BOB, "config")).text == before


LONG = "x" * 1_900  # (under MOST_TYPED: a longer paste is refused at the door, unquoted)


@pytest.mark.parametrize(("name", "args", "options"), [
    ("start", (LONG,), {}),  # an unknown preset
    ("start", (f"seats={LONG}",), {}),
    ("start", (f"stake={LONG}",), {}),
    ("start", (f"level={LONG}",), {}),
    ("start", (f"jokers={LONG}",), {"game": "cards"}),
    ("start", (f"payout={LONG}",), {"game": "cards"}),
    ("start", (f"{LONG}=1",), {"game": "cards"}),
    ("config", (f"unit_value={LONG}",), {}),
    ("config", (f"turn_timeout={LONG}",), {}),
    ("config", (LONG,), {}),
    ("leaderboard", (LONG,), {}),
    (LONG, (), {}),
])
async def test_a_pasted_page_is_quoted_back_cut_short(harness: Harness, name: str, args: tuple[str, ...],
                                                      options: dict[str, Any]) -> None:
    """A refusal quotes what was typed at most 40 characters long: a 6,000-character option was sent back
    whole, which Discord splits into four private messages."""
    reply = await harness.do(ADMIN, name, *args, **options)
    assert not reply.ok and "xxxx" in reply.text and len(reply.text) < 400, (reply.code, len(reply.text))
    assert harness.service.table(KEY) is None


@pytest.mark.parametrize("word", ["seats=", "rebid=", "stake= ", "level="])
async def test_a_start_option_without_a_value_is_refused_not_ignored(harness: Harness, word: str) -> None:
    """`start seats=` opened a 12-seat table and `rebid=` (the terminal's `--option rebid`) a table without the
    rebid right, saying nothing."""
    reply = await harness.do(ALICE, "start", word)
    assert not reply.ok and reply.code == "bad-option" and "needs a value" in reply.text
    assert harness.service.table(KEY) is None


async def test_a_display_name_that_looks_like_a_mention_names_only_its_player(harness: Harness) -> None:
    """A player named "<@U1>" read as Alice wherever a report wrote names into text: the ledger listed Alice
    twice, one line with the other's balance."""
    h = harness
    mimic = Actor("U7", f"<@{ALICE.user_id}>")
    assert (await h.do(ALICE, "start")).ok
    assert (await h.do(mimic, "join")).ok and (await h.do(ALICE, "deal")).ok
    for _ in range(6):  # a round or two: someone wins, someone pays
        table = h.service.table(KEY)
        if table is None or not table.live:
            break
        who = actor(h.to_act()) if h.to_act() != "U7" else mimic
        if not (await h.do(who, "challenge")).ok:
            assert (await h.do(who, "bid", "1", "2")).ok
    ledger = await h.do(ALICE, "ledger")
    names = await h.service.store.names(KEY.server)
    assert names["U7"] == "‹@U1›" and "‹@U1›" in ledger.text


async def test_a_table_everyone_walked_away_from_stops_and_a_returning_player_stays(harness: Harness) -> None:
    """Nobody typing: the timer played every turn for ever (480 rounds a day at turn_timeout=60), the
    absent opener's sure bid collecting from the others each round. A person the timer played three turns
    in a row for leaves after that round; one who moves again is counted afresh."""
    h = harness
    assert (await h.do(ADMIN, "config", "turn_timeout=60")).ok
    await open_three(h)
    back = BOB  # moves on his second turn, then goes quiet too
    moved = False
    for _ in range(400):
        if h.service.table(KEY) is None:
            break
        table = h.table()
        if table.live and table.to_act == back.user_id and not moved and table.away.get(back.user_id) == 1:
            move = ("challenge",) if live_round(table).standing_bid else ("bid", "1", "1")
            assert (await h.do(back, *move)).ok
            moved = True
            assert back.user_id not in table.away  # his own move: counted afresh
            continue
        h.clock.advance(61)
        await h.service.tick()
    assert moved and h.service.table(KEY) is None  # closed: too few (or no) people left
    away = [m for m in h.notifier.messages if "turns in a row run out" in m.text]
    assert len(away) >= 2 and all(m.to is None for m in away)
    assert away[0].text.startswith("💤 <@") and away[0].text.endswith("leaves the table after this round.")
    rows = await h.service.store.rounds(KEY.server)
    assert 1 <= len(rows) <= 8, len(rows)  # a few rounds, not hundreds
    assert sum((await h.service.store.balances(KEY.server)).values()) == 0


async def test_a_table_whose_timer_keeps_failing_is_tried_less_and_less_often(harness: Harness) -> None:
    """A deal the store refused was tried again some 20 times a second (each a write, a reload of the whole
    table and a traceback in the log): the table waits half a second, then twice as long each time, to a
    minute; once it moves again it is due at its usual times."""
    h = harness
    await open_three(h)
    assert (await h.do(actor(h.to_act()), "bid", "1", "1")).ok
    assert (await h.do(actor(h.to_act()), "challenge")).ok
    refuse_deals(h)  # the next deal's write fails (a real SQLite failure)
    assert (await h.do(actor(h.to_act()), "challenge")).ok  # counted; the deal after it fails
    timers = h.service.timers
    waits = []
    for _ in range(9):
        due = timers.deadline(h.table())  # (a failed write reloads the table as stored: a new object)
        assert due is not None
        waits.append(round(due - h.clock.now(), 3))
        h.clock.advance(max(due - h.clock.now(), 0))
        assert await h.service.tick() == 1  # tried (and failed: logged) when due, not before
        assert h.serial().live_round is None
    assert waits == [0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0], waits
    with sqlite3.connect(h.path) as db:
        db.execute("DROP TRIGGER refuse_deal")
    h.clock.advance(60)
    assert await h.service.tick() == 1 and h.serial().live_round is not None
    assert timers.deadline(h.table()) == h.table().turn_started_at + 30  # the turn's own warning time again


async def test_config_shows_who_the_admins_are(harness: Harness) -> None:
    """Neither `config` nor its "Settings saved." named the admins: a wrong one could not be seen."""
    h = harness
    assert (await h.do(BOB, "config")).text.endswith("admins: the server's own.")
    saved = await h.do(ADMIN, "config", f"admins=<@{BOB.user_id}>,<@{CAROL.user_id}>")
    assert saved.ok and saved.text.endswith(f"admins <@{BOB.user_id}>, <@{CAROL.user_id}> and the server's own.")
    assert (await h.do(BOB, "config", "currency=EUR")).ok  # a listed admin
    repeated = ",".join([f"<@{CAROL.user_id}>"] * 50)
    assert (await h.do(ADMIN, "config", f"admins={repeated}")).ok
    assert (await h.do(BOB, "config")).text.endswith(f"admins <@{CAROL.user_id}> and the server's own.")


async def test_leaving_mid_round_marks_the_seat_on_the_table_message_at_once(harness: Harness) -> None:
    """After `leave` (or `kick`) mid-round the table message listed the seat as staying until the next move."""
    h = harness
    await open_three(h)
    before = len(h.notifier.messages)
    assert (await h.do(CAROL, "leave")).ok
    tables = [m for m in h.notifier.messages[before:] if m.kind == "table"]
    assert tables and "leaving" in tables[-1].text and "leaves the table after this round" in tables[-1].text, \
        [m.text for m in tables]
    before = len(h.notifier.messages)
    assert (await h.do(ALICE, "kick", f"<@{BOB.user_id}>")).ok
    tables = [m for m in h.notifier.messages[before:] if m.kind == "table"]
    assert tables and f"<@{BOB.user_id}> leaves the table after this round" in tables[-1].text


async def test_settling_with_a_chart_posts_the_sheet_once(harness: Harness) -> None:
    """`sheet settle chart` posted the sheet with its chart, then the same sheet again as the public answer."""
    h = harness
    await open_three(h)
    assert (await h.do(actor(h.to_act()), "bid", "1", "1")).ok
    while h.serial().round_number == 1:
        assert (await h.do(actor(h.to_act()), "challenge")).ok
    before = len(h.notifier.messages)
    settled = await h.do(ADMIN, "sheet", "settle", "chart")
    assert settled.ok and settled.private and "Sheet for" not in settled.text, settled
    await h.service.drain()
    sheets = [m for m in h.notifier.messages[before:] if "Sheet for" in m.text and "settled ✅" in m.text]
    assert len(sheets) == 1 and sheets[0].picture is not None and sheets[0].to is None, sheets
    assert data(settled)["settled"] is True


async def test_start_reads_a_level_in_its_place_and_options_spaced_around_their_sign(harness: Harness) -> None:
    """`start classic 1 4 1 easy` was refused though help lists [level] there; `start stake = 2` answered
    "'' needs a value", `start stake =2` "Unknown preset 'stake'"."""
    h = harness
    for words, seats, stake_ in ((("classic", "1", "4", "1", "easy"), 4, 1), (("stake", "=", "2"), None, 2),
                                 (("stake=", "3"), None, 3), (("stake", "=4"), None, 4)):
        opened = await h.do(ALICE, "start", *words)
        assert opened.ok, (words, opened.text)
        table = h.table()
        assert table.rules.stake == stake_, words
        if seats is not None:
            assert table.seat_limit == seats and [table.computers[c] for c in table.computers] == ["easy"]
        assert (await h.do(ALICE, "end")).ok
    assert "[computers] [level] [option=value" in (await h.do(ALICE, "start", *"classic 1 4 1 easy x".split())).text


async def test_kick_reads_a_seated_players_name(harness: Harness) -> None:
    """`kick bob` told the host "That player is not seated at this table." while Bob sat there."""
    h = harness
    await open_three(h)
    kicked = await h.do(ALICE, "kick", "bob")
    assert kicked.ok and kicked.text.startswith("Bob will be removed after this round."), kicked.text
    assert (await h.do(ALICE, "kick", "nobody")).code == "not-seated"


async def test_rules_without_a_table_describe_the_game_named(harness: Harness) -> None:
    """`rules cards` with no table open described the serial game."""
    h = harness
    assert (await h.do(ADMIN, "config", "game=cards", "preset=knockout")).ok
    for args in (("cards",), ("game=cards",)):
        said = (await h.do(BOB, "rules", *args)).text
        assert said.startswith("No table here. A new table would play: Liar's Poker with cards, preset knockout"), said
    assert "Preset classic" in (await h.do(BOB, "rules")).text
    assert (await h.do(BOB, "rules", "chess")).code == "bad-option"
    # a bare preset, as `start salomon` takes one ("Unknown game"): a new table of it, with this server's options
    for preset, begins in (("salomon", "Preset salomon"), ("Knockout", "Liar's Poker with cards, preset knockout")):
        said = (await h.do(BOB, "rules", preset)).text
        assert said.startswith(f"A new table of preset {preset.lower()} would play: {begins}"), said
    # at a table: its own rules, or another game's as a new table's; an unknown game refused (it showed the table's)
    assert (await h.do(ALICE, "start", "salomon")).ok
    assert "Preset salomon" in (await h.do(BOB, "rules")).text and "Preset salomon" in (
        await h.do(BOB, "rules", "serial")).text
    other = (await h.do(BOB, "rules", "cards")).text
    assert other.startswith("A new table of that game would play: Liar's Poker with cards, preset knockout"), other
    assert (await h.do(BOB, "rules", "chess")).code == "bad-option"


async def test_an_away_count_starts_afresh_at_each_deal_and_needs_no_leave_written(harness: Harness) -> None:
    """A timed-out move that ended a round and the same player's timed-out opening of the next were counted as
    one turn (the card game's take-and-declare rule, never reset at a deal). And a person away three turns who
    had no leave written (another process dealt before it landed) was dealt in again."""
    h = harness
    assert (await h.do(ADMIN, "config", "turn_timeout=60")).ok
    assert (await h.do(ALICE, "start", "classic", "later_opener=winner")).ok
    assert (await h.do(BOB, "join")).ok and (await h.do(ALICE, "deal")).ok
    bidder = actor(h.to_act())
    other = BOB if bidder is ALICE else ALICE
    assert (await h.do(bidder, "bid", "16", "9")).ok  # by hand; it fails, so the challenger wins and opens next

    async def time_out() -> None:
        h.clock.advance(61)
        for _ in range(2):  # the warning, then the timeout
            await h.service.tick()

    await time_out()  # the other's timed-out challenge ends round 1 ...
    assert serial_match(h.table()).round_number == 2 and h.to_act() == other.user_id
    assert h.table().away[other.user_id] == 1
    await time_out()  # ... and their timed-out opening of round 2 is a second turn, not the same one
    assert h.table().away[other.user_id] == 2
    table_id = h.table().id
    while (now := h.service.table(KEY)) is not None and now.away.get(other.user_id, 0) < 3:
        await time_out()
    events = await h.service.store.table_events(table_id)
    left = next(i for i, e in enumerate(events) if e["t"] == "leave" and e.get("player") == other.user_id)
    # the table as a process that dealt before that leave landed holds it: away, and dealt out all the same
    replayed = TableState.replayed(table_id, KEY, events[:left])
    assert replayed.is_away(other.user_id) and other.user_id not in replayed.pending_leave
    assert other.user_id not in replayed.players_for_next_deal()
    assert replayed.players_for_next_deal() == [p for p in replayed.seats if p != other.user_id]


async def test_a_twenty_digit_number_is_too_large_not_no_number(harness: Harness) -> None:
    """`--stake 99999999999999999999` said "must be a whole number" (numbers were read to 18 digits): it is one,
    too large; a bid of as many copies is refused as too many, and nothing changes."""
    h = harness
    big = "9" * 20
    for stake in (big, "9" * 101, "+" + "0" * 3 + "1" * 1_500):  # (past 100 digits it was no number again)
        refused = await h.do(ALICE, "start", f"stake={stake}")
        assert refused.code == "bad-stake" and "at most 1,000,000" in refused.text, refused.text
    below = await h.do(ALICE, "start", "stake=-" + "9" * 101)
    assert below.code == "bad-stake" and "below 0" in below.text and "999" not in below.text, below.text
    await open_three(h)
    before = event_count(h)
    bid = await h.do(actor(h.to_act()), "bid", big, "7")
    assert not bid.ok and "whole number" not in bid.text and big[:12] in bid.text, bid.text
    assert event_count(h) == before


async def test_a_backoff_ends_when_the_table_moves_and_never_overflows(harness: Harness) -> None:
    """The backoff's 2 ** failures overflowed a float after 1,025 failures (about 17 hours), and a table a
    command moved kept its old retry time: the next turn's warning came late, or not at all."""
    h = harness
    assert (await h.do(ADMIN, "config", "turn_timeout=60")).ok
    await open_three(h)
    timers = h.service.timers
    table = h.table()
    # as after many failed timeouts of this turn (a store that refused them): due a minute from now
    timers._stuck[KEY] = (5000, h.clock.now() + 60, table.id, table.events)
    assert timers.deadline(table) == h.clock.now() + 60
    assert (await h.do(actor(h.to_act()), "bid", "1", "1")).ok  # the table moves by a command
    table = h.table()
    assert timers.deadline(table) == table.turn_started_at + 30  # the new turn's own warning time
    with sqlite3.connect(h.path) as db:  # and a failure on the 5,001st try still backs off, a minute at most
        db.execute("CREATE TRIGGER refuse BEFORE INSERT ON table_events BEGIN SELECT RAISE(ABORT, 'no'); END")
    timers._stuck[KEY] = (5000, 0.0, table.id, table.events)
    h.clock.advance(61)
    await h.service.tick()
    due = timers.deadline(h.table())
    assert due is not None and 0 < due - h.clock.now() <= 60


async def test_stats_of_someone_never_seen_here_names_them_by_mention_not_id(harness: Harness) -> None:
    """`stats @newcomer` answered "U77 has not played…", the raw id."""
    reply = await harness.do(BOB, "stats", "<@U77>")
    assert reply.text == "<@U77> has not played a settled round on this server.", reply.text


async def test_the_timer_forgets_requests_answers_after_a_week(harness: Harness) -> None:
    """A refused click's answer (kept so a redelivery gets it again) stayed in the database for good."""
    h = harness
    refused = await h.service.handle(Command("join", KEY, BOB, (), request_id="click-1"))  # no table: refused
    assert not refused.ok and await h.service.store.get_request("click-1") is not None
    await h.service.tick()  # the day's prune: it is recent
    assert await h.service.store.get_request("click-1") is not None
    h.clock.advance(8 * 86_400)
    await h.service.tick()
    assert await h.service.store.get_request("click-1") is None


FAMILY_AND_FLAG = "👨\u200d👩\u200d👧 🏴\U000e0067\U000e0062\U000e007f"


@pytest.mark.parametrize(("name", "shown"), [
    ("[FREE NITRO](https://evil.example)", "［FREE NITRO］(https://evil.example)"),  # a link the bot posted
    ("||hidden||", "ǀǀhiddenǀǀ"), ("**bold** ~~gone~~", "∗∗bold∗∗ ∼∼gone∼∼"), ("`code`", "ˋcodeˋ"),
    ("*~bob~*", "∗∼bob∼∗"), ("plain_name", "plain_name"),
    # invisible characters dropped: a right-to-left override turned the amounts after the name around on a ledger
    # line; a line separator began a forged line; a name of nothing else is the player's id
    ("Eve\u202e", "Eve"), ("Mal\u2028• Mallory: +500 units", "Mal• Mallory: +500 units"), ("\u200b\u202e", "U8"),
    (FAMILY_AND_FLAG, FAMILY_AND_FLAG),  # (the joiner and a flag's tags are what emoji are made of: kept)
])
async def test_a_display_name_carrying_chat_markup_is_shown_as_text(harness: Harness, name: str,
                                                                    shown: str) -> None:
    """A nickname "[FREE NITRO](https://evil.example)" was a link in the sheet the bot posted (and `stats
    chart` posted it at will); "||x||" hid text, "*~bob~*" restyled it: its marks are shown as look-alikes."""
    h = harness
    player = Actor("U8", name)
    assert (await h.do(ALICE, "start")).ok and (await h.do(player, "join")).ok
    assert (await h.do(ALICE, "deal")).ok
    assert (await h.service.store.names(KEY.server))["U8"] == shown
    if not name.startswith("|") and "\u2028" not in name and shown != "U8":
        # (typed "||x||" reads as a mention's "|name" part: `stats` refuses it; a line separator splits the words)
        found = await h.do(ALICE, "stats", *name.split())  # typed as seen: found, though stored with look-alikes
        assert found.text == f"{shown} has not played a settled round on this server.", found.text
    status = (await h.do(ALICE, "status")).text  # the table as drawn, players by name
    assert shown in status and (shown == name or name not in status), status
    assert {m.names.get("U8") for m in h.notifier.messages if "U8" in m.names} == {shown}


@pytest.mark.parametrize("label", ["||$||", "~~$~~", "`$`", "**$**", "[$]"])
async def test_a_currency_label_carrying_markup_is_refused(harness: Harness, label: str) -> None:
    reply = await harness.do(ADMIN, "config", f"currency={label}")
    assert reply.code == "bad-option" and reply.text.startswith("The currency label is 1 to 8 characters")


@pytest.mark.parametrize("label", ["$\u202e", "\u2067€", "E\u200bUR", "\u200e$", "\ufeff$", "$\x07"])
async def test_a_currency_label_carrying_invisible_characters_is_refused(harness: Harness, label: str) -> None:
    """A right-to-left override in the label turned the rest of every amount's line around in the channel."""
    reply = await harness.do(ADMIN, "config", f"currency={label}")
    assert reply.code == "bad-option" and "invisible characters" in reply.text, reply.text
    assert (await harness.service.settings(KEY.server))["currency"] == "$"  # the default, unchanged


@pytest.mark.parametrize("label", ["1", "-", "+", "USD1", "EURO1234", "−", "٣", "–", "－", "＋", "½", ":1:", ":-:"])
async def test_a_currency_label_with_digits_or_signs_is_refused(harness: Harness, label: str) -> None:
    """(session 37) `currency=1` showed a 5-unit win as "(15.00)", `currency=-` a win as a loss "(-5.00)" and a
    loss as "(--5.00)": the label is written before every amount."""
    reply = await harness.do(ADMIN, "config", f"currency={label}")
    assert reply.code == "bad-option" and "without digits, signs (+ -)" in reply.text, reply.text
    assert (await harness.service.settings(KEY.server))["currency"] == "$"  # the default, unchanged


SCOTLAND = "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"  # a flag: tag characters


@pytest.mark.parametrize("label", ["👨\u200d👩\u200d👧", SCOTLAND, "👍🏽", "₿", "EUR", "US$", "R$", "kr.", "CHF", "S/.",
                                   "zł", "₹"])
async def test_an_emoji_made_with_a_joiner_or_tags_is_a_currency(harness: Harness, label: str) -> None:
    reply = await harness.do(ADMIN, "config", f"currency={label}")
    assert reply.ok, reply.text
    assert (await harness.service.settings(KEY.server))["currency"] == label


async def test_a_command_too_long_to_read_is_refused_at_the_door(harness: Harness) -> None:
    """A pasted page as a declaration or a bid took seconds of the event loop to parse (every table of the
    process waited): more than MOST_TYPED characters is one clear refusal, and nothing changes."""
    from bot.service import MOST_TYPED

    h = harness
    await open_three(h)
    events = h.table().events
    first = h.to_act()
    long_words = ("two",) + ("very",) * (MOST_TYPED // 4) + ("sevens",)
    refused = await h.do(actor(first), "bid", *long_words)
    typed = sum(map(len, long_words))
    assert typed > MOST_TYPED and not refused.ok and refused.code == "too-long" and refused.private
    assert refused.text == (f"That is too long to read ({typed:,} characters; a command takes at most 2,000). "
                            "Nothing was done.")
    assert h.table().events == events
    at_most = await h.do(actor(first), "bid", "x" * MOST_TYPED)  # at the limit: read (and refused as a bid)
    assert not at_most.ok and at_most.code != "too-long"
    assert (await h.do(actor(first), "bid", "two", "sevens")).ok


async def test_a_name_stored_before_names_were_cleaned_is_found_as_the_table_shows_it(harness: Harness) -> None:
    """A name stored by an earlier version with a right-to-left override in it: `stats Eve` compared the typed name,
    cleaned, with the stored one, not: it did not find her.  (`kick` compares the same way; a join in an event log
    cannot be rewritten here to show it.)"""
    h = harness
    eve = Actor("U8", "Eve")
    assert (await h.do(ALICE, "start")).ok and (await h.do(eve, "join")).ok
    with sqlite3.connect(h.path) as db:  # as an earlier version stored it (the server's names)
        db.execute("UPDATE players SET name = ? WHERE player = ?", ("Eve\u202e", eve.user_id))
    await h.restart()
    found = await h.do(ALICE, "stats", "Eve")
    assert found.ok and "has not played a settled round" in found.text, found.text


@pytest.mark.parametrize(("args", "said"), [
    (("<@U2>", "7"), "Can't read 'Bob' as a quantity in 'Bob 7'."),
    (("5", "<@U2>"), "Can't read 'Bob' as a digit in '5 Bob'."),
])
async def test_a_mention_in_a_bid_is_quoted_back_one_way(harness: Harness, args: tuple[str, ...], said: str) -> None:
    """`bid <@U2> 7` was "Can't read '<@u2>' as a quantity in 'Bob 7'": the word was quoted lower-cased, which no
    platform draws as the mention it was."""
    h = harness
    await open_three(h)
    before = event_count(h)
    refused = await h.do(actor(h.to_act()), "bid", *args)
    assert not refused.ok and refused.text == said, refused.text
    assert event_count(h) == before


async def test_last_at_a_table_of_set_rounds_declares_no_round_it_will_not_deal(harness: Harness) -> None:
    """`start rounds=2`: in round 2, once bidding began, `last` announced "Round 3 is the last hand at double
    stake", a round the table never deals (it closes after round 2); refused, nothing stored.  Before the last
    round's bidding `last` still makes it the last hand (doubled here)."""
    h = harness
    await open_three(h, "rounds=2", "last_hand_double=on")
    first = await h.do(ALICE, "last")  # round 1, before its bidding: round 1 is the last hand
    assert first.ok and any("Round 1 is the last hand at double stake" in m.text for m in h.notifier.messages)
    assert live_round(h.table()).stake == 2
    assert (await h.do(ADMIN, "end")).ok
    await open_three(h, "rounds=1", "last_hand_double=on")
    assert (await h.do(actor(h.to_act()), "bid", "1", "9")).ok  # the table's only round: bidding begun
    before = event_count(h)
    refused = await h.do(ALICE, "last")
    assert not refused.ok and refused.text == ("This table plays 1 round (rounds=1): the round under way is already "
                                               "its last, and it has begun."), refused.text
    assert event_count(h) == before and not any("Round 2" in m.text for m in h.notifier.messages)


async def test_a_table_of_set_rounds_says_so_where_players_look(harness: Harness) -> None:
    """`start rounds=2` was shown nowhere — not the reply, the lobby, the table message nor `status` — and the table
    closed after round 2 without warning."""
    h = harness
    opened = await h.do(ALICE, "start", "rounds=2")
    assert opened.ok and opened.text.endswith("It plays 2 rounds, then closes."), opened.text
    assert (await h.do(BOB, "join")).ok and (await h.do(ALICE, "deal")).ok
    lobbies = [m.text for m in h.notifier.messages if m.panel == "lobby"]
    assert lobbies and all("up to 12 seats, 2 rounds)" in t for t in lobbies), lobbies
    status = await h.do(ALICE, "status")
    assert status.text.endswith("🔢 Round 1 of the 2 rounds this table plays."), status.text
    assert (await h.do(actor(h.to_act()), "bid", "1", "9")).ok
    assert (await h.do(actor(h.to_act()), "challenge")).ok  # heads-up: counted, and round 2 dealt
    assert h.table().rounds_settled == 1 and h.table().live
    assert (await h.do(ALICE, "status")).text.endswith("🔢 Round 2 of the 2 rounds this table plays: its last.")


async def test_a_player_leaving_after_the_round_joins_again_to_stay(harness: Harness) -> None:
    """`leave` mid-round, then `join`: "You are already seated at this table", the seat still marked leaving, and
    after the round they were gone — the leave could not be taken back.  `join` now takes it back (stored, so a
    restart keeps it); a seat the host removed cannot be kept this way."""
    h = harness
    await open_three(h)
    assert (await h.do(CAROL, "leave")).ok and CAROL.user_id in h.table().pending_leave
    stayed = await h.do(CAROL, "join")
    assert stayed.ok and stayed.text == "You stay at the table: you no longer leave after this round.", stayed.text
    assert CAROL.user_id not in h.table().pending_leave
    assert "(leaving)" not in (await h.do(ALICE, "status")).text
    await h.restart()
    assert CAROL.user_id not in h.table().pending_leave and CAROL.user_id in h.table().players_for_next_deal()
    assert (await h.do(CAROL, "join")).text == "You are already seated at this table."  # nothing to take back
    assert (await h.do(ALICE, "kick", "<@U3>")).ok
    before = event_count(h)
    refused = await h.do(CAROL, "join")
    assert not refused.ok and "host removed you" in refused.text and event_count(h) == before
    assert CAROL.user_id not in h.table().players_for_next_deal()


async def test_a_leave_stored_before_it_said_whose_cannot_be_taken_back(harness: Harness) -> None:
    """A leave stored before session 36 does not say whether it was the player's own or a host's kick: `join` must
    not undo it (a kicked player sat back down); the timer's leave (three turns played for them) may be."""
    h = harness
    await open_three(h)
    assert (await h.do(ALICE, "kick", "<@U3>")).ok
    await h.service.close()
    with sqlite3.connect(h.path) as db:  # the kick as the older version wrote it (the append-only guard lifted)
        db.execute("DROP TRIGGER events_no_update")
        changed = db.execute("""UPDATE table_events SET event = replace(event, ',"kicked":true', '')
                                WHERE event LIKE '%"t":"leave"%'""").rowcount
        db.execute("""CREATE TRIGGER events_no_update BEFORE UPDATE ON table_events
                      BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END""")
    assert changed == 1
    await h.open()
    before = event_count(h)
    refused = await h.do(CAROL, "join")
    assert not refused.ok and refused.text == "Your seat leaves this table after this round; that cannot be taken back."
    assert event_count(h) == before and CAROL.user_id not in h.table().players_for_next_deal()
    await h.do(ADMIN, "end")
    # the timer's leave: a person it has played three turns for, back in time, stays
    assert (await h.do(ADMIN, "config", "turn_timeout=60")).ok
    await open_three(h)
    away = h.to_act()
    while not h.table().leaving(away):
        h.clock.advance(61)
        await h.service.tick()
        await h.service.tick()
        if h.table().live and live_round(h.table()).to_act != away and not h.table().leaving(away):
            mover = actor(h.to_act())  # the others play on (a challenge ends the round, a new one is dealt)
            await h.do(mover, "challenge") if live_round(h.table()).standing_bid else await h.do(mover, "bid", "1", "0")
    stayed = await h.do(actor(away), "join")
    assert stayed.ok and stayed.text == "You stay at the table: you no longer leave after this round.", stayed.text
    assert not h.table().leaving(away)


@pytest.mark.parametrize(("asked", "first"), [
    (("bid",), "`bid` — "), (("raise",), "`bid` — "), (("/liars", "sheet"), "`sheet` — "),
    (("DECLARE",), "`declare` — ")])
async def test_help_with_a_command_explains_that_command(harness: Harness, asked: tuple[str, ...], first: str) -> None:
    """`help bid` answered with the whole list, and `help nonsense` too (ok): the command asked about is explained —
    its line, its options, its other names — and an unknown one is refused."""
    h = harness
    reply = await h.do(ALICE, "help", *asked)
    assert reply.ok and reply.text.startswith(first) and "Liar's Poker commands" not in reply.text, reply.text
    if first == "`bid` — ":
        assert "• `digit` — Which digit (0-9)\n" in reply.text and "Also answers to `b`, `raise`, `r`." in reply.text
    unknown = await h.do(ALICE, "help", "nonsense")
    assert not unknown.ok and unknown.text == "Unknown command 'nonsense'. Try `help`."
    assert (await h.do(ALICE, "help")).text.startswith("Liar's Poker commands")
    assert (await h.do(ALICE, "help", *asked, "7")).text == reply.text  # the first word is the command


async def test_help_names_a_game_or_a_command_of_another_game_than_the_table_s(harness: Harness) -> None:
    """`help cards` was "Unknown command"; at a card table `help bid` explained the serial game's bid as if it were
    this table's."""
    h = harness
    cards = await h.do(ALICE, "help", "cards")
    assert cards.ok and cards.text.startswith("Liar's Poker commands for Liar's Poker with cards:"), cards.text
    assert "`declare`" in cards.text and "`bid`" not in cards.text and "`last`" not in cards.text
    assert (await h.do(ALICE, "start", "game=cards")).ok
    bid = await h.do(ALICE, "help", "bid")
    assert bid.text.startswith("`bid` — ") and "(in Liar's Poker (serial numbers): not a move at this table)" in (
        bid.text.split("\n")[0]), bid.text
    assert "not a move" not in (await h.do(ALICE, "help", "declare")).text
