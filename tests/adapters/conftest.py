"""Store fixtures: a real PostgreSQL server for the session (the ``pgserver`` wheel, PostgreSQL 16 on a
Unix socket in a temporary directory: no TCP port), a fresh database per test, and ``stores``, which
runs a test against both stores.

``LIARS_TEST_DATABASE_URL`` points the tests at an existing server instead (a database on it is
created and dropped per test).  Tests that need PostgreSQL skip, saying why, only if no server can be
started.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import tempfile
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from adapters.stores import make_store
from bot.ports import Store
from tests.adapters.store_support import StoreFactory

_counter = itertools.count()


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of the session's PostgreSQL server (its maintenance database)."""
    given = os.environ.get("LIARS_TEST_DATABASE_URL")
    if given:
        yield given
        return
    try:
        import pgserver
    except ImportError as exc:  # pragma: no cover - the dev dependency is missing
        pytest.skip(f"PostgreSQL tests need the pgserver wheel (pip install -e '.[dev]'): {exc}")
    try:
        with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset (as root)
            warnings.simplefilter("ignore")
            # Not under pytest's base temp directory: a concurrent pytest run deletes all but the three
            # newest of those, which would pull the data directory from under a running server.
            server = pgserver.get_server(tempfile.mkdtemp(prefix="liars-pg-"), cleanup_mode="delete")
    except Exception as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"pgserver could not start PostgreSQL here: {type(exc).__name__}: {exc}")
    url = str(server.get_uri())
    # A throwaway server: no fsync (a test database is created per test: this makes that quick).
    for sql in ("ALTER SYSTEM SET fsync = off", "ALTER SYSTEM SET synchronous_commit = off",
                "SELECT pg_reload_conf()"):
        asyncio.run(_admin(url, sql))
    try:
        yield url
    finally:
        server.cleanup()


async def _admin(server_url: str, sql: str) -> None:
    import asyncpg

    admin = await asyncpg.connect(server_url)
    try:
        await admin.execute(sql)
    finally:
        await admin.close()


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A new, empty database on the session's server, dropped afterwards."""
    name = f"liars_test_{os.getpid()}_{next(_counter)}"
    asyncio.run(_admin(postgres_server, f"CREATE DATABASE {name} STRATEGY = FILE_COPY"))
    yield _with_database(postgres_server, name)
    asyncio.run(_admin(postgres_server, f"DROP DATABASE {name} WITH (FORCE)"))


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
    opened: list[Store] = []

    async def factory(**options: Any) -> Store:
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
