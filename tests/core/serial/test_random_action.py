"""``Round.random_action`` is uniform over exactly ``legal_actions()``, and applying what it returns
(which ``apply`` takes without re-checking) does exactly what applying the same action does."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from core.serial import (
    Action,
    CallCount,
    Challenge,
    MakeBid,
    NotYourTurn,
    Phase,
    Round,
    RoundOver,
    Rules,
    Serial,
    deal_serial,
    make_rules,
)

from ._helpers import snapshot

RULE_SETS: dict[str, Rules] = {
    "classic": make_rules("classic"),
    "quick": make_rules("quick"),
    "salomon": make_rules("salomon"),
    "quick+rebid/zero-high": make_rules("quick", rebid=True, rank_order="zero-high"),
    "first+rebid/aces-high": make_rules("classic", challenge_mode="first", rebid=True, rank_order="aces-high"),
    "3x3+rebid": make_rules("classic", digits=3, serial_length=3, rebid=True),
    "2x1/aces-high": make_rules("classic", digits=2, serial_length=1, rank_order="aces-high"),
    "5x2+rebid/first": make_rules("classic", digits=5, serial_length=2, rebid=True, challenge_mode="first"),
}


class Scripted:
    """A random source that answers ``randrange`` with a chosen index and records what it was asked."""

    def __init__(self, answer: int) -> None:
        self.answer = answer
        self.asked: list[tuple[int, ...]] = []

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        self.asked.append((start,) if stop is None else (start, stop, step))
        return self.answer


def new_round(rules: Rules, players: int, rng: random.Random) -> Round:
    seats = [f"p{i}" for i in range(players)]
    serials = {p: deal_serial(rng, rules.serial_length, rules.digits) for p in seats}
    return Round(rules, seats, serials, seats[rng.randrange(players)])


def states(rules: Rules, players: int, rng: random.Random) -> list[Round]:
    """Every state one random round passes through, ending with the counted round."""
    round_ = new_round(rules, players, rng)
    seen = [round_.copy()]
    while not round_.is_over:
        round_.apply(rng.choice(round_.legal_actions()))
        seen.append(round_.copy())
    return seen


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_every_draw_maps_to_the_legal_action_at_that_index(name: str) -> None:
    """One ``randrange(len(legal))`` draw, and draw ``i`` is ``legal[i]``: the same set, each once."""
    rng = random.Random(name)
    checked = 0
    for players in (2, 3, 5):
        for _ in range(3):
            for state in states(RULE_SETS[name], players, rng):
                legal = state.legal_actions()
                if state.is_over:
                    with pytest.raises(RoundOver):
                        state.random_action(Scripted(0))
                    continue
                for i in range(len(legal)):
                    source = Scripted(i)
                    assert state.random_action(source) == legal[i]
                    assert source.asked == [(len(legal),)]
                    checked += 1
    assert checked > 100  # not vacuous: the 2×1 format has only a handful of bids


def test_the_same_draw_as_choice_over_the_legal_actions() -> None:
    """With a ``random.Random``, ``random_action`` picks what ``rng.choice(legal_actions())`` picks."""
    for name, rules in RULE_SETS.items():
        for seed in range(10):
            ours, theirs = random.Random(seed), random.Random(seed)
            a = new_round(rules, 3, random.Random(f"{name}{seed}"))
            b = a.copy()
            while not a.is_over:
                x, y = a.random_action(ours), theirs.choice(b.legal_actions())
                assert x == y
                assert a.apply(x) == b.apply(y)
            assert b.is_over and a.outcome == b.outcome


def test_frequencies_are_uniform_on_a_small_state() -> None:
    """2×1 format, two players, after an opening of 1 two (aces high): 1 ace, 2 twos, 2 aces, challenge."""
    rules = RULE_SETS["2x1/aces-high"]
    round_ = Round(rules, ["a", "b"], {"a": Serial("1"), "b": Serial("2")}, "a")
    first = round_.legal_actions()[0]
    assert isinstance(first, MakeBid)
    round_.apply(MakeBid("a", first.bid))
    legal = list(round_.legal_actions())
    assert len(legal) == 4 and isinstance(legal[-1], Challenge)
    rng = random.Random(7)
    draws = 40_000
    seen = Counter(round_.random_action(rng) for _ in range(draws))
    assert set(seen) == set(legal)
    for action in legal:  # each 1/4: 10,000 ± 4 standard deviations (87)
        assert abs(seen[action] - draws / 4) < 350, (action, seen[action])


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_applying_a_random_action_equals_applying_the_same_action_built_anew(name: str) -> None:
    """The unchecked path (the action random_action made) and the checked path agree, event for event."""
    rng = random.Random(f"apply {name}")
    for players in (2, 3, 4):
        for _ in range(10):
            fast = new_round(RULE_SETS[name], players, rng)
            slow = fast.copy()
            while not fast.is_over:
                action = fast.random_action(rng)
                rebuilt: Action
                if isinstance(action, MakeBid):
                    rebuilt = MakeBid(action.player, action.bid)
                elif isinstance(action, Challenge):
                    rebuilt = Challenge(action.player)
                else:
                    rebuilt = CallCount(action.player)
                assert rebuilt is not action and rebuilt == action
                assert fast.apply(action) == slow.apply(rebuilt)
                assert snapshot(fast) == snapshot(slow)
            assert fast.outcome == slow.outcome and slow.outcome is not None
            assert sum(slow.outcome.net.values()) == 0


def test_an_offered_action_is_checked_again_once_the_round_moves_on() -> None:
    rules = make_rules("classic")
    rng = random.Random(3)
    round_ = new_round(rules, 3, rng)
    opener = round_.to_act
    assert opener is not None
    offered = round_.random_action(rng)
    assert isinstance(offered, MakeBid)
    top = round_.legal_actions()[len(round_.legal_actions()) - 1]
    round_.apply(top)  # a different action moves the round on
    before = snapshot(round_)
    with pytest.raises(NotYourTurn):
        round_.apply(offered)
    assert snapshot(round_) == before


def test_an_offered_action_stays_good_in_a_copy_of_the_same_state() -> None:
    rules = make_rules("quick", rebid=True)
    rng = random.Random(11)
    round_ = new_round(rules, 3, rng)
    round_.apply(round_.random_action(rng))
    offered = round_.random_action(rng)
    twin = round_.copy()
    assert round_.apply(offered) == twin.apply(offered)
    assert snapshot(round_) == snapshot(twin)


def test_a_rebid_phase_offers_the_count_and_the_raises_only() -> None:
    rules = make_rules("quick", rebid=True)
    round_ = Round(rules, ["a", "b"], {"a": Serial("11111111"), "b": Serial("22222222")}, "a")
    first = round_.legal_actions()[0]
    assert isinstance(first, MakeBid)
    round_.apply(MakeBid("a", first.bid))
    round_.apply(Challenge("b"))
    assert round_.phase is Phase.REBID
    legal = round_.legal_actions()
    assert round_.random_action(Scripted(len(legal) - 1)) == CallCount("a")
    assert all(isinstance(round_.random_action(Scripted(i)), MakeBid) for i in range(len(legal) - 1))


def test_dealt_serials_are_the_serials_their_digits_and_letters_make() -> None:
    """The full game's dealing builds the Serial directly: the same value, counts and all."""
    rng = random.Random(5)
    for _ in range(2000):
        dealt = deal_serial(rng)
        made = Serial(dealt.digits, dealt.prefix, dealt.suffix)
        assert dealt == made and hash(dealt) == hash(made) and repr(dealt) == repr(made)
        assert dealt.counts == made.counts == tuple(dealt.digits.count(d) for d in "0123456789")
        assert len(dealt.prefix) == 2 and "A" <= dealt.prefix[0] <= "L" and len(dealt.suffix) == 1
        assert "O" not in dealt.prefix + dealt.suffix


class Answers:
    """A random source answering ``randrange`` calls from a list, in order."""

    def __init__(self, *answers: int) -> None:
        self.answers = list(answers)

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        return self.answers.pop(0)


@pytest.mark.parametrize("number", [0, 9_999, 10_000, 12_345_678, 60_006_000, 99_999_999])
def test_dealt_counts_at_the_edges_of_the_halves(number: int) -> None:
    dealt = deal_serial(Answers(number, 7_499))  # the last letters: L, Z, Z
    assert dealt.digits == f"{number:08d}" and (dealt.prefix, dealt.suffix) == ("LZ", "Z")
    assert dealt.counts == tuple(f"{number:08d}".count(d) for d in "0123456789")
