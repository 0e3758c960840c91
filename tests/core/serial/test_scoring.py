"""The count and the payout: made/not made, each bonus on and off, stakes, next stake and next opener."""

from __future__ import annotations

import random

import pytest

from core.serial import Bid, Outcome, RankOrder, Rules, make_rules, score
from core.serial.plugin import SERIAL
from core.serial.record import outcome_to_dict
from core.serial.scoring import size_multiplier
from core.serial.stats import player_stats

from ._helpers import serials, settle

PLAIN = make_rules("classic")
ALL_BONUSES = make_rules("classic", size=True, sixes=True, hero=True, skunk=True)
SEATS5 = ("a", "b", "c", "d", "e")


def outcome(
    rules: Rules,
    table: dict[str, str],
    bid: tuple[int, int],
    *,
    bidder: str = "a",
    stake: int = 1,
    challengers: tuple[str, ...] | None = None,
) -> Outcome:
    players = list(table)
    others = tuple(p for p in players if p != bidder)
    return score(
        rules,
        players,
        serials(**table),
        Bid(*bid, rules.rank_order),
        bidder,
        stake,
        others if challengers is None else challengers,
    )


def five(*digits: str) -> dict[str, str]:
    return dict(zip(SEATS5, digits, strict=True))


def assert_zero_sum(result: Outcome) -> None:
    assert sum(result.net.values()) == 0
    net = dict.fromkeys(result.net, 0)
    for t in result.transfers:
        assert t.units > 0 and isinstance(t.units, int)
        net[t.payer] -= t.units
        net[t.payee] += t.units
    assert net == dict(result.net)


# -- the basic payout -------------------------------------------------------------------------------
def test_the_count_is_every_copy_across_every_serial_the_bidders_included() -> None:
    result = outcome(PLAIN, {"a": "55000000", "b": "12345678", "c": "55555555"}, (11, 5))
    assert result.count == 11 and result.made


def test_made_every_other_player_pays_the_bidder_the_stake() -> None:
    result = outcome(PLAIN, {"a": "77000000", "b": "70000000", "c": "12345678"}, (4, 7), stake=3)
    assert result.made and result.multiplier == 1 and result.bonuses == ()
    assert {(t.payer, t.payee, t.units) for t in result.transfers} == {("b", "a", 3), ("c", "a", 3)}
    assert result.winners == ("a",)
    assert_zero_sum(result)


def test_exactly_the_quantity_is_made() -> None:
    assert outcome(PLAIN, {"a": "77000000", "b": "70000000", "c": "12345678"}, (4, 7)).made
    assert not outcome(PLAIN, {"a": "77000000", "b": "70000000", "c": "12345678"}, (5, 7)).made


def test_not_made_the_bidder_pays_every_other_player_the_stake() -> None:
    result = outcome(PLAIN, {"a": "77000000", "b": "70000000", "c": "12345678"}, (5, 7), stake=2)
    assert not result.made and result.count == 4
    assert {(t.payer, t.payee, t.units) for t in result.transfers} == {("a", "b", 2), ("a", "c", 2)}
    assert dict(result.net) == {"a": -4, "b": 2, "c": 2}
    assert set(result.winners) == {"b", "c"}
    assert_zero_sum(result)


def test_the_outcome_records_the_round() -> None:
    table = {"a": "77000000", "b": "70000000", "c": "12345678"}
    result = outcome(PLAIN, table, (4, 7), challengers=("b", "c"))
    assert (result.bid, result.bidder, result.count, result.stake) == (Bid(4, 7), "a", 4, 1)
    assert {p: str(s) for p, s in result.serials.items()} == table
    assert result.challengers == ("b", "c")
    assert result.multiplier_text() == "×1"


# -- size: the n+3 rule ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("n", "quantity", "multiplier"),
    [(4, 6, 1), (4, 7, 2), (4, 8, 2), (4, 9, 3), (4, 11, 4), (4, 13, 5), (5, 7, 1), (5, 8, 2), (5, 10, 3), (2, 5, 2)],
)
def test_size_multiplier(n: int, quantity: int, multiplier: int) -> None:
    assert size_multiplier(quantity, n) == multiplier


def test_size_bonus_on_and_off() -> None:
    table = {"a": "44441234", "b": "41234567", "c": "40000000", "d": "12345678"}  # eight 4s, 4 players
    on = outcome(make_rules("classic", size=True), table, (7, 4))
    off = outcome(PLAIN, table, (7, 4))
    assert on.multiplier == 2 and [b.kind for b in on.bonuses] == ["size"]
    assert on.bonuses[0].label == "n+3" and on.multiplier_text() == "×2 = n+3 (×2)"
    assert all(t.units == 2 for t in on.transfers)
    assert off.multiplier == 1 and all(t.units == 1 for t in off.transfers)


# -- sixes ---------------------------------------------------------------------------------------------
def test_sixes_bonus_on_and_off() -> None:
    table = {"a": "66000000", "b": "61234578", "c": "12345678"}
    on = outcome(make_rules("classic", sixes=True), table, (3, 6))
    off = outcome(PLAIN, table, (3, 6))
    assert on.multiplier == 2 and [b.kind for b in on.bonuses] == ["sixes"]
    assert off.multiplier == 1
    assert outcome(make_rules("classic", sixes=True), {**table, "a": "77000000"}, (1, 7)).multiplier == 1


def test_size_and_sixes_multiply() -> None:
    table = five("66661234", "66123457", "60000000", "61111111", "66345678")  # ten 6s
    result = outcome(make_rules("classic", size=True, sixes=True), table, (10, 6))
    assert result.multiplier == 6
    assert result.multiplier_text() == "×6 = n+5 (×3) and sixes (×2)"


# -- hero --------------------------------------------------------------------------------------------
HERO_TABLE = five("12345789", "66123457", "66000000", "61111111", "12345678")  # six 6s, none held by a


def test_hero_bump_on_and_off() -> None:
    on = outcome(make_rules("classic", hero=True), HERO_TABLE, (6, 6))
    off = outcome(PLAIN, HERO_TABLE, (6, 6))
    assert on.multiplier == 2 and [b.kind for b in on.bonuses] == ["hero"]
    assert off.multiplier == 1


def test_hero_bump_comes_after_size_and_sixes() -> None:
    result = outcome(ALL_BONUSES, HERO_TABLE, (6, 6))
    assert result.multiplier == 3 and [b.kind for b in result.bonuses] == ["sixes", "hero"]


def test_no_hero_bump_for_a_bidder_holding_the_digit_or_a_failed_bid() -> None:
    holding = outcome(ALL_BONUSES, {**HERO_TABLE, "a": "61234578"}, (6, 6))
    failed = outcome(ALL_BONUSES, HERO_TABLE, (7, 6))
    assert holding.multiplier == 2 and "hero" not in [b.kind for b in holding.bonuses]
    assert not failed.made and "hero" not in [b.kind for b in failed.bonuses]
    assert all(t.payer == "a" and t.units == 1 for t in failed.transfers)


# -- skunk --------------------------------------------------------------------------------------------
NO_THREES5 = five("12456789", "12456789", "00000000", "11111111", "24567890")


@pytest.mark.parametrize(("n", "each"), [(3, 0), (4, 2), (5, 4), (6, 6), (8, 10)])
def test_skunk_pays_2n_minus_6_whatever_the_bid(n: int, each: int) -> None:
    table = {f"p{i}": "12456789" for i in range(n)}
    for bid in ((1, 3), (n + 5, 3), (n + 3, 3)):
        result = outcome(ALL_BONUSES, table, bid, bidder="p0")
        assert result.skunk and not result.made and result.multiplier == each
        assert [b.kind for b in result.bonuses] == ["skunk"]
        assert result.net["p0"] == each * (n - 1)
        assert_zero_sum(result)


def test_skunk_at_three_players_is_a_push() -> None:
    result = outcome(ALL_BONUSES, {"a": "12456789", "b": "12456789", "c": "00000000"}, (6, 3))
    assert result.skunk and result.transfers == () and set(result.net.values()) == {0}
    # and `stats` counts it as neither a made bid nor a lost challenge (it counted both)
    record = {"actions": [{"player": result.bidder, "bid": [6, 3]},
                          *({"player": p, "challenge": True} for p in "abc" if p != result.bidder)],
              "outcome": outcome_to_dict(result)}
    for player in "abc":
        _, figures = player_stats(player, [record])
        assert figures["rounds"] == 1, figures
        assert (figures["bids_made"], figures["bids_failed"], figures["challenges_won"],
                figures["challenges_lost"]) == (0, 0, 0, 0), (player, figures)


def test_skunk_replaces_the_sixes_and_size_multipliers() -> None:
    table = five("12345789", "12345789", "00000000", "11111111", "23457890")
    assert outcome(ALL_BONUSES, table, (10, 6)).multiplier == 4


def test_skunk_does_not_apply_at_two_players() -> None:
    result = outcome(ALL_BONUSES, {"a": "12456789", "b": "12456789"}, (1, 3))
    assert not result.skunk and not result.made
    assert dict(result.net) == {"a": -1, "b": 1}


def test_skunk_off_a_bid_nobody_holds_simply_fails() -> None:
    result = outcome(make_rules("salomon", skunk=False), NO_THREES5, (6, 3))
    assert not result.skunk and not result.made and result.net["a"] == -4


def test_skunk_needs_nobody_to_hold_the_digit() -> None:
    result = outcome(ALL_BONUSES, {**NO_THREES5, "e": "34567890"}, (6, 3))
    assert not result.skunk and not result.made and result.net["a"] == -4


# -- progressive stakes ---------------------------------------------------------------------------------
PROGRESSIVE = make_rules("salomon")


def test_without_progressive_stakes_the_next_stake_is_the_tables() -> None:
    table = five("66000000", "12345789", "12345789", "12345789", "12345789")
    assert outcome(make_rules("salomon", progressive=False, stake=3), table, (8, 6), stake=6).next_stake == 3


@pytest.mark.parametrize("made", [True, False])
def test_progressive_next_stake_is_the_size_and_sixes_multiplier_made_or_not(made: bool) -> None:
    sixes = "66666666" if made else "12345789"
    table = five("66000000", sixes, "12345789", "12345789", "12345789")
    result = outcome(PROGRESSIVE, table, (8, 6))
    assert result.made is made and result.next_stake == 4


def test_progressive_next_stake_ignores_the_current_stake_and_the_hero_bump() -> None:
    # "8 threes" at stake 4 made: wins 8 from each; next stake 2, not 8.
    table = five("33000000", "33333333", "12456789", "12456789", "12456789")
    result = outcome(PROGRESSIVE, table, (8, 3), stake=4)
    assert result.made and result.net["b"] == -8 and result.next_stake == 2


def test_progressive_next_stake_after_going_for_the_none_is_two() -> None:
    # The bidder holds no sixes: presumed to be going for the skunk; next stake 2, not the 4 of "8 sixes".
    table = five("12345789", "66666666", "12345789", "12345789", "12345789")
    result = outcome(PROGRESSIVE, table, (8, 6))
    assert result.made and result.multiplier == 5 and result.next_stake == 2
    assert outcome(PROGRESSIVE, NO_THREES5, (6, 3)).next_stake == 2


def test_progressive_next_stake_scales_the_base_stake() -> None:
    table = five("66000000", "12345789", "12345789", "12345789", "12345789")
    assert outcome(make_rules("salomon", stake=5), table, (8, 6), stake=5).next_stake == 20
    assert outcome(make_rules("salomon", stake=5), table, (2, 0), stake=20).next_stake == 5


def test_progressive_counts_only_switched_on_bonuses() -> None:
    table = five("66000000", "12345789", "12345789", "12345789", "12345789")
    assert outcome(make_rules("salomon", sixes=False), table, (8, 6)).next_stake == 2
    assert outcome(make_rules("salomon", size=False), table, (8, 6)).next_stake == 2
    assert outcome(make_rules("salomon", size=False, sixes=False), table, (8, 6)).next_stake == 1


# -- next opener ---------------------------------------------------------------------------------------
MADE3 = {"a": "77000000", "b": "70000000", "c": "12345678"}  # four 7s


@pytest.mark.parametrize("bid", [(4, 7), (5, 7)])
def test_final_bidder_opens_next_made_or_not(bid: tuple[int, int]) -> None:
    assert outcome(PLAIN, MADE3, bid, bidder="b", challengers=("c", "a")).next_opener == "b"


def test_winner_rule_bidder_opens_after_a_made_bid() -> None:
    rules = make_rules("classic", later_opener="winner")
    assert outcome(rules, MADE3, (4, 7), bidder="b", challengers=("c", "a")).next_opener == "b"


def test_winner_rule_first_challenger_opens_after_a_failed_bid() -> None:
    rules = make_rules("classic", later_opener="winner")
    assert outcome(rules, MADE3, (5, 7), bidder="b", challengers=("c", "a")).next_opener == "c"


def test_winner_rule_skunker_opens_next() -> None:
    rules = make_rules("salomon", later_opener="winner")
    assert outcome(rules, NO_THREES5, (6, 3), challengers=("b", "c", "d", "e")).next_opener == "a"


def test_scoring_reads_digits_not_ranks() -> None:
    rules = make_rules("classic", rank_order=RankOrder.ACES_HIGH)
    result = outcome(rules, {"a": "11000000", "b": "10000000", "c": "12345678"}, (4, 1))
    assert result.made and result.count == 4 and str(result.bid) == "4 aces"


@pytest.mark.parametrize(("made", "skunk", "line"), [
    (True, False, "Round 3: bob bid 7 sixes, count 8 — made ×2 = sixes (×2)"),
    (False, False, "Round 3: bob bid 7 sixes, count 8 — failed"),  # one stake a player, whatever the multiplier
    (False, True, "Round 3: bob bid 7 sixes, count 8 — skunk ×2 = sixes (×2)"),  # the skunk's own words
])
def test_a_history_line_names_the_multiplier_only_where_it_was_paid(made: bool, skunk: bool, line: str) -> None:
    from core.serial.stats import history_line

    outcome = {"final_bid": {"player": "b"}, "final_bid_text": "7 sixes", "count": 8, "made": made, "skunk": skunk,
               "multiplier_text": "×2 = sixes (×2)"}
    assert history_line({"round": 3, "outcome": outcome}, {"b": "bob"}) == line


def test_stats_name_the_best_made_bid_once() -> None:
    """They said "Best hand: 4 ones made." and then "best made bid 4 ones"."""
    table = SERIAL.new_match(make_rules("classic"), ["a", "b"], host="a")
    rng = random.Random(5)
    rows = []
    for _ in range(12):
        table.apply_deal(table.deal(rng))
        while table.live:
            who = table.to_act
            assert who is not None
            step = table.apply(table.computer_decision(who, "easy")(rng))
            rows += [{**s.record, "outcome": s.outcome} for s in step.settled]
    text, figures = SERIAL.stats("a", rows)
    assert figures["best_made_bid"] is not None, text
    assert text.count(str(figures["best_made_bid"])) == 1 and "Best hand" not in text


def test_a_push_is_neither_a_right_nor_a_wrong_challenge_in_stats() -> None:
    """At a push (the skunk at three players) the challenges were skipped in "won/lost" but counted as wrong in
    the challenge accuracy: "won 0, lost 0 … challenge accuracy 0% (0 of 1)"."""
    round_ = settle(make_rules("classic", skunk=True), {"a": "11111111", "b": "22222222", "c": "33333333"}, "a",
                    "3 zeros")
    assert round_.outcome is not None
    outcome = outcome_to_dict(round_.outcome)
    assert outcome["skunk"] and outcome["multiplier"] == 0 and set(outcome["net"].values()) == {0}
    record = {"serials": {p: f"AB {d} C" for p, d in (("a", "11111111"), ("b", "22222222"), ("c", "33333333"))},
              "actions": [{"player": "a", "bid": [3, 0]}, {"player": "b", "challenge": True},
                          {"player": "c", "challenge": True}], "outcome": outcome}
    _, figures = player_stats("b", [record])
    assert (figures["challenges_won"], figures["challenges_lost"], figures["challenges"]) == (0, 0, 0)
