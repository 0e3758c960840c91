"""Helpers for the store tests: raw SQL on a store's database (to try what the store never does)."""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

from adapters.stores import Database, is_postgres_url, sqlite_path

StoreFactory = Callable[..., Awaitable[Database]]  # a store of either kind, open


async def raw_sql(url: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Run one statement on the database behind ``url`` with a plain driver; native errors propagate."""
    if is_postgres_url(url):
        import asyncpg

        conn = await asyncpg.connect(url)
        try:
            return [tuple(r) for r in await conn.fetch(sql, *args)]
        finally:
            await conn.close()
    with sqlite3.connect(sqlite_path(url)) as db:
        return [tuple(r) for r in db.execute(sql.replace("$1", "?").replace("$2", "?"), args).fetchall()]
