"""The Raise… form the serial game hands the platforms (core/serial/asks.py): only bids that beat the
standing one, worded as a bid reads ("1 four", "2 fours")."""

from __future__ import annotations

from typing import Any

from core.serial import Round, make_rules
from core.serial.asks import raise_form

from ._helpers import play, serials

CLASSIC = make_rules("classic")


def new_round() -> Round:
    return Round(CLASSIC, ["a", "b"], serials(a="06742088", b="13579246"), "a")


def test_the_form_words_a_quantity_of_one_in_the_singular() -> None:
    form = raise_form(new_round(), "a", ["a", "b"], CLASSIC.rank_order)
    assert form.refusal is None
    digits = form.fields[1]
    assert dict(digits.options_by["1"])["4"] == "four (4)" and dict(digits.options_by["2"])["4"] == "fours (4)"
    assert form.submit_label({"quantity": "1", "digit": "4"}) == "Bid 1 four"
    assert form.submit_label({"quantity": "3", "digit": "0"}) == "Bid 3 zeros"


def test_the_form_offers_only_bids_above_the_standing_one_and_refuses_out_of_turn() -> None:
    round_ = new_round()
    play(round_, [("a", "2 sevens")])
    form = raise_form(round_, "b", ["a", "b"], CLASSIC.rank_order)
    quantities = [value for value, _ in form.fields[0].options]
    assert quantities[0] == "2" and "1" not in quantities
    assert [d for d, _ in form.fields[1].options_by["2"]] == ["9", "8"]  # above sevens, highest first
    assert raise_form(round_, "a", ["a", "b"], CLASSIC.rank_order).refusal == "It is not your turn: <@b> is to act."


def test_an_action_changed_after_its_check_is_applied_as_it_now_is() -> None:
    """apply() reuses what check() parsed only for the very same values (the table checks, then applies)."""
    import random

    from core.serial.plugin import SERIAL

    match = SERIAL.new_match(CLASSIC, ["a", "b"], host="a")
    match.apply_deal(match.deal(random.Random(1)))
    action: dict[str, Any] = {"player": match.to_act, "bid": [1, 5]}
    match.check(action)
    action["bid"][1] = 6  # the same list, changed
    match.apply(action)
    assert match.live_round is not None and str(match.live_round.standing_bid) == "1 six"


def test_the_form_lists_every_legal_quantity_at_twelve_seats() -> None:
    """It held the first 25 for every platform (what Discord's select holds): Slack's modal, which holds 100, could
    not offer 26 to 96, nor Discord's autocomplete a quantity typed past 25."""
    seats = [f"p{i}" for i in range(12)]
    round_ = Round(CLASSIC, seats, serials(**dict.fromkeys(seats, "06742088")), "p0")
    form = raise_form(round_, "p0", seats, CLASSIC.rank_order)
    assert [value for value, _ in form.fields[0].options] == [str(q) for q in range(1, 97)]
    play(round_, [("p0", "5 nines")])
    form = raise_form(round_, "p1", seats, CLASSIC.rank_order)
    assert [value for value, _ in form.fields[0].options] == [str(q) for q in range(6, 97)]
    assert [d for d, _ in form.fields[1].options_by["96"]] == [str(d) for d in range(9, -1, -1)]
