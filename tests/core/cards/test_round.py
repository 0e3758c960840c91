"""The round and match state machines: take, discard, declare, pass and the throw-in, challenges."""

from __future__ import annotations

import random
from typing import Any

import pytest

from core.cards.cards import Card, parse_cards, shuffled_deck
from core.cards.declarations import Declaration
from core.cards.errors import (
    DeclarationTooLow,
    ImpossibleDeclaration,
    NamedTwice,
    NoPassLeft,
    NotInHand,
    WrongPhase,
)
from core.cards.hands import HandType, evaluate, values_of
from core.cards.match import CardsEngine
from core.cards.round import Action, Challenge, Challenged, Declare, Discard, Pass, Phase, Round, Take, ThrownIn
from core.cards.rules import make_rules
from core.errors import NotYourTurn, RoundOver, UnknownPlayer

from ._helpers import seed_deck

PLAYERS = ["annie", "bart", "chrissie", "dirk", "ellie"]


def D(text: str) -> Declaration:
    return Declaration.parse(text)


def new_round(**kw: Any) -> Round:
    return Round(PLAYERS, parse_cards(seed_deck()), "annie", **kw)


def test_the_opener_draws_five_from_the_top() -> None:
    r = new_round()
    assert r.hand == parse_cards("7C 7D 3H 3S JD")
    assert (r.phase, r.to_act, r.active) == (Phase.DECLARE, "annie", "annie")
    assert len(r.deck) == 47


def test_the_seed_plays_through() -> None:
    r = new_round()
    r.apply(Declare("annie", D("two pair")))
    assert (r.phase, r.to_act, r.under_the_gun) == (Phase.GUN, "bart", "bart")
    r.apply(Take("bart"))
    r.apply(Discard("bart", (Card.parse("JD"),)))
    assert sorted(map(str, r.hand)) == sorted(["7C", "7D", "3H", "3S", "2C"])
    with pytest.raises(WrongPhase):
        r.check(Discard("bart", (Card.parse("2C"),)))  # once per turn
    r.apply(Declare("bart", D("sevens over threes")))
    r.apply(Take("chrissie"))
    r.apply(Declare("chrissie", D("sevens over threes with a jack kicker")))
    r.apply(Take("dirk"))
    r.apply(Discard("dirk", tuple(parse_cards("3H 3S 2C"))))
    r.apply(Declare("dirk", D("three of a kind")))
    (event,) = r.apply(Challenge("ellie"))
    assert isinstance(event, Challenged)
    assert (event.out, event.winner, event.holds) == ("dirk", "ellie", False)
    assert sorted(map(str, event.hand)) == sorted(["QH", "7C", "7D", "6S", "2H"])
    assert r.is_over and r.to_act is None
    with pytest.raises(RoundOver):
        r.check(Take("annie"))


def test_a_true_declaration_knocks_out_the_challenger() -> None:
    r = new_round()
    r.apply(Declare("annie", D("sevens over threes")))
    (event,) = r.apply(Challenge("bart"))
    assert isinstance(event, Challenged) and event.holds and event.out == "bart" and event.winner == "annie"
    assert event.value == evaluate(parse_cards("7C 7D 3H 3S JD"))


@pytest.mark.parametrize(
    ("actions", "bad", "error"),
    [
        ([], Take("annie"), WrongPhase),
        ([], Discard("annie", (Card.parse("7C"),)), WrongPhase),
        ([], Declare("annie", D("seven high")), DeclarationTooLow),
        ([], Declare("bart", D("pair")), NotYourTurn),
        ([], Declare("zed", D("pair")), UnknownPlayer),
        (["annie:pair"], Challenge("chrissie"), NotYourTurn),
        (["annie:pair"], Declare("bart", D("king high")), WrongPhase),
        (["annie:pair"], Pass("bart"), NoPassLeft),
        (["annie:pair", "bart:take"], Declare("bart", D("pair")), DeclarationTooLow),
        (["annie:pair", "bart:take"], Discard("bart", (Card.parse("AS"),)), NotInHand),
        (["annie:pair", "bart:take"], Discard("bart", tuple(parse_cards("7C 7C"))), NamedTwice),  # (held once)
        (["annie:pair", "bart:take"], Discard("bart", tuple(parse_cards("7C AS"))), NotInHand),
        (["annie:pair", "bart:take"], Declare("bart", D("five of a kind")), Exception),
    ],
)
def test_illegal_actions_raise_and_change_nothing(actions: list[str], bad: Action, error: type[Exception]) -> None:
    r = new_round()
    for spec in actions:
        who, what = spec.split(":")
        r.apply(Take(who) if what == "take" else Declare(who, D(what)))
    before = snapshot(r)
    with pytest.raises(error):
        r.apply(bad)
    assert snapshot(r) == before


def snapshot(r: Round) -> tuple[object, ...]:
    return (
        r.phase, r.to_act, r.active, r.standing, list(r.hand), list(r.deck), list(r.discards),
        sorted(r.passes), len(r.history), [list(d) for d in r.reshuffles], r.may_discard,
    )


def test_passing_moves_the_gun_and_everyone_passing_throws_the_hand_in() -> None:
    r = Round(PLAYERS[:3], parse_cards(seed_deck()), "annie", pass_allowed=True, passes=PLAYERS[:3])
    r.apply(Declare("annie", D("king high")))
    r.apply(Pass("bart"))
    assert r.to_act == "chrissie" and "bart" not in r.passes
    events = r.apply(Pass("chrissie"))
    assert isinstance(events[-1], ThrownIn)
    assert r.standing is None and r.to_act == "annie" and not r.may_discard
    assert [str(c) for c in r.hand] == ["2C", "QH", "6S", "2H", "2D"]
    assert [str(c) for c in r.discards] == ["7C", "7D", "3H", "3S", "JD"]
    r.check(Declare("annie", D("seven-six high")))  # from the bottom again
    r.apply(Declare("annie", D("king high")))
    with pytest.raises(NoPassLeft):
        r.check(Pass("bart"))  # once per game


def test_a_pass_token_carries_across_rounds_in_a_match() -> None:
    m = CardsEngine(make_rules("wild"), PLAYERS[:3])
    m.start_round(shuffled_deck(random.Random(1), 2), "annie", salt="s")
    m.apply(Declare("annie", D("king high")))
    m.apply(Pass("bart"))
    m.apply(Challenge("chrissie"))
    assert "bart" not in m.passes
    winner = m.next_opener
    assert winner is not None
    r2 = m.start_round(shuffled_deck(random.Random(2), 2), winner, salt="t")
    assert "bart" not in r2.passes and (len(r2.passes) == len(r2.players) - ("bart" in r2.players))


def test_the_deck_running_out_reshuffles_the_discards_from_the_salt() -> None:
    r = Round(["a", "b"], parse_cards(seed_deck()), "a", salt="s")
    r.apply(Declare("a", D("seven-six high")))
    who = "b"
    for _ in range(12):  # five discarded each turn: 47 cards last nine turns
        r.apply(Take(who))
        r.apply(Discard(who, tuple(r.hand)))
        r.apply(Declare(who, r.least_raise()))
        who = "a" if who == "b" else "b"
    assert r.reshuffles, "the deck ran out"
    first = r.reshuffles[0]
    assert len(first) == 50 and len(set(first)) == 50  # all but the two cards the old deck still gave
    assert len(r.hand) == 5 and not set(r.hand) & set(r.deck) and not set(r.hand) & set(r.discards)
    assert len(r.hand) + len(r.deck) + len(r.discards) == 52


def test_a_match_ends_with_one_player_and_pays_the_winner() -> None:
    m = CardsEngine(make_rules("standard", {"stake": 2}), ["a", "b", "c"])
    rng = random.Random(4)
    opener = "a"
    while not m.over:
        m.start_round(shuffled_deck(rng), m.next_opener or opener)
        live = m.live_players
        assert m.round is not None
        m.apply(Declare(m.round.to_act or "", Declaration.parse("royal flush")))
        m.apply(Challenge(m.round.to_act or ""))
        assert len(m.live_players) == len(live) - 1
    assert m.winner is not None and len(m.out) == 2
    assert m.net()[m.winner] == 4 and sum(m.net().values()) == 0
    assert m.ranking() == ((m.winner,), (m.out[1],), (m.out[0],))
    with pytest.raises(RoundOver):
        m.start_round(shuffled_deck(rng), m.winner)


@pytest.mark.parametrize("jokers", [0, 1, 2])
def test_a_declaration_is_refused_where_the_deck_has_too_few_jokers_for_it(jokers: int) -> None:
    for ranks, needed in [((14, 14, 6), 1), ((14, 14, 14), 2)]:  # a flush of two aces, then of three
        r = Round(["a", "b"], parse_cards(seed_deck()), "a", jokers=jokers)
        declared = Declare("a", Declaration(HandType.FLUSH, ranks))
        if needed <= jokers:
            r.check(declared)
        else:
            with pytest.raises(ImpossibleDeclaration, match="no hand is flush"):
                r.check(declared)
    if jokers:  # above the best flush of two aces, the least raise is one this deck can hold
        top = max(v for v in values_of(HandType.FLUSH, 1) if v[:2] == (14, 14))
        least = Round(["a", "b"], parse_cards(seed_deck()), "a", jokers=jokers)
        least.apply(Declare("a", Declaration(HandType.FLUSH, top)))
        raised = least.least_raise()
        assert raised is not None and raised.jokers_needed <= jokers
        if jokers == 2:
            assert raised.type is HandType.FLUSH and raised.floor.ranks[:3] == (14, 14, 14), raised
        else:  # no flush of three aces in a deck of one joker: the next type up
            assert raised.type is HandType.FULL_HOUSE, raised


def test_nothing_beats_a_royal_flush_without_jokers_so_it_must_be_challenged() -> None:
    r = Round(["a", "b"], parse_cards(seed_deck()), "a")
    r.apply(Declare("a", D("royal flush")))
    assert not r.can_raise and not r.legal_actions().take
    with pytest.raises(WrongPhase) as refused:
        r.check(Take("b"))
    assert str(refused.value).endswith("challenge it")  # no "(or pass)" where passing is not allowed
    passing = Round(["a", "b"], parse_cards(seed_deck()), "a", pass_allowed=True, passes=["b"])
    passing.apply(Declare("a", D("royal flush")))
    with pytest.raises(WrongPhase, match=r"challenge it \(or pass\)"):
        passing.check(Take("b"))
    r.check(Challenge("b"))
    from core.cards.forms import turn_text

    said = turn_text(r)  # the ping offers no take (it said "take <@a>'s royal flush or challenge")
    assert said is not None and "take" not in said and "nothing beats <@a>'s royal flush: challenge it" in said
    with pytest.raises(ImpossibleDeclaration, match="names at most 1 rank, not 2"):  # one rank, singular
        Declaration(HandType.STRAIGHT, (9, 8))
    jokers = Round(["a", "b"], parse_cards(seed_deck()), "a", jokers=1)
    jokers.apply(Declare("a", D("royal flush")))
    assert jokers.can_raise and jokers.least_raise() == D("five of a kind")


def test_a_discard_says_which_cards_are_not_held_and_which_are_named_twice() -> None:
    """`discard 7H 7H` with one 7H in the hand was "The hand does not hold 7H 7H"; `discard 7C AS` named both."""
    r = new_round()
    r.apply(Declare("annie", D("pair")))
    r.apply(Take("bart"))
    with pytest.raises(NamedTwice, match=r"^7C is named more times than the hand holds it: name each card once$"):
        r.apply(Discard("bart", tuple(parse_cards("7C 7C"))))
    with pytest.raises(NotInHand, match=r"^the hand does not hold AS$"):
        r.apply(Discard("bart", tuple(parse_cards("7C AS"))))
