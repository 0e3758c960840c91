"""PostgreSQL connections that go silent without a reset (a partition, a failover, the database host gone).

Before: no store operation had a deadline.  The store's one writer task waited on a dead pooled connection, and
every later commit of the process (any table, any server) queued behind it, even once the database answered on
new connections — some 15 minutes, until the system gave the connection up; and `/readyz` (``store_ready``: the
ping given a second) gave no answer at all, its cancellation waiting on the dead connection too."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest

from adapters.postgres import store as postgres_store
from adapters.postgres.store import PostgresStore
from adapters.slack.door import store_ready
from bot.model import Actor, Command, TableKey
from bot.service import Service
from tests.doubles import FakeClock, RecordingNotifier
from tests.fakes.postgres_proxy import SilentProxy

ALICE, BOB = Actor("UA", "Alice"), Actor("UB", "Bob")
KEY = TableKey("slack", "T1", "C1")


@pytest.fixture
async def silenced(postgres_url: str, monkeypatch: pytest.MonkeyPatch
                   ) -> AsyncIterator[tuple[SilentProxy, PostgresStore, Service]]:
    monkeypatch.setattr(postgres_store, "OPERATION_SECONDS", 1.0)  # (10 s in service: the same cut, sooner)
    proxy = SilentProxy(postgres_url)
    store = PostgresStore(await proxy.start())
    await store.open()
    service = Service(store, RecordingNotifier(), clock=FakeClock(), rng=random.Random(1))
    await service.start()
    for actor, name in ((ALICE, "start"), (BOB, "join"), (ALICE, "deal")):
        assert (await service.handle(Command(name, KEY, actor, ()))).ok
    try:
        yield proxy, store, service
    finally:
        await proxy.close()
        await asyncio.wait_for(service.close(), 10)


async def test_a_silent_connection_fails_its_own_commit_and_holds_up_no_other(
        silenced: tuple[SilentProxy, PostgresStore, Service]) -> None:
    proxy, _, service = silenced
    table = service.table(KEY)
    assert table is not None
    opener = ALICE if table.to_act == ALICE.user_id else BOB
    proxy.silence_all()  # the pooled connections go silent; new ones work (the database is back)
    events = table.events
    async with asyncio.timeout(20):
        bid = await service.handle(Command("bid", KEY, opener, ("1", "9")))
        # its commit took a silent connection: cut; whether it was stored cannot be read on the other (silent too),
        # so it says so (it was not: the bid below is the table's first)
        assert not bid.ok and bid.code == "maybe-saved" and bid.text.startswith("The database stopped answering")
        other = TableKey("slack", "T1", "C2")  # another table meanwhile: played on fresh connections
        started = await service.handle(Command("start", other, ALICE, (), {}, "r-2"))
        while not started.ok and started.code in ("not-saved", "maybe-saved"):  # (each pooled connection cut once)
            started = await service.handle(Command("start", other, ALICE, (), {}, "r-2"))
        assert started.ok, started.text
        again = await service.handle(Command("bid", KEY, opener, ("1", "9")))
    assert again.ok, again.text
    after = service.table(KEY)
    assert after is not None and after.events == events + 1  # the bid, once


async def test_readyz_answers_within_its_second_when_the_database_stops_answering(
        silenced: tuple[SilentProxy, PostgresStore, Service]) -> None:
    proxy, store, _ = silenced
    proxy.silence_all()
    async with asyncio.timeout(3):  # (its own deadline: a second)
        assert await store_ready(store) is False


async def test_a_commit_stored_whose_answer_was_lost_is_done_and_its_messages_sent(
        silenced: tuple[SilentProxy, PostgresStore, Service]) -> None:
    """The database stored the bid, and its answer was lost on the way back: the bid was written again, refused as
    stale, and answered as placed — but its messages (the table, the next player's turn) were never sent by any
    process.  Now the store finds it stored and the bid is done as any other."""
    proxy, _, service = silenced
    table = service.table(KEY)
    assert table is not None
    opener = ALICE if table.to_act == ALICE.user_id else BOB
    notifier = service.rt.notifier
    assert isinstance(notifier, RecordingNotifier)
    before, events = len(notifier.messages), table.events
    proxy.lose_the_next_answer()
    async with asyncio.timeout(20):
        bid = await service.handle(Command("bid", KEY, opener, ("1", "9")))
    assert bid.ok and bid.text == "Bid placed.", bid
    after = service.table(KEY)
    assert after is not None and after.events == events + 1 and proxy.unanswered
    await service.drain()
    assert any("1 nine" in m.text.lower() or "one nine" in m.text.lower() for m in notifier.messages[before:]), [
        m.text for m in notifier.messages[before:]]


async def test_a_commit_that_cannot_be_checked_is_said_maybe_saved_not_lost(
        silenced: tuple[SilentProxy, PostgresStore, Service]) -> None:
    """Every pooled connection silent: the commit is stored, its answer lost, and whether it was stored cannot be
    read back on them either.  It was answered "nothing changed"; now "may or may not have been saved", and the
    table as stored (read on a fresh connection) shows the bid."""
    proxy, _, service = silenced
    table = service.table(KEY)
    assert table is not None
    opener = ALICE if table.to_act == ALICE.user_id else BOB
    events = table.events
    proxy.lose_every_answer()  # (the commit reaches the database; the check on the other pooled connection too,
    # and its answer is lost as well)
    async with asyncio.timeout(20):
        bid = await service.handle(Command("bid", KEY, opener, ("1", "9")))
        assert not bid.ok and bid.code == "maybe-saved" and bid.text.startswith("The database stopped answering"), bid
        status = await service.handle(Command("status", KEY, opener, ()))
    assert status.ok
    after = service.table(KEY)
    assert after is not None and after.events == events + 1


async def test_a_slow_database_gives_up_a_statement_before_its_connection_is_cut(
        postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A database slow but answering (a lock held longer than the deadline): the cut statement ran on at the server
    and committed after the commit was said lost — "nothing changed" for a bid stored, or "not your turn" on its
    retry, its messages never sent.  The server now gives a statement up a tenth before the deadline
    (``statement_timeout``): what is said matches what is stored."""
    import asyncpg

    monkeypatch.setattr(postgres_store, "OPERATION_SECONDS", 1.0)
    store = PostgresStore(postgres_url)
    await store.open()
    service = Service(store, RecordingNotifier(), clock=FakeClock(), rng=random.Random(1))
    await service.start()
    admin = await asyncpg.connect(postgres_url)
    try:
        for actor, name in ((ALICE, "start"), (BOB, "join"), (ALICE, "deal")):
            assert (await service.handle(Command(name, KEY, actor, ()))).ok
        table = service.table(KEY)
        assert table is not None
        opener = ALICE if table.to_act == ALICE.user_id else BOB
        events = table.events
        async with admin.transaction():
            await admin.execute("LOCK TABLE table_events IN EXCLUSIVE MODE")  # (blocks every commit's INSERT)
            bid = await service.handle(Command("bid", KEY, opener, ("1", "9")))
        stored = await store.events_since(table.id, events)
        assert not bid.ok and bid.code == "not-saved" and stored == [], (bid, stored)
        assert (await service.handle(Command("bid", KEY, opener, ("1", "9")))).ok  # and then as usual
    finally:
        await admin.close()
        await asyncio.wait_for(service.close(), 10)
