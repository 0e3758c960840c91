"""``liars forget SERVER``: erase one ledger server's figures, for an admin (say, a workspace that
removed the app and asks for its data to go).

What goes: the server's ledger entries, settled rounds, settlements, its tables with their event logs
and answered requests, its players' names and its settings — every row under its key (``slack:T…``,
``discord:…``).  What stays: every other server's rows, and installations (removing the app deletes
those).  A server with an open table is refused: close its tables first (``/liars end``, or remove the
app, which closes them).

The ledger and the event logs are append-only (triggers refuse UPDATE and DELETE), so the erase is the
one place that lifts that, for these rows, inside ONE transaction that puts the triggers back: SQLite
drops and re-creates its two DELETE triggers, PostgreSQL disables and re-enables its two row triggers.
The SQL is written once with ``?`` parameters (numbered for asyncpg).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from adapters.sqlite.schema import immediate
from adapters.storebase import numbered, rowcount

__all__ = ["OpenTables", "erase_server"]

_OPEN = "SELECT COUNT(*) FROM tables WHERE server = ? AND status = 'open'"
_OF_TABLES = "table_id IN (SELECT id FROM tables WHERE server = ?)"
# in an order the foreign keys allow: a round's ledger entries before it, a table's rows before it
_DELETES: tuple[tuple[str, str], ...] = (
    ("ledger", "server = ?"),
    ("rounds", "server = ?"),
    ("settlements", "server = ?"),
    ("requests", _OF_TABLES),
    ("table_events", _OF_TABLES),
    ("tables", "server = ?"),
    ("players", "server = ?"),
    ("servers", "server = ?"),
)
_SQLITE_TRIGGERS = ("ledger_no_delete", "events_no_delete")
_POSTGRES_TRIGGERS = (("ledger", "ledger_append_only"), ("table_events", "events_append_only"))


class OpenTables(Exception):
    """The server has open tables: nothing was erased."""

    def __init__(self, server: str, count: int) -> None:
        super().__init__(f"{server} has {count} open table(s): close them first (nothing was erased)")
        self.count = count


def _sqlite_erase(conn: sqlite3.Connection, server: str) -> dict[str, int]:
    with immediate(conn):
        [(open_tables,)] = conn.execute(_OPEN, (server,)).fetchall()
        if open_tables:
            raise OpenTables(server, int(open_tables))
        marks = ",".join("?" * len(_SQLITE_TRIGGERS))
        triggers = [r[0] for r in conn.execute(
            f"SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name IN ({marks})", _SQLITE_TRIGGERS)]
        for name in _SQLITE_TRIGGERS:
            conn.execute(f"DROP TRIGGER IF EXISTS {name}")
        erased = {table: conn.execute(f"DELETE FROM {table} WHERE {where}", (server,)).rowcount
                  for table, where in _DELETES}
        for sql in triggers:
            conn.execute(sql)
    return erased


async def _postgres_erase(pool: Any, server: str) -> dict[str, int]:
    async with pool.acquire() as conn, conn.transaction():
        open_tables = await conn.fetchval(numbered(_OPEN), server)
        if open_tables:
            raise OpenTables(server, int(open_tables))
        for table, trigger in _POSTGRES_TRIGGERS:
            await conn.execute(f"ALTER TABLE {table} DISABLE TRIGGER {trigger}")
        erased = {}
        for table, where in _DELETES:
            status = await conn.execute(numbered(f"DELETE FROM {table} WHERE {where}"), server)
            erased[table] = rowcount(status)
        for table, trigger in _POSTGRES_TRIGGERS:
            await conn.execute(f"ALTER TABLE {table} ENABLE TRIGGER {trigger}")
    return erased


async def erase_server(store: Any, server: str) -> dict[str, int]:
    """Erase every row of ``server`` in an open store (see the module's docstring); the rows erased per
    table.  Raises :class:`OpenTables` (nothing erased) if the server has an open table."""
    from adapters.postgres.store import PostgresStore
    from adapters.sqlite.store import SqliteStore

    if isinstance(store, SqliteStore):
        db = store.db
        # the whole transaction is one call on the connection's thread, as the store's own writes are
        result: dict[str, int] = await db._execute(_sqlite_erase, db._conn, server)  # type: ignore[no-untyped-call]
        return result
    if isinstance(store, PostgresStore):
        return await _postgres_erase(store.pool, server)
    raise TypeError(f"cannot erase a server in a {type(store).__name__}")
