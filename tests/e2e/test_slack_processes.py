"""Several processes, one database: two real ``liars slack`` processes on one PostgreSQL database (a
real server, see ``tests/conftest.py``), as two web workers behind a load balancer would run.

Signed requests for the same tables are sprayed across both, some delivered to both at once (a
Slack retry landing on the other worker while the first delivery is under way), through complete
rounds.  Then one process is killed with SIGKILL mid-load; Slack's redeliveries of what it never saw
acknowledged go to the survivor, which plays every table's last rounds and closes it.

What must hold: every server's ledger sums to 0 and every round to 0; no round is settled twice (and
no count is posted twice); every acknowledged request whose answer said it was applied is stored, and
none acknowledged before the kill is applied after it; each request id is applied once (one move event
per stored move request, however many deliveries and processes, so a request both processes had was
applied once; both processes served requests; the survivor exits cleanly.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import time

import aiohttp

from tests.adapters.store_support import raw_sql
from tests.e2e.slack_processes import APPLIED, Table, start_bot, stop_bot
from tests.fakes.slack_server import FakeSlack

TABLES = 4
ROUNDS = 8  # each table ends after this many rounds: the survivor plays them out


async def test_two_processes_on_one_postgres_database_then_one_is_killed(fake: FakeSlack, postgres_url: str) -> None:
    seed = random.randrange(1_000_000)
    chance = random.Random(seed)
    tables = [Table(fake, f"C0P{i}", [f"U0A{i}", f"U0B{i}", f"U0C{i}"], start=f"start classic 1 rounds={ROUNDS}")
              for i in range(TABLES)]
    bots = list(await asyncio.gather(*(start_bot(fake, name, LIARS_DATABASE_URL=postgres_url) for name in "AB")))
    victim, survivor = bots
    killed_at: float | None = None  # when SIGKILL was sent
    dead_at = 0.0  # when the victim was seen gone
    acked_by_the_victim: list[str] = []  # request ids: only the victim had them when it was killed

    def finished(table: Table) -> bool:  # closed after its last round (the survivor plays the rest)
        return table.closed()

    async def kill_mid_load() -> None:
        nonlocal killed_at, dead_at
        # both processes play complete rounds first: about half of all the rounds, one at each table
        async with asyncio.timeout(60):
            while True:
                settled = await raw_sql(postgres_url, "SELECT table_id, COUNT(*) FROM rounds GROUP BY table_id")
                if len(settled) == TABLES and sum(n for _, n in settled) >= TABLES * ROUNDS // 2:
                    break
                await asyncio.sleep(0.02)
        await asyncio.sleep(chance.uniform(0.0, 0.2))
        killed_at = time.time()  # what is stored at a later time was stored by the survivor
        victim.proc.send_signal(signal.SIGKILL)
        await victim.proc.wait()
        dead_at = time.time()
        acked_by_the_victim.extend(s.request_id for t in tables for s in t.sent if s.acked_by == ["A"])

    try:
        async with aiohttp.ClientSession() as http, asyncio.timeout(120):
            await asyncio.gather(kill_mid_load(), *(
                t.play_across(http, bots, random.Random(seed + n), finished) for n, t in enumerate(tables)))
    finally:
        logs = [await stop_bot(bot) for bot in bots]
    assert killed_at is not None
    assert survivor.proc.returncode == 0, logs[1]
    for log in logs:
        assert "Traceback" not in log, log

    sent = [s for t in tables for s in t.sent]
    assert {"A", "B"} <= {name for s in sent for name in s.acked_by}, f"seed {seed}: one process served everything"
    doubled = [s for s in sent if len(s.acked_by) > 1]
    assert doubled, f"seed {seed}: no request was delivered to both processes"
    # A request both processes had got one answer, whichever applied (or refused) it first: the other
    # answers with the stored reply, never with its own view of an older table.  (That it was applied once
    # is shown below by the events: one move event per stored move request id.)
    for s in doubled:
        answers = {post.text for post in fake.response_url_posts(s.payload["response_url"])}
        assert len(answers) <= 1, f"seed {seed}: {s.request_id} was answered {answers}"

    requests = await raw_sql(postgres_url, "SELECT request_id, at, reply FROM requests")
    stored = {r: float(at) for r, at, _ in requests}
    applied = {r for r, _, reply in requests if json.loads(reply)["ok"]}  # a refusal's answer is stored too
    for s in sent:
        if s.answer is not None and s.answer.startswith(APPLIED):
            assert s.request_id in stored, f"seed {seed}: {s.request_id} acknowledged as applied but not stored"
    # Acknowledged by the victim alone before the kill: committed before the acknowledgement, so never applied
    # afterwards, though the survivor got every one whose answer was lost (the probes) and applies anything new.
    assert acked_by_the_victim, f"seed {seed}: the victim acknowledged nothing of its own"
    for rid in acked_by_the_victim:
        assert stored.get(rid, 0.0) < dead_at, f"seed {seed}: {rid} acknowledged by the victim, applied after"
    # exactly once: one move event per stored move request, however many deliveries to however many processes
    events = [json.loads(e) if isinstance(e, str) else e
              for (e,) in await raw_sql(postgres_url, "SELECT event FROM table_events")]
    move_ids = [r for r in applied if r.endswith((":bid", ":challenge"))]
    assert len([e for e in events if e["t"] == "act"]) == len(move_ids), f"seed {seed}"
    # rounds: none settled twice, each settles to 0, every server's ledger is 0, none counted twice
    assert await raw_sql(postgres_url, "SELECT table_id, number FROM rounds GROUP BY table_id, number"
                                       " HAVING COUNT(*) > 1") == []
    per_round = await raw_sql(postgres_url, "SELECT SUM(units) FROM ledger GROUP BY round_id")
    assert per_round and all(total == 0 for (total,) in per_round)
    servers = await raw_sql(postgres_url, "SELECT server, SUM(units) FROM ledger GROUP BY server")
    assert servers and all(total == 0 for _, total in servers)
    per_channel = dict(await raw_sql(postgres_url, "SELECT t.channel, COUNT(*) FROM rounds r"
                                                   " JOIN tables t ON t.id = r.table_id GROUP BY t.channel"))
    for t in tables:  # every table played all its rounds, and was closed
        assert per_channel[t.channel] == ROUNDS, f"seed {seed}: {t.channel} played {per_channel[t.channel]} rounds"
        assert len(t.counts()) <= ROUNDS, f"seed {seed}: {t.channel} counted a round twice"
    assert await raw_sql(postgres_url, "SELECT id FROM tables WHERE status = 'open'") == []
    [(after,)] = await raw_sql(postgres_url, "SELECT COUNT(*) FROM rounds WHERE at > $1", killed_at)
    assert after > 0, f"seed {seed}: the survivor settled no round"
