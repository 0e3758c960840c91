"""A server's settings as the reports read them: once per report (what the sender may see, whether they
are an admin and the money's unit all come from that one read), and in today's layout whatever layout
they were stored in.

The reads are counted by SQLite's own statement trace on the real store's connection."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from adapters.sqlite.store import SqliteStore
from adapters.storebase import Queries
from bot.model import Actor, Command
from tests.bot.conftest import ADMIN, ALICE, BOB, KEY, Harness
from tests.bot.test_history_month import BOSS, DAY, play, reports

LISTED_ADMIN = Actor("U7", "Listed")  # an admin by the server's ``admins`` setting, not by the platform


@asynccontextmanager
async def settings_reads(h: Harness) -> AsyncIterator[list[str]]:
    """The statements reading a server's settings while the block runs (a list, filled as they run)."""
    store = h.service.store if h.service is not None else None
    assert isinstance(store, SqliteStore)
    seen: list[str] = []

    def trace(statement: str) -> None:
        if statement.startswith(Queries.SETTINGS.split(" WHERE")[0]):
            seen.append(statement)

    await store.db.set_trace_callback(trace)
    try:
        yield seen
    finally:
        # aiosqlite types the handler as a Callable; sqlite3 takes None to remove it
        await store.db.set_trace_callback(None)  # type: ignore[arg-type]


async def test_each_report_reads_the_servers_settings_once(harness: Harness) -> None:
    h = harness
    await play(h, "777", 1)
    assert (await h.do(ADMIN, "end")).ok
    h.clock.advance(40 * DAY)
    await play(h, "1", 1)
    # the costliest case: a month-only server and a sender the settings name as an admin
    assert (await h.do(BOSS, "config", "history=month", f"admins=<@{LISTED_ADMIN.user_id}>")).ok
    for who in (BOB, LISTED_ADMIN, BOSS):
        async with settings_reads(h) as seen:
            answered = await reports(h, who)
        assert all(reply.ok or reply.code == "history-month" for reply in answered.values()), answered
        assert len(seen) == len(answered), (who.name, len(seen), list(answered))
    async with settings_reads(h) as seen:
        settled = await h.do(LISTED_ADMIN, "sheet", "settle")
    assert settled.ok and "settled" in settled.text.lower() and len(seen) == 1
    async with settings_reads(h) as seen:
        assert (await h.do(LISTED_ADMIN, "config", "currency=EUR")).ok
    assert len(seen) == 1


async def test_settings_stored_in_the_older_layout_are_the_default_games_until_saved_anew(harness: Harness) -> None:
    """Settings saved before each game had its own defaults (a top-level ``preset`` and ``options``)."""
    h = harness
    assert h.service is not None
    store = h.service.store
    await store.set_settings(KEY.server, {"preset": "salomon", "options": {"stake": "3"}, "currency": "EUR"},
                             expect_version=0)
    await h.restart()  # a process started after that save
    assert h.service is not None
    rules = await h.do(ALICE, "rules")
    assert rules.ok and "salomon" in rules.text.lower(), rules.text
    settings = await h.do(BOB, "config")
    assert "salomon" in settings.text and "stake=3" in settings.text, settings.text
    opened = await h.do(ALICE, "start")
    assert opened.ok and h.service.table(KEY) is not None
    table = h.service.table(KEY)
    assert table is not None and table.rules.preset == "salomon" and table.rules.stake == 3
    assert (await h.do(ADMIN, "end")).ok
    # another game's defaults saved: the serial game keeps the older ones, now stored in today's layout
    assert (await h.do(BOSS, "config", "game=cards", "preset=wild")).ok
    stored = (await h.service.store.get_settings(KEY.server)).values
    assert "preset" not in stored and "options" not in stored and stored["currency"] == "EUR"
    assert stored["games"] == {"serial": {"preset": "salomon", "options": {"stake": "3"}},
                               "cards": {"preset": "wild", "options": {}}}


async def test_config_reads_spaced_settings_and_refuses_a_currency_with_a_space(harness: Harness) -> None:
    """`start stake = 2` was read as stake=2 but `config turn_timeout = 90` refused ("not 'turn_timeout'"); Discord's
    `currency:US $` was stored though the same typed on Slack or in the terminal could never be (split in words)."""
    h = harness
    for seconds, words in ((90, ("turn_timeout", "=", "90")), (91, ("turn_timeout=", "91")),
                           (92, ("turn_timeout", "=92"))):
        saved = await h.do(ADMIN, "config", *words)
        assert saved.ok and f"turn timeout {seconds} s" in (await h.do(BOB, "config")).text, (words, saved.text)
    for typed in ({"currency": "US $"}, {"currency": "US\u00a0$"}):
        refused = await h.service.handle(Command("config", KEY, ADMIN, (), typed))
        assert not refused.ok and refused.code == "bad-option" and "spaces," in refused.text
    assert (await h.do(ADMIN, "config", "currency=US$")).ok
