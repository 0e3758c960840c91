"""The serial game's ``expert`` level at a real table: offered, never the default, and it plays a round through
the bot (its decision runs in a worker thread)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import TypeVar

import pytest

from core.serial.players import DEFAULT_LEVEL
from core.serial.plugin import SERIAL
from tests.typed import live_round, serial_match

from .conftest import ALICE, KEY, Harness

T = TypeVar("T")


async def test_hard_stays_the_default_and_expert_is_offered(harness: Harness) -> None:
    h = harness
    assert SERIAL.levels[-1] == "expert" and SERIAL.default_level == DEFAULT_LEVEL == "hard"
    assert (await h.do(ALICE, "start", "classic", "seats=3", "computers=2")).ok
    table = h.service.table(KEY)
    assert table is not None and set(table.computers.values()) == {"hard"}


async def test_an_expert_seat_plays_a_round_through_the_bot(harness: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    h = harness
    threads: set[int] = set()
    real_to_thread = asyncio.to_thread

    async def to_thread(func: Callable[..., T], /, *args: object) -> T:
        def recorded() -> T:
            threads.add(threading.get_ident())
            return func(*args)
        return await real_to_thread(recorded)

    monkeypatch.setattr(asyncio, "to_thread", to_thread)  # bot.play calls asyncio.to_thread
    # 4×4 heads-up: no solved table there, so expert searches (a few decisions, ~0.05 s each)
    assert (await h.do(ALICE, "start", "classic", "digits=4", "serial_length=4", "seats=2", "computers=1",
                       "level=expert", "rebid=on")).ok
    table = h.service.table(KEY)
    assert table is not None and list(table.computers.values()) == ["expert"]
    computer = next(iter(table.computers))
    assert (await h.do(ALICE, "deal")).ok
    match = serial_match(table)
    acted = False
    for _ in range(40):
        if match.session is not None and match.session.outcomes:
            break
        round_ = live_round(table)
        acted = acted or any(a.player == computer for a in round_.history)
        assert round_.to_act == ALICE.user_id  # the computer answered at once (no delay in tests)
        if round_.standing_bid is None:
            reply = await h.do(ALICE, "bid", "1", "2")
        else:
            reply = await h.do(ALICE, "count" if round_.phase.value == "rebid" else "challenge")
        assert reply.ok, reply.text
    assert match.session is not None and match.session.outcomes and acted
    # the computer's decisions ran in a worker thread, not on the event loop's
    assert threads and threading.get_ident() not in threads
