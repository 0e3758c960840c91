"""What is PostgreSQL's own in the PostgreSQL store, on a real server (see tests/adapters/conftest.py):
numbered migrations in schema_migrations, TRUNCATE refused, 64-bit units, ids from the database,
group commit, and the race that only a second connection can make."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from adapters.postgres.schema import MIGRATIONS
from adapters.postgres.store import PostgresStore
from bot.ports import LedgerEntry, RoundRecord, StaleTable
from tests.adapters.store_support import raw_sql

P = "2026-01"


def round_(number: int, units: int = 1) -> RoundRecord:
    return RoundRecord(number, {}, {}, [LedgerEntry("a", units), LedgerEntry("b", -units)])


async def test_migrations_are_numbered_and_applied_once_even_by_processes_opening_together(postgres_url: str) -> None:
    stores = [PostgresStore(postgres_url) for _ in range(3)]
    await asyncio.gather(*(s.open() for s in stores))  # the advisory lock lets one of them migrate
    assert [await s.schema_version() for s in stores] == [len(MIGRATIONS)] * 3
    assert await raw_sql(postgres_url, "SELECT version FROM schema_migrations ORDER BY version") == [
        (n,) for n in range(1, len(MIGRATIONS) + 1)
    ]
    for s in stores:
        await s.close()


async def test_truncate_is_refused_and_units_are_64_bit(postgres_url: str) -> None:
    store = PostgresStore(postgres_url)
    await store.open()
    table = await store.create_table("srv", "c1", 1.0)
    await store.commit(table, "srv", [{"t": "x"}], at=1.0, period=P, rounds=[round_(1, 2**62)])
    await store.close()
    for name in ("ledger", "table_events"):
        with pytest.raises(asyncpg.IntegrityConstraintViolationError, match="append-only"):
            await raw_sql(postgres_url, f"TRUNCATE {name} CASCADE")
    types = await raw_sql(postgres_url, "SELECT data_type FROM information_schema.columns"
                                        " WHERE table_name = 'ledger' AND column_name = 'units'")
    assert types == [("bigint",)]
    assert await raw_sql(postgres_url, "SELECT MAX(units) FROM ledger") == [(2**62,)]


async def test_two_processes_get_distinct_table_and_round_ids(postgres_url: str) -> None:
    one, two = PostgresStore(postgres_url), PostgresStore(postgres_url)
    await one.open()
    await two.open()

    async def play(store: PostgresStore, name: str) -> list[int]:
        ids = []
        for i in range(5):
            t = await store.create_table("srv", f"{name}{i}", 1.0)
            await store.commit(t, "srv", [{"t": "open"}], at=1.0, period=P, rounds=[round_(1)])
            ids.append(t)
        return ids

    a, b = await asyncio.gather(play(one, "a"), play(two, "b"))
    assert len(set(a) | set(b)) == 10
    assert len({r["id"] for r in await one.rounds("srv")}) == 10
    assert await one.balances("srv") == {"a": 10, "b": -10}
    await one.close()
    await two.close()


async def test_concurrent_commits_are_written_together(postgres_url: str) -> None:
    store = PostgresStore(postgres_url)
    await store.open()
    tables = [await store.create_table("srv", f"c{i}", 1.0) for i in range(30)]
    before = store.transactions
    await asyncio.gather(*(store.commit(t, "srv", [{"t": "open"}], at=1.0, period=P) for t in tables))
    assert store.transactions - before < 30
    assert len(await store.load_open_tables()) == 30
    await store.close()


@pytest.mark.parametrize("with_round", [False, True])
async def test_a_commit_racing_past_the_seq_check_is_refused_by_the_key(postgres_url: str, with_round: bool) -> None:
    """Another process's transaction appends seq 2 (and round 1) after this commit's check has seen 1
    event: the commit waits on the key, and fails with StaleTable once the other commits."""
    store = PostgresStore(postgres_url)
    await store.open()
    table = await store.create_table("srv", "c1", 1.0)
    await store.commit(table, "srv", [{"t": "open"}], at=1.0, period=P)
    other = await asyncpg.connect(postgres_url)
    tx = other.transaction()
    await tx.start()
    await other.execute("INSERT INTO table_events VALUES ($1, 2, 2.0, '{\"t\": \"other\"}')", table)
    if with_round:
        await other.execute("INSERT INTO rounds (table_id, server, number, period, at, record, outcome)"
                            " VALUES ($1, 'srv', 1, $2, 2.0, '{}', '{}')", table, P)
    rounds = [round_(1)] if with_round else []
    pending = asyncio.create_task(
        store.commit(table, "srv", [{"t": "mine"}], at=2.0, period=P, expect_seq=1, rounds=rounds)
    )
    for _ in range(500):  # until the commit waits for the other transaction's lock (bounded)
        waiting = await other.fetchval("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'liars'"
                                       " AND wait_event_type = 'Lock'")
        if waiting:
            break
        await asyncio.sleep(0.01)
    assert waiting == 1 and not pending.done()
    await tx.commit()
    await other.close()
    with pytest.raises(StaleTable) as caught:
        await pending
    assert (caught.value.table_id, caught.value.stored_seq) == (table, 2)
    assert await store.table_events(table) == [{"t": "open"}, {"t": "other"}]
    assert await store.balances("srv") == {}
    await store.close()
