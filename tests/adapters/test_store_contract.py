"""The Store port's contract, run against every store (SQLite file, PostgreSQL database): see the
``open_store`` fixture in conftest.py.  Two stores opened on one database stand for two processes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.ports import (
    DuplicateRequest,
    LedgerEntry,
    RoundRecord,
    StaleSettings,
    StaleTable,
    Store,
    StoredSettings,
    TableHead,
)
from tests.adapters.store_support import StoreFactory, raw_sql

P = "2026-01"


def round_(number: int, *entries: tuple[str, int], record: dict[str, Any] | None = None) -> RoundRecord:
    return RoundRecord(number, record or {"round": number}, {"number": number}, [LedgerEntry(p, u) for p, u in entries])


async def new_table(store: Store, channel: str = "c1", server: str = "srv", events: int = 1) -> int:
    table = await store.create_table(server, channel, 1.0)
    await store.commit(table, server, [{"t": "open", "i": i} for i in range(events)], at=1.0, period=P)
    return table


async def test_what_is_committed_is_there_after_reopening(open_store: StoreFactory) -> None:
    store = await open_store()
    table = await store.create_table("srv", "c1", 1.0)
    await store.commit(table, "srv", [{"t": "open", "x": [1, "é"]}], at=1.0, period=P, names={"a": "Ann"})
    await store.commit(table, "srv", [{"t": "bid"}], at=2.0, period=P, rounds=[round_(1, ("a", 5), ("b", -5))])
    await store.set_panel(table, "main", "msg-1")
    await store.close()
    again = await open_store()
    [stored] = await again.load_open_tables()
    assert (stored.table_id, stored.server, stored.channel) == (table, "srv", "c1")
    assert stored.events == [{"t": "open", "x": [1, "é"]}, {"t": "bid"}]
    assert stored.seq == 2
    assert stored.panels == {"main": "msg-1"}
    assert await again.balances("srv") == {"a": 5, "b": -5}
    assert await again.names("srv") == {"a": "Ann"}
    # the next commit continues the numbering, whether or not the caller says where
    await again.commit(table, "srv", [{"t": "third"}], at=3.0, period=P)
    await again.commit(table, "srv", [{"t": "fourth"}], at=3.0, period=P, expect_seq=3)
    assert [e["t"] for e in await again.events_since(table, 2)] == ["third", "fourth"]


async def test_the_ledger_and_the_event_log_are_append_only(open_store: StoreFactory, database_url: str) -> None:
    store = await open_store()
    table = await store.create_table("srv", "c1", 1.0)
    await store.commit(table, "srv", [{"t": "act"}], at=1.0, period=P, rounds=[round_(1, ("a", 2), ("b", -2))])
    for sql in ("UPDATE ledger SET units = 0", "DELETE FROM ledger",
                "UPDATE table_events SET at = 0", "DELETE FROM table_events"):
        with pytest.raises(Exception, match="append-only"):
            await raw_sql(database_url, sql)
    assert await raw_sql(database_url, "SELECT SUM(units), COUNT(*) FROM ledger") == [(0, 2)]
    assert await store.table_events(table) == [{"t": "act"}]


async def test_balances_by_period_sum_to_zero_and_periods_settle_once(open_store: StoreFactory) -> None:
    store = await open_store()
    t1 = await new_table(store, "c1")
    t2 = await new_table(store, "c2")
    big = 3 * 2**40  # units are 64-bit integers
    await store.commit(t1, "srv", [{"t": "x"}], at=2.0, period="2026-01", rounds=[round_(1, ("a", 4), ("b", -4))])
    await store.commit(t2, "srv", [{"t": "x"}], at=2.0, period="2026-02",
                       rounds=[round_(1, ("a", -big), ("c", big)), round_(2, ("b", 1), ("c", -1))])
    await store.commit(t1, "other", [{"t": "x"}], at=2.0, period="2026-02", rounds=[round_(2, ("z", 9), ("y", -9))])
    assert await store.balances("srv") == {"a": 4 - big, "b": -3, "c": big - 1}
    assert await store.balances("srv", "2026-01") == {"a": 4, "b": -4}
    assert await store.balances("srv", "2026-03") == {}
    for server in ("srv", "other"):
        assert sum((await store.balances(server)).values()) == 0
    assert await store.periods("srv") == ["2026-01", "2026-02"]
    assert await store.settled_periods("srv") == {}
    assert await store.settle_period("srv", "2026-01", "admin", 5.0) is True
    assert await store.settle_period("srv", "2026-01", "someone", 6.0) is False
    assert await store.settled_periods("srv") == {"2026-01": "admin"}
    assert await store.settled_periods("other") == {}


async def test_settings_changed_elsewhere_refuse_a_write_built_on_the_old_version(open_store: StoreFactory) -> None:
    mine, theirs = await open_store(), await open_store()
    assert await theirs.set_settings("srv", {"stake": 2}, expect_version=0) == 1
    with pytest.raises(StaleSettings) as first:  # a first write, but another process wrote first
        await mine.set_settings("srv", {"stake": 3}, expect_version=0)
    assert (first.value.server, first.value.stored_version) == ("srv", 1)
    assert await theirs.set_settings("srv", {"stake": 4}, expect_version=1) == 2
    with pytest.raises(StaleSettings) as later:
        await mine.set_settings("srv", {"stake": 5}, expect_version=1)
    assert later.value.stored_version == 2
    assert await mine.get_settings("srv") == StoredSettings({"stake": 4}, 2)
    # a table's commit built on version 1 of its server's settings is refused whole; on 2 it is stored
    table = await mine.create_table("srv", "c1", 1.0)
    with pytest.raises(StaleSettings):
        await mine.commit(table, "srv", [{"t": "open"}], at=1.0, period=P, settings_version=1,
                          request=("r-1", {"ok": True}), expect_seq=0)
    assert await mine.table_events(table) == [] and await mine.get_request("r-1") is None
    await mine.commit(table, "srv", [{"t": "open"}], at=1.0, period=P, settings_version=2, expect_seq=0)
    await mine.commit(table, "other", [{"t": "join"}], at=2.0, period=P, settings_version=0, expect_seq=1)
    assert [e["t"] for e in await theirs.table_events(table)] == ["open", "join"]


async def test_two_settings_writes_on_one_version_in_one_batch_store_one(open_store: StoreFactory) -> None:
    store = await open_store()
    results = await asyncio.gather(*(store.set_settings("srv", {"stake": s}, expect_version=0) for s in (1, 2)),
                                   return_exceptions=True)
    assert results[0] == 1 and isinstance(results[1], StaleSettings)
    assert await store.get_settings("srv") == StoredSettings({"stake": 1}, 1)


async def test_settings_stored_at_version_0_by_older_code_can_be_changed(
        open_store: StoreFactory, database_url: str) -> None:
    # a row from before the version column (a rolling deploy, or `liars migrate` from an old file) is at version 0
    store = await open_store()
    await raw_sql(database_url, "INSERT INTO servers (server, settings) VALUES ('srv', '{\"stake\": 2}')")
    assert await store.get_settings("srv") == StoredSettings({"stake": 2}, 0)
    assert await store.set_settings("srv", {"stake": 3}, expect_version=0) == 1
    assert await store.get_settings("srv") == StoredSettings({"stake": 3}, 1)
    with pytest.raises(StaleSettings):
        await store.set_settings("srv", {"stake": 4}, expect_version=0)
    assert await store.get_settings("srv") == StoredSettings({"stake": 3}, 1)


async def test_settings_and_names_are_replaced(open_store: StoreFactory) -> None:
    store = await open_store()
    assert await store.get_settings("srv") == StoredSettings({}, 0)
    assert await store.set_settings("srv", {"stake": 5, "admins": ["u1"]}, expect_version=0) == 1
    assert await store.set_settings("srv", {"stake": 7}, expect_version=1) == 2
    assert await store.get_settings("srv") == StoredSettings({"stake": 7}, 2)
    assert await store.get_settings("other") == StoredSettings({}, 0)
    table = await new_table(store)
    await store.commit(table, "srv", [{"t": "join"}], at=2.0, period=P, names={"a": "Ann", "b": "Bob"})
    await store.commit(table, "srv", [{"t": "join"}], at=3.0, period=P, names={"a": "Anna"})
    assert await store.names("srv") == {"a": "Anna", "b": "Bob"}
    assert await store.names("other") == {}


async def test_rounds_newest_first_by_table_and_limit(open_store: StoreFactory) -> None:
    store = await open_store()
    t1 = await new_table(store, "c1")
    t2 = await new_table(store, "c2")
    for n in (1, 2, 3):
        await store.commit(t1, "srv", [{"t": "r"}], at=float(n), period=P,
                           rounds=[round_(n, ("a", n), ("b", -n), record={"seats": ["a", "b"], "n": n})])
    await store.commit(t2, "srv", [{"t": "r"}], at=9.0, period=P, rounds=[round_(1, ("c", 1), ("d", -1))])
    rows = await store.rounds("srv")
    assert [(r["table_id"], r["number"]) for r in rows] == [(t2, 1), (t1, 3), (t1, 2), (t1, 1)]
    assert rows[1]["record"] == {"seats": ["a", "b"], "n": 3}
    assert rows[1]["outcome"] == {"number": 3} and rows[1]["period"] == P and rows[1]["at"] == 3.0
    assert [r["number"] for r in await store.rounds("srv", table_id=t1, limit=2)] == [3, 2]
    assert await store.rounds("other") == []


async def test_a_closed_table_leaves_the_open_ones_but_keeps_its_history(open_store: StoreFactory) -> None:
    store = await open_store()
    t1 = await new_table(store, "c1")
    t2 = await new_table(store, "c2")
    await store.commit(t1, "srv", [{"t": "end"}], at=2.0, period=P, close=True)
    assert [t.table_id for t in await store.load_open_tables()] == [t2]
    assert await store.open_table_at("srv", "c1") is None
    assert await store.last_table("srv", "c1") == t1
    assert await store.last_table("srv", "nowhere") is None
    assert await store.table_events(t1) == [{"t": "open", "i": 0}, {"t": "end"}]
    t3 = await new_table(store, "c1")  # the channel is free again
    assert t3 not in (t1, t2)
    assert await store.last_table("srv", "c1") == t3


async def test_open_table_heads_show_what_another_process_stored_without_the_events(open_store: StoreFactory) -> None:
    mine, other = await open_store(), await open_store()
    t1 = await new_table(mine, "c1", events=2)
    t2 = await new_table(mine, "c2", server="srv2")
    reserved = await mine.create_table("srv", "c3", 1.0)  # reserved, not yet written: not open yet
    assert await other.open_table_heads() == [TableHead(t1, "srv", "c1", 2), TableHead(t2, "srv2", "c2", 1)]
    await other.commit(t1, "srv", [{"t": "x"}], at=2.0, period=P, expect_seq=2)
    await other.commit(t2, "srv2", [{"t": "end"}], at=2.0, period=P, expect_seq=1, close=True)
    await mine.commit(reserved, "srv", [{"t": "open"}], at=2.0, period=P)
    assert await mine.open_table_heads() == [TableHead(t1, "srv", "c1", 3), TableHead(reserved, "srv", "c3", 1)]


async def test_panels_set_by_one_process_are_read_by_another(open_store: StoreFactory) -> None:
    mine, other = await open_store(), await open_store()
    table = await new_table(mine)
    assert await other.table_panels(table) == {}
    await mine.set_panel(table, "table", "m-1")
    await mine.set_panel(table, "lobby", "m-0")
    await mine.set_panel(table, "table", "m-2")
    assert await other.table_panels(table) == {"table": "m-2", "lobby": "m-0"}
    assert await other.table_panels(table + 1000) == {}


async def test_a_request_is_stored_with_its_commit_and_answered_once(open_store: StoreFactory) -> None:
    store = await open_store()
    table = await new_table(store)
    assert await store.get_request("r-1") is None
    await store.commit(table, "srv", [{"t": "bid"}], at=2.0, period=P, request=("r-1", {"text": "ok", "n": 1}))
    assert await store.get_request("r-1") == {"text": "ok", "n": 1}
    with pytest.raises(DuplicateRequest) as caught:
        await store.commit(table, "srv", [{"t": "bid again"}], at=3.0, period=P, names={"a": "A"},
                           rounds=[round_(1, ("a", 1), ("b", -1))], request=("r-1", {"text": "second"}))
    assert caught.value.request_id == "r-1"
    # nothing of the refused commit is stored, and the table goes on where it was
    assert await store.get_request("r-1") == {"text": "ok", "n": 1}
    assert await store.table_events(table) == [{"t": "open", "i": 0}, {"t": "bid"}]
    assert await store.balances("srv") == {} and await store.names("srv") == {}
    await store.commit(table, "srv", [{"t": "next"}], at=4.0, period=P)
    assert len(await store.table_events(table)) == 3


async def test_answers_kept_for_old_requests_are_forgotten_and_recent_ones_kept(open_store: StoreFactory) -> None:
    """Every refused click stored its answer for good (a platform redelivers within minutes)."""
    store = await open_store()
    table = await new_table(store)
    await store.commit(table, "srv", [{"t": "bid"}], at=100.0, period=P, request=("old", {"text": "old"}))
    await store.commit(table, "srv", [{"t": "bid"}], at=900.0, period=P, request=("new", {"text": "new"}))
    assert await store.prune_requests(500.0) == 1
    assert await store.get_request("old") is None and await store.get_request("new") == {"text": "new"}
    assert await store.prune_requests(500.0) == 0
    assert len(await store.table_events(table)) == 3  # the table's events stay (append-only)


async def test_a_settings_change_and_a_settlement_store_their_request_in_the_same_transaction(
        open_store: StoreFactory) -> None:
    """A config or a settle is stored with its request's answer, all or nothing: a second delivery of the
    request (another process) changes nothing, whatever it would have written."""
    one, two = await open_store(), await open_store()
    assert await one.set_settings("srv", {"stake": 2}, expect_version=0, request=("cfg-1", {"text": "saved"}),
                                  at=5.0) == 1
    assert await two.get_request("cfg-1") == {"text": "saved"}
    with pytest.raises(DuplicateRequest) as caught:
        await two.set_settings("srv", {"stake": 9}, expect_version=1, request=("cfg-1", {"text": "again"}), at=6.0)
    assert caught.value.request_id == "cfg-1"
    assert await one.get_settings("srv") == StoredSettings({"stake": 2}, 1)
    assert await one.get_request("cfg-1") == {"text": "saved"}
    # a stale change stores no answer either
    with pytest.raises(StaleSettings):
        await two.set_settings("srv", {"stake": 3}, expect_version=0, request=("cfg-2", {"text": "x"}), at=6.0)
    assert await two.get_request("cfg-2") is None

    assert await one.settle_period("srv", P, "admin", 7.0, request=("settle-1", {"text": "settled"})) is True
    assert await two.get_request("settle-1") == {"text": "settled"}
    assert await two.settled_periods("srv") == {P: "admin"}
    with pytest.raises(DuplicateRequest):  # the same request for another period: nothing of it is stored
        await two.settle_period("srv", "2026-02", "admin", 8.0, request=("settle-1", {"text": "other"}))
    assert await one.settled_periods("srv") == {P: "admin"}
    assert await one.get_request("settle-1") == {"text": "settled"}
    # a period settled already stores no answer (the caller refuses, and that refusal is stored as refusals are)
    assert await two.settle_period("srv", P, "admin", 9.0, request=("settle-2", {"text": "y"})) is False
    assert await one.get_request("settle-2") is None


async def test_two_settlements_of_one_period_at_once_settle_it_once(open_store: StoreFactory) -> None:
    """Both used to be told they had settled it (the second insert did nothing, silently)."""
    one, two = await open_store(), await open_store()
    for stores, period in (((one, two), "2026-01"), ((one, one), "2026-02")):  # two processes; one batch
        results = await asyncio.gather(*(s.settle_period("srv", period, f"admin{i}", 5.0, request=(f"{period}-{i}",
                                                           {"text": f"settled by admin{i}"}))
                                         for i, s in enumerate(stores)))
        assert sorted(results) == [False, True]
        winner = results.index(True)
        assert (await one.settled_periods("srv"))[period] == f"admin{winner}"
        # the loser's answer is not stored (its refusal is, by the caller, as any refusal)
        assert await two.get_request(f"{period}-{winner}") == {"text": f"settled by admin{winner}"}
        assert await two.get_request(f"{period}-{1 - winner}") is None


async def test_a_stale_commit_from_another_process_stores_nothing(open_store: StoreFactory) -> None:
    one, two = await open_store(), await open_store()
    table = await new_table(one)
    found = await two.open_table_at("srv", "c1")
    assert found is not None and found.table_id == table and found.seq == 1
    await one.commit(table, "srv", [{"t": "one"}], at=2.0, period=P, expect_seq=1)
    with pytest.raises(StaleTable) as caught:
        await two.commit(table, "srv", [{"t": "two"}, {"t": "two b"}], at=2.0, period=P, expect_seq=1,
                         rounds=[round_(1, ("a", 3), ("b", -3))], names={"a": "A"}, request=("r-2", {"x": 1}))
    assert (caught.value.table_id, caught.value.stored_seq) == (table, 2)
    assert await one.table_events(table) == [{"t": "open", "i": 0}, {"t": "one"}]
    assert await two.balances("srv") == {} and await two.names("srv") == {}
    assert await two.get_request("r-2") is None
    # the second process catches up and goes on
    assert await two.events_since(table, found.seq) == [{"t": "one"}]
    await two.commit(table, "srv", [{"t": "two"}], at=3.0, period=P, expect_seq=2, request=("r-2", {"x": 1}))
    assert [e["t"] for e in await one.events_since(table, 1)] == ["one", "two"]


async def test_of_two_racing_commits_on_one_table_exactly_one_is_stored(open_store: StoreFactory) -> None:
    one, two = await open_store(), await open_store()
    table = await new_table(one)
    results = await asyncio.gather(
        *(store.commit(table, "srv", [{"t": name}], at=2.0, period=P, expect_seq=1,
                       rounds=[round_(1, ("a", 1), ("b", -1))])
          for store, name in ((one, "one"), (two, "two"))),
        return_exceptions=True,
    )
    failures = [r for r in results if r is not None]
    assert len(failures) == 1 and isinstance(failures[0], StaleTable)
    assert failures[0].stored_seq == 2
    events = await one.table_events(table)
    assert len(events) == 2 and events[1]["t"] in ("one", "two")
    assert await one.balances("srv") == {"a": 1, "b": -1}


async def test_expecting_more_events_than_are_stored_is_stale_too(open_store: StoreFactory) -> None:
    store = await open_store()
    table = await new_table(store, events=2)
    with pytest.raises(StaleTable) as caught:
        await store.commit(table, "srv", [{"t": "gap"}], at=2.0, period=P, expect_seq=5)
    assert caught.value.stored_seq == 2
    with pytest.raises(StaleTable):  # a commit without events checks the count as well
        await store.commit(table, "srv", [], at=2.0, period=P, expect_seq=1, close=True)
    assert [t.table_id for t in await store.load_open_tables()] == [table]
    await store.commit(table, "srv", [{"t": "end"}], at=2.0, period=P, expect_seq=2, close=True)
    assert len(await store.table_events(table)) == 3


async def test_opening_a_second_table_in_a_channel_another_process_holds_is_stale(open_store: StoreFactory) -> None:
    one = await open_store()
    held = await new_table(one, "c1")
    two = await open_store()
    late = await two.create_table("srv", "c1", 2.0)
    with pytest.raises(StaleTable) as caught:
        await two.commit(late, "srv", [{"t": "open"}], at=2.0, period=P, expect_seq=0)
    assert caught.value.table_id == late
    found = await two.open_table_at("srv", "c1")
    assert found is not None and found.table_id == held


async def test_one_failing_unit_in_a_group_commit_fails_alone(open_store: StoreFactory) -> None:
    store = await open_store()
    tables = [await new_table(store, f"c{i}") for i in range(6)]
    await store.commit(tables[0], "srv", [{"t": "seen"}], at=1.0, period=P, request=("taken", {"r": 0}))
    results = await asyncio.gather(
        *(store.commit(t, "srv", [{"t": "ok", "i": i}], at=2.0, period=P, request=("taken" if i == 3 else f"r{i}", {}),
                       rounds=[round_(1, ("a", 1), ("b", -1))])
          for i, t in enumerate(tables)),
        return_exceptions=True,
    )
    assert [type(r).__name__ for r in results] == ["NoneType"] * 3 + ["DuplicateRequest"] + ["NoneType"] * 2
    stored = {t.table_id: t.events[-1] for t in await store.load_open_tables()}
    assert stored[tables[3]] == {"t": "open", "i": 0}
    assert all(stored[t] == {"t": "ok", "i": i} for i, t in enumerate(tables) if i != 3)
    assert await store.balances("srv") == {"a": 5, "b": -5}  # the refused unit's ledger rows are not there
    assert await store.get_request("taken") == {"r": 0}


async def test_many_concurrent_commits_keep_every_table_in_order(open_store: StoreFactory) -> None:
    store = await open_store()
    tables = [await new_table(store, f"c{i}", server=f"s{i % 3}") for i in range(20)]

    async def play(i: int, table: int) -> None:
        for n in range(1, 6):
            await store.commit(table, f"s{i % 3}", [{"t": "step", "n": n}], at=float(n), period=P,
                               rounds=[round_(n, (f"p{i}", n), (f"q{i}", -n))], names={f"p{i}": f"P{n}"},
                               request=(f"{table}-{n}", {"n": n}))

    await asyncio.gather(*(play(i, t) for i, t in enumerate(tables)))
    for t in await store.load_open_tables():
        assert [e.get("n") for e in t.events] == [None, 1, 2, 3, 4, 5]
    for s in ("s0", "s1", "s2"):
        assert sum((await store.balances(s)).values()) == 0
    assert (await store.names("s0"))["p0"] == "P5"


async def test_ping_answers_while_open_and_raises_once_closed(open_store: StoreFactory) -> None:
    store = await open_store()
    await store.ping()
    await store.close()
    with pytest.raises(Exception):  # noqa: B017 - any error: the probe only needs "unreachable"
        await store.ping()
