"""One workspace's token (``SLACK_BOT_TOKEN``): the workspace removes the app (``app_uninstalled``) or revokes its
bot token (``tokens_revoked``).  Unhandled, bolt answered Slack 404 (which Slack retries), logged a page suggesting
code, and the workspace's tables stayed open, their timers calling Slack with a dead token (session 37)."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest

from tests.adapters.slack.harness import ALICE, BOT_TOKEN, SECRET, key_of, serving
from tests.fakes.slack_server import FakeSlack, build_signed_request, post_to_app


def _body(fake: FakeSlack, event: dict[str, Any]) -> bytes:
    return json.dumps({
        "token": "x", "team_id": fake.team_id, "api_app_id": fake.app_id, "type": "event_callback",
        "event_id": f"Ev{time.time_ns()}", "event_time": int(time.time()), "is_enterprise_install": False,
        "event": {**event, "event_ts": f"{time.time():.6f}"},
        "authorizations": [{"team_id": fake.team_id, "user_id": fake.bot_user_id, "is_bot": True}]}).encode()


@pytest.mark.parametrize("event", [{"type": "app_uninstalled"},
                                   {"type": "tokens_revoked", "tokens": {"oauth": [], "bot": ["UBOT"]}}],
                         ids=["app_uninstalled", "tokens_revoked"])
async def test_the_workspace_removing_the_app_closes_its_tables_and_is_acknowledged(
        tmp_path: Path, event: dict[str, Any], caplog: pytest.LogCaptureFixture) -> None:
    async with FakeSlack(bot_token=BOT_TOKEN) as fake:
        fake.add_user(ALICE, name="alice", is_admin=True)
        async with serving(fake, tmp_path / "liars.sqlite3") as d:
            assert "opened a table" in str((await d.slash(ALICE, "start classic 1 computers=2")).text)
            await d.slash(ALICE, "deal")
            table = d.bot.service.table(key_of(fake))
            assert table is not None and table.live
            caplog.set_level(logging.INFO)
            raw, headers = build_signed_request(_body(fake, event), SECRET, content_type="application/json")
            resp = await post_to_app(d.url, raw, headers)
            assert resp.status == 200, (resp.status, resp.body)
            assert d.bot.service.table(key_of(fake)) is None  # closed: no timer plays on with a dead token
            said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
            assert len(said) == 1 and said[0].startswith(f"the app was removed from workspace {fake.team_id}"), said
            assert "1 open tables closed" in said[0] and BOT_TOKEN not in said[0]


async def test_a_users_token_revoked_alone_changes_nothing(tmp_path: Path) -> None:
    async with FakeSlack(bot_token=BOT_TOKEN) as fake:
        fake.add_user(ALICE, name="alice", is_admin=True)
        async with serving(fake, tmp_path / "liars.sqlite3") as d:
            assert "opened a table" in str((await d.slash(ALICE, "start classic 1")).text)
            event = {"type": "tokens_revoked", "tokens": {"oauth": [ALICE], "bot": []}}
            raw, headers = build_signed_request(_body(fake, event), SECRET, content_type="application/json")
            assert (await post_to_app(d.url, raw, headers)).status == 200
            assert d.bot.service.table(key_of(fake)) is not None
