"""Sessions: stakes across rounds, openers, fresh serials, SLIPS skipping and the tenth round."""

from __future__ import annotations

import random

import pytest

from core.serial import (
    CallCount,
    Challenge,
    Round,
    Rules,
    Serial,
    Session,
    SessionOver,
    deal_serial,
    make_rules,
)
from core.serial.serials import SLIP_LENGTH

from ._helpers import action, serials

ABC = ("a", "b", "c")
PLAIN = {"a": "12345678", "b": "12345678", "c": "12345678"}


def finish(session: Session, bid: str = "1 2") -> Round:
    """The opener bids; everyone else challenges; with the rebid right the bidder calls the count."""
    round_ = session.round
    assert round_ is not None
    bidder = round_.to_act
    assert bidder is not None  # None once the round is over
    session.apply(action(round_, bidder, bid))  # through the session, so it records the outcome
    while not round_.is_over:
        player = round_.to_act
        assert player is not None
        session.apply(CallCount(player) if player == bidder else Challenge(player))
    return round_


# -- SLIPS --------------------------------------------------------------------------------------------
# Slip positions whose serial ends in an odd digit, per player.
ODD = {"a": {0, 1, 3, 6, 10}, "b": {0, 6, 12}, "c": {1, 2, 6, 10, 14}}


def slip(player: str) -> list[Serial]:
    """Serial at position p reads pp (position), the seat, four zeros, then 1 (odd) or 2 (even)."""
    seat = ABC.index(player)
    return [Serial(f"{p:02d}{seat}0000{1 if p in ODD[player] else 2}") for p in range(SLIP_LENGTH)]


# Worked by hand from ODD (k = odd last digits among the serials just played; skip k unplayed, play the next):
#   round 1 plays 0;  k = a,b      = 2: skip 1, 2           -> 3
#   round 2 plays 3;  k = a        = 1: skip 4              -> 5
#   round 3 plays 5;  k = 0                                 -> 6
#   round 4 plays 6;  k = a,b,c    = 3: skip 7, 8, 9        -> 10
#   round 5 plays 10; k = a,c      = 2: skip 11, 12         -> 13
#   round 6 plays 13; k = 0                                 -> 14
#   round 7 plays 14; k = c        = 1: wrap, 0 played, skip 1 -> 2
#   round 8 plays 2;  k = c        = 1: 3 played, skip 4, 5 and 6 played -> 7
#   round 9 plays 7;  k = 0                                 -> 8
#   round 10 plays 8, at double stake, and the session ends.
EXPECTED_POSITIONS = [0, 3, 5, 6, 10, 13, 14, 2, 7, 8]


def slips_session(rules: Rules | None = None) -> Session:
    rules = rules or make_rules("classic", serial_source="slips", first_opener="host", stake=3)
    return Session(rules, ABC, slips={p: slip(p) for p in ABC})


def test_slips_skip_k_unplayed_serials_after_each_round() -> None:
    session = slips_session()
    played: list[int] = []
    for number in range(1, 11):
        round_ = session.deal()
        positions = {int(round_.serials[p].digits[:2]) for p in ABC}
        assert len(positions) == 1, "every player plays the same slip position"
        assert all(round_.serials[p].digits[2] == str(ABC.index(p)) for p in ABC), "each from their own slip"
        played.append(positions.pop())
        assert session.rounds_dealt == number
        finish(session)
    assert played == EXPECTED_POSITIONS
    assert session.slip_played == EXPECTED_POSITIONS


def test_slips_skipping_wraps_from_the_bottom_of_the_slip_to_the_top() -> None:
    # Four players whose serials are odd at positions 0, 1, 5 and 10 of every slip: k is 4 or 0.
    #   round 1 plays 0;  k = 4: skip 1, 2, 3, 4                      -> 5
    #   round 2 plays 5;  k = 4: skip 6, 7, 8, 9                      -> 10
    #   round 3 plays 10; k = 4: skip 11, 12, 13, 14, wrap, 0 played  -> 1
    #   round 4 plays 1;  k = 4: skip 2, 3, 4, (5 played) 6           -> 7
    #   round 5 plays 7;  k = 0                                       -> 8
    seats = ("a", "b", "c", "d")
    odd = {0, 1, 5, 10}
    slips = {p: [Serial(f"{i:02d}00000{1 if i in odd else 2}") for i in range(SLIP_LENGTH)] for p in seats}
    session = Session(make_rules("classic", serial_source="slips", first_opener="host"), seats, slips=slips)
    played = []
    for _ in range(5):
        played.append(int(session.deal().serials["c"].digits[:2]))
        finish(session)
    assert played == [0, 5, 10, 1, 7]


def test_slips_tenth_round_is_double_stake_and_the_session_ends() -> None:
    session = slips_session()
    stakes = []
    for _ in range(10):
        assert not session.over
        stakes.append(session.deal().stake)
        finish(session, "1 0")  # every slip serial holds four zeros: the bid is made
    assert stakes == [3] * 9 + [6]
    last = session.outcomes[-1]
    assert all(t.units == 6 for t in last.transfers)
    assert session.over
    with pytest.raises(SessionOver):
        session.deal()
    assert sum(session.totals().values()) == 0


def test_slips_tenth_round_doubles_the_progressive_stake() -> None:
    session = slips_session(make_rules("salomon", serial_source="slips"))
    for _ in range(9):
        session.deal()
        finish(session, "8 tens")  # n+5 at three players: multiplier 3; every serial holds 0s
    assert session.next_stake == 3
    assert session.deal().stake == 6


def test_slips_are_dealt_from_the_injected_source() -> None:
    rules = make_rules("classic", serial_source="slips")
    one = Session(rules, ABC, rng=random.Random(4))
    two = Session(rules, ABC, rng=random.Random(4))
    assert one.slips is not None and one.slips == two.slips
    assert all(len(s) == SLIP_LENGTH for s in one.slips.values())
    assert len({one.slips[p] for p in ABC}) == 3
    assert one.deal(opener="a").serials == {p: one.slips[p][0] for p in ABC}


def test_a_slip_must_hold_ten_serials() -> None:
    with pytest.raises(ValueError):
        Session(make_rules("classic", serial_source="slips"), ABC, slips={p: slip(p)[:9] for p in ABC})


def test_fresh_serials_have_no_round_limit() -> None:
    session = Session(make_rules("classic", first_opener="host"), ABC, rng=random.Random(1))
    for _ in range(12):
        session.deal()
        finish(session)
    assert not session.over and len(session.outcomes) == 12 and session.slips is None


# -- fresh serials ----------------------------------------------------------------------------------
def test_fresh_serials_are_dealt_each_round_from_the_injected_source() -> None:
    session = Session(make_rules("classic", first_opener="host"), ABC, rng=random.Random(9))
    replica = random.Random(9)
    first = session.deal()
    assert first.serials == {p: deal_serial(replica) for p in ABC}
    finish(session)
    second = session.deal()
    assert second.serials == {p: deal_serial(replica) for p in ABC}
    assert second.serials != first.serials


def test_serials_may_be_given_to_a_deal() -> None:
    session = Session(make_rules("classic"), ABC, rng=random.Random(9))
    round_ = session.deal(serials(**PLAIN), "b")
    assert round_.serials == serials(**PLAIN) and round_.to_act == "b"


# -- stakes -----------------------------------------------------------------------------------------
def test_progressive_stakes_carry_to_the_next_round() -> None:
    session = Session(make_rules("salomon"), ABC)
    session.deal(serials(a="00001234", b="00001234", c="00001234"), "a")
    finish(session, "8 tens")  # n+5 at 3 players: 3, the bidder holds tens
    assert session.next_stake == 3
    round_ = session.deal(serials(**PLAIN), "a")
    assert round_.stake == 3


def test_without_progressive_stakes_every_round_is_at_the_tables_stake() -> None:
    session = Session(make_rules("salomon", progressive=False, stake=2), ABC)
    session.deal(serials(a="00001234", b="00001234", c="00001234"), "a")
    finish(session, "8 tens")
    assert session.deal(serials(**PLAIN), "a").stake == 2


def test_last_hand_declared_between_rounds_is_the_next_at_double_stake() -> None:
    session = Session(make_rules("classic", last_hand_double=True, stake=2), ABC, host="a")
    session.deal(serials(**PLAIN), "a")
    finish(session)
    assert session.declare_last_hand() == 2 and session.last_hand == 2
    last = session.deal(serials(**PLAIN), "a")
    assert last.stake == 4
    finish(session)
    assert all(t.units == 4 for t in session.outcomes[-1].transfers)
    assert session.over
    with pytest.raises(SessionOver):
        session.deal()


def test_last_hand_declared_before_the_first_bid_is_this_round() -> None:
    session = Session(make_rules("classic", last_hand_double=True), ABC)
    round_ = session.deal(serials(**PLAIN), "a")
    assert session.declare_last_hand() == 1
    assert round_.stake == 2 and not session.over
    finish(session)
    assert session.over


def test_last_hand_declared_during_the_bidding_is_the_next_round() -> None:
    session = Session(make_rules("classic", last_hand_double=True), ABC)
    round_ = session.deal(serials(**PLAIN), "a")
    session.apply(action(round_, "a", "1 1"))
    assert session.declare_last_hand() == 2
    assert session.declare_last_hand() == 2  # declaring again changes nothing
    assert round_.stake == 1
    finish_round(session)
    assert not session.over
    assert session.deal(serials(**PLAIN)).stake == 2


def finish_round(session: Session) -> None:
    round_ = session.round
    assert round_ is not None
    while not round_.is_over:
        player = round_.to_act
        assert player is not None
        session.apply(Challenge(player))


def test_last_hand_without_the_double_option_ends_the_session_at_the_usual_stake() -> None:
    session = Session(make_rules("classic"), ABC)
    session.declare_last_hand()
    assert session.deal(serials(**PLAIN), "a").stake == 1
    finish(session)
    assert session.over


def test_last_hand_doubles_the_progressive_stake() -> None:
    session = Session(make_rules("salomon", last_hand_double=True), ABC)
    session.deal(serials(a="00001234", b="00001234", c="00001234"), "a")
    finish(session, "8 tens")
    session.declare_last_hand()
    assert session.deal(serials(**PLAIN), "a").stake == 6


# -- openers ------------------------------------------------------------------------------------------
class FixedRandom:
    """A random source whose every draw is the last value of the range; records the ranges asked for."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        self.asked.append(start)
        return start - 1


def test_letters_opener_is_the_lowest_prefix_pair() -> None:
    session = Session(make_rules("salomon"), ABC)
    table = serials(a="LB 06742088 A", b="AC 92859819 B", c="BA 07202503 C")
    assert session.deal(table).to_act == "b"


def test_letters_opener_ties_go_to_the_earlier_seat() -> None:
    session = Session(make_rules("salomon"), ABC)
    table = serials(a="LB 06742088 A", b="CA 92859819 B", c="CA 07202503 C")
    assert session.deal(table).to_act == "b"


def test_random_opener_comes_from_the_injected_source() -> None:
    rng = FixedRandom()
    session = Session(make_rules("classic"), ABC, rng=rng)
    assert session.deal(serials(**PLAIN)).to_act == "c"
    assert rng.asked == [3]


def test_host_opener() -> None:
    assert Session(make_rules("classic", first_opener="host"), ABC, host="b").deal(serials(**PLAIN)).to_act == "b"
    assert Session(make_rules("classic", first_opener="host"), ABC).deal(serials(**PLAIN)).to_act == "a"


@pytest.mark.parametrize(
    ("later", "bid", "opener"),
    [("final-bidder", "9 9", "b"), ("final-bidder", "1 1", "b"), ("winner", "9 9", "c"), ("winner", "1 1", "b")],
)
def test_later_rounds_open_by_the_later_opener_rule(later: str, bid: str, opener: str) -> None:
    session = Session(make_rules("classic", later_opener=later), ABC, rng=FixedRandom())
    session.deal(serials(**PLAIN), "b")
    finish(session, bid)  # b bids; c then a challenge.  "9 9" fails, "1 1" is made.
    assert session.deal(serials(**PLAIN)).to_act == opener


def test_an_explicit_opener_overrides_the_rules() -> None:
    session = Session(make_rules("salomon"), ABC)
    assert session.deal(serials(**PLAIN), "c").to_act == "c"


# -- bookkeeping ---------------------------------------------------------------------------------------
def test_one_round_at_a_time() -> None:
    session = Session(make_rules("classic"), ABC)
    with pytest.raises(ValueError):
        session.apply(Challenge("a"))
    session.deal(serials(**PLAIN), "a")
    with pytest.raises(ValueError):
        session.deal(serials(**PLAIN), "a")


def test_totals_add_up_every_round_and_sum_to_zero() -> None:
    session = Session(make_rules("salomon"), ("a", "b", "c", "d"), rng=random.Random(3))
    rng = random.Random(4)
    for _ in range(20):
        round_ = session.deal()
        while not round_.is_over:
            session.apply(rng.choice(round_.legal_actions()))
    assert len(session.outcomes) == 20
    totals = session.totals()
    assert sum(totals.values()) == 0
    for p in totals:
        assert totals[p] == sum(o.net[p] for o in session.outcomes)


def test_a_session_seats_two_to_twelve() -> None:
    with pytest.raises(ValueError):
        Session(make_rules("classic"), ["a"])
    with pytest.raises(ValueError):
        Session(make_rules("classic"), [f"p{i}" for i in range(13)])




def slips_played_to(rules: Rules, rounds: int) -> Session:
    """A SLIPS session with ``rounds`` rounds played (every bid made) and the next one dealt."""
    session = slips_session(rules)
    for _ in range(rounds):
        session.deal()
        finish(session, "1 0")
    session.deal()
    return session


def test_slips_tenth_round_declared_the_last_hand_doubles_twice_and_no_eleventh_is_named() -> None:
    """SLIPS' tenth round is at double "the stakes it otherwise would have been played for" (the seed): declared
    the last hand with last_hand_double (before its first bid, or during the ninth's bidding) that is twice
    double.  Declared during the tenth's bidding, the last hand is the tenth: SLIPS never deals an eleventh."""
    rules = make_rules("classic", serial_source="slips", first_opener="host", stake=3, last_hand_double=True)
    before_the_bid = slips_played_to(rules, 9)
    tenth = before_the_bid.round
    assert tenth is not None and tenth.stake == 6
    assert before_the_bid.declare_last_hand() == 10 and tenth.stake == 12
    for played, last_stake in ((8, 12), (9, 6)):  # declared during the ninth's bidding, and during the tenth's
        bidding = slips_played_to(rules, played)
        under_way = bidding.round
        assert under_way is not None
        bidding.apply(action(under_way, "a", "1 0"))
        assert bidding.declare_last_hand() == 10  # (during the tenth's it named an eleventh, never dealt)
        finish_round(bidding)
        if played == 8:
            assert bidding.deal().stake == last_stake
        else:
            assert bidding.over and under_way.stake == last_stake
