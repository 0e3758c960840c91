"""What is SQLite's own in the SQLite store, on real files: migrations by user_version, WAL, the
triggers, a failure that only a trigger can make.  The port's contract is in test_store_contract.py."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import threading
from pathlib import Path

import pytest

from adapters.sqlite.store import MIGRATIONS, SqliteStore
from bot.ports import LedgerEntry, RoundRecord, StaleTable


async def test_a_new_file_is_migrated_once_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    store = SqliteStore(str(path))
    await store.open()
    assert await store.schema_version() == len(MIGRATIONS)
    table = await store.create_table("srv", "c1", 1.0)
    await store.commit(table, "srv", [{"t": "open"}], at=1.0, period="2026-01")
    await store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("SELECT table_id, seq FROM table_events").fetchall() == [(table, 1)]
    again = SqliteStore(str(path))
    await again.open()  # migrating again would fail on CREATE TABLE: the version says it is done
    assert await again.schema_version() == len(MIGRATIONS)
    assert [t.events for t in await again.load_open_tables()] == [[{"t": "open"}]]
    await again.close()


async def test_a_file_that_cannot_be_opened_leaves_no_connection_thread_behind(tmp_path: Path) -> None:
    """A path that is a directory: open() fails, and aiosqlite's worker thread has ended when it does (else it
    raced the loop's close and could raise "Event loop is closed" in its own traceback afterwards)."""
    before = set(threading.enumerate())
    with pytest.raises(sqlite3.OperationalError):
        await SqliteStore(str(tmp_path)).open()
    new = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    left = [t.name for t in new if not t.name.startswith("asyncio_")]  # not the loop's executor (the join ran there)
    assert left == []


async def test_processes_opening_a_new_file_together_migrate_it_once(tmp_path: Path) -> None:
    path = str(tmp_path / "together.sqlite3")
    stores = [SqliteStore(path) for _ in range(3)]
    await asyncio.gather(*(s.open() for s in stores))  # each migrates on its own connection and thread
    try:
        assert [await s.schema_version() for s in stores] == [len(MIGRATIONS)] * 3
        for n, s in enumerate(stores):  # each takes the next free table id once it has seen the others'
            with contextlib.suppress(StaleTable):
                await s.commit(await s.create_table("srv", f"c{n}", 1.0), "srv", [{"t": "open"}], at=1.0,
                               period="2026-01")
            await s.commit(await s.create_table("srv", f"d{n}", 1.0), "srv", [{"t": "open"}], at=1.0,
                           period="2026-01")
    finally:
        for s in stores:
            await s.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(DISTINCT table_id) FROM table_events").fetchone()[0] >= 3


async def test_a_version_1_file_gets_its_events_numbered_from_1(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite3"
    with sqlite3.connect(path) as db:  # a file the first schema wrote: events numbered from 0
        db.executescript(f"BEGIN;\n{MIGRATIONS[0]}\nPRAGMA user_version = 1;\nCOMMIT;")
        db.execute("INSERT INTO tables (id, server, channel, created_at) VALUES (4, 'srv', 'c1', 1.0)")
        db.executemany("INSERT INTO table_events VALUES (4, ?, 1.0, ?)",
                       [(i, json.dumps({"t": "e", "i": i})) for i in range(3)])
    store = SqliteStore(str(path))
    await store.open()
    assert await store.schema_version() == len(MIGRATIONS) >= 2
    [table] = await store.load_open_tables()
    assert table.events == [{"t": "e", "i": i} for i in range(3)]
    await store.commit(4, "srv", [{"t": "e", "i": 3}], at=2.0, period="2026-01", expect_seq=3)
    await store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT seq FROM table_events ORDER BY seq").fetchall() == [(1,), (2,), (3,), (4,)]
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):  # the rebuilt log keeps its triggers
            db.execute("DELETE FROM table_events")


async def test_a_version_4_file_gets_each_stored_answer_its_server(tmp_path: Path) -> None:
    """Migration 5: requests name their server (``liars forget`` erases by it), filled in from their table."""
    path = tmp_path / "v4.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript("BEGIN;\n" + "\n".join(MIGRATIONS[:4]) + "\nPRAGMA user_version = 4;\nCOMMIT;")
        db.execute("INSERT INTO tables (id, server, channel, created_at) VALUES (7, 'slack:T1', 'c1', 1.0)")
        db.execute("INSERT INTO requests VALUES ('with-table', 7, '{\"text\": \"ok\"}', 1.0)")
        db.execute("INSERT INTO requests VALUES ('without', NULL, '{\"text\": \"config\"}', 1.0)")
    store = SqliteStore(str(path))
    await store.open()
    assert await store.schema_version() == len(MIGRATIONS) >= 5
    await store.close()
    with sqlite3.connect(path) as db:
        rows = dict(db.execute("SELECT request_id, server FROM requests").fetchall())
    assert rows == {"with-table": "slack:T1", "without": None}  # an older answer with no table names none


async def test_the_triggers_refuse_changes_to_the_ledger_and_the_log(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    store = SqliteStore(str(path))
    await store.open()
    table = await store.create_table("srv", "c1", 1.0)
    entries = [LedgerEntry("a", 2), LedgerEntry("b", -2)]
    await store.commit(table, "srv", [{"t": "act"}], at=1.0, period="2026-01",
                       rounds=[RoundRecord(1, {"r": 1}, {"o": 1}, entries)])
    await store.close()
    with sqlite3.connect(path) as db:
        for sql in ("UPDATE ledger SET units = 0", "DELETE FROM ledger", "UPDATE table_events SET event = '{}'",
                    "DELETE FROM table_events"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                db.execute(sql)
        assert db.execute("SELECT SUM(units), COUNT(*) FROM ledger").fetchone() == (0, 2)


async def test_one_failing_unit_in_a_group_commit_fails_alone(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    store = SqliteStore(str(path))
    await store.open()
    tables = [await store.create_table("srv", f"c{i}", 1.0) for i in range(6)]
    with sqlite3.connect(path) as db:  # a real failure for one unit's rows
        db.execute("""CREATE TRIGGER poison BEFORE INSERT ON table_events WHEN NEW.event LIKE '%poison%'
                      BEGIN SELECT RAISE(ABORT, 'poisoned'); END""")
    results = await asyncio.gather(
        *(store.commit(t, "srv", [{"t": "poison" if i == 3 else "ok", "i": i}], at=1.0, period="2026-01",
                       rounds=[RoundRecord(1, {}, {}, [LedgerEntry("a", 1), LedgerEntry("b", -1)])])
          for i, t in enumerate(tables)),
        return_exceptions=True,
    )
    assert [isinstance(r, sqlite3.IntegrityError) for r in results] == [False, False, False, True, False, False]
    stored = {t.table_id: t.events for t in await store.load_open_tables()}
    assert stored == {t: [{"t": "ok", "i": i}] for i, t in enumerate(tables) if i != 3}
    assert await store.balances("srv") == {"a": 5, "b": -5}  # the poisoned unit's ledger rows are gone too
    await store.close()
