"""The picture worker: the same PNG as drawing in-process, bad data refused as in-process, and a thread
when the process pool is turned off."""

from __future__ import annotations

import asyncio
import logging
import os
import signal

import pytest

from adapters import pictures
from adapters.pictures import worker
from adapters.pictures.samples import count_picture_example


async def test_the_worker_draws_what_render_draws_and_refuses_what_it_refuses(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIARS_PICTURE_PROCESS", "1")
    picture = count_picture_example()
    try:
        drawn = await pictures.draw(picture)
        assert worker._pool is not None and os.getpid() not in {p.pid for p in worker._pool._processes.values()}
        assert drawn == pictures.render(picture)
        with pytest.raises(ValueError):
            await pictures.draw({"chart": "pie"})
        assert worker._pool is not None  # a bad picture does not cost the worker
    finally:
        worker.shutdown()


async def test_without_the_process_pool_it_draws_on_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIARS_PICTURE_PROCESS", "0")
    worker.shutdown()
    picture = count_picture_example()
    assert await pictures.draw(picture) == pictures.render(picture)
    assert worker._pool is None


async def test_the_worker_runs_at_a_lower_priority(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIARS_PICTURE_PROCESS", "1")
    try:
        await pictures.draw(count_picture_example())
        assert worker._pool is not None
        [pid] = [p.pid for p in worker._pool._processes.values()]
        assert pid is not None  # started
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(os.getpriority(os.PRIO_PROCESS, 0) + worker.NICE, 19)
        assert worker.NICE > 0
    finally:
        worker.shutdown()


async def test_too_many_pictures_waiting_refuses_another_at_once_with_one_warning(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("LIARS_PICTURE_PROCESS", "0")
    monkeypatch.setattr(worker, "MAX_WAITING", 2)
    monkeypatch.setattr(worker, "_shed", {"count": 0, "warned_at": float("-inf")})
    picture = count_picture_example()
    waiting = [asyncio.create_task(pictures.draw(picture)) for _ in range(2)]
    await asyncio.sleep(0)  # both have started: they are waiting for the drawing thread
    with caplog.at_level(logging.WARNING, logger="adapters.pictures"):
        for _ in range(3):
            with pytest.raises(pictures.TooManyWaiting):
                await pictures.draw(picture)
    assert [await t for t in waiting] == [pictures.render(picture)] * 2  # those already asked for are drawn
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "1 skipped" in warnings[0]
    assert await pictures.draw(picture) == pictures.render(picture)  # and once they are, it draws again


async def test_ctrl_c_reaching_the_worker_as_it_starts_leaves_it_drawing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C in a terminal reaches the whole process group: a worker still starting printed a KeyboardInterrupt
    traceback and died, and the pictures then being drawn failed over to threads.  It starts with SIGINT ignored
    (the bot stops it itself); the bot's own handler is as it was."""
    monkeypatch.setenv("LIARS_PICTURE_PROCESS", "1")
    worker.shutdown()
    handler = signal.getsignal(signal.SIGINT)
    try:
        worker.start()
        assert signal.getsignal(signal.SIGINT) is handler
        assert worker._pool is not None
        [pid] = [p.pid for p in worker._pool._processes.values()]
        assert pid is not None
        os.kill(pid, signal.SIGINT)  # still importing: before its own code has run
        picture = count_picture_example()
        assert await pictures.draw(picture) == pictures.render(picture)
        assert worker._pool is not None and [p.pid for p in worker._pool._processes.values()] == [pid]
    finally:
        worker.shutdown()
