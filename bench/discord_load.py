"""Discord load benchmark: the real ``liars discord`` process (discord.py over the gateway and REST)
against the fake Discord of ``tests/fakes`` on 127.0.0.1.

Many tables, three members each, play in turn by ``/liars`` slash commands (INTERACTION_CREATE over
the gateway) sent at a steady rate (an open schedule: one interaction every ``1/rate`` seconds to
whichever table is ready for its next move; a slot with no table ready is counted as missed).  For
every interaction it measures

* ack: dispatching the interaction to the bot's first callback reaching the fake (the deferral, or
  the answer itself for commands answered from memory);
* answer: dispatching to the actor's answer (the follow-up replacing "thinking…", or the response);
* effect: dispatching to the table message naming the move (or the count) arriving at the fake;

and prints p50/p99/max beside the targets, rounds completed, the bot's CPU per interaction, the counts
posted and how many got their picture (exactly), and every server's ledger sum read from the SQLite
file after the bot has stopped (the report's shape: ``bench/_load.py``).

    python bench/discord_load.py [--rate 200] [--seconds 30] [--tables 60] [--servers 6] [--db PATH]

Targets: ack p99 well inside Discord's 3 s (<= 100 ms), effect and answer p99 <= 300 ms at 200
interactions/s, the bot's CPU <= 2 ms per interaction, every count with its picture, every ledger 0.
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._load import log_errors, metric, picture_seconds, report, run_schedule, scrape  # noqa: E402
from tests.fakes.discord_server import FakeDiscord, FakeUser, RecordedMessage  # noqa: E402 - after the path set-up

NOT_YOUR_TURN = re.compile(r"It is not your turn: (\S+) is to act\.")
APPLIED = ("Bid placed.", "You challenged.")


@dataclass
class Request:
    table: Table
    user: FakeUser
    sub: str
    options: dict[str, Any]
    markers: tuple[str, ...] = ()
    sent: float = 0.0
    ack: float | None = None
    answer: float | None = None
    answer_text: str | None = None
    effect: float | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)

    def check(self) -> None:
        applied = (self.answer_text or "").startswith(APPLIED)
        if self.answer is not None and (self.effect is not None or not self.markers or not applied):
            self.done.set()


@dataclass
class Table:
    guild: int
    channel: int
    players: list[FakeUser]
    step: int = 0
    to_act: FakeUser | None = None
    bid_standing: bool = False
    quantity: int = 0
    current: Request | None = None

    def next_move(self) -> Request:
        host, *guests = self.players
        setup: list[tuple[FakeUser, str, dict[str, Any]]] = [
            (host, "start", {"preset": "classic", "stake": 1}), *((g, "join", {}) for g in guests), (host, "deal", {})]
        if self.step < len(setup):
            return Request(self, *setup[self.step])
        user = self.to_act or host
        if self.bid_standing and self.quantity >= 2:
            return Request(self, user, "challenge", {}, (f"<@{user.id}> challenged", "The count"))
        return Request(self, user, "bid", {"quantity": self.quantity + 1, "digit": 9}, (f"<@{user.id}> bid",))

    def learn(self, req: Request) -> None:
        if self.step < len(self.players) + 1:
            self.step += 1
            return
        answer = req.answer_text or ""
        if m := NOT_YOUR_TURN.match(answer):
            self.to_act = next((p for p in self.players if p.username == m.group(1)), None)
            return
        nxt = self.players[(self.players.index(req.user) + 1) % len(self.players)]
        if answer.startswith("Bid placed."):
            self.bid_standing, self.to_act = True, nxt
            self.quantity += 1
        elif answer.startswith("You challenged."):
            self.to_act = nxt
        else:  # no bid to challenge (a new round) or a bid too low (one is standing): look again
            self.bid_standing = not self.bid_standing
            self.quantity = 0 if not self.bid_standing else 2


class TimedFake(FakeDiscord):
    """The fake Discord, telling the load what the bot did the moment it arrives."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.observers: list[Any] = []

    def _record(self, kind: str, msg: RecordedMessage, body: Any) -> None:
        super()._record(kind, msg, body)
        for observe in self.observers:
            observe(kind, msg)


class Load:
    def __init__(self, fake: TimedFake, tables: list[Table]) -> None:
        self.fake = fake
        self.by_channel = {t.channel: t for t in tables}
        self.by_iid: dict[int, Request] = {}
        self.early: dict[int, list[tuple[float, RecordedMessage]]] = {}  # seen before send_slash returned
        self.measured: list[Request] = []
        self.missed = 0
        self.sent = 0
        fake.observers.append(self.observe)

    def observe(self, kind: str, msg: RecordedMessage) -> None:
        now = time.perf_counter()
        if msg.interaction_id is not None:
            req = self.by_iid.get(msg.interaction_id)
            if req is None:
                self.early.setdefault(msg.interaction_id, []).append((now, msg))
            else:
                self._interaction(req, now, msg)
            return
        if kind not in ("create", "edit") or msg.dm_recipient_id is not None:
            return
        table = self.by_channel.get(msg.channel_id)
        req = table.current if table is not None else None
        text = msg.text()  # the content, or a Components V2 message's text displays
        if req is not None and req.sent and req.effect is None and any(m in text for m in req.markers):
            req.effect = now
            req.check()

    @staticmethod
    def _interaction(req: Request, now: float, msg: RecordedMessage) -> None:
        if req.ack is None:
            req.ack = now
        answer = msg.content or msg.text()
        if req.answer is None and not msg.loading and answer:
            req.answer, req.answer_text = now, answer
        req.check()

    async def send(self, table: Table, measure: bool) -> None:
        req = table.next_move()
        table.current = req
        self.sent += 1
        req.sent = time.perf_counter()
        iid = await self.fake.send_slash(req.user.id, table.guild, table.channel, "liars", req.sub, req.options)
        self.by_iid[iid] = req
        for now, msg in self.early.pop(iid, []):
            self._interaction(req, now, msg)
        with contextlib.suppress(TimeoutError):  # a missing effect or answer is counted in the report
            await asyncio.wait_for(req.done.wait(), 5.0)
        if measure:
            self.measured.append(req)
        table.learn(req)
        self.by_iid.pop(iid, None)
        table.current = None


def _rounds(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM rounds").fetchone()[0])


async def start_bot(fake: FakeDiscord, db: Path) -> tuple[asyncio.subprocess.Process, asyncio.Task[bytes], str]:
    """``liars discord`` against the fake, with its metrics on a free port; the process, its log (read to
    the end in a task) and the metrics' URL."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "LIARS_"))}
    env.update(DISCORD_TOKEN=fake.token, DISCORD_API_BASE=fake.api_base, DISCORD_GATEWAY_URL=fake.gateway_url,
               LIARS_DB=str(db), LIARS_COMPUTER_DELAY="0", LIARS_LOG_LEVEL="INFO", LIARS_METRICS_PORT="0")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "discord", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    assert proc.stderr is not None
    async with asyncio.timeout(30):
        while True:
            line = (await proc.stderr.readline()).decode()
            if not line:
                raise RuntimeError("liars discord exited before serving its metrics")
            if m := re.search(r"serving metrics at (\S+)", line):
                url = m.group(1)
                break
    stderr = asyncio.create_task(proc.stderr.read())
    await fake.wait_for(lambda: fake.live_sessions and fake.commands.get(None), timeout=30)
    return proc, stderr, url


async def main(args: argparse.Namespace) -> int:
    db = Path(args.db) if args.db else Path(tempfile.mkdtemp(prefix="liars-discord-bench-")) / "liars.sqlite3"
    fake = TimedFake()
    guilds = [fake.add_guild(f"Bench {s}") for s in range(args.servers)]
    tables = []
    for i in range(args.tables):
        guild = guilds[i % args.servers]
        channel = fake.add_text_channel(guild.id, f"table-{i}")
        players = [fake.add_user(f"{c}{i:04d}") for c in "abc"]
        for p in players:
            fake.add_member(guild.id, p.id)
        tables.append(Table(guild.id, channel.id, players))
    await fake.start()
    try:
        proc, stderr, metrics_url = await start_bot(fake, db)
        load = Load(fake, tables)
        for start in range(0, len(tables), 20):  # seat everyone and deal, 20 tables at a time
            for _ in range(len(tables[0].players) + 1):
                await asyncio.gather(*(load.send(t, False) for t in tables[start:start + 20]))
        rounds_before = _rounds(db)
        schedule = await run_schedule(tables, lambda t: load.send(t, True), rate=args.rate, seconds=args.seconds,
                                      pids=[proc.pid])
        await asyncio.sleep(2)  # the last pictures: drawn and edited in
        samples = await scrape(metrics_url)
        rounds_after = _rounds(db)
        proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(proc.wait(), 20)
        log = (await stderr).decode()
    finally:
        await fake.stop()

    reqs = load.measured
    moved = [r for r in reqs if (r.answer_text or "").startswith(APPLIED)]
    with sqlite3.connect(db) as conn:
        ledgers = dict(conn.execute("SELECT server, SUM(units) FROM ledger GROUP BY server").fetchall())
        rounds = conn.execute("SELECT COUNT(*) FROM rounds").fetchone()[0]
    # every settled round has its count; its picture is a count-N.png attached to the count's message
    # (classic layout) or edited into the round's table message (Components V2)
    pictured = sum(1 for m in fake.messages.values()
                   if any(str(a.get("filename", "")).startswith("count-") for a in m.attachments))
    extra = [
        f"  moves applied {len(moved)}, refused {len(reqs) - len(moved)}; the fake's internal errors "
        f"{len(fake.internal_errors)}, unknown requests {len(fake.unknown_requests)}",
        f"  rounds completed while measured: {rounds_after - rounds_before} (all in the file: {rounds}); "
        + picture_seconds(samples),
        f"  ledgers: {len(ledgers)} servers, sums {sorted(set(ledgers.values()))} (target all 0)",
        f"  REST calls (whole run, the bot's metrics): {metric(samples, 'liars_platform_calls_total')}, "
        f"{metric(samples, 'liars_platform_calls_total') / max(1, load.sent):.1f} per interaction; "
        f"429s {metric(samples, 'liars_platform_rate_limited_total')}",
    ]
    title = (f"liars discord under load: {args.tables} tables ({args.servers} servers), target {args.rate:.0f} "
             f"interactions/s for {args.seconds:.0f} s")
    for line in report(title=title, unit="interaction", reqs=reqs, moved=moved, schedule=schedule,
                       counts=rounds, pictured=pictured, samples=samples, extra=extra) + log_errors(log):
        print(line)
    return 0 if all(v == 0 for v in ledgers.values()) and not fake.internal_errors else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=float, default=200.0, help="interactions per second (default 200)")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long to send (default 30)")
    parser.add_argument("--tables", type=int, default=60, help="tables, three members each (default 60)")
    parser.add_argument("--servers", type=int, default=6, help="servers (guilds) the tables are spread over")
    parser.add_argument("--db", default=None, help="SQLite file (default: a fresh temporary one)")
    sys.exit(asyncio.run(main(parser.parse_args())))
