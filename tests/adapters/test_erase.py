"""``Store.erase_server`` (``liars forget``) on every store (SQLite file, PostgreSQL database): one server's rows
go in one transaction, every other server's stay, the ledger and the event log are append-only again
afterwards, and a server with an open table is refused with nothing erased."""

from __future__ import annotations

import asyncio

import pytest

from bot.ports import OpenTables, Store, StoredSettings
from tests.adapters.store_support import StoreFactory, raw_sql
from tests.adapters.test_store_contract import P, round_

EVERY_KIND = ("ledger", "rounds", "settlements", "requests", "table_events", "tables", "players", "servers")


async def a_server_with_history(store: Store, server: str, *, close: bool = True) -> int:
    """A table of two rounds (closed unless told), a name, settings and a settled period."""
    table = await store.create_table(server, "c1", 1.0)
    await store.commit(table, server, [{"t": "open"}], at=1.0, period=P, names={"a": "Ann"},
                       request=(f"{server}-r1", {"ok": True}))
    await store.commit(table, server, [{"t": "count"}, {"t": "count"}], at=2.0, period=P, close=close,
                       rounds=[round_(1, ("a", 3), ("b", -3)), round_(2, ("a", -1), ("b", 1))])
    # answers no table holds: a config's, a settle's (names and balances), a refusal where no table was open
    await store.set_settings(server, {"stake": 2}, expect_version=0, request=(f"{server}-cfg", {"text": "saved"}))
    assert await store.settle_period(server, P, "a", 3.0, request=(f"{server}-settle", {"text": "Ann: +2"}))
    await store.remember(f"{server}-refused", {"text": "no table here"}, 4.0, server)
    return table


async def test_an_answer_stored_by_the_code_before_the_server_column_is_erased_with_its_table(
        open_store: StoreFactory, database_url: str) -> None:
    """A process still running the code before migration 5 (a rolling deploy) stores answers naming only their
    table: they were left behind by forget, which erased by the new column alone."""
    store = await open_store()
    table = await a_server_with_history(store, "slack:TA")
    await raw_sql(database_url, "INSERT INTO requests (request_id, table_id, reply, at) VALUES ($1, $2, $3, 5.0)",
                  "old-worker", table, '{"text": "Bid placed."}')
    erased = await store.erase_server("slack:TA")
    assert erased["requests"] == 5 and await store.get_request("old-worker") is None


async def rows_of(database_url: str, server: str) -> dict[str, int]:
    where = {"table_events": "table_id IN (SELECT id FROM tables WHERE server = $1)",
             "servers": "server = $1 AND CAST(settings AS TEXT) <> '{}'"}  # erased settings keep their version
    return {kind: int((await raw_sql(database_url, f"SELECT COUNT(*) FROM {kind} WHERE "
                                     + where.get(kind, "server = $1"), server))[0][0])
            for kind in EVERY_KIND}


async def test_erasing_a_server_takes_every_row_of_it_and_no_other(open_store: StoreFactory,
                                                                    database_url: str) -> None:
    store = await open_store()
    await a_server_with_history(store, "slack:TA")
    kept = await a_server_with_history(store, "slack:TB")
    before = await rows_of(database_url, "slack:TB")
    erased = await store.erase_server("slack:TA")
    assert erased == {"ledger": 4, "rounds": 2, "settlements": 1, "requests": 4, "table_events": 3, "tables": 1,
                      "players": 1, "servers": 1}
    assert await store.get_request("slack:TA-settle") is None and await store.get_request("slack:TA-cfg") is None
    assert await store.get_request("slack:TB-settle") == {"text": "Ann: +2"}
    assert await rows_of(database_url, "slack:TA") == dict.fromkeys(EVERY_KIND, 0)
    assert await rows_of(database_url, "slack:TB") == before
    assert await store.balances("slack:TB") == {"a": 2, "b": -2}
    assert await store.table_events(kept) == [{"t": "open"}, {"t": "count"}, {"t": "count"}]
    assert await store.balances("slack:TA") == {} and await store.all_servers() == ["slack:TB"]
    # the triggers are back: the ledger and the event log refuse a delete again
    for sql in ("DELETE FROM ledger", "DELETE FROM table_events"):
        with pytest.raises(Exception, match="append-only"):
            await raw_sql(database_url, sql)
    # the settings are gone but their version counts on: another process's copy of the erased ones (version 1)
    # is not taken for the next settings written (which would be version 1 again)
    assert await store.get_settings("slack:TA") == StoredSettings({}, 2)
    assert await store.set_settings("slack:TA", {"currency": "CHF"}, expect_version=2) == 3
    await store.set_settings("slack:TA", {}, expect_version=3)
    # erasing it again finds nothing (zeros, not an error)
    assert await store.erase_server("slack:TA") == dict.fromkeys(EVERY_KIND, 0)


async def test_a_server_with_an_open_table_is_refused_and_keeps_everything(open_store: StoreFactory,
                                                                          database_url: str) -> None:
    store = await open_store()
    await a_server_with_history(store, "discord:1", close=False)
    before = await rows_of(database_url, "discord:1")
    with pytest.raises(OpenTables, match="discord:1 has 1 open table") as refused:
        await store.erase_server("discord:1")
    assert refused.value.count == 1
    assert await rows_of(database_url, "discord:1") == before
    with pytest.raises(Exception, match="append-only"):
        await raw_sql(database_url, "DELETE FROM ledger")


async def test_an_erase_among_concurrent_commits_and_installs_runs_by_itself(open_store: StoreFactory) -> None:
    """SQLite has one writer per connection: an erase (several statements) sharing its transaction with
    a batch of commits or an install's write would fail or take them with it."""
    store = await open_store()
    await a_server_with_history(store, "gone")
    tables = [await store.create_table("live", f"c{i}", 1.0) for i in range(8)]

    async def play(i: int, table: int) -> None:
        for n in range(3):
            await store.commit(table, "live", [{"t": "step", "n": n}], at=2.0, period=P,
                               rounds=[round_(n + 1, (f"p{i}", 1), (f"q{i}", -1))])

    installs = [store.save_slack_bot("", f"T{i}", f"T{i}", 1.0, "{}") for i in range(4)]
    erasing = asyncio.create_task(store.erase_server("gone"))  # first, as the commits and installs queue
    await asyncio.gather(*(play(i, t) for i, t in enumerate(tables)), *installs)
    assert (await erasing)["ledger"] == 4
    assert await store.balances("gone") == {}
    assert sum((await store.balances("live")).values()) == 0 and len(await store.balances("live")) == 16
    assert all(len(t.events) == 3 for t in await store.load_open_tables())
    assert all([await store.find_slack_bot("", f"T{i}") == "{}" for i in range(4)])


async def test_ids_of_erased_tables_and_rounds_are_never_handed_out_again(open_store: StoreFactory) -> None:
    """The rating book and old buttons know rounds and tables by id: after an erase, a new round or table
    (in this process, then in one opened afresh on the same database) must not take an erased one's id."""
    store = await open_store()
    table = await a_server_with_history(store, "slack:TA")
    round_ids = {int(str(r["id"])) for r in await store.rounds("slack:TA")}
    assert await store.erase_server("slack:TA")
    for _ in range(2):
        new = await store.create_table("slack:TA", f"c{table}", 5.0)
        assert new > table
        await store.commit(new, "slack:TA", [{"t": "open"}], at=5.0, period=P, close=True,
                           rounds=[round_(1, ("c", 1), ("d", -1)), round_(2, ("c", 2), ("d", -2))])
        new_ids = {int(str(r["id"])) for r in await store.rounds("slack:TA", table_id=new)}
        assert len(new_ids) == 2 and min(new_ids) > max(round_ids)
        round_ids |= new_ids
        table = new
        assert await store.erase_server("slack:TA")
        store = await open_store()
