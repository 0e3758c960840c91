"""SQLite storage (aiosqlite): the one home of SQLite's SQL.

WAL mode, foreign keys on, ``synchronous=FULL`` (a commit is durable when it returns), numbered
migrations applied by ``PRAGMA user_version`` (``schema.py``).  The ledger and the table event log are
append-only (triggers refuse UPDATE and DELETE).  Every write goes through one writer task that
**group-commits** (:class:`~adapters.storebase.GroupWriter`, shared with the PostgreSQL store): the
units queued while a transaction runs are written together in the next one, each unit all-or-nothing.
Each table's events are numbered 1, 2, ... under a unique (table_id, seq) key, and every commit first
checks, inside its transaction, that the table has the number of events its caller expects (else
``StaleTable``) and, when it names one, that its server's settings are at the version it was built on
(else ``StaleSettings``).  It reserves table ids itself so that a table's row is written with its
first events; another process writing the same file may take the same id first, which the table's first
commit reports as ``StaleTable`` (the caller opens it again under the next free id).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sqlite3
import threading
from collections.abc import AsyncIterator, Sequence
from typing import Any

import aiosqlite

from adapters.storebase import DUMP_COLUMNS, Erase, StoreBase
from bot.background import cancel
from bot.ports import OpenTables, RoundRecord, StaleTable, StoredTable

from .batch import CHECKS, ORDER, Unit, next_id_sql, translate, write_sync
from .schema import MIGRATIONS, immediate, migrate_sync, switch_to_wal

__all__ = ["MIGRATIONS", "SqliteStore"]

log = logging.getLogger(__name__)

# the triggers that keep the ledger and the event log append-only (``schema.py``), lifted only to erase
_APPEND_ONLY = ("ledger_no_delete", "events_no_delete")
_TRIGGERS_SQL = "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?)"

_compact = json.JSONEncoder(separators=(",", ":")).encode


async def _connect(path: str) -> aiosqlite.Connection:
    """``aiosqlite.connect``; when the file cannot be opened, its worker thread has ended before the error is raised.

    aiosqlite 0.22 stops that thread after a failed connect with a future on this loop that it never awaits:
    if the loop closed before the thread answered (a process whose start-up fails, a test's loop), the thread
    raised "Event loop is closed" in its own traceback (omnilib/aiosqlite#389, not released).  The thread answers
    while this loop runs, so joining it here ends that race."""
    conn = aiosqlite.connect(path, isolation_level=None)
    try:
        return await conn
    except BaseException:
        thread = getattr(conn, "_thread", None)  # aiosqlite's worker (0.22: not public)
        if isinstance(thread, threading.Thread) and thread.is_alive():
            await asyncio.to_thread(thread.join, 5.0)
        raise


class SqliteStore(StoreBase[Unit]):
    def __init__(self, path: str | None = None, *, synchronous: str = "FULL", checkpoint_interval: float = 1.0) -> None:
        super().__init__("liars-sqlite-writer")
        self.path = path or os.environ.get("LIARS_DB", "").strip() or "./liars.sqlite3"  # (blank: unset)
        self.synchronous = synchronous
        self._db: aiosqlite.Connection | None = None
        self.checkpoint_interval = checkpoint_interval
        self._checkpoint_db: aiosqlite.Connection | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        self._next_table_id = 1

    # -- life cycle -------------------------------------------------------------------------------
    async def open(self) -> None:
        """Connect, switch to WAL, migrate.  One that fails partway is closed before the error goes on: its
        connection's thread would keep the process alive (``liars migrate --from notes.txt`` never exited)."""
        try:
            await self._open()
        except BaseException:
            with contextlib.suppress(Exception):
                await self.close()
            raise

    async def _open(self) -> None:
        self._db = await _connect(self.path)
        db = self._db
        await db.execute("PRAGMA busy_timeout=5000")  # first: another process may be switching the file to WAL
        await switch_to_wal(db)
        await db.execute(f"PRAGMA synchronous={self.synchronous}")
        await db.execute("PRAGMA foreign_keys=ON")
        # Checkpoints run on their own connection and thread (below), never inside a player's commit.
        await db.execute("PRAGMA wal_autocheckpoint=0")
        for number in await db._execute(migrate_sync, db._conn):  # type: ignore[no-untyped-call]
            log.info("applied migration %d", number)
        await self._skip_taken_ids()
        self._writer.start()
        self._checkpoint_db = await _connect(self.path)
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
        await cancel(self._checkpointer)
        self._checkpointer = None
        await self._writer.close()
        if self._checkpoint_db is not None:
            await self._checkpoint_db.close()
            self._checkpoint_db = None
        if self._db is not None:
            try:
                await self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:  # closed even when the file is no database (a failed open): its thread ends with it
                await self._db.close()
                self._db = None

    async def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        """A query's rows, read in ONE call on the connection's thread: a statement left half-read
        between two calls would hold an old snapshot that a write queued in between (on the same
        connection) could not upgrade once another process has committed ("database is locked")."""
        return list(await self.db.execute_fetchall(sql, args))

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise RuntimeError("the store is not open")
        return self._db

    async def schema_version(self) -> int:
        row = await self._one("PRAGMA user_version")
        return int(row[0]) if row else 0

    # -- tables -----------------------------------------------------------------------------------
    async def create_table(self, server: str, channel: str, at: float) -> int:
        """Reserve a table id; its row is written with the table's first events (one transaction)."""
        table_id = self._next_table_id
        self._next_table_id += 1
        self._book.reserve(table_id, (table_id, server, channel, at))
        return table_id

    async def _skip_taken_ids(self) -> None:
        """Reserve past the table ids taken (by another process writing the same file, too)."""
        row = await self._one(next_id_sql("tables"))
        self._next_table_id = max(self._next_table_id, int(row[0]) if row else 1)

    async def load_open_tables(self) -> list[StoredTable]:
        rows = await self._rows("SELECT id, server, channel, panels FROM tables WHERE status = 'open' ORDER BY id")
        return [StoredTable(t, s, c, await self.events_since(t, 0), json.loads(p)) for t, s, c, p in rows]

    # -- writing ----------------------------------------------------------------------------------
    def _commit_unit(self, table_id: int, server: str, first: int, new_table: tuple[Any, ...] | None,
                     events: Sequence[dict[str, Any]], *, at: float, period: str, rounds: Sequence[RoundRecord],
                     names: dict[str, str] | None, request: tuple[str, dict[str, Any]] | None, close: bool,
                     settings_version: int | None, panels: dict[str, str] | None) -> Unit:
        rows: dict[str, list[tuple[Any, ...]]] = {"expect": [(table_id, first)]}
        if new_table is not None:
            rows["table"] = [new_table]
        rows["event"] = [(table_id, first + i, at, _compact(ev)) for i, ev in enumerate(events, start=1)]
        if names:
            rows["player"] = [(server, p, n) for p, n in names.items()]
        if request is not None:
            rows["request"] = [(request[0], table_id, json.dumps(request[1]), at, server)]
        if close:
            rows["close"] = [(at, table_id)]
        if panels:
            rows["panel"] = [(name, ref, table_id) for name, ref in panels.items()]
        if settings_version is not None:
            rows["expect_settings"] = [(server, settings_version)]
        round_rows = [
            ((table_id, server, r.number, period, at, json.dumps(r.record), json.dumps(r.outcome)),
             [(server, period, e.player, e.units, at) for e in r.entries])
            for r in rounds
        ]
        return Unit(rows, round_rows, table_id, request[0] if request else None)

    def _other_unit(self, kind: str, rows: list[tuple[Any, ...]], request: tuple[Any, ...] | None = None) -> Unit:
        if request is not None:
            return Unit({kind: rows, "request": [request]}, [], None, request[0])
        return Unit({kind: rows}, [], None, rows[0][0] if kind == "request" else None)

    async def _write(self, batch: Sequence[Unit]) -> None:
        db = self.db
        merged: dict[str, list[tuple[Any, ...]]] = {kind: [] for kind in (*ORDER, *CHECKS)}
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

    async def _run(self, sql: str, args: Sequence[Any] = ()) -> int:
        """One statement in its own transaction (autocommit): one call on aiosqlite's thread, so it runs
        between two of the writer's batches, never inside one."""
        db = self.db
        count: int = await db._execute(_run_sync, db._conn, sql, tuple(args))  # type: ignore[no-untyped-call]
        return count

    async def erase_server(self, server: str) -> dict[str, int]:
        # One call on aiosqlite's thread, as ``_write`` runs a batch: no batch, install write or other
        # coroutine's read on this connection can run inside the transaction (and see a half-erased
        # server without its triggers).
        db = self.db
        result: dict[str, int] = await db._execute(_erase_sync, db._conn, server)  # type: ignore[no-untyped-call]
        return result

    async def _translate(self, unit: Unit, exc: Exception) -> BaseException:
        error = translate(unit, exc)
        if "table" in unit.rows and isinstance(error, StaleTable):
            await self._skip_taken_ids()  # another process took this table's id: reserve past it next time
        return error

    # -- copying out (``liars migrate``) ----------------------------------------------------------
    async def dump(self, kind: str, chunk: int = 5000) -> AsyncIterator[list[tuple[Any, ...]]]:
        """Every row of one kind of ``DUMP_COLUMNS``, in key order, ``chunk`` rows at a time."""
        columns = DUMP_COLUMNS[kind]
        async with self.db.execute(f"SELECT {', '.join(columns)} FROM {kind} ORDER BY rowid") as cur:
            while rows := list(await cur.fetchmany(chunk)):
                yield [tuple(r) for r in rows]

    async def id_floors(self) -> dict[str, int]:
        """The largest id each AUTOINCREMENT kind ever held (``sqlite_sequence``: an erased server's rows
        included), which a copy of this database must not hand out again."""
        rows = await self._rows("SELECT name, seq FROM sqlite_sequence")
        return {str(name): int(seq) for name, seq in rows}

    async def row_counts(self) -> dict[str, int]:
        counts = {}
        for kind in DUMP_COLUMNS:
            row = await self._one(f"SELECT COUNT(*) FROM {kind}")
            counts[kind] = int(row[0]) if row else 0
        return counts


def _run_sync(conn: sqlite3.Connection, sql: str, args: tuple[Any, ...]) -> int:
    return conn.execute(sql, args).rowcount


def _erase_sync(conn: sqlite3.Connection, server: str) -> dict[str, int]:
    """ONE write transaction (one call on aiosqlite's thread, so nothing else joins it): the append-only
    triggers are dropped, the server's rows deleted, the triggers re-created as they were."""
    with immediate(conn):
        [(open_tables,)] = conn.execute(Erase.OPEN, (server,)).fetchall()
        if open_tables:
            raise OpenTables(server, int(open_tables))
        triggers = [sql for (sql,) in conn.execute(_TRIGGERS_SQL, _APPEND_ONLY).fetchall()]
        for name in _APPEND_ONLY:
            conn.execute(f"DROP TRIGGER IF EXISTS {name}")
        erased = {table: int(conn.execute(delete, (server,) * delete.count("?")).rowcount)
                  for table, delete in Erase.DELETES}
        for sql in triggers:
            conn.execute(sql)
    return erased
