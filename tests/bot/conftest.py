from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.bootstrap import build_service
from bot.model import Actor, Command, Reply, TableKey
from bot.service import Service
from tests.doubles import FakeClock, RecordingNotifier

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
        self.service: Service | None = None

    async def open(self, **kw: Any) -> Service:
        self.service = await build_service(
            self.notifier, db_path=str(self.path), clock=self.clock, rng=random.Random(self.seed), **kw
        )
        return self.service

    async def restart(self, **kw: Any) -> Service:
        assert self.service is not None
        await self.service.close()
        self.notifier = RecordingNotifier()
        self.seed += 1000
        return await self.open(**kw)

    async def do(self, actor: Actor, name: str, *args: str, key: TableKey = KEY, request_id: str | None = None,
                 **options: Any) -> Reply:
        assert self.service is not None
        reply = await self.service.handle(
            Command(name, key, actor, tuple(args), {k: str(v) for k, v in options.items()}, request_id))
        await self.service.drain()  # what the table says is delivered off the lock; tests read it after
        return reply

    def to_act(self, key: TableKey = KEY) -> str:
        assert self.service is not None
        table = self.service.table(key)
        assert table is not None and table.match.live_round is not None
        to_act = table.match.live_round.to_act
        assert to_act is not None
        return to_act


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    h = Harness(tmp_path / "liars.sqlite3")
    await h.open()
    yield h
    if h.service is not None:
        await h.service.close()


ACTORS = {a.user_id: a for a in (ALICE, BOB, CAROL, ADMIN)}


def actor(uid: str) -> Actor:
    return ACTORS[uid]


Seat = Callable[[str], Actor]
