"""PostgreSQL storage (asyncpg): the same Store port as the SQLite store, safe for several processes.

Writes go through one writer task per process that **group-commits** like the SQLite store: the units
queued while a write runs are written together by the next one, as ONE statement — data-modifying
``WITH`` parts, each inserting a whole column-wise batch through ``unnest`` — so a batch is one round
trip and one transaction whatever its size, and each statement text is prepared once per connection.
If a batch fails, its units are written one by one so that only the failing one fails.

Across processes: table and round ids come from the database's identity sequences; each table's
events are numbered under a unique (table_id, seq) key and every unit checks, in its statement, that
its table has the number of events the caller expects (``StaleTable`` otherwise, also when two
commits race past the check: the key refuses the second); a request id is the requests' primary key
(``DuplicateRequest``).  Reads use the connection pool directly.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

import asyncpg

from adapters.stores import DUMP_COLUMNS, HEADS_SQL
from adapters.streams import StreamBook
from bot.ports import DuplicateRequest, RoundRecord, StaleTable, StoredTable, TableHead

from .batch import Batch, Unit, statement
from .schema import MIGRATIONS, STALE_SQLSTATE

__all__ = ["PostgresStore"]

log = logging.getLogger(__name__)

_MIGRATION_LOCK = 0x6C696172  # pg_advisory_xact_lock key: one process migrates at a time


_dumps = json.JSONEncoder(separators=(",", ":")).encode
"""``json.dumps(value, separators=(",", ":"))``, without building an encoder per call."""


async def _keep_session(conn: asyncpg.Connection) -> None:
    """What a connection released to the pool needs undone besides what asyncpg always does (roll back
    a transaction left open): nothing.  The store sets no session state (no SET, LISTEN, cursor held
    outside a transaction, or session advisory lock), so asyncpg's default reset query, one more round
    trip after every write batch, is not sent."""


class PostgresStore:
    def __init__(self, url: str, *, pool_size: int = 4) -> None:
        self.url = url
        self.pool_size = max(2, pool_size)
        self._pool: asyncpg.Pool | None = None
        self._queue: asyncio.Queue[Unit] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._book = StreamBook()  # each table's events known stored, and the reserved table ids
        self.transactions = 0  # write statements run (group commit makes this < units)

    # -- life cycle -------------------------------------------------------------------------------
    async def open(self) -> None:
        self._pool = await asyncpg.create_pool(
            self.url, min_size=2, max_size=self.pool_size, server_settings={"application_name": "liars"},
            reset=_keep_session,
        )
        await self._migrate()
        self._writer = asyncio.create_task(self._write_loop(), name="liars-postgres-writer")

    async def close(self) -> None:
        if self._writer is not None:
            await self._queue.join()
            self._writer.cancel()
            try:
                await self._writer
            except asyncio.CancelledError:
                pass
            self._writer = None
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    @property
    def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise RuntimeError("the store is not open")
        return self._pool

    async def _migrate(self) -> None:
        async with self.pool.acquire() as conn, conn.transaction():
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
        return int(await self.pool.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"))

    async def ping(self) -> None:
        await self.pool.fetchval("SELECT 1", timeout=5)

    # -- tables and their events ------------------------------------------------------------------
    async def create_table(self, server: str, channel: str, at: float) -> int:
        """Reserve a table id; its row is written with the table's first events (one transaction)."""
        table_id = int(await self.pool.fetchval("SELECT nextval(pg_get_serial_sequence('tables', 'id'))"))
        self._book.reserve(table_id, (table_id, server, channel, float(at)))
        return table_id

    async def load_open_tables(self) -> list[StoredTable]:
        async with self.pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
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

    async def open_table_heads(self) -> list[TableHead]:
        return [TableHead(*row) for row in await self.pool.fetch(HEADS_SQL)]

    async def open_table_at(self, server: str, channel: str) -> StoredTable | None:
        row = await self.pool.fetchrow(
            "SELECT id, panels FROM tables WHERE server = $1 AND channel = $2 AND status = 'open'", server, channel
        )
        if row is None:
            return None
        events = await self.table_events(row[0])
        return StoredTable(row[0], server, channel, events, json.loads(row[1]))

    async def table_events(self, table_id: int) -> list[dict[str, Any]]:
        return await self.events_since(table_id, 0)

    async def events_since(self, table_id: int, seq: int) -> list[dict[str, Any]]:
        rows = await self.pool.fetch(
            "SELECT event FROM table_events WHERE table_id = $1 AND seq > $2 ORDER BY seq", table_id, seq
        )
        events = [json.loads(r[0]) for r in rows]
        self._book.saw(table_id, seq + len(events))
        return events

    async def last_table(self, server: str, channel: str) -> int | None:
        value = await self.pool.fetchval(
            "SELECT MAX(id) FROM tables WHERE server = $1 AND channel = $2", server, channel
        )
        return None if value is None else int(value)

    async def table_panels(self, table_id: int) -> dict[str, str]:
        value = await self.pool.fetchval("SELECT panels FROM tables WHERE id = $1", table_id)
        return dict(json.loads(value)) if value is not None else {}

    async def set_panel(self, table_id: int, panel: str, ref: str) -> None:
        await self._submit(Unit(panels={table_id: {panel: ref}}))

    async def _stored_seq(self, table_id: int) -> int:
        return int(await self.pool.fetchval(
            "SELECT COALESCE(MAX(seq), 0) FROM table_events WHERE table_id = $1", table_id
        ))

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
        at = float(at)
        unit = Unit(table_id=table_id, request_id=request[0] if request else None, new_table=pending.new_table)
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
            unit.requests = [(request[0], table_id, _dumps(request[1]), at)]
        if close:
            unit.close = {table_id: at}
        try:
            await self._submit(unit)
        except BaseException as exc:
            self._book.failed(pending, exc)  # nothing of the unit was stored
            raise

    async def _submit(self, unit: Unit) -> None:
        if self._writer is None:
            raise RuntimeError("the store is not open")
        unit.future = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(unit)
        await unit.future

    async def _write_loop(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while not self._queue.empty():
                batch.append(self._queue.get_nowait())
            try:
                await self._write(batch)
                for u in batch:
                    u.resolve(None)
            except Exception:
                # One unit spoiled the batch: write them one by one, in order, so only that one fails.
                for u in batch:
                    try:
                        await self._write([u])
                    except Exception as exc:
                        u.resolve(await self._translate(u, exc))
                    else:
                        u.resolve(None)
            finally:
                for _ in batch:
                    self._queue.task_done()

    async def _write(self, units: Sequence[Unit]) -> None:
        batch = Batch.of(units)
        sql = statement(batch.kinds())
        async with self.pool.acquire() as conn:
            await conn.fetchval(sql, *batch.arguments())
        self.transactions += 1

    async def _translate(self, unit: Unit, exc: Exception) -> Exception:
        """The port's exception for a unit that failed alone on a key or on its expected seq."""
        if isinstance(exc, asyncpg.PostgresError) and exc.sqlstate == STALE_SQLSTATE:
            table_id, stored = (int(x) for x in str(exc.detail).split())
            return StaleTable(table_id, stored)
        if isinstance(exc, asyncpg.UniqueViolationError) and unit.table_id is not None:
            if exc.constraint_name == "requests_pkey" and unit.request_id is not None:
                return DuplicateRequest(unit.request_id)
            if exc.constraint_name in ("table_events_pkey", "rounds_table_id_number_key"):
                # another commit built on the same events won a race past the expected-seq check
                return StaleTable(unit.table_id, await self._stored_seq(unit.table_id))
            if exc.constraint_name == "tables_one_open_per_channel":
                return StaleTable(unit.table_id, 0)  # another table is open in this channel
        return exc

    # -- requests ---------------------------------------------------------------------------------
    async def get_request(self, request_id: str) -> dict[str, Any] | None:
        reply = await self.pool.fetchval("SELECT reply FROM requests WHERE request_id = $1", request_id)
        return None if reply is None else dict(json.loads(reply))

    # -- servers ----------------------------------------------------------------------------------
    async def get_settings(self, server: str) -> dict[str, Any]:
        settings = await self.pool.fetchval("SELECT settings FROM servers WHERE server = $1", server)
        return {} if settings is None else dict(json.loads(settings))

    async def set_settings(self, server: str, settings: dict[str, Any]) -> None:
        await self._submit(Unit(settings=[(server, _dumps(settings))]))

    async def names(self, server: str) -> dict[str, str]:
        rows = await self.pool.fetch("SELECT player, name FROM players WHERE server = $1", server)
        return {p: n for p, n in rows}

    # -- the ledger -------------------------------------------------------------------------------
    async def balances(self, server: str, period: str | None = None) -> dict[str, int]:
        if period is None:
            rows = await self.pool.fetch(
                "SELECT player, SUM(units) FROM ledger WHERE server = $1 GROUP BY player", server
            )
        else:
            rows = await self.pool.fetch(
                "SELECT player, SUM(units) FROM ledger WHERE server = $1 AND period = $2 GROUP BY player",
                server, period,
            )
        return {p: int(u) for p, u in rows}

    async def periods(self, server: str) -> list[str]:
        rows = await self.pool.fetch("SELECT DISTINCT period FROM ledger WHERE server = $1 ORDER BY period", server)
        return [r[0] for r in rows]

    async def all_servers(self) -> list[str]:
        rows = await self.pool.fetch("SELECT DISTINCT server FROM ledger ORDER BY server")
        return [r[0] for r in rows]

    async def settle_period(self, server: str, period: str, by: str, at: float) -> bool:
        """Mark a period settled; False if it already was."""
        if period in await self.settled_periods(server):
            return False
        await self._submit(Unit(settle=[(server, period, by, float(at))]))
        return True

    async def settled_periods(self, server: str) -> dict[str, str]:
        rows = await self.pool.fetch("SELECT period, settled_by FROM settlements WHERE server = $1", server)
        return {p: b for p, b in rows}

    async def rounds(
        self, server: str, *, table_id: int | None = None, limit: int | None = None
    ) -> list[dict[str, Any]]:
        rows = await self.pool.fetch(
            "SELECT id, table_id, number, period, at, outcome, record FROM rounds"
            " WHERE server = $1 AND ($2::bigint IS NULL OR table_id = $2) ORDER BY id DESC LIMIT $3",
            server, table_id, limit,
        )
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

    # -- copying in (``liars migrate``) -----------------------------------------------------------
    async def row_counts(self) -> dict[str, int]:
        async with self.pool.acquire() as conn:
            return {kind: int(await conn.fetchval(f"SELECT COUNT(*) FROM {kind}")) for kind in DUMP_COLUMNS}

    async def bulk_load(self, chunks: AsyncIterator[tuple[str, list[tuple[Any, ...]]]]) -> dict[str, int]:
        """Copy rows in (COPY), ids and all, in ONE transaction, into an empty database; then move
        the id sequences past the copied ids.  ``chunks`` yields (kind of ``DUMP_COLUMNS``, rows) in
        foreign-key order.  Returns the rows copied per kind; raises ValueError if not empty."""
        copied = dict.fromkeys(DUMP_COLUMNS, 0)
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("LOCK TABLE tables, table_events, ledger IN EXCLUSIVE MODE")
            for kind in DUMP_COLUMNS:
                if await conn.fetchval(f"SELECT EXISTS (SELECT 1 FROM {kind})"):
                    raise ValueError(f"the PostgreSQL database is not empty (it has {kind})")
            async for kind, rows in chunks:
                await conn.copy_records_to_table(kind, records=rows, columns=list(DUMP_COLUMNS[kind]))
                copied[kind] += len(rows)
            for kind in ("tables", "rounds", "ledger"):
                await conn.execute(
                    f"SELECT setval(pg_get_serial_sequence('{kind}', 'id'), COALESCE(MAX(id), 0) + 1, false)"
                    f" FROM {kind}"
                )
        return copied
