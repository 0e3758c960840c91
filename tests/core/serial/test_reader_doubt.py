"""The reader's doubt of an opening bid (``open_floor``), its mixed doubt (``doubt_mix``, ``doubt_floor``) and
its hedged doubt (``doubt_hedge``).

Heads up, a best response opens "two 9s" holding none and challenges what a trusting reader raises to
(the README's "Heads-up"); these dials make the reader doubt an opening, purely or as a mixed strategy.
Off (0, the default) they change nothing.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest

from core.serial import Action, Challenge, MakeBid, Round, SeatView, make_rules, seat_view
from core.serial.bids import Bid
from core.serial.players import Reader, ReaderParams

from ._helpers import play, readings, serials

GREEDY = ReaderParams(bluff_rate=0.0, temperature=0.0)
# p2 holds no 9s (two 4s, two 6s): after "two 9s" it bids on its own pairs when it believes the opening.
TABLE = serials(p1="12345678", p2="74686034")


def view_after(steps: list[tuple[str, str]], preset: str = "classic", opener: str = "p1") -> SeatView:
    round_ = Round(make_rules(preset), ["p1", "p2"], TABLE, opener)
    play(round_, steps)
    to_act = round_.to_act
    assert to_act is not None
    return seat_view(round_, to_act)


def expected(reader: Reader, view: SeatView, player: str, digit: int) -> float:
    key = reader.memo_key(view)
    vec = readings(key)[(player, digit)]
    assert isinstance(vec, tuple)
    return sum(c * x for c, x in enumerate(vec))


def test_the_new_dials_are_off_by_default() -> None:
    p = ReaderParams()
    assert (p.open_floor, p.doubt_mix, p.doubt_floor, p.doubt_hedge) == (0.0, 0.0, 0.0, 0.0)


@pytest.mark.parametrize("preset", ["classic", "salomon"])
def test_open_floor_reads_the_opening_as_a_possible_bluff_and_later_bids_as_before(preset: str) -> None:
    plain, doubting = Reader(GREEDY), Reader(dataclasses.replace(GREEDY, open_floor=0.3))
    opened = view_after([("p1", "2 9")], preset)
    assert expected(plain, opened, "p1", 9) > 1.5  # believed: about the two an opening "wants"
    assert expected(doubting, opened, "p1", 9) < expected(plain, opened, "p1", 9) - 0.4
    # A floor at or below bid_floor is no change at all.
    same = Reader(dataclasses.replace(GREEDY, open_floor=GREEDY.bid_floor))
    assert same.memo_key(opened) == plain.memo_key(opened)
    # A later bid (here p1's raise on 5s after p2 opened) reads the same either way.
    later = view_after([("p2", "2 4"), ("p1", "3 5")], preset, opener="p2")
    assert expected(doubting, later, "p1", 5) == pytest.approx(expected(plain, later, "p1", 5))


def test_a_doubted_bluff_opening_is_challenged_by_a_hand_without_the_digit() -> None:
    opened = view_after([("p1", "2 9")])
    believed = Reader(GREEDY).decide(opened, random.Random(0))
    assert isinstance(believed, MakeBid) and believed.bid.quantity == 3 and believed.bid.digit != 9
    assert Reader(dataclasses.replace(GREEDY, open_floor=0.3)).decide(opened, random.Random(0)) == Challenge("p2")


@pytest.mark.parametrize("mix", [0.25, 0.6])
def test_doubt_mix_plays_the_doubting_reading_that_often(mix: float) -> None:
    """Per decision: the doubting reading with probability ``doubt_mix``, exactly as ``policy`` says."""
    opened = view_after([("p1", "2 9")])
    plain = Reader(GREEDY).decide(opened, random.Random(0))
    mixed = Reader(dataclasses.replace(GREEDY, doubt_mix=mix, doubt_floor=0.3))
    policy = dict(mixed.policy(opened))
    assert policy == {plain: pytest.approx(1 - mix), Challenge("p2"): pytest.approx(mix)}
    draws = Counter(mixed.decide(opened, random.Random(seed)) for seed in range(2000))
    assert set(draws) == set(policy)
    assert abs(draws[Challenge("p2")] / 2000 - mix) < 0.04
    assert mixed.memo_key(opened) != Reader(GREEDY).memo_key(opened)  # both readings are part of the state


def test_doubt_mix_changes_nothing_where_the_reader_opened_itself() -> None:
    """The doubt is of the other's opening: after my own opening both readings are the same player."""
    answered = view_after([("p2", "2 4"), ("p1", "3 5")], opener="p2")
    mixed = Reader(dataclasses.replace(ReaderParams(), doubt_mix=0.5, doubt_floor=0.6))
    plain = Reader(ReaderParams())
    assert mixed.policy(answered) == plain.policy(answered)
    assert mixed.memo_key(answered) == plain.memo_key(answered)
    assert [mixed.decide(answered, random.Random(s)) for s in range(50)] == [
        plain.decide(answered, random.Random(s)) for s in range(50)
    ]


def test_the_explanation_says_so_where_the_doubt_may_play() -> None:
    mixed = Reader(dataclasses.replace(GREEDY, doubt_mix=0.08, doubt_floor=0.3))
    assert "8% of such decisions I read the opening as a likelier bluff" in mixed.explain(view_after([("p1", "2 9")]))
    answered = view_after([("p2", "2 4"), ("p1", "3 5")], opener="p2")  # my own opening: no doubt to mix
    assert "likelier bluff" not in mixed.explain(answered)
    assert "likelier bluff" not in Reader(GREEDY).explain(view_after([("p1", "2 9")]))


@pytest.mark.parametrize(
    ("open_floor", "doubt_floor"), [(0.0, 0.0), (0.0, GREEDY.bid_floor), (0.0, GREEDY.bid_floor / 2), (0.3, 0.3)]
)
def test_a_doubt_that_reads_the_opening_as_the_ordinary_reading_does_draws_nothing(
    open_floor: float, doubt_floor: float
) -> None:
    """``doubt_floor`` at or below the floor the opening is read with anyway is the ordinary reading: the mixture
    is that one player, and it draws no number from the rng for a choice that makes no difference."""
    base = dataclasses.replace(GREEDY, bluff_rate=0.2, open_floor=open_floor)  # the bluffs draw: the rng is used
    plain, mixed = Reader(base), Reader(dataclasses.replace(base, doubt_mix=0.5, doubt_floor=doubt_floor))
    opened = view_after([("p1", "2 9")])
    for seed in range(40):
        rngs = random.Random(seed), random.Random(seed)
        assert mixed.decide(opened, rngs[0]) == plain.decide(opened, rngs[1])
        assert rngs[0].getstate() == rngs[1].getstate()
    assert mixed.policy(opened) == plain.policy(opened) and mixed.memo_key(opened) == plain.memo_key(opened)
    assert "likelier bluff" not in mixed.explain(opened)
    # a floor above it is a different reading, drawn for at every decision after the other's opening
    above = Reader(dataclasses.replace(base, doubt_mix=0.5, doubt_floor=max(open_floor, GREEDY.bid_floor) + 0.1))
    rngs = random.Random(0), random.Random(0)
    above.decide(opened, rngs[0]), plain.decide(opened, rngs[1])
    assert rngs[0].getstate() != rngs[1].getstate()


# p2 holds one 9 and two 4s: after "two 9s", "three 9s" (on one 9) and "three 4s" (on two 4s) are near each
# other if the opening is believed, far apart if it may be a bluff.
ONE_NINE = serials(p1="12345678", p2="74686934")


def answering_one_nine() -> SeatView:
    round_ = Round(make_rules("classic"), ["p1", "p2"], ONE_NINE, "p1")
    play(round_, [("p1", "2 9")])
    return seat_view(round_, "p2")


def test_doubt_hedge_answers_an_opening_on_a_digit_it_holds_instead_of_one_copy_of_the_claimed_one() -> None:
    view = answering_one_nine()
    plain = Reader(dataclasses.replace(GREEDY, doubt_floor=0.3))
    assert plain.decide(view, random.Random(0)) == MakeBid("p2", Bid(3, 9))
    hedged = Reader(dataclasses.replace(GREEDY, doubt_floor=0.3, doubt_hedge=0.3))
    assert hedged.decide(view, random.Random(0)) == MakeBid("p2", Bid(3, 4))
    # A pure strategy: no draw decides it, and policy says so.
    assert hedged.policy(view) == [(MakeBid("p2", Bid(3, 4)), 1.0)]
    assert {hedged.decide(view, random.Random(seed)) for seed in range(20)} == {MakeBid("p2", Bid(3, 4))}
    # A small hedge does not outweigh the believed opening here.
    small = Reader(dataclasses.replace(GREEDY, doubt_floor=0.3, doubt_hedge=0.05))
    assert small.decide(view, random.Random(0)) == MakeBid("p2", Bid(3, 9))


def test_doubt_hedge_ranks_the_bids_by_the_blend_of_the_two_readings_and_leaves_the_challenge_alone() -> None:
    view = answering_one_nine()
    plain = Reader(dataclasses.replace(GREEDY, doubt_floor=0.3))
    doubting = Reader(dataclasses.replace(GREEDY, open_floor=0.3))
    hedged = Reader(dataclasses.replace(GREEDY, doubt_floor=0.3, doubt_hedge=0.25))
    ordinary = {o.action: o.value for o in plain._options(view, None)}
    doubted = {o.action: o.value for o in doubting._options(view, None)}
    ranked = {o.action: o.value for o in hedged._options(view, hedged._doubter(view))}
    assert set(ranked) == set(ordinary) == set(doubted)
    bids = [a for a in ranked if isinstance(a, MakeBid)]
    blend = {a: 0.75 * ordinary[a] + 0.25 * doubted[a] for a in bids}
    shift = max(ordinary[a] for a in bids) - max(blend.values())
    for action in bids:
        assert ranked[action] == pytest.approx(blend[action] + shift)
    # The best bid keeps the ordinary best bid's worth, and the challenge its own value: bidding or
    # challenging is decided as before, only which bid changes.
    assert max(ranked[a] for a in bids) == pytest.approx(max(ordinary[a] for a in bids))
    assert ranked[Challenge("p2")] == ordinary[Challenge("p2")]
    # The doubt costs "three 9s" (it needs the opener's two 9s) and not "three 4s" (it needs one 4 of theirs).
    nines, fours = MakeBid("p2", Bid(3, 9)), MakeBid("p2", Bid(3, 4))
    assert doubted[nines] < ordinary[nines] - 0.1
    assert doubted[fours] == pytest.approx(ordinary[fours], abs=0.02)
    assert "as if the opening were a likelier bluff" in hedged.explain(view)
    assert "likelier bluff" not in plain.explain(view)


def test_doubt_hedge_does_not_turn_a_challenge_into_a_bid_or_back() -> None:
    """Where the ordinary reading challenges (a bluffed-looking "five 9s" with no 9 in hand), the hedge does
    too, however large; where it bids, the hedge bids."""
    no_nine = view_after([("p1", "5 9")])
    for hedge in (0.5, 1.0):
        hedged = Reader(dataclasses.replace(GREEDY, doubt_floor=0.3, doubt_hedge=hedge))
        assert Reader(GREEDY).decide(no_nine, random.Random(0)) == Challenge("p2")
        assert hedged.decide(no_nine, random.Random(0)) == Challenge("p2")
        assert isinstance(hedged.decide(answering_one_nine(), random.Random(0)), MakeBid)


@pytest.mark.parametrize(
    ("steps", "opener"),
    [
        ([("p2", "2 4"), ("p1", "3 5")], "p2"),  # my own opening, answered: no doubt to hedge
        ([("p1", "2 9"), ("p2", "3 4"), ("p1", "4 9")], "p1"),  # past the answer to the other's opening
    ],
)
def test_doubt_hedge_changes_nothing_but_the_answer_to_the_others_opening(
    steps: list[tuple[str, str]], opener: str
) -> None:
    view = view_after(steps, opener=opener)
    hedged = Reader(dataclasses.replace(ReaderParams(), doubt_hedge=0.5, doubt_floor=0.6))
    plain = Reader(ReaderParams())
    assert hedged.policy(view) == plain.policy(view)
    assert [hedged.decide(view, random.Random(s)) for s in range(50)] == [
        plain.decide(view, random.Random(s)) for s in range(50)
    ]
    assert "as if the opening were a likelier bluff" not in hedged.explain(view)


def test_doubt_hedge_and_doubt_mix_together_mix_the_hedged_reading_with_the_doubting_one() -> None:
    view = answering_one_nine()
    both = Reader(dataclasses.replace(GREEDY, doubt_floor=0.3, doubt_hedge=0.3, doubt_mix=0.2))
    doubting = Reader(dataclasses.replace(GREEDY, open_floor=0.3)).decide(view, random.Random(0))
    expected: dict[Action, float] = {MakeBid("p2", Bid(3, 4)): 0.8}
    expected[doubting] = expected.get(doubting, 0.0) + 0.2
    policy = dict(both.policy(view))
    assert policy == {action: pytest.approx(p) for action, p in expected.items()}
    draws = Counter(both.decide(view, random.Random(seed)) for seed in range(1000))
    assert set(draws) == set(policy)
