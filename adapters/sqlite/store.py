"""SQLite storage (aiosqlite): the one home of SQL.

WAL mode, foreign keys on, ``synchronous=FULL`` (a commit is durable when it returns), numbered
migrations applied by ``PRAGMA user_version``.  The ledger and the table event log are append-only
(triggers refuse UPDATE and DELETE).  Writes go through one writer task that **group-commits**: the
units queued while a transaction runs are written together in the next one, each unit all-or-nothing
(a unit whose statements fail is retried alone and its caller gets the error; the others commit).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
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


@dataclass
class _Unit:
    table_id: int
    server: str
    events: Sequence[dict[str, Any]]
    first_seq: int
    at: float
    period: str
    rounds: Sequence[RoundRecord]
    names: dict[str, str] | None
    request: tuple[str, dict[str, Any]] | None
    close: bool
    future: asyncio.Future[None]


class SqliteStore:
    def __init__(self, path: str | None = None, *, synchronous: str = "FULL") -> None:
        self.path = path or default_db_path()
        self.synchronous = synchronous
        self._db: aiosqlite.Connection | None = None
        self._queue: asyncio.Queue[_Unit] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._seq: dict[int, int] = {}
        self.transactions = 0  # how many write transactions ran (group commit makes this < units)

    # -- life cycle -------------------------------------------------------------------------------
    async def open(self) -> None:
        self._db = await aiosqlite.connect(self.path, isolation_level=None)
        db = self._db
        await db.execute("PRAGMA journal_mode=WAL")
        await db.execute(f"PRAGMA synchronous={self.synchronous}")
        await db.execute("PRAGMA foreign_keys=ON")
        await db.execute("PRAGMA busy_timeout=5000")
        await self._migrate()
        self._writer = asyncio.create_task(self._write_loop(), name="liars-sqlite-writer")

    async def close(self) -> None:
        if self._writer is not None:
            await self._queue.join()
            self._writer.cancel()
            try:
                await self._writer
            except asyncio.CancelledError:
                pass
            self._writer = None
        if self._db is not None:
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
        cur = await self.db.execute(
            "INSERT INTO tables (server, channel, created_at) VALUES (?, ?, ?)", (server, channel, at)
        )
        table_id = cur.lastrowid
        await cur.close()
        assert table_id is not None
        self._seq[table_id] = 0
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
        await self.db.execute(
            "UPDATE tables SET panels = json_set(panels, '$.' || ?, ?) WHERE id = ?", (panel, ref, table_id)
        )

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
        if self._writer is None:
            raise RuntimeError("the store is not open")
        first = self._seq.get(table_id, 0)
        self._seq[table_id] = first + len(events)
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        await self._queue.put(_Unit(table_id, server, events, first, at, period, rounds, names, request, close, fut))
        try:
            await fut
        except BaseException:
            self._seq[table_id] = first  # nothing of the unit was stored
            raise

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
        await db.execute("BEGIN IMMEDIATE")
        try:
            event_rows = [
                (u.table_id, u.first_seq + i, u.at, json.dumps(ev, separators=(",", ":")))
                for u in batch
                for i, ev in enumerate(u.events)
            ]
            if event_rows:
                await db.executemany(
                    "INSERT INTO table_events (table_id, seq, at, event) VALUES (?, ?, ?, ?)", event_rows
                )
            ledger_rows = []
            for u in batch:
                for r in u.rounds:
                    cur = await db.execute(
                        "INSERT INTO rounds (table_id, server, number, period, at, record, outcome) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (u.table_id, u.server, r.number, u.period, u.at, json.dumps(r.record), json.dumps(r.outcome)),
                    )
                    round_id = cur.lastrowid
                    await cur.close()
                    ledger_rows.extend((u.server, u.period, e.player, e.units, round_id, u.at) for e in r.entries)
            if ledger_rows:
                await db.executemany(
                    "INSERT INTO ledger (server, period, player, units, round_id, at) VALUES (?, ?, ?, ?, ?, ?)",
                    ledger_rows,
                )
            name_rows = [(u.server, p, n) for u in batch if u.names for p, n in u.names.items()]
            if name_rows:
                await db.executemany(
                    "INSERT INTO players (server, player, name) VALUES (?, ?, ?) "
                    "ON CONFLICT (server, player) DO UPDATE SET name = excluded.name",
                    name_rows,
                )
            request_rows = [(u.request[0], u.table_id, json.dumps(u.request[1]), u.at) for u in batch if u.request]
            if request_rows:
                await db.executemany(
                    "INSERT INTO requests (request_id, table_id, reply, at) VALUES (?, ?, ?, ?)", request_rows
                )
            for u in batch:
                if u.close:
                    await db.execute(
                        "UPDATE tables SET status = 'closed', closed_at = ? WHERE id = ?", (u.at, u.table_id)
                    )
            await db.execute("COMMIT")
            self.transactions += 1
        except BaseException:
            await db.execute("ROLLBACK")
            raise

    # -- requests ---------------------------------------------------------------------------------
    async def get_request(self, request_id: str) -> dict[str, Any] | None:
        async with self.db.execute("SELECT reply FROM requests WHERE request_id = ?", (request_id,)) as cur:
            row = await cur.fetchone()
        return json.loads(row[0]) if row else None

    async def save_request(self, request_id: str, table_id: int | None, reply: dict[str, Any], at: float) -> None:
        await self.db.execute(
            "INSERT OR IGNORE INTO requests (request_id, table_id, reply, at) VALUES (?, ?, ?, ?)",
            (request_id, table_id, json.dumps(reply), at),
        )

    # -- servers ----------------------------------------------------------------------------------
    async def get_settings(self, server: str) -> dict[str, Any]:
        async with self.db.execute("SELECT settings FROM servers WHERE server = ?", (server,)) as cur:
            row = await cur.fetchone()
        result: dict[str, Any] = json.loads(row[0]) if row else {}
        return result

    async def set_settings(self, server: str, settings: dict[str, Any]) -> None:
        await self.db.execute(
            "INSERT INTO servers (server, settings) VALUES (?, ?) "
            "ON CONFLICT (server) DO UPDATE SET settings = excluded.settings",
            (server, json.dumps(settings)),
        )

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
        cur = await self.db.execute(
            "INSERT OR IGNORE INTO settlements (server, period, settled_by, at) VALUES (?, ?, ?, ?)",
            (server, period, by, at),
        )
        changed = cur.rowcount > 0
        await cur.close()
        return changed

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

    async def ledger_rows(self, server: str) -> list[tuple[str, str, int, int]]:
        """(period, player, units, round_id) in order — for audits and tests."""
        async with self.db.execute(
            "SELECT period, player, units, round_id FROM ledger WHERE server = ? ORDER BY id", (server,)
        ) as cur:
            return [(r[0], r[1], int(r[2]), int(r[3])) for r in await cur.fetchall()]
