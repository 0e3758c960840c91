"""The elimination through the service: the cases RULES.md leaves open, as people meet them at a table."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from core.serial.record import replay
from tests.bot.conftest import ACTORS, ADMIN, ALICE, BOB, CAROL, KEY, Harness, actor
from tests.typed import data, elimination_match, live_round


async def open_three(h: Harness, *words: str) -> None:
    assert (await h.do(ALICE, "start", "format=elimination", *words)).ok
    assert (await h.do(BOB, "join")).ok and (await h.do(CAROL, "join")).ok
    assert (await h.do(ALICE, "deal")).ok


async def decide_one(h: Harness) -> None:
    """The player to act opens at 1 nine, everyone challenges (the bidder counts) until someone leaves safe."""
    match = elimination_match(h.service.table(KEY))
    before = list(match.safe)
    if live_round(h.service.table(KEY)).standing_bid is None:
        assert (await h.do(actor(h.to_act()), "bid", "1", "9")).ok
    while (table := h.service.table(KEY)) is not None and list(elimination_match(table).safe) == before:
        name = "count" if live_round(table).phase.value == "rebid" else "challenge"
        assert (await h.do(actor(h.to_act()), name)).ok


async def test_a_player_still_in_who_leaves_pays_for_dinner_at_the_next_deal(
        harness: Harness, caplog: pytest.LogCaptureFixture) -> None:
    h = harness
    await open_three(h, "stake=4", "seats=4", "computers=1", "level=easy")
    last = await h.do(ALICE, "last")  # bad input: one clear answer, nothing changed, no error logged
    assert last.code == "no-last-hand" and "plays until one player is left" in last.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    while not elimination_match(h.service.table(KEY)).safe:
        await decide_one(h)
    [safe] = elimination_match(h.service.table(KEY)).safe
    if safe in (ALICE.user_id, BOB.user_id, CAROL.user_id):
        refused = await h.do(actor(safe), "challenge")
        assert not refused.ok and "left this game safe" in refused.text and "<@" not in refused.text
    opener = elimination_match(h.service.table(KEY)).to_act
    walker = next(p for p in (ALICE, BOB, CAROL) if p.user_id not in (safe, opener))
    assert (await h.do(walker, "leave")).ok  # at the next deal: this round goes on with them in it
    await decide_one(h)
    balances = await h.service.store.balances(KEY.server)
    said = "\n".join(m.text for m in h.notifier.messages)
    assert h.service.table(KEY) is None and "left the table while still in the game" in said
    assert balances[walker.user_id] == -12 and sorted(balances.values()) == [-12, 4, 4, 4]
    rows: list[dict[str, Any]] = await h.service.store.rounds(KEY.server)  # JSON rows, read as such
    [walkout] = [r for r in rows if r["outcome"].get("walked_out")]
    assert walkout["outcome"]["payer"] == walker.user_id
    history = await h.do(BOB, "history")
    assert "left the table while still in" in history.text
    exported = json.loads(data(await h.do(BOB, "export"))["record"])
    assert isinstance(exported, list) and exported[-1]["walked_out"] == [walker.user_id]
    assert [replay(r, verify=True)["payer"] for r in exported][-1] == walker.user_id


async def test_stake_zero_names_the_payer_and_moves_no_money(harness: Harness) -> None:
    h = harness
    await open_three(h, "stake=0")
    await decide_one(h)
    await decide_one(h)
    assert h.service.table(KEY) is None
    zeros = {p.user_id: 0 for p in (ALICE, BOB, CAROL)}  # everyone who played, at 0: not "nothing settled"
    assert await h.service.store.balances(KEY.server) == {}  # "nothing is written but the result" (RULES.md)
    ledger = await h.do(BOB, "ledger")
    assert data(ledger)["all_time"] == zeros and "Bob: 0 units ($0.00) [0 units ($0.00)]" in ledger.text, ledger.text
    sheet = await h.do(BOB, "sheet")
    assert data(sheet)["balances"] == zeros and data(sheet)["payments"] == [], sheet.text
    assert "No rounds were settled" not in sheet.text and "Nothing to pay" in sheet.text, sheet.text
    assert "pays for dinner" in "\n".join(m.text for m in h.notifier.messages)
    rounds: list[dict[str, Any]] = await h.service.store.rounds(KEY.server)  # JSON rows, read as such
    assert len(rounds) >= 2 and sum(bool(r["outcome"].get("payer")) for r in rounds) == 1
    history = await h.do(BOB, "history")
    assert "leaves safe" in history.text and "pays for dinner" in history.text
    for player in (ALICE, BOB, CAROL):  # the finished game counts once for everyone in it, as at any stake
        stats = await h.do(player, "stats")
        assert stats.ok and data(stats)["rounds"] == 1 and data(stats)["net"] == 0, stats.text
        assert stats.text.startswith(f"📊 {player.name}: 1 round, net 0 units"), stats.text


async def test_two_still_in_who_leave_in_one_round_leave_one_payer(harness: Harness) -> None:
    """Three players; the two still in besides Carol leave mid-round, so one seat is left for the next deal, fewer
    than the game seats: the walk-out still settles (the first in seat order pays, the other neither pays nor is
    paid) instead of the table closing with nobody paying."""
    h = harness
    await open_three(h, "stake=2")
    assert (await h.do(BOB, "leave")).ok and (await h.do(ALICE, "leave")).ok  # both still in: at the next deal
    await decide_one(h)
    assert h.service.table(KEY) is None
    said = "\n".join(m.text for m in h.notifier.messages)
    assert "pays for dinner" in said and "fewer than two players remain" not in said, said[-600:]
    assert "🃏 This table is closed. The elimination is over: " in said  # the closed lobby: its reason a sentence
    balances = await h.service.store.balances(KEY.server)
    rows: list[dict[str, Any]] = await h.service.store.rounds(KEY.server)  # JSON rows, read as such
    safe = [r["outcome"]["leaves"] for r in rows if r["outcome"].get("leaves") is not None]
    assert balances == {ALICE.user_id: -2, **{p: 2 for p in safe if p != ALICE.user_id}}, (balances, safe)
    [walked] = [r["outcome"]["walked_out"] for r in rows if r["outcome"].get("walked_out")]
    for other in (p for p in walked if p != ALICE.user_id):  # neither paying nor paid: still one who played it
        stats = await h.do(actor(other), "stats")
        assert stats.ok and data(stats)["rounds"] == 1, stats.text  # "has not played a settled round"


async def test_when_every_seat_leaves_in_one_round_the_walk_out_still_pays(harness: Harness) -> None:
    """Three players; all three leave during a round.  The round makes one safe; the two still in walked out.  The
    table closed "fewer than two players remain" with nobody paid (no seat was left to ask the game): the first
    walker in seat order pays the one who left safe, as when anyone stays."""
    h = harness
    await open_three(h, "stake=2")
    for person in (ALICE, BOB, CAROL):
        assert (await h.do(person, "leave")).ok
    await decide_one(h)
    assert h.service.table(KEY) is None
    said = "\n".join(m.text for m in h.notifier.messages)
    assert "pays for dinner" in said and "fewer than two players remain" not in said, said[-600:]
    rows: list[dict[str, Any]] = await h.service.store.rounds(KEY.server)
    [safe] = [r["outcome"]["leaves"] for r in rows if r["outcome"].get("leaves") is not None]
    [payer] = [p for p in (ALICE.user_id, BOB.user_id, CAROL.user_id) if p != safe][:1]
    assert await h.service.store.balances(KEY.server) == {payer: -2, safe: 2}
    exported = json.loads(data(await h.do(ALICE, "export"))["record"])
    assert [replay(r, verify=True)["payer"] for r in exported][-1] == payer  # the seatless record verifies too


async def test_the_lobby_says_who_pays_and_a_leaver_still_in_is_told_the_price(harness: Harness) -> None:
    """The lobby read "(classic, stake 3 units, …)" for an elimination as for a money table, and a player
    still in who asked to leave was told only "You will leave after this round" — then paid for dinner."""
    h = harness
    assert (await h.do(ALICE, "start", "format=elimination", "stake=3")).ok
    lobby = next(m for m in reversed(h.notifier.messages) if m.panel == "lobby")
    assert "who pays for dinner — the last one left pays each other player 3 units, up to" in lobby.text
    assert (await h.do(BOB, "join")).ok and (await h.do(CAROL, "join")).ok
    assert (await h.do(ALICE, "deal")).ok
    left = await h.do(BOB, "leave")
    assert left.ok and left.text == ("You will leave after this round. If you are still in when this round ends, "
                                     "you walk out on dinner and pay it: 6 units ($6.00) (3 units ($3.00) to each "
                                     "other player).")
    await decide_one(h)
    table = h.service.table(KEY)
    if table is None or BOB.user_id not in elimination_match(table).safe:  # he walked out: the game is over
        assert table is None and (await h.service.store.balances(KEY.server))[BOB.user_id] == -6  # as told


async def test_a_money_table_lobby_and_leave_are_as_before(harness: Harness) -> None:
    h = harness
    assert (await h.do(ALICE, "start", "classic", "stake=2")).ok
    lobby = next(m for m in reversed(h.notifier.messages) if m.panel == "lobby")
    assert "opened a table (classic, stake 2 units, up to 12 seats)" in lobby.text
    assert (await h.do(BOB, "join")).ok and (await h.do(ALICE, "deal")).ok
    assert (await h.do(BOB, "leave")).text == "You will leave after this round."


async def test_two_still_in_asking_to_leave_are_told_the_first_of_them_pays(harness: Harness) -> None:
    """Each was told "you walk out on dinner and pay it: 9 units"; the first in seat order paid, the other
    nothing."""
    h = harness
    assert (await h.do(ALICE, "start", "format=elimination", "stake=3")).ok
    for guest in (BOB, CAROL, ADMIN):
        assert (await h.do(guest, "join")).ok
    assert (await h.do(ALICE, "deal")).ok
    first = await h.do(CAROL, "leave")
    assert "you walk out on dinner and pay it: 9 units" in first.text  # alone, for now
    second = await h.do(BOB, "leave")
    assert second.text == ("You will leave after this round. If you are still in when this round ends, you walk "
                           f"out on dinner with <@{CAROL.user_id}>: the first of you in seat order pays it, 3 units "
                           "($3.00) to each player who stays, and the others neither pay nor are paid.")



@pytest.mark.parametrize("game", [("format=elimination", "stake=5"), ("game=cards", "stake=3")])
async def test_the_host_may_not_end_a_game_at_stake_under_way(harness: Harness, game: tuple[str, ...]) -> None:
    """The host ended an elimination they were about to pay for (having asked to leave: "you walk out and pay 10
    units"), or a card game they were knocked out of and owed the winner: the table closed "the round under way is
    void", and what the others had won went with it.  The host is refused, nothing done; an admin may still end
    it, told the game is void."""
    h = harness
    assert (await h.do(ALICE, "start", *game)).ok
    assert (await h.do(BOB, "join")).ok and (await h.do(CAROL, "join")).ok
    assert (await h.do(ALICE, "deal")).ok
    events = h.table().events
    refused = await h.do(ALICE, "end")
    assert not refused.ok and refused.code == "game-at-stake"
    assert refused.text.startswith("This game settles at its end")
    assert h.service.table(KEY) is not None and h.table().events == events
    ended = await h.do(ADMIN, "end")
    assert ended.ok and ended.text == ("The table is closed. The game under way is void: what it had not paid yet is "
                                       "not paid.")
    assert h.service.table(KEY) is None and await h.service.store.balances(KEY.server) == {}


async def test_the_host_may_end_a_game_in_its_lobby_but_not_one_for_dinner_at_stake_zero(harness: Harness) -> None:
    """(session 37) At stake 0 the host's `end` closed a dealt dinner game: a host about to pay for dinner escaped
    it, and those who had left safe lost their result — who pays is the whole of it there, as `kick` holds."""
    h = harness
    assert (await h.do(ALICE, "start", "format=elimination", "stake=5")).ok and (await h.do(BOB, "join")).ok
    assert (await h.do(ALICE, "end")).ok  # nothing dealt: nothing at stake yet
    assert (await h.do(ALICE, "start", "format=elimination", "stake=0")).ok and (await h.do(BOB, "join")).ok
    assert (await h.do(ALICE, "deal")).ok
    events = h.table().events
    refused = await h.do(ALICE, "end")
    assert not refused.ok and refused.code == "game-at-stake" and h.table().events == events, refused
    assert refused.text.startswith("This game decides its result at its end (who pays for dinner, who wins)")
    ended = await h.do(ADMIN, "end")  # an admin's: closed, nobody paid (none at stake)
    assert ended.ok and h.service.table(KEY) is None and await h.service.store.balances(KEY.server) == {}
    # a host alone with computer players: nobody else's result to void (review: they could not end it at all)
    assert (await h.do(ALICE, "start", "format=elimination", "stake=0", "computers=2")).ok
    assert (await h.do(ALICE, "deal")).ok and h.table().live
    alone = await h.do(ALICE, "end")
    assert alone.ok and h.service.table(KEY) is None, alone


async def test_at_stake_zero_a_host_left_with_computers_may_not_end_a_game_a_person_left_safe_from(
        tmp_path: Path) -> None:
    """A player who left safe and then left the table is out of the seats, not out of the game: the host, still
    in, alone with a computer player, could `end` it (nobody paid for dinner, the safe player's result void)."""
    h = Harness(tmp_path / "liars.sqlite3", seed=17)  # (deals where Bob leaves safe first, then a computer)
    await h.open()
    try:
        async def turn() -> None:
            if (who := h.table().to_act) in ACTORS:
                rebid, bid = live_round(h.table()).phase.value == "rebid", live_round(h.table()).standing_bid
                opening = ("bid", "1", "0") if who == BOB.user_id else ("bid", "20", "9")  # (Alice loses her bids)
                words = ("count",) if rebid else opening if bid is None else ("challenge",)
                assert (await h.do(ACTORS[who], *words)).ok
            else:  # the computer's turn (or the next deal): its delay passes
                h.clock.advance(61)
                await h.service.tick()
                await h.service.drain()

        assert (await h.do(ALICE, "start", "format=elimination", "stake=0", "computers=2", "level=easy")).ok
        assert (await h.do(BOB, "join")).ok and (await h.do(ALICE, "deal")).ok
        while not (match := elimination_match(h.table())).safe:
            await turn()
        assert match.safe == [BOB.user_id]
        assert (await h.do(BOB, "leave")).ok
        while BOB.user_id in h.table().seats:  # (gone at the next deal)
            await turn()
        assert not elimination_match(h.table()).over and elimination_match(h.table()).safe == [BOB.user_id, "cpu-gekko"]
        assert h.table().seats == [ALICE.user_id, "cpu-gekko", "cpu-sherman"]  # Alice, still in, and computers
        events = h.table().events
        refused = await h.do(ALICE, "end")
        assert not refused.ok and refused.code == "game-at-stake" and h.table().events == events, refused
    finally:
        await h.service.close()


async def test_a_host_ending_a_round_at_stake_closes_the_table_at_its_count(harness: Harness) -> None:
    """Rounds that each settle: the host could `end` the table mid-round, voiding the round they were losing
    (their bid challenged, all around).  Now the table closes when the round is counted, the round paid; an
    admin may still end it at once, the round void."""
    h = harness
    assert (await h.do(ALICE, "start", "classic", "stake=1")).ok
    assert (await h.do(BOB, "join")).ok and (await h.do(CAROL, "join")).ok
    assert (await h.do(ALICE, "deal")).ok
    assert (await h.do(actor(h.to_act()), "bid", "two", "sevens")).ok
    closing = await h.do(ALICE, "end")
    assert closing.ok and closing.text.startswith("The table closes when this round is counted")
    assert h.table().live and h.table().closing_by == ALICE.name
    panels = [m for m in h.notifier.messages if m.panel == "table"]
    assert panels[-1].text.endswith(f"\n🔚 {ALICE.name} is closing the table: it closes when this round is counted.")
    assert any(m.text == f"{ALICE.name} is closing the table: it closes when this round is counted."
               for m in h.notifier.messages if m.to is None)
    events = h.table().events
    again = await h.do(ALICE, "end", request_id="end-twice")  # asked twice: told the same, nothing stored
    assert again.ok and again.text == closing.text and h.table().events == events
    assert (await h.do(actor(h.to_act()), "challenge")).ok
    assert (await h.do(actor(h.to_act()), "challenge")).ok
    assert h.service.table(KEY) is None  # closed at the count: no next round dealt
    redelivered = await h.do(ALICE, "end", request_id="end-twice")  # the same request, after the close: answered
    assert redelivered == again, redelivered  # alike (its answer was not stored: "no table")
    balances = await h.service.store.balances(KEY.server)
    assert sorted(balances.values()) != [] and sum(balances.values()) == 0 and any(balances.values())
    # a restart replays the closing: the table stays closed
    service = await h.restart()
    assert service.table(KEY) is None


@pytest.mark.parametrize("game", [("classic", "stake=1"), ("game=cards", "payout=knockout", "stake=2")])
async def test_an_admin_may_void_a_round_at_stake(harness: Harness, game: tuple[str, ...]) -> None:
    """The serial game and the card game's knockout (paid at each challenge): the host's `end` waits for the
    count (the round is not void), an admin's ends the table at once, the round void."""
    h = harness
    assert (await h.do(ALICE, "start", *game)).ok
    assert (await h.do(BOB, "join")).ok and (await h.do(CAROL, "join")).ok
    assert (await h.do(ALICE, "deal")).ok
    assert (await h.do(ALICE, "end")).ok and h.table().live and h.table().closing_by == ALICE.name
    ended = await h.do(ADMIN, "end")
    assert ended.ok and ended.text == "The table is closed. The round under way is void: no money moves."
    assert h.service.table(KEY) is None and await h.service.store.balances(KEY.server) == {}


@pytest.mark.parametrize("game", [("format=elimination", "stake=5"), ("game=cards", "stake=3"),
                                  ("format=elimination", "stake=0")])
async def test_the_host_may_not_kick_a_player_still_in_a_game_at_stake(harness: Harness, game: tuple[str, ...]) -> None:
    """A host out of a card game kicked every player still in: the game ended with no winner and the host never
    paid its winner (and in an elimination a kick makes the one kicked pay for dinner — at stake 0 too, where who
    pays is the whole of the result: the host kicked a rival still in and escaped paying).  The host is refused;
    an admin may; in the lobby anyone seated may be removed."""
    h = harness
    assert (await h.do(ALICE, "start", *game)).ok
    assert (await h.do(BOB, "join")).ok and (await h.do(CAROL, "join")).ok
    assert (await h.do(ALICE, "kick", f"<@{CAROL.user_id}>")).ok  # the lobby: removed
    assert (await h.do(CAROL, "join")).ok and (await h.do(ALICE, "deal")).ok
    events = h.table().events
    refused = await h.do(ALICE, "kick", f"<@{BOB.user_id}>")
    assert not refused.ok and refused.code == "game-at-stake" and h.table().events == events, refused
    assert BOB.user_id not in h.table().pending_leave
    assert (await h.do(ADMIN, "kick", f"<@{BOB.user_id}>")).ok and BOB.user_id in h.table().pending_leave
    again = await h.do(ALICE, "kick", f"<@{BOB.user_id}>")  # already leaving: said so (it read "game-at-stake")
    assert not again.ok and again.text == "That seat is already leaving after this round.", again


async def test_under_the_knockout_payout_a_host_may_still_kick_a_player_in_the_game(harness: Harness) -> None:
    """The knockout payout pays at each challenge: nothing is decided at the end that a kick would hand over
    (leaving costs nothing more), so the host may remove a player, as at a serial table."""
    h = harness
    assert (await h.do(ALICE, "start", "game=cards", "stake=3", "payout=knockout")).ok
    assert (await h.do(BOB, "join")).ok and (await h.do(CAROL, "join")).ok and (await h.do(ALICE, "deal")).ok
    assert (await h.do(ALICE, "kick", f"<@{BOB.user_id}>")).ok and BOB.user_id in h.table().pending_leave


async def test_the_last_counts_picture_says_dinner_is_paid_not_that_no_money_moves(harness: Harness) -> None:
    """The count picture of the round that left one player in drew the payments beside "No money moves until one
    player is left"."""
    h = harness
    await open_three(h, "stake=2")
    await decide_one(h)
    await decide_one(h)
    pictures: list[Any] = [m.picture for m in h.notifier.messages if m.picture is not None and "words" in m.picture]
    assert len(pictures) >= 2
    *earlier, last = pictures
    assert all(p["words"]["multiplier"].startswith("No money moves until") for p in earlier)
    assert last["words"]["multiplier"] == "One player is left, and pays for dinner."
    assert last["record"]["outcome"]["transfers"] and last["record"]["outcome"]["payer"]


async def test_a_server_may_make_dinner_at_stake_0_its_default(harness: Harness) -> None:
    """`config format=elimination stake=0` was "The stake must be a positive number of units", though a table
    opened `start format=elimination stake=0` plays it; a stake 0 for the usual game is still refused, in the rules'
    words, and saves nothing."""
    h = harness
    before = (await h.do(ADMIN, "config")).text
    refused = await h.do(ADMIN, "config", "stake=0")
    assert not refused.ok and refused.code == "bad-option" and "stake=0 is for format=elimination" in refused.text
    assert (await h.do(ADMIN, "config")).text == before
    assert (await h.do(ADMIN, "config", "format=elimination", "stake=0")).ok
    assert (await h.do(ALICE, "start")).ok
    rules = h.table().rules.to_dict()
    assert rules["format"] == "elimination" and rules["stake"] == 0, rules


@pytest.mark.parametrize("words", [("elimination",), ("Elimination", "stake=0"), ("classic", "elimination", "0"),
                                   ("elimination", "format=elimination")])
async def test_a_bare_format_word_opens_that_format_as_a_bare_game_or_preset_word_does(
        harness: Harness, words: tuple[str, ...]) -> None:
    """`start elimination` was "Unknown preset 'elimination': choose classic, quick, salomon" (`start cards` and
    `start salomon` work)."""
    opened = await harness.do(ALICE, "start", *words)
    assert opened.ok, opened
    rules = harness.table().rules.to_dict()
    assert rules["format"] == "elimination" and rules["stake"] == (0 if {"0", "stake=0"} & set(words) else 1), rules


async def test_two_formats_are_given_twice(harness: Harness) -> None:
    refused = await harness.do(ALICE, "start", "elimination", "format=rounds")
    assert not refused.ok and refused.code == "bad-option" and "given twice" in refused.text, refused
    assert harness.service.table(KEY) is None


@pytest.mark.parametrize("where", [("start", "format=elimination"), ("config", "format=elimination"),
                                   ("start", "game=cards")])
async def test_a_negative_stake_is_refused_as_negative_not_as_not_positive(harness: Harness,
                                                                           where: tuple[str, str]) -> None:
    """`start format=elimination stake=-1` was "The stake must be a positive number of units", where 0 is taken."""
    command, option = where
    refused = await harness.do(ADMIN, command, option, "stake=-1")
    assert not refused.ok and refused.code == "bad-stake", refused
    assert refused.text == "The stake is a number of units: it cannot be below 0.", refused
    assert harness.service.table(KEY) is None


async def test_a_server_default_in_the_way_of_what_was_typed_is_named_as_the_servers(harness: Harness) -> None:
    """A server of `format=elimination stake=0`, then `start format=rounds`: refused for a stake nobody typed, in
    words that read as if they had ("not 0"); the refusal now says the stake is this server's default, and one typed
    with the command opens the table.  A refusal that is the typed options' own names no default."""
    h = harness
    assert (await h.do(ADMIN, "config", "format=elimination", "stake=0")).ok
    refused = await h.do(ALICE, "start", "format=rounds")
    assert not refused.ok and refused.code == "bad-option", refused
    assert refused.text.endswith("This server's default is stake=0: give your own stake with the command."), refused
    assert h.service.table(KEY) is None
    own = await h.do(ALICE, "start", "format=rounds", "stake=0")  # typed: the rules' words alone
    assert not own.ok and "server" not in own.text and "stake=0 is for format=elimination" in own.text, own
    assert (await h.do(ALICE, "start", "format=rounds", "stake=3")).ok
    assert h.table().rules.to_dict()["stake"] == 3


async def test_config_names_a_default_in_the_way_and_keeps_options_as_the_rules_read_them(harness: Harness) -> None:
    """`config format=rounds` on a server of `format=elimination stake=0` was refused for a stake the admin never
    typed, in words that read as if they had; `rebid=YES`/`skunk=1` read back raw (the rules read them as on);
    `config cards` alone said "Settings saved." with nothing to save."""
    h = harness
    assert (await h.do(ADMIN, "config", "format=elimination", "stake=0")).ok
    refused = await h.do(ADMIN, "config", "format=rounds")
    assert not refused.ok and refused.text.endswith(
        "This server's default is stake=0: give your own stake with the command."), refused.text
    own = await h.do(ADMIN, "config", "format=rounds", "stake=0")  # typed: the rules' words alone
    assert not own.ok and "server's default" not in own.text
    saved = await h.do(ADMIN, "config", "format=rounds", "stake=2", "rebid=YES", "skunk=1", "rank_order=zero_high")
    assert saved.ok and "format=rounds, stake=2, rebid=on, skunk=on, rank_order=zero-high;" in saved.text, saved.text
    before = (await h.do(ADMIN, "config")).text
    alone = await h.do(ADMIN, "config", "cards")
    assert alone.ok and not alone.text.startswith("Settings saved.") and alone.text == before
    assert (await h.do(BOB, "config", "cards")).text == before  # a read: anyone may
    for chess in (("game=chess",), ("GAME=chess",)):  # (the read came before the game was checked: ok, the settings)
        unknown = await h.do(ADMIN, "config", *chess)
        assert not unknown.ok and unknown.text.startswith("Unknown game"), unknown.text
    assert (await h.do(ALICE, "start")).ok and h.table().rules.to_dict()["rebid"] is True
