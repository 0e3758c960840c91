"""Who pays for dinner on Slack, end to end (the twin of ``test_discord_elimination.py``): three people and
two computers play an elimination to its payer by slash commands through the real slack-bolt app and the
fake Slack, across a restart; its export replays.  Then ``history=month``: every report a player can ask
for, the App Home included, shows this period only; the workspace's admin still sees the full sheet."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path

from bot.ports import LedgerEntry, RoundRecord
from core.serial.record import replay
from tests.adapters.slack.harness import ALICE, BOB, CAROL, CHANNEL, HttpDriver, blocks_text, key_of
from tests.e2e.test_slack_cards import Table
from tests.e2e.test_slack_home import _home
from tests.fakes.slack_server import FakeSlack
from tests.typed import elimination_match, live_round

BOSS = "U0BOSS"


def channel_text(fake: FakeSlack) -> str:
    """Everything posted to the channel or edited there (the table message's versions included)."""
    return "\n".join(str(c.params.get("text") or "") + blocks_text(c.params) for c in fake.calls()
                     if c.ok and c.method in ("chat.postMessage", "chat.update") and c.params.get("channel") == CHANNEL)


async def act(d: HttpDriver, user: str) -> None:
    round_ = live_round(d.bot.service.table(key_of(d.fake)))
    if round_.standing_bid is None:
        text = "bid 1 0"
    elif round_.phase.value == "rebid":
        text = "count"
    else:
        text = "challenge"
    said = await d.slash(user, text)
    assert said.response_type == "ephemeral" and "⚠️" not in (said.text or ""), said.text


async def test_five_at_an_elimination_table_play_to_the_payer_across_a_restart(fake: FakeSlack,
                                                                               tmp_path: Path) -> None:
    async with contextlib.AsyncExitStack() as stack:
        t = Table(fake, tmp_path / "liars.sqlite3", stack)
        d = await t.boot()
        opened = await d.slash(ALICE, "start seats=5 computers=2 level=easy format=elimination stake=3")
        assert opened.text is not None and "ELIMINATION" in opened.text, opened.text
        await d.slash(BOB, "join")
        await d.slash(CAROL, "join")
        await d.slash(ALICE, "deal")
        restarted = False
        for _ in range(300):
            table = d.bot.service.table(key_of(fake))
            if table is None:
                break
            if table.match is None or elimination_match(table).live_round is None:
                await d.settled()
                continue
            if not restarted and elimination_match(table).safe:
                d = await t.restart()
                restarted = True
                continue
            user = table.match.to_act
            assert user in (ALICE, BOB, CAROL), user  # the computers have moved already
            await act(d, user)
        await d.settled()
        assert restarted and d.bot.service.table(key_of(fake)) is None
        said = channel_text(fake)
        posted = [str(c.params.get("text")) for c in fake.messages_to(CHANNEL)]
        assert sum("leaves safe" in p for p in posted) == 4 and "&lt;$" not in said
        assert re.search(r"is the last one left and \*pays for dinner\*: 3 units", said), said[-1500:]
        assert "Still in (5)" in said and "Left safe: " in said
        balances = await d.bot.service.store.balances(key_of(fake).server)
        assert sorted(balances.values()) == [-12, 3, 3, 3, 3]
        exported = await d.slash(BOB, "export")
        found = re.search(r"```(.*)```", exported.text or "", re.S)
        assert found is not None
        record = json.loads(found.group(1))
        assert record["format"] == "elimination"
        assert replay(record, verify=True)["payer"] == record["payer"]


async def test_history_month_on_slack_shows_players_this_period_only(fake: FakeSlack, tmp_path: Path) -> None:
    fake.add_user(BOSS, name="boss", is_admin=True)
    async with contextlib.AsyncExitStack() as stack:
        d = await Table(fake, tmp_path / "liars.sqlite3", stack).boot()
        server = key_of(fake).server
        store = d.bot.service.store
        old = await store.create_table(server, "C0OLD", 0.0)
        await store.commit(old, server, [{"t": "end", "by": "", "reason": "old"}], at=1.0, period="2000-01",
                           rounds=[RoundRecord(number=1, record={}, outcome={"game": "serial", "net": {},
                                                                             "ranking": []},
                                               entries=[LedgerEntry(BOB, 7777), LedgerEntry(CAROL, -7777)])],
                           names={BOB: "bob", CAROL: "carol"}, close=True)
        asks = ["ledger", "ledger chart", "sheet", "stats", "leaderboard all money", "leaderboard all", "history"]
        assert "7777" in ((await d.slash(BOB, "ledger")).text or "").replace(",", "")
        assert "7777" in (await _home(d, BOB)).replace(",", "")
        refused = await d.slash(BOB, "config history=month")
        assert "admin" in (refused.text or "").lower()
        saved = await d.slash(BOSS, "config history=month")
        assert "history month" in (saved.text or ""), saved.text
        for user in (BOB, CAROL):
            for text in asks:
                reply = (await d.slash(user, text)).text or ""
                assert "7777" not in reply.replace(",", ""), (text, reply)
            assert "7777" not in (await _home(d, user)).replace(",", "")
        assert "7777" not in channel_text(fake).replace(",", "")  # no chart or text posted shows it
        assert "this period's figures only" in ((await d.slash(BOB, "sheet 2000-01")).text or "")
        assert "7777" in ((await d.slash(BOSS, "ledger")).text or "").replace(",", "")
