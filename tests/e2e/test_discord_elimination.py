"""Who pays for dinner on Discord, end to end: three people and two computers play an elimination to its
payer through the real discord.py bot and the fake Discord; the bot restarts mid-way (a new process on
the same database) and the game goes on; the exported record replays.  Then the server's admin sets
``history=month`` and every report a player can ask for shows this period only."""

from __future__ import annotations

import json
import re
from typing import Any

from core.serial.record import replay
from core.serial.round import Round
from tests.e2e.discord_helpers import Harness, ledger_rows, no_errors, world
from tests.fakes.discord_server import FakeUser
from tests.typed import elimination_match

__all__ = ["no_errors", "world"]


def live(h: Harness) -> Round | None:
    table = h.service.table(h.key)
    return elimination_match(table).live_round if table is not None and table.match is not None else None


async def act(h: Harness, user: FakeUser) -> None:
    """Open low, call the count when challenged all around, else challenge: all by slash command."""
    round_ = live(h)
    assert round_ is not None
    if round_.standing_bid is None:
        reply = await h.ask(user, "bid", quantity=1, digit=0)
    elif round_.phase.value == "rebid":
        reply = await h.ask(user, "count")
    else:
        reply = await h.ask(user, "challenge")
    assert reply.ephemeral and "⚠️" not in reply.content, reply.content


async def test_five_at_an_elimination_table_play_to_the_payer_across_a_restart(world: Harness) -> None:
    h = world
    await h.start()
    opened = await h.ask(h.alice, "start", seats=5, computers=2, level="easy", format="elimination", stake=2)
    assert opened.ephemeral and "You opened a table" in opened.content and "ELIMINATION" in opened.content
    await h.press(h.bob, h.panel("lobby"), h.button("join"))
    await h.ask(h.carol, "join")
    await h.press(h.alice, h.panel("lobby"), h.button("deal"))
    restarted = False
    for _ in range(300):
        table = h.service.table(h.key)
        if table is None:
            break
        if live(h) is None:
            await h.service.drain()
            continue
        if not restarted and elimination_match(table).safe:  # someone has left safe: the bot restarts mid-game
            await h.restart()
            restarted = True
            assert elimination_match(h.service.table(h.key)).safe == elimination_match(table).safe
            continue
        await act(h, h.to_act())
    assert restarted and h.service.table(h.key) is None
    said = "\n".join(m.content for m in h.channel_messages())
    assert said.count("leaves safe") == 4 and "<$" not in said  # money tokens are all written out
    payer = re.search(r"🍽️ (.+?) is the last one left and \*\*pays for dinner\*\*: 2 units", said)
    assert payer is not None, said[-1500:]
    panels = [a.body.get("content") or "" for a in h.fake.actions if a.kind in ("create", "edit")]
    assert any("Still in (5)" in str(p) for p in panels) and any("Left safe: " in str(p) for p in panels)
    ledger = await h.ask(h.bob, "ledger")
    rows = ledger_rows(ledger.content)  # the people's rows (a computer's name has a space)
    balances = await h.service.store.balances(h.key.server)
    assert sorted(balances.values()) == [-8, 2, 2, 2, 2]
    assert all(balances[str(u.id)] == rows[u.username] for u in h.users)
    exported = await h.ask(h.bob, "export")
    [attachment] = exported.attachments
    record = json.loads(h.fake.uploads[int(attachment["id"])])
    assert record["format"] == "elimination" and record["payer"]
    result = replay(record, verify=True)
    assert result["payer"] == record["payer"] and len(result["left"]) == 4
    history = (await h.ask(h.bob, "history")).content
    assert "leaves safe" in history and "pays for dinner" in history


async def test_history_month_on_discord_shows_players_this_period_only(world: Harness) -> None:
    h = world
    await h.start()
    store = h.service.store
    # last period's sheet: a settled round written straight to the store, in its own period
    from bot.ports import LedgerEntry, RoundRecord

    old = await store.create_table(h.key.server, "999", 0.0)
    await store.commit(old, h.key.server, [{"t": "end", "by": "", "reason": "old"}], at=1.0, period="2000-01",
                       rounds=[RoundRecord(number=1, record={}, outcome={"game": "serial", "net": {}, "ranking": []},
                                           entries=[LedgerEntry(str(h.bob.id), 7777),
                                                    LedgerEntry(str(h.carol.id), -7777)])],
                       names={str(h.bob.id): "bob", str(h.carol.id): "carol"}, close=True)
    asks: list[tuple[str, dict[str, Any]]] = [
        ("ledger", {}), ("sheet", {}), ("leaderboard", {"period": "all", "by": "money"}),
        ("stats", {"member": h.bob.id}), ("history", {}), ("ledger", {"chart": True}),
        ("leaderboard", {"period": "all"})]
    for sub, options in asks[0], asks[2]:  # before: everyone sees last period's figures in the all-time views
        assert "7777" in (await h.ask(h.bob, sub, **options)).content.replace(",", "")
    saved = await h.ask(h.alice, "config", history="month")  # alice manages the server
    assert "history month" in saved.content, saved.content
    for who in (h.bob, h.carol):
        for sub, options in asks:
            reply = await h.ask(who, sub, **options)
            assert "7777" not in reply.content and "7,777" not in reply.content, (sub, reply.content)
    refused = await h.ask(h.bob, "sheet", period="2000-01")
    assert "this period's figures only" in refused.content
    board = await h.ask(h.alice, "leaderboard", period="all", by="money")
    assert "7777" in board.content or "7,777" in board.content  # the admin keeps the full sheet
