"""Reduced formats (issue #12): the rule options ``digits`` and ``serial_length`` and everything they touch."""

from __future__ import annotations

import json
import random

import pytest

from core.serial import Bid, Challenge, MakeBid, Round, RulesError, Serial, make_rules, seat_view
from core.serial.bids import digit_plural
from core.serial.errors import DigitNotInPlay, QuantityOutOfRange
from core.serial.game import SerialMatch
from core.serial.players import STRATEGY_NAMES, get_strategy
from core.serial.record import RecordError, replay
from core.serial.round import CallCount, timeout_action
from core.serial.rules import RankOrder, Rules
from core.serial.serials import deal_serial

THREE = make_rules("classic", rebid=True, digits=3, serial_length=3)


def test_options_parse_and_validate() -> None:
    rules = make_rules("classic", digits="3", **{"serial-length": "3"})
    assert (rules.digits, rules.serial_length, rules.format_name) == (3, 3, "3×3")
    assert make_rules("classic", length=5).serial_length == 5
    for bad in ({"digits": 1}, {"digits": 11}, {"serial_length": 0}, {"serial_length": 9}, {"digits": "x"}):
        with pytest.raises(RulesError):
            make_rules("classic", **bad)


def test_full_game_records_do_not_mention_the_format_but_reduced_ones_round_trip() -> None:
    assert "digits" not in Rules().to_dict() and "serial_length" not in Rules().to_dict()
    assert Rules.from_dict(THREE.to_dict()) == THREE
    assert "reduced format 3×3" in THREE.describe() and "1 to 3" in THREE.describe()


def test_digits_in_play_are_one_to_d_ranked_by_the_order() -> None:
    assert make_rules("classic", digits=3).digit_set == (1, 2, 3)
    assert make_rules("salomon", digits=3).digit_set == (1, 2, 3)
    assert make_rules("classic", rank_order="aces-high", digits=3).digit_set == (2, 3, 1)
    assert make_rules("classic").digit_set == tuple(range(10))


def test_dealt_serials_fit_the_format_and_cover_it_uniformly() -> None:
    rng = random.Random(5)
    seen = [deal_serial(rng, 3, 3) for _ in range(2700)]
    assert all(len(s.digits) == 3 and set(s.digits) <= set("123") for s in seen)
    assert len({s.digits for s in seen}) == 27
    assert 800 < sum(s.counts[1] for s in seen) / 3 < 1000  # a third of the digits are ones
    full = deal_serial(random.Random(1))
    assert len(full.digits) == 8


def _round(rules: Rules = THREE, a: str = "123", b: str = "331") -> Round:
    return Round(rules, ("ann", "bob"), {"ann": Serial(a), "bob": Serial(b)}, "ann")


def test_a_round_offers_only_the_formats_bids() -> None:
    r = _round()
    bids = r.legal_actions().bids()
    assert [str(b) for b in bids[:4]] == ["1 one", "1 two", "1 three", "2 ones"]
    assert len(bids) == 18 and max(b.quantity for b in bids) == 6
    with pytest.raises(DigitNotInPlay):
        r.apply(MakeBid("ann", Bid(1, 7)))
    with pytest.raises(QuantityOutOfRange):
        r.apply(MakeBid("ann", Bid(7, 1)))
    r.apply(MakeBid("ann", Bid(2, 3)))
    assert [str(b) for b in r.legal_actions().bids()][:2] == ["3 ones", "3 twos"]


def test_serials_that_do_not_fit_are_refused() -> None:
    for a in ("1234", "120"):
        with pytest.raises(ValueError):
            _round(a=a)


def test_a_3x3_round_counts_with_the_engine_rules() -> None:
    r = _round()
    r.apply(MakeBid("ann", Bid(3, 3)))
    r.apply(Challenge("bob"))
    r.apply(CallCount("ann"))
    assert r.outcome is not None and r.outcome.count == 3 and r.outcome.made
    assert r.outcome.net == {"ann": 1, "bob": -1}


def test_timeout_opening_is_the_formats_least_bid_whatever_is_held() -> None:
    for held in ("222", "111", "123", "333"):
        action = timeout_action(_round(a=held))
        assert isinstance(action, MakeBid) and action.bid == Bid(1, 1)  # "1 one": this format's digits are 1-3


@pytest.mark.parametrize("name", STRATEGY_NAMES)
def test_every_strategy_plays_a_reduced_format_legally(name: str) -> None:
    rng = random.Random(3)
    strategy = get_strategy(name)
    formats = (THREE, make_rules("quick", digits=2, serial_length=1), make_rules("salomon", digits=5, serial_length=4))
    for rules in formats:
        for _ in range(15):
            seats = ("a", "b", "c")
            r = Round(rules, seats, {p: deal_serial(rng, rules.serial_length, rules.digits) for p in seats}, "a")
            while not r.is_over:
                player = r.to_act
                assert player is not None
                r.apply(strategy.decide(seat_view(r, player), rng))


RECORD = {
    "rules": {"preset": "classic", "rebid": True, "digits": 3, "serial_length": 3},
    "players": ["ann", "bob"],
    "rounds": [
        {
            "serials": {"ann": "123", "bob": "331"},
            "opener": "ann",
            "actions": [
                {"player": "ann", "bid": "3 threes"},
                {"player": "bob", "challenge": True},
                {"player": "ann", "count": True},
            ],
        }
    ],
}


def test_records_with_short_serials_replay() -> None:
    result = replay(RECORD)
    assert result["totals"] == {"ann": 1, "bob": -1}
    bad = json.loads(json.dumps(RECORD))
    bad["rounds"][0]["serials"]["bob"] = "33100000"
    with pytest.raises(RecordError):
        replay(bad)


def test_serial_parse_takes_the_format_length() -> None:
    assert Serial.parse("LB 123 A", 3).digits == "123"
    with pytest.raises(ValueError):
        Serial.parse("123")
    assert RankOrder.ZERO_LOW.rank(3) == 3


def test_the_game_seam_deals_parses_and_replays_a_reduced_format() -> None:
    from core.errors import GameError
    from core.serial.errors import BidParseError
    from core.serial.plugin import SERIAL

    rules = SERIAL.make_rules(None, {"digits": "3", "serial_length": "3", "rebid": "on"})
    assert "reduced format 3×3" in SERIAL.describe(rules)
    match = SERIAL.new_match(rules, ["a", "b"], host="a")
    rng = random.Random(4)
    deal = match.deal(rng)
    assert all(len(s.split()[1]) == 3 and set(s.split()[1]) <= set("123") for s in deal["serials"].values())
    match.apply_deal(deal)
    player = match.to_act
    assert player is not None
    with pytest.raises(DigitNotInPlay):
        match.parse(player, "bid", [], {"quantity": "1", "digit": "5"})
    with pytest.raises(BidParseError):
        match.parse(player, "bid", [], {"quantity": "1", "digit": "12"})
    with pytest.raises(BidParseError, match="not both"):  # words and numbers that may disagree: neither wins
        match.parse(player, "bid", ["three", "twos"], {"quantity": "2", "digit": "3"})
    assert match.parse(player, "bid", [" "], {"quantity": "2", "digit": "3"})["bid"] == [2, 3]
    while match.live:
        who = match.to_act
        assert who is not None
        match.apply(match.computer_decision(who, "hard")(rng))
    record = match.record(closed=True)
    assert record["rules"]["digits"] == 3 and record["rules"]["serial_length"] == 3
    assert isinstance(match, SerialMatch) and match.last_outcome is not None
    assert SERIAL.verify(record)["totals"] == match.last_outcome.net
    for wrong in ("LB 12345678 A", "LB 124 A"):  # a stored deal that does not fit the format is refused
        stored = dict(deal, serials=dict.fromkeys(deal["serials"], wrong))
        with pytest.raises(GameError):
            SERIAL.new_match(rules, ["a", "b"], host="a").apply_deal(stored)


@pytest.mark.parametrize("digit", range(10))
@pytest.mark.parametrize("typed", [int, str])
def test_a_bid_by_options_takes_every_digit_typed_or_as_text(digit: int, typed: type) -> None:
    """Options cross the seam typed (Discord sends ints, a Slack form strings): 0 is a digit, not a gap."""
    from core.serial.errors import BidParseError
    from core.serial.plugin import SERIAL

    match = SERIAL.new_match(SERIAL.make_rules(None, {}), ["a", "b"], host="a")
    assert match.parse("a", "bid", [], {"quantity": typed(3), "digit": typed(digit)}) == \
        {"player": "a", "bid": [3, digit]}
    for partial in ({"quantity": typed(3)}, {"digit": typed(digit)}, {"quantity": True, "digit": typed(digit)},
                    {"quantity": "three", "digit": typed(digit)}):
        with pytest.raises(BidParseError):
            match.parse("a", "bid", [], partial)


@pytest.mark.parametrize("order", ["zero-low", "zero-high", "aces-high"])
def test_the_count_picture_names_the_rank_order_as_data(order: str) -> None:
    """The picture is drawn from the game's data: its words name the digits in the table's order."""
    from core.game import SayKind
    from core.serial.plugin import SERIAL

    match = SERIAL.new_match(SERIAL.make_rules(None, {"rank_order": order}), ["a", "b"], host="a")
    rng = random.Random(9)
    match.apply_deal(match.deal(rng))
    pictures = []
    while match.live:
        who = match.to_act
        assert who is not None
        step = match.apply(match.computer_decision(who, "hard")(rng))
        pictures += [s.picture for s in step.says if s.kind is SayKind.RESULT and s.picture is not None]
    [picture] = pictures
    outcome = picture["record"]["outcome"]
    digit = outcome["final_bid"]["digit"]
    assert picture["words"]["held"] == digit_plural(digit, RankOrder(order))


def test_the_challenge_that_completes_challenged_all_around_is_named_with_it() -> None:
    """At a rebid table the last challenge's note said only "… is challenged all around": who made it was lost."""
    from core.serial.plugin import SERIAL

    rules = SERIAL.make_rules("salomon", {})
    match = SERIAL.new_match(rules, ["a", "b", "c"], host="a")
    match.apply_deal(match.deal(random.Random(4)))
    opener = match.to_act
    assert opener is not None
    first = match.apply(match.check(match.parse(opener, "bid", ["1", "5"], {})))
    assert first.note == f"<@{opener}> bid 1 five."
    second = match.to_act
    assert second is not None
    step = match.apply(match.check(match.parse(second, "challenge", [], {})))
    assert step.note == f"<@{second}> challenged 1 five."
    third = match.to_act
    assert third is not None and third not in (opener, second)
    step = match.apply(match.check(match.parse(third, "challenge", [], {})))
    assert step.note == f"<@{third}> challenged 1 five — challenged all around."
    assert match.to_act == opener  # the bidder's call: the count, or a rebid
