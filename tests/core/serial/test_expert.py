"""``expert``: search from beliefs (few particles here: the full default costs ~0.1–0.5 s a decision)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from core.serial import Round, deal_serial, make_rules
from core.serial.hands import HandClasses
from core.serial.players import Expert, Strategy, get_strategy
from core.serial.players.base import policy_of
from core.serial.players.search import LocalBestResponse
from core.serial.round import Action, Phase
from core.serial.rules import Rules
from core.serial.serials import Serial
from core.serial.solve.format import Format
from core.serial.view import SeatView, seat_view


def small_expert(particles: int = 4) -> Expert:
    """Searching at every table size (the shipped level searches heads up only), with few particles."""
    return Expert(lambda: get_strategy("hard"), particles=particles, max_players=None)


def deal(rules: Rules, players: tuple[str, ...], rng: random.Random) -> dict[str, Serial]:
    return {p: deal_serial(rng, rules.serial_length, rules.digits) for p in players}


def play(round_: Round, steps: int, act: Callable[[SeatView], Action]) -> None:
    """Up to ``steps`` decisions of ``round_``, each seat's by ``act`` of its view."""
    for _ in range(steps):
        if round_.is_over:
            return
        who = round_.to_act
        assert who is not None
        round_.apply(act(seat_view(round_, who)))



def decides_purely(expert: Strategy, view: SeatView, round_: Round) -> Action:
    """``expert``'s legal action at ``view``, checked to be a pure function of the view: the same whatever rng it
    is handed, and its policy that one action with certainty."""
    action = expert.decide(view, random.Random(1))
    assert action in round_.legal_actions()
    assert expert.decide(view, random.Random(2)) == action  # the handed rng is not used
    assert policy_of(expert, view) == [(action, 1.0)]
    return action

def test_its_choices_are_legal_exact_and_deterministic_from_every_kind_of_view() -> None:
    """4×4 (no solved table: it searches), heads-up and 3 players, classic (rebid) and Salomon (bonuses)."""
    expert, hard = small_expert(), get_strategy("hard")
    kinds: set[tuple[str, bool]] = set()
    for preset, n in (("classic", 2), ("classic", 3), ("salomon", 2), ("salomon", 3)):
        rules = make_rules(preset, digits=4, serial_length=4, rebid=True)
        rng = random.Random(f"{preset}{n}")
        players = tuple(f"p{i}" for i in range(n))
        for r in range(2):
            round_ = Round(rules, players, deal(rules, players, rng), players[r % n])
            while not round_.is_over:
                who = round_.to_act
                assert who is not None
                view = seat_view(round_, who)
                if who == "p0":
                    action = decides_purely(expert, view, round_)
                    kinds.add((view.phase.value, view.standing_bid is None))
                else:
                    action = hard.decide(view, rng)
                round_.apply(action)
    # it opened, answered bids, and (with the rebid right) chose between the count and a rebid
    assert {("bidding", True), ("bidding", False), ("rebid", False)} <= kinds, kinds


def test_full_game_decisions_are_legal_at_the_opening_and_after_bids() -> None:
    expert, hard = small_expert(2), get_strategy("hard")
    rng = random.Random(7)
    for preset, n in (("classic", 2), ("salomon", 5)):
        rules = make_rules(preset)
        players = tuple(f"p{i}" for i in range(n))
        round_ = Round(rules, players, deal(rules, players, rng), "p0")

        def act(view: SeatView, round_: Round = round_, players: tuple[str, ...] = players) -> Action:
            if view.me != "p0":
                return hard.decide(view, rng)
            action = expert.decide(view, rng)
            assert action in round_.legal_actions()
            text = expert.explain(view)
            assert "searched 2 possible holdings" in text and "\n" not in text
            assert not any(round_.serials[p].digits in text for p in players if p != "p0")
            return action

        play(round_, n + 1, act)


def test_it_never_reads_another_seats_serial() -> None:
    expert, hard = small_expert(), get_strategy("hard")
    rules = make_rules("classic", digits=4, serial_length=4, rebid=True)
    players = ("a", "b", "c")
    compared = 0
    for seed in range(6):
        rng = random.Random(seed)
        serials = deal(rules, players, rng)
        round_ = Round(rules, players, serials, "b")
        for _ in range(1 + seed % 3):  # b and c bid or challenge, then a decides
            who = round_.to_act
            assert who is not None
            round_.apply(hard.decide(seat_view(round_, who), rng))
        if round_.is_over or round_.to_act != "a":
            continue
        other = Round(rules, players, {**serials, **deal(rules, ("b", "c"), rng)}, "b")
        for action in round_.history:
            other.apply(action)
        assert other.serials["b"] != serials["b"] or other.serials["c"] != serials["c"]
        assert expert.decide(seat_view(other, "a"), rng) == expert.decide(seat_view(round_, "a"), rng)
        assert expert.explain(seat_view(other, "a")) == expert.explain(seat_view(round_, "a"))
        compared += 1
    assert compared >= 2


def test_it_plays_the_solved_table_where_hard_does() -> None:
    expert, hard = get_strategy("expert"), get_strategy("hard")
    rules = make_rules("classic", digits=3, serial_length=3, rebid=True)
    rng = random.Random(3)
    round_ = Round(rules, ("a", "b"), deal(rules, ("a", "b"), rng), "a")
    while not round_.is_over:
        who = round_.to_act
        assert who is not None
        view = seat_view(round_, who)
        assert policy_of(expert, view) == policy_of(hard, view)
        assert "solved table" in expert.explain(view)
        round_.apply(hard.decide(view, rng))


def test_it_searches_where_no_table_fits_and_says_what_it_expects() -> None:
    expert = small_expert()
    rules = make_rules("classic", digits=4, serial_length=4)
    round_ = Round(rules, ("a", "b"), deal(rules, ("a", "b"), random.Random(5)), "a")
    assert expert.table(seat_view(round_, "a")) is None
    text = expert.explain(seat_view(round_, "a"))
    # few joint hand classes (4×4 heads-up: 35): every class is searched, not the 4 particles asked for
    classes = Format(rules).size
    assert classes == 35
    assert text.startswith(f"I searched {classes} possible holdings") and "units to me" in text
    assert "probability" in text
    assert round_.phase is Phase.BIDDING


def test_the_shipped_level_searches_heads_up_only_and_plays_as_hard_at_larger_tables() -> None:
    expert, hard = get_strategy("expert"), get_strategy("hard")
    assert isinstance(expert, Expert) and expert.searches_at(2) and not expert.searches_at(3)
    rules = make_rules("classic")
    rng = random.Random(11)
    for n in (3, 6):
        players = tuple(f"p{i}" for i in range(n))
        round_ = Round(rules, players, deal(rules, players, rng), "p0")

        def act(view: SeatView, n: int = n) -> Action:
            assert policy_of(expert, view) == policy_of(hard, view)
            assert f"at a table of {n} it plays as hard" in expert.explain(view)
            return hard.decide(view, rng)

        play(round_, n + 2, act)


def typed_expert(particles: int = 4) -> Expert:
    """Like :func:`small_expert`, with the shipped level's types (``hard``, ``hard`` with an honest opening,
    ``binomial``)."""
    shipped = get_strategy("expert")
    assert isinstance(shipped, Expert) and len(shipped.type_factories) == 3
    return Expert(lambda: get_strategy("hard"), particles=particles, max_players=None, types=shipped.type_factories)


TYPE_NAMES = ["hard", "hard (honest opening)", "binomial"]


def test_the_other_seats_opening_moves_the_belief_over_its_type_by_bayes_rule() -> None:
    """4×4 heads-up classic (the heads-up classic dials: ``hard`` opens one copy of a digit it holds; its 35 hand
    classes are searched exactly).  After the other's opening, each type's share is its prior times the mean
    over the hand classes of that type's probability of the opening (floored), as computed here from the
    types' own policies — though the two ``hard`` types' particles are merged by then, the belief over all three
    is kept; a one-copy opening drawn from ``hard`` makes ``hard`` the likeliest type, ``binomial``'s opening (all
    it holds of a digit) moves weight off ``hard`` onto the other two."""
    expert = typed_expert()
    rules = make_rules("classic", digits=4, serial_length=4)
    hard, binomial = get_strategy("hard"), get_strategy("binomial")
    classes = HandClasses(rules)
    moved = {"hard": 0, "binomial": 0}
    for seed in range(8):
        rng = random.Random(seed)
        opener = hard if seed % 2 == 0 else binomial
        round_ = Round(rules, ("a", "b"), deal(rules, ("a", "b"), rng), "b")
        opening = opener.decide(seat_view(round_, "b"), rng)
        round_.apply(opening)
        view = seat_view(round_, "a")
        lbr, _ = expert.search(view)
        assert len(lbr.replicas) == 2 * lbr.holdings == 2 * classes.size  # the hard types merged, binomial apart
        shares = [w for _, w in lbr.type_weights()]
        types = [factory() for factory, _ in expert.type_factories]
        assert [t.name for t, _ in lbr.type_weights()] == [t.name for t in types] == TYPE_NAMES
        expected = []
        for t, (_, prior) in zip(types, expert.type_factories, strict=True):
            mass = 0.0
            for h, serial in enumerate(classes.serials):
                other = Round(rules, ("a", "b"), {"a": view.serial, "b": serial}, "b")
                p = sum(q for act, q in policy_of(t, seat_view(other, "b")) if act == opening)
                mass += classes.weights[h] * max(p, 1e-4)
            expected.append(prior * mass)
        assert shares == [pytest.approx(e / sum(expected), abs=1e-9) for e in expected]
        if opener is hard:
            moved["hard"] += shares[0] == max(shares) and shares[0] > 0.5
        else:
            moved["binomial"] += shares[2] > 1 / 3 and shares[0] < 0.01
    assert moved == {"hard": 4, "binomial": 4}, moved


def test_with_types_its_policy_is_still_exact_and_deterministic() -> None:
    """4×3 heads-up classic with the rebid right (no solved table; 20 hand classes, searched exactly)."""
    expert, hard = typed_expert(), get_strategy("hard")
    rules = make_rules("classic", digits=4, serial_length=3, rebid=True)
    rng = random.Random(21)
    decided = 0
    for opener in ("a", "b"):
        round_ = Round(rules, ("a", "b"), deal(rules, ("a", "b"), rng), opener)
        while not round_.is_over:
            who = round_.to_act
            assert who is not None
            view = seat_view(round_, who)
            if who == "a":
                action = decides_purely(expert, view, round_)
                if not decided:
                    text = expert.explain(view)
                    assert "3 kinds of player" in text and "20 possible holdings" in text, text
                decided += 1
            else:
                action = hard.decide(view, rng)
            round_.apply(action)
    assert decided >= 2


def test_types_that_play_alike_at_a_table_are_one() -> None:
    """At 3 players Salomon ``hard``'s dials do not mix the opening: there the two ``hard`` types are one (their
    priors summed) and ``binomial`` another, and with the ``hard`` types alone the search is the single model's,
    value for value; heads up, classic and Salomon (both tables' dials open one copy), the three are three."""
    typed, single = typed_expert(), small_expert()
    shipped = typed.type_factories
    hard_only = Expert(
        lambda: get_strategy("hard"), particles=4, max_players=None,
        types=[(factory, prior / (shipped[0][1] + shipped[1][1])) for factory, prior in shipped[:2]],
    )
    rng = random.Random(4)
    for preset, players, names in (
        ("salomon", ("a", "b", "c"), ["hard", "binomial"]),
        ("classic", ("a", "b"), TYPE_NAMES),
        ("salomon", ("a", "b"), TYPE_NAMES),
    ):
        rules = make_rules(preset)
        round_ = Round(rules, players, deal(rules, players, rng), players[-1])
        round_.apply(get_strategy("binomial").decide(seat_view(round_, players[-1]), rng))
        view = seat_view(round_, "a")
        assert [t.name for t, _ in typed.types(view)] == names
        if len(names) == 2:
            assert [p for _, p in typed.types(view)] == pytest.approx([2 / 3, 1 / 3])
            assert hard_only.types(view) == []
            assert hard_only.values(view) == single.values(view)
        else:
            assert len(hard_only.types(view)) == 2


def test_merging_the_types_that_play_alike_leaves_the_values_and_the_belief_as_unmerged() -> None:
    """4×4 heads-up classic without the rebid right (35 hand classes, exact; one decision searched, the others'
    next three summed exactly: no draw).  After the other's opening the two ``hard`` types play alike, so the
    search with their particles merged values every candidate as the search with the three types apart, and
    keeps the same belief over the three; merging ``binomial`` in too (it does not play alike) changes the
    values."""
    rules = make_rules("classic", digits=4, serial_length=4)
    assert not rules.rebid
    kinds = [(factory(), prior) for factory, prior in typed_expert().type_factories]
    hard = get_strategy("hard")
    compared = changed = 0
    for seed in range(4):
        rng = random.Random(100 + seed)
        round_ = Round(rules, ("a", "b"), deal(rules, ("a", "b"), rng), "b")

        def by_hard(view: SeatView, rng: random.Random = rng) -> Action:
            return hard.decide(view, rng)

        play(round_, 1 + 2 * (seed % 2), by_hard)  # b opens (and a bids, b raises)
        if round_.is_over or round_.to_act != "a":
            continue

        def searcher(round_: Round = round_) -> LocalBestResponse:
            lbr = LocalBestResponse(
                hard, Round(rules, ("a", "b"), round_.serials, "b"), "a", random.Random(0),
                lookahead=1, rollout=False, types=kinds,
            )
            for action in round_.history:
                lbr.observe(action)
            return lbr

        apart, merged, all_one = searcher(), searcher(), searcher()
        with pytest.raises(ValueError, match="not disjoint"):
            merged.merge_types([[0, 1], [1, 2]])
        merged.merge_types([[0, 1]])
        all_one.merge_types()
        with pytest.raises(ValueError, match="once only"):
            merged.merge_types([[0, 1]])
        assert (len(apart.replicas), len(merged.replicas), len(all_one.replicas)) == (3 * 35, 2 * 35, 35)
        assert [m.name for m in merged.models[:2]] == ["hard", "binomial"]
        assert [w for _, w in merged.type_weights()] == pytest.approx([w for _, w in apart.type_weights()], abs=1e-12)
        values = apart.values(round_)
        assert [a for a, _ in merged.values(round_)] == [a for a, _ in values]
        assert [v for _, v in merged.values(round_)] == pytest.approx([v for _, v in values], abs=1e-6)
        changed += max(abs(v - w) for (_, v), (_, w) in zip(all_one.values(round_), values, strict=True)) > 1e-3
        compared += 1
    assert compared >= 3 and changed >= 1, (compared, changed)
