"""Many tables at once: per-table locks, one store, every server's ledger sums to zero."""

from __future__ import annotations

import asyncio
import random
import sqlite3

from bot.model import Actor, Command, TableKey
from core.serial import CallCount, Challenge, MakeBid, seat_view
from core.serial.players import get_strategy

from .conftest import Harness


async def drive(h: Harness, i: int) -> int:
    """One human (playing by the easy strategy, through commands) and two computer seats, 3 rounds."""
    assert h.service is not None
    key = TableKey("discord", f"server{i % 10}", f"chan{i}")
    me = Actor(f"human{i}", f"Human {i}")
    strategy = get_strategy("easy")
    rng = random.Random(i)

    async def send(name: str, *args: str, **opts: object) -> None:
        reply = await h.service.handle(Command(name, key, me, args, opts))  # type: ignore[union-attr]
        assert reply.ok, reply.text

    await send("start", "classic", "1", "3", "2", rounds="3", level="normal")
    await send("deal")
    actions = 0
    while (table := h.service.table(key)) is not None:
        round_ = table.match.live_round
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
