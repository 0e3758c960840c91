"""A background task's failure is logged once, at once, with what it was doing — never left for asyncio
to report as "Task exception was never retrieved" (the suite fails on that: tests/conftest.py)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.background import spawn
from tests.conftest import _NEVER_RETRIEVED


async def test_a_failed_task_is_logged_once_with_its_context(caplog: pytest.LogCaptureFixture) -> None:
    async def edit() -> None:
        raise ConnectionResetError("peer went away")

    with caplog.at_level(logging.WARNING):
        task = spawn(edit(), "attaching the count picture in channel 42", name="picture")
        await asyncio.wait({task})
        del task
    [record] = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert record.levelno == logging.ERROR and record.name == "bot.background"
    assert record.getMessage() == "attaching the count picture in channel 42 failed: ConnectionResetError"
    assert record.exc_info is not None and record.exc_info[0] is ConnectionResetError


async def test_cancelled_and_finished_tasks_log_nothing(caplog: pytest.LogCaptureFixture) -> None:
    async def wait() -> int:
        await asyncio.sleep(10)
        return 1

    async def done() -> int:
        return 2

    with caplog.at_level(logging.DEBUG, logger="bot.background"):
        cancelled, finished = spawn(wait(), "waiting"), spawn(done(), "finishing")
        await asyncio.sleep(0)
        cancelled.cancel()
        await asyncio.wait({cancelled, finished})
    assert finished.result() == 2 and cancelled.cancelled()
    assert caplog.records == []


def test_the_suite_guard_sees_a_task_exception_never_retrieved() -> None:
    """The guard the suite relies on is not blind: a task dropped with its exception is reported (and
    taken back out here, or this test would fail for it)."""

    async def boom() -> None:
        raise RuntimeError("lost")

    async def main() -> None:
        asyncio.get_running_loop().create_task(boom())
        await asyncio.sleep(0.01)

    asyncio.run(main())
    found, _NEVER_RETRIEVED.records[:] = list(_NEVER_RETRIEVED.records), []
    assert found == ["Task exception was never retrieved (RuntimeError: lost)"]
