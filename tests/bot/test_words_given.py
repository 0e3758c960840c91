"""Words a command does not take, and options given twice: one private refusal, nothing changed.

Before: a command that takes nothing ran as if sent alone whatever followed it (`last 3` declared this round
the last, `join stake=5` seated the player at the table's stake, `end --force` ended the table), and an option
given twice was settled silently — `start` kept the first value, `config` the last, `sheet` the first period,
`leaderboard` the last.  On Slack and in the terminal the words reach the service as typed; Discord's slash
commands cannot carry words a command does not declare, but its options and typed words can still disagree.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.model import Actor
from tests.bot.conftest import ADMIN, ALICE, BOB, KEY, Harness
from tests.typed import live_round


async def _dealt(h: Harness) -> None:
    assert (await h.do(ALICE, "start")).ok and (await h.do(BOB, "join")).ok and (await h.do(ALICE, "deal")).ok


@pytest.mark.parametrize("words", [("stake=5",), ("seats=2",), ("now",), ("0",), ("",)])
async def test_join_with_words_is_refused_and_seats_nobody(harness: Harness, words: tuple[str, ...]) -> None:
    h = harness
    assert (await h.do(ALICE, "start")).ok
    refused = await h.do(BOB, "join", *words)
    if words == ("",):  # nothing typed after it: `join` alone
        assert refused.ok and BOB.user_id in h.table().seats
        return
    assert not refused.ok and refused.code == "bad-option" and refused.private, refused
    assert refused.text == "`join` takes nothing after it: send `join` alone. Nothing was done."
    assert BOB.user_id not in h.table().seats


async def test_last_with_a_number_is_refused_and_declares_nothing(harness: Harness) -> None:
    h = harness
    await _dealt(h)
    events = h.table().events
    refused = await h.do(ALICE, "last", "3")
    assert not refused.ok and refused.code == "bad-option" and not h.table().last_declared
    assert h.table().events == events  # nothing stored
    assert (await h.do(ALICE, "last")).ok and h.table().last_declared


@pytest.mark.parametrize(("name", "words"), [("end", ("--force",)), ("deal", ("now",)), ("leave", ("stake=9",))])
async def test_table_commands_with_words_are_refused(harness: Harness, name: str, words: tuple[str, ...]) -> None:
    h = harness
    assert (await h.do(ALICE, "start")).ok and (await h.do(BOB, "join")).ok
    events = h.table().events
    refused = await h.do(ALICE, name, *words)
    assert not refused.ok and refused.code == "bad-option" and f"`{name}` takes nothing after it" in refused.text
    assert h.service.table(KEY) is not None and h.table().events == events and not h.table().live


@pytest.mark.parametrize("words", [("now",), ("5", "sevens")])
async def test_a_challenge_with_words_is_refused(harness: Harness, words: tuple[str, ...]) -> None:
    h = harness
    await _dealt(h)
    opener = h.to_act()
    bidder = ALICE if opener == ALICE.user_id else BOB
    other = BOB if bidder is ALICE else ALICE
    assert (await h.do(bidder, "bid", "1", "0")).ok
    events = h.table().events
    refused = await h.do(other, "challenge", *words)
    assert not refused.ok and refused.code == "bad-option" and h.table().events == events
    assert (await h.do(other, "challenge")).ok


@pytest.mark.parametrize(
    ("words", "options", "twice"),
    [
        (("stake=2", "stake=3"), {}, "stake"),
        (("stake=3",), {"stake": 2}, "stake"),  # Discord: the slash option and the typed options disagree
        (("salomon", "preset=classic"), {}, "preset"),
        (("classic", "2", "stake=3"), {}, "stake"),
        (("classic", "salomon"), {}, "preset"),  # (session 37) "The stake must be a whole number …, not 'salomon'"
        (("classic", "2", "salomon"), {}, "preset"),
        (("quick", "stake=3,", "4"), {}, "stake"),  # (review) joined as a list: "not a whole number: '3,4'"
    ],
)
async def test_start_with_an_option_given_twice_opens_nothing(
    harness: Harness, words: tuple[str, ...], options: dict[str, Any], twice: str
) -> None:
    h = harness
    refused = await h.do(ALICE, "start", *words, **options)
    assert not refused.ok and refused.code == "bad-option", refused
    assert refused.text == f"'{twice}' is given twice, with different values: give it once."
    assert h.service.table(KEY) is None


async def test_start_with_the_same_value_twice_opens_the_table(harness: Harness) -> None:
    h = harness
    assert (await h.do(ALICE, "start", "classic", "02", "stake=+2", "PRESET=Classic", "rebid=on", "rebid=yes",
                       "rank_order=zero_high", "rank-order=zero-high", stake=2)).ok  # 02 and +2 are 2; yes is on
    assert h.table().rules.stake == 2 and h.table().rules.to_dict()["rebid"] is True  # (each was "given twice,
    # with different values")


@pytest.mark.parametrize("words", [("quick", "quick", "3"), ("quick,", "stake=3,"), ("quick", "stake=3", ","),
                                   ("quick", "game=serial,", "stake=3;")])
async def test_start_reads_a_preset_said_twice_and_a_closing_comma(harness: Harness, words: tuple[str, ...]) -> None:
    """(session 37) `start quick quick 3` read the second quick as the stake; `start quick, stake=3` refused
    "Unknown preset 'quick,'", `game=serial,` "Unknown game"."""
    h = harness
    opened = await h.do(ALICE, "start", *words)
    assert opened.ok, opened
    assert h.table().rules.stake == 3 and h.table().rules.to_dict()["preset"] == "quick", h.table().rules


async def test_config_with_a_setting_given_twice_or_nameless_saves_nothing(harness: Harness) -> None:
    h = harness
    before = (await h.do(ADMIN, "config")).text
    twice = await h.do(ADMIN, "config", "turn_timeout=90", "turn_timeout=120")
    assert not twice.ok and twice.code == "bad-option" and "'turn_timeout' is given twice" in twice.text
    nameless = await h.do(ADMIN, "config", "=5")
    assert not nameless.ok and nameless.text == "Write settings as name=value (e.g. `preset=salomon`), not '=5'."
    assert (await h.do(ADMIN, "config")).text == before
    assert (await h.do(ADMIN, "config", "turn_timeout=90", "TURN_TIMEOUT=090")).ok  # the same value: once
    twice = await h.do(ADMIN, "config", "currency=yes", "currency=on")  # a currency's words are as typed
    assert not twice.ok and "'currency' is given twice" in twice.text


@pytest.mark.parametrize(
    ("name", "words", "twice"),
    [
        ("sheet", ("2025-12", "2026-01"), "period"),
        ("leaderboard", ("2025-12", "2026-01"), "period"),
        ("leaderboard", ("all", "2026-01"), "period"),
        ("leaderboard", ("money", "skill"), "by"),
        ("leaderboard", ("serial", "cards"), "game"),
    ],
)
async def test_books_with_two_periods_or_orders_are_refused(
    harness: Harness, name: str, words: tuple[str, ...], twice: str
) -> None:
    refused = await harness.do(ADMIN, name, *words)
    assert not refused.ok and refused.code == "bad-option" and f"'{twice}' is given twice" in refused.text
    assert (await harness.do(ADMIN, name, words[0])).ok  # one of them alone is answered


@pytest.mark.parametrize("typed", [",", "Alicia", "?"])
async def test_stats_of_a_name_no_player_has_says_so(harness: Harness, typed: str) -> None:
    """`stats ,` answered ", has not played a settled round on this server"."""
    refused = await harness.do(ALICE, "stats", typed)
    assert not refused.ok and refused.code == "bad-option"
    assert refused.text == f"No player here is named '{typed}': mention them, or type their name as the table shows it."


async def test_stats_of_a_name_several_players_have_asks_for_a_mention(harness: Harness) -> None:
    h = harness
    twins = [Actor("U71", "Sam"), Actor("U72", "Sam")]
    assert (await h.do(ALICE, "start")).ok
    for sam in twins:
        assert (await h.do(sam, "join")).ok  # their names stored as seated
    refused = await h.do(ALICE, "stats", "Sam")
    assert not refused.ok and refused.text == "'Sam' names 2 players here: mention the one you mean."


async def test_a_player_named_both_by_member_and_by_name_is_refused(harness: Harness) -> None:
    """Discord's `kick`/`stats` take a member or a name: given both, the name was dropped, silently."""
    h = harness
    await _dealt(h)
    for command in ("kick", "stats"):
        refused = await h.do(ALICE, command, "alice", member=f"<@{BOB.user_id}>")
        assert refused.code == "bad-option" and "a member or a name, not both" in refused.text, command
    assert BOB.user_id in h.table().seats
    assert (await h.do(ALICE, "stats", member=f"<@{BOB.user_id}>")).ok


@pytest.mark.parametrize(("name", "words"), [("hand", ("<@U2>",)), ("hand", ("bob",)), ("status", ("<@U2>",)),
                                             ("history", ("all",)), ("odds", ("5", "sevens")), ("hint", ("please",)),
                                             ("export", ("json",))])
async def test_a_read_given_words_it_takes_none_of_is_refused(harness: Harness, name: str,
                                                              words: tuple[str, ...]) -> None:
    """`hand @bob` answered with the sender's own serial, as if it were Bob's (and `status`, `history` and `odds`
    dropped their words the same way); `help bid` is still help."""
    h = harness
    await _dealt(h)
    mine = str(live_round(h.table()).serials[ALICE.user_id])
    refused = await h.do(ALICE, name, *words)
    assert not refused.ok and refused.code == "bad-option" and refused.private, refused
    assert mine not in refused.text and mine.split()[1] not in refused.text
    if name == "hand":
        assert refused.text == "`hand` shows only what you hold, to you alone: send `hand` alone."
    else:
        assert refused.text == f"`{name}` takes nothing after it: send `{name}` alone."
    alone = await h.do(ALICE, name)  # (`export` alone: nothing settled yet, said so)
    assert alone.code != "bad-option" and (alone.ok or name == "export") and (await h.do(ALICE, "help", "bid")).ok
