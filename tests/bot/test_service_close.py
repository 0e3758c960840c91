"""Stopping the service: the store is closed even when the stop itself is cut short."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from pathlib import Path

import pytest

from bot.bootstrap import build_service
from bot.model import Actor, Command, Message, TableKey


class StuckNotifier:
    """A platform that never answers: every delivery waits (a picture still being drawn at Ctrl-C, say)."""

    def __init__(self) -> None:
        self.delivering = asyncio.Event()

    async def deliver(self, messages: Sequence[Message]) -> None:
        self.delivering.set()
        await asyncio.Event().wait()


async def test_a_stop_cut_short_while_messages_are_still_going_out_closes_the_store(tmp_path: Path) -> None:
    """Ctrl-C during `liars play` cancelled the stop while it waited for the last messages: the store was never
    closed, its connections' threads stayed, and the process hung at exit for good."""
    notifier = StuckNotifier()
    service = await build_service(notifier, db_path=str(tmp_path / "liars.sqlite3"))
    key = TableKey("local", "local", "table")
    assert (await service.handle(Command("start", key, Actor("U1", "Alice")))).ok
    await asyncio.wait_for(notifier.delivering.wait(), timeout=10)  # the lobby message is going out, and stays
    stopping = asyncio.create_task(service.close())
    await asyncio.sleep(0.05)
    assert not stopping.done()  # waiting for the outbox
    stopping.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await stopping
    with pytest.raises(RuntimeError, match="not open"):
        await service.rt.store.get_request("any")
