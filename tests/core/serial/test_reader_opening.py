"""The reader's mixed opening (``open_one``, ``open_low``, ``open_high``) and its mixed challenge of a raise on its
own opening's digit (``answer_challenge``).

Heads up, ``hard``'s opening tells its count (it opens its largest holding, all of it), and a best response
answering it raises on that digit knowing the total (the README's "Mixing the opening").  These dials make the
opening (or the answer to that raise) a mixed strategy whose ``policy`` is exact.  Off (0, the default) they
change nothing.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from typing import Any

import pytest

from core.serial import Action, Challenge, MakeBid, Round, SeatView, make_rules, seat_view
from core.serial.bids import Bid
from core.serial.players import Reader, ReaderParams, get_strategy
from core.serial.players.base import policy_of

from ._helpers import play, serials

GREEDY = ReaderParams(bluff_rate=0.0, temperature=0.0)
# p1 holds three 4s, two 7s and one 1, 3 and 9: greedy, it opens "three 4s".
TABLE = serials(p1="44471739", p2="12305685")
HELD = {1, 3, 4, 7, 9}


def view_after(steps: list[tuple[str, str]], opener: str = "p1") -> SeatView:
    round_ = Round(make_rules("classic"), ["p1", "p2"], TABLE, opener)
    play(round_, steps)
    to_act = round_.to_act
    assert to_act is not None
    return seat_view(round_, to_act)


def bid(player: str, quantity: int, digit: int) -> MakeBid:
    return MakeBid(player, Bid(quantity, digit))


def assert_draws_its_policy(reader: Reader, view: SeatView, n: int = 4000) -> dict[Action, float]:
    """``decide`` over ``n`` seeds draws from ``policy``: it sums to 1, nothing else is drawn, and each action's
    frequency is within 4 standard errors of its probability (plus 3 draws' slack: the softmax's rare actions, at
    p ≈ 1e-6, have a normal bound of 0).  Returns the policy."""
    policy = dict(reader.policy(view))
    assert sum(policy.values()) == pytest.approx(1.0)
    draws = Counter(reader.decide(view, random.Random(seed)) for seed in range(n))
    assert set(draws) <= set(policy)
    for action, p in policy.items():
        assert abs(draws[action] / n - p) <= 4 * (p * (1 - p) / n) ** 0.5 + 3 / n, (action, draws[action] / n, p)
    return policy


def assert_plays_alike(mixed: Reader, plain: Reader, view: SeatView) -> None:
    """Same policy, same decisions and the same draws from the rng: the dial changes nothing at this decision."""
    assert mixed.policy(view) == plain.policy(view)
    for seed in range(40):
        rngs = random.Random(seed), random.Random(seed)
        assert mixed.decide(view, rngs[0]) == plain.decide(view, rngs[1])
        assert rngs[0].getstate() == rngs[1].getstate()


def test_the_new_dials_are_off_by_default() -> None:
    p = ReaderParams()
    assert (p.open_one, p.open_low, p.open_high, p.answer_challenge) == (0.0, 0.0, 0.0, 0.0)
    assert not p.mixes_opening


def test_the_greedy_opening_is_all_of_its_largest_holding() -> None:
    assert Reader(GREEDY).policy(view_after([])) == [(bid("p1", 3, 4), 1.0)]


@pytest.mark.parametrize(
    ("dials", "expected"),
    [
        ({"open_one": 0.25}, {bid("p1", 3, 4): 0.75, **{bid("p1", 1, d): 0.05 for d in HELD}}),
        ({"open_low": 0.3}, {bid("p1", 3, 4): 0.7, bid("p1", 2, 4): 0.3}),
        ({"open_high": 0.2}, {bid("p1", 3, 4): 0.8, bid("p1", 4, 4): 0.2}),
        (
            {"open_one": 0.2, "open_low": 0.1, "open_high": 0.1},
            {
                bid("p1", 3, 4): 0.6,
                bid("p1", 2, 4): 0.1,
                bid("p1", 4, 4): 0.1,
                **{bid("p1", 1, d): 0.04 for d in HELD},
            },
        ),
    ],
)
def test_the_mixed_opening_plays_its_policy_exactly(dials: dict[str, Any], expected: dict[MakeBid, float]) -> None:
    """``open_one``: one copy of a digit it holds, each alike; ``open_low`` / ``open_high``: the chosen opening one
    copy lower / higher on its digit.  ``policy`` is the distribution ``decide`` draws from."""
    policy = assert_draws_its_policy(Reader(dataclasses.replace(GREEDY, **dials)), view_after([]))
    assert policy == {a: pytest.approx(p) for a, p in expected.items()}


def test_the_mixed_opening_keeps_bluffs_and_softmax_exact() -> None:
    """With the trained player's bluffs and softmax on, the opening's policy still sums to one and is what it draws."""
    mixed = Reader(dataclasses.replace(ReaderParams(bluff_rate=0.3, bluff_margin=0.6, temperature=0.05), open_one=0.3))
    assert_draws_its_policy(mixed, view_after([]))


@pytest.mark.parametrize(
    ("steps", "opener"),
    [([("p2", "2 5")], "p2"), ([("p1", "3 4"), ("p2", "4 6")], "p1"), ([("p2", "2 5"), ("p1", "3 5")], "p2")],
)
def test_the_mixed_opening_changes_no_other_decision_and_draws_nothing_there(
    steps: list[tuple[str, str]], opener: str
) -> None:
    base = dataclasses.replace(GREEDY, bluff_rate=0.2)  # the bluffs draw: the rng is used
    mixed = Reader(dataclasses.replace(base, open_one=0.3, open_low=0.2, open_high=0.1))
    assert_plays_alike(mixed, Reader(base), view_after(steps, opener))


def test_answer_challenge_replaces_that_share_of_a_re_raise_on_its_own_opening_digit() -> None:
    """After "three 4s" and the other's "four 4s", a greedy p1 re-raises its 4s; with ``answer_challenge`` it
    challenges instead that often."""
    view = view_after([("p1", "3 4"), ("p2", "4 4")])
    plain = dict(Reader(GREEDY).policy(view))
    assert len(plain) == 1
    (re_raise,) = plain
    assert isinstance(re_raise, MakeBid) and re_raise.bid.digit == 4
    mixed = Reader(dataclasses.replace(GREEDY, answer_challenge=0.4))
    policy = dict(mixed.policy(view))
    assert policy == {re_raise: pytest.approx(0.6), Challenge("p1"): pytest.approx(0.4)}
    draws = Counter(mixed.decide(view, random.Random(seed)) for seed in range(2000))
    assert set(draws) == set(policy)
    assert abs(draws[Challenge("p1")] / 2000 - 0.4) < 0.04
    assert mixed.memo_key(view) != Reader(GREEDY).memo_key(view)  # the mixture is part of the state


@pytest.mark.parametrize(
    ("steps", "opener"),
    [
        ([("p1", "3 4"), ("p2", "3 6")], "p1"),  # the other answered on another digit
        ([("p2", "2 4"), ("p1", "3 4"), ("p2", "4 4")], "p2"),  # the other opened
        ([("p1", "3 4"), ("p2", "4 4"), ("p1", "5 4"), ("p2", "6 4")], "p1"),  # a later raise
    ],
)
def test_answer_challenge_changes_nothing_elsewhere(steps: list[tuple[str, str]], opener: str) -> None:
    base = dataclasses.replace(GREEDY, bluff_rate=0.2)
    mixed, plain = Reader(dataclasses.replace(base, answer_challenge=0.5)), Reader(base)
    view = view_after(steps, opener)
    assert mixed.memo_key(view) == plain.memo_key(view)
    assert_plays_alike(mixed, plain, view)


def test_answer_challenge_leaves_a_switch_to_another_digit_alone() -> None:
    """Holding two 7s besides the 4s, p1 answers "four 4s" on another digit or challenges: the dial moves no such
    mass (it only replaces re-raises of the opening's digit)."""
    view = view_after([("p1", "3 4"), ("p2", "4 4")])
    for params in (GREEDY, ReaderParams()):
        plain = dict(Reader(params).policy(view))
        mixed = dict(Reader(dataclasses.replace(params, answer_challenge=0.5)).policy(view))
        for action, p in plain.items():
            if not (isinstance(action, MakeBid) and action.bid.digit == 4) and not isinstance(action, Challenge):
                assert mixed[action] == pytest.approx(p)
        assert sum(mixed.values()) == pytest.approx(1.0)


def test_the_explanation_says_so_where_the_mixtures_may_play() -> None:
    opening = view_after([])
    assert "my opening does not tell my count" in Reader(dataclasses.replace(GREEDY, open_one=0.3)).explain(opening)
    assert "my opening does not tell my count" not in Reader(GREEDY).explain(opening)
    raised = view_after([("p1", "3 4"), ("p2", "4 4")])
    assert "40% of the time I challenge" in Reader(dataclasses.replace(GREEDY, answer_challenge=0.4)).explain(raised)
    assert "challenge, so that" not in Reader(GREEDY).explain(raised)


def test_the_explanation_says_what_the_opening_plays_with_only_the_dials_that_are_on() -> None:
    """With ``open_one`` at 1 (heads-up classic ``hard``) the best bid is never made: the hint must not say it is;
    it names only the dials that are on, with their shares."""
    opening = view_after([])
    always = Reader(dataclasses.replace(GREEDY, open_one=1.0))
    assert dict(always.policy(opening)).get(bid("p1", 3, 4), 0.0) == 0.0
    text = always.explain(opening)
    assert "So I bid" not in text and "one copy of a digit I hold" in text
    assert "fewer" not in text and "more" not in text and "% of the time" not in text
    for digit in ("1 one", "1 three", "1 four", "1 seven", "1 nine"):  # the holder's own hint: its digits named
        assert digit in text
    assert "1 two" not in text
    low = Reader(dataclasses.replace(GREEDY, open_low=0.3)).explain(opening)
    assert "So I bid 3 fours. Rather than that, I open a copy fewer (2 fours) 30% of the time" in low
    assert "more" not in low and "one copy of a digit" not in low
    split = Reader(dataclasses.replace(GREEDY, open_one=0.5, open_high=0.5)).explain(opening)
    assert "So I bid" not in split and "50% of the time and open a copy more (4 fours) 50% of the time" in split
    assert "fewer" not in split
    mixed = Reader(dataclasses.replace(GREEDY, open_one=0.2, open_low=0.1)).explain(opening)
    assert "So I bid 3 fours." in mixed and "20% of the time" in mixed and "10% of the time" in mixed


def test_the_shipped_heads_up_hard_explains_its_one_copy_opening() -> None:
    hard = get_strategy("hard")
    view = view_after([])
    assert dict(policy_of(hard, view)).get(bid("p1", 3, 4), 0.0) == 0.0  # it never opens its count here
    text = hard.explain(view)
    assert "one copy of a digit I hold" in text and "So I bid" not in text and "fewer or more" not in text


@pytest.mark.parametrize(
    "dials",
    [
        {"shade": 0.5, "open_low": 0.5},
        {"shade": 0.3, "open_one": 0.2, "open_high": 0.3},
        {"shade": 0.4, "open_low": 0.2, "bluff_rate": 0.2, "temperature": 0.05},
    ],
)
def test_shade_and_the_mixed_opening_draw_what_the_policy_says(dials: dict[str, Any]) -> None:
    """``shade`` lowers the chosen opening, then the opening's mixture moves the shaded bid: ``decide`` draws from
    exactly ``policy`` (each action's frequency within 4 standard errors of its probability).  Before the fix
    ``decide`` returned the shaded bid unmixed: with shade and open_low at 0.5 it drew "1 four" never, not ¼."""
    assert_draws_its_policy(Reader(dataclasses.replace(GREEDY, **dials)), view_after([]), n=6000)


def test_shade_then_open_low_policy() -> None:
    """Shaded half the time to "two 4s", then a copy lower half the time: 3 fours ¼, 2 fours ½, 1 four ¼."""
    policy = dict(Reader(dataclasses.replace(GREEDY, shade=0.5, open_low=0.5)).policy(view_after([])))
    assert policy == {
        bid("p1", 3, 4): pytest.approx(0.25),
        bid("p1", 2, 4): pytest.approx(0.5),
        bid("p1", 1, 4): pytest.approx(0.25),
    }


@pytest.mark.parametrize(
    ("dials", "named"),
    [
        ({"open_one": 0.7, "open_low": 0.6}, "open_one + open_low + open_high"),
        ({"open_one": 0.4, "open_low": 0.4, "open_high": 0.4}, "open_one + open_low + open_high"),
        ({"open_one": 1.5}, "open_one"),
        ({"open_low": -0.1}, "open_low"),
        ({"open_high": float("nan")}, "open_high"),
        ({"answer_challenge": 1.2}, "answer_challenge"),
    ],
)
def test_shares_out_of_range_are_refused(dials: dict[str, Any], named: str) -> None:
    with pytest.raises(ValueError, match=named.replace("+", r"\+")):
        ReaderParams(**dials)


@pytest.mark.parametrize(
    "dials", [{"open_one": 0.7, "open_low": 0.3}, {"open_one": 0.1, "open_low": 0.2, "open_high": 0.7}]
)
def test_shares_summing_to_one_leave_no_mass_and_list_no_zero(dials: dict[str, Any]) -> None:
    """At exactly 1 the chosen opening keeps nothing (not a float's error), and policy lists only what it plays."""
    policy = Reader(dataclasses.replace(GREEDY, **dials)).policy(view_after([]))
    assert all(p > 0 for _, p in policy)
    assert bid("p1", 3, 4) not in dict(policy)
    assert sum(p for _, p in policy) == pytest.approx(1.0)
