"""Properties over random legal play (hypothesis): 2-8 players under every preset and a few variants."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.serial import (
    PRESETS,
    Action,
    Bid,
    BidParseError,
    CallCount,
    Challenge,
    Counted,
    GameError,
    MakeBid,
    Outcome,
    RankOrder,
    Round,
    RoundOver,
    Rules,
    Serial,
    Session,
    make_rules,
)
from core.serial.scoring import size_multiplier

from ._helpers import snapshot

RULE_SETS: dict[str, Rules] = {
    **PRESETS,
    "quick+rebid": make_rules("quick", rebid=True),
    "classic+bonuses": make_rules("classic", size=True, sixes=True, hero=True, skunk=True, progressive=True),
    "salomon/aces-high/winner": make_rules("salomon", rank_order="aces-high", later_opener="winner", stake=3),
}
PLAY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

rule_sets = st.sampled_from(sorted(RULE_SETS)).map(RULE_SETS.__getitem__)
serial_numbers = st.integers(0, 99_999_999).map(lambda x: Serial(f"{x:08d}"))


@st.composite
def tables(draw: st.DrawFn, min_players: int = 2, max_players: int = 8) -> tuple[list[str], dict[str, Serial]]:
    n = draw(st.integers(min_players, max_players))
    players = [f"p{i}" for i in range(n)]
    # Small digit alphabets make skunks, heroes and made bids common.
    alphabet = draw(st.sampled_from(["0123456789", "0126", "36", "6"]))
    digits = st.text(alphabet, min_size=8, max_size=8)
    return players, {p: Serial(draw(digits)) for p in players}


def probe(draw: Callable[[st.SearchStrategy[Any]], Any], round_: Round) -> Action:
    """Any action at all, legal or not, by a seated player or a stranger."""
    player = draw(st.sampled_from([*round_.players, "stranger"]))
    kind = draw(st.sampled_from(["bid", "challenge", "count"]))
    if kind == "bid":
        quantity = draw(st.integers(1, round_.max_quantity + 2))
        return MakeBid(player, Bid(quantity, draw(st.integers(0, 9)), round_.rules.rank_order))
    return Challenge(player) if kind == "challenge" else CallCount(player)


def is_legal(round_: Round, action: Action) -> bool:
    if isinstance(action, Challenge) and round_.can_challenge(action.player):
        return True
    return action in round_.legal_actions()


def check_outcome(round_: Round, outcome: Outcome) -> None:
    n, stake, bidder = len(round_.players), round_.stake, outcome.bidder
    assert sum(outcome.net.values()) == 0
    net = dict.fromkeys(round_.players, 0)
    for t in outcome.transfers:
        assert isinstance(t.units, int) and t.units > 0 and t.payer != t.payee
        net[t.payer] -= t.units
        net[t.payee] += t.units
    assert net == dict(outcome.net)
    assert outcome.bid == round_.standing_bid and bidder == round_.bidder
    assert outcome.count == sum(s.count(outcome.bid.digit) for s in round_.serials.values())
    assert outcome.made == (outcome.count >= outcome.bid.quantity)
    if outcome.skunk:
        assert outcome.net[bidder] == (2 * n - 6) * stake * (n - 1)
    elif outcome.made:
        assert outcome.net[bidder] == outcome.multiplier * stake * (n - 1) > 0
    else:
        assert outcome.net[bidder] == -stake * (n - 1)  # never more than one stake per player at risk
    assert outcome.multiplier >= 0 and outcome.next_stake > 0 and outcome.next_opener in round_.players
    assert outcome.challengers and bidder not in outcome.challengers
    if not round_.rules.progressive_stakes:
        assert outcome.next_stake == round_.rules.stake


@PLAY
@given(rules=rule_sets, table=tables(), data=st.data())
def test_random_legal_play_never_crashes_is_zero_sum_and_illegal_actions_change_nothing(
    rules: Rules, table: tuple[list[str], dict[str, Serial]], data: st.DataObject
) -> None:
    players, serials = table
    round_ = Round(rules, players, serials, data.draw(st.sampled_from(players)))
    counted: list[Outcome] = []
    while not round_.is_over:
        # A probe: legal actions pass check(); illegal ones raise a GameError and change nothing.
        action = probe(data.draw, round_)
        before = snapshot(round_)
        if is_legal(round_, action):
            round_.check(action)
        else:
            try:
                round_.apply(action)
            except GameError:
                pass
            else:
                raise AssertionError(f"{action} was applied though it is not legal")
            assert snapshot(round_) == before
        # A move: uniform over the legal actions, plus out-of-turn challenges in first mode.
        legal = round_.legal_actions()
        moves: list[Action] = list(legal[i] for i in range(len(legal)) if not isinstance(legal[i], MakeBid))
        moves += [Challenge(p) for p in players if p != legal.player and round_.can_challenge(p)]
        bids = len(legal.raise_ids)
        pick = data.draw(st.integers(0, bids + len(moves) - 1))
        move = legal[pick] if pick < bids else moves[pick - bids]
        events = round_.apply(move)
        assert round_.history[-1] == move
        counted += [e.outcome for e in events if isinstance(e, Counted)]
    assert len(counted) == 1 and counted[0] is round_.outcome
    check_outcome(round_, counted[0])
    assert len(round_.legal_actions()) == 0
    try:
        late: list[Action] = [Challenge(players[0]), CallCount(players[0])]
        round_.apply(data.draw(st.sampled_from(late)))
    except RoundOver:
        pass
    else:
        raise AssertionError("an action after the count was applied")


@PLAY
@given(table=tables(2, 2), data=st.data())
def test_at_two_players_all_and_first_modes_are_the_same_game(
    table: tuple[list[str], dict[str, Serial]], data: st.DataObject
) -> None:
    players, serials = table
    rebid = data.draw(st.booleans())
    rounds = [Round(make_rules(p, rebid=rebid), players, serials, players[0]) for p in ("classic", "quick")]
    while not rounds[0].is_over:
        legal = rounds[0].legal_actions()
        assert [(a.player, a.raise_ids, a.challenge, a.call_count) for a in map(Round.legal_actions, rounds)] == [
            (legal.player, legal.raise_ids, legal.challenge, legal.call_count)
        ] * 2
        assert [rounds[1].can_challenge(p) for p in players] == [rounds[0].can_challenge(p) for p in players]
        move = legal[data.draw(st.integers(0, len(legal) - 1))]
        assert rounds[0].apply(move) == rounds[1].apply(move)
    assert rounds[1].is_over and rounds[0].outcome == rounds[1].outcome


@settings(max_examples=25, deadline=None)
@given(rules=rule_sets, table=tables(2, 6), slips=st.booleans(), seed=st.integers(0, 2**32), data=st.data())
def test_random_sessions_carry_stakes_and_stay_zero_sum(
    rules: Rules, table: tuple[list[str], dict[str, Serial]], slips: bool, seed: int, data: st.DataObject
) -> None:
    players, _ = table
    if slips:
        rules = make_rules(rules, serial_source="slips")
    session = Session(rules, players, rng=random.Random(seed))
    expected_stake = rules.stake
    for number in range(1, 11):
        round_ = session.deal()
        assert round_.stake == expected_stake * (2 if slips and number == 10 else 1)
        while not round_.is_over:
            legal = round_.legal_actions()
            session.apply(legal[data.draw(st.integers(0, len(legal) - 1))])
        assert round_.outcome is not None
        check_outcome(round_, round_.outcome)
        expected_stake = round_.outcome.next_stake
        if rules.progressive_stakes:
            bid, held = round_.outcome.bid, round_.serials[round_.outcome.bidder].count(round_.outcome.bid.digit)
            m = (size_multiplier(bid.quantity, len(players)) if rules.size_bonus else 1) * (
                2 if rules.sixes_bonus and bid.digit == 6 else 1
            )
            assert expected_stake == rules.stake * (2 if held == 0 else m)
        if number < 10:
            assert session.opener_for_next_round({}) == round_.outcome.next_opener
    assert session.over is slips
    assert sum(session.totals().values()) == 0


# -- bids ------------------------------------------------------------------------------------------------
bids = st.builds(Bid, st.integers(1, 96), st.integers(0, 9), st.sampled_from(list(RankOrder)))


@settings(max_examples=300, deadline=None)
@given(bid=bids)
def test_str_and_parse_round_trip(bid: Bid) -> None:
    assert Bid.parse(str(bid), bid.order) == bid
    assert Bid.parse(str(bid).upper(), bid.order) == bid
    assert Bid.from_id(bid.id, bid.order) == bid


NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen".split()
PLURALS = "zeros ones twos threes fours fives sixes sevens eights nines".split()


@settings(max_examples=300, deadline=None)
@given(
    quantity=st.integers(1, 15),
    digit=st.integers(0, 9),
    word_quantity=st.booleans(),
    digit_form=st.sampled_from(["{d}", "{d}s", "{plural}"]),
    joiner=st.sampled_from([" ", "  ", " x ", "x", " of "]),
    upper=st.booleans(),
)
def test_parse_reads_every_spelling(
    quantity: int, digit: int, word_quantity: bool, digit_form: str, joiner: str, upper: bool
) -> None:
    if joiner == "x" and (word_quantity or digit_form == "{plural}"):
        joiner = " "  # "5x7" is glued digits only
    q = NUMBER_WORDS[quantity] if word_quantity else str(quantity)
    text = q + joiner + digit_form.format(d=digit, plural=PLURALS[digit])
    bid = Bid.parse(text.upper() if upper else text)
    assert (bid.quantity, bid.digit) == (quantity, digit)


@settings(max_examples=500, deadline=None)
@given(text=st.text(max_size=30))
def test_parse_returns_a_bid_or_raises_bid_parse_error(text: str) -> None:
    try:
        bid = Bid.parse(text)
    except BidParseError:
        return
    assert bid.quantity >= 1 and 0 <= bid.digit <= 9


@settings(max_examples=500, deadline=None)
@given(
    order=st.sampled_from(list(RankOrder)),
    q=st.lists(st.integers(1, 96), min_size=3, max_size=3),
    d=st.lists(st.integers(0, 9), min_size=3, max_size=3),
)
def test_the_bid_order_is_total_and_is_quantity_then_rank(order: RankOrder, q: list[int], d: list[int]) -> None:
    a, b, c = (Bid(q[i], d[i], order) for i in range(3))
    key = {x: (x.quantity, order.rank(x.digit)) for x in (a, b, c)}
    assert [a < b, a == b, a > b].count(True) == 1
    assert (a < b) == (key[a] < key[b]) and (a > b) == (key[a] > key[b]) and (a == b) == (key[a] == key[b])
    assert (a <= b) == (not a > b) and (a >= b) == (not a < b)
    if a <= b and b <= c:
        assert a <= c
    assert sorted([a, b, c]) == sorted([a, b, c], key=key.__getitem__)
