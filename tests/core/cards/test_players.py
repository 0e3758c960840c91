"""Computer players: hard beats random clearly; decisions are legal and deterministic given the seed."""

from __future__ import annotations

import random

from core.cards.cards import parse_cards
from core.cards.declarations import Declaration
from core.cards.hands import evaluate
from core.cards.players import decide, explain, view_of
from core.cards.round import Declare, Discard, Round, Take
from core.cards.rules import make_rules

from ._helpers import play_game, seed_deck


def test_hard_beats_random_by_a_clear_margin() -> None:
    wins = 0
    for seed in range(30):
        levels = {"h": "hard", "r": "random"} if seed % 2 else {"r": "random", "h": "hard"}
        wins += play_game(levels, make_rules("standard"), seed).winner == "h"
    assert wins >= 24, wins


def test_hard_beats_random_with_jokers_and_passes_at_a_bigger_table() -> None:
    wins = 0
    for seed in range(12):
        levels = {"r1": "random", "h": "hard", "r2": "random"}
        wins += play_game(levels, make_rules("wild"), seed).winner == "h"
    assert wins >= 8, wins  # a random seat would win about 4 of 12


def test_decisions_are_deterministic_given_the_seed() -> None:
    levels = {"a": "hard", "b": "normal", "c": "easy", "d": "random"}
    one = play_game(levels, make_rules("wild"), 5).record()
    two = play_game(levels, make_rules("wild"), 5).record()
    assert one == two
    assert one != play_game(levels, make_rules("wild"), 6).record()


def test_every_level_makes_only_legal_moves() -> None:
    for level in ("random", "easy", "normal", "hard"):
        rng = random.Random(level)
        r = Round(["a", "b", "c"], parse_cards(seed_deck()), "a")
        for _ in range(30):
            if r.is_over:
                break
            who = r.to_act
            assert who is not None
            action = decide(view_of(r, who), level, rng)
            r.check(action)
            r.apply(action)


def test_a_player_sees_only_its_own_hands() -> None:
    r = Round(["a", "b", "c"], parse_cards(seed_deck()), "a")
    r.apply(Declare("a", Declaration.parse("two pair")))
    r.apply(Take("b"))
    view_b = view_of(r, "b")
    assert view_b.hand == tuple(r.hand) and view_b.may_discard
    view_c = view_of(r, "c")
    assert view_c.hand is None
    assert view_c.steps[0][3] is None  # a's hand is a's alone
    assert view_of(r, "a").steps[0][3] == tuple(parse_cards("7C 7D 3H 3S JD"))


def test_the_hard_player_tells_the_truth_when_it_can() -> None:
    r = Round(["a", "b"], parse_cards(seed_deck()), "a")
    action = decide(view_of(r, "a"), "hard", random.Random(1))
    assert isinstance(action, Declare)
    assert action.declaration.held_by(evaluate(r.hand))


def test_the_hard_player_discards_toward_a_higher_hand() -> None:
    r = Round(["a", "b"], parse_cards(seed_deck()), "a")
    r.apply(Declare("a", Declaration.parse("sevens over threes with a jack kicker")))
    r.apply(Take("b"))
    action = decide(view_of(r, "b"), "hard", random.Random(2))
    assert isinstance(action, Discard)
    kept = [c for c in r.hand if c not in action.cards]
    assert {str(c) for c in kept} >= {"7C", "7D"}  # keeps the high pair


def test_explain_speaks_to_the_player() -> None:
    r = Round(["a", "b"], parse_cards(seed_deck()), "a")
    text = explain(view_of(r, "a"))
    assert text.startswith("You hold 7♣ 7♦ 3♥ 3♠ J♦") and "You could declare two pair, sevens over threes" in text
    r.apply(Declare("a", Declaration.parse("four aces")))
    hint = explain(view_of(r, "b"))
    assert hint.startswith("You could challenge") and "<@a>'s four aces" in hint and "looks true about" in hint
    assert explain(view_of(r, "a")).startswith("It is not your turn")
    top = Round(["a", "b"], parse_cards(seed_deck()), "a")
    top.apply(Declare("a", Declaration.parse("royal flush")))
    assert explain(view_of(top, "b")).startswith("Nothing can beat <@a>'s royal flush")
