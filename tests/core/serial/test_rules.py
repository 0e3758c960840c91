"""Rules: one frozen value holding every option, three presets, and option-by-option overrides."""

from __future__ import annotations

import dataclasses

import pytest

from core.serial import (
    PRESETS,
    ChallengeMode,
    FirstOpener,
    LaterOpener,
    RankOrder,
    Rules,
    RulesError,
    SerialSource,
    make_rules,
)

# One non-default value per option: overriding it must change exactly that option.
OVERRIDES: dict[str, object] = {
    "rank_order": RankOrder.ACES_HIGH,
    "challenge_mode": ChallengeMode.FIRST,
    "rebid": True,
    "size_bonus": True,
    "sixes_bonus": True,
    "hero_bonus": True,
    "skunk": True,
    "progressive_stakes": True,
    "last_hand_double": True,
    "first_opener": FirstOpener.HOST,
    "later_opener": LaterOpener.WINNER,
    "serial_source": SerialSource.SLIPS,
    "stake": 5,
    "digits": 3,
    "serial_length": 3,
}


def test_every_option_is_a_field_of_rules() -> None:
    # ``format`` is refused beside SLIPS and last_hand_double (all overridden above): test_elimination tests it
    assert {f.name for f in dataclasses.fields(Rules)} == set(OVERRIDES) | {"preset", "format"}


def test_classic_preset_is_zero_low_all_around_no_rebid_no_bonuses() -> None:
    classic = make_rules("classic")
    assert classic.rank_order is RankOrder.ZERO_LOW
    assert classic.challenge_mode is ChallengeMode.ALL
    assert not classic.rebid
    assert not (classic.size_bonus or classic.sixes_bonus or classic.hero_bonus or classic.skunk)
    assert not classic.progressive_stakes
    assert classic.serial_source is SerialSource.FRESH
    assert classic.stake == 1
    assert classic == Rules()


def test_quick_preset_is_classic_with_first_challenge_mode() -> None:
    quick = make_rules("quick")
    assert quick.challenge_mode is ChallengeMode.FIRST
    assert dataclasses.replace(quick, challenge_mode=ChallengeMode.ALL, preset="classic") == make_rules("classic")


def test_salomon_preset_has_zero_high_rebid_every_bonus_progressive_and_letters() -> None:
    salomon = make_rules("salomon")
    assert salomon.rank_order is RankOrder.ZERO_HIGH
    assert salomon.challenge_mode is ChallengeMode.ALL
    assert salomon.rebid
    assert salomon.size_bonus and salomon.sixes_bonus and salomon.hero_bonus and salomon.skunk
    assert salomon.progressive_stakes
    assert salomon.first_opener is FirstOpener.LETTERS
    assert salomon.later_opener is LaterOpener.FINAL_BIDDER


def test_presets_are_named_and_distinct() -> None:
    assert set(PRESETS) == {"classic", "quick", "salomon"}
    assert len(set(PRESETS.values())) == 3
    assert all(rules.preset == name for name, rules in PRESETS.items())


def test_rules_are_frozen_and_hashable() -> None:
    rules = make_rules("salomon")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.rebid = False  # type: ignore[misc]  # mypy knows it is frozen too: the test checks Python does
    assert hash(rules) == hash(make_rules("salomon"))
    assert {rules, make_rules("salomon")} == {rules}


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("option", sorted(OVERRIDES))
def test_any_preset_overrides_one_option_and_keeps_the_rest(preset: str, option: str) -> None:
    base = make_rules(preset)
    value = OVERRIDES[option]
    if getattr(base, option) == value:  # already on in this preset: switch it off / back instead
        value = getattr(Rules(), option) if getattr(Rules(), option) != value else 2
    changed = make_rules(preset, **{option: value})
    assert getattr(changed, option) == value
    for f in dataclasses.fields(Rules):
        if f.name != option:
            assert getattr(changed, f.name) == getattr(base, f.name), f.name


@pytest.mark.parametrize(
    ("name", "value", "field", "expected"),
    [
        ("rank-order", "zero-high", "rank_order", RankOrder.ZERO_HIGH),
        ("rank_order", "ACES_HIGH", "rank_order", RankOrder.ACES_HIGH),
        ("challenge-mode", "first", "challenge_mode", ChallengeMode.FIRST),
        ("rebid", "on", "rebid", True),
        ("rebid", "yes", "rebid", True),
        ("skunk", "true", "skunk", True),
        ("sixes", "on", "sixes_bonus", True),
        ("size", True, "size_bonus", True),
        ("hero", "1", "hero_bonus", True),
        ("progressive", "on", "progressive_stakes", True),
        ("later-opener", "winner", "later_opener", LaterOpener.WINNER),
        ("serial-source", "slips", "serial_source", SerialSource.SLIPS),
        ("stake", "3", "stake", 3),
    ],
)
def test_option_names_and_values_are_read_as_people_write_them(
    name: str, value: object, field: str, expected: object
) -> None:
    assert getattr(make_rules("classic", **{name: value}), field) == expected


def test_switching_a_salomon_option_off() -> None:
    rules = make_rules("salomon", rebid="off", skunk=False, progressive_stakes="no")
    assert not rules.rebid and not rules.skunk and not rules.progressive_stakes
    assert rules.hero_bonus


@pytest.mark.parametrize(
    ("preset", "overrides"),
    [
        ("poker", {}),
        ("classic", {"bogus": 1}),
        ("classic", {"Preset": "salomon"}),
        ("classic", {"rank_order": "zero-middle"}),
        ("classic", {"challenge_mode": "some"}),
        ("classic", {"rebid": "maybe"}),
        ("classic", {"stake": 0}),
        ("classic", {"stake": -2}),
        ("classic", {"stake": "two"}),
        ("classic", {"stake": 1.5}),
        ("classic", {"stake": True}),
        ("classic", {"stake": "٣"}),  # int() reads other scripts' digits and "1_000"; people's numbers are ASCII
        ("classic", {"stake": "1_000"}),
        ("classic", {"serial_length": "٨"}),
        ("classic", {"stake": "1" * 5000}),
    ],
)
def test_unknown_presets_options_and_bad_values_raise_rules_error(preset: str, overrides: dict[str, object]) -> None:
    with pytest.raises(RulesError) as err:
        make_rules(preset, **overrides)
    assert isinstance(err.value, ValueError)
    assert "\n" not in str(err.value)


def test_rules_value_rejects_a_bad_stake_directly() -> None:
    with pytest.raises(RulesError):
        Rules(stake=0)
    with pytest.raises(RulesError):
        Rules(stake=True)


def test_make_rules_accepts_a_rules_value_as_the_base() -> None:
    base = make_rules("salomon", stake=3)
    assert make_rules(base, rebid=False) == dataclasses.replace(base, rebid=False)
    assert make_rules(base) == base


@pytest.mark.parametrize(
    "rules",
    [
        *PRESETS.values(),
        make_rules("salomon", rank_order="aces-high", stake=7, serial_source="slips", later_opener="winner"),
        make_rules("quick", hero=True, last_hand_double=True, first_opener="host"),
    ],
)
def test_rules_round_trip_through_their_record_dict(rules: Rules) -> None:
    data = rules.to_dict()
    assert all(isinstance(v, str | bool | int) for v in data.values())
    assert Rules.from_dict(data) == rules


def test_rank_orders_list_the_digits_low_to_high() -> None:
    assert RankOrder.ZERO_LOW.digits_low_to_high == (0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
    assert RankOrder.ZERO_HIGH.digits_low_to_high == (1, 2, 3, 4, 5, 6, 7, 8, 9, 0)
    assert RankOrder.ACES_HIGH.digits_low_to_high == (2, 3, 4, 5, 6, 7, 8, 9, 0, 1)
    for order in RankOrder:
        assert [order.rank(d) for d in order.digits_low_to_high] == list(range(10))


def test_describe_names_the_switched_on_options() -> None:
    salomon = make_rules("salomon").describe()
    classic = make_rules("classic").describe()
    assert "rebid once" in salomon and "no rebids" in classic
    assert "progressive stakes" in salomon and "progressive" not in classic
    assert "no bonus bids" in classic and "sixes" in salomon
    assert "SLIPS" in make_rules("classic", serial_source="slips").describe()
