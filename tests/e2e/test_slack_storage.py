"""Storage faults under the Slack adapter: the database file cannot grow (SQLite's own limit,
``PRAGMA max_page_count``, on the bot's connection: what a full disk looks like to SQLite).

What must hold: the command that cannot be stored gets one clear private answer and changes nothing
(not in the file, not in the table the bot keeps in memory); reads keep working and the bot stays
ready; nothing is logged at ERROR; once there is room again the bot goes on by itself (no restart)
and a round plays to the end with every ledger at 0.
"""

from __future__ import annotations

import logging
from pathlib import Path

import aiohttp
import pytest

from adapters.sqlite.store import SqliteStore
from tests.adapters.slack.harness import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    HttpDriver,
    event_count,
    key_of,
    ledger_rows,
)
from tests.typed import serial_match

NOT_SAVED = "The table could not be saved"


async def _pragma(driver: HttpDriver, sql: str) -> int:
    store = driver.bot.service.store
    assert isinstance(store, SqliteStore)
    async with store.db.execute(sql) as cur:
        row = await cur.fetchone()
    assert row is not None
    return int(row[0])


async def test_a_full_database_refuses_writes_clearly_serves_reads_and_recovers(
    driver: HttpDriver, db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fake, bot = driver.fake, driver.bot
    key = key_of(fake)
    assert ((await driver.slash(ALICE, "start")).text or "").startswith("You opened a table")
    pages = await _pragma(driver, "PRAGMA page_count")
    assert await _pragma(driver, f"PRAGMA max_page_count = {pages}") == pages  # the disk is full from here on

    # Bob sits down and gets up until a write needs a page the file cannot have.
    refused = None
    with caplog.at_level(logging.WARNING):
        for i in range(2000):
            stored = event_count(db)
            reply = await driver.slash(BOB, "join" if i % 2 == 0 else "leave")
            if (reply.text or "").startswith(NOT_SAVED):
                refused = ("join" if i % 2 == 0 else "leave", stored)
                break
            assert reply.text and reply.text.startswith(("You are seated", "You left")), reply.text
    assert refused is not None, "the database never filled up: the test proves nothing"
    verb, stored = refused
    assert reply.response_type == "ephemeral"

    # Nothing of the refused command happened: not in the file, not in the bot's table.
    table = bot.service.table(key)
    assert table is not None
    assert event_count(db) == stored and table.events == stored
    assert (BOB in table.seats) == (verb == "leave")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], "a full disk is not an error of ours"
    assert [r for r in caplog.records if r.levelno == logging.WARNING and "full" in r.getMessage()]

    # Reads go on: the table, the ledger, and the bot says it is ready (the store answers).
    status = await driver.slash(CAROL, "status")
    assert status.text and "opened a table" in status.text
    assert (await driver.slash(CAROL, "ledger")).text
    base = driver.url.rsplit("/slack/", 1)[0]
    async with aiohttp.ClientSession() as http, http.get(f"{base}/readyz") as resp:
        assert resp.status == 200
    again = await driver.slash(BOB, verb)  # a second try while still full: still refused, still nothing
    assert (again.text or "").startswith(NOT_SAVED) and event_count(db) == stored

    # Room again: the bot goes on by itself, and a whole round is stored.
    await _pragma(driver, "PRAGMA max_page_count = 1073741823")
    if verb == "join":
        assert ((await driver.slash(BOB, "join")).text or "").startswith("You are seated")
    await driver.slash(CAROL, "join")
    assert ((await driver.slash(ALICE, "deal")).text or "").startswith("Dealt")
    for _ in range(3):
        table = bot.service.table(key)
        assert table is not None and table.match is not None and table.to_act is not None
        live = serial_match(table).live_round
        text = "bid 1 9" if live is not None and live.standing_bid is None else "challenge"
        await driver.slash(table.to_act, text)
    await driver.settled()
    assert [c for c in fake.messages_to(CHANNEL) if "The count" in c.params["text"]]
    rows = ledger_rows(db)
    assert len(rows) == 3 and sum(u for _, _, u in rows) == 0
