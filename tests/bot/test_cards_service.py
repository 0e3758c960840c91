"""The card game through the service: timers, stats, its challenge and its end."""

from __future__ import annotations

import json
import re

import pytest

from bot.model import Actor
from core.cards.game import CARDS
from core.cards.round import Phase, Round
from tests.bot.conftest import ADMIN, ALICE, BOB, CAROL, KEY, Harness, actor
from tests.typed import cards_match, data


async def open_cards(h: Harness, *guests: Actor) -> None:
    """Alice opens a card table, Bob (and any other guests) join, and Alice deals."""
    assert (await h.do(ALICE, "start", "game=cards")).ok
    for guest in (BOB, *guests):
        assert (await h.do(guest, "join")).ok
    dealt = await h.do(ALICE, "deal")
    # only the opener is dealt anything (the host was told to check DMs that never came)
    assert dealt.ok and dealt.text == "Dealt. The opener draws five cards, by DM; the hand then goes round."


def round_or_none(h: Harness) -> Round | None:
    """The card round at KEY (a card table there), None before the first deal."""
    return cards_match(h.service.table(KEY)).engine.round


def round_of(h: Harness) -> Round:
    """The card round at KEY, which has been dealt."""
    round_ = round_or_none(h)
    assert round_ is not None
    return round_


async def test_a_timed_out_player_declares_or_takes_and_declares_the_least_raise(harness: Harness) -> None:
    h = harness
    assert (await h.do(ADMIN, "config", "turn_timeout=60")).ok
    await open_cards(h)
    opener = round_of(h).to_act
    h.clock.advance(61)
    for _ in range(2):  # the warning, then the timeout
        await h.service.tick()
    r = round_of(h)
    assert r.standing is not None and r.active == opener and r.phase is Phase.GUN
    opening = r.standing
    under_gun = r.to_act
    assert under_gun != opener
    least = r.least_raise()
    seen = len(h.notifier.messages)
    h.clock.advance(61)
    for _ in range(3):
        await h.service.tick()
    r = round_of(h)
    # Under the gun and out of time: took the hand and declared the least legal raise, in one turn.
    assert r.active == under_gun and r.standing == least and r.standing > opening
    told = [m.text for m in h.notifier.messages[seen:] if m.to == under_gun]
    # not "You may discard and draw once, then declare" (the timer had declared for them): the hand they hold
    assert len(told) == 1 and told[0].startswith("The hand you passed on at "), told
    assert r.phase is Phase.GUN and r.to_act == opener
    said = [m.text for m in h.notifier.messages if "ran out of time" in m.text]
    assert len(said) >= 2


async def test_a_finished_card_game_counts_in_stats_and_history(harness: Harness) -> None:
    h = harness
    await open_cards(h)
    for _ in range(20):
        r = round_or_none(h)
        if r is None or h.service.table(KEY) is None:
            break
        who = r.to_act
        if who is None:
            break
        if r.phase is Phase.GUN:
            assert (await h.do(actor(who), "challenge")).ok
        else:
            assert (await h.do(actor(who), "declare", *r.least_raise().name().split())).ok
        if h.service.table(KEY) is None:
            break
    assert h.service.table(KEY) is None  # two players: one challenge ends it
    ended = [m.text for m in h.notifier.messages if "won the game" in m.text]  # the table message, as drawn
    assert ended and len({w for t in ended for w in re.findall(r"<@(\w+)> won the game", t)}) == 1  # one winner
    winner = ALICE if ALICE.user_id in ended[0] else BOB
    loser = BOB if winner is ALICE else ALICE
    won = await h.do(winner, "stats")
    lost = await h.do(loser, "stats")
    assert won.ok and lost.ok
    assert "Games won: 1" in won.text and "net +1 unit" in won.text
    assert "Games won: 0" in lost.text and "net -1 unit" in lost.text
    # the headline counts what was stored in the game's words: one whole game (it said "1 round")
    assert won.text.startswith(f"📊 {winner.name}: 1 game, net +1 unit"), won.text
    history = await h.do(ALICE, "history")
    assert history.ok and f"won by {winner.name}" in history.text, history.text


async def test_a_knockout_games_history_names_each_knockout_and_one_winner(harness: Harness) -> None:
    h = harness
    assert (await h.do(ALICE, "start", "game=cards", "knockout")).ok
    assert (await h.do(BOB, "join")).ok and (await h.do(CAROL, "join")).ok
    assert (await h.do(ALICE, "deal")).ok
    lines: list[str] = []
    for _ in range(40):
        if h.service.table(KEY) is None:
            break
        r = round_or_none(h)
        if r is None or r.to_act is None:
            break
        settled = len(await h.service.store.rounds(KEY.server))
        if r.phase is Phase.GUN:
            assert (await h.do(actor(r.to_act), "challenge")).ok
        else:
            assert (await h.do(actor(r.to_act), "declare", *r.least_raise().name().split())).ok
        if len(await h.service.store.rounds(KEY.server)) > settled:  # a challenge: a row, a line
            lines = (await h.do(ALICE, "history")).text.splitlines()[1:]
    assert h.service.table(KEY) is None and len(lines) == 2, lines  # three players: two knockouts
    first, last = lines  # oldest first
    assert "knocked out" in first and "won by" not in first, first  # the game went on after it
    assert "knocked out" in last and "the game won by" in last, last
    names = {a.name for a in (ALICE, BOB, CAROL)}
    assert sum(n in first for n in names) == 1  # who was knocked out, by name


async def test_when_the_last_rival_leaves_the_game_ends_and_settles(harness: Harness) -> None:
    """Three players; while one round is played the third leaves.  The challenge knocks one of the
    other two out, so nobody is left to play the survivor: the game ends there, the leaver forfeits
    (pays the winner like everyone else), and the table closes."""
    h = harness
    await open_cards(h, CAROL)
    r = round_of(h)
    opener = r.to_act
    assert (await h.do(actor(opener), "declare", *r.least_raise().name().split())).ok
    under_gun = r.to_act
    third = next(p for p in (ALICE.user_id, BOB.user_id, CAROL.user_id) if p not in (opener, under_gun))
    left = await h.do(actor(third), "leave")
    assert left.ok, left.text
    assert (await h.do(actor(under_gun), "challenge")).ok
    assert h.service.table(KEY) is None
    ended = [m.text for m in h.notifier.messages if "wins the game" in m.text]
    assert ended, [m.text for m in h.notifier.messages][-6:]
    board = await h.do(ALICE, "ledger")
    units = dict(re.findall(r"• (\w+): ([+-]?\d+) units? ", board.text))
    assert sorted(units.values()) == ["+2", "-1", "-1"], board.text  # the survivor took a stake from each
    assert ended[0].count("wins the game") == 1 and units[next(
        a.name for a in (ALICE, BOB, CAROL) if a.user_id in ended[0])] == "+2"
    history = (await h.do(ALICE, "history")).text  # one round, counted across the seat change (it read 0 rounds)
    assert re.search(r"Card game 1: 1 round, won by \w+", history), history


async def test_a_player_who_is_out_is_told_so_in_words_not_by_id(harness: Harness) -> None:
    h = harness
    await open_cards(h, CAROL)
    r = round_of(h)
    assert (await h.do(actor(r.to_act), "declare", *r.least_raise().name().split())).ok
    assert (await h.do(actor(round_of(h).to_act), "challenge")).ok
    [out] = cards_match(h.service.table(KEY)).engine.out
    refused = await h.do(actor(out), "take")
    assert not refused.ok and refused.code == "not-seated"
    assert refused.text == "You are not playing in this round (you are out, or joined after it was dealt)."
    assert out not in refused.text
    hint = await h.do(actor(out), "hint")  # it said "It is not your turn: nothing to decide yet", as if one came
    assert hint.text == "You are out of this game: nothing to decide.", hint.text


async def test_config_sets_each_games_defaults_and_rules_explain_the_card_game(harness: Harness) -> None:
    h = harness
    assert (await h.do(ADMIN, "config", "game=cards", "preset=knockout", "pass=on")).ok
    assert (await h.do(ADMIN, "config", "preset=quick")).ok  # the default game's, kept apart
    shown = await h.do(ALICE, "config")
    assert "cards: preset knockout, pass=on" in shown.text and "serial: preset quick" in shown.text
    assert (await h.do(ALICE, "start", "game=cards")).ok
    rules = await h.do(BOB, "rules")
    assert rules.text.startswith("Liar's Poker with cards, preset knockout") and "pass" in rules.text
    assert "challenger is out" in rules.text  # the game explained, not only its preset's name
    helped = await h.do(BOB, "help")
    listed = set(data(helped)["commands"])
    assert {"declare", "take", "discard", "pass", "challenge", "hint"} <= listed
    assert not {"bid", "count", "odds", "last"} & listed  # cards only, and no `last` (which the game refuses)
    assert (await h.do(ADMIN, "end")).ok
    assert (await h.do(ALICE, "start")).ok
    assert "quick" in (await h.do(BOB, "rules")).text.lower()
    assert "last" in data(await h.do(BOB, "help"))["commands"]  # the serial game's rounds have a last one
    # as the help writes it, "[game] preset": bare words (refused as "Write settings as name=value")
    assert (await h.do(ADMIN, "config", "cards", "wild")).ok and (await h.do(ADMIN, "config", "salomon")).ok
    said = (await h.do(ALICE, "config")).text
    assert "cards: preset wild, pass=on" in said and "serial: preset salomon" in said, said
    assert (await h.do(ADMIN, "config", "standard")).ok  # a preset only the card game has names it
    assert "cards: preset standard" in (await h.do(ALICE, "config")).text
    assert (await h.do(ADMIN, "config", preset="knockout")).ok  # named so too (Discord's `preset:` option)
    assert "cards: preset knockout" in (await h.do(ALICE, "config")).text
    assert (await h.do(ADMIN, "config", "cards", "salomon")).code == "bad-option"  # not the card game's
    assert (await h.do(ADMIN, "config", "chess")).code == "bad-option"


async def test_each_move_is_answered_in_the_games_own_words(harness: Harness) -> None:
    """The mover's reply is the game's (``CommandSpec.done``): bot/ names no game's verb; an alias is
    answered as its command."""
    h = harness
    await open_cards(h)
    opener = actor(round_of(h).to_act)
    declared = await h.do(opener, "d", *round_of(h).least_raise().name().split())  # "d": declare's alias
    assert declared.ok and declared.text == "Declared."
    took = await h.do(actor(round_of(h).to_act), "take")
    assert took.ok and took.text == "You took the hand."


async def test_when_two_of_three_leave_in_one_round_the_one_left_wins(harness: Harness) -> None:
    """One seat left for the next deal, fewer than the game seats: the game still ends with its winner and its
    settlement (both leavers forfeit the stake to the winner) instead of closing with nobody paid."""
    h = harness
    await open_cards(h, CAROL)
    r = round_of(h)
    opener = r.to_act
    assert opener is not None
    assert (await h.do(actor(opener), "declare", *r.least_raise().name().split())).ok
    under_gun = r.to_act
    assert under_gun is not None
    third = next(p for p in (ALICE.user_id, BOB.user_id, CAROL.user_id) if p not in (opener, under_gun))
    assert (await h.do(actor(third), "leave")).ok and (await h.do(actor(under_gun), "leave")).ok
    assert (await h.do(actor(under_gun), "challenge")).ok  # seven-six high holds: the challenger is out
    assert h.service.table(KEY) is None
    said = "\n".join(m.text for m in h.notifier.messages)
    assert f"<@{opener}> is the last player standing and wins the game" in said, said[-600:]
    assert await h.service.store.balances(KEY.server) == {opener: 2, under_gun: -1, third: -1}
    records = json.loads(data(await h.do(ALICE, "export"))["record"])  # the one-seat match's record verifies too
    verified = [CARDS.verify(record) for record in records]
    assert len(records) == 2 and verified[-1]["rounds"] == [] and verified[-1]["winner"] == opener
    assert verified[-1]["net"] == {opener: 2, under_gun: -1, third: -1}


@pytest.mark.parametrize("payout", ["winner", "knockout"])
async def test_when_everyone_still_in_leaves_the_game_ends_with_no_winner(harness: Harness, payout: str) -> None:
    """Four players; one is knocked out, then both of the others still in leave while the third is knocked out.
    The next deal seated only players already out: it raised (no opener) and the table's follow-up failed at
    every tick.  Now the game ends there with no winner and the table closes, no money moving for its end."""
    h = harness
    assert (await h.do(ALICE, "start", "game=cards", f"payout={payout}")).ok
    for guest in (BOB, CAROL, ADMIN):
        assert (await h.do(guest, "join")).ok
    assert (await h.do(ALICE, "deal")).ok
    out: list[str] = []
    for leaving in (False, True):
        r = round_of(h)
        opener = r.to_act
        assert opener is not None
        if leaving:  # the two still in besides the opener ask to leave; the round plays on
            others = [p for p in r.players if p != opener]
            assert len(others) == 2
            for p in others:
                assert (await h.do(actor(p), "leave")).ok
        assert (await h.do(actor(opener), "declare", "royal", "flush")).ok
        assert (await h.do(actor(round_of(h).to_act), "challenge")).ok  # not held: the declarer is out
        out.append(opener)
    assert h.service.table(KEY) is None  # closed at the next deal
    said = "\n".join(m.text for m in h.notifier.messages)
    paid = "what each challenge paid stands" if payout == "knockout" else "nobody pays"
    assert f"the game ends with no winner, and {paid}." in said, said[-600:]
    assert "wins the game" not in said
    balances = await h.service.store.balances(KEY.server)
    assert sum(balances.values()) == 0
    if payout == "winner":
        assert not any(balances.values()), balances
    else:  # each knocked-out declarer paid their challenger (the second, the first's, was paid then), nothing more
        assert balances[out[0]] == -1 and balances.get(out[1], 0) == 0, balances
        assert sorted(v for v in balances.values() if v) == [-1, 1], balances


async def test_a_discard_of_a_place_alone_or_of_no_card_is_refused(harness: Harness) -> None:
    """`discard #1` answered "'' is not a card" (the form's "#n" place was cut off first); `discard ,` was taken
    as a discard of no card, spending the player's one discard and telling the channel "discarded 0"."""
    h = harness
    await open_cards(h)
    r = round_of(h)
    assert (await h.do(actor(r.to_act), "declare", *r.least_raise().name().split())).ok
    taker = actor(round_of(h).to_act)
    assert (await h.do(taker, "take")).ok
    hand = list(round_of(h).hand)
    refused = await h.do(taker, "discard", "#1")
    assert not refused.ok and refused.code == "bad-card" and refused.text.startswith("'#1' is not a card"), refused
    assert list(round_of(h).hand) == hand
    events = h.table().events
    for typed in (",", ",,", " , "):  # no card named: it was a discard of none, spending the one discard
        refused = await h.do(taker, "discard", typed)
        assert not refused.ok and refused.code == "bad-card" and refused.text.startswith("Name the cards"), refused
    assert h.table().events == events and round_of(h).may_discard
    assert (await h.do(taker, "discard", str(hand[0]))).ok


async def test_the_deal_posts_the_whole_commitment_and_the_challenge_reveals_the_salt(harness: Harness) -> None:
    """The deal posted 16 hex digits of the SHA-256 (64 bits: two decks sharing them are found in about 2^32
    hashes) and no message ever showed the salt: the shuffle could not be checked from the channel."""
    import hashlib

    h = harness
    await open_cards(h, CAROL)
    dealt = cards_match(h.service.table(KEY)).engine.rounds[-1]
    deal_says = [m.text for m in h.notifier.messages if m.to is None and "a fresh deck is shuffled" in m.text]
    assert deal_says and f"(commitment `{dealt['commitment']}`)" in deal_says[-1]
    assert not [m for m in h.notifier.messages if dealt["salt"] in m.text]  # secret until the challenge
    r = round_of(h)
    assert (await h.do(actor(r.to_act), "declare", *r.least_raise().name().split())).ok
    assert (await h.do(actor(round_of(h).to_act), "challenge")).ok
    [result] = [m.text for m in h.notifier.messages if m.to is None and " challenges " in m.text]
    salt = re.search(r"Salt: `([0-9a-f]{32})`", result)
    assert salt is not None and salt.group(1) == dealt["salt"] and dealt["commitment"] in result
    canonical = json.dumps({"deck": dealt["deck"], "salt": salt.group(1)}, sort_keys=True, separators=(",", ":"))
    assert hashlib.sha256(canonical.encode()).hexdigest() == dealt["commitment"]


async def test_the_hand_shown_after_declaring_says_it_was_passed_on_once(harness: Harness) -> None:
    """It read "The hand you passed on: Your hand: … Declare what it holds (or bluff)." — twice the prefix,
    and an order to declare to someone whose move it no longer was."""
    h = harness
    await open_cards(h)
    r = round_of(h)
    declarer = r.to_act
    assert (await h.do(actor(declarer), "declare", *r.least_raise().name().split())).ok
    shown = await h.do(actor(declarer), "hand")
    assert shown.ok and shown.text.startswith("The hand you passed on at ")
    dealt = [m.text for m in h.notifier.messages if m.to == declarer and "Your hand" in m.text]
    assert dealt and dealt[0].startswith(f"Your hand at <#{KEY.channel_id}>: ")  # which table: one may play several
    assert "Your hand" not in shown.text and "Declare" not in shown.text
    assert shown.text.endswith("The next move is not yours.")


async def test_a_game_that_plays_to_its_end_takes_no_round_limit(harness: Harness) -> None:
    """rounds=1 closed a knockout card game at its first challenge with nobody the winner, and an elimination
    after N rounds with nobody paying; under the winner payout it did nothing."""
    h = harness
    for args in (("game=cards", "rounds=1"), ("game=cards", "knockout", "rounds=3"), ("classic", "format=elimination",
                                                                                   "rounds=2")):
        refused = await h.do(ALICE, "start", *args)
        assert not refused.ok and refused.code == "bad-option" and "takes no round limit" in refused.text, args
        assert h.service.table(KEY) is None
    assert (await h.do(ALICE, "start", "classic", "rounds=2")).ok  # rounds that each settle: a limit stops them


async def test_leaving_a_card_game_mid_game_says_it_forfeits(harness: Harness) -> None:
    h = harness
    await open_cards(h, CAROL)
    left = await h.do(CAROL, "leave")
    assert left.ok and left.text == ("You will leave after this round. Leaving mid-game forfeits: you pay the "
                                     "winner 1 unit ($1.00) when the game ends.")


async def test_a_knockout_leaver_is_told_the_cost_and_counted_as_playing(harness: Harness) -> None:
    """A player who left a knockout game without a challenge of their own: `stats` said they had not played
    (they were in no ledger row, only in the game's ranking), and leaving said nothing of what it costs."""
    h = harness
    assert (await h.do(ALICE, "start", "game=cards", "knockout")).ok
    for guest in (BOB, CAROL, ADMIN):
        assert (await h.do(guest, "join")).ok
    assert (await h.do(ALICE, "deal")).ok
    r = round_of(h)
    assert (await h.do(actor(r.to_act), "declare", *r.least_raise().name().split())).ok
    r = round_of(h)
    leaver = next(a for a in (ALICE, BOB, CAROL, ADMIN) if a.user_id not in (r.active, r.to_act))
    left = await h.do(leaver, "leave")
    assert left.ok and left.text.endswith("Under the knockout payout leaving costs nothing more: what you have "
                                          "paid or been paid stands."), left.text
    for _ in range(60):
        now = round_or_none(h) if h.service.table(KEY) is not None else None
        if now is None or now.to_act is None:
            break
        if now.phase is Phase.GUN:
            assert (await h.do(actor(now.to_act), "challenge")).ok
        else:
            assert (await h.do(actor(now.to_act), "declare", *now.least_raise().name().split())).ok
    assert h.service.table(KEY) is None
    stats = await h.do(leaver, "stats")
    assert stats.ok and data(stats)["rounds"] == 1, stats.text
    assert "Games won: 0 of 1 finished" in stats.text, stats.text
    assert stats.text.startswith(f"📊 {leaver.name}: 1 round, net"), stats.text  # a knockout: a record a challenge
    lines = (await h.do(ALICE, "history")).text.splitlines()[1:]  # oldest first: each challenge's own round
    numbers = [int(n) for n in re.findall(r"round (\d+):", "\n".join(lines))]
    assert len(numbers) == len(lines) >= 2 and numbers == sorted(set(numbers)), lines  # "round 1" twice before


async def test_a_form_names_a_computer_player_and_refuses_in_a_sentence(harness: Harness) -> None:
    """The Declare… form opened with "<@cpu-gekko> declared …" (forms are shown as they are, mentions
    undrawn); a form's refusal came in lower case without a full stop."""
    h = harness
    for _ in range(20):  # until the computer opens: Alice is then under the gun
        assert (await h.do(ALICE, "start", "game=cards", "computers=1", "seats=2")).ok
        assert (await h.do(ALICE, "deal")).ok
        r = round_of(h)
        if r.to_act == ALICE.user_id and r.standing is not None:
            break
        assert (await h.do(ADMIN, "end")).ok  # (the host may not end a game at stake under way)
    computer = r.active
    assert computer is not None and computer.startswith("cpu-")
    assert (await h.do(ALICE, "take")).ok
    form = await h.service.form(KEY, ALICE.user_id, "declare")
    name = h.table().name(computer)
    assert form.intro.startswith(f"{name} declared "), form.intro
    assert "<@" not in form.intro and "<@" not in (form.refusal or "")
    refused = await h.service.form(KEY, BOB.user_id, "declare")  # not seated: refused, as a sentence
    assert refused.refusal is not None and refused.refusal[0].isupper() and refused.refusal.endswith("."), refused


async def test_a_form_of_another_games_move_is_refused_not_opened(harness: Harness) -> None:
    """A bare `discard` (or `declare`) at a serial table opened the Raise… form, and its submit placed a bid;
    a bare `bid` at a card table said "Bid has no form"."""
    h = harness
    assert (await h.do(ALICE, "start")).ok and (await h.do(BOB, "join")).ok and (await h.do(ALICE, "deal")).ok
    for verb in ("discard", "declare"):
        form = await h.service.form(KEY, ALICE.user_id, verb)
        assert form.refusal == f"`{verb}` is not part of Liar's Poker (serial numbers).", form
    assert (await h.do(ADMIN, "end")).ok
    await open_cards(h)
    form = await h.service.form(KEY, ALICE.user_id, "bid")
    assert form.refusal == "`bid` is not part of Liar's Poker with cards.", form


async def test_a_knockout_game_that_ends_at_a_seat_change_counts_as_finished(harness: Harness) -> None:
    """The last rival left a knockout game: it ended with a winner but wrote no end, so `stats` gave the winner
    "Games won: 0 of 0 finished" and no rating, and the leaver "has not played"."""
    h = harness
    assert (await h.do(ALICE, "start", "game=cards", "knockout")).ok
    assert (await h.do(BOB, "join")).ok and (await h.do(CAROL, "join")).ok
    assert (await h.do(ALICE, "deal")).ok
    r = round_of(h)
    assert (await h.do(actor(r.to_act), "declare", *r.least_raise().name().split())).ok
    r = round_of(h)
    leaver = next(a for a in (ALICE, BOB, CAROL) if a.user_id not in (r.active, r.to_act))
    assert (await h.do(leaver, "leave")).ok
    assert (await h.do(actor(r.to_act), "challenge")).ok  # one of the two is out; the leaver goes at the deal
    assert h.service.table(KEY) is None  # one player left: the game ended at the seat change
    winner = next(a for a in (ALICE, BOB, CAROL) if a is not leaver and f"<@{a.user_id}> won the game" in
                  "\n".join(m.text for m in h.notifier.messages))
    won = await h.do(winner, "stats")
    assert "Games won: 1 of 1 finished" in won.text and data(won)["cards"]["rating"] is not None, won.text
    left = await h.do(leaver, "stats")
    assert left.ok and "Games won: 0 of 1 finished" in left.text, left.text
    assert left.text.startswith(f"📊 {leaver.name}: 1 game, net"), left.text  # it read "0 rounds": in no challenge
    assert sum((await h.service.store.balances(KEY.server)).values()) == 0
    history = (await h.do(ALICE, "history")).text  # it said "Card game 2: 0 rounds, won by …"
    assert "0 rounds" not in history and f"the game won by {winner.name}, its last rival having left" in history


async def test_an_away_player_whose_timeout_ends_the_game_is_not_said_to_leave_after_it(harness: Harness) -> None:
    """A card game ended by the away player's third timed-out move (a challenge of a royal flush) said
    "… leaves the table after this round" as the table closed."""
    h = harness
    assert (await h.do(ADMIN, "config", "turn_timeout=60")).ok
    await open_cards(h)
    away = round_of(h).to_act
    other = BOB if away == ALICE.user_id else ALICE

    async def time_out() -> None:
        h.clock.advance(61)
        for _ in range(3):
            await h.service.tick()

    await time_out()  # 1: the opening declaration
    assert (await h.do(other, "take")).ok and (await h.do(other, "declare", "pair of twos")).ok
    await time_out()  # 2: take and declare
    assert (await h.do(other, "take")).ok and (await h.do(other, "declare", "royal flush")).ok
    before = len(h.notifier.messages)
    await time_out()  # 3: nothing beats it: the timer challenges, and the game is over
    assert h.service.table(KEY) is None
    said = [m.text for m in h.notifier.messages[before:] if m.to is None]
    assert any("The table is closed" in t for t in said) and not any("turns in a row" in t for t in said), said


async def _time_out(h: Harness) -> None:
    h.clock.advance(61)
    for _ in range(3):  # the warning, then the timeout
        await h.service.tick()
    await h.service.drain()


@pytest.mark.parametrize("walked", ["away", "typed leave"])
async def test_a_card_table_everyone_still_in_walked_away_from_closes(harness: Harness, walked: str) -> None:
    """A round of the card game ends only at a challenge, and a timed-out player under the gun took the hand and
    declared the least raise: players who had all walked away (or all typed `leave`) climbed every declaration a
    floor a turn — some 23,000 turns, eight days at 60 s, the hand DMed at each — before the next deal could let
    them go.  A player the timer plays for who is leaving (away three turns, or asked to) now challenges."""
    h = harness
    assert (await h.do(ADMIN, "config", "turn_timeout=60")).ok
    preset = ("pass=on", "jokers=2", "stake=2") if walked == "away" else ("knockout",)
    assert (await h.do(ALICE, "start", "game=cards", *preset)).ok
    assert (await h.do(BOB, "join")).ok and (await h.do(ALICE, "deal")).ok
    if walked == "typed leave":
        assert (await h.do(ALICE, "leave")).ok and (await h.do(BOB, "leave")).ok
    for _ in range(40):  # 40 minutes
        if h.service.table(KEY) is None:
            break
        await _time_out(h)
    assert h.service.table(KEY) is None
    assert sum((await h.service.store.balances(KEY.server)).values()) == 0


async def test_computers_left_alone_in_a_game_at_stake_play_it_out_and_the_leaver_pays_its_winner(
        harness: Harness) -> None:
    """The last person leaving was told "you pay the winner 3 units when the game ends"; the table then closed
    ("only computer players remain") and nobody paid.  Now the computers play on, at their usual pace."""
    h = harness
    await h.restart(computer_delay=1.5)
    assert (await h.do(ALICE, "start", "game=cards", "stake=3", computers="3", level="easy")).ok
    assert (await h.do(ALICE, "deal")).ok
    left = await h.do(ALICE, "leave")
    assert left.ok and "you pay the winner 3 units" in left.text, left.text
    for _ in range(2_000):  # each computer move comes after its 1.5-second "thinking"
        if h.service.table(KEY) is None:
            break
        round_ = round_or_none(h)
        if round_ is not None and round_.active == ALICE.user_id:  # her turn in the round she is leaving
            h.clock.advance(61)  # her turn runs out: the timer plays it
        else:
            h.clock.advance(1.5)
        await h.service.tick()
        await h.service.drain()
    assert h.service.table(KEY) is None
    balances = await h.service.store.balances(KEY.server)
    assert balances[ALICE.user_id] == -3 and sum(balances.values()) == 0, balances
    closing = [m.text for m in h.notifier.messages if "The table is closed" in m.text]
    assert closing and "is the last player standing and wins the game" in closing[-1], closing


async def test_a_take_by_hand_does_not_restart_the_turns_clock(harness: Harness) -> None:
    """The take, a discard and the declaration are one turn on one clock: a take by hand restarted it, so a player
    could hold the table for two timeouts a turn (and be warned twice)."""
    h = harness
    assert (await h.do(ADMIN, "config", "turn_timeout=60")).ok
    await open_cards(h)
    opener = round_of(h).to_act
    assert opener is not None
    assert (await h.do(actor(opener), "declare", "a pair of twos")).ok
    under_gun = round_of(h).to_act
    assert under_gun is not None and under_gun != opener
    h.clock.advance(31)
    await h.service.tick()  # the half-time warning
    h.clock.advance(20)
    assert (await h.do(actor(under_gun), "take")).ok  # 51 s into the turn
    h.clock.advance(10)  # 61 s: out of time, though the take was 10 s ago
    for _ in range(2):
        await h.service.tick()
    await h.service.drain()
    r = round_of(h)
    assert r.active == under_gun and r.to_act == opener and r.phase is Phase.GUN  # the timer declared for them
    assert any("ran out of time" in m.text for m in h.notifier.messages)
    assert len([m for m in h.notifier.messages if "left to act" in m.text]) == 1  # warned once a turn
