"""Suite-wide fixtures, among them a real PostgreSQL server for the session (the ``pgserver`` wheel,
PostgreSQL 16 on a Unix socket in a temporary directory: no TCP port) and a fresh database on it per
test (``postgres_url``): the store tests and the several-processes end-to-end test use them.

``LIARS_TEST_DATABASE_URL`` points the tests at an existing server instead (a database on it is
created and dropped per test).  Tests that need PostgreSQL skip, saying why, only if no server can be
started.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import logging
import os
import tempfile
import warnings
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.fakes.slack_server import PROXY_VARS

# numpy's BLAS would start a thread per core for every small product; on a shared 2-core machine the threads
# wait for each other (a 3,000 × 29 product took 10-20 ms instead of 0.5): one thread (before numpy loads).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


class _NeverRetrieved(logging.Handler):
    """Keeps asyncio's "Task exception was never retrieved" (and "Future …") reports: a background task
    that failed with nobody awaiting it.  Every task's failure must be caught and logged where it
    happens, with its context, so any such report fails the test during which it was logged."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "exception was never retrieved" in message:
            context = getattr(record, "exc_info", None)
            detail = f" ({context[0].__name__}: {context[1]})" if context and context[0] else ""
            self.records.append(message.splitlines()[0] + detail)


_NEVER_RETRIEVED = _NeverRetrieved()


def pytest_configure(config: pytest.Config) -> None:
    logging.getLogger("asyncio").addHandler(_NEVER_RETRIEVED)


@pytest.fixture(autouse=True)
def _no_task_exception_never_retrieved() -> Iterator[None]:
    """Fail the test in whose time asyncio reported a task's exception as never retrieved (a task
    dropped with its exception is reported when it is freed: at the latest when its loop closes)."""
    _NEVER_RETRIEVED.records.clear()
    yield
    found, _NEVER_RETRIEVED.records[:] = list(_NEVER_RETRIEVED.records), []
    if found:
        pytest.fail("asyncio: " + "; ".join(found), pytrace=False)


@pytest.fixture(autouse=True)
def _no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test talks to 127.0.0.1 only.  slack_sdk reads HTTP(S)_PROXY itself and ignores NO_PROXY,
    so a proxy setting in the environment would send loopback traffic through the proxy."""
    for var in PROXY_VARS:
        monkeypatch.delenv(var, raising=False)


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
        from pgserver.postgres_server import get_server  # where it is defined (the package re-exports it)
    except ImportError as exc:  # pragma: no cover - the dev dependency is missing
        pytest.skip(f"PostgreSQL tests need the pgserver wheel (pip install -e '.[dev]'): {exc}")
    try:
        with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset (as root)
            warnings.simplefilter("ignore")
            # Not under pytest's base temp directory: a concurrent pytest run deletes all but the three
            # newest of those, which would pull the data directory from under a running server.
            server = get_server(tempfile.mkdtemp(prefix="liars-pg-"), cleanup_mode="delete")
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


_EXIT = {"status": 0}
_FROM_WORKERS: list[str] = []
"""Under pytest-xdist (``make test`` runs ``-n 2``): what the workers' end-of-run checks found.  A worker's own
exit status does not reach the controller, so each worker hands its findings over (``workeroutput``) and the
controller fails the run."""


def _threads_left() -> list[tuple[str, str, str]]:
    """The non-daemon threads still running after the tests (a store or client not closed keeps aiosqlite's
    connection thread alive, and the process would never exit), waiting a moment for ones being closed."""
    import threading
    import time

    from adapters.pictures import worker

    worker.shutdown()  # the picture worker's manager thread ends with its pool
    deadline = time.monotonic() + 5  # a store being closed right now may take a moment
    while True:
        left = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon
                and t.is_alive() and not t.name.startswith(("ThreadPoolExecutor", "asyncio_"))]
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    return [(t.name, type(t).__name__, getattr(getattr(t, "_target", None), "__qualname__", "?")) for t in left]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    gc.collect()  # a task freed only by the cycle collector is reported now
    found: list[str] = []
    if _NEVER_RETRIEVED.records:
        found.append(f"asyncio reported after the tests: {_NEVER_RETRIEVED.records}")
    left = _threads_left()
    if left:
        found.append(f"left running after the tests (a store or client not closed?): {left}")
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: its findings go to the controller, which fails the run
        workeroutput["liars_end_checks"] = found
    found += _FROM_WORKERS
    if found:
        print("\n" + "\n".join(found), flush=True)
        session.exitstatus = exitstatus = pytest.ExitCode.TESTS_FAILED
    _EXIT["status"] = int(exitstatus)


def pytest_testnodedown(node: Any, error: Any) -> None:
    """pytest-xdist's controller: a worker finished; keep what its end-of-run checks found."""
    _FROM_WORKERS.extend(getattr(node, "workeroutput", {}).get("liars_end_checks", []))


def pytest_unconfigure(config: pytest.Config) -> None:
    """A thread still running (found and reported at the session's end) would keep the process from exiting
    after it printed its results: exit now, failing."""
    import os

    if _threads_left():
        os._exit(_EXIT["status"] or 3)
