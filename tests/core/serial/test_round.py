"""One round: turns, challenges, the rebid right, errors raised before any change, and RULES.md's examples."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from core.serial import (
    Action,
    Bid,
    BidderCannotChallenge,
    BidPlaced,
    BidTooLow,
    CallCount,
    Challenge,
    ChallengedAllAround,
    ChallengeMade,
    Counted,
    CountNotAvailable,
    GameError,
    MakeBid,
    NoStandingBid,
    NotYourTurn,
    Outcome,
    Phase,
    QuantityOutOfRange,
    RankOrder,
    Round,
    RoundOver,
    Rules,
    SeatView,
    Session,
    UnknownPlayer,
    make_rules,
    timeout_action,
)

from ._helpers import play, serials, settle, snapshot

CLASSIC = make_rules("classic")
QUICK = make_rules("quick")
SALOMON = make_rules("salomon")

EXAMPLE_1 = {"P1": "06742088", "P2": "92859819", "P3": "07202503"}
EXAMPLE_2 = {"Brad": "15101952", "Leo": "39540096", "Mike": "93004455"}
PLAIN3 = {"a": "12345678", "b": "12345678", "c": "12345678"}
PLAIN4 = {**PLAIN3, "d": "12345678"}


def new_round(rules: Rules = CLASSIC, table: dict[str, str] = PLAIN3, opener: str = "a") -> Round:
    return Round(rules, list(table), serials(**table), opener)


def outcome_of(round_: Round) -> Outcome:
    assert round_.outcome is not None
    return round_.outcome


# -- the worked examples of RULES.md --------------------------------------------------------------
def test_worked_example_1_three_players_classic() -> None:
    round_ = new_round(CLASSIC, EXAMPLE_1, "P1")
    events = play(
        round_,
        [
            ("P1", "2x0"),
            ("P2", "2x5"),
            ("P3", "3x0"),
            ("P1", "3x8"),
            ("P2", "3x9"),
            ("P3", "4x0"),
            ("P1", "5x0"),
            ("P2", "challenge"),
            ("P3", "6x0"),  # a raise wipes P2's challenge of 5x0
            ("P1", "challenge"),
        ],
    )
    assert not round_.is_over and round_.to_act == "P2"
    assert events[-1] == ChallengeMade("P1", Bid(6, 0), "P2")
    events = play(round_, [("P2", "challenge")])
    assert events[:2] == [ChallengeMade("P2", Bid(6, 0), None), ChallengedAllAround("P3", Bid(6, 0), False)]
    assert isinstance(events[2], Counted)
    outcome = events[2].outcome
    assert outcome is round_.outcome
    assert (outcome.bid, outcome.bidder, outcome.count, outcome.made) == (Bid(6, 0), "P3", 5, False)
    assert {(t.payer, t.payee, t.units) for t in outcome.transfers} == {("P3", "P1", 1), ("P3", "P2", 1)}
    assert dict(outcome.net) == {"P1": 1, "P2": 1, "P3": -2}
    assert outcome.challengers == ("P1", "P2")
    assert outcome.next_opener == "P3"


def test_worked_example_2_salomon_rebid_challenged_again_is_counted_at_once() -> None:
    round_ = new_round(SALOMON, EXAMPLE_2, "Brad")
    play(
        round_,
        [
            ("Brad", "3x5"),
            ("Leo", "challenge"),
            ("Mike", "3x8"),
            ("Brad", "challenge"),
        ],
    )
    events = play(round_, [("Leo", "challenge")])
    assert events == [
        ChallengeMade("Leo", Bid(3, 8, RankOrder.ZERO_HIGH), None),
        ChallengedAllAround("Mike", Bid(3, 8, RankOrder.ZERO_HIGH), True),
    ]
    assert round_.phase is Phase.REBID and round_.to_act == "Mike"
    events = play(round_, [("Mike", "4 fives")])
    assert events == [BidPlaced("Mike", Bid(4, 5, RankOrder.ZERO_HIGH), True, "Brad")]
    play(round_, [("Brad", "challenge")])
    events = play(round_, [("Leo", "challenge")])
    assert isinstance(events[-1], Counted) and events[1] == ChallengedAllAround(
        "Mike", Bid(4, 5, RankOrder.ZERO_HIGH), False
    )
    outcome = events[-1].outcome
    assert (outcome.bidder, outcome.count, outcome.made, outcome.multiplier) == ("Mike", 5, True, 1)
    assert dict(outcome.net) == {"Brad": -1, "Leo": -1, "Mike": 2}
    assert sorted((t.payer, t.units) for t in outcome.transfers) == [("Brad", 1), ("Leo", 1)]


# -- the multiplier examples of the 1986 text (RULES.md "Bonus bids") --------------------------------
FIVE = ("a", "b", "c", "d", "e")


def five(*digits: str) -> dict[str, str]:
    return dict(zip(FIVE, digits, strict=True))


@pytest.mark.parametrize(
    ("table", "bid", "multiplier", "each"),
    [
        # 4 players, "7 fours" -> 2 (n+3)
        ({"a": "44441234", "b": "41234567", "c": "40000000", "d": "12345678"}, "7 fours", 2, 2),
        # 5 players, "7 sixes" -> 2 (sixes only: 7 < n+3)
        (five("66612345", "61234567", "60000000", "61111111", "12345678"), "7 sixes", 2, 2),
        # 5 players, "10 sixes" -> 6 (n+5 gives 3, sixes doubles it)
        (five("66661234", "66123457", "60000000", "61111111", "66345678"), "10 sixes", 6, 6),
        # 5 players, "6 sixes" made by a hero (no sixes held) -> 2 + 1 = 3
        (five("12345789", "66123457", "66000000", "61111111", "12345678"), "6 sixes", 3, 3),
        # skunk at 5 players: nobody holds a 3 -> bidder wins 2n-6 = 4 from each
        (five("12456789", "12456789", "00000000", "11111111", "24567890"), "6 threes", 4, 4),
        # skunk at 5 players with sixes: the skunk multiplier replaces every other one
        (five("12345789", "12345789", "00000000", "11111111", "23457890"), "7 sixes", 4, 4),
        # skunk at 3 players -> a push
        ({"a": "12456789", "b": "12456789", "c": "00000000"}, "6 threes", 0, 0),
    ],
)
def test_multiplier_examples(table: dict[str, str], bid: str, multiplier: int, each: int) -> None:
    round_ = settle(SALOMON, table, "a", bid)
    outcome = round_.outcome
    assert outcome is not None
    assert outcome.multiplier == multiplier
    assert outcome.net["a"] == each * (len(table) - 1)
    assert all(outcome.net[p] == -each for p in table if p != "a")
    assert all(t.payee == "a" and t.units == each for t in outcome.transfers)


def test_a_failed_bonus_bid_risks_one_stake_per_player() -> None:
    # "10 sixes" at 5 players would win 6 from each, but the bidder loses only one to each.
    round_ = settle(SALOMON, five("66661234", "12345789", "00000000", "11111111", "23457890"), "a", "10 sixes")
    outcome = round_.outcome
    assert outcome is not None and not outcome.made and outcome.multiplier == 6
    assert dict(outcome.net) == {"a": -4, "b": 1, "c": 1, "d": 1, "e": 1}


def test_progressive_stakes_example_from_the_1986_text() -> None:
    session = Session(SALOMON, FIVE)

    def hand(table: dict[str, str], bidder: str, bid: str) -> Round:
        round_ = session.deal(serials(**table), bidder)
        play(round_, [(bidder, bid)])
        while not round_.is_over:
            player = round_.to_act
            assert player is not None
            for event in session.apply(CallCount(player) if player == bidder else Challenge(player)):
                assert not isinstance(event, Counted) or event.outcome is session.outcomes[-1]
        return round_

    # "8 sixes" (n+3 -> 2, sixes -> 4): next stake 4, made or not (here: not made).
    first = hand(five("66000000", "12345789", "12345789", "12345789", "12345789"), "a", "8 sixes")
    assert first.stake == 1 and not outcome_made(first)
    assert session.next_stake == 4
    # "8 threes" made at stake 4: n+3 doubles it, so the bidder wins 8 from each; next stake 2.
    second = hand(five("12456789", "33330000", "33330000", "12456789", "12456789"), "b", "8 threes")
    assert second.stake == 4 and outcome_made(second)
    assert second.outcome is not None and second.outcome.net["b"] == 32
    assert all(second.outcome.net[p] == -8 for p in FIVE if p != "b")
    assert session.next_stake == 2
    # "6 twos" (no bonus): the stake goes back to 1.
    third = hand(five("12456789", "12456789", "22000000", "22220000", "13456789"), "c", "6 twos")
    assert third.stake == 2 and outcome_made(third)
    assert third.outcome is not None and third.outcome.net["c"] == 8
    assert session.next_stake == 1
    assert sum(session.totals().values()) == 0


def test_progressive_8_threes_failing_at_stake_4_loses_4_to_each() -> None:
    round_ = settle(SALOMON, five("33000000", "12456789", "12456789", "12456789", "12456789"), "a", "8 threes", stake=4)
    outcome = round_.outcome
    assert outcome is not None and not outcome.made
    assert dict(outcome.net) == {"a": -16, "b": 4, "c": 4, "d": 4, "e": 4}
    assert outcome.next_stake == 2


def outcome_made(round_: Round) -> bool:
    assert round_.outcome is not None
    return round_.outcome.made


# -- turns ------------------------------------------------------------------------------------------
def test_the_opener_must_bid_and_the_turn_moves_clockwise() -> None:
    round_ = new_round(CLASSIC, PLAIN4, "c")
    assert round_.to_act == "c" and round_.standing_bid is None
    assert play(round_, [("c", "1 1")]) == [BidPlaced("c", Bid(1, 1), False, "d")]
    assert play(round_, [("d", "challenge")]) == [ChallengeMade("d", Bid(1, 1), "a")]
    assert play(round_, [("a", "2 2")]) == [BidPlaced("a", Bid(2, 2), False, "b")]
    assert round_.to_act == "b" and round_.bidder == "a" and round_.challengers == ()


def test_in_all_mode_a_bid_stands_until_every_other_player_has_challenged() -> None:
    round_ = new_round(CLASSIC, PLAIN4)
    play(round_, [("a", "1 1"), ("b", "challenge"), ("c", "challenge")])
    assert round_.to_act == "d" and round_.challengers == ("b", "c")  # not over: d still to answer
    events = play(round_, [("d", "challenge")])
    assert round_.is_over and isinstance(events[-1], Counted)


def test_a_raise_wipes_every_challenge_of_the_old_bid() -> None:
    round_ = new_round(CLASSIC, PLAIN4)
    play(round_, [("a", "1 1"), ("b", "challenge"), ("c", "2 1")])
    assert round_.challengers == () and round_.bidder == "c"
    play(round_, [("d", "challenge"), ("a", "challenge")])
    assert round_.to_act == "b"  # not over: b must challenge again: the old challenge is gone
    play(round_, [("b", "challenge")])
    assert round_.is_over and outcome_of(round_).challengers == ("d", "a", "b")


def test_in_all_mode_nobody_challenges_out_of_turn() -> None:
    round_ = new_round(CLASSIC, PLAIN4)
    play(round_, [("a", "1 1")])
    with pytest.raises(NotYourTurn) as err:
        round_.apply(Challenge("c"))
    assert (err.value.player, err.value.to_act) == ("c", "b")
    assert not round_.can_challenge("c") and round_.can_challenge("b")


def test_in_first_mode_any_non_bidder_challenges_at_any_moment_and_ends_the_bidding() -> None:
    round_ = new_round(QUICK, PLAIN4)
    play(round_, [("a", "1 1"), ("b", "2 1")])
    assert round_.to_act == "c"
    assert all(round_.can_challenge(p) for p in ("a", "c", "d")) and not round_.can_challenge("b")
    events = play(round_, [("a", "challenge")])  # a is not to act, and is the one who was raised over
    assert events[0] == ChallengeMade("a", Bid(2, 1), None)
    assert events[1] == ChallengedAllAround("b", Bid(2, 1), False)
    assert isinstance(events[2], Counted)
    assert round_.is_over and outcome_of(round_).challengers == ("a",)


def test_in_first_mode_bids_are_still_made_in_turn() -> None:
    round_ = new_round(QUICK, PLAIN4)
    play(round_, [("a", "1 1")])
    with pytest.raises(NotYourTurn):
        round_.apply(MakeBid("c", Bid(2, 2)))


def test_in_first_mode_with_the_rebid_right_the_first_challenge_counts_as_all_around() -> None:
    rules = make_rules("quick", rebid=True)
    round_ = new_round(rules, PLAIN4)
    play(round_, [("a", "1 1")])
    events = play(round_, [("c", "challenge")])
    assert events[-1] == ChallengedAllAround("a", Bid(1, 1), True)
    assert round_.phase is Phase.REBID and round_.to_act == "a"
    play(round_, [("a", "2 1")])
    assert round_.standing_is_rebid
    events = play(round_, [("d", "challenge")])  # the rebid, challenged out, is counted at once
    assert events[1] == ChallengedAllAround("a", Bid(2, 1), False)
    assert round_.is_over


@pytest.mark.parametrize("rules", [CLASSIC, QUICK])
def test_two_players_play_the_same_game_in_both_modes(rules: Rules) -> None:
    table = {"a": "11112345", "b": "12345678"}
    round_ = Round(rules, ["a", "b"], serials(**table), "a")
    play(round_, [("a", "2 1"), ("b", "4 1")])
    events = play(round_, [("a", "challenge")])
    assert [type(e) for e in events] == [ChallengeMade, ChallengedAllAround, Counted]
    outcome = outcome_of(round_)
    assert outcome.made and dict(outcome.net) == {"a": -1, "b": 1}


# -- the rebid right ---------------------------------------------------------------------------------
def test_without_the_rebid_right_a_bid_challenged_all_around_is_counted_at_once() -> None:
    round_ = new_round(CLASSIC)
    play(round_, [("a", "1 1"), ("b", "challenge")])
    events = play(round_, [("c", "challenge")])
    assert events[1] == ChallengedAllAround("a", Bid(1, 1), False)
    assert round_.is_over and isinstance(events[2], Counted)


def test_with_the_rebid_right_the_bidder_chooses_to_call_for_the_count() -> None:
    round_ = new_round(make_rules("classic", rebid=True))
    play(round_, [("a", "1 1"), ("b", "challenge")])
    events = play(round_, [("c", "challenge")])
    assert events[1] == ChallengedAllAround("a", Bid(1, 1), True)
    assert round_.phase is Phase.REBID and round_.to_act == "a" and not round_.is_over
    legal = round_.legal_actions()
    assert CallCount("a") in legal and not legal.challenge
    counted = round_.apply(CallCount("a"))
    assert len(counted) == 1 and isinstance(counted[0], Counted)
    assert counted[0].outcome.bid == Bid(1, 1)


def test_a_rebid_must_beat_the_bidders_own_bid() -> None:
    round_ = new_round(make_rules("classic", rebid=True))
    play(round_, [("a", "3 5"), ("b", "challenge"), ("c", "challenge")])
    for low in ("3 5", "3 4", "2 9"):
        with pytest.raises(BidTooLow):
            play(round_, [("a", low)])
    assert play(round_, [("a", "3 6")]) == [BidPlaced("a", Bid(3, 6), True, "b")]


def test_only_the_bidder_acts_while_the_rebid_is_decided() -> None:
    round_ = new_round(make_rules("classic", rebid=True))
    play(round_, [("a", "1 1"), ("b", "challenge"), ("c", "challenge")])
    before = snapshot(round_)
    with pytest.raises(NotYourTurn):
        round_.apply(MakeBid("b", Bid(5, 5)))
    with pytest.raises(NotYourTurn):
        round_.apply(Challenge("b"))
    with pytest.raises(BidderCannotChallenge):
        round_.apply(Challenge("a"))
    with pytest.raises(CountNotAvailable):
        round_.apply(CallCount("c"))
    assert snapshot(round_) == before


def test_a_raise_over_a_rebid_gives_everyone_the_right_again() -> None:
    round_ = new_round(make_rules("classic", rebid=True))
    play(round_, [("a", "1 1"), ("b", "challenge"), ("c", "challenge"), ("a", "2 1")])  # a rebids
    play(round_, [("b", "3 1"), ("c", "challenge")])
    events = play(round_, [("a", "challenge")])
    assert events[-1] == ChallengedAllAround("b", Bid(3, 1), True)  # b, who raised over the rebid, may rebid
    play(round_, [("b", "4 1"), ("c", "5 1"), ("a", "challenge")])
    events = play(round_, [("b", "challenge")])
    assert events[-1] == ChallengedAllAround("c", Bid(5, 1), True)


def test_the_rebidder_regains_the_right_once_someone_raises_over_the_rebid() -> None:
    round_ = new_round(make_rules("classic", rebid=True))
    play(round_, [("a", "1 1"), ("b", "challenge"), ("c", "challenge"), ("a", "2 1")])  # a has used the right
    play(round_, [("b", "3 1"), ("c", "4 1"), ("a", "5 1"), ("b", "challenge")])
    events = play(round_, [("c", "challenge")])
    assert events[-1] == ChallengedAllAround("a", Bid(5, 1), True)
    assert round_.phase is Phase.REBID


def test_only_one_rebid_in_a_row() -> None:
    round_ = new_round(make_rules("classic", rebid=True))
    play(round_, [("a", "1 1"), ("b", "challenge"), ("c", "challenge"), ("a", "2 1"), ("b", "challenge")])
    events = play(round_, [("c", "challenge")])
    assert events[1] == ChallengedAllAround("a", Bid(2, 1), False)
    assert isinstance(events[2], Counted) and events[2].outcome.bid == Bid(2, 1)


# -- errors: raised with fields, before anything changes ---------------------------------------------
ErrorCase = tuple[Callable[[], Round], Action, type[GameError], dict[str, object]]


def _opened(rules: Rules = CLASSIC) -> Round:
    round_ = new_round(rules)
    play(round_, [("a", "3 5")])
    return round_


def _rebid_phase() -> Round:
    round_ = new_round(make_rules("classic", rebid=True))
    play(round_, [("a", "3 5"), ("b", "challenge"), ("c", "challenge")])
    return round_


def _counted() -> Round:
    round_ = _opened()
    play(round_, [("b", "challenge"), ("c", "challenge")])
    return round_


ERROR_CASES: dict[str, ErrorCase] = {
    "not-your-turn bid": (new_round, MakeBid("b", Bid(1, 1)), NotYourTurn, {"player": "b", "to_act": "a"}),
    "not-your-turn challenge": (_opened, Challenge("c"), NotYourTurn, {"player": "c", "to_act": "b"}),
    "bid-too-low equal": (_opened, MakeBid("b", Bid(3, 5)), BidTooLow, {"bid": Bid(3, 5), "standing": Bid(3, 5)}),
    "bid-too-low lower": (_opened, MakeBid("b", Bid(3, 4)), BidTooLow, {"bid": Bid(3, 4), "standing": Bid(3, 5)}),
    "no-standing-bid": (new_round, Challenge("a"), NoStandingBid, {"player": "a"}),
    "bidder-cannot-challenge": (_opened, Challenge("a"), BidderCannotChallenge, {"player": "a"}),
    "bidder-cannot-challenge first": (
        lambda: _opened(QUICK),
        Challenge("a"),
        BidderCannotChallenge,
        {"player": "a"},
    ),
    "count without the rebid right": (_opened, CallCount("a"), CountNotAvailable, {"player": "a"}),
    "count by a non-bidder": (_rebid_phase, CallCount("b"), CountNotAvailable, {"player": "b"}),
    "count before any bid": (new_round, CallCount("a"), CountNotAvailable, {"player": "a"}),
    "quantity-out-of-range": (new_round, MakeBid("a", Bid(25, 1)), QuantityOutOfRange, {"quantity": 25, "maximum": 24}),
    "quantity-out-of-range raise": (
        _opened,
        MakeBid("b", Bid(97, 1)),
        QuantityOutOfRange,
        {"quantity": 97, "maximum": 24},
    ),
    "round-over bid": (_counted, MakeBid("b", Bid(9, 9)), RoundOver, {}),
    "round-over challenge": (_counted, Challenge("b"), RoundOver, {}),
    "unknown player": (_opened, Challenge("zed"), UnknownPlayer, {"player": "zed"}),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_illegal_actions_raise_a_game_error_with_fields_and_change_nothing(case: str) -> None:
    build, action, error, fields = ERROR_CASES[case]
    round_ = build()
    before = snapshot(round_)
    with pytest.raises(error) as err:
        round_.apply(action)
    assert isinstance(err.value, GameError)
    for key, value in fields.items():
        assert getattr(err.value, key) == value
        assert err.value.fields[key] == value
    assert err.value.code and str(err.value)
    assert snapshot(round_) == before
    with pytest.raises(error):
        round_.check(action)
    assert action not in round_.legal_actions()


def test_error_codes_are_the_issues_names() -> None:
    assert [e.code for e in (NotYourTurn, BidTooLow, NoStandingBid, BidderCannotChallenge)] == [
        "not-your-turn",
        "bid-too-low",
        "no-standing-bid",
        "bidder-cannot-challenge",
    ]
    assert [e.code for e in (CountNotAvailable, QuantityOutOfRange, RoundOver)] == [
        "count-not-available",
        "quantity-out-of-range",
        "round-over",
    ]


def test_the_top_bid_at_the_table_is_legal_and_one_more_is_not() -> None:
    round_ = new_round()
    play(round_, [("a", "24 nines")])
    assert round_.legal_actions().bids() == []
    with pytest.raises(QuantityOutOfRange):
        play(round_, [("b", "25 zeros")])
    play(round_, [("b", "challenge"), ("c", "challenge")])
    assert round_.is_over


def test_a_bid_under_another_rank_order_is_read_under_the_tables() -> None:
    round_ = new_round(SALOMON)
    round_.apply(MakeBid("a", Bid(3, 9)))  # zero-low value; the table is zero-high
    assert round_.standing_bid == Bid(3, 9, RankOrder.ZERO_HIGH)
    round_.apply(MakeBid("b", Bid(3, 0)))  # 3 tens beat 3 nines at this table
    assert round_.standing_bid == Bid(3, 0, RankOrder.ZERO_HIGH)
    with pytest.raises(BidTooLow):
        round_.apply(MakeBid("c", Bid(3, 9)))
    assert MakeBid("c", Bid(4, 1)) in round_.legal_actions()


# -- legal actions -------------------------------------------------------------------------------------
def test_the_opener_may_only_bid() -> None:
    legal = new_round().legal_actions()
    assert legal.player == "a" and len(legal) == 24 * 10
    assert not legal.challenge and not legal.call_count
    assert legal[0] == MakeBid("a", Bid(1, 0)) and legal[-1] == MakeBid("a", Bid(24, 9))
    assert Challenge("a") not in legal and MakeBid("b", Bid(1, 0)) not in legal


def test_after_a_bid_the_next_player_may_raise_or_challenge() -> None:
    round_ = _opened()
    legal = round_.legal_actions()
    assert legal.bids()[0] == Bid(3, 6) and legal.bids()[-1] == Bid(24, 9)
    assert len(legal) == len(legal.bids()) + 1
    assert legal[-1] == Challenge("b") and Challenge("b") in legal
    assert legal.count(Challenge("b")) == 1
    assert list(legal)[:2] == [MakeBid("b", Bid(3, 6)), MakeBid("b", Bid(3, 7))]
    assert legal[1:3] == [MakeBid("b", Bid(3, 7)), MakeBid("b", Bid(3, 8))]
    with pytest.raises(IndexError):
        legal[len(legal)]


def test_in_the_rebid_phase_the_bidder_may_raise_or_call_for_the_count() -> None:
    legal = _rebid_phase().legal_actions()
    assert legal.player == "a" and legal.call_count and not legal.challenge
    assert legal[-1] == CallCount("a") and legal[0] == MakeBid("a", Bid(3, 6))


def test_a_counted_round_has_no_legal_actions() -> None:
    legal = _counted().legal_actions()
    assert len(legal) == 0 and list(legal) == [] and legal.player is None


def test_every_listed_action_is_accepted_and_random_choice_works() -> None:
    rng = random.Random(7)
    for _ in range(50):
        round_ = new_round(SALOMON)
        while not round_.is_over:
            legal = round_.legal_actions()
            for i in rng.sample(range(len(legal)), min(5, len(legal))):
                round_.check(legal[i])
            round_.apply(rng.choice(legal))
        assert sum(outcome_of(round_).net.values()) == 0


# -- construction and timeouts -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("players", "table", "opener", "stake"),
    [
        (["a"], {"a": "12345678"}, "a", None),
        ([f"p{i}" for i in range(13)], {f"p{i}": "12345678" for i in range(13)}, "p0", None),
        (["a", "a"], {"a": "12345678"}, "a", None),
        (["a", "b"], {"a": "12345678"}, "a", None),
        (["a", "b"], {"a": "12345678", "b": "12345678"}, "z", None),
        (["a", "b"], {"a": "12345678", "b": "12345678"}, "a", 0),
    ],
)
def test_a_round_needs_a_valid_table(players: list[str], table: dict[str, str], opener: str, stake: int | None) -> None:
    with pytest.raises(ValueError):
        Round(CLASSIC, players, serials(**table), opener, stake)


def test_timeout_actions() -> None:
    round_ = new_round(SALOMON, {"a": "90901234", "b": "12345678", "c": "12345678"})
    # the opener bids the lowest opening bid: one of the lowest-ranked digit (1; 0 ranks as ten), whatever they hold
    assert timeout_action(round_) == MakeBid("a", Bid(1, 1, RankOrder.ZERO_HIGH))
    for serial in ("11111111", "00000000", "98765432", "00000001"):
        other = new_round(SALOMON, {"a": serial, "b": "12345678", "c": "12345678"})
        assert timeout_action(other) == timeout_action(round_)
    classic = new_round(CLASSIC, {"a": "99999999", "b": "12345678"})
    assert timeout_action(classic) == MakeBid("a", Bid(1, 0, RankOrder.ZERO_LOW))  # 0 ranks lowest in classic
    round_.apply(timeout_action(round_))
    assert timeout_action(round_) == Challenge("b")
    play(round_, [("b", "challenge"), ("c", "challenge")])
    assert timeout_action(round_) == CallCount("a")
    round_.apply(timeout_action(round_))
    with pytest.raises(RoundOver):
        timeout_action(round_)


def test_a_seat_view_shows_its_own_serial_and_the_public_state_only() -> None:
    from core.serial import seat_view

    round_ = new_round(CLASSIC, {"a": "11111111", "b": "22222222", "c": "33333333"})
    play(round_, [("a", "3 5")])
    view = seat_view(round_, "b")
    assert view.serial is round_.serials["b"] and view.me == "b" and view.n == 3
    assert (view.standing_bid, view.bidder, view.to_act, view.phase) == (Bid(3, 5), "a", "b", Phase.BIDDING)
    assert view.legal.player == "b" and Challenge("b") in view.legal
    others = {round_.serials["a"], round_.serials["c"]}
    assert len(others) == 2 and not any(value in others for value in vars_of(view))


def vars_of(view: SeatView) -> list[object]:
    return [getattr(view, name) for name in view.__slots__]


def test_a_seat_view_off_turn_offers_only_the_challenge_first_mode_allows() -> None:
    from core.serial import Challenge, MakeBid, Serial, make_rules, seat_view
    from core.serial.round import Round

    serials = {p: Serial("01234567") for p in ("a", "b", "c")}
    for mode, can in (("first", True), ("all", False)):
        round_ = Round(make_rules("classic", challenge_mode=mode), ("a", "b", "c"), serials, "a")
        sixth = round_.legal_actions()[5]
        assert isinstance(sixth, MakeBid)
        round_.apply(MakeBid("a", sixth.bid))
        view = seat_view(round_, "c")  # b is to act
        assert view.legal.player == "c"
        assert list(view.legal) == ([Challenge("c")] if can else [])
        assert seat_view(round_, "b").legal.player == "b" and len(seat_view(round_, "b").legal) > 1
