"""The picture worker: the same PNG as drawing in-process, bad data refused as in-process, and a thread
when the process pool is turned off."""

from __future__ import annotations

import os

import pytest

from adapters import pictures
from adapters.pictures import worker
from adapters.pictures.samples import count_example


async def test_the_worker_draws_what_render_draws_and_refuses_what_it_refuses(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIARS_PICTURE_PROCESS", "1")
    picture = {"game": "serial", "record": count_example(), "last_challenger": None}
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
    picture = {"game": "serial", "record": count_example(), "last_challenger": None}
    assert await pictures.draw(picture) == pictures.render(picture)
    assert worker._pool is None
