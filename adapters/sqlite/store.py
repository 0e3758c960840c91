"""SQLite storage (aiosqlite): the one home of SQL.

WAL mode, foreign keys on, ``synchronous=FULL`` (a commit is durable when it returns), numbered
migrations applied by ``PRAGMA user_version``.  The ledger and the table event log are append-only
(triggers refuse UPDATE and DELETE).  Every write goes through one writer task that **group-commits**:
the units queued while a transaction runs are written together in the next one, each unit
all-or-nothing (a unit whose statements fail is retried alone and its caller gets the error; the
others commit).  The store must be its database file's only writer (one bot process per file): it
assigns table and round ids itself so that a batch costs a handful of statements.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import aiosqlite

from bot.ports import RoundRecord, StoredTable

__all__ = ["SqliteStore", "default_db_path"]

log = logging.getLogger(__name__)

MIGRATIONS: list[str] = [
    # 1: the first schema
    """
    CREATE TABLE servers (
        server TEXT PRIMARY KEY,
        settings TEXT NOT NULL DEFAULT '{}'
    );
    CREATE TABLE tables (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        server TEXT NOT NULL,
        channel TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
        created_at REAL NOT NULL,
        closed_at REAL,
        panels TEXT NOT NULL DEFAULT '{}'
    );
    CREATE UNIQUE INDEX tables_one_open_per_channel ON tables(server, channel) WHERE status = 'open';
    CREATE TABLE table_events (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        seq INTEGER NOT NULL,
        at REAL NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (table_id, seq)
    );
    CREATE TABLE rounds (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        table_id INTEGER NOT NULL REFERENCES tables(id),
        server TEXT NOT NULL,
        number INTEGER NOT NULL,
        period TEXT NOT NULL,
        at REAL NOT NULL,
        record TEXT NOT NULL,
        outcome TEXT NOT NULL,
        UNIQUE (table_id, number)
    );
    CREATE INDEX rounds_by_server ON rounds(server, id);
    CREATE TABLE ledger (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        server TEXT NOT NULL,
        period TEXT NOT NULL,
        player TEXT NOT NULL,
        units INTEGER NOT NULL,
        round_id INTEGER NOT NULL REFERENCES rounds(id),
        at REAL NOT NULL
    );
    CREATE INDEX ledger_by_period ON ledger(server, period, player);
    CREATE TABLE players (
        server TEXT NOT NULL,
        player TEXT NOT NULL,
        name TEXT NOT NULL,
        PRIMARY KEY (server, player)
    );
    CREATE TABLE requests (
        request_id TEXT PRIMARY KEY,
        table_id INTEGER,
        reply TEXT NOT NULL,
        at REAL NOT NULL
    );
    CREATE TABLE settlements (
        server TEXT NOT NULL,
        period TEXT NOT NULL,
        settled_by TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (server, period)
    );
    CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
        BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
    CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
        BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
    CREATE TRIGGER events_no_update BEFORE UPDATE ON table_events
        BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
    CREATE TRIGGER events_no_delete BEFORE DELETE ON table_events
        BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
    """,
]


def default_db_path() -> str:
    return os.environ.get("LIARS_DB", "./liars.sqlite3")


# Every write is one of these statements.  A batch runs them in this order, each ONCE over all the
# batch's rows — the rows travel as one JSON array read by ``json_each`` — so a transaction is a
# handful of statements whatever its size, and the worker thread hands the GIL back and forth a
# handful of times rather than once per row.  The order satisfies the foreign keys: a table's row
# comes before its events, a round before its ledger entries.
_INSERTS: dict[str, tuple[str, int, str]] = {
    # kind: (table and columns, number of columns, conflict clause)
    "table": ("tables (id, server, channel, created_at)", 4, ""),
    "event": ("table_events (table_id, seq, at, event)", 4, ""),
    "round": ("rounds (id, table_id, server, number, period, at, record, outcome)", 8, ""),
    "ledger": ("ledger (server, period, player, units, round_id, at)", 6, ""),
    "player": ("players (server, player, name)", 3, "ON CONFLICT (server, player) DO UPDATE SET name = excluded.name"),
    "request": ("requests (request_id, table_id, reply, at)", 4, "ON CONFLICT (request_id) DO NOTHING"),
    "settings": ("servers (server, settings)", 2, "ON CONFLICT (server) DO UPDATE SET settings = excluded.settings"),
    "settle": ("settlements (server, period, settled_by, at)", 4, "ON CONFLICT (server, period) DO NOTHING"),
}
_SQL: dict[str, str] = {
    kind: f"INSERT INTO {target} SELECT "
    + ", ".join(f"json_extract(value, '$[{i}]')" for i in range(ncols))
    + f" FROM json_each(?) WHERE true {conflict}"
    for kind, (target, ncols, conflict) in _INSERTS.items()
}
_UPDATES: dict[str, str] = {
    "close": "UPDATE tables SET status = 'closed', closed_at = ? WHERE id = ?",
    "panel": "UPDATE tables SET panels = json_set(panels, '$.' || ?, ?) WHERE id = ?",
}
_ORDER = ("table", "event", "round", "ledger", "player", "request", "close", "panel", "settings", "settle")


@dataclass
class _Unit:
    """One caller's writes: all stored, or none."""

    rows: dict[str, list[tuple[Any, ...]]]
    rounds: list[tuple[tuple[Any, ...], list[tuple[Any, ...]]]]  # (round row without id, ledger rows without id)
    future: asyncio.Future[None]


def _write_sync(conn: sqlite3.Connection, merged: dict[str, list[tuple[Any, ...]]]) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        for kind in _ORDER:
            rows = merged[kind]
            if not rows:
                continue
            if kind in _UPDATES:
                conn.executemany(_UPDATES[kind], rows)
            else:
                conn.execute(_SQL[kind], (json.dumps(rows, separators=(",", ":")),))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


class SqliteStore:
    def __init__(self, path: str | None = None, *, synchronous: str = "FULL", checkpoint_interval: float = 1.0) -> None:
        self.path = path or default_db_path()
        self.synchronous = synchronous
        self._db: aiosqlite.Connection | None = None
        self._queue: asyncio.Queue[_Unit] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._seq: dict[int, int] = {}
        self.checkpoint_interval = checkpoint_interval
        self._checkpoint_db: aiosqlite.Connection | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        self.transactions = 0  # how many write transactions ran (group commit makes this < units)
        self._next_round_id = 1
        self._next_table_id = 1
        self._new_tables: dict[int, tuple[Any, ...]] = {}  # reserved ids whose row is not yet written

    # -- life cycle -------------------------------------------------------------------------------
    async def open(self) -> None:
        self._db = await aiosqlite.connect(self.path, isolation_level=None)
        db = self._db
        await db.execute("PRAGMA journal_mode=WAL")
        await db.execute(f"PRAGMA synchronous={self.synchronous}")
        await db.execute("PRAGMA foreign_keys=ON")
        await db.execute("PRAGMA busy_timeout=5000")
        # Checkpoints run on their own connection and thread (below), never inside a player's commit.
        await db.execute("PRAGMA wal_autocheckpoint=0")
        await self._migrate()
        async with db.execute(
            "SELECT (SELECT COALESCE(MAX(id), 0) + 1 FROM rounds), (SELECT COALESCE(MAX(id), 0) + 1 FROM tables)"
        ) as cur:
            row = await cur.fetchone()
        assert row is not None
        self._next_round_id, self._next_table_id = int(row[0]), int(row[1])
        self._writer = asyncio.create_task(self._write_loop(), name="liars-sqlite-writer")
        self._checkpoint_db = await aiosqlite.connect(self.path, isolation_level=None)
        await self._checkpoint_db.execute("PRAGMA busy_timeout=5000")
        self._checkpointer = asyncio.create_task(self._checkpoint_loop(), name="liars-sqlite-checkpoint")

    async def _checkpoint_loop(self) -> None:
        """Copy the WAL back into the database every ``checkpoint_interval`` seconds.

        A PASSIVE checkpoint neither waits for nor blocks the writer, so its fsync of the database
        file never lands inside a commit that a player is waiting for (with SQLite's automatic
        checkpoints, one commit in a thousand pages would).
        """
        assert self._checkpoint_db is not None
        while True:
            await asyncio.sleep(self.checkpoint_interval)
            try:
                await self._checkpoint_db.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error as exc:  # pragma: no cover - busy or I/O trouble: try again later
                log.warning("WAL checkpoint failed: %s", exc)

    async def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.cancel()
            try:
                await self._checkpointer
            except asyncio.CancelledError:
                pass
            self._checkpointer = None
        if self._writer is not None:
            await self._queue.join()
            self._writer.cancel()
            try:
                await self._writer
            except asyncio.CancelledError:
                pass
            self._writer = None
        if self._checkpoint_db is not None:
            await self._checkpoint_db.close()
            self._checkpoint_db = None
        if self._db is not None:
            await self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            await self._db.close()
            self._db = None

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise RuntimeError("the store is not open")
        return self._db

    async def _migrate(self) -> None:
        async with self.db.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        version = int(row[0]) if row else 0
        for number, script in enumerate(MIGRATIONS, start=1):
            if number <= version:
                continue
            # executescript commits first; the version bump is part of the same script.
            await self.db.executescript(f"BEGIN;\n{script}\nPRAGMA user_version = {number};\nCOMMIT;")
            log.info("applied migration %d", number)

    async def schema_version(self) -> int:
        async with self.db.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    # -- tables and their events ------------------------------------------------------------------
    async def create_table(self, server: str, channel: str, at: float) -> int:
        """Reserve a table id; its row is written with the table's first events (one transaction)."""
        table_id = self._next_table_id
        self._next_table_id += 1
        self._seq[table_id] = 0
        self._new_tables[table_id] = (table_id, server, channel, at)
        return table_id

    async def load_open_tables(self) -> list[StoredTable]:
        out = []
        sql = "SELECT id, server, channel, panels FROM tables WHERE status = 'open' ORDER BY id"
        async with self.db.execute(sql) as cur:
            rows = list(await cur.fetchall())
        for table_id, server, channel, panels in rows:
            events = await self.table_events(table_id)
            self._seq[table_id] = len(events)
            out.append(StoredTable(table_id, server, channel, events, json.loads(panels)))
        return out

    async def table_events(self, table_id: int) -> list[dict[str, Any]]:
        async with self.db.execute(
            "SELECT event FROM table_events WHERE table_id = ? ORDER BY seq", (table_id,)
        ) as cur:
            return [json.loads(r[0]) for r in await cur.fetchall()]

    async def last_table(self, server: str, channel: str) -> int | None:
        async with self.db.execute(
            "SELECT MAX(id) FROM tables WHERE server = ? AND channel = ?", (server, channel)
        ) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row and row[0] is not None else None

    async def set_panel(self, table_id: int, panel: str, ref: str) -> None:
        await self._submit({"panel": [(panel, ref, table_id)]})

    async def commit(
        self,
        table_id: int,
        server: str,
        events: Sequence[dict[str, Any]],
        *,
        at: float,
        period: str,
        rounds: Sequence[RoundRecord] = (),
        names: dict[str, str] | None = None,
        request: tuple[str, dict[str, Any]] | None = None,
        close: bool = False,
    ) -> None:
        first = self._seq.get(table_id, 0)
        self._seq[table_id] = first + len(events)
        rows: dict[str, list[tuple[Any, ...]]] = {}
        new_table = self._new_tables.pop(table_id, None)
        if new_table is not None:
            rows["table"] = [new_table]
        rows["event"] = [
            (table_id, first + i, at, json.dumps(ev, separators=(",", ":"))) for i, ev in enumerate(events)
        ]
        if names:
            rows["player"] = [(server, p, n) for p, n in names.items()]
        if request is not None:
            rows["request"] = [(request[0], table_id, json.dumps(request[1]), at)]
        if close:
            rows["close"] = [(at, table_id)]
        round_rows = [
            (
                (table_id, server, r.number, period, at, json.dumps(r.record), json.dumps(r.outcome)),
                [(server, period, e.player, e.units, at) for e in r.entries],
            )
            for r in rounds
        ]
        try:
            await self._submit(rows, round_rows)
        except BaseException:
            self._seq[table_id] = first  # nothing of the unit was stored
            if new_table is not None:
                self._new_tables[table_id] = new_table
            raise

    async def _submit(
        self,
        rows: dict[str, list[tuple[Any, ...]]],
        rounds: list[tuple[tuple[Any, ...], list[tuple[Any, ...]]]] | None = None,
    ) -> None:
        if self._writer is None:
            raise RuntimeError("the store is not open")
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Unit(rows, rounds or [], fut))
        await fut

    async def _write_loop(self) -> None:
        while True:
            unit = await self._queue.get()
            batch = [unit]
            while not self._queue.empty():
                batch.append(self._queue.get_nowait())
            try:
                await self._write(batch)
                for u in batch:
                    if not u.future.done():
                        u.future.set_result(None)
            except Exception:
                # One unit spoiled the batch: write them one by one so only that one fails.
                for u in batch:
                    try:
                        await self._write([u])
                    except Exception as exc:
                        if not u.future.done():
                            u.future.set_exception(exc)
                    else:
                        if not u.future.done():
                            u.future.set_result(None)
            finally:
                for _ in batch:
                    self._queue.task_done()

    async def _write(self, batch: Sequence[_Unit]) -> None:
        db = self.db
        merged: dict[str, list[tuple[Any, ...]]] = {kind: [] for kind in _ORDER}
        next_id = self._next_round_id
        for u in batch:
            for kind, rows in u.rows.items():
                merged[kind].extend(rows)
            # Round ids are assigned here: this store is its database's one writer.
            for round_row, ledger in u.rounds:
                merged["round"].append((next_id, *round_row))
                merged["ledger"].extend((*e[:4], next_id, e[4]) for e in ledger)
                next_id += 1
        # The whole transaction runs as one call on aiosqlite's worker thread: under load the event
        # loop is busy, and a transaction that hopped back to the loop between statements would wait a
        # loop iteration per statement.  (aiosqlite's ``_execute`` is the documented-in-source hook for
        # running a function on the connection's thread; the pinned version is tested.)
        await db._execute(_write_sync, db._conn, merged)  # type: ignore[no-untyped-call]
        self._next_round_id = next_id
        self.transactions += 1

    # -- requests ---------------------------------------------------------------------------------
    async def get_request(self, request_id: str) -> dict[str, Any] | None:
        async with self.db.execute("SELECT reply FROM requests WHERE request_id = ?", (request_id,)) as cur:
            row = await cur.fetchone()
        return json.loads(row[0]) if row else None

    # -- servers ----------------------------------------------------------------------------------
    async def get_settings(self, server: str) -> dict[str, Any]:
        async with self.db.execute("SELECT settings FROM servers WHERE server = ?", (server,)) as cur:
            row = await cur.fetchone()
        result: dict[str, Any] = json.loads(row[0]) if row else {}
        return result

    async def set_settings(self, server: str, settings: dict[str, Any]) -> None:
        await self._submit({"settings": [(server, json.dumps(settings))]})

    async def names(self, server: str) -> dict[str, str]:
        async with self.db.execute("SELECT player, name FROM players WHERE server = ?", (server,)) as cur:
            return {p: n for p, n in await cur.fetchall()}

    # -- the ledger -------------------------------------------------------------------------------
    async def balances(self, server: str, period: str | None = None) -> dict[str, int]:
        if period is None:
            sql, args = "SELECT player, SUM(units) FROM ledger WHERE server = ? GROUP BY player", (server,)
        else:
            sql = "SELECT player, SUM(units) FROM ledger WHERE server = ? AND period = ? GROUP BY player"
            args = (server, period)  # type: ignore[assignment]
        async with self.db.execute(sql, args) as cur:
            return {p: int(u) for p, u in await cur.fetchall()}

    async def periods(self, server: str) -> list[str]:
        async with self.db.execute(
            "SELECT DISTINCT period FROM ledger WHERE server = ? ORDER BY period", (server,)
        ) as cur:
            return [r[0] for r in await cur.fetchall()]

    async def all_servers(self) -> list[str]:
        async with self.db.execute("SELECT DISTINCT server FROM ledger ORDER BY server") as cur:
            return [r[0] for r in await cur.fetchall()]

    async def settle_period(self, server: str, period: str, by: str, at: float) -> bool:
        """Mark a period settled; False if it already was."""
        if period in await self.settled_periods(server):
            return False
        await self._submit({"settle": [(server, period, by, at)]})
        return True

    async def settled_periods(self, server: str) -> dict[str, str]:
        async with self.db.execute(
            "SELECT period, settled_by FROM settlements WHERE server = ?", (server,)
        ) as cur:
            return {p: b for p, b in await cur.fetchall()}

    async def rounds(
        self, server: str, *, table_id: int | None = None, limit: int | None = None
    ) -> list[dict[str, Any]]:
        sql = "SELECT id, table_id, number, period, at, outcome, record FROM rounds WHERE server = ?"
        args: list[Any] = [server]
        if table_id is not None:
            sql += " AND table_id = ?"
            args.append(table_id)
        sql += " ORDER BY id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        async with self.db.execute(sql, args) as cur:
            rows = await cur.fetchall()
        return [
            {
                "id": r[0],
                "table_id": r[1],
                "number": r[2],
                "period": r[3],
                "at": r[4],
                "outcome": json.loads(r[5]),
                "record": json.loads(r[6]),
            }
            for r in rows
        ]
