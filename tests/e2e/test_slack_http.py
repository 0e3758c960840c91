"""The real Slack adapter (slack-bolt AsyncApp served by aiohttp) against a fake Slack on 127.0.0.1.

Every request is signed as Slack signs it; every acknowledgement is checked to arrive well inside
Slack's 3 seconds; the Web API calls the adapter makes are what the assertions read.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import signal
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from adapters.slack.app import serve_http
from bot.model import TableKey
from tests.adapters.slack.harness import (
    ACK_LIMIT,
    ALICE,
    BOB,
    BOT_TOKEN,
    CAROL,
    CHANNEL,
    NAMES,
    SECRET,
    HttpDriver,
    assert_no_serial_before_count,
    blocks_text,
    event_count,
    key_of,
    ledger_rows,
    play_round,
)
from tests.fakes.slack_server import (
    PROXY_VARS,
    FakeSlack,
    build_signed_request,
    form_encode,
    interactive_body,
    post_to_app,
)
from tests.typed import live_round, serial_match

ROOT = Path(__file__).resolve().parents[2]



async def test_a_complete_three_player_round_over_http(driver: HttpDriver, db: Path) -> None:
    result = await play_round(driver)

    # 11 moves, and the choice of a quantity in the Raise… form (the digits are re-listed for it)
    assert len(driver.acks) == 12 and max(a.elapsed for a in driver.acks) < ACK_LIMIT
    rows = ledger_rows(db)
    assert sorted((p, u) for _, p, u in rows) == sorted(result.net.items())
    assert {s for s, _, _ in rows} == {"slack:T0FAKE"}  # the workspace is the ledger's server
    assert assert_no_serial_before_count(driver) > 20
    # The service dealt the next round at once: one more DM each, and a fresh table message.
    await driver.fake.wait_for(lambda: all(len(driver.fake.dms_to(p)) == 2 for p in NAMES))
    assert driver.bot.service.panel(key_of(driver.fake), "table") != result.table_ts


async def test_the_ack_comes_back_before_the_web_api_work(driver: HttpDriver) -> None:
    fake = driver.fake
    fake.hold("chat.postMessage")  # the lobby post stalls until released
    payload = fake.slash_command("start", user_id=ALICE, user_name="alice")
    body, headers = build_signed_request(form_encode(payload), SECRET)

    resp = await post_to_app(driver.url, body, headers)

    assert resp.status == 200 and resp.body == "" and resp.elapsed < ACK_LIMIT
    held = await fake.wait_for(lambda: fake.calls("chat.postMessage"))
    assert held[0].response is None  # acknowledged while the table's message was still waiting on Slack
    # the answer goes first (see test_slack_door), so it does not wait for the lobby either
    reply = await driver.reply_to(payload["response_url"], settle=False)
    assert reply.text is not None and reply.text.startswith("You opened a table")
    fake.release("chat.postMessage")
    await driver.settled()
    assert driver.bot.service.panel(key_of(fake), "lobby") is not None


@pytest.mark.parametrize("variant", ["unsigned", "wrong_signature", "stale", "tampered"])
async def test_badly_signed_requests_get_401_and_change_nothing(driver: HttpDriver, db: Path, variant: Any) -> None:
    fake, bot = driver.fake, driver.bot
    await driver.slash(ALICE, "start")
    lobby_ts = bot.service.panel(key_of(fake), "lobby")
    assert lobby_ts is not None
    before = (len(fake.calls()), len(fake.response_url_posts()), event_count(db), len(bot.processed))

    join = form_encode(fake.slash_command("join", user_id=BOB))
    click = interactive_body(driver.click_payload(CAROL, lobby_ts, "join"))
    for body in (join, click):
        body, headers = build_signed_request(body, SECRET, variant=variant)
        resp = await post_to_app(driver.url, body, headers)
        assert resp.status == 401 and json.loads(resp.body) == {"error": "invalid request"}

    assert (len(fake.calls()), len(fake.response_url_posts()), event_count(db), len(bot.processed)) == before
    table = bot.service.table(key_of(fake))
    assert table is not None and table.seats == [ALICE]


async def test_requests_that_are_not_http_are_answered_400_and_logged_once_a_minute_not_as_errors(
        driver: HttpDriver, caplog: pytest.LogCaptureFixture) -> None:
    """A URL or header over 8 KB (a scanner's probe) was an ERROR with a traceback, one a request: anyone could fill
    the log.  Now a WARNING a minute, with a count; the sender is still answered 400."""
    host, port = driver.url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    caplog.set_level(logging.INFO)
    for _ in range(3):
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(b"GET /healthz?" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        await writer.drain()
        assert (await reader.read(100)).startswith(b"HTTP/1.0 400 Bad Request"), "answered 400"
        writer.close()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    said = [r.getMessage() for r in caplog.records if "malformed HTTP requests" in r.getMessage()]
    assert errors == [] and len(said) <= 1, caplog.text  # (one a minute: the first, or one said earlier this minute)


async def test_a_retried_request_changes_nothing(driver: HttpDriver, fake: FakeSlack, db: Path) -> None:
    bot = driver.bot
    await driver.slash(ALICE, "start")
    lobby_ts = bot.service.panel(key_of(fake), "lobby")
    assert lobby_ts is not None
    join = fake.slash_command("join", user_id=BOB, user_name="bob")
    driver.who[join["response_url"]] = BOB
    await driver.send_slash(join)
    first = await driver.reply_to(join["response_url"])
    click = driver.click_payload(CAROL, lobby_ts, "join")
    await driver.send_interactive(click)
    await driver.reply_to(click["response_url"])
    before = (len(fake.calls()), len(fake.response_url_posts()), event_count(db))

    await driver.send_slash(join, retry_num=1)  # same body, X-Slack-Retry-Num: 1
    await driver.send_interactive(click, retry_num=1)
    await fake.wait_for(lambda: [s for _, s in bot.processed].count("duplicate") == 2)

    assert (len(fake.calls()), len(fake.response_url_posts()), event_count(db)) == before
    table = bot.service.table(key_of(fake))
    assert table is not None and table.seats == [ALICE, BOB, CAROL]

    # After a restart the adapter has forgotten the delivery; the service's request id still holds.
    bot = await driver.restart(db)
    async with serve_http(bot, "127.0.0.1", 0) as url:
        driver.url = url
        updates = len(fake.calls("chat.update")) + len(fake.calls("chat.postMessage"))
        await driver.send_slash(join, retry_num=2)
        again = await fake.wait_for(lambda: fake.response_url_posts(join["response_url"])[1:])
        assert again[0].text == first.text == "You are seated (2/12)."
        assert event_count(db) == before[2]
        assert len(fake.calls("chat.update")) + len(fake.calls("chat.postMessage")) == updates
        table = bot.service.table(key_of(fake))
        assert table is not None and table.seats == [ALICE, BOB, CAROL]


async def test_no_serial_reaches_the_channel_before_the_count(driver: HttpDriver) -> None:
    fake, bot, key = driver.fake, driver.bot, key_of(driver.fake)
    fake.fail_dm(CAROL, stage="post")  # Carol turned off the app's Messages tab
    await driver.slash(ALICE, "start")
    await driver.slash(BOB, "join")
    await driver.slash(CAROL, "join")
    await driver.slash(ALICE, "deal")
    table = bot.service.table(key)
    assert table is not None and serial_match(table).live_round is not None
    serials = {p: s.digits for p, s in live_round(table).serials.items()}

    hand = await driver.slash(CAROL, "hand")  # shows it again at any time, to her alone
    assert hand.response_type == "ephemeral" and serials[CAROL] in (hand.text or "")
    status = await driver.slash(BOB, "status")
    assert status.response_type == "ephemeral"
    fake.add_user("U0BOSS", name="boss", is_admin=True)
    settled = await driver.slash("U0BOSS", "sheet settle")  # a public reply: in_channel through response_url
    assert settled.response_type == "in_channel"
    opener = live_round(table).to_act
    assert opener is not None
    assert (await driver.slash(opener, "bid two fives")).text == "Bid placed."  # the engine's parser reads words
    for _ in range(2):
        to_act = live_round(table).to_act
        assert to_act is not None
        assert (await driver.slash(to_act, "challenge")).text == "You challenged."
    await fake.wait_for(lambda: [c for c in fake.messages_to(CHANNEL) if "The count" in c.params["text"]])

    assert assert_no_serial_before_count(driver) > 10
    # Carol's serial came as an ephemeral message in the channel instead of a DM, and only to her.
    fallback = fake.ephemerals_to(CAROL)
    assert fallback and serials[CAROL] in blocks_text(fallback[0].params)
    assert fallback[0].params["channel"] == CHANNEL and fake.dms_to(CAROL) == []


async def test_usage_dm_admin_and_kick(driver: HttpDriver, fake: FakeSlack) -> None:
    reply = await driver.slash(ALICE, "frobnicate now")
    assert reply.response_type == "ephemeral" and reply.text is not None
    assert "I don't know `frobnicate`" in reply.text and "`bid`" in reply.text
    assert "`start`" in ((await driver.slash(ALICE, "")).text or "")  # bare /liars: the commands
    dm = f"D{ALICE}"
    reply = await driver.slash(ALICE, "start", channel=dm, channel_name="directmessage")
    assert "Tables live in channels" in (reply.text or "")

    assert "Only a server admin" in ((await driver.slash(BOB, "config preset=salomon")).text or "")
    fake.add_user("U0BOSS", name="boss", is_admin=True)
    assert ((await driver.slash("U0BOSS", "config preset=salomon")).text or "").startswith("Settings saved")
    # A configured admin list, written with Slack mentions (escaped, and a name with a space):
    saved = (await driver.slash("U0BOSS", "config admins=<@U0BOB|bob smith>,<@U0CAROL|carol>")).text or ""
    assert saved.startswith("Settings saved") and "admins <@U0BOB>, <@U0CAROL>" in saved, saved  # not raw ids
    said = (await driver.slash(ALICE, "stats <@U0DAVE|dave>")).text or ""
    assert said.startswith("<@U0DAVE> has not played"), said  # one never seen here: as Slack names people
    assert ((await driver.slash(BOB, "config preset=classic")).text or "").startswith("Settings saved")

    await driver.slash(ALICE, "start")
    await driver.slash(BOB, "join")
    reply = await driver.slash(ALICE, "kick <@U0BOB|bob>")  # should_escape: true sends mentions like this
    assert reply.text == "bob was removed from the table."
    await driver.slash(CAROL, "join")
    await driver.slash(ALICE, "deal")
    table = driver.bot.service.table(key_of(fake))
    assert table is not None and serial_match(table).live_round is not None
    reply = await driver.slash(CAROL, "hand", channel=f"D{CAROL}", channel_name="directmessage")
    assert live_round(table).serials[CAROL].digits in (reply.text or "")  # by DM: the round she is in
    reply = await driver.slash(BOB, "hand", channel=f"D{BOB}", channel_name="directmessage")
    assert (reply.text or "").startswith("You hold nothing right now")


async def test_raise_by_command_and_the_count_button_after_a_challenge_all_around(driver: HttpDriver) -> None:
    fake, bot = driver.fake, driver.bot
    await driver.slash(ALICE, "start salomon")  # Salomon rules: a bidder challenged all around may rebid
    await driver.slash(BOB, "join")
    await driver.slash(ALICE, "deal")
    table = bot.service.table(key_of(fake))
    table_ts = bot.service.panel(key_of(fake), "table")
    assert table is not None and serial_match(table).live_round is not None and table_ts is not None
    bidder = live_round(table).to_act
    assert bidder is not None
    other = BOB if bidder == ALICE else ALICE

    refused = await driver.slash(other, "raise")
    assert refused.text == f"It is not your turn: {NAMES[bidder]} is to act."
    payload = fake.slash_command("raise", user_id=bidder)
    await driver.send_slash(payload)
    opened = await fake.wait_for(lambda: [c for c in fake.calls("views.open") if c.ok])
    assert opened[0].params["trigger_id"] == payload["trigger_id"]  # the modal, opened from the command
    assert opened[0].response is not None
    view = opened[0].response["view"]  # the modal as Slack stores it (with its id)
    assert await driver.submit_raise(bidder, view, "1", "6") == "Bid placed."
    assert (await driver.click(other, table_ts, "challenge")).text == "You challenged."
    panel = fake.message(CHANNEL, table_ts)
    assert panel is not None and "call the count or rebid" in panel["text"]

    assert (await driver.click(bidder, table_ts, "count")).text == "You called for the count."
    counts = await fake.wait_for(lambda: [c for c in fake.messages_to(CHANNEL) if "The count" in c.params["text"]])
    assert f"<@{bidder}> bid *1 six*" in counts[0].params["text"]


async def test_a_channel_the_bot_cannot_post_in_and_an_enterprise_grid_ledger(driver: HttpDriver) -> None:
    fake, bot = driver.fake, driver.bot
    fake.fail_method("chat.postMessage", "not_in_channel", times=1)
    payload = fake.slash_command("start", user_id=ALICE, channel_id="C0PRIVATE", enterprise_id="E0ORG")
    driver.who[payload["response_url"]] = ALICE
    await driver.send_slash(payload)
    # the answer first; then, when the lobby cannot be posted, a second private word through the same url
    first, second = await fake.wait_for(lambda: fake.response_url_posts(payload["response_url"])[:2] or None
                                        if len(fake.response_url_posts(payload["response_url"])) >= 2 else None)
    assert (first.text or "").startswith("You opened a table")
    assert "Invite me with `/invite @liars`" in (second.text or "") and second.response_type == "ephemeral"
    assert bot.service.table(key_of(fake, "C0PRIVATE")) is None  # the table belongs to the organisation
    assert bot.service.table(TableKey("slack", "E0ORG", "C0PRIVATE")) is not None
    reply = await driver.slash(BOB, "join", channel="C0PRIVATE", enterprise_id="E0ORG")
    assert reply.text == "You are seated (2/12)."  # and now the lobby shows up in the channel
    lobby = await fake.wait_for(lambda: fake.messages_to("C0PRIVATE"))
    assert "<@U0BOB>" in lobby[0].params["text"]


async def test_a_store_that_refuses_writes_gets_one_clear_private_answer(
    driver: HttpDriver, db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # a real failure: the database refuses to store the table's first events
    with sqlite3.connect(db) as conn:
        conn.execute(
            "CREATE TRIGGER fire BEFORE INSERT ON table_events BEGIN SELECT RAISE(ABORT, 'database on fire'); END"
        )
    with caplog.at_level(logging.WARNING):
        reply = await driver.slash(ALICE, "start")
    assert reply.response_type == "ephemeral" and reply.text is not None
    assert reply.text.startswith("The table could not be saved") and "fire" not in reply.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert any("database on fire" in r.getMessage() and r.levelno == logging.WARNING for r in caplog.records)
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TRIGGER fire")
    assert "You opened a table" in ((await driver.slash(ALICE, "start")).text or "")  # it recovers by itself


async def test_the_liars_slack_process_serves_http(fake: FakeSlack, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARS and not k.startswith("SLACK_")}
    env.update(SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_SIGNING_SECRET=SECRET, SLACK_API_URL=fake.api_base, PORT="0",
               LIARS_DB=str(tmp_path / "liars.sqlite3"), LIARS_COMPUTER_DELAY="0")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "slack", "--host", "127.0.0.1", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    assert proc.stderr is not None
    try:
        url = ""
        async with asyncio.timeout(20):
            while not url:
                line = (await proc.stderr.readline()).decode()
                assert line, "liars slack exited before serving"
                if m := re.search(r"serving Slack requests at (\S+)", line):
                    url = m.group(1)
        drain = asyncio.create_task(proc.stderr.read())  # keep the pipe from filling up
        payload = fake.slash_command("help", user_id=ALICE)
        body, headers = build_signed_request(form_encode(payload), SECRET)
        resp = await post_to_app(url, body, headers)
        assert resp.status == 200 and resp.elapsed < ACK_LIMIT
        posts = await fake.wait_for(lambda: fake.response_url_posts(payload["response_url"]))
        assert "Liar's Poker commands" in (posts[0].text or "")
        assert fake.calls("auth.test")[0].token == BOT_TOKEN
    finally:
        proc.send_signal(signal.SIGTERM)
        async with asyncio.timeout(10):
            await proc.wait()
    log = (await drain).decode()
    assert proc.returncode == 0, log
    assert "Traceback" not in log and " ERROR " not in log, log


async def test_a_user_lookup_that_fails_oddly_or_slowly_does_not_hold_up_the_answer(
    driver: HttpDriver, caplog: pytest.LogCaptureFixture
) -> None:
    """users.info answered by a proxy's plain-text 503 crashed the fallback itself (an apology and an ERROR);
    one rate-limited waited out Slack's Retry-After before the sender was answered."""
    fake = driver.fake
    fake.fail_method("users.info", "", status=503, plain="upstream connect error or disconnect/reset")
    with caplog.at_level(logging.WARNING):
        reply = await driver.slash(ALICE, "start")
    assert (reply.text or "").startswith("You opened a table")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert any("users.info for U0ALICE failed (503)" in r.getMessage() for r in caplog.records)
    fake.clear_failures()
    fake.fail_method("users.info", "ratelimited", retry_after=30)
    started = time.monotonic()
    reply = await driver.slash(BOB, "join")
    assert reply.text == "You are seated (2/12)." and time.monotonic() - started < 10


async def test_a_move_in_a_channel_the_bot_cannot_post_in_is_told_so_once(driver: HttpDriver) -> None:
    """Every refused channel message (the table's edit, the turn's ping, the count) told the mover again, up
    to four times for one move and all five uses Slack allows a response_url."""
    fake = driver.fake
    await driver.slash(ALICE, "start")
    await driver.slash(BOB, "join")
    await driver.slash(ALICE, "deal")
    table = driver.bot.service.table(key_of(fake))
    assert table is not None
    mover = live_round(table).to_act
    assert mover is not None
    fake.fail_method("chat.postMessage", "not_in_channel")
    fake.fail_method("chat.update", "not_in_channel")
    payload = fake.slash_command("bid 1 2", user_id=mover, channel_id=CHANNEL)
    driver.who[payload["response_url"]] = mover
    await driver.send_slash(payload)
    await driver.reply_to(payload["response_url"])
    posts = fake.response_url_posts(payload["response_url"])
    assert (posts[0].text or "") == "Bid placed."
    assert [p for p in posts if "Invite me" in (p.text or "")] and len(posts) == 2, [p.text for p in posts]


@pytest.mark.parametrize("how", ["rate limited", "no answer"])
async def test_a_rate_limited_delete_of_the_last_ping_pings_the_next_player_once(driver: HttpDriver, how: str) -> None:
    """The new turn's ping was posted, then the old one's delete hit a rate limit and the whole ping was sent
    again: the next player was pinged twice, and the delete removed their first ping, not the old one."""
    fake = driver.fake
    await driver.slash(ALICE, "start")
    await driver.slash(BOB, "join")
    await driver.slash(CAROL, "join")
    await driver.slash(ALICE, "deal")
    table = driver.bot.service.table(key_of(fake))
    assert table is not None
    assert (await driver.slash(live_round(table).to_act or "", "bid 1 3")).text == "Bid placed."
    if how == "rate limited":
        fake.fail_method("chat.delete", "ratelimited", times=3, retry_after=1)  # beyond slack_sdk's own retries
    else:  # the connection dropped (slack_sdk's connection retry handler tries once more)
        fake.fail_method("chat.delete", "", times=4, drop=True)
    assert (await driver.slash(live_round(table).to_act or "", "challenge")).text == "You challenged."
    await driver.settled()
    to_act = live_round(table).to_act
    pinged = [c for c in fake.messages_to(CHANNEL) if c.params["text"].startswith(f"🔔 <@{to_act}>")]
    assert len(pinged) == 1
    pings = [(c, str(c.response["ts"])) for c in fake.messages_to(CHANNEL)
             if c.params["text"].startswith("🔔") and c.response is not None]
    live = [c for c, ts in pings if fake.message(CHANNEL, ts) is not None]  # the others deleted
    assert len(pings) == 2 and live == pinged  # the ping after the bid, then this one


async def test_what_slack_sends_escaped_is_read_and_quoted_as_typed(driver: HttpDriver) -> None:
    """Slack sends `< > &` as entities: `start R&D` was quoted back as 'R&amp;D' (escaped twice), `/liars <oops>`
    as `&lt;oops&gt;`."""
    refused = await driver.slash(ALICE, "start R&amp;D")
    assert "'R&amp;D'" in (refused.text or "") and "&amp;amp;" not in (refused.text or ""), refused.text
    unknown = await driver.slash(ALICE, "&lt;oops&gt;")
    assert "&lt;oops&gt;" in (unknown.text or "") and "&amp;lt;" not in (unknown.text or ""), unknown.text


async def test_an_emoji_currency_arrives_as_its_code_and_is_kept(driver: HttpDriver, fake: FakeSlack) -> None:
    """`config currency=💰` on Slack arrives as `currency=:moneybag:` (an emoji typed in a command is sent as its
    code): it was refused as longer than 8 characters, one having been typed.  Slack shows the code as the emoji."""
    fake.add_user("U0BOSS", name="boss", is_admin=True)
    saved = await driver.slash("U0BOSS", "config currency=:moneybag:")
    assert saved.text is not None and saved.text.startswith("Settings saved"), saved.text
    assert ":moneybag:" in ((await driver.slash("U0BOSS", "config")).text or "")
    toned = await driver.slash("U0BOSS", "config currency=:+1::skin-tone-2:")  # an emoji with a skin tone
    assert toned.text is not None and toned.text.startswith("Settings saved"), toned.text
    too_long = await driver.slash("U0BOSS", "config currency=moneybags")  # not a code: 9 characters, as before
    assert too_long.text is not None and too_long.text.startswith("The currency label is 1 to 8 characters")


async def test_a_bare_move_in_a_dm_says_tables_live_in_channels(driver: HttpDriver) -> None:
    """A bare `/liars bid` in a DM said "There is no table in this channel. Open one with `start`."."""
    for verb in ("bid", "declare", "discard"):
        answer = await driver.slash(ALICE, verb, channel=f"D{ALICE}")
        assert answer.response_type == "ephemeral" and "no table in this channel" not in (answer.text or "")
        assert answer.text == (await driver.slash(ALICE, "start", channel=f"D{ALICE}")).text


async def test_hand_by_dm_answers_for_six_tables_in_one_message(driver: HttpDriver) -> None:
    """A response_url takes five answers: a player at six tables who asked `/liars hand` in the app's DM had the
    sixth table's serial lost.  Beyond five, one answer holds them all."""
    channels = [f"C0T{i}" for i in range(6)]
    for channel in channels:
        await driver.slash(ALICE, "start", channel=channel)
        await driver.slash(CAROL, "join", channel=channel)
        await driver.slash(ALICE, "deal", channel=channel)
    serials = []
    for channel in channels:
        table = driver.bot.service.table(key_of(driver.fake, channel))
        assert table is not None
        serials.append(live_round(table).serials[CAROL].digits)
    reply = await driver.slash(CAROL, "hand", channel=f"D{CAROL}", channel_name="directmessage")
    assert all(serial in (reply.text or "") for serial in serials), reply.text
