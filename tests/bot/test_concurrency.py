"""Many tables at once: per-table locks, one store, every server's ledger sums to zero."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

from bot.bootstrap import build_service
from bot.model import Actor, Command, Message, Reply, TableKey
from core.serial import CallCount, Challenge, MakeBid, seat_view
from core.serial.players import get_strategy
from tests.doubles import FakeClock
from tests.typed import live_round, serial_match

from .conftest import Harness


async def drive(h: Harness, i: int) -> int:
    """One human (playing by the easy strategy, through commands) and two computer seats, 3 rounds."""
    key = TableKey("discord", f"server{i % 10}", f"chan{i}")
    me = Actor(f"human{i}", f"Human {i}")
    strategy = get_strategy("easy")
    rng = random.Random(i)

    async def send(name: str, *args: str, **opts: str) -> None:
        reply = await h.service.handle(Command(name, key, me, args, opts))
        assert reply.ok, reply.text

    await send("start", "classic", "1", "3", "2", rounds="3", level="normal")
    await send("deal")
    actions = 0
    while (table := h.service.table(key)) is not None:
        round_ = serial_match(table).live_round
        assert round_ is not None and round_.to_act == me.user_id  # computers act at once (no delay)
        action = strategy.decide(seat_view(round_, me.user_id), rng)
        if isinstance(action, MakeBid):
            await send("bid", str(action.bid.quantity), str(action.bid.digit))
        elif isinstance(action, Challenge):
            await send("challenge")
        elif isinstance(action, CallCount):
            await send("count")
        actions += 1
        await asyncio.sleep(0)
    return actions


async def test_a_hundred_tables_driven_concurrently_keep_every_ledger_at_zero(harness: Harness) -> None:
    h = harness
    results = await asyncio.gather(*(drive(h, i) for i in range(100)))
    assert all(n > 0 for n in results)
    with sqlite3.connect(h.path) as db:
        sums = dict(db.execute("SELECT server, SUM(units) FROM ledger GROUP BY server").fetchall())
        rounds = db.execute("SELECT COUNT(*) FROM rounds").fetchone()[0]
        open_tables = db.execute("SELECT COUNT(*) FROM tables WHERE status = 'open'").fetchone()[0]
    assert len(sums) == 10 and all(v == 0 for v in sums.values())
    assert rounds == 300
    assert open_tables == 0



class StuckPlatform:
    """A platform that never answers for one channel until told to (the slowest platform there is),
    and delivers everything else at once."""

    def __init__(self, stuck_channel: str) -> None:
        self.stuck_channel = stuck_channel
        self.release = asyncio.Event()
        self.delivered: list[tuple[str, str]] = []
        self.changed = asyncio.Event()

    async def deliver(self, messages: Sequence[Message]) -> None:
        for m in messages:
            if m.key.channel_id == self.stuck_channel:
                await self.release.wait()
            self.delivered.append((m.key.channel_id, m.text))
            self.changed.set()


async def test_a_stuck_platform_delays_neither_other_tables_nor_the_next_command(tmp_path: Path) -> None:
    """Messages go out after the table's lock, one sender per table: while one channel's platform
    hangs, another table plays, the stuck table still takes commands, and its timers still fire.
    (``wait_for`` is a deadlock detector here, not a timing check: a blocked call never returns.)"""
    clock = FakeClock()
    platform = StuckPlatform("slow")
    service = await build_service(platform, db_path=str(tmp_path / "x.sqlite3"), clock=clock,
                                  rng=random.Random(3))
    slow, fast = TableKey("discord", "g", "slow"), TableKey("discord", "g", "fast")
    people = {"A": Actor("A", "Alice"), "B": Actor("B", "Bob")}
    admin = Actor("Z", "Admin", is_admin=True)

    async def do(key: TableKey, who: Actor, name: str, *args: str) -> Reply:
        return await asyncio.wait_for(service.handle(Command(name, key, who, tuple(args))), timeout=30)

    async def until(check: Callable[[], bool]) -> None:
        async def poll() -> None:
            while not check():
                platform.changed.clear()
                await platform.changed.wait()

        await asyncio.wait_for(poll(), timeout=30)

    def to_act(key: TableKey) -> str:
        return str(live_round(service.table(key)).to_act)

    try:
        assert (await do(slow, admin, "config", "turn_timeout=60")).ok
        for key in (slow, fast):
            assert (await do(key, people["A"], "start")).ok
            assert (await do(key, people["B"], "join")).ok
            assert (await do(key, people["A"], "deal")).ok
        for key in (slow, fast):  # the stuck table takes its next command as readily as the other
            assert (await do(key, people[to_act(key)], "bid", "1", "1")).ok
        await until(lambda: any(c == "fast" and "1 one" in t for c, t in platform.delivered))
        assert not any(c == "slow" for c, _ in platform.delivered)
        # The stuck table's turn timer fires: a warning, then the timeout, though nothing was sent.
        table = service.table(slow)
        assert table is not None
        before = serial_match(table).round_number
        clock.advance(61)
        for _ in range(3):
            await asyncio.wait_for(service.tick(), timeout=30)
        # two players: the timed-out player challenged, the round was counted and the next one dealt
        assert serial_match(table).round_number == before + 1
    finally:
        platform.release.set()
        await asyncio.wait_for(service.drain(), timeout=30)
        await service.close()
    assert any(c == "slow" for c, _ in platform.delivered)  # released, it all went out
