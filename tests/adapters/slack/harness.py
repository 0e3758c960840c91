"""Drive the real Slack adapter (slack-bolt, served over HTTP or Socket Mode) against FakeSlack.

A :class:`Driver` acts as Slack and as the players: it sends signed slash commands and button clicks
(HTTP) or pushes envelopes (Socket Mode), checks each acknowledgement arrives well inside Slack's 3
seconds, and waits for the adapter's answer (a ``response_url`` post, a modal, an ephemeral message).
:func:`play_round` is one complete three-player round, shared by the HTTP and Socket Mode tests;
:func:`assert_no_serial_before_count` is the privacy check over everything the channel could see.
"""

from __future__ import annotations

import contextlib
import functools
import json
import random
import sqlite3
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters.slack.app import SlackBot, serve_http
from adapters.slack.config import SlackConfig
from bot.bootstrap import slack_bot
from bot.messages import signed_units
from bot.model import TableKey
from bot.settings import DEFAULT_SETTINGS
from core.serial import Serial
from tests.fakes.slack_server import (
    DEFAULT_CHANNEL_ID,
    FakeSlack,
    ResponseUrlPost,
    build_signed_request,
    form_encode,
    interactive_body,
    post_to_app,
)
from tests.typed import live_round, serial_match

BOT_TOKEN = "xoxb-liars-test"
APP_TOKEN = "xapp-1-A0FAKEAPP-1-liars"
SECRET = "liars-signing-secret"
CHANNEL = DEFAULT_CHANNEL_ID
ALICE, BOB, CAROL = "U0ALICE", "U0BOB", "U0CAROL"
NAMES = {ALICE: "alice", BOB: "bob", CAROL: "carol"}
ACK_LIMIT = 2.0  # seconds: "well inside" the 3 Slack allows, with room for a busy CI machine


def make_config(fake: FakeSlack, db: Path, *, socket: bool = False) -> SlackConfig:
    return SlackConfig(
        bot_token=BOT_TOKEN,
        signing_secret=None if socket else SECRET,
        app_token=APP_TOKEN if socket else None,
        api_url=fake.api_base,
        db_path=str(db),
        computer_delay=0.0,
    )


async def make_bot(fake: FakeSlack, db: Path, *, socket: bool = False, seed: int = 7) -> SlackBot:
    for uid, name in NAMES.items():
        if uid not in fake._users:
            fake.add_user(uid, name=name)
    return await slack_bot(make_config(fake, db, socket=socket), rng=random.Random(seed))


def key_of(fake: FakeSlack, channel: str = CHANNEL) -> TableKey:
    return TableKey("slack", fake.team_id, channel)


def event_count(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM table_events").fetchone()[0])


def ledger_rows(db: Path) -> list[tuple[str, str, int]]:
    with sqlite3.connect(db) as conn:
        return [(str(s), str(p), int(u)) for s, p, u in conn.execute("SELECT server, player, units FROM ledger")]


def blocks_text(params: dict[str, Any]) -> str:
    """Everything a Slack client could display from a message: its text and its blocks."""
    blocks = params.get("blocks")
    if isinstance(blocks, str):
        blocks = json.loads(blocks)
    return f"{params.get('text', '')}\n{json.dumps(blocks or [])}"


@dataclass
class Acked:
    elapsed: float
    payload: Any = None  # the HTTP body, or the Socket Mode ack's payload


@dataclass
class Driver:
    fake: FakeSlack
    bot: SlackBot
    who: dict[str, str] = field(default_factory=dict)  # response_url -> user who acted
    acks: list[Acked] = field(default_factory=list)
    closed: list[SlackBot] = field(default_factory=list)  # the bots this driver has closed, each once

    async def close_bot(self) -> None:
        """Close the driver's bot unless it is closed already (``serving``'s exit after a failed restart)."""
        if not any(bot is self.bot for bot in self.closed):
            self.closed.append(self.bot)
            await self.bot.close()

    async def restart(self, db: Path, **options: Any) -> SlackBot:
        """Close the bot and put a new one on ``db`` in its place (the caller serves it).  If the new one
        cannot be made, the old one stays the driver's, closed, and is not closed again."""
        await self.close_bot()
        self.bot = await make_bot(self.fake, db, **options)
        return self.bot

    async def send_slash(self, payload: dict[str, str], retry_num: int | None = None) -> Acked:
        raise NotImplementedError

    async def send_interactive(self, payload: dict[str, Any], retry_num: int | None = None) -> Acked:
        raise NotImplementedError

    def _acked(self, acked: Acked) -> Acked:
        assert acked.elapsed < ACK_LIMIT, f"ack took {acked.elapsed:.3f} s"
        self.acks.append(acked)
        return acked

    # -- the players' moves ----------------------------------------------------------------------
    async def slash(self, user: str, text: str, *, channel: str = CHANNEL, settle: bool = True,
                    **extra: Any) -> ResponseUrlPost:
        payload = self.fake.slash_command(text, user_id=user, user_name=NAMES.get(user, user.lower()),
                                          channel_id=channel, **extra)
        self.who[payload["response_url"]] = user
        await self.send_slash(payload)
        return await self.reply_to(payload["response_url"], settle=settle)

    async def reply_to(self, response_url: str, *, settle: bool = True) -> ResponseUrlPost:
        """The answer posted to ``response_url``; with ``settle``, once the table's messages it caused
        have gone out too (the answer goes first; the notifier's outboxes follow)."""
        posts = await self.fake.wait_for(lambda: self.fake.response_url_posts(response_url),
                                         description=f"the reply at {response_url}")
        if settle:
            await self.settled()
        return posts[-1]

    async def settled(self) -> None:
        """Wait until the bot has sent everything it queued: answers under way, then the service's
        per-table outbox (into the notifier), then the notifier's outboxes."""
        await self.bot.listeners.drain()
        await self.bot.service.drain()
        await self.bot.notifier.idle()

    def button(self, ts: str, action: str, channel: str = CHANNEL) -> dict[str, Any]:
        message = self.fake.message(channel, ts)
        assert message is not None, f"no message {ts} in {channel}"
        for block in message.get("blocks") or []:
            for element in block.get("elements", []) if block.get("type") == "actions" else []:
                if element.get("action_id") == f"liars:{action}":
                    return dict(element)
        raise AssertionError(f"message {ts} has no {action!r} button: {message.get('blocks')}")

    def click_payload(self, user: str, ts: str, action: str, channel: str = CHANNEL) -> dict[str, Any]:
        button = self.button(ts, action, channel)
        payload = self.fake.block_actions(button["action_id"], button["value"], message_ts=ts, user_id=user,
                                          user_name=NAMES.get(user, user.lower()), channel_id=channel,
                                          button_text=button["text"]["text"])
        self.who[payload["response_url"]] = user
        return payload

    async def click(self, user: str, ts: str, action: str, channel: str = CHANNEL) -> ResponseUrlPost:
        payload = self.click_payload(user, ts, action, channel)
        await self.send_interactive(payload)
        return await self.reply_to(payload["response_url"])

    async def open_form(self, user: str, ts: str, verb: str) -> dict[str, Any]:
        """Press a form's button (``Raise…``, ``Declare…``, ``Discard…``); the modal as Slack stores it."""
        payload = self.click_payload(user, ts, f"open-{verb}")
        await self.send_interactive(payload)
        trigger = payload["trigger_id"]
        calls = await self.fake.wait_for(
            lambda: [c for c in self.fake.calls("views.open") if c.ok and c.params.get("trigger_id") == trigger],
            description=f"views.open for the {verb} button")
        assert calls[0].response is not None
        return dict(calls[0].response["view"])

    async def open_form_by_command(self, user: str, verb: str) -> dict[str, Any]:
        """A bare ``/liars <verb>`` (``raise``, ``bid``, ``declare``, ``discard``) opens the verb's form."""
        payload = self.fake.slash_command(verb, user_id=user, user_name=NAMES.get(user, user.lower()))
        await self.send_slash(payload)
        calls = await self.fake.wait_for(
            lambda: [c for c in self.fake.calls("views.open")
                     if c.ok and c.params.get("trigger_id") == payload["trigger_id"]],
            description=f"views.open for /liars {verb}")
        assert calls[0].response is not None
        return dict(calls[0].response["view"])

    async def open_raise(self, user: str, ts: str) -> dict[str, Any]:
        return await self.open_form(user, ts, "bid")

    async def choose(self, user: str, view: dict[str, Any], field: str, value: str | list[str]) -> dict[str, Any]:
        """Choose ``value`` in the modal's ``field`` select, or mark ``value`` (a list) in its checkboxes (a
        ``dispatch_action`` input); the modal as redrawn."""
        before = len(self.fake.calls("views.update"))
        payload = self.fake.view_action(view["id"], f"liars:field:{field}", value, user_id=user,
                                        user_name=NAMES.get(user, user.lower()))
        await self.send_interactive(payload)
        calls = await self.fake.wait_for(lambda: [c for c in self.fake.calls("views.update")[before:] if c.ok],
                                         description=f"views.update after choosing {field}")
        assert calls[0].response is not None
        return dict(calls[0].response["view"])

    async def send_form(self, user: str, view: dict[str, Any], chosen: Mapping[str, str | list[str]]) -> str:
        """Submit the modal with these choices (field -> value, or values for checkboxes); what Slack did
        with the modal on the acknowledgement: ``"closed"``, ``"errors"`` (still open) or ``"invalid"``."""
        values: dict[str, dict[str, Any]] = {}
        for block in view["blocks"]:
            element = block.get("element") or {}
            name = str(element.get("action_id", "")).removeprefix("liars:field:")
            if name not in chosen:
                continue
            want = chosen[name]
            if isinstance(want, list):
                options = [o for o in element["options"] if o["value"] in want]
                assert len(options) == len(want), (want, element["options"])
                state: dict[str, Any] = {"type": element["type"], "selected_options": options}
            else:
                state = {"type": element["type"],
                         "selected_option": next(o for o in element["options"] if o["value"] == want)}
            values[block["block_id"]] = {element["action_id"]: state}
        assert len(values) == len(chosen), (chosen, view["blocks"])
        payload = self.fake.view_submission(view["callback_id"], values, private_metadata=view["private_metadata"],
                                            user_id=user, user_name=NAMES.get(user, user.lower()),
                                            view_id=view.get("id"))
        acked = await self.send_interactive(payload)
        return self.fake.answer_submission(str(view.get("id")), acked.payload)

    async def submit_form(self, user: str, view: dict[str, Any], chosen: dict[str, str | list[str]]) -> str:
        """Submit the modal with these choices; it closes (a bare ack), and the answer comes ephemerally."""
        before = len(self.fake.ephemerals_to(user))
        assert await self.send_form(user, view, chosen) == "closed"
        got = await self.fake.wait_for(lambda: self.fake.ephemerals_to(user)[before:],
                                       description=f"the answer to {user}'s {view['callback_id']}")
        await self.settled()
        return str(got[0].params["text"])

    async def submit_refused(self, user: str, view: dict[str, Any], chosen: dict[str, str | list[str]]) -> str:
        """Submit the modal with choices the bot refuses: it stays open with the refusal; the refusal."""
        before = len(self.fake.ephemerals_to(user))
        assert await self.send_form(user, view, chosen) == "errors"
        await self.settled()
        assert self.fake.ephemerals_to(user)[before:] == []  # the refusal is in the modal, not the channel
        errors = self.fake.view_errors(str(view["id"]))
        assert len(errors) == 1, errors
        return next(iter(errors.values()))

    async def submit_raise(self, user: str, view: dict[str, Any], quantity: str, digit: str) -> str:
        if quantity != view["blocks"][1]["element"]["initial_option"]["value"]:
            view = await self.choose(user, view, "quantity", quantity)  # the digits are listed per quantity
        return await self.submit_form(user, view, {"quantity": quantity, "digit": digit})


class HttpDriver(Driver):
    url: str = ""

    async def _post(self, body: bytes, retry_num: int | None) -> Acked:
        body, headers = build_signed_request(body, SECRET, retry_num=retry_num)
        resp = await post_to_app(self.url, body, headers)
        assert resp.status == 200, (resp.status, resp.body)
        return self._acked(Acked(resp.elapsed, resp.body))

    async def send_slash(self, payload: dict[str, str], retry_num: int | None = None) -> Acked:
        return await self._post(form_encode(payload), retry_num)

    async def send_interactive(self, payload: dict[str, Any], retry_num: int | None = None) -> Acked:
        return await self._post(interactive_body(payload), retry_num)


@contextlib.asynccontextmanager
async def serving(fake: FakeSlack, db: Path) -> AsyncIterator[HttpDriver]:
    """A bot on ``db`` serving HTTP on 127.0.0.1 and a driver posting to it; closed after.  What is
    closed is the driver's bot: a test that restarts the bot (:meth:`HttpDriver.restart`) leaves its
    successor in ``d.bot`` (left open, its store's thread would keep the test process from exiting); a
    bot is closed once, even when the restart failed."""
    d = HttpDriver(fake, await make_bot(fake, db))
    try:
        async with serve_http(d.bot, "127.0.0.1", 0) as url:
            d.url = url
            yield d
    finally:
        await d.close_bot()


class SocketDriver(Driver):
    async def _push(self, kind: str, payload: dict[str, Any], retry_num: int | None) -> Acked:
        started = time.time()
        envelope = await self.fake.push_envelope(kind, payload, retry_attempt=retry_num,
                                                 retry_reason="timeout" if retry_num else None)
        ack = await self.fake.wait_for_ack(envelope.envelope_id)
        return self._acked(Acked(ack.timestamp - started, ack.payload))

    async def send_slash(self, payload: dict[str, str], retry_num: int | None = None) -> Acked:
        return await self._push("slash_commands", payload, retry_num)

    async def send_interactive(self, payload: dict[str, Any], retry_num: int | None = None) -> Acked:
        return await self._push("interactive", payload, retry_num)


# -- one complete round ---------------------------------------------------------------------------
@dataclass
class RoundResult:
    serials: dict[str, str]  # player -> the 8 digits dealt in round 1
    net: dict[str, int]
    lobby_ts: str
    table_ts: str


async def play_round(d: Driver) -> RoundResult:
    """Alice opens by slash command, Bob joins by button, Carol by slash command, Alice deals by button;
    the opener bids through the Raise… modal, the next player challenges by button, the last by slash
    command; the bid is counted; the ledger is read back."""
    fake, bot, key = d.fake, d.bot, key_of(d.fake)
    reply = await d.slash(ALICE, "start classic 1")
    assert reply.response_type == "ephemeral" and reply.text is not None and "You opened a table" in reply.text
    lobby_ts = bot.service.panel(key, "lobby")
    assert lobby_ts is not None and fake.message(CHANNEL, lobby_ts) is not None

    reply = await d.click(BOB, lobby_ts, "join")
    assert reply.response_type == "ephemeral" and reply.text == "You are seated (2/12)."
    reply = await d.slash(CAROL, "join")
    assert reply.text == "You are seated (3/12)."
    lobby = fake.message(CHANNEL, lobby_ts)
    assert lobby is not None and all(f"<@{p}>" in lobby["text"] for p in NAMES)  # edited in place
    assert len([c for c in fake.messages_to(CHANNEL) if "opened a table" in c.params["text"]]) == 1

    reply = await d.click(ALICE, lobby_ts, "deal")
    assert reply.text == "Dealt. Check your DMs for your serial."
    table = bot.service.table(key)
    assert table is not None and serial_match(table).live_round is not None
    serials = {p: s.digits for p, s in live_round(table).serials.items()}
    assert sorted(serials) == sorted(NAMES)

    # Each DM carries exactly its own player's serial, with the fairness commitment.
    commitment = serial_match(table).logs[-1]["commitment"]
    for player in NAMES:
        dms = await fake.wait_for(functools.partial(fake.dms_to, player), description=f"{player}'s DM")
        assert len(dms) == 1
        text = blocks_text(dms[0].params)
        assert serials[player] in text and commitment in text
        assert not [s for p, s in serials.items() if p != player and s in text]

    table_ts = bot.service.panel(key, "table")
    assert table_ts is not None
    opener = live_round(table).to_act
    assert opener is not None
    panel = fake.message(CHANNEL, table_ts)
    assert panel is not None and f"<@{opener}> to act" in panel["text"]

    reply = await d.click(BOB, table_ts, "hand")  # "My serial": ephemeral, Bob's own serial only
    assert reply.response_type == "ephemeral" and serials[BOB] in (reply.text or "")
    reply = await d.click(CAROL, table_ts, "odds")
    assert reply.response_type == "ephemeral" and "Your odds" in (reply.text or "")

    view = await d.open_raise(opener, table_ts)
    quantities = [o["value"] for o in view["blocks"][1]["element"]["options"]]
    digits = [o["value"] for o in view["blocks"][2]["element"]["options"]]
    assert quantities[0] == "1" and sorted(digits) == [str(n) for n in range(10)]
    assert await d.submit_raise(opener, view, "2", "7") == "Bid placed."
    panel = fake.message(CHANNEL, table_ts)
    assert panel is not None and "*2 sevens*" in panel["text"]

    second = live_round(table).to_act
    assert second is not None and second != opener
    reply = await d.click(second, table_ts, "challenge")
    assert reply.text == "You challenged."
    third = live_round(table).to_act
    assert third is not None and third not in (opener, second)
    # Each turn is pinged by one small new message (edits notify nobody); the previous ping goes.
    def pings(player: str) -> list[Any]:
        return [c for c in fake.messages_to(CHANNEL) if c.params["text"].startswith(f"🔔 <@{player}>")]

    await fake.wait_for(lambda: pings(third), description="the ping for the third player")
    earlier = pings(second)
    assert len(earlier) == 1
    await fake.wait_for(
        lambda: [c for c in fake.calls("chat.delete") if c.params.get("ts") == earlier[0].response["ts"]],
        description="the second player's ping deleted",
    )
    reply = await d.slash(third, "challenge")
    assert reply.text == "You challenged."

    counts = await fake.wait_for(lambda: [c for c in fake.messages_to(CHANNEL) if "The count" in c.params["text"]],
                                 description="the count message")
    count_text = counts[0].params["text"]
    outcome = serial_match(table).last_outcome
    assert outcome is not None and outcome.bidder == opener and str(outcome.bid) == "2 sevens"
    n = outcome.count
    assert (f"There are *{n}* sevens" if n != 1 else "There is *1* seven") in count_text
    assert all(s in count_text for s in serials.values())
    assert ("The bid is made" in count_text) == outcome.made
    net = dict(outcome.net)
    assert sum(net.values()) == 0 and set(net) == set(NAMES)

    reply = await d.slash(BOB, "ledger")
    assert reply.response_type == "ephemeral" and reply.text is not None
    for player, units in net.items():
        assert f"{NAMES[player]}: {signed_units(units, DEFAULT_SETTINGS)}" in reply.text
    assert "Sum: 0 this period, 0 all time." in reply.text
    return RoundResult(serials, net, lobby_ts, table_ts)


def assert_no_serial_before_count(d: Driver) -> int:
    """No channel message (chat.postMessage to the channel, chat.update, in_channel response_url post)
    shows a serial of a round before that round's count; ephemerals show only their reader's serial.
    Returns how many outputs were checked."""
    fake, bot = d.fake, d.bot
    table = bot.service.table(key_of(fake))
    assert table is not None
    rounds = [log["serials"] for log in serial_match(table).logs]  # player -> serial text, per round
    counts = [c.timestamp for c in fake.calls("chat.postMessage") if c.ok and "The count" in c.params["text"]]
    assert counts, "no round was counted"

    def secret_until(i: int) -> float:
        return counts[i] if i < len(counts) else float("inf")

    checked = 0
    outputs: list[tuple[float, str, str | None]] = []  # (when, what it shows, the one reader or None)
    for call in fake.calls():
        if not call.ok:
            continue
        if call.method == "chat.postMessage" and call.response and not str(call.response["channel"]).startswith("D"):
            outputs.append((call.timestamp, blocks_text(call.params), None))
        elif call.method == "chat.update":
            outputs.append((call.timestamp, blocks_text(call.params), None))
        elif call.method == "chat.postEphemeral":
            outputs.append((call.timestamp, blocks_text(call.params), str(call.params["user"])))
    for post in fake.response_url_posts():
        reader = None if post.response_type == "in_channel" else d.who[post.url]
        outputs.append((post.timestamp, blocks_text(post.body), reader))
    for when, shown, reader in outputs:
        for i, serials in enumerate(rounds):
            if when >= secret_until(i) and "The count" in shown:
                continue
            if when > secret_until(i):
                continue
            for player, serial in serials.items():
                digits = Serial.parse(serial).digits
                if player != reader:
                    assert digits not in shown, f"{player}'s serial {digits} shown to {reader or 'the channel'}"
        checked += 1
    return checked
