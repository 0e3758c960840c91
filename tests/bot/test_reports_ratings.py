"""Ratings, the leaderboard, the new stats and the charts, through the real service on a real SQLite
file; and the privacy of pictures (a picture is made only of what is revealed)."""

from __future__ import annotations

import json
from typing import Any

from adapters import pictures
from bot.model import Actor, Message, MessageKind, TableKey
from bot.ratings import RatingBook, ServerRatings, build
from bot.reports import CHART_GAP
from core.cards.text import PICTURE_WORDS
from core.serial.stats import serial_stats
from tests.bot.conftest import ADMIN, ALICE, BOB, CAROL, KEY, Harness, actor
from tests.typed import data

LOCAL = TableKey("local", "local", "terminal")
HOUSE = Actor("cpu-house", "House", is_admin=True)
DAY = 86_400.0


async def play_rounds(h: Harness, n: int) -> None:
    """``n`` rounds at KEY between Alice, Bob and Carol: the player to act opens at 3 nines, all challenge."""
    if h.service.table(KEY) is None:
        assert (await h.do(ALICE, "start")).ok
        assert (await h.do(BOB, "join")).ok
        assert (await h.do(CAROL, "join")).ok
        assert (await h.do(ALICE, "deal")).ok
    for _ in range(n):
        number = h.serial().round_number
        assert (await h.do(actor(h.to_act()), "bid", "3", "9")).ok
        while h.serial().round_number == number:
            assert (await h.do(actor(h.to_act()), "challenge")).ok


async def computer_table(h: Harness, game: str, **opts: str) -> None:
    """A local table of computers only (the host too), played to its end by the deal."""
    reply = await h.do(HOUSE, "start", key=LOCAL, game=game, seats="3", computers="2", level="easy",
                       host_computer="easy", **opts)
    assert reply.ok, reply.text
    assert (await h.do(HOUSE, "deal", key=LOCAL)).ok


def same(a: ServerRatings, b: ServerRatings) -> None:
    assert a.last_id == b.last_id
    assert set(a.games) == set(b.games) and set(a.periods) == set(b.periods)
    for key in a.games:
        assert a.games[key] == b.games[key]
    for pkey in a.periods:
        assert a.periods[pkey] == b.periods[pkey]


async def test_ratings_kept_up_to_date_equal_ratings_rebuilt_from_the_store(harness: Harness) -> None:
    h = harness
    book = h.service.reports.ratings
    await play_rounds(h, 2)
    first = await book.get(KEY.server)  # built from the store on first use
    assert first.of("serial").results == 2
    await play_rounds(h, 3)  # then brought up to date: only the new rows are folded in
    h.clock.advance(31 * DAY)  # a new month: a new season beside the all-time ratings
    await play_rounds(h, 2)
    kept = await book.get(KEY.server)
    assert kept is first and kept.of("serial").results == 7
    rows = list(reversed(await h.service.store.rounds(KEY.server)))
    same(kept, build(rows))
    same(kept, await RatingBook(h.service.store).get(KEY.server))
    periods = sorted({str(r["period"]) for r in rows})
    assert len(periods) == 2
    assert [kept.of("serial", p).results for p in periods] == [5, 2]
    # every counted round is rated: each player's rated results are the rounds they played
    assert all(r.rounds == 7 for r in kept.of("serial").players.values())


async def test_a_server_erased_while_the_bot_runs_leaves_no_rating_behind(harness: Harness) -> None:
    """``liars forget`` erases a server from another process while the bot runs: the bot's ratings in memory
    see the store change under them and are built again, so the erased players leave the leaderboard."""
    from adapters.stores import open_store

    h = harness
    await play_rounds(h, 3)
    assert (await h.do(ADMIN, "end")).ok
    assert data(await h.do(BOB, "leaderboard", "all"))["standings"]  # rated, and the book is in memory
    other = await open_store(str(h.path))
    try:
        assert (await other.erase_server(KEY.server))["rounds"] == 3
    finally:
        await other.close()
    assert data(await h.do(BOB, "leaderboard", "all"))["standings"] == []
    await play_rounds(h, 1)  # a new game after the erasure is rated alone
    assert (await h.service.reports.ratings.get(KEY.server)).of("serial").results == 1


async def test_the_card_game_is_rated_once_per_finished_game(harness: Harness) -> None:
    h = harness
    await computer_table(h, "cards", payout="knockout")
    rows: list[dict[str, Any]] = await h.service.store.rounds("local")  # JSON rows, read as such
    assert len(rows) >= 2  # a knockout game settles every challenge...
    book = await h.service.reports.ratings.get("local")
    cards = book.of("cards")
    assert cards.results == 1  # ...but is rated once, by its finishing order
    [final] = [r for r in rows if r["outcome"].get("game_over")]
    winner = final["outcome"]["winner_of_game"]
    assert max(cards.players, key=lambda p: cards.players[p].ordinal) == winner


async def test_leaderboard_by_skill_and_by_money_this_season_and_all_time(harness: Harness) -> None:
    h = harness
    await play_rounds(h, 4)
    h.clock.advance(31 * DAY)
    await play_rounds(h, 2)
    skill = await h.do(BOB, "leaderboard")
    assert skill.ok and skill.text.startswith("🏆 Leaderboard — 2026-02, by skill") and skill.data is not None
    book = await h.service.reports.ratings.get(KEY.server)
    season = book.of("serial", "2026-02")
    shown = [s["player"] for s in data(skill)["standings"]]
    assert shown == sorted(season.players, key=lambda p: -season.players[p].ordinal)
    assert [s["rating"] for s in data(skill)["standings"]] == [season.players[p].display for p in shown]
    everyone = await h.do(BOB, "leaderboard", "all", "by", "money")
    total = await h.service.store.balances(KEY.server)
    balances = [s["balance"] for s in data(everyone)["standings"]]
    assert balances == sorted(total.values(), reverse=True) and sum(balances) == 0
    assert "all time, by money" in everyone.text
    january = await h.do(BOB, "leaderboard", "2026-01", period="2026-01", by="skill")
    assert data(january)["period"] == "2026-01"
    assert (await h.do(BOB, "leaderboard", "sideways")).code == "bad-option"
    named = await h.do(BOB, "leaderboard", "period=all", "by=money")  # named, as `start` takes its options
    assert named.ok and data(named)["standings"] == data(everyone)["standings"] and "all time, by money" in named.text
    for wrong in ("by=cards", "game=money", "period=money", "by="):  # a value under another's name is refused
        assert (await h.do(BOB, "leaderboard", wrong)).code == "bad-option", wrong
    mixed = await h.do(BOB, "leaderboard", "money", "cards")  # the server's ledger under the card game's name
    assert mixed.code == "bad-option" and "Money is kept across games" in mixed.text
    empty = await h.do(BOB, "leaderboard", "cards")
    assert empty.ok and "Nobody is on the board" in empty.text


async def test_stats_add_pots_best_bid_accuracy_and_the_rating_with_its_trend(harness: Harness) -> None:
    h = harness
    await play_rounds(h, 5)
    rows: list[dict[str, Any]] = list(reversed(await h.service.store.rounds(KEY.server)))
    nets = [int(r["outcome"]["net"][ALICE.user_id]) for r in rows]
    stats = await h.do(BOB, "stats", f"<@{ALICE.user_id}>")
    assert stats.ok and stats.data is not None
    serial = data(stats)["serial"]
    assert serial["biggest_win"] == max([0, *nets]) and serial["biggest_loss"] == max([0, *(-n for n in nets)])
    figures = serial_stats([{**r["record"], "outcome": r["outcome"]} for r in rows], ALICE.user_id)
    assert serial["challenges"] == figures.challenges > 0
    book = await h.service.reports.ratings.get(KEY.server)
    rating = book.of("serial").players[ALICE.user_id]
    assert serial["rating"] == rating.display
    assert f"Rating {rating.display} (" in stats.text and "Biggest pot won" in stats.text
    assert "challenge accuracy" in stats.text


async def test_charts_are_posted_with_their_data_and_draw(harness: Harness) -> None:
    h = harness
    await play_rounds(h, 3)
    before = len(h.notifier.messages)
    sheet = await h.do(BOB, "sheet", "chart")
    too_soon = await h.do(CAROL, "ledger", "chart")  # one chart a channel every ten seconds: the text, privately
    assert too_soon.ok and "A chart was posted here a moment ago" in too_soon.text and "Ledger" in too_soon.text
    h.clock.advance(CHART_GAP)
    ledger = await h.do(BOB, "ledger", chart="yes")
    h.clock.advance(CHART_GAP)
    stats = await h.do(BOB, "stats", "chart")
    assert all(r.ok and "chart is posted" in r.text for r in (sheet, ledger, stats))
    charts = h.notifier.messages[before:]
    assert [m.picture["chart"] for m in charts if m.picture] == ["balances", "nets", "rating"]
    assert all(m.to is None and m.kind == MessageKind.INFO and m.key == KEY for m in charts)
    balances = await h.service.store.balances(KEY.server)
    assert charts[0].picture is not None and charts[1].picture is not None and charts[2].picture is not None
    series: dict[str, Any] = dict(charts[0].picture)  # JSON, read as such
    last = series["series"][-1][1]
    assert last == balances and charts[1].picture["nets"] == balances
    rating: dict[str, Any] = dict(charts[2].picture)
    assert list(rating["history"]) == [BOB.user_id]
    assert "🧾 Sheet for" in charts[0].text and "📒 Ledger" in charts[1].text  # the text beside the chart
    for m in charts:
        assert m.picture is not None
        png = pictures.render(m.picture, m.names)
        assert png.startswith(b"\x89PNG")


def _public_pictures(messages: list[Message]) -> list[Message]:
    return [m for m in messages if m.picture is not None]


async def test_a_serial_picture_is_made_only_at_the_count_of_what_the_count_reveals(harness: Harness) -> None:
    h = harness
    await computer_table(h, "serial", rounds="4")
    sent = h.notifier.messages
    with_pictures = _public_pictures(sent)
    assert len(with_pictures) == 4
    stored: list[dict[str, Any]] = await h.service.store.rounds("local")  # JSON rows, read as such
    rows = {r["number"]: r for r in stored}
    dealt: dict[int, set[str]] = {}  # every serial of every round, as stored
    for number, row in rows.items():
        dealt[number] = set(row["record"]["serials"].values())
    for m in with_pictures:
        assert m.kind == MessageKind.RESULT and m.to is None and "The count" in m.text and m.picture is not None
        picture: dict[str, Any] = dict(m.picture)
        number = picture["record"]["round"]
        assert picture["record"]["outcome"]["complete"] is True  # counted: every serial is revealed now
        # it carries this round's serials, and no other round's (a later round's are still secret)
        text = json.dumps(picture)
        assert set(picture["record"]["serials"].values()) == dealt[number]
        for other, serials in dealt.items():
            if other > number:
                assert not [s for s in serials if s in text]
    # and nothing else carries a picture: not the deal, not a private serial, not a panel
    assert [m for m in sent if m.picture is None and m.kind == MessageKind.RESULT] == []


async def test_a_card_picture_shows_only_the_hand_shown_and_the_declaration(harness: Harness) -> None:
    h = harness
    await computer_table(h, "cards", payout="knockout")
    rows: list[dict[str, Any]] = list(reversed(await h.service.store.rounds("local")))
    shown = [r["outcome"] for r in rows if r["outcome"].get("kind") == "challenge"]
    pictured = _public_pictures(h.notifier.messages)
    assert len(pictured) == len(shown) >= 2
    for m, outcome in zip(pictured, shown, strict=True):
        assert m.picture is not None
        picture: dict[str, Any] = dict(m.picture)
        assert m.kind == MessageKind.RESULT and m.to is None
        # the hand in the picture is the one put face up at the challenge; no other card, no deck
        assert picture["hand"] == outcome["hand"] and picture["floor"] == outcome["floor"]
        assert set(picture) <= {"declared", "declared_text", "floor", "hand", "value", "value_text", "holds",
                                "active", "challenger", "out", "names", "words"}
        assert picture["words"] == PICTURE_WORDS  # the game's fixed words to draw, never a card
        assert pictures.kind(picture) == "challenge"


async def test_a_rating_survives_a_restart_exactly(harness: Harness) -> None:
    h = harness
    await play_rounds(h, 3)
    before = await h.service.reports.ratings.get(KEY.server)
    await h.service.drain()
    service = await h.restart()
    after = await service.reports.ratings.get(KEY.server)
    same(before, after)
    assert (await h.do(ADMIN, "leaderboard")).ok
