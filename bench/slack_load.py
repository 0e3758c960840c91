"""Slack load benchmark: the real ``liars slack`` process (HTTP mode) against the fake Slack on 127.0.0.1.

Many tables, three people each, play in turn by signed slash commands sent at a steady rate (an open
schedule: one request every ``1/rate`` seconds to whichever table is ready for its next move; a slot
with no table ready is counted as missed).  For every request it measures

* ack: sending the request to reading Slack's HTTP 200 (the commit is done by then);
* effect: sending to the table's update arriving at the fake Slack (the panel note naming the move,
  or the count);
* answer: sending to the actor's private reply arriving at its ``response_url``;

and prints p50/p99/max beside the targets, 4xx/5xx counts, rounds completed, the bot's CPU per request,
the counts posted and how many got their picture (exactly), and every server's ledger sum read from
the SQLite file after the bot has stopped (the report's shape: ``bench/_load.py``).

    python bench/slack_load.py [--rate 200] [--seconds 60] [--tables 100] [--servers 10] [--db PATH]
                               [--processes 2 --postgres | --database-url postgresql://...]

``--processes N`` starts N bot processes on one database (PostgreSQL: ``--database-url``, or
``--postgres`` for a throwaway pgserver, fsync on) and sends each request to the next process in turn,
as a load balancer would (a table's moves land on every process); ``--sticky`` sends each table's
requests to one process instead.

Targets: ack p99 <= 100 ms, effect and answer p99 <= 300 ms at 200 requests/s for one process (400 for
two on PostgreSQL), the bot's CPU <= 2 ms per request, every count with its picture, no 5xx, every
ledger 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import signal
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._load import log_errors, metric, picture_seconds, report, run_schedule, scrape  # noqa: E402
from tests.fakes.slack_server import (  # noqa: E402 - after the path set-up
    PROXY_VARS,
    ApiCall,
    FakeSlack,
    ResponseUrlPost,
    form_encode,
    signed_headers,
)

BOT_TOKEN = "xoxb-liars-bench"
SECRET = "liars-bench-secret"
NOT_YOUR_TURN = re.compile(r"It is not your turn: (\S+) is to act\.")


@dataclass
class Request:
    table: Table
    user: str
    text: str
    url: str
    sent: float = 0.0
    ack: float | None = None
    effect: float | None = None
    answer: float | None = None
    answer_text: str | None = None
    status: int | None = None
    markers: tuple[str, ...] = ()
    done: asyncio.Event = field(default_factory=asyncio.Event)

    def check(self) -> None:
        """Done when answered and, for a move that was applied, when its effect has been seen."""
        applied = self.answer_text in ("Bid placed.", "You challenged.")
        if self.answer is not None and (self.effect is not None or not self.markers or not applied):
            self.done.set()


@dataclass
class Table:
    channel: str
    team: str
    players: list[str]
    step: int = 0
    to_act: str | None = None
    bid_standing: bool = False
    quantity: int = 0
    current: Request | None = None

    def next_move(self) -> tuple[str, str, tuple[str, ...]]:
        host, *guests = self.players
        setup = [(host, "start classic 1"), *((g, "join") for g in guests), (host, "deal")]
        if self.step < len(setup):
            return (*setup[self.step], ())
        user = self.to_act or host
        if self.bid_standing and self.quantity >= 2:
            return user, "challenge", (f"<@{user}> challenged", "The count")
        text = f"bid {self.quantity + 1} 9"
        return user, text, (f"<@{user}> bid",)

    def learn(self, req: Request) -> None:
        if self.step < len(self.players) + 1:
            self.step += 1
            return
        answer = req.answer_text or ""
        if m := NOT_YOUR_TURN.match(answer):
            self.to_act = m.group(1).upper()
            return
        nxt = self.players[(self.players.index(req.user) + 1) % len(self.players)]
        if answer == "Bid placed.":
            self.bid_standing, self.to_act = True, nxt
            self.quantity += 1
        elif answer == "You challenged.":
            self.to_act = nxt
        else:  # no bid to challenge (a new round) or a bid too low (one is standing): look again
            self.bid_standing = not self.bid_standing
            self.quantity = 0 if not self.bid_standing else 2


class Load:
    def __init__(self, fake: FakeSlack, urls: list[str], tables: list[Table], sticky: bool = False) -> None:
        self.fake, self.urls, self.tables, self.sticky = fake, urls, tables, sticky
        self.by_url: dict[str, Request] = {}
        self.by_channel: dict[str, Table] = {t.channel: t for t in tables}
        self.measured: list[Request] = []
        self.counts = 0
        self.missed = 0
        self.sent = 0  # every request, set-up included
        self.statuses: dict[int, int] = {}
        fake.observers.append(self.observe)

    def observe(self, event: ApiCall | ResponseUrlPost) -> None:
        now = time.perf_counter()
        if isinstance(event, ResponseUrlPost):
            req = self.by_url.get(event.url)
            if req is not None and req.answer is None:
                req.answer, req.answer_text = now, event.text
                req.check()
            return
        if event.method not in ("chat.postMessage", "chat.update") or not event.ok:
            return
        text = str(event.params.get("text") or "")
        if "The count" in text:
            self.counts += 1
        table = self.by_channel.get(str(event.params.get("channel")))
        req = table.current if table is not None else None
        if req is not None and req.effect is None and any(m in text for m in req.markers):
            req.effect = now
            req.check()

    async def send(self, http: aiohttp.ClientSession, table: Table, measure: bool) -> None:
        user, text, markers = table.next_move()
        payload = self.fake.slash_command(text, user_id=user, user_name=user.lower(), channel_id=table.channel,
                                          team_id=table.team)
        req = Request(table, user, text, payload["response_url"], markers=markers)
        self.by_url[req.url] = req
        self.sent += 1
        table.current = req
        body = form_encode(payload)
        turn = self.tables.index(table) if self.sticky else self.sent  # by table, or in turn as a load balancer
        url = self.urls[turn % len(self.urls)]
        req.sent = time.perf_counter()
        try:
            async with http.post(url, data=body, headers=signed_headers(body, SECRET)) as resp:
                await resp.read()
                req.status = resp.status
                req.ack = time.perf_counter() if resp.status == 200 else None
        except aiohttp.ClientError:
            req.status = 0
        self.statuses[req.status or 0] = self.statuses.get(req.status or 0, 0) + 1
        if req.status == 200:
            with contextlib.suppress(TimeoutError):  # a missing effect or answer is counted in the report
                await asyncio.wait_for(req.done.wait(), 5.0)
        if measure:
            self.measured.append(req)
        table.learn(req)
        self.by_url.pop(req.url, None)
        table.current = None


async def start_bot(fake: FakeSlack, database: dict[str, str], profile: str | None = None
                    ) -> tuple[asyncio.subprocess.Process, str, asyncio.Task[bytes]]:
    env = {k: v for k, v in os.environ.items()
           if k not in PROXY_VARS and not k.startswith("SLACK_") and k not in ("LIARS_DB", "LIARS_DATABASE_URL")}
    env.update(SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_SIGNING_SECRET=SECRET, SLACK_API_URL=fake.api_base, PORT="0",
               LIARS_COMPUTER_DELAY="0", **database)
    wrap = ["-m", "cProfile", "-o", profile] if profile else []
    proc = await asyncio.create_subprocess_exec(
        sys.executable, *wrap, "-m", "bot.cli", "slack", "--host", "127.0.0.1", cwd=ROOT,
        env=env, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    assert proc.stderr is not None
    async with asyncio.timeout(30):
        while True:
            line = (await proc.stderr.readline()).decode()
            if not line:
                raise RuntimeError("liars slack exited before serving")
            if m := re.search(r"serving Slack requests at (\S+)", line):
                return proc, m.group(1), asyncio.create_task(proc.stderr.read())


async def _stored(database: dict[str, str]) -> tuple[dict[str, int], int]:
    """Every server's ledger sum, and the rounds stored, read after the bots have stopped."""
    query = ("SELECT server, SUM(units) FROM ledger GROUP BY server", "SELECT COUNT(*) FROM rounds")
    if "LIARS_DATABASE_URL" in database:
        import asyncpg

        conn = await asyncpg.connect(database["LIARS_DATABASE_URL"])
        try:
            ledgers = {str(r[0]): int(r[1]) for r in await conn.fetch(query[0])}
            return ledgers, int(await conn.fetchval(query[1]))
        finally:
            await conn.close()
    with sqlite3.connect(database["LIARS_DB"]) as db:
        return dict(db.execute(query[0]).fetchall()), int(db.execute(query[1]).fetchone()[0])


async def main(args: argparse.Namespace) -> int:
    server = None
    if args.database_url:
        database = {"LIARS_DATABASE_URL": args.database_url}
    elif args.postgres:
        from pgserver.postgres_server import get_server  # a dev dependency: PostgreSQL 16 binaries in a wheel

        server = get_server(tempfile.mkdtemp(prefix="liars-slack-bench-pg-"), cleanup_mode="delete")
        database = {"LIARS_DATABASE_URL": str(server.get_uri())}
    else:
        db = Path(args.db) if args.db else Path(tempfile.mkdtemp(prefix="liars-slack-bench-")) / "liars.sqlite3"
        database = {"LIARS_DB": str(db)}
    try:
        return await _run(args, database)
    finally:
        if server is not None:
            server.cleanup()


async def _run(args: argparse.Namespace, database: dict[str, str]) -> int:
    tables = [Table(f"C0B{i:04d}", f"T0S{i % args.servers:03d}", [f"U0{c}{i:04d}" for c in "ABC"])
              for i in range(args.tables)]
    async with FakeSlack(bot_token=BOT_TOKEN) as fake:
        bots = [await start_bot(fake, database, args.profile) for _ in range(args.processes)]
        urls = [url for _, url, _ in bots]
        load = Load(fake, urls, tables, sticky=args.sticky)
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as http:
            # set-up: open, seat and deal every table (not measured), a few at a time
            for start in range(0, len(tables), 20):
                for _ in range(len(tables[0].players) + 1):
                    await asyncio.gather(*(load.send(http, t, False) for t in tables[start:start + 20]))
            counts_before = load.counts
            schedule = await run_schedule(tables, lambda t: load.send(http, t, True), rate=args.rate,
                                          seconds=args.seconds, pids=[proc.pid for proc, _, _ in bots])
        await asyncio.sleep(2)  # the last pictures: drawn and uploaded
        samples = await scrape(*(url.rsplit("/slack/", 1)[0] + "/metrics" for url in urls))
        logs = []
        for proc, _, stderr in bots:
            proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(proc.wait(), 20)
            logs.append((await stderr).decode())
    log = "\n".join(logs)

    reqs = load.measured
    moved = [r for r in reqs if r.answer_text in ("Bid placed.", "You challenged.")]
    four = sum(v for k, v in load.statuses.items() if 400 <= k < 500)
    five = sum(v for k, v in load.statuses.items() if k >= 500 or k == 0)
    ledgers, rounds = await _stored(database)
    methods = Counter(c.method for c in fake.calls())
    total = sum(methods.values())
    counts = sum(1 for c in fake.calls("chat.postMessage") if c.ok and "The count" in str(c.params.get("text", "")))
    pictured = sum(1 for f in fake.shared_files() if f.filename.startswith("count-"))
    conflicts = metric(samples, "liars_commit_conflicts_total")
    retries = metric(samples, "liars_command_retries_total")
    extra = [
        f"  moves applied {len(moved)}, refused {len(reqs) - len(moved)}; 4xx {four}, 5xx/failed {five} "
        f"(target 0 5xx); commit conflicts {conflicts}, commands run again {retries}",
        f"  rounds completed while measured: {load.counts - counts_before} (all stored: {rounds}); "
        + picture_seconds(samples),
        f"  ledgers: {len(ledgers)} servers, sums {sorted(set(ledgers.values()))} (target all 0)",
        f"  Web API calls (whole run): {total}, {total / max(1, load.sent):.1f} per request: "
        + ", ".join(f"{m} {k}" for m, k in methods.most_common()),
    ]
    extra += ["  the bot's own view: " + line.split("stopping: ", 1)[1] for line in log.splitlines()
              if "stopping:" in line]
    store = "PostgreSQL" if "LIARS_DATABASE_URL" in database else "SQLite"
    spread = "" if args.processes == 1 else (" (each table on one)" if args.sticky else " (requests in turn)")
    processes = f"{args.processes} process{'es' if args.processes > 1 else ''}{spread}"
    title = (f"liars slack under load: {processes} on {store}, {args.tables} tables ({args.servers} servers), "
             f"target {args.rate:.0f} req/s for {args.seconds:.0f} s")
    for line in report(title=title, unit="request", reqs=reqs, moved=moved, schedule=schedule, counts=counts,
                       pictured=pictured, samples=samples, extra=extra) + log_errors(log):
        print(line)
    return 0 if five == 0 and all(v == 0 for v in ledgers.values()) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=float, default=200.0, help="requests per second (default 200)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to send (default 60)")
    parser.add_argument("--tables", type=int, default=100, help="tables, three players each (default 100)")
    parser.add_argument("--servers", type=int, default=10, help="workspaces the tables are spread over")
    parser.add_argument("--db", default=None, help="SQLite file (default: a fresh temporary one)")
    parser.add_argument("--profile", default=None, help="run the bot under cProfile, writing this file")
    parser.add_argument("--processes", type=int, default=1, help="bot processes on one database (default 1)")
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL (pgserver) for the bots")
    parser.add_argument("--database-url", default=None, help="an existing PostgreSQL database for the bots")
    parser.add_argument("--sticky", action="store_true",
                        help="send each table's requests to one process (default: every request to the next)")
    sys.exit(asyncio.run(main(parser.parse_args())))
