"""The real Slack adapter over Socket Mode: ``apps.connections.open`` returns a ws://127.0.0.1 URL on the
fake Slack, which pushes slash-command and interactive envelopes and records the envelope acks."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from adapters.pictures import worker
from adapters.slack.app import connect_socket
from adapters.slack.config import SlackConfig
from tests.adapters.slack.harness import (
    ACK_LIMIT,
    ALICE,
    APP_TOKEN,
    BOB,
    BOT_TOKEN,
    CAROL,
    SocketDriver,
    assert_no_serial_before_count,
    event_count,
    key_of,
    ledger_rows,
    make_bot,
    play_round,
)
from tests.fakes.slack_server import PROXY_VARS, FakeSlack
from tests.typed import live_round, serial_match

ROOT = Path(__file__).resolve().parents[2]



@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    async with FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN) as server:
        yield server


@pytest_asyncio.fixture
async def driver(fake: FakeSlack, db: Path) -> AsyncIterator[SocketDriver]:
    bot = await make_bot(fake, db, socket=True)
    try:
        async with connect_socket(bot):  # closed before the fake stops, so the client does not reconnect
            await fake.wait_for_socket()
            yield SocketDriver(fake, bot)
    finally:
        await bot.close()


async def test_a_complete_three_player_round_over_socket_mode(driver: SocketDriver, fake: FakeSlack, db: Path) -> None:
    connect = fake.calls("apps.connections.open")  # the token checked once (a refused one is said), then the link
    assert len(connect) == 2 and all(c.token == APP_TOKEN for c in connect)

    result = await play_round(driver)

    # Every envelope was acknowledged, once, at once, with a bare ack (the answers go by response_url).
    envelopes = fake.envelopes()
    assert len(envelopes) == len(driver.acks) == 12  # 11 moves and a quantity chosen in the Raise… form
    for envelope in envelopes:
        acks = fake.acks(envelope.envelope_id)
        assert len(acks) == 1 and acks[0].payload is None
    assert max(a.elapsed for a in driver.acks) < ACK_LIMIT
    assert sorted((p, u) for _, p, u in ledger_rows(db)) == sorted(result.net.items())
    assert assert_no_serial_before_count(driver) > 20


async def test_a_redelivered_envelope_changes_nothing(driver: SocketDriver, fake: FakeSlack, db: Path) -> None:
    bot, key = driver.bot, key_of(fake)
    await driver.slash(ALICE, "start")
    await driver.slash(BOB, "join")
    join = fake.envelopes()[-1]
    await driver.slash(CAROL, "join")
    await driver.slash(ALICE, "deal")
    table = bot.service.table(key)
    table_ts = bot.service.panel(key, "table")
    assert table is not None and serial_match(table).live_round is not None and table_ts is not None
    opener = live_round(table).to_act
    assert opener is not None
    view = await driver.open_raise(opener, table_ts)
    assert await driver.submit_raise(opener, view, "3", "4") == "Bid placed."
    bid = fake.envelopes()[-1]
    assert bid.payload["type"] == "view_submission"
    before = (len(fake.calls()), len(fake.response_url_posts()), event_count(db), live_round(table).to_act)

    again = [await fake.redeliver(join), await fake.redeliver(bid, same_envelope_id=True)]
    for envelope in again:
        await fake.wait_for_ack(envelope.envelope_id)  # a redelivery is acknowledged like any envelope
    await fake.wait_for(lambda: [s for _, s in bot.processed].count("duplicate") == 2)

    assert (len(fake.calls()), len(fake.response_url_posts()), event_count(db), live_round(table).to_act) == before
    assert str(live_round(table).standing_bid) == "3 fours" and table.seats == [ALICE, BOB, CAROL]


async def test_the_liars_slack_process_connects_by_socket_mode(fake: FakeSlack, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARS and not k.startswith("SLACK_")}
    env.update(SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_APP_TOKEN=APP_TOKEN, SLACK_API_URL=fake.api_base,
               LIARS_DB=str(tmp_path / "liars.sqlite3"), LIARS_COMPUTER_DELAY="0")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "slack", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    assert proc.stderr is not None
    drain = asyncio.create_task(proc.stderr.read())
    try:
        await fake.wait_for_socket(timeout=20)
        envelope = await fake.push_slash_command("start classic 1 4 1", user_id=ALICE)
        ack = await fake.wait_for_ack(envelope.envelope_id)
        assert ack.payload is None and ack.timestamp - envelope.timestamp < ACK_LIMIT
        posts = await fake.wait_for(lambda: fake.response_url_posts(envelope.payload["response_url"]))
        assert (posts[0].text or "").startswith("You opened a table")
        lobby = await fake.wait_for(lambda: fake.messages_to("C0GAME"))
        assert "Gekko" in lobby[0].params["text"]  # a computer player is named, not mentioned
    finally:
        await fake.wait_for_socket()
        proc.send_signal(signal.SIGTERM)
        async with asyncio.timeout(10):
            await proc.wait()
    log = (await drain).decode()
    assert proc.returncode == 0, log
    assert "Traceback" not in log and " ERROR " not in log, log


async def test_malformed_envelopes_are_acknowledged_and_dropped_with_one_line(
    driver: SocketDriver, fake: FakeSlack, db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    await driver.slash(ALICE, "start")
    before = (len(fake.calls()), len(fake.response_url_posts()), event_count(db))
    no_user = fake.slash_command("join")
    del no_user["user_id"]
    click = fake.block_actions("liars:join", "T0FAKE:C0GAME", message_ts="1.000001", user_id=BOB)
    del click["actions"][0]["action_id"]
    forged = [
        ("slash_commands", no_user),
        ("interactive", click),
        ("interactive", {**click, "user": "U0BOB"}),
        ("interactive", {"type": "view_submission", "user": {"id": BOB}, "view": "not an object"}),
        ("interactive", {"type": "message_action", "user": {"id": BOB}}),  # a kind the bot does not handle
        ("events_api", {"type": "event_callback", "event": {"type": "app_mention"}}),
    ]
    for kind, payload in forged:
        caplog.clear()
        with caplog.at_level(logging.INFO):
            envelope = await fake.push_envelope(kind, payload)
            await fake.wait_for_ack(envelope.envelope_id)  # acknowledged, so Slack does not send it again
        warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warnings) == 1, [r.getMessage() for r in caplog.records]
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]

    assert (len(fake.calls()), len(fake.response_url_posts()), event_count(db)) == before
    assert (await driver.slash(BOB, "join")).text == "You are seated (2/12)."


async def test_a_refused_app_token_is_said_once_and_ends_the_process(fake: FakeSlack, tmp_path: Path) -> None:
    """A wrong SLACK_APP_TOKEN: slack_sdk retried every 10 s for ever, a traceback each time, and SIGTERM did
    nothing (the stop was awaited only once connected)."""
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARS and not k.startswith("SLACK_")}
    env.update(SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_APP_TOKEN="xapp-wrong", SLACK_API_URL=fake.api_base,
               LIARS_DB=str(tmp_path / "liars.sqlite3"))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "slack", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    try:
        async with asyncio.timeout(30):
            _, stderr = await proc.communicate()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    log = stderr.decode()
    assert proc.returncode == 1, log
    assert "SLACK_APP_TOKEN was refused" in log and "Traceback" not in log, log


async def test_a_stop_while_socket_mode_is_still_connecting_ends_the_bot(fake: FakeSlack, tmp_path: Path) -> None:
    """SIGTERM before Socket Mode connected (Slack unreachable, slack_sdk retrying) was never acted on."""
    from adapters.slack.app import run

    config = SlackConfig(bot_token=BOT_TOKEN, app_token=APP_TOKEN, api_url=fake.api_base,
                         db_path=str(tmp_path / "liars.sqlite3"))
    fake.hold_socket = True  # the websocket never answers: connecting goes on
    stop = asyncio.Event()
    running = asyncio.create_task(run(config, stop=stop))
    await asyncio.sleep(1.0)
    assert not running.done()
    stop.set()
    async with asyncio.timeout(20):
        assert await running == 0
    # the picture worker it started is stopped and joined by the stop, not left to the interpreter's exit (whose
    # hook raced the executor's thread when a group SIGTERM had killed the worker too)
    assert worker._pool is None


@pytest.mark.parametrize("case", ["port taken", "api unreachable"])
async def test_a_start_up_failure_is_one_line_naming_the_setting(case: str, fake: FakeSlack, tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    """A taken PORT, or a SLACK_API_URL nothing answers at, ended in a traceback."""
    from adapters.slack.app import run

    caplog.set_level(logging.INFO)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        api = fake.api_base if case == "port taken" else f"http://127.0.0.1:{port}/api/"  # (listens, never answers)
        if case == "api unreachable":
            busy.close()  # nothing listens there now
        config = SlackConfig(bot_token=BOT_TOKEN, signing_secret="s", api_url=api, port=port,
                             db_path=str(tmp_path / "liars.sqlite3"))
        assert await asyncio.wait_for(run(config, host="127.0.0.1", stop=asyncio.Event()), timeout=30) == 1
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info is None, caplog.text
    said = errors[0].getMessage()
    assert ("PORT" in said) if case == "port taken" else ("SLACK_API_URL" in said), said
    # a process that cannot listen touched no table: it redrew every open one and started the timers first
    assert not any("redrawing" in r.getMessage() for r in caplog.records), caplog.text


@pytest.mark.parametrize(("failure", "said"), [
    ({"error": "invalid_auth"}, "SLACK_BOT_TOKEN was refused by "),
    ({"error": "fatal_error", "status": 500}, "could not check SLACK_BOT_TOKEN: fatal_error"),
    ({"error": "x", "status": 500, "plain": "Internal Server Error"}, "answered HTTP 500, not a Slack answer"),
    ({"error": "x", "status": 200, "plain": "<html>a captive portal</html>"}, "answered HTTP 200, not a Slack answer"),
])
async def test_the_bot_token_check_says_whether_the_token_or_the_api_is_the_matter(
        failure: dict[str, Any], said: str, fake: FakeSlack, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Any error of auth.test at start was "SLACK_BOT_TOKEN was refused … : 500" (or ": 200" for a proxy's HTML page):
    an operator would reset a good token."""
    from adapters.slack.app import run

    fake.fail_method("auth.test", **failure)
    config = SlackConfig(bot_token=BOT_TOKEN, signing_secret="s", api_url=fake.api_base, port=0,
                         db_path=str(tmp_path / "liars.sqlite3"))
    assert await asyncio.wait_for(run(config, host="127.0.0.1", stop=asyncio.Event()), timeout=30) == 1
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and said in errors[0], errors
    assert ("refused" in errors[0]) == (failure["error"] == "invalid_auth"), errors


async def test_a_stop_before_slack_answers_the_token_check_ends_the_bot_at_once(tmp_path: Path) -> None:
    """SIGTERM while auth.test waited on a Slack that did not answer was acted on only at the client's 30 s
    timeout — past the platform's grace before SIGKILL — and then as an ERROR, exit 1."""
    from adapters.slack.app import run

    with socket.socket() as silent:  # listens, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        config = SlackConfig(bot_token=BOT_TOKEN, signing_secret="s", port=0,
                             api_url=f"http://127.0.0.1:{silent.getsockname()[1]}/api/",
                             db_path=str(tmp_path / "liars.sqlite3"))
        stop = asyncio.Event()
        running = asyncio.create_task(run(config, host="127.0.0.1", stop=stop))
        await asyncio.sleep(0.5)
        assert not running.done()
        stop.set()
        assert await asyncio.wait_for(running, timeout=5) == 0


async def test_a_passing_slack_error_at_start_is_no_refused_token(fake: FakeSlack, db: Path,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    """The start-up token check took any error for a refused token: a 503 from Slack, or a rate limit, ended
    the bot with "SLACK_APP_TOKEN was refused"."""
    fake.fail_method("apps.connections.open", "service_unavailable", times=1, status=503)
    bot = await make_bot(fake, db, socket=True)
    try:
        async with connect_socket(bot):
            await fake.wait_for_socket()
    finally:
        await bot.close()
    assert "SLACK_APP_TOKEN was refused" not in caplog.text
    assert "connecting all the same" in caplog.text


async def test_an_app_token_without_its_scope_is_refused_once(fake: FakeSlack, db: Path) -> None:
    """`missing_scope` (an app token without connections:write) was connected through and retried for ever."""
    from adapters.slack.app import AppTokenRefused

    fake.fail_method("apps.connections.open", "missing_scope", times=1)
    bot = await make_bot(fake, db, socket=True)
    try:
        with pytest.raises(AppTokenRefused, match="missing_scope"):
            async with connect_socket(bot):
                pass
    finally:
        await bot.close()


async def test_socket_mode_serves_its_metrics_on_a_port_of_their_own(fake: FakeSlack, tmp_path: Path,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    """Socket Mode serves no HTTP, so it had no /metrics at all: `LIARS_METRICS_PORT` now serves them as
    `liars discord` does, and the commands that arrive over the socket are counted there."""
    import re

    import aiohttp

    from adapters.slack.app import run

    caplog.set_level(logging.INFO)
    config = SlackConfig.from_env({"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_APP_TOKEN": APP_TOKEN,
                                   "SLACK_API_URL": fake.api_base, "LIARS_METRICS_PORT": "0",
                                   "LIARS_METRICS_HOST": "127.0.0.1"}, db_path=str(tmp_path / "liars.sqlite3"))
    stop = asyncio.Event()
    running = asyncio.create_task(run(config, stop=stop))
    try:
        await fake.wait_for_socket()
        served = re.search(r"serving metrics at (http://127\.0\.0\.1:\d+)/metrics", caplog.text)
        assert served is not None, caplog.text
        async with aiohttp.ClientSession() as http:

            async def requests() -> float:
                async with http.get(served.group(1) + "/metrics") as resp:
                    assert resp.status == 200
                    text = await resp.text()
                found = re.search(r'^liars_requests_total\{outcome="ok",platform="slack"\} (\S+)$', text, re.M)
                return float(found.group(1)) if found else 0.0

            before = await requests()
            envelope = await fake.push_slash_command("help", user_id=ALICE)
            await fake.wait_for_ack(envelope.envelope_id)
            for _ in range(100):  # (counted as the command ends, just after its ack)
                if await requests() > before:
                    break
                await asyncio.sleep(0.05)
            assert await requests() == before + 1
            async with http.get(served.group(1) + "/healthz") as resp:
                assert resp.status == 200 and await resp.text() == "ok"
    finally:
        stop.set()
        async with asyncio.timeout(20):
            assert await running == 0
    with socket.socket() as probe:  # the exporter stopped with the bot
        assert probe.connect_ex(("127.0.0.1", int(served.group(1).rsplit(":", 1)[1]))) != 0


async def test_a_taken_metrics_port_ends_socket_mode_before_any_table_is_touched(
        fake: FakeSlack, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from adapters.slack.app import run

    caplog.set_level(logging.INFO)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        config = SlackConfig(bot_token=BOT_TOKEN, app_token=APP_TOKEN, api_url=fake.api_base,
                             db_path=str(tmp_path / "liars.sqlite3"), metrics_port=busy.getsockname()[1],
                             metrics_host="127.0.0.1")
        assert await asyncio.wait_for(run(config, stop=asyncio.Event()), timeout=30) == 1
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info is None and "LIARS_METRICS_PORT" in errors[0].getMessage()
    assert not any("redrawing" in r.getMessage() for r in caplog.records) and not fake.calls("apps.connections.open")


async def test_a_start_with_the_token_in_the_environment_warns_of_nothing(
        fake: FakeSlack, db: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """bolt read SLACK_BOT_TOKEN from the environment itself and warned at every start "As you gave `client` as well,
    `token` will be unused" — the client carries that same token."""
    monkeypatch.setenv("SLACK_BOT_TOKEN", BOT_TOKEN)
    caplog.set_level(logging.INFO)
    bot = await make_bot(fake, db, socket=True)
    await bot.close()
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
