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


async def test_a_computer_seats_draws_cannot_be_replayed_from_what_players_see(harness: Harness) -> None:
    """Its random draws came from the table's id, rounds counted and events so far, all of which players
    know: replaying its strategy with that seed gave its every move, so its bluffs and mixing told its serial.
    They now come from a secret stored with each deal, never shown."""
    from bot.table import _ENVELOPE, TableState

    h = harness
    assert (await h.do(ALICE, "start", "classic", "seats=2", "computers=1", "level=easy")).ok
    assert (await h.do(ALICE, "deal")).ok
    table = h.table()
    for _ in range(40):  # the computer acts at once after each of Alice's moves
        if table.to_act != ALICE.user_id:
            break
        if not (await h.do(ALICE, "challenge")).ok:  # she opens each round she opens with 1 two
            assert (await h.do(ALICE, "bid", "1", "2")).ok
    events = await h.service.store.table_events(table.id)
    seeds = [str(e["seed"]) for e in events if e["t"] == "deal"]
    assert seeds and all(len(s) == 32 for s in seeds)
    assert not [m for m in h.notifier.messages for s in seeds if s in m.text]
    # the attack: rebuild the table from the events, and at each of the computer's turns replay its
    # decision with the seed players could work out
    replay = TableState(table.id, KEY)
    moves = replayed = 0
    for event in events:
        cpu = replay.to_act if replay.live and replay.to_act in replay.computers else None
        if cpu is not None and event["t"] == "act" and replay.match is not None:
            public = random.Random(f"{replay.id}:{replay.rounds_settled}:{replay.events}")
            guess = replay.match.computer_decision(cpu, replay.computers[cpu])(public)
            moves += 1
            replayed += guess == {k: v for k, v in event.items() if k not in _ENVELOPE}
        replay.apply(event)
    assert moves >= 10 and replayed < moves, (moves, replayed)
