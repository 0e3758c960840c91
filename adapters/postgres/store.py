"""PostgreSQL storage (asyncpg): the same Store port as the SQLite store, safe for several processes.

Writes go through one writer task per process that **group-commits**, the SQLite store's
(:class:`~adapters.storebase.GroupWriter`): the units queued while a write runs are written together
by the next one, as ONE statement — data-modifying
``WITH`` parts, each inserting a whole column-wise batch through ``unnest`` — so a batch is one round
trip and one transaction whatever its size, and each statement text is prepared once per connection.
If a batch fails, its units are written one by one so that only the failing one fails.

Across processes: table and round ids come from the database's identity sequences; each table's
events are numbered under a unique (table_id, seq) key and every unit checks, in its statement, that
its table has the number of events the caller expects (``StaleTable`` otherwise, also when two
commits race past the check: the key refuses the second); a request id is the requests' primary key
(``DuplicateRequest``).  Reads use the connection pool directly; the reads both stores share
(:class:`~adapters.storebase.Queries`) are written with ``?`` and numbered here.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import asyncpg

from adapters.storebase import DUMP_COLUMNS, Erase, StoreBase, numbered, rowcount
from bot.ports import (
    CommitUncertain,
    DuplicateRequest,
    OpenTables,
    PeriodSettled,
    RoundRecord,
    StaleSettings,
    StaleTable,
    StoredTable,
)

from .batch import Batch, Unit, statement
from .schema import MIGRATIONS, STALE_SETTINGS_SQLSTATE, STALE_SQLSTATE

__all__ = ["PostgresStore"]

log = logging.getLogger(__name__)

# the row triggers that keep the ledger and the event log append-only (``schema.py``), lifted only to erase
_APPEND_ONLY = (("ledger", "ledger_append_only"), ("table_events", "events_append_only"))
_ERASE_TRIES = 200  # an erase waits for a moment with no commit under way (a few seconds at most)
_MIGRATION_LOCK = 0x6C696172  # pg_advisory_xact_lock key: one process migrates at a time
# The longest one operation waits on its connection before the connection is cut (terminated).  A connection can go
# silent without a reset (a partition, a failover, the database host gone): without a deadline the one writer task
# waited on it, and every later commit of the process queued behind it, for some 15 minutes.
OPERATION_SECONDS = 10.0
SLOW_SECONDS = 300.0  # migrating, erasing a server, loading every open table at start-up, counting rows


_dumps = json.JSONEncoder(separators=(",", ":")).encode
"""``json.dumps(value, separators=(",", ":"))``, without building an encoder per call."""


def _server_deadline(seconds: float | None) -> str:
    """PostgreSQL's ``statement_timeout`` (milliseconds; 0: none) for a client deadline of ``seconds``: a tenth
    sooner, so that the server gives a slow statement up (and rolls it back) before its connection is cut."""
    return "0" if seconds is None else str(max(1, int(seconds * 900)))


def _lost(exc: BaseException) -> bool:
    """Whether an operation failed on its connection (cut at its deadline, closed under it): the database may have
    done what was sent, its answer lost on the way back."""
    return isinstance(exc, (TimeoutError, OSError, asyncpg.PostgresConnectionError, asyncpg.InterfaceError))


async def _keep_session(conn: asyncpg.Connection) -> None:
    """What a connection released to the pool needs undone besides what asyncpg always does (roll back
    a transaction left open): nothing.  The store leaves no session state (its own deadlines' SET is reset, or its
    connection cut, before it goes back; no other SET, LISTEN, cursor held
    outside a transaction, or session advisory lock), so asyncpg's default reset query, one more round
    trip after every write batch, is not sent."""


class PostgresStore(StoreBase[Unit]):
    def __init__(self, url: str, *, pool_size: int = 4) -> None:
        super().__init__("liars-postgres-writer")
        self.url = url
        self.pool_size = max(2, pool_size)
        self._pool: asyncpg.Pool | None = None

    # -- life cycle -------------------------------------------------------------------------------
    async def open(self) -> None:
        # the server gives up a statement before the deadline cuts its connection (a database slow but answering
        # would otherwise run a cut statement on and commit it after the commit was said lost)
        self._pool = await asyncpg.create_pool(
            self.url, min_size=2, max_size=self.pool_size,
            server_settings={"application_name": "liars", "statement_timeout": _server_deadline(OPERATION_SECONDS)},
            reset=_keep_session,
        )
        await self._migrate()
        self._writer.start()

    async def close(self) -> None:
        await self._writer.close()
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    @property
    def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise RuntimeError("the store is not open")
        return self._pool

    @contextlib.asynccontextmanager
    async def _connection(self, seconds: float | None = None, *, unbounded: bool = False) -> AsyncIterator[Any]:
        """A pooled connection for one operation, cut if the operation is not done within ``seconds`` (default
        :data:`OPERATION_SECONDS`; ``unbounded``: no deadline): terminated, so that what waits on it fails at once
        (a cancelled query would wait on a peer that may be gone, and so would a transaction's rollback) and the
        pool connects afresh.  A connection whose operation is cancelled (a readiness probe's deadline, a stop) is
        terminated too: its state is unknown."""
        pool = self.pool
        seconds = None if unbounded else OPERATION_SECONDS if seconds is None else seconds
        conn = await pool.acquire(timeout=seconds)
        cut = False
        own = seconds != OPERATION_SECONDS  # a deadline of its own: the server's is set to match, then reset

        def expire() -> None:
            nonlocal cut
            cut = True
            conn.terminate()

        watchdog = None if seconds is None else asyncio.get_running_loop().call_later(seconds, expire)
        try:
            if own:
                await conn.execute(f"SET statement_timeout = {_server_deadline(seconds)}")
            yield conn
        except asyncio.CancelledError:
            conn.terminate()
            raise
        except Exception as exc:
            if cut:
                raise TimeoutError(f"PostgreSQL gave no answer within {seconds:g} s: its connection was cut") from exc
            raise
        finally:
            try:
                if own and not conn.is_closed():
                    await conn.execute("RESET statement_timeout")  # (the pool's next user has the usual deadline)
            except Exception:  # (a connection that cannot be reset is not given back as it is)
                conn.terminate()
            finally:
                if watchdog is not None:
                    watchdog.cancel()
                await pool.release(conn)

    async def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        async with self._connection() as conn:
            return list(await conn.fetch(numbered(sql), *args))

    async def _run(self, sql: str, args: Sequence[Any] = ()) -> int:
        async with self._connection() as conn:
            return rowcount(await conn.execute(numbered(sql), *args))  # status text such as "DELETE 1"

    async def erase_server(self, server: str) -> dict[str, int]:
        """ONE transaction: every table it touches locked at once, the append-only triggers disabled, the
        server's rows deleted, the triggers enabled again.

        The locks are taken all together with NOWAIT, and the whole transaction retried while a commit
        holds one: an erase that waited holding some (as ALTER TABLE alone does) could close a cycle
        with a live commit, whose one statement locks its tables in its own order — a deadlock that
        PostgreSQL would break by aborting either side."""
        for attempt in range(_ERASE_TRIES):
            try:
                return await self._erase(server)
            except asyncpg.exceptions.LockNotAvailableError:
                if attempt == _ERASE_TRIES - 1:
                    raise
                await asyncio.sleep(min(0.01 * (attempt + 1), 0.2))
        raise AssertionError("unreachable")

    async def _erase(self, server: str) -> dict[str, int]:
        async with self._connection(SLOW_SECONDS) as conn, conn.transaction():
            tables = ", ".join(table for table, _ in Erase.DELETES)
            await conn.execute(f"LOCK TABLE {tables} IN SHARE ROW EXCLUSIVE MODE NOWAIT")
            open_tables = await conn.fetchval(numbered(Erase.OPEN), server)
            if open_tables:
                raise OpenTables(server, int(open_tables))
            for table, trigger in _APPEND_ONLY:
                await conn.execute(f"ALTER TABLE {table} DISABLE TRIGGER {trigger}")
            erased = {table: rowcount(await conn.execute(numbered(delete), *[server] * delete.count("?")))
                      for table, delete in Erase.DELETES}
            for table, trigger in _APPEND_ONLY:
                await conn.execute(f"ALTER TABLE {table} ENABLE TRIGGER {trigger}")
        return erased

    async def _migrate(self) -> None:
        async with self._connection(SLOW_SECONDS) as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", _MIGRATION_LOCK)
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
            )
            done = {r[0] for r in await conn.fetch("SELECT version FROM schema_migrations")}
            for number, script in enumerate(MIGRATIONS, start=1):
                if number not in done:
                    await conn.execute(script)
                    await conn.execute("INSERT INTO schema_migrations (version) VALUES ($1)", number)
                    log.info("applied migration %d", number)

    async def schema_version(self) -> int:
        async with self._connection() as conn:
            return int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"))

    async def ping(self) -> None:
        async with self._connection() as conn:
            await conn.fetchval("SELECT 1")

    # -- tables -----------------------------------------------------------------------------------
    async def create_table(self, server: str, channel: str, at: float) -> int:
        """Reserve a table id; its row is written with the table's first events (one transaction)."""
        async with self._connection() as conn:
            table_id = int(await conn.fetchval("SELECT nextval(pg_get_serial_sequence('tables', 'id'))"))
        self._book.reserve(table_id, (table_id, server, channel, float(at)))
        return table_id

    async def load_open_tables(self) -> list[StoredTable]:
        async with self._connection(SLOW_SECONDS) as conn, conn.transaction(isolation="repeatable_read",
                                                                             readonly=True):
            tables = await conn.fetch(
                "SELECT id, server, channel, panels FROM tables WHERE status = 'open' ORDER BY id"
            )
            rows = await conn.fetch(
                "SELECT e.table_id, e.event FROM table_events e JOIN tables t ON t.id = e.table_id"
                " WHERE t.status = 'open' ORDER BY e.table_id, e.seq"
            )
        events: dict[int, list[dict[str, Any]]] = {}
        for table_id, event in rows:
            events.setdefault(table_id, []).append(json.loads(event))
        out = []
        for table_id, server, channel, panels in tables:
            evs = events.get(table_id, [])
            self._book.saw(table_id, len(evs))
            out.append(StoredTable(table_id, server, channel, evs, json.loads(panels)))
        return out

    # -- writing ----------------------------------------------------------------------------------
    def _commit_unit(self, table_id: int, server: str, first: int, new_table: tuple[Any, ...] | None,
                     events: Sequence[dict[str, Any]], *, at: float, period: str, rounds: Sequence[RoundRecord],
                     names: dict[str, str] | None, request: tuple[str, dict[str, Any]] | None, close: bool,
                     settings_version: int | None, panels: dict[str, str] | None) -> Unit:
        unit = Unit(table_id=table_id, request_id=request[0] if request else None, new_table=new_table,
                    panels={table_id: panels} if panels else None)
        unit.expect = (table_id, first)
        unit.events = [(table_id, first + i, at, _dumps(ev)) for i, ev in enumerate(events, start=1)]
        if rounds:
            unit.rounds = [(table_id, server, r.number, period, at, _dumps(r.record), _dumps(r.outcome))
                           for r in rounds]
            unit.ledger = [
                (table_id, r.number, server, period, e.player, e.units, at) for r in rounds for e in r.entries
            ]
        if names:
            unit.players = [(server, p, n) for p, n in names.items()]
        if request is not None:
            unit.requests = [(request[0], table_id, _dumps(request[1]), at, server)]
        if close:
            unit.close = {table_id: at}
        if settings_version is not None:
            unit.expect_settings = (server, settings_version)
        return unit

    def _other_unit(self, kind: str, rows: list[tuple[Any, ...]], request: tuple[Any, ...] | None = None) -> Unit:
        if kind == "panel":
            return Unit(panels={table_id: {panel: ref} for panel, ref, table_id in rows})
        if kind == "request":
            return Unit(request_id=rows[0][0], requests=rows)
        request_id, requests = (request[0], [request]) if request is not None else (None, None)
        if kind == "settings":
            return Unit(request_id=request_id, settings=rows, requests=requests)
        return Unit(request_id=request_id, settle=rows, requests=requests)

    async def _write(self, units: Sequence[Unit]) -> None:
        batch = Batch.of(units)
        kinds = batch.kinds()
        async with self._connection() as conn:
            if not batch.settings:
                await conn.fetchval(statement(kinds), *batch.arguments())
                return
            async with conn.transaction():  # a settings change (rare): checked row by row, then the rest
                for server, document, expected in batch.settings:
                    await self._set_settings(conn, server, document, expected)
                if kinds:
                    await conn.fetchval(statement(kinds), *batch.arguments())

    @staticmethod
    async def _set_settings(conn: Any, server: str, document: str, expected: int) -> None:
        """Write a server's settings if they are at the expected version (an UPDATE that waits for a
        concurrent one and then finds the version moved changes nothing, as does a second first INSERT)."""
        if expected == 0:  # no row yet, or a row at version 0 (written before versions, or copied by migrate)
            status = await conn.execute("INSERT INTO servers (server, settings, version) VALUES ($1, $2, 1)"
                                        " ON CONFLICT (server) DO UPDATE SET settings = EXCLUDED.settings, version = 1"
                                        " WHERE servers.version = 0", server, document)
        else:
            status = await conn.execute("UPDATE servers SET settings = $2, version = version + 1"
                                        " WHERE server = $1 AND version = $3", server, document, expected)
        if status.endswith(" 0"):
            stored = await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM servers WHERE server = $1", server)
            raise StaleSettings(server, int(stored))

    async def _landed(self, unit: Unit, failure: Exception) -> bool:
        """Whether a table's commit whose connection was lost (cut at its deadline, closed under it) was stored all
        the same, the database's answer lost on the way back: its events are there, at their places.  (Before, it
        was written again alone and refused as stale, and a move stored was answered as made but its messages —
        the deal's serials, the table — never sent; or, the database still down, said not saved.)  Raises if the
        database cannot be read either."""
        if not _lost(failure):
            return False
        if unit.expect is not None and unit.events:
            table_id, first = unit.expect
            rows = await self._rows("SELECT event FROM table_events WHERE table_id = ? AND seq > ?"
                                    " ORDER BY seq LIMIT ?", (table_id, first, len(unit.events)))
            return [json.loads(r[0]) for r in rows] == [json.loads(e[3]) for e in unit.events]
        if unit.requests:  # (a turn's warning claimed, a settlement, a refusal remembered: its answer is there)
            request_id, _, reply = unit.requests[0][:3]
            row = await self._rows("SELECT reply FROM requests WHERE request_id = ?", (request_id,))
            return bool(row) and json.loads(row[0][0]) == json.loads(reply)
        return False

    async def _translate(self, unit: Unit, exc: Exception) -> BaseException:
        """The port's exception for a unit that failed alone on a key or on its expected seq (on its connection:
        :class:`~bot.ports.CommitUncertain`, as the database may have stored it)."""
        if _lost(exc) and (unit.events or unit.requests):
            return CommitUncertain()
        if isinstance(exc, asyncpg.PostgresError) and exc.sqlstate == STALE_SQLSTATE:
            table_id, stored = (int(x) for x in str(exc.detail).split())
            return StaleTable(table_id, stored)
        if isinstance(exc, asyncpg.PostgresError) and exc.sqlstate == STALE_SETTINGS_SQLSTATE:
            version, server = str(exc.detail).split(" ", 1)
            return StaleSettings(server, int(version))
        if isinstance(exc, asyncpg.UniqueViolationError):
            if exc.constraint_name == "requests_pkey" and unit.request_id is not None:
                return DuplicateRequest(unit.request_id)
            if exc.constraint_name == "settlements_pkey" and unit.settle:
                return PeriodSettled(unit.settle[0][0], unit.settle[0][1])
            if unit.table_id is None:
                return exc
            if exc.constraint_name in ("table_events_pkey", "rounds_table_id_number_key"):
                # another commit built on the same events won a race past the expected-seq check
                return StaleTable(unit.table_id, await self._stored_seq(unit.table_id))
            if exc.constraint_name == "tables_one_open_per_channel":
                return StaleTable(unit.table_id, 0)  # another table is open in this channel
        return exc

    # -- copying in (``liars migrate``) -----------------------------------------------------------
    async def row_counts(self) -> dict[str, int]:
        async with self._connection(SLOW_SECONDS) as conn:
            return {kind: int(await conn.fetchval(f"SELECT COUNT(*) FROM {kind}")) for kind in DUMP_COLUMNS}

    async def bulk_load(self, chunks: AsyncIterator[tuple[str, list[tuple[Any, ...]]]],
                        id_floors: Mapping[str, int] | None = None) -> dict[str, int]:
        """Copy rows in (COPY), ids and all, in ONE transaction, into an empty database; then move
        the id sequences past the copied ids, and past ``id_floors`` (per kind, the largest id the source
        ever handed out: an erased server's ids are never handed out again).  ``chunks`` yields (kind of
        ``DUMP_COLUMNS``, rows) in foreign-key order.  Returns the rows copied per kind; raises ValueError
        if not empty."""
        copied = dict.fromkeys(DUMP_COLUMNS, 0)
        async with self._connection(unbounded=True) as conn, conn.transaction():  # (a large copy takes its time)
            await conn.execute("LOCK TABLE tables, table_events, ledger IN EXCLUSIVE MODE")
            for kind in DUMP_COLUMNS:
                if await conn.fetchval(f"SELECT EXISTS (SELECT 1 FROM {kind})"):
                    raise ValueError(f"the PostgreSQL database is not empty (it has {kind})")
            async for kind, rows in chunks:
                await conn.copy_records_to_table(kind, records=rows, columns=list(DUMP_COLUMNS[kind]))
                copied[kind] += len(rows)
            for kind in ("tables", "rounds", "ledger"):
                await conn.execute(
                    f"SELECT setval(pg_get_serial_sequence('{kind}', 'id'), GREATEST(COALESCE(MAX(id), 0), $1) + 1,"
                    f" false) FROM {kind}", int((id_floors or {}).get(kind, 0))
                )
        return copied
