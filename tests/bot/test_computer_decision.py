"""A computer seat's decision outlives its task: cancelled while the worker thread thinks (shutdown, a timer),
the table's lock goes and the match moves on, yet the thread decides from what it was given under the lock."""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
from collections.abc import Callable
from typing import TypeVar

import pytest

from .conftest import ALICE, KEY, Harness

T = TypeVar("T")


async def test_a_cancelled_decision_decides_from_the_view_taken_under_the_lock(
        harness: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    h = harness
    real_to_thread = asyncio.to_thread
    arrived, go, finished = threading.Event(), threading.Event(), threading.Event()
    decided: list[object] = []  # every decision's result, in order; the first one's is the cancelled one's
    calls = 0  # the computer's decisions handed to a worker thread (other to_thread calls pass through)

    async def to_thread(func: Callable[..., T], /, *args: object) -> T:
        nonlocal calls
        if not any(isinstance(a, random.Random) for a in args):  # not a computer's decision (it is given its rng)
            return await real_to_thread(func, *args)
        calls += 1
        first = calls == 1

        def run() -> T:
            if first:  # the worker thread gets the CPU late, as on a busy machine
                arrived.set()
                go.wait(10)
            try:
                result = func(*args)
            except Exception as exc:
                decided.append(exc)
                raise
            else:
                decided.append(result)  # before `finished` is set: the test reads it once that is set
                return result
            finally:
                if first:
                    finished.set()

        return await real_to_thread(run)

    monkeypatch.setattr(asyncio, "to_thread", to_thread)  # bot.play calls asyncio.to_thread
    assert (await h.do(ALICE, "start", "classic", "seats=2", "computers=1", "level=easy")).ok
    moving = asyncio.create_task(h.do(ALICE, "deal"))
    arrival = asyncio.ensure_future(real_to_thread(arrived.wait, 10))
    await asyncio.wait([arrival, moving], return_when=asyncio.FIRST_COMPLETED)
    if not arrived.is_set():  # Alice opens: her bid hands the turn to the computer
        assert (await moving).ok
        moving = asyncio.create_task(h.do(ALICE, "bid", "1", "2"))
    assert await arrival
    table = h.table()
    events = table.events
    moving.cancel()  # the computer's decision is in its worker thread, the table's lock held
    with contextlib.suppress(asyncio.CancelledError):
        await moving
    async with asyncio.timeout(10):
        await h.service.resume(KEY)  # the lock is free: the table moves on (the computer acts again, at once)
    assert table.events > events and calls >= 2 and len(decided) >= 1
    go.set()  # the cancelled decision's thread runs only now, after the match has changed
    assert await real_to_thread(finished.wait, 10)
    # it decided from the seat's view as it was when taken: the very move the retry made from the same state
    # (same view, same random seed), not one for the match as it is now
    assert decided[-1] == decided[0], decided
