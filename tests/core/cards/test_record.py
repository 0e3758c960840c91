"""Records: the seed's worked example replays exactly; verify; malformed and illegal records."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from core.cards.cards import shuffled_deck
from core.cards.match import CardsEngine
from core.cards.record import commitment, replay
from core.cards.round import Challenge, Declare, Discard, Take
from core.cards.rules import make_rules
from core.records import IllegalRecordedAction, RecordError

from ._helpers import play_game, seed_record


def test_the_seeds_worked_example_replays_exactly() -> None:
    result = replay(seed_record())
    (round_,) = result["rounds"]
    assert round_ == {
        "complete": True,
        "active": "dirk",
        "challenger": "ellie",
        "declared": {"type": "three-of-a-kind", "ranks": []},
        "declared_text": "three of a kind",
        "floor": ["2C", "2D", "2H", "4S", "3C"],
        "hand": ["7C", "7D", "QH", "6S", "2H"],
        "value": {"type": "pair", "ranks": ["7", "Q", "6", "2"]},
        "holds": False,
        "out": "dirk",
        "winner": "ellie",
        "next_opener": "ellie",
    }
    assert result["winner"] is None
    assert result["net"] == dict.fromkeys(["annie", "bart", "chrissie", "dirk", "ellie"], 0)


def test_ten_may_be_written_10() -> None:
    record = seed_record()
    deck = record["rounds"][0]["deck"]
    record["rounds"][0]["deck"] = ["10" + c[1] if c[0] == "T" else c for c in deck]
    assert replay(record)["rounds"][0]["out"] == "dirk"


def _with_second_round(opener: str) -> dict[str, Any]:
    record = seed_record()
    deck = [str(c) for c in shuffled_deck(random.Random(5))]
    record["rounds"].append({"deck": deck, "opener": opener, "actions": [{"player": opener, "declare": "pair"}]})
    return record


def test_a_later_round_is_opened_by_the_challenges_winner() -> None:
    result = replay(_with_second_round("ellie"))
    assert result["rounds"][1] == {"complete": False, "active": "ellie", "to_act": "annie"}
    with pytest.raises(IllegalRecordedAction) as info:
        replay(_with_second_round("annie"))
    assert (info.value.round, info.value.action) == (1, None)
    assert "ellie" in info.value.error


@pytest.mark.parametrize(
    ("index", "action", "words"),
    [
        (3, {"player": "bart", "declare": "threes over twos"}, "does not beat"),
        (1, {"player": "chrissie", "take": True}, "not your turn"),
        (2, {"player": "bart", "discard": ["AS"]}, "does not hold"),
        (0, {"player": "annie", "declare": "sevens over sevens"}, "no hand"),
        (0, {"player": "annie", "discard": ["7C"]}, "nobody discards"),
        (1, {"player": "bart", "pass": True}, "passing is not allowed"),
    ],
)
def test_an_illegal_action_names_its_round_and_index(index: int, action: dict[str, Any], words: str) -> None:
    record = seed_record()
    record["rounds"][0]["actions"][index] = action
    with pytest.raises(IllegalRecordedAction) as info:
        replay(record)
    assert info.value.to_dict()["round"] == 0 and info.value.action == index
    assert words in info.value.error


@pytest.mark.parametrize(
    "mutate",
    [
        lambda r: r.update(players="annie"),
        lambda r: r.update(players=["annie"]),
        lambda r: r.update(rounds={}),
        lambda r: r.update(game="serial"),
        lambda r: r["rounds"][0].update(deck=["7X"]),
        lambda r: r["rounds"][0].pop("opener"),
        lambda r: r["rounds"][0]["actions"].insert(0, "annie declares"),
        lambda r: r.update(rules={"jokers": 3}),
    ],
)
def test_malformed_records_are_record_errors(mutate: Any) -> None:
    record = seed_record()
    mutate(record)
    with pytest.raises(RecordError):
        replay(record)


def test_a_deck_that_is_not_a_full_deck_is_refused() -> None:
    record = seed_record()
    record["rounds"][0]["deck"] = [*record["rounds"][0]["deck"][:-1], "7C"]
    with pytest.raises(IllegalRecordedAction):
        replay(record)


def _sealed(seed: int = 3, **options: Any) -> dict[str, Any]:
    match = play_game({"a": "hard", "b": "normal", "c": "easy"}, make_rules("standard", options), seed)
    return match.record()


def test_verify_checks_each_rounds_commitment() -> None:
    record = _sealed()
    for spec in record["rounds"]:
        spec["commitment"] = commitment(spec["deck"], spec["salt"])
    assert replay(record, verify=True) == replay(record)
    tampered = copy.deepcopy(record)
    deck = tampered["rounds"][-1]["deck"]
    deck[0], deck[1] = deck[1], deck[0]
    with pytest.raises(IllegalRecordedAction) as info:
        replay(tampered, verify=True)
    assert info.value.round == len(record["rounds"]) - 1 and "commitment" in info.value.error
    unsealed = copy.deepcopy(record)
    del unsealed["rounds"][0]["commitment"]
    with pytest.raises(IllegalRecordedAction):
        replay(unsealed, verify=True)


def _record_with_reshuffle() -> dict[str, Any]:
    """Two players who throw away the whole hand every turn, until the deck has run out twice."""
    match = CardsEngine(make_rules("standard"), ["a", "b"])
    deck = shuffled_deck(random.Random(11))
    round_ = match.start_round(deck, "a", salt="pepper")
    match.apply(Declare("a", round_.least_raise()))
    who = "b"
    while len(round_.reshuffles) < 2:
        match.apply(Take(who))
        match.apply(Discard(who, tuple(round_.hand)))
        match.apply(Declare(who, round_.least_raise()))
        who = "a" if who == "b" else "b"
    match.apply(Challenge(who))
    record = match.record()
    for spec in record["rounds"]:
        spec["commitment"] = commitment(spec["deck"], spec["salt"])
    return record


def test_reshuffles_follow_from_the_salt_and_verify_refuses_others() -> None:
    record = _record_with_reshuffle()
    expected = replay(record)
    assert replay(record, verify=True) == expected
    without_salt = copy.deepcopy(record)
    for spec in without_salt["rounds"]:
        del spec["salt"], spec["commitment"]
    assert replay(without_salt) == expected  # the listed reshuffles suffice
    forged = copy.deepcopy(record)
    i = next(k for k, spec in enumerate(forged["rounds"]) if spec["reshuffles"])
    first = forged["rounds"][i]["reshuffles"][0]
    first.reverse()
    with pytest.raises(IllegalRecordedAction) as info:
        replay(forged, verify=True)
    assert info.value.round == i and "salt" in info.value.error
    neither = copy.deepcopy(without_salt)
    neither["rounds"][i]["reshuffles"] = []
    with pytest.raises(IllegalRecordedAction):
        replay(neither)
    # the salt makes them, but the record must list each (it verified with its list emptied)
    emptied = copy.deepcopy(record)
    emptied["rounds"][i]["reshuffles"] = []
    assert replay(emptied) == expected  # replay derives them from the salt
    with pytest.raises(IllegalRecordedAction) as info:
        replay(emptied, verify=True)
    assert info.value.round == i and "record lists 0" in info.value.error


def test_a_finished_game_has_a_winner_and_a_zero_sum_ledger() -> None:
    record = _sealed(seed=9, stake=3)
    result = replay(record)
    assert result["winner"] in record["players"]
    assert sum(result["net"].values()) == 0
    assert result["net"][result["winner"]] == 3 * (len(record["players"]) - 1)


@pytest.mark.parametrize(("payload", "shown"), [
    ({"player": "a", "discard": ["9S", 3]}, 'not ["9S", 3]'),
    ({"player": "a", "discard": None}, "not null"),
    ({"player": "a", "take": 1}, '{"player": "a", "take": 1}'),
    ({"player": "a", "challenge": False}, '"challenge": false'),
])
def test_a_bad_action_in_a_record_is_quoted_as_the_json_it_was(payload: dict[str, object], shown: str) -> None:
    """A record is JSON: its bad values were quoted as Python ("not ['9S', 3]", "None", "False")."""
    from core.cards.match import action_from_json
    from core.errors import ActionParseError

    with pytest.raises(ActionParseError) as info:
        action_from_json(payload)
    assert shown in str(info.value), str(info.value)
