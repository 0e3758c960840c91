"""Ports: what the service needs from the outside world, as Protocols.  Adapters implement them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .model import Message

__all__ = [
    "Clock",
    "FakeClock",
    "LedgerEntry",
    "Notifier",
    "RecordingNotifier",
    "RoundRecord",
    "Store",
    "StoredTable",
    "SystemClock",
]


class Clock(Protocol):
    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


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


class Notifier(Protocol):
    async def deliver(self, messages: Sequence[Message]) -> None: ...


class RecordingNotifier:
    """Keeps every message; the console adapter and tests use it."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def deliver(self, messages: Sequence[Message]) -> None:
        self.messages.extend(messages)


@dataclass(frozen=True, slots=True)
class StoredTable:
    table_id: int
    server: str
    channel: str
    events: list[dict[str, Any]]
    panels: dict[str, str]


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    player: str
    units: int


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A counted round, stored with its ledger entries in one transaction."""

    number: int
    record: dict[str, Any]
    outcome: dict[str, Any]
    entries: list[LedgerEntry] = field(default_factory=list)


class Store(Protocol):
    async def open(self) -> None: ...

    async def close(self) -> None: ...

    async def load_open_tables(self) -> list[StoredTable]: ...

    async def create_table(self, server: str, channel: str, at: float) -> int: ...

    async def commit(
        self,
        table_id: int,
        server: str,
        events: Sequence[dict[str, Any]],
        *,
        at: float,
        period: str,
        rounds: Sequence[RoundRecord] = (),
        names: dict[str, str] | None = None,
        request: tuple[str, dict[str, Any]] | None = None,
        close: bool = False,
    ) -> None:
        """Append events, settled rounds with their ledger entries, names and the request id in ONE
        transaction: all of it is stored, or none of it."""
        ...

    async def get_request(self, request_id: str) -> dict[str, Any] | None: ...

    async def set_panel(self, table_id: int, panel: str, ref: str) -> None: ...

    async def get_settings(self, server: str) -> dict[str, Any]: ...

    async def set_settings(self, server: str, settings: dict[str, Any]) -> None: ...

    async def balances(self, server: str, period: str | None = None) -> dict[str, int]: ...

    async def periods(self, server: str) -> list[str]: ...

    async def settle_period(self, server: str, period: str, by: str, at: float) -> bool: ...

    async def settled_periods(self, server: str) -> dict[str, str]: ...

    async def names(self, server: str) -> dict[str, str]: ...

    async def rounds(self, server: str, *, table_id: int | None = None, limit: int | None = None) -> list[
        dict[str, Any]
    ]: ...

    async def table_events(self, table_id: int) -> list[dict[str, Any]]: ...

    async def last_table(self, server: str, channel: str) -> int | None: ...
