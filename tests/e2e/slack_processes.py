"""Real ``liars slack`` processes under load, for the kill -9 and several-processes tests.

A :class:`Table` is one channel's three players, driven one request at a time as Slack would send
them: setup (start, joins, deal), then moves; a refusal ("It is not your turn: X is to act.") tells it
who is to act, so it keeps going even when an answer was lost with a killed process.  A request that
was never acknowledged stays ``pending``: Slack sends it again (``X-Slack-Retry-Num: 1``, the same
body, so the same ``trigger_id`` and request id).
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

from tests.adapters.slack.harness import BOT_TOKEN, SECRET
from tests.fakes.slack_server import PROXY_VARS, FakeSlack, form_encode, signed_headers

__all__ = ["APPLIED", "Bot", "Dead", "Sent", "Table", "start_bot", "stop_bot"]

ROOT = Path(__file__).resolve().parents[2]
APPLIED = ("You opened a table", "You are seated", "Dealt.", "Bid placed.", "You challenged.")
NOT_YOUR_TURN = re.compile(r"It is not your turn: (\S+) is to act\.")


class Dead(Exception):
    """The bot's process is gone: the request was not acknowledged."""


@dataclass
class Sent:
    payload: dict[str, str]
    acked: bool = False
    answer: str | None = None
    resent: bool = False
    acked_by: list[str] = field(default_factory=list)  # the processes that acknowledged it

    @property
    def request_id(self) -> str:
        words = self.payload["text"].split()
        return f"slack:{self.payload['trigger_id']}:{words[0].lower()}"


@dataclass
class Bot:
    name: str
    proc: asyncio.subprocess.Process
    url: str
    drain: asyncio.Task[bytes]

    @property
    def dead(self) -> bool:
        return self.proc.returncode is not None


async def start_bot(fake: FakeSlack, name: str = "bot", *, oauth: bool = False, **env_vars: str) -> Bot:
    """``liars slack`` as a process on 127.0.0.1 (a free port), talking to ``fake``; ``env_vars`` choose
    its database (``LIARS_DB=…`` or ``LIARS_DATABASE_URL=…``).  ``oauth``: for every workspace that
    installs the app (the fake's client id and secret, no bot token)."""
    env = {k: v for k, v in os.environ.items()
           if k not in PROXY_VARS and not k.startswith("SLACK_") and not k.startswith("LIARS_")}
    if oauth:
        env.update(SLACK_CLIENT_ID=fake.client_id, SLACK_CLIENT_SECRET=fake.client_secret)
    else:
        env.update(SLACK_BOT_TOKEN=BOT_TOKEN)
    env.update(SLACK_SIGNING_SECRET=SECRET, SLACK_API_URL=fake.api_base, PORT="0", LIARS_COMPUTER_DELAY="0",
               **env_vars)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "slack", "--host", "127.0.0.1", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    assert proc.stderr is not None
    async with asyncio.timeout(30):
        while True:
            line = (await proc.stderr.readline()).decode()
            assert line, "liars slack exited before serving"
            if m := re.search(r"serving Slack requests at (\S+)", line):
                return Bot(name, proc, m.group(1), asyncio.create_task(proc.stderr.read()))


async def stop_bot(bot: Bot) -> str:
    """SIGTERM (unless it is dead already); its log.  A bot stopped this way must exit cleanly."""
    if not bot.dead:
        bot.proc.terminate()
        async with asyncio.timeout(15):
            await bot.proc.wait()
    log = (await bot.drain).decode()
    assert "exception was never retrieved" not in log, log  # every task's failure is handled where it happens
    return log


@dataclass
class Table:
    """One channel's players, driven in turn: setup, then moves; refusals say who is to act."""

    fake: FakeSlack
    channel: str
    players: list[str]
    start: str = "start classic 1"
    team: str | None = None  # the workspace (None: the fake's own)
    sent: list[Sent] = field(default_factory=list)
    pending: Sent | None = None  # sent, not acknowledged: Slack would send it again
    step: int = 0
    to_act: str | None = None
    bid_standing: bool = False
    acknowledged: asyncio.Event = field(default_factory=asyncio.Event)  # set at its first acknowledgement

    def next_payload(self) -> dict[str, str]:
        host, *guests = self.players
        setup = [(host, self.start), *((g, "join") for g in guests), (host, "deal")]
        if self.step < len(setup):
            user, text = setup[self.step]
        else:
            user = self.to_act or host
            text = "challenge" if self.bid_standing else "bid 1 9"
        return self.fake.slash_command(text, user_id=user, user_name=user.lower(), channel_id=self.channel,
                                       team_id=self.team)

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
        """Deliver ``sent`` to ``bot``; once acknowledged, wait for its answer (None if the bot dies first)."""
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
        sent.acked_by.append(bot.name)
        self.acknowledged.set()
        url = sent.payload["response_url"]
        while not self.fake.response_url_posts(url):
            if bot.dead:
                return
            await asyncio.sleep(0.005)
        sent.answer = self.fake.response_url_posts(url)[-1].text

    async def play(self, http: aiohttp.ClientSession, bot: Bot, until: float | None = None) -> None:
        """Send requests one after another to one process until it dies (``until`` None) or this table
        has counted a round after ``until``."""
        if until is not None:
            # A probe (Slack would not send these again): a request acknowledged before the kill whose
            # answer was lost with the process.  Sent before anything else, it finds the table as the kill
            # left it: if it had been acknowledged without being committed, it would be applied now.
            await self.probe(http, bot)
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

    async def probe(self, http: aiohttp.ClientSession, bot: Bot) -> None:
        for sent in [s for s in self.sent if s.acked and s.answer is None]:
            sent.resent = True
            await self.send(http, bot, sent, retry=True)
            self.learn(sent)

    async def play_across(self, http: aiohttp.ClientSession, bots: Sequence[Bot], rng: random.Random,
                          done: Callable[[Table], bool], both: float = 0.2) -> None:
        """Send requests one after another, each to a live process picked at random (a load balancer);
        ``both`` of them to every live process at once (a retry landing on another worker while the
        first delivery is still under way).  A delivery to a process that dies is sent again to a live
        one, as Slack would; once a process has died, what it acknowledged without answering is probed
        on a live one first.  Returns when ``done(self)``."""
        probed = False
        for _ in range(600):
            if done(self):
                return
            live = [b for b in bots if not b.dead]
            assert live, "every process is dead"
            if not probed and len(live) < len(bots):
                probed = True
                await self.probe(http, rng.choice(live))
            if self.pending is not None:
                sent, self.pending, retry = self.pending, None, True
                sent.resent = True
            else:
                sent, retry = Sent(self.next_payload()), False
                self.sent.append(sent)
            targets = live if len(live) > 1 and not retry and rng.random() < both else [rng.choice(live)]
            outcomes = await asyncio.gather(
                *(self.send(http, bot, sent, retry=retry or n > 0) for n, bot in enumerate(targets)),
                return_exceptions=True)
            for outcome in outcomes:
                if isinstance(outcome, BaseException) and not isinstance(outcome, Dead):
                    raise outcome
            if not sent.acked:
                self.pending = sent
                continue
            self.learn(sent)
        raise AssertionError(f"{self.channel} did not finish")

    def counts(self) -> list[float]:
        """When each count was posted in this channel."""
        return [c.timestamp for c in self.fake.messages_to(self.channel) if "The count" in c.params["text"]]

    def closed(self) -> bool:
        return any("The table is closed" in c.params["text"] for c in self.fake.messages_to(self.channel))

    def counted_since(self, when: float) -> bool:
        return any(at > when for at in self.counts())
