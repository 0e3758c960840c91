"""Test doubles for the bot's ports: a clock tests move by hand and a notifier that keeps every message."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from bot.model import Message

__all__ = ["FakeClock", "RecordingNotifier"]


class FakeClock:
    """A clock tests move by hand.  ``sleep`` returns once ``advance`` has moved time far enough."""

    def __init__(self, start: float = 1_767_225_600.0) -> None:  # 2026-01-01T00:00:00Z
        self._now = start
        self._changed = asyncio.Event()

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += seconds
        self._changed.set()

    async def sleep(self, seconds: float) -> None:
        target = self._now + seconds
        while self._now < target:
            self._changed.clear()
            await self._changed.wait()


class RecordingNotifier:
    """Keeps every message delivered, in order, for tests to read."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def deliver(self, messages: Sequence[Message]) -> None:
        self.messages.extend(messages)
