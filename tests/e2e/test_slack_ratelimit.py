"""Slack's rate limits, faked: about one ``chat.postMessage``/``chat.update`` per second per channel, then
HTTP 429 with ``Retry-After``.  A fast round (computer seats that do not wait) still delivers every
private DM and the count, the panels end on the final state, and every acknowledgement is quick."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.adapters.slack.harness import (
    ALICE,
    BOB,
    CHANNEL,
    blocks_text,
    key_of,
    ledger_rows,
    serving,
)
from tests.fakes.slack_server import FakeSlack
from tests.typed import serial_match


async def test_a_fast_round_under_rate_limits_loses_nothing(fake: FakeSlack, db: Path) -> None:
    async with serving(fake, db) as d:
        bot = d.bot
        await d.slash(ALICE, "start classic 1 4 2 rounds=1")  # two computer seats, no thinking delay
        await d.slash(BOB, "join")
        fake.rate_limit(1.0)  # from here on, Slack says "slow down" to anything faster than 1/s/channel
        key = key_of(fake)
        table = bot.service.table(key)
        assert table is not None
        await d.slash(ALICE, "deal", settle=False)
        serials: list[dict[str, str]] = []
        for _ in range(200):
            table = bot.service.table(key)
            if table is None:
                break  # the round is played: the table closed
            round_ = serial_match(table).live_round if table.match is not None else None
            assert round_ is not None, "a human is to act, or the table ended"
            if not serials or serials[-1] != {p: s.digits for p, s in round_.serials.items()}:
                serials.append({p: s.digits for p, s in round_.serials.items()})
            actor = round_.to_act
            assert actor in (ALICE, BOB), actor  # the computers act inside the command before
            text = "bid 1 9" if round_.standing_bid is None else "challenge"
            reply = await d.slash(actor, text, settle=False)  # answered at once; the channel catches up
            assert reply.text in ("Bid placed.", "You challenged.")
        else:
            pytest.fail("the table never ended")
        answered = max(a.elapsed for a in d.acks)
        await d.settled()

    assert fake.rate_limited_calls(), "the rate limit was never hit: the test proves nothing"
    assert answered < 1.0  # acknowledgements never waited for Slack's rate limit
    assert len(serials) == 1
    for player in (ALICE, BOB):  # one DM per round, each with that player's own serial
        dms = fake.dms_to(player)
        assert [s[player] in blocks_text(c.params) for c, s in zip(dms, serials, strict=True)] == [True]
    counts = [c for c in fake.messages_to(CHANNEL) if "The count" in c.params["text"]]
    assert len(counts) == 1
    # the panels end on the final state: the lobby says closed; the last table message says counted
    posted_lobby = fake.messages_to(CHANNEL)[0].response
    assert posted_lobby is not None
    lobby = fake.message(CHANNEL, posted_lobby["ts"])
    assert lobby is not None and lobby["text"].startswith("🃏 This table is closed")
    tables = [c for c in fake.messages_to(CHANNEL) if c.params["text"].startswith("🃏 *Round")]
    assert len(tables) == 1
    for posted in tables:
        assert posted.response is not None
        final = fake.message(CHANNEL, posted.response["ts"])
        assert final is not None and "Counted" in final["text"]
    assert sum(u for _, _, u in ledger_rows(db)) == 0 and len(ledger_rows(db)) == 4


async def test_a_count_queued_behind_a_retry_after_at_shutdown_still_goes_out(fake: FakeSlack, db: Path) -> None:
    """SIGTERM (what ``run`` does on it: ``close``) while Slack rate-limits the channel: the round's count, settled
    and in the ledger, waited behind a 5.5-second ``Retry-After``; the notifier gave its queues 5 s, then dropped it
    ("stopping with N Slack messages unsent"), and a restart redraws the table message, not the count."""
    bot = None
    async with serving(fake, db) as d:
        bot = d.bot
        await d.slash(ALICE, "start classic 1 rounds=1")
        await d.slash(BOB, "join")
        await d.slash(ALICE, "deal")
        await d.settled()
        fake.rate_limit(5.5, methods=("chat.postMessage",))  # (edits of the table message go through)
        key = key_of(fake)
        for _ in range(10):
            table = bot.service.table(key)
            if table is None:
                break
            round_ = serial_match(table).live_round
            assert round_ is not None and round_.to_act is not None
            await d.slash(round_.to_act, "bid 1 9" if round_.standing_bid is None else "challenge", settle=False)
        assert bot.service.table(key) is None and len(ledger_rows(db)) == 2  # settled, stored, closed
        assert not [c for c in fake.messages_to(CHANNEL) if "The count" in c.params["text"] and c.status == 200]
    # (serving closed the bot here, as on SIGTERM)
    assert fake.rate_limited_calls(), "the rate limit was never hit: the test proves nothing"
    counts = [c for c in fake.messages_to(CHANNEL) if "The count" in c.params["text"] and c.status == 200]
    assert len(counts) == 1
