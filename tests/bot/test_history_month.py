"""The sheet keeper's discretion (``config history=month``): players see this period's figures only, on
every report; admins keep the full sheet; the all-time ratings keep learning from every round.

January is played at a stake of 777 units (figures nobody can mistake), February at 1; the clock is
the service's own (a fake moved by hand), so January's rounds are stored in January's period.
"""

from __future__ import annotations

import json
import re
from typing import Any

from bot.model import Actor, Command, Reply
from bot.reports import CHART_GAP
from tests.bot.conftest import ADMIN, ALICE, BOB, CAROL, KEY, Harness, actor
from tests.typed import data

DAY = 86_400.0
BOSS = Actor("U9", "Boss", is_admin=True)
JANUARY = re.compile(r"777|1,?554|2026-01")


async def play(h: Harness, stake: str, rounds: int) -> None:
    assert (await h.do(ALICE, "start", "classic", stake)).ok
    assert (await h.do(BOB, "join")).ok and (await h.do(CAROL, "join")).ok
    assert (await h.do(ALICE, "deal")).ok
    for _ in range(rounds):
        number = h.serial().round_number
        assert (await h.do(actor(h.to_act()), "bid", "3", "9")).ok
        while h.serial().round_number == number:
            assert (await h.do(actor(h.to_act()), "challenge")).ok


def shown(reply: Reply) -> str:
    return reply.text + json.dumps(reply.data, sort_keys=True)


async def reports(h: Harness, who: Actor) -> dict[str, Reply]:
    """Every reading command with figures, with and without its chart."""
    asks: dict[str, tuple[str, ...]] = {
        "ledger": (), "ledger chart": ("chart",), "sheet": (), "sheet chart": ("chart",),
        "stats": (), "stats bob": (f"<@{BOB.user_id}>",), "stats chart": ("chart",),
        "leaderboard": (), "leaderboard all": ("all",), "leaderboard all money": ("all", "by", "money"),
        "history": (), "export": (),
    }
    out = {}
    for name, args in asks.items():
        before = len(h.notifier.messages)
        reply = await h.do(who, name.split()[0], *args)
        pictures = [m.picture for m in h.notifier.messages[before:] if m.picture is not None]
        out[name] = Reply(reply.text + json.dumps(pictures), ok=reply.ok, data=reply.data, code=reply.code)
    return out


async def test_with_history_month_players_see_this_period_only_and_admins_see_all(harness: Harness) -> None:
    h = harness
    await play(h, "777", 2)
    assert (await h.do(ADMIN, "end")).ok
    h.clock.advance(40 * DAY)  # February
    await play(h, "1", 2)
    assert (await h.do(BOB, "config", "history=month")).code == "not-admin"
    saved = await h.do(BOSS, "config", "history=month")
    assert saved.ok and "history month" in saved.text
    assert (await h.do(BOSS, "config", "history=week")).code == "bad-option"

    players = await reports(h, BOB)
    for name, reply in players.items():
        if name == "export":
            continue  # the February table's record: its own rounds only
        assert reply.ok, (name, reply.text)
        assert not JANUARY.search(shown(reply)), (name, shown(reply))
    assert players["ledger"].data is not None and players["ledger"].data["history"] == "month"
    assert "this period's figures only" in players["ledger"].text
    february = await h.service.store.balances(KEY.server, "2026-02")
    assert players["ledger"].data["all_time"] == february
    assert data(players["leaderboard all"])["period"] == "2026-02"
    assert data(players["stats"])["rounds"] == 2
    # an earlier period asked for by name is refused, and the text says why
    for args in (("sheet", "2026-01"), ("leaderboard", "2026-01")):
        refused = await h.do(BOB, *args)
        assert refused.code == "history-month" and "this period's figures only" in refused.text
    # the ratings still learn from every round: the season's rating is shown, the all-time one kept
    book = await h.service.reports.ratings.get(KEY.server)
    assert book.of("serial").results == 4 and book.of("serial", "2026-02").results == 2
    assert data(players["stats"])["serial"]["rating"] == book.of("serial", "2026-02").players[BOB.user_id].display

    admins = await reports(h, BOSS)
    assert all(r.ok for n, r in admins.items() if n != "stats"), {n: r.text for n, r in admins.items() if not r.ok}
    every_period = await h.service.store.balances(KEY.server)
    assert every_period != february and data(admins["ledger"])["all_time"] == every_period  # January's in it
    board = data(admins["leaderboard all money"])["standings"]
    assert {row["player"]: row["balance"] for row in board} == every_period
    assert data(admins["stats bob"])["serial"]["rating"] == book.of("serial").players[BOB.user_id].display
    assert JANUARY.search(shown(await h.do(BOSS, "sheet", "2026-01")))
    assert data(admins["stats bob"])["rounds"] == 4
    # a menu of periods (Discord's autocomplete) offers a player this period alone, an admin every one
    assert await h.service.periods(KEY.server, Command("sheet", KEY, BOB)) == ["2026-02"]
    assert await h.service.periods(KEY.server, Command("sheet", KEY, BOSS)) == ["2026-01", "2026-02"]

    # history=all (the default) shows everyone everything again
    assert (await h.do(BOSS, "config", "history=all")).ok
    assert data(await h.do(BOB, "ledger"))["all_time"] == every_period


async def test_with_history_month_a_table_begun_last_period_is_not_exported_to_players(harness: Harness) -> None:
    h = harness
    await play(h, "777", 1)
    h.clock.advance(40 * DAY)
    number = h.serial().round_number
    assert (await h.do(actor(h.to_act()), "bid", "3", "9")).ok
    while h.serial().round_number == number:
        assert (await h.do(actor(h.to_act()), "challenge")).ok
    assert (await h.do(BOSS, "config", "history=month")).ok
    refused = await h.do(BOB, "export")
    assert refused.code == "history-month"
    record: dict[str, Any] = json.loads(data(await h.do(BOSS, "export"))["record"])
    assert len(record["rounds"]) == 2
    history = await h.do(BOB, "history")
    assert history.ok and "Round 1:" not in history.text and "Round 2:" in history.text


async def test_with_history_month_a_month_not_yet_played_says_this_month_not_never(harness: Harness) -> None:
    """Early in a month, with history=month, a player was told the ledger was empty ("no round has been settled
    on this server yet"), that they had never played and that nothing was ever settled at the table."""
    h = harness
    await play(h, "777", 2)
    h.clock.advance(40 * DAY)  # February: the table is still open, nothing played in it yet
    assert (await h.do(BOSS, "config", "history=month")).ok
    ledger = await h.do(BOB, "ledger")
    assert ledger.ok and ledger.text.startswith("📒 No round has been settled in 2026-02 yet"), ledger.text
    assert data(ledger)["history"] == "month"
    stats = await h.do(BOB, "stats")
    assert stats.text == "Bob has not played a settled round on this server in 2026-02.", stats.text
    history = await h.do(BOB, "history")
    assert history.text.startswith("Nothing has been settled at this table in 2026-02"), history.text
    admin = await h.do(BOSS, "ledger")  # an admin still sees the whole ledger
    assert "2026-01" not in admin.text and "[+" in admin.text, admin.text


async def test_with_history_month_an_admins_chart_shows_players_only_this_period(harness: Harness) -> None:
    """An admin's `ledger chart`, `sheet 2026-01 chart` and `stats @bob chart` posted January's figures in the
    channel, where every player reads them: a chart is this period's for everyone, an earlier one refused."""
    h = harness
    await play(h, "777", 2)
    assert (await h.do(ADMIN, "end")).ok
    h.clock.advance(40 * DAY)  # February
    await play(h, "1", 2)
    assert (await h.do(BOSS, "config", "history=month")).ok
    before = len(h.notifier.messages)
    for args in (("ledger", "chart"), ("stats", f"<@{BOB.user_id}>", "chart"), ("sheet", "chart")):
        reply = await h.do(BOSS, *args)
        assert reply.ok, (args, reply.text)
        h.clock.advance(CHART_GAP)  # (one chart a channel every ten seconds)
    earlier = await h.do(BOSS, "sheet", "2026-01", "chart")
    assert earlier.code == "history-month", earlier.text
    posted = [m for m in h.notifier.messages[before:] if m.to is None]
    assert len(posted) == 3 and all(m.picture is not None for m in posted)
    for m in posted:  # the text and the picture's data, as players would read them
        assert not JANUARY.search(m.text + json.dumps(m.picture)), m.text
    assert "(all time in brackets)" in (await h.do(BOSS, "ledger")).text  # no chart: the admin's own view, all


async def test_with_history_month_an_admin_settling_an_earlier_month_is_answered_privately(harness: Harness) -> None:
    """An admin's `sheet 2026-01 settle` in February posted January's full sheet in the channel, and an
    admin's refused earlier chart was told "an admin can see earlier periods"."""
    h = harness
    await play(h, "777", 2)
    assert (await h.do(ADMIN, "end")).ok
    h.clock.advance(40 * DAY)  # February
    assert (await h.do(BOSS, "config", "history=month")).ok
    settled = await h.do(BOSS, "sheet", "2026-01", "settle")
    assert settled.ok and settled.private and data(settled)["settled"] is True, settled
    refused = await h.do(BOSS, "sheet", "2026-01", "chart")
    assert refused.code == "history-month" and "ask for 2026-01 without `chart`" in refused.text, refused.text
    assert "an admin can see" not in refused.text


async def test_with_history_month_a_player_refused_an_earlier_chart_is_not_told_to_ask_without_it(
        harness: Harness) -> None:
    """A player was told to "ask without `chart`", and then refused again: that is an admin's way only."""
    h = harness
    await play(h, "777", 1)
    h.clock.advance(40 * DAY)
    assert (await h.do(BOSS, "config", "history=month")).ok
    refused = await h.do(BOB, "sheet", "2026-01", "chart")
    assert refused.code == "history-month" and "without `chart`" not in refused.text, refused.text
