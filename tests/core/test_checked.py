"""check() returns the action checked; apply() takes it as it is while its state stands, and checks a
stale one (or a stored payload) again — for every game behind the seam."""

from __future__ import annotations

import random
from typing import Any

import pytest

from core.errors import NotYourTurn, RoundOver
from core.game import Checked
from core.registry import get_game
from core.serial.game import SerialMatch


@pytest.mark.parametrize("name", ["serial", "cards"])
def test_a_checked_action_applies_and_a_stale_one_is_checked_again(name: str) -> None:
    game = get_game(name)
    match = game.new_match(game.make_rules(None, {}), ["a", "b", "c"], host="a")
    match.apply_deal(match.deal(random.Random(3)))
    first = match.to_act
    assert first is not None
    opening = match.computer_decision(first, game.levels[-1])(random.Random(1))
    checked = match.check(opening)
    assert isinstance(checked, Checked) and checked.action == opening
    twice = match.check(opening)
    match.apply(checked)
    assert match.to_act != first
    with pytest.raises(NotYourTurn):  # checked before the first was applied: the state moved on
        match.apply(twice)


def test_a_serial_checked_bid_is_not_parsed_again() -> None:
    game = get_game("serial")
    match = game.new_match(game.make_rules(None, {}), ["a", "b"], host="a")
    match.apply_deal(match.deal(random.Random(5)))
    who = match.to_act
    assert who is not None
    payload: dict[str, Any] = {"player": who, "bid": [3, 0]}
    checked = match.check(payload)
    payload["bid"][1] = 9  # a later change to the caller's payload is not the action checked
    match.apply(checked)
    assert isinstance(match, SerialMatch)
    assert match.logs[-1]["actions"] == [{"player": who, "bid": [3, 0]}]


@pytest.mark.parametrize(("name", "options"), [("serial", {}), ("serial", {"format": "elimination"}), ("cards", {})])
def test_a_computer_decision_is_refused_for_a_seat_not_to_act(name: str, options: dict[str, str]) -> None:
    """Refused as the decision is taken, under the table's lock, not later in the worker thread; between
    rounds there is nothing to decide."""
    game = get_game(name)
    match = game.new_match(game.make_rules(None, options), ["a", "b", "c"], host="a")
    with pytest.raises(RoundOver):
        match.computer_decision("a", game.levels[0])
    match.apply_deal(match.deal(random.Random(4)))
    first = match.to_act
    assert first is not None
    for other in {"a", "b", "c"} - {first}:
        with pytest.raises(NotYourTurn):
            match.computer_decision(other, game.levels[0])
    match.apply(match.check(match.computer_decision(first, game.levels[0])(random.Random(2))))
    assert match.to_act != first
