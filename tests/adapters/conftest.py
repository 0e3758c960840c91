"""Store fixtures: ``database_url`` (an empty database of each kind: a SQLite file, and a database on the
session's real PostgreSQL server from ``tests/conftest.py``) and ``open_store``, which opens stores on
it, so a test runs against both stores.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from adapters.stores import Database, make_store
from tests.adapters.store_support import StoreFactory


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty database of each kind."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.sqlite3'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
async def open_store(database_url: str) -> AsyncIterator[StoreFactory]:
    """Opens stores on the test's database (several: several processes' views of one database);
    closes them afterwards."""
    opened: list[Database] = []

    async def factory(**options: Any) -> Database:
        store = make_store(database_url, **options)
        await store.open()
        opened.append(store)
        return store

    yield factory
    for store in opened:
        try:
            await store.close()
        except RuntimeError:
            pass  # a test closed it already
