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
import os
import random
import re
import signal
import sqlite3
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest_asyncio

from tests.adapters.slack.harness import BOT_TOKEN, SECRET
from tests.fakes.slack_server import PROXY_VARS, FakeSlack, form_encode, signed_headers

ROOT = Path(__file__).resolve().parents[2]
TABLES = 3
APPLIED = ("You opened a table", "You are seated", "Dealt.", "Bid placed.", "You challenged.")
NOT_YOUR_TURN = re.compile(r"It is not your turn: (\S+) is to act\.")


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    async with FakeSlack(bot_token=BOT_TOKEN) as server:
        yield server


class Dead(Exception):
    """The bot's process is gone: the request was not acknowledged."""


@dataclass
class Sent:
    payload: dict[str, str]
    acked: bool = False
    answer: str | None = None
    resent: bool = False

    @property
    def request_id(self) -> str:
        words = self.payload["text"].split()
        return f"slack:{self.payload['trigger_id']}:{words[0].lower()}"


@dataclass
class Bot:
    proc: asyncio.subprocess.Process
    url: str
    drain: asyncio.Task[bytes]

    @property
    def dead(self) -> bool:
        return self.proc.returncode is not None


async def start_bot(fake: FakeSlack, db: Path) -> Bot:
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARS and not k.startswith("SLACK_")}
    env.update(SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_SIGNING_SECRET=SECRET, SLACK_API_URL=fake.api_base, PORT="0",
               LIARS_DB=str(db), LIARS_COMPUTER_DELAY="0")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "slack", "--host", "127.0.0.1", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    assert proc.stderr is not None
    async with asyncio.timeout(20):
        while True:
            line = (await proc.stderr.readline()).decode()
            assert line, "liars slack exited before serving"
            if m := re.search(r"serving Slack requests at (\S+)", line):
                return Bot(proc, m.group(1), asyncio.create_task(proc.stderr.read()))


@dataclass
class Table:
    """One channel's players, driven in turn: setup, then moves; refusals say who is to act."""

    fake: FakeSlack
    channel: str
    players: list[str]
    sent: list[Sent] = field(default_factory=list)
    pending: Sent | None = None  # sent, not acknowledged: Slack would send it again
    step: int = 0
    to_act: str | None = None
    bid_standing: bool = False

    def next_payload(self) -> dict[str, str]:
        host, *guests = self.players
        setup = [(host, "start classic 1"), *((g, "join") for g in guests), (host, "deal")]
        if self.step < len(setup):
            user, text = setup[self.step]
        else:
            user = self.to_act or host
            text = "challenge" if self.bid_standing else "bid 1 9"
        return self.fake.slash_command(text, user_id=user, user_name=user.lower(), channel_id=self.channel)

    def learn(self, sent: Sent) -> None:
        answer, user = sent.answer, sent.payload["user_id"]
        if self.step < len(self.players) + 1:
            self.step += 1
            return
        if answer is None:  # acknowledged, answer lost with the process: the refusals will tell
            self.to_act = None
            return
        if m := NOT_YOUR_TURN.match(answer):
            self.to_act = m.group(1).upper()
            return
        nxt = self.players[(self.players.index(user) + 1) % len(self.players)]
        if answer == "Bid placed.":
            self.bid_standing, self.to_act = True, nxt
        elif answer == "You challenged.":
            self.to_act = nxt
        else:  # no bid to challenge (a new round), or a bid too low (one is standing)
            self.bid_standing = not self.bid_standing

    async def send(self, http: aiohttp.ClientSession, bot: Bot, sent: Sent, retry: bool = False) -> None:
        body = form_encode(sent.payload)
        headers = signed_headers(body, SECRET, retry_num=1 if retry else None)
        try:
            async with http.post(bot.url, data=body, headers=headers) as resp:
                await resp.read()
                if resp.status != 200:
                    raise Dead(resp.status)
        except (aiohttp.ClientError, OSError) as exc:
            raise Dead(type(exc).__name__) from exc
        sent.acked = True
        url = sent.payload["response_url"]
        while not self.fake.response_url_posts(url):
            if bot.dead:
                return
            await asyncio.sleep(0.005)
        sent.answer = self.fake.response_url_posts(url)[-1].text

    async def play(self, http: aiohttp.ClientSession, bot: Bot, until: float | None = None) -> None:
        """Send requests one after another until the process dies (``until`` None) or this table has
        counted a round after ``until``."""
        if until is not None:
            # A probe (Slack would not send these again): a request acknowledged before the kill whose
            # answer was lost with the process.  Sent before anything else, it finds the table as the kill
            # left it: if it had been acknowledged without being committed, it would be applied now.
            for sent in [s for s in self.sent if s.acked and s.answer is None]:
                sent.resent = True
                await self.send(http, bot, sent, retry=True)
                self.learn(sent)
        if self.pending is not None:  # Slack's redelivery of what it never saw acknowledged
            sent, self.pending = self.pending, None
            sent.resent = True
            await self.send(http, bot, sent, retry=True)
            self.learn(sent)
        for _ in range(300):
            if until is not None and self.counted_since(until):
                return
            sent = Sent(self.next_payload())
            self.sent.append(sent)
            try:
                await self.send(http, bot, sent)
            except Dead:
                self.pending = sent
                if until is None:
                    return
                raise
            self.learn(sent)
        raise AssertionError(f"{self.channel} never counted a round")

    def counted_since(self, when: float) -> bool:
        return any("The count" in c.params["text"] and c.timestamp > when for c in self.fake.messages_to(self.channel))


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return list(conn.execute(sql))


async def test_kill_9_under_load_then_restart(fake: FakeSlack, tmp_path: Path) -> None:
    db = tmp_path / "liars.sqlite3"
    seed = random.randrange(1_000_000)
    chance = random.Random(seed)
    tables = [Table(fake, f"C0T{i}", [f"U0A{i}", f"U0B{i}", f"U0C{i}"]) for i in range(TABLES)]
    bot = await start_bot(fake, db)
    try:
        async with aiohttp.ClientSession() as http:
            players = [asyncio.create_task(t.play(http, bot)) for t in tables]
            await asyncio.sleep(chance.uniform(0.6, 1.8))  # a random moment, mid-play
            bot.proc.send_signal(signal.SIGKILL)
            await bot.proc.wait()
            killed_at = time.time()
            await asyncio.gather(*players)
            before = [s for t in tables for s in t.sent if s.acked]
            assert before, f"seed {seed}: nothing was acknowledged before the kill"

            bot = await start_bot(fake, db)  # the same file
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

    stored = {r[0]: float(r[1]) for r in rows(db, "SELECT request_id, at FROM requests")}
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
    move_ids = [r for r in stored if r.endswith((":bid", ":challenge"))]
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
    bot = await start_bot(fake, db)
    try:
        async with aiohttp.ClientSession() as http:
            assert (await _slash(http, fake, bot, players[0], "start classic 1", channel) or "").startswith(
                "You opened a table")
            for p in players[1:]:
                await _slash(http, fake, bot, p, "join", channel)
            await _slash(http, fake, bot, players[0], "deal", channel)
            [table] = await fake.wait_for(
                lambda: [c for c in fake.messages_to(channel) if c.ok and c.params["text"].startswith("🃏 *Round")])
            table_ts = str(table.response["ts"])  # type: ignore[index]
            opener = next(p for p in players if f"<@{p}> to act" in table.params["text"])
            lobby_ts = str(fake.messages_to(channel)[0].response["ts"])  # type: ignore[index]

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
            bot = await start_bot(fake, db)  # the same file; nobody acts

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
