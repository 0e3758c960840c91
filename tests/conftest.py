"""Suite-wide fixtures."""

from __future__ import annotations

import pytest

from tests.fakes.slack_server import PROXY_VARS


@pytest.fixture(autouse=True)
def _no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test talks to 127.0.0.1 only.  slack_sdk reads HTTP(S)_PROXY itself and ignores NO_PROXY,
    so a proxy setting in the environment would send loopback traffic through the proxy."""
    for var in PROXY_VARS:
        monkeypatch.delenv(var, raising=False)


_EXIT = {"status": 0}


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _EXIT["status"] = int(exitstatus)


def pytest_unconfigure(config: pytest.Config) -> None:
    """A store or client a test left open keeps a non-daemon thread (aiosqlite's connection thread) alive,
    and the test process would then never exit after printing its results.  Say which, and fail."""
    exitstatus = _EXIT["status"]
    import os
    import sys
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
    if left:
        named = [(t.name, type(t).__name__, getattr(getattr(t, "_target", None), "__qualname__", "?")) for t in left]
        print(f"\nleft running after the tests (a store or client not closed?): {named}", file=sys.stderr, flush=True)
        os._exit(exitstatus or 3)
