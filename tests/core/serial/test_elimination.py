"""The elimination format (RULES.md §1 "Elimination: who pays for dinner") and the choices it leaves open."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import GameError
from core.game import SayKind, Settled
from core.records import IllegalRecordedAction, RecordError
from core.serial import Serial, make_rules
from core.serial.bids import a_digit
from core.serial.elimination import EliminationMatch, LeftSafe, NoLastHand, leaver
from core.serial.fairness import commitment
from core.serial.plugin import SERIAL
from core.serial.rules import RankOrder, RulesError
from core.serial.stats import serial_stats

SALT = "5a17"


def elim(preset: str = "classic", **options: Any) -> EliminationMatch:
    players = options.pop("players", ["p1", "p2", "p3"])
    match = SERIAL.new_match(make_rules(preset, format="elimination", **options), players, host=players[0])
    assert isinstance(match, EliminationMatch)
    return match


def deal(match: EliminationMatch, opener: str, **digits: str) -> None:
    players = match.still_in
    assert sorted(digits) == sorted(players)
    serials = {p: str(Serial.parse(digits[p])) for p in players}
    match.apply_deal({"serials": serials, "opener": opener, "stake": 1, "salt": SALT,
                      "commitment": commitment(players, serials, SALT)})


def play(match: EliminationMatch, *steps: str) -> list[Settled]:
    """``"p1 bid 2 0"``, ``"p2 challenge"``, ``"p3 count"``; returns what was settled."""
    settled: list[Settled] = []
    for step in steps:
        player, verb, *words = step.split()
        step_ = match.apply(match.parse(player, verb, words, {}))
        settled.extend(step_.settled)
    return settled


# -- the rule set ------------------------------------------------------------------------------------
def test_format_is_an_option_of_any_preset_and_records_keep_old_rule_sets_unchanged() -> None:
    for preset in ("classic", "quick", "salomon"):
        rules = make_rules(preset, format="elimination")
        assert rules.elimination and rules.to_dict()["format"] == "elimination"
        assert make_rules(preset).to_dict() == make_rules(preset, format="rounds").to_dict()
        assert "format" not in make_rules(preset).to_dict()
        assert SERIAL.rules_from_dict(rules.to_dict()) == rules


def test_stake_zero_is_for_elimination_only() -> None:
    assert make_rules("classic", format="elimination", stake=0).stake == 0
    with pytest.raises(RulesError, match="elimination"):
        make_rules("classic", stake=0)
    with pytest.raises(RulesError):
        make_rules("classic", format="elimination", stake=-1)


def test_slips_and_the_last_hand_double_are_refused_with_a_reason() -> None:
    with pytest.raises(RulesError, match="SLIPS"):
        make_rules("salomon", format="elimination", serial_source="slips")
    with pytest.raises(RulesError, match="last hand"):
        make_rules("classic", format="elimination", last_hand_double=True)
    with pytest.raises(RulesError, match="format must be one of"):
        make_rules("classic", format="dinner")
    assert "pays for dinner" in SERIAL.describe(make_rules("classic", format="elimination", stake=0))


# -- who leaves --------------------------------------------------------------------------------------
def test_failed_bid_the_first_challenger_of_the_final_bid_leaves() -> None:
    # RULES.md's worked example: P3's 6 zeros fails; P1 challenged it first.
    m = elim()
    deal(m, "p1", p1="06742088", p2="92859819", p3="07202503")
    [settled] = play(m, "p1 bid 2 0", "p2 bid 2 5", "p3 bid 3 0", "p1 bid 3 8", "p2 bid 3 9", "p3 bid 4 0",
                     "p1 bid 5 0", "p2 challenge", "p3 bid 6 0", "p1 challenge", "p2 challenge")
    assert settled.record["leaves"] == "p1" and settled.outcome["leaves"] == "p1"
    assert settled.net == {} and settled.ranking == (("p1",), ("p2", "p3"))
    assert m.still_in == ["p2", "p3"] and m.safe == ["p1"] and not m.over
    # final-bidder opens next: p3 bid last and is still in
    assert m.deal(random.Random(1))["opener"] == "p3"


def test_made_bid_the_bidder_leaves_and_the_next_player_clockwise_opens() -> None:
    m = elim(players=["a", "b", "c", "d"])
    deal(m, "b", a="11111111", b="11111111", c="22222222", d="33333333")
    [settled] = play(m, "b bid 10 1", "c challenge", "d challenge", "a challenge")
    assert settled.record["leaves"] == "b"
    assert m.deal(random.Random(0))["opener"] == "c"  # b would open; b has left


def test_winner_opener_rule_hands_on_past_the_challenger_who_left() -> None:
    m = elim(players=["a", "b", "c", "d"], later_opener="winner")
    deal(m, "a", a="11111111", b="22222222", c="33333333", d="44444444")
    [settled] = play(m, "a bid 9 1", "b challenge", "c challenge", "d challenge")
    assert settled.record["leaves"] == "b"
    assert m.deal(random.Random(0))["opener"] == "c"


def test_skunk_counts_as_made_at_four_and_is_a_replayed_push_at_three() -> None:
    four = elim("salomon", players=["a", "b", "c", "d"], first_opener="host")
    deal(four, "a", a="11111111", b="22222222", c="33333333", d="44444444")
    [settled] = play(four, "a bid 1 5", "b challenge", "c challenge", "d challenge", "a count")
    assert settled.outcome["skunk"] and settled.record["leaves"] == "a"
    three = elim("salomon", players=["a", "b", "c"])
    deal(three, "b", a="11111111", b="22222222", c="33333333")
    [push] = play(three, "b bid 1 5", "c challenge", "a challenge", "b count")
    assert push.record["push"] is True and "leaves" not in push.record and push.ranking == () and push.net == {}
    assert three.still_in == ["a", "b", "c"] and not three.over
    again = three.deal(random.Random(3))
    assert again["opener"] == "b" and sorted(again["serials"]) == ["a", "b", "c"]  # the same round again


def test_the_count_picture_names_who_leaves_safe_and_the_dinner_its_net() -> None:
    """No round of an elimination pays: the picture says who leaves safe (not "a push", which only a 3-player
    skunk is) and no multiplier; the last round's net column is the dinner's."""
    m = elim(stake=5)
    deal(m, "p1", p1="11111111", p2="22222222", p3="33333333")
    step = m.apply(m.parse("p1", "bid", ["9", "1"], {}))
    for who in ("p2", "p3"):
        step = m.apply(m.parse(who, "challenge", [], {}))
    [said] = [s for s in step.says if s.picture is not None]
    assert said.picture is not None
    words = said.picture["words"]
    assert words["no_payments"] == "{leaves} leaves safe." and "push" not in words["no_payments"]
    assert "Multiplier" not in words["multiplier"] and said.picture["record"]["outcome"]["leaves"] == "p2"
    deal(m, "p1", p1="11111111", p3="33333333")
    m.apply(m.parse("p1", "bid", ["9", "1"], {}))
    step = m.apply(m.parse("p3", "challenge", [], {}))
    [said] = [s for s in step.says if s.picture is not None]
    assert said.picture is not None
    assert said.picture["record"]["outcome"]["net"] == {"p1": -10, "p2": 5, "p3": 5}


def test_two_left_then_one_pays_each_other_player_the_stake() -> None:
    m = elim(stake=5)
    deal(m, "p1", p1="11111111", p2="22222222", p3="33333333")
    play(m, "p1 bid 9 1", "p2 challenge", "p3 challenge")  # fails: p2 leaves
    deal(m, "p1", p1="11111111", p3="33333333")
    step = m.apply(m.parse("p1", "bid", ["9", "1"], {}))
    step = m.apply(m.parse("p3", "challenge", [], {}))
    [settled] = step.settled
    assert settled.record["leaves"] == "p3" and settled.record["payer"] == "p1"
    assert m.over and m.payer == "p1"
    assert settled.net == {"p1": -10, "p2": 5, "p3": 5} and sum(settled.net.values()) == 0
    assert [s.kind for s in step.says] == [SayKind.RESULT, SayKind.END]
    assert "pays for dinner" in m.end_text
    with pytest.raises(GameError):
        m.deal(random.Random(0))


def test_stake_zero_writes_nothing_but_the_result() -> None:
    m = elim(stake=0, players=["a", "b"])
    deal(m, "a", a="11111111", b="22222222")
    [settled] = play(m, "a bid 1 1", "b challenge")
    assert settled.record["payer"] == "b" and settled.outcome["transfers"] == []
    assert settled.net == {"b": 0, "a": 0}  # who took part (stats, reports); no money is written


def test_leaver_is_a_pure_decision() -> None:
    m = elim()
    deal(m, "p1", p1="06742088", p2="92859819", p3="07202503")
    play(m, "p1 bid 2 0", "p2 challenge", "p3 challenge")
    assert m.inner is not None and m.inner.last_outcome is not None
    assert leaver(m.inner.last_outcome, ["p1", "p2", "p3"]) == "p1"


# -- open cases: players who leave, the last hand, safe players --------------------------------------
def test_a_safe_player_cannot_play_on_and_no_last_hand_is_declared() -> None:
    m = elim()
    deal(m, "p1", p1="11111111", p2="22222222", p3="33333333")
    play(m, "p1 bid 9 1", "p2 challenge", "p3 challenge")
    deal(m, "p1", p1="11111111", p3="33333333")
    with pytest.raises(LeftSafe, match="left this game safe"):
        m.parse("p2", "challenge", [], {})
    assert m.form("p2", "raise").refusal is not None
    with pytest.raises(NoLastHand):
        m.declare_last()


def test_a_player_still_in_who_leaves_the_table_pays_and_the_game_ends() -> None:
    m = elim(stake=2, players=["a", "b", "c", "d"])
    deal(m, "a", a="11111111", b="22222222", c="33333333", d="44444444")
    play(m, "a bid 8 1", "b challenge", "c challenge", "d challenge")  # a leaves safe
    after = SERIAL.new_match(m.rules, ["a", "b", "d"], host="a", previous=m)  # c left the table
    assert isinstance(after, EliminationMatch) and after.over and after.payer == "c"
    assert after.pending is not None
    [settled] = after.pending.settled
    assert settled.net == {"c": -6, "a": 2, "b": 2, "d": 2}
    assert settled.record["walked_out"] == ["c"]


def test_a_safe_player_may_leave_the_table_and_is_still_paid() -> None:
    m = elim(stake=1, players=["a", "b", "c"])
    deal(m, "a", a="11111111", b="22222222", c="33333333")
    play(m, "a bid 8 1", "b challenge", "c challenge")  # a leaves safe
    after = SERIAL.new_match(m.rules, ["b", "c"], host="b", previous=m)
    assert isinstance(after, EliminationMatch) and not after.over and after.pending is None
    assert after.deal(random.Random(0))["opener"] == "b"
    deal(after, "b", b="22222222", c="33333333")
    [settled] = play(after, "b bid 9 2", "c challenge")
    assert settled.record["payer"] == "b" and settled.net == {"b": -2, "a": 1, "c": 1}
    record = after.record(closed=True)
    assert record["safe"] == ["a"] and record["players"] == ["b", "c"]
    assert SERIAL.replay(record)["payer"] == "b"


# -- records -----------------------------------------------------------------------------------------
def _finished(seed: int, n: int = 5) -> EliminationMatch:
    rng = random.Random(seed)
    m = elim("salomon", players=[f"p{i}" for i in range(n)], stake=3)
    while not m.over:
        m.apply_deal(m.deal(rng))
        while m.live:
            who = m.to_act
            assert who is not None
            m.apply(m.computer_decision(who, "easy")(rng))
    return m


def test_record_says_the_format_who_left_and_the_payer_and_verifies() -> None:
    m = _finished(7)
    record = json.loads(json.dumps(m.record(closed=True)))
    assert next(iter(record)) == "format" and record["format"] == "elimination"
    decided = [r for r in record["rounds"] if "leaves" in r]
    assert len(decided) == 4 and record["payer"] == m.payer
    result = SERIAL.verify(record)
    assert [r.get("leaves") for r in result["rounds"] if "leaves" in r] == [r["leaves"] for r in decided]
    assert result["payer"] == m.payer and sum(result["totals"].values()) == 0
    assert result["totals"][m.payer] == -12


def test_a_tampered_record_is_refused() -> None:
    record = json.loads(json.dumps(_finished(8).record(closed=True)))
    first = next(r for r in record["rounds"] if "leaves" in r)
    first["leaves"] = next(p for p in first["players"] if p != first["leaves"])
    with pytest.raises(IllegalRecordedAction, match="left"):
        SERIAL.replay(record)
    record = json.loads(json.dumps(_finished(8).record(closed=True)))
    record["payer"] = next(p for p in record["players"] if p != record["payer"])
    with pytest.raises(IllegalRecordedAction, match="pays"):
        SERIAL.replay(record)
    record["format"] = "dinner"
    with pytest.raises(RecordError):
        SERIAL.replay(record)
    record = json.loads(json.dumps(_finished(9).record(closed=True)))
    record["rounds"][0]["serials"]["p0"] = "99999999"
    with pytest.raises(IllegalRecordedAction, match="commitment"):
        SERIAL.verify(record)


# -- properties over random games --------------------------------------------------------------------
ELIM_RULES = ["classic", "quick", "salomon"]


@st.composite
def games(draw: st.DrawFn) -> tuple[int, str, dict[str, Any], int, list[int]]:
    n = draw(st.integers(2, 7))
    preset = draw(st.sampled_from(ELIM_RULES))
    choices: list[dict[str, Any]] = [{}, {"later_opener": "winner"}, {"rebid": True}, {"skunk": True}]
    options = draw(st.sampled_from(choices))
    stake = draw(st.integers(0, 4))
    leaves_at = draw(st.lists(st.integers(0, 12), max_size=2))  # after which round a safe player leaves
    return n, preset, {**options, "stake": stake}, draw(st.integers(0, 2**32)), leaves_at


@given(games())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_table_shrinks_by_one_per_decided_round_and_ends_with_one_payer(
        game: tuple[int, str, dict[str, Any], int, list[int]]) -> None:
    n, preset, options, seed, leaves_at = game
    rng = random.Random(seed)
    seats = [f"p{i}" for i in range(n)]
    m = elim(preset, players=list(seats), **options)
    settled: list[Any] = []
    rounds = 0
    while not m.over:
        if rounds in leaves_at and m.safe and any(p in seats for p in m.safe):
            gone = next(p for p in m.safe if p in seats)  # a safe player leaves the table
            seats.remove(gone)
            m2 = SERIAL.new_match(m.rules, seats, host=seats[0], previous=m)
            assert isinstance(m2, EliminationMatch) and m2.pending is None and m2.safe == m.safe
            m = m2
        before = list(m.still_in)
        m.apply_deal(m.deal(rng))
        rounds += 1
        while m.live:
            who = m.to_act
            assert who is not None and who in before
            step = m.apply(m.computer_decision(who, rng.choice(["random", "easy"]))(rng))
            settled.extend(step.settled)
        last = settled[-1]
        if last.record.get("push"):
            assert m.still_in == before and n >= 3 and len(before) == 3
        else:
            assert last.record["leaves"] in before
            assert len(m.still_in) == len(before) - 1 or (m.over and len(before) == 2)
            assert m.still_in == [p for p in before if p != last.record["leaves"]]
    assert m.payer is not None and len(m.still_in) == 1 and m.still_in == [m.payer]
    payers = [s for s in settled if s.record.get("payer")]
    assert len(payers) == 1 and payers[0] is settled[-1]
    assert all(s.net == {} for s in settled[:-1])
    stake = options["stake"]
    assert settled[-1].net == {m.payer: -stake * (n - 1), **{p: stake for p in m.safe}}  # at stake 0, each 0
    assert sorted([*m.safe, m.payer]) == sorted(f"p{i}" for i in range(n))
    replayed = SERIAL.verify(json.loads(json.dumps(m.record(closed=True))))
    assert replayed["payer"] == m.payer


def test_a_hint_at_an_elimination_table_plays_for_safety() -> None:
    m = elim(players=["a", "b", "c", "d"])
    deal(m, "a", a="11111111", b="22222222", c="33333333", d="44444444")
    play(m, "a bid 1 1", "b challenge")
    hint = m.read("c", "hint")
    assert hint.startswith("💡") and "leave safe" in hint
    assert "Your odds" in m.read("c", "odds")


@given(st.integers(3, 7), st.integers(0, 5), st.integers(1, 2), st.integers(0, 3), st.integers(0, 2**32))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_players_walking_out_still_leave_exactly_one_payer(n: int, after: int, walkers: int, stake: int,
                                                            seed: int) -> None:
    rng = random.Random(seed)
    seats = [f"p{i}" for i in range(n)]
    m = elim("salomon", players=list(seats), stake=stake)
    settled: list[Any] = []
    for _ in range(after):  # some rounds, then players still in leave the table
        if m.over or len(m.still_in) <= walkers:
            break
        m.apply_deal(m.deal(rng))
        while m.live:
            who = m.to_act
            assert who is not None
            settled.extend(m.apply(m.computer_decision(who, "easy")(rng)).settled)
    if m.over:
        return  # decided before anyone walked out: the other property covers it
    gone = m.still_in[:walkers]
    ended = SERIAL.new_match(m.rules, [p for p in seats if p not in gone], host="p0", previous=m)
    assert isinstance(ended, EliminationMatch) and ended.over and ended.payer == gone[0]
    assert ended.pending is not None
    [dinner] = ended.pending.settled
    settled.append(dinner)
    assert [s.record.get("payer") for s in settled if s.record.get("payer")] == [gone[0]]
    paid = [p for p in seats if p not in gone]
    # at stake 0, each 0; the other walkers named at 0 (they played it: `stats` reads who did from the net)
    assert dinner.net == {gone[0]: -stake * len(paid), **{p: stake for p in paid}, **{p: 0 for p in gone[1:]}}
    record = json.loads(json.dumps(ended.record(closed=True)))
    assert record["walked_out"] == gone and record["payer"] == gone[0]
    assert SERIAL.verify(record)["payer"] == gone[0]


# -- what the elimination says, and its records' details (session 23's hunt) -------------------------
def test_the_replay_names_who_opens_next_by_the_eliminations_rule() -> None:
    """It named the serial game's next opener: often the player who had just left safe."""
    for seed in (1, 2, 3):
        record = json.loads(json.dumps(_finished(seed).record(closed=True)))
        result = SERIAL.replay(record)
        openers = [spec["opener"] for spec in record["rounds"]]
        said = [r["next_opener"] for r in result["rounds"]]
        assert said[:-1] == openers[1:] and said[-1] is None, (seed, said, openers)


def test_a_record_whose_rules_say_elimination_is_never_scored_as_money() -> None:
    record = json.loads(json.dumps(_finished(4).record(closed=True)))
    del record["format"]  # the rules still say it
    with pytest.raises(RecordError, match="elimination"):
        SERIAL.replay(record)


def test_the_walk_out_says_who_walked_out_and_one_payee_is_no_each() -> None:
    m = elim(stake=2, players=["a", "b", "c", "d", "e"])
    deal(m, "a", a="11111111", b="22222222", c="33333333", d="44444444", e="55555555")
    play(m, "a bid 8 1", "b challenge", "c challenge", "d challenge", "e challenge")  # a leaves safe
    after = SERIAL.new_match(m.rules, ["a", "b", "e"], host="a", previous=m)  # c and d walked out
    assert isinstance(after, EliminationMatch) and after.pending is not None
    said = [s.text for s in after.pending.says]
    assert "(<@d> walked out too, and neither pays nor is paid)" in said[0]
    assert said[1].startswith("🍽️ <@c> walked out and **pays for dinner**")  # not "the last one left"
    [settled] = after.pending.settled
    assert settled.outcome["net"] == settled.net == {"c": -6, "a": 2, "b": 2, "e": 2, "d": 0}  # d: walked, at 0
    two = elim(stake=2, players=["a", "b"])
    deal(two, "a", a="11111111", b="22222222")
    step = two.apply(two.parse("a", "bid", ["8", "1"], {}))
    step = two.apply(two.parse("b", "challenge", [], {}))
    [payer] = [s.text for s in step.says if s.kind is SayKind.END]
    assert payer == "🍽️ <@b> is the last one left and **pays for dinner**: <$2> to <@a>."  # one payee: no "each of"


def test_a_skunk_names_the_digit_with_its_article_and_a_safe_players_refusal_says_you() -> None:
    four = elim("salomon", players=["a", "b", "c", "d"], first_opener="host")
    deal(four, "a", a="11111111", b="22222222", c="33333333", d="44444444")
    play(four, "a bid 1 8", "b challenge", "c challenge", "d challenge")
    counted = four.apply(four.parse("a", "count", [], {}))
    assert any("Skunk! Nobody holds an eight:" in s.text for s in counted.says)
    assert a_digit(8, RankOrder.ZERO_LOW) == "an eight" and a_digit(1, RankOrder.ACES_HIGH) == "an ace"
    assert a_digit(1, RankOrder.ZERO_LOW) == "a one" and a_digit(0, RankOrder.ZERO_HIGH) == "a ten"
    m = elim()
    deal(m, "p1", p1="11111111", p2="22222222", p3="33333333")
    play(m, "p1 bid 9 1", "p2 challenge", "p3 challenge")
    deal(m, "p1", p1="11111111", p3="33333333")
    with pytest.raises(LeftSafe) as refused:
        m.parse("p2", "challenge", [], {})
    assert str(refused.value).startswith("you have left this game safe") and "<@p2>" not in str(refused.value)


def test_stats_count_a_walk_outs_loss() -> None:
    """After a walk-out the payer's stats said "lost 0": the walk-out's record was skipped for its lack of a
    final bid while the ledger's net counted it."""
    m = elim(stake=2, players=["a", "b", "c", "d"])
    deal(m, "a", a="11111111", b="22222222", c="33333333", d="44444444")
    play(m, "a bid 8 1", "b challenge", "c challenge", "d challenge")
    after = SERIAL.new_match(m.rules, ["a", "b", "d"], host="a", previous=m)
    assert isinstance(after, EliminationMatch) and after.pending is not None
    [settled] = after.pending.settled
    stats = serial_stats([{"outcome": settled.outcome, "record": settled.record, **settled.record}], "c")
    assert stats.rounds == 1 and stats.lost == 1 and stats.biggest_loss == 6 and stats.final_bids == 0


def test_who_left_and_a_push_are_checked_where_the_record_states_them() -> None:
    """A decided round without its "leaves" was accepted and a push without its "push" refused; a round
    stating both was refused with "the record says b left, the count says b"."""
    four = elim("salomon", players=["a", "b", "c", "d"], first_opener="host")
    deal(four, "a", a="11111111", b="22222222", c="33333333", d="44444444")
    play(four, "a bid 9 1", "b challenge", "c challenge", "d challenge", "a count")  # fails: b leaves
    record = json.loads(json.dumps(four.record(closed=True)))
    assert SERIAL.replay(record)["rounds"][0]["leaves"] == "b"
    both = json.loads(json.dumps(record))
    both["rounds"][0]["push"] = True
    with pytest.raises(IllegalRecordedAction, match="the record says b left and a push, the count says b leaves safe"):
        SERIAL.replay(both)
    three = elim("salomon", players=["a", "b", "c"])
    deal(three, "b", a="11111111", b="22222222", c="33333333")
    play(three, "b bid 1 5", "c challenge", "a challenge", "b count")  # a skunk at three: a push
    pushed = json.loads(json.dumps(three.record(closed=True)))
    del pushed["rounds"][0]["push"]
    assert SERIAL.replay(pushed)["rounds"][0]["push"] is True  # not stated: not checked, as "leaves"



def test_everyone_gone_before_anyone_left_safe_is_no_dinner() -> None:
    """Every seat left before anyone was safe (a pushed first round): the game said "<@a> walked out and pays for
    dinner" with nobody to pay, and stored a dinner of 0 to each.  Now the game seats nobody (a GameError, as
    Game.new_match says: the table closes for too few, nobody paid)."""
    rules = make_rules("classic", format="elimination", stake=3)
    before = SERIAL.new_match(rules, ["a", "b", "c"], host="a")
    with pytest.raises(GameError, match="nobody is left to pay"):
        SERIAL.new_match(rules, [], host="a", previous=before)
