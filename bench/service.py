"""Service benchmark: many concurrent tables on a real SQLite file (WAL, synchronous=FULL).

Each table seats three simulated players (a quick binomial strategy: the load generator, not the
system under test) who think for an exponentially distributed time (mean ``--think`` seconds) and
then act.  Every move is a real command through ``Service.handle`` and counts once it is
acknowledged, i.e. durably committed.  Prints acknowledged actions per second and the p50/p99
latency of one action (from sending the command to its reply).

    python bench/service.py [--tables 1000] [--seconds 20] [--think 0.4] [--db PATH]
    python bench/service.py --store postgres [--database-url postgresql://...] [--processes N]

With ``--store postgres`` and no URL, a throwaway PostgreSQL 16 server (the pgserver wheel, fsync on)
is started in a temporary directory.  ``--processes N`` runs N worker processes on the same database
(PostgreSQL, or one SQLite file: its writers take turns),
each driving its share of the tables through its own service and store; the figures are summed.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

from bot.bootstrap import build_service, open_store, run_loop, tune_runtime
from bot.model import Actor, Command, TableKey
from bot.ports import NullNotifier
from bot.service import Service
from core.figures import percentile
from core.serial import CallCount, Challenge, MakeBid, seat_view
from core.serial.game import SerialMatch
from core.serial.players import get_strategy


@dataclass
class Window:
    """The play window of one process's tables: it opens once every table is dealt (``go``; with several
    processes, once all have: ``barrier``, a ``multiprocessing`` barrier) and lasts ``seconds``."""

    tables: int
    seconds: float
    barrier: Any
    go: asyncio.Event = field(default_factory=asyncio.Event)
    end: float = 0.0


async def drive_table(
    service: Service, i: int, window: Window, think: float, latencies: list[float], errors: list[str],
    ready: list[float],
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
        if done <= window.end:  # count only actions acknowledged inside the play window
            latencies.append(done - t0)
        if not reply.ok:
            errors.append(reply.text)

    setup: list[float] = []
    for actor_, name in ((players[0], "start"), (players[1], "join"), (players[2], "join"), (players[0], "deal")):
        t0 = time.perf_counter()
        await service.handle(Command(name, key, actor_, ()))
        setup.append(time.perf_counter() - t0)
    ready.append(time.perf_counter())
    if len(ready) == window.tables:
        if window.barrier is not None:  # every process has dealt its tables: play starts together
            await asyncio.to_thread(window.barrier.wait)
        window.end = time.perf_counter() + window.seconds
        window.go.set()
    await window.go.wait()
    while time.perf_counter() < window.end:
        if think:
            await asyncio.sleep(rng.expovariate(1 / think))
        table = service.table(key)
        match = table.match if table is not None else None
        assert isinstance(match, SerialMatch)  # the bench's tables play the serial game, a round always live
        round_ = match.live_round
        assert round_ is not None and round_.to_act is not None
        player = round_.to_act
        action = strategy.decide(seat_view(round_, player), rng)
        if isinstance(action, MakeBid):
            await send(by_id[player], "bid", str(action.bid.quantity), str(action.bid.digit))
        elif isinstance(action, Challenge):
            await send(by_id[player], "challenge")
        elif isinstance(action, CallCount):
            await send(by_id[player], "count")


# -- the store under test: chosen by URL, as the bot does (the composition root, bot.bootstrap) -----
async def open_service(url: str, args: argparse.Namespace, share: int) -> Service:
    return await build_service(NullNotifier(), db_path=url, rng=random.Random(1 + share),
                               synchronous=args.synchronous, pool_size=args.pool_size)


async def run_share(args: argparse.Namespace, url: str, share: int, shares: int, barrier: Any) -> dict[str, Any]:
    """Drive tables share, share + shares, ... on one service; the figures of this process."""
    service = await open_service(url, args, share)
    indices = range(share, args.tables, shares)
    latencies: list[float] = []
    errors: list[str] = []
    ready: list[float] = []
    start = time.perf_counter()
    # the play window opens once every table is dealt, and lasts --seconds
    window = Window(len(indices), args.seconds, barrier)
    cpu: list[float] = []

    async def cpu_of_the_window() -> None:  # this process's CPU seconds (service and load generator alike)
        await window.go.wait()
        before = time.process_time()
        await asyncio.sleep(args.seconds)
        cpu.append(time.process_time() - before)

    await asyncio.gather(cpu_of_the_window(),
                         *(drive_table(service, i, window, args.think, latencies, errors, ready) for i in indices))
    transactions = getattr(service.store, "transactions", 0)
    await service.close()
    return {"latencies": latencies, "errors": errors, "setup": max(ready) - start, "transactions": transactions,
            "cpu": cpu[0]}


def _worker(args: argparse.Namespace, url: str, share: int, shares: int, barrier: Any, results: Any) -> None:
    tune_runtime()
    results.put(run_loop(run_share(args, url, share, shares, barrier), uvloop=args.loop == "uvloop"))


def start_postgres() -> tuple[Any, str]:
    from pgserver.postgres_server import get_server  # a dev dependency: PostgreSQL 16 binaries in a wheel

    server = get_server(tempfile.mkdtemp(prefix="liars-bench-pg-"), cleanup_mode="delete")
    return server, str(server.get_uri())


async def ledger_sums(url: str) -> list[int]:
    store = await open_store(url)  # the store itself: every server's books, not the service's port
    try:
        return [sum((await store.balances(s)).values()) for s in await store.all_servers()]
    finally:
        await store.close()


def main() -> None:
    tune_runtime()
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--think", type=float, default=0.4, help="mean think time per action (0: flat out)")
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--db", default=None, help="SQLite file (default: a new temporary one)")
    parser.add_argument("--database-url", default=None, help="PostgreSQL URL (default: start a throwaway server)")
    parser.add_argument("--processes", type=int, default=1, help="worker processes on one database")
    parser.add_argument("--pool-size", type=int, default=4, help="PostgreSQL connections per process")
    parser.add_argument("--synchronous", default="FULL", choices=("FULL", "NORMAL", "OFF"))
    parser.add_argument("--loop", choices=("uvloop", "asyncio"), default="uvloop",
                        help="event loop (default: uvloop when installed, as liars slack runs)")
    args = parser.parse_args()
    server = None
    if args.store == "postgres":
        url = args.database_url
        if url is None:
            server, url = start_postgres()
        where = f"PostgreSQL ({'given URL' if args.database_url else 'throwaway pgserver, fsync on'})"
    else:
        url = args.db or os.path.join(tempfile.mkdtemp(prefix="liars-bench-"), "bench.sqlite3")
        where = f"{url} (WAL, synchronous={args.synchronous})"
    try:
        if args.processes == 1:
            shares = [run_loop(run_share(args, url, 0, 1, None), uvloop=args.loop == "uvloop")]
        else:
            ctx = multiprocessing.get_context("spawn")
            barrier, results = ctx.Barrier(args.processes), ctx.Queue()
            workers = [ctx.Process(target=_worker, args=(args, url, k, args.processes, barrier, results))
                       for k in range(args.processes)]
            for w in workers:
                w.start()
            shares = [results.get() for _ in workers]
            for w in workers:
                w.join()
        sums = asyncio.run(ledger_sums(url))
    finally:
        if server is not None:
            server.cleanup()
    latencies = sorted(x for share in shares for x in share["latencies"])
    errors = [e for share in shares for e in share["errors"]]
    transactions = sum(share["transactions"] for share in shares)
    elapsed = args.seconds
    print(f"tables: {args.tables}, mean think time {args.think} s, store: {where}, processes: {args.processes}")
    print(f"setup: {args.tables} tables opened, joined and dealt in {max(s['setup'] for s in shares):.1f} s")
    n = len(latencies)
    print(f"play: acknowledged actions: {n} in {elapsed:.1f} s = {n / elapsed:,.0f} actions/s")
    p50, p99 = (percentile(latencies, q) * 1e3 for q in (0.50, 0.99))  # nearest rank: p99 <= max
    print(f"latency per action: p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {latencies[-1] * 1e3:.1f} ms")
    cpu = sum(share["cpu"] for share in shares)
    print(f"CPU of the bot process{'es' if len(shares) > 1 else ''} (service and load generator): "
          f"{cpu / elapsed:.2f} cores, {cpu / max(n, 1) * 1e3:.2f} ms per action")
    print(f"write transactions: {transactions} (group commit: {n / max(transactions, 1):.1f} actions each)")
    print(f"rejected commands: {len(errors)}; servers whose ledger does not sum to 0: {sum(1 for s in sums if s)}")


if __name__ == "__main__":
    main()
