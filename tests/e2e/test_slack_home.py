"""The App Home tab: ``app_home_opened`` → ``views.publish`` with the player's figures, their tables and how
to play; the event comes through the door (signed, shape-checked) over HTTP and over Socket Mode."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from adapters.slack.app import connect_socket
from bot.messages import signed_units
from bot.settings import DEFAULT_SETTINGS
from tests.adapters.slack.harness import (
    ACK_LIMIT,
    ALICE,
    APP_TOKEN,
    BOB,
    BOT_TOKEN,
    CHANNEL,
    SECRET,
    HttpDriver,
    make_bot,
    play_round,
)
from tests.fakes.slack_server import FakeSlack, build_signed_request, post_to_app

JSON = "application/json"


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    async with FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN) as server:
        yield server


async def _event(d: HttpDriver, body: dict[str, Any]) -> tuple[int, str]:
    raw, headers = build_signed_request(json.dumps(body).encode(), SECRET, content_type=JSON)
    resp = await post_to_app(d.url, raw, headers)
    assert resp.elapsed < ACK_LIMIT
    return resp.status, resp.body


async def _home(d: HttpDriver, user: str) -> str:
    """Open ``user``'s Home tab; everything the published view shows."""
    before = len(d.fake.calls("views.publish"))
    status, _ = await _event(d, d.fake.app_home_opened(user))
    assert status == 200
    calls = await d.fake.wait_for(lambda: d.fake.calls("views.publish")[before:], description="views.publish")
    call = calls[0]
    assert call.ok and call.params["user_id"] == user
    view = call.params["view"]
    view = json.loads(view) if isinstance(view, str) else view
    assert view["type"] == "home"
    return json.dumps(view["blocks"], ensure_ascii=False)


async def test_the_home_tab_shows_the_players_figures_tables_and_how_to_play(driver: HttpDriver,
                                                                            caplog: pytest.LogCaptureFixture) -> None:
    fresh = await _home(driver, BOB)
    assert "no settled round" in fresh and "not seated" in fresh
    assert "Liar's Poker (serial numbers)" in fresh and "Liar's Poker with cards" in fresh  # how to play both

    result = await play_round(driver)  # one counted round: the next is dealt at once
    shown = await _home(driver, ALICE)
    period = driver.bot.service.rt.period()
    net = result.net[ALICE]
    assert f"for {period}: *{signed_units(net, DEFAULT_SETTINGS)}*" in shown
    assert f"all time {signed_units(net, DEFAULT_SETTINGS)}" in shown
    board = await driver.slash(ALICE, "leaderboard all skill serial")
    lines = [line for line in (board.text or "").split("\n") if "alice" in line]
    place = int(re.findall(r"\d+", lines[0])[0])
    stats = await driver.slash(ALICE, "stats")
    rating = re.findall(r"rating (\d+)", stats.text or "", re.IGNORECASE)[0]
    assert f"rating *{rating}*" in shown and f"#{place} on the all-time board" in shown
    assert f"<#{CHANNEL}>" in shown and ("round under way" in shown or "your turn" in shown)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


async def test_home_events_pass_the_door(driver: HttpDriver, caplog: pytest.LogCaptureFixture) -> None:
    fake = driver.fake
    no_user = fake.app_home_opened(BOB)
    del no_user["event"]["user"]
    assert (await _event(driver, no_user))[0] == 400
    other = fake.app_home_opened(BOB)
    other["event"]["type"] = "member_joined_channel"
    assert (await _event(driver, other)) == (200, "")
    assert (await _event(driver, fake.app_home_opened(BOB, tab="messages")))[0] == 200
    # Event Subscriptions' handshake: bolt echoes the challenge
    status, body = await _event(driver, {"type": "url_verification", "challenge": "c-123", "token": "t"})
    assert status == 200 and "c-123" in body
    unsigned = json.dumps(fake.app_home_opened(BOB)).encode()
    _, headers = build_signed_request(unsigned, SECRET, variant="unsigned", content_type=JSON)
    assert (await post_to_app(driver.url, unsigned, headers)).status == 401
    await driver.settled()
    assert fake.calls("views.publish") == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


async def test_the_home_tab_over_socket_mode(fake: FakeSlack, tmp_path: Path) -> None:
    bot = await make_bot(fake, tmp_path / "liars.sqlite3", socket=True)
    try:
        async with connect_socket(bot):
            await fake.wait_for_socket()
            envelope = await fake.push_envelope("events_api", fake.app_home_opened(BOB))
            await fake.wait_for_ack(envelope.envelope_id)
            [call] = await fake.wait_for(lambda: fake.calls("views.publish"))
            assert call.ok and call.params["user_id"] == BOB
    finally:
        await bot.close()


async def test_the_home_tab_of_a_month_only_workspace_speaks_of_this_month(driver: HttpDriver) -> None:
    """With history=month and nothing played this month, the Home tab said "no settled round on this workspace
    yet", as if nothing had ever been played."""
    driver.fake.add_user("U0BOSS", name="boss", is_admin=True)
    assert (await driver.slash("U0BOSS", "config history=month")).text
    shown = await _home(driver, BOB)
    period = driver.bot.service.rt.period()
    assert f"no settled round on this workspace in {period} yet" in shown, shown
    assert "this month's figures only" in shown


async def test_the_home_tab_lists_the_tables_another_worker_holds_as_they_stand(driver: HttpDriver, fake: FakeSlack,
                                                                                db: Path) -> None:
    """With two workers on one database, the Home tab listed only the tables the worker serving it had loaded,
    as it last saw them: a table opened (then dealt) on the other worker was missing, or a lobby."""
    from adapters.slack.app import serve_http

    other_bot = await make_bot(fake, db)
    other = HttpDriver(fake, other_bot)
    try:
        async with serve_http(other_bot, "127.0.0.1", 0) as url:
            other.url = url
            await other.slash(ALICE, "start")
            await other.slash(BOB, "join")
            assert "in the lobby (2 seated)" in await _home(driver, BOB)
            await other.slash(ALICE, "deal")
            shown = await _home(driver, BOB)
            assert f"<#{CHANNEL}>" in shown and ("round under way" in shown or "your turn" in shown), shown
    finally:
        await other_bot.close()
