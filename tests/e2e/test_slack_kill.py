"""kill -9 under load: the real ``liars slack`` process, signed requests for a few tables, SIGKILL at a
random moment, a restart on the same SQLite file, and Slack's redeliveries of what was never
acknowledged (``X-Slack-Retry-Num: 1``, the same body, so the same ``trigger_id`` and request id).

What must hold: every acknowledged request whose answer said it was applied is in the database (the
acknowledgement comes after the commit); every move is stored exactly once (one event per request id,
redeliveries included); no round is settled twice and every ledger sums to 0; every table goes on and
plays a complete round after the restart.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import aiohttp

from tests.adapters.slack.harness import SECRET
from tests.e2e.slack_processes import APPLIED, Bot, Table, start_bot
from tests.fakes.slack_server import FakeSlack, form_encode, signed_headers

TABLES = 3


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return list(conn.execute(sql))


async def test_kill_9_under_load_then_restart(fake: FakeSlack, tmp_path: Path) -> None:
    db = tmp_path / "liars.sqlite3"
    seed = random.randrange(1_000_000)
    chance = random.Random(seed)
    tables = [Table(fake, f"C0T{i}", [f"U0A{i}", f"U0B{i}", f"U0C{i}"]) for i in range(TABLES)]
    bot = await start_bot(fake, LIARS_DB=str(db))
    try:
        async with aiohttp.ClientSession() as http:
            players = [asyncio.create_task(t.play(http, bot)) for t in tables]
            async with asyncio.timeout(30):  # the kill comes after a first acknowledgement, however slow the machine
                await tables[0].acknowledged.wait()
            await asyncio.sleep(chance.uniform(0.0, 1.2))  # then at a random moment, mid-play
            bot.proc.send_signal(signal.SIGKILL)
            await bot.proc.wait()
            killed_at = time.time()
            await asyncio.gather(*players)
            before = [s for t in tables for s in t.sent if s.acked]
            assert before, f"seed {seed}: nothing was acknowledged before the kill"

            bot = await start_bot(fake, LIARS_DB=str(db))  # the same file
            async with asyncio.timeout(15):
                await asyncio.gather(*(t.play(http, bot, until=killed_at) for t in tables))
    finally:
        if not bot.dead:
            bot.proc.send_signal(signal.SIGTERM)
            async with asyncio.timeout(10):
                await bot.proc.wait()
    log = (await bot.drain).decode()
    assert bot.proc.returncode == 0, log
    assert "Traceback" not in log, log

    requests = rows(db, "SELECT request_id, at, reply FROM requests")
    stored = {r[0]: float(r[1]) for r in requests}
    applied = {r[0] for r in requests if json.loads(r[2])["ok"]}  # a refusal's answer is stored too
    sent = [s for t in tables for s in t.sent]
    # acknowledged before the kill: committed before the acknowledgement, never applied afterwards
    for s in before:
        if s.answer is not None and s.answer.startswith(APPLIED):
            assert s.request_id in stored, f"seed {seed}: {s.request_id} acknowledged but not stored"
        assert stored.get(s.request_id, 0.0) < killed_at, f"seed {seed}: {s.request_id} acknowledged, applied later"
    # every redelivery was acknowledged, and answered as the first delivery was (or applied once now)
    resent = [s for s in sent if s.resent]
    assert all(s.acked for s in resent)
    # exactly once: one move event per stored move request, however many deliveries
    moves = [json.loads(e) for (e,) in rows(db, "SELECT event FROM table_events")]
    acts = [e for e in moves if e["t"] == "act"]
    move_ids = [r for r in applied if r.endswith((":bid", ":challenge"))]
    assert len(acts) == len(move_ids), f"seed {seed}: {len(acts)} moves stored for {len(move_ids)} requests"
    # rounds: none settled twice, each settles to 0, every server's ledger is 0
    assert rows(db, "SELECT table_id, number FROM rounds GROUP BY table_id, number HAVING COUNT(*) > 1") == []
    assert all(total == 0 for (total,) in rows(db, "SELECT SUM(units) FROM ledger GROUP BY round_id"))
    assert all(total == 0 for (_, total) in rows(db, "SELECT server, SUM(units) FROM ledger GROUP BY server"))
    per_table = rows(db, "SELECT table_id, COUNT(*) FROM rounds GROUP BY table_id")
    assert len(per_table) == TABLES and all(n >= 1 for _, n in per_table)  # every table played on


async def _slash(http: aiohttp.ClientSession, fake: FakeSlack, bot: Bot, user: str, text: str,
                 channel: str) -> str | None:
    payload = fake.slash_command(text, user_id=user, user_name=user.lower(), channel_id=channel)
    body = form_encode(payload)
    async with http.post(bot.url, data=body, headers=signed_headers(body, SECRET)) as resp:
        await resp.read()
        assert resp.status == 200  # acknowledged: committed
    posts = await fake.wait_for(lambda: fake.response_url_posts(payload["response_url"]))
    return posts[-1].text


async def test_a_restart_redraws_what_was_committed_but_never_drawn(fake: FakeSlack, tmp_path: Path) -> None:
    db, channel = tmp_path / "liars.sqlite3", "C0REDRAW"
    players = ["U0RA", "U0RB", "U0RC"]
    bot = await start_bot(fake, LIARS_DB=str(db))
    try:
        async with aiohttp.ClientSession() as http:
            assert (await _slash(http, fake, bot, players[0], "start classic 1", channel) or "").startswith(
                "You opened a table")
            for p in players[1:]:
                await _slash(http, fake, bot, p, "join", channel)
            await _slash(http, fake, bot, players[0], "deal", channel)
            [table] = await fake.wait_for(
                lambda: [c for c in fake.messages_to(channel) if c.ok and c.params["text"].startswith("🃏 *Round")])
            assert table.response is not None
            table_ts = str(table.response["ts"])
            opener = next(p for p in players if f"<@{p}> to act" in table.params["text"])
            lobby = fake.messages_to(channel)[0].response
            assert lobby is not None
            lobby_ts = str(lobby["ts"])

            def lobby_text() -> str:
                message = fake.message(channel, lobby_ts)
                return message["text"] if message is not None else ""
            await fake.wait_for(lambda: "Play is under way" in lobby_text())  # the deal is drawn
            updates = len(fake.calls("chat.update"))

            # From now on Slack refuses every edit for a minute: the bid is committed, never drawn.
            fake.fail_method("chat.update", "ratelimited", retry_after=60)
            assert await _slash(http, fake, bot, opener, "bid 1 9", channel) == "Bid placed."
            await fake.wait_for(lambda: [c for c in fake.calls("chat.update")[updates:]
                                         if c.params.get("ts") == table_ts and c.status == 429])
            drawn = fake.message(channel, table_ts)
            assert drawn is not None and "1 nine" not in drawn["text"]  # the table still shows no bid

            bot.proc.send_signal(signal.SIGKILL)
            await bot.proc.wait()
            fake.clear_failures()
            bot = await start_bot(fake, LIARS_DB=str(db))  # the same file; nobody acts

            def redrawn() -> bool:
                message = fake.message(channel, table_ts)
                return message is not None and "1 nine" in message["text"]
            await fake.wait_for(redrawn, description="the table message redrawn with the stored bid")
            assert "Play is under way" in lobby_text()
    finally:
        if not bot.dead:
            bot.proc.send_signal(signal.SIGTERM)
            async with asyncio.timeout(10):
                await bot.proc.wait()
    log = (await bot.drain).decode()
    assert bot.proc.returncode == 0 and "Traceback" not in log, log
