from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.bootstrap import build_service
from bot.model import Actor, Command, Reply, TableKey
from bot.service import Service
from bot.table import TableState
from core.serial.game import SerialMatch
from tests.doubles import FakeClock, RecordingNotifier
from tests.typed import live_round, serial_match, table_of

KEY = TableKey("discord", "guild1", "chan1")
ALICE = Actor("U1", "Alice")
BOB = Actor("U2", "Bob")
CAROL = Actor("U3", "Carol")
ADMIN = Actor("U9", "Admin", is_admin=True)


class Harness:
    """A real service on a real SQLite file, with a fake clock and a recording notifier."""

    def __init__(self, path: Path, seed: int = 1) -> None:
        self.path = path
        self.seed = seed
        self.clock = FakeClock()
        self.notifier = RecordingNotifier()
        self._service: Service | None = None

    @property
    def service(self) -> Service:
        """The service (open)."""
        assert self._service is not None
        return self._service

    def table(self, key: TableKey = KEY) -> TableState:
        """The table at ``key`` (there must be one)."""
        return table_of(self.service, key)

    def serial(self, key: TableKey = KEY) -> SerialMatch:
        """The serial game's match at ``key`` (a serial table)."""
        return serial_match(self.service.table(key))

    async def open(self, **kw: Any) -> Service:
        self._service = await build_service(
            self.notifier, db_path=str(self.path), clock=self.clock, rng=random.Random(self.seed), **kw
        )
        return self._service

    async def restart(self, **kw: Any) -> Service:
        await self.service.close()
        self.notifier = RecordingNotifier()
        self.seed += 1000
        return await self.open(**kw)

    async def do(self, actor: Actor, name: str, *args: str, key: TableKey = KEY, request_id: str | None = None,
                 **options: Any) -> Reply:
        reply = await self.service.handle(
            Command(name, key, actor, tuple(args), {k: str(v) for k, v in options.items()}, request_id))
        await self.service.drain()  # what the table says is delivered off the lock; tests read it after
        return reply

    def to_act(self, key: TableKey = KEY) -> str:
        to_act = live_round(table_of(self.service, key)).to_act
        assert to_act is not None
        return to_act


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    h = Harness(tmp_path / "liars.sqlite3")
    await h.open()
    yield h
    await h.service.close()


ACTORS = {a.user_id: a for a in (ALICE, BOB, CAROL, ADMIN)}


def actor(uid: str | None) -> Actor:
    """The person with this id (a round's ``to_act``: there must be someone to act)."""
    assert uid is not None
    return ACTORS[uid]


Seat = Callable[[str], Actor]
