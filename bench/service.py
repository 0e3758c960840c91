"""Service benchmark: many concurrent tables on a real SQLite file (WAL, synchronous=FULL).

Each table seats three simulated players (a quick binomial strategy: the load generator, not the
system under test) who think for an exponentially distributed time (mean ``--think`` seconds) and
then act.  Every move is a real command through ``Service.handle`` and counts once it is
acknowledged, i.e. durably committed.  Prints acknowledged actions per second and the p50/p99
latency of one action (from sending the command to its reply).

    python bench/service.py [--tables 1000] [--seconds 20] [--think 0.4] [--db PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import tempfile
import time

from bot.bootstrap import build_service, tune_runtime
from bot.model import Actor, Command, TableKey
from core.serial import CallCount, Challenge, MakeBid, seat_view
from core.serial.players import get_strategy


class NullNotifier:
    async def deliver(self, messages: object) -> None:
        return None


async def drive_table(  # type: ignore[no-untyped-def]
    service, i: int, window: dict, think: float, latencies: list[float], errors: list[str], ready: list[float]
) -> None:
    key = TableKey("bench", f"server{i % 50}", f"chan{i}")
    players = [Actor(f"u{i}-{s}", f"P{s}") for s in range(3)]
    by_id = {p.user_id: p for p in players}
    strategy = get_strategy("binomial")
    rng = random.Random(i)

    async def send(actor: Actor, name: str, *args: str) -> None:
        t0 = time.perf_counter()
        reply = await service.handle(Command(name, key, actor, args))
        done = time.perf_counter()
        if done <= window["end"]:  # count only actions acknowledged inside the play window
            latencies.append(done - t0)
        if not reply.ok:
            errors.append(reply.text)

    setup: list[float] = []
    for actor_, name in ((players[0], "start"), (players[1], "join"), (players[2], "join"), (players[0], "deal")):
        t0 = time.perf_counter()
        await service.handle(Command(name, key, actor_, ()))
        setup.append(time.perf_counter() - t0)
    ready.append(time.perf_counter())
    if len(ready) == window["tables"]:
        window["end"] = time.perf_counter() + window["seconds"]
        window["go"].set()  # type: ignore[attr-defined]
    await window["go"].wait()  # type: ignore[attr-defined]
    while time.perf_counter() < window["end"]:
        if think:
            await asyncio.sleep(rng.expovariate(1 / think))
        table = service.table(key)
        round_ = table.live_round
        player = round_.to_act
        action = strategy.decide(seat_view(round_, player), rng)
        if isinstance(action, MakeBid):
            await send(by_id[player], "bid", str(action.bid.quantity), str(action.bid.digit))
        elif isinstance(action, Challenge):
            await send(by_id[player], "challenge")
        elif isinstance(action, CallCount):
            await send(by_id[player], "count")


async def main() -> None:
    tune_runtime()
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--think", type=float, default=0.4, help="mean think time per action (0: flat out)")
    parser.add_argument("--db", default=None)
    parser.add_argument("--synchronous", default="FULL", choices=("FULL", "NORMAL", "OFF"))
    args = parser.parse_args()
    path = args.db or os.path.join(tempfile.mkdtemp(prefix="liars-bench-"), "bench.sqlite3")
    service = await build_service(NullNotifier(), db_path=path, rng=random.Random(1), synchronous=args.synchronous)  # type: ignore[arg-type]
    latencies: list[float] = []
    errors: list[str] = []
    ready: list[float] = []
    start = time.perf_counter()
    # the play window opens once every table is dealt, and lasts --seconds
    window = {"tables": args.tables, "seconds": args.seconds, "go": asyncio.Event(), "end": 0.0}
    await asyncio.gather(
        *(drive_table(service, i, window, args.think, latencies, errors, ready) for i in range(args.tables))
    )
    elapsed = args.seconds
    setup_time = max(ready) - start
    store = service.store
    transactions = getattr(store, "transactions", 0)
    sums = [sum((await store.balances(s)).values()) for s in await store.all_servers()]  # type: ignore[attr-defined]
    await service.close()
    latencies.sort()
    q = statistics.quantiles(latencies, n=100)
    print(f"tables: {args.tables}, mean think time {args.think} s, database: {path} "
          f"(WAL, synchronous={args.synchronous})")
    print(f"setup: {args.tables} tables opened, joined and dealt in {setup_time:.1f} s")
    n = len(latencies)
    print(f"play: acknowledged actions: {n} in {elapsed:.1f} s = {n / elapsed:,.0f} actions/s")
    print(f"latency per action: p50 {q[49] * 1e3:.1f} ms, p99 {q[98] * 1e3:.1f} ms, max {latencies[-1] * 1e3:.1f} ms")
    print(f"write transactions: {transactions} (group commit: {n / max(transactions, 1):.1f} actions each)")
    print(f"rejected commands: {len(errors)}; servers whose ledger does not sum to 0: {sum(1 for s in sums if s)}")


if __name__ == "__main__":
    asyncio.run(main())
