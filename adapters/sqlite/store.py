"""SQLite storage (aiosqlite): the one home of SQLite's SQL.

WAL mode, foreign keys on, ``synchronous=FULL`` (a commit is durable when it returns), numbered
migrations applied by ``PRAGMA user_version`` (``schema.py``).  The ledger and the table event log are
append-only (triggers refuse UPDATE and DELETE).  Every write goes through one writer task that
**group-commits**: the units queued while a transaction runs are written together in the next one,
each unit all-or-nothing (a unit whose statements fail is retried alone and its caller gets the error;
the others commit).  Each table's events are numbered 1, 2, ... under a unique (table_id, seq) key, and
every commit first checks, inside its transaction, that the table has the number of events its caller
expects (else ``StaleTable``).  It reserves table ids itself so that a table's row is written with its
first events; another process writing the same file may take the same id first, which the table's first
commit reports as ``StaleTable`` (the caller opens it again under the next free id).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sqlite3
from collections.abc import AsyncIterator, Sequence
from typing import Any

import aiosqlite

from adapters.stores import DUMP_COLUMNS, HEADS_SQL
from adapters.streams import StreamBook
from bot.ports import RoundRecord, StaleTable, StoredTable, TableHead

from .batch import ORDER, Unit, translate, write_sync
from .schema import MIGRATIONS, migrate_sync, switch_to_wal

__all__ = ["MIGRATIONS", "SqliteStore"]

log = logging.getLogger(__name__)


class SqliteStore:
    def __init__(self, path: str | None = None, *, synchronous: str = "FULL", checkpoint_interval: float = 1.0) -> None:
        self.path = path or os.environ.get("LIARS_DB", "./liars.sqlite3")
        self.synchronous = synchronous
        self._db: aiosqlite.Connection | None = None
        self._queue: asyncio.Queue[Unit] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._book = StreamBook()  # each table's events known stored, and the reserved table ids
        self.checkpoint_interval = checkpoint_interval
        self._checkpoint_db: aiosqlite.Connection | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        self.transactions = 0  # how many write transactions ran (group commit makes this < units)
        self._next_table_id = 1

    # -- life cycle -------------------------------------------------------------------------------
    async def open(self) -> None:
        self._db = await aiosqlite.connect(self.path, isolation_level=None)
        db = self._db
        await db.execute("PRAGMA busy_timeout=5000")  # first: another process may be switching the file to WAL
        await switch_to_wal(db)
        await db.execute(f"PRAGMA synchronous={self.synchronous}")
        await db.execute("PRAGMA foreign_keys=ON")
        # Checkpoints run on their own connection and thread (below), never inside a player's commit.
        await db.execute("PRAGMA wal_autocheckpoint=0")
        await self._migrate()
        row = await self._one("SELECT COALESCE(MAX(id), 0) + 1 FROM tables")
        assert row is not None
        self._next_table_id = int(row[0])
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

    async def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        """A query's rows, read in ONE call on the connection's thread: a statement left half-read
        between two calls would hold an old snapshot that a write queued in between (on the same
        connection) could not upgrade once another process has committed ("database is locked")."""
        return list(await self.db.execute_fetchall(sql, args))

    async def _one(self, sql: str, args: Sequence[Any] = ()) -> Any:
        rows = await self._rows(sql, args)
        return rows[0] if rows else None

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise RuntimeError("the store is not open")
        return self._db

    async def _migrate(self) -> None:
        applied = await self.db._execute(migrate_sync, self.db._conn)  # type: ignore[no-untyped-call]
        for number in applied:
            log.info("applied migration %d", number)

    async def schema_version(self) -> int:
        row = await self._one("PRAGMA user_version")
        return int(row[0]) if row else 0

    async def ping(self) -> None:
        await self._one("SELECT 1")

    # -- tables and their events ------------------------------------------------------------------
    async def create_table(self, server: str, channel: str, at: float) -> int:
        """Reserve a table id; its row is written with the table's first events (one transaction)."""
        table_id = self._next_table_id
        self._next_table_id += 1
        self._book.reserve(table_id, (table_id, server, channel, at))
        return table_id

    async def _skip_taken_ids(self) -> None:
        """Another process writing the same file took table ids: reserve past them."""
        row = await self._one("SELECT COALESCE(MAX(id), 0) + 1 FROM tables")
        self._next_table_id = max(self._next_table_id, int(row[0]) if row else 1)

    async def load_open_tables(self) -> list[StoredTable]:
        sql = "SELECT id, server, channel, panels FROM tables WHERE status = 'open' ORDER BY id"
        rows = await self._rows(sql)
        return [await self._stored(*row) for row in rows]

    async def open_table_heads(self) -> list[TableHead]:
        return [TableHead(*row) for row in await self._rows(HEADS_SQL)]

    async def _stored(self, table_id: int, server: str, channel: str, panels: str) -> StoredTable:
        events = await self.table_events(table_id)
        return StoredTable(table_id, server, channel, events, json.loads(panels))

    async def open_table_at(self, server: str, channel: str) -> StoredTable | None:
        row = await self._one(
            "SELECT id, server, channel, panels FROM tables WHERE server = ? AND channel = ? AND status = 'open'",
            (server, channel),
        )
        return None if row is None else await self._stored(*row)

    async def table_events(self, table_id: int) -> list[dict[str, Any]]:
        return await self.events_since(table_id, 0)

    async def events_since(self, table_id: int, seq: int) -> list[dict[str, Any]]:
        rows = await self._rows(
            "SELECT event FROM table_events WHERE table_id = ? AND seq > ? ORDER BY seq", (table_id, seq)
        )
        events = [json.loads(r[0]) for r in rows]
        self._book.saw(table_id, seq + len(events))
        return events

    async def last_table(self, server: str, channel: str) -> int | None:
        row = await self._one("SELECT MAX(id) FROM tables WHERE server = ? AND channel = ?", (server, channel))
        return int(row[0]) if row and row[0] is not None else None

    async def table_panels(self, table_id: int) -> dict[str, str]:
        row = await self._one("SELECT panels FROM tables WHERE id = ?", (table_id,))
        return dict(json.loads(row[0])) if row else {}

    async def set_panel(self, table_id: int, panel: str, ref: str) -> None:
        await self._submit({"panel": [(panel, ref, table_id)]})

    async def _stored_seq(self, table_id: int) -> int:
        row = await self._one("SELECT COALESCE(MAX(seq), 0) FROM table_events WHERE table_id = ?", (table_id,))
        return int(row[0]) if row else 0

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
        expect_seq: int | None = None,
    ) -> None:
        pending = await self._book.begin(table_id, len(events), expect_seq, self._stored_seq)
        first = pending.first
        rows: dict[str, list[tuple[Any, ...]]] = {"expect": [(table_id, first)]}
        if pending.new_table is not None:
            rows["table"] = [pending.new_table]
        rows["event"] = [
            (table_id, first + i, at, json.dumps(ev, separators=(",", ":"))) for i, ev in enumerate(events, start=1)
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
            await self._submit(rows, round_rows, table_id=table_id, request_id=request[0] if request else None)
        except BaseException as exc:
            self._book.failed(pending, exc)  # nothing of the unit was stored
            if pending.new_table is not None and isinstance(exc, StaleTable):
                await self._skip_taken_ids()  # another process took this id: reserve past it next time
            raise

    async def _submit(
        self,
        rows: dict[str, list[tuple[Any, ...]]],
        rounds: list[tuple[tuple[Any, ...], list[tuple[Any, ...]]]] | None = None,
        *,
        table_id: int | None = None,
        request_id: str | None = None,
    ) -> None:
        if self._writer is None:
            raise RuntimeError("the store is not open")
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(Unit(rows, rounds or [], fut, table_id, request_id))
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
                            u.future.set_exception(translate(u, exc))
                    else:
                        if not u.future.done():
                            u.future.set_result(None)
            finally:
                for _ in batch:
                    self._queue.task_done()

    async def _write(self, batch: Sequence[Unit]) -> None:
        db = self.db
        merged: dict[str, list[tuple[Any, ...]]] = {kind: [] for kind in (*ORDER, "expect")}
        rounds: list[tuple[tuple[Any, ...], list[tuple[Any, ...]]]] = []
        for u in batch:
            for kind, rows in u.rows.items():
                merged[kind].extend(rows)
            rounds.extend(u.rounds)
        # The whole transaction runs as one call on aiosqlite's worker thread: under load the event
        # loop is busy, and a transaction that hopped back to the loop between statements would wait a
        # loop iteration per statement.  (aiosqlite's ``_execute`` is the documented-in-source hook for
        # running a function on the connection's thread; the pinned version is tested.)
        await db._execute(write_sync, db._conn, merged, rounds)  # type: ignore[no-untyped-call]
        self.transactions += 1

    # -- requests ---------------------------------------------------------------------------------
    async def get_request(self, request_id: str) -> dict[str, Any] | None:
        row = await self._one("SELECT reply FROM requests WHERE request_id = ?", (request_id,))
        return json.loads(row[0]) if row else None

    # -- servers ----------------------------------------------------------------------------------
    async def get_settings(self, server: str) -> dict[str, Any]:
        row = await self._one("SELECT settings FROM servers WHERE server = ?", (server,))
        result: dict[str, Any] = json.loads(row[0]) if row else {}
        return result

    async def set_settings(self, server: str, settings: dict[str, Any]) -> None:
        await self._submit({"settings": [(server, json.dumps(settings))]})

    async def names(self, server: str) -> dict[str, str]:
        return {p: n for p, n in await self._rows("SELECT player, name FROM players WHERE server = ?", (server,))}

    # -- the ledger -------------------------------------------------------------------------------
    async def balances(self, server: str, period: str | None = None) -> dict[str, int]:
        if period is None:
            sql, args = "SELECT player, SUM(units) FROM ledger WHERE server = ? GROUP BY player", (server,)
        else:
            sql = "SELECT player, SUM(units) FROM ledger WHERE server = ? AND period = ? GROUP BY player"
            args = (server, period)  # type: ignore[assignment]
        return {p: int(u) for p, u in await self._rows(sql, args)}

    async def periods(self, server: str) -> list[str]:
        rows = await self._rows("SELECT DISTINCT period FROM ledger WHERE server = ? ORDER BY period", (server,))
        return [r[0] for r in rows]

    async def all_servers(self) -> list[str]:
        return [r[0] for r in await self._rows("SELECT DISTINCT server FROM ledger ORDER BY server")]

    async def settle_period(self, server: str, period: str, by: str, at: float) -> bool:
        """Mark a period settled; False if it already was."""
        if period in await self.settled_periods(server):
            return False
        await self._submit({"settle": [(server, period, by, at)]})
        return True

    async def settled_periods(self, server: str) -> dict[str, str]:
        rows = await self._rows("SELECT period, settled_by FROM settlements WHERE server = ?", (server,))
        return {p: b for p, b in rows}

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
        rows = await self._rows(sql, args)
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

    # -- copying out (``liars migrate``) ----------------------------------------------------------
    async def dump(self, kind: str, chunk: int = 5000) -> AsyncIterator[list[tuple[Any, ...]]]:
        """Every row of one kind of ``DUMP_COLUMNS``, in key order, ``chunk`` rows at a time."""
        columns = DUMP_COLUMNS[kind]
        async with self.db.execute(f"SELECT {', '.join(columns)} FROM {kind} ORDER BY rowid") as cur:
            while rows := list(await cur.fetchmany(chunk)):
                yield [tuple(r) for r in rows]

    async def row_counts(self) -> dict[str, int]:
        counts = {}
        for kind in DUMP_COLUMNS:
            row = await self._one(f"SELECT COUNT(*) FROM {kind}")
            counts[kind] = int(row[0]) if row else 0
        return counts
