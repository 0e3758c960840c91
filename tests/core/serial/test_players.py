"""Computer players: legal, deterministic, blind to other serials, explained, and the reader plays well."""

from __future__ import annotations

import dataclasses
import itertools
import random
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.serial import (
    Action,
    Bid,
    CallCount,
    Challenge,
    MakeBid,
    Phase,
    Round,
    Rules,
    SeatView,
    Serial,
    deal_serial,
    make_rules,
    seat_view,
)
from core.serial.players import (
    DEFAULT_LEVEL,
    DIFFICULTY_LEVELS,
    STRATEGY_NAMES,
    Binomial,
    Reader,
    ReaderParams,
    Solved,
    Strategy,
    get_strategy,
)
from core.serial.players.base import policy_of
from core.serial.players.solved import WithSolved
from core.serial.players.solved_multi import SolvedMulti
from core.serial.players.trained import TrainedReader, trained_params

from ._helpers import play, readings, serials

PRESETS = ("classic", "quick", "salomon")
REQUIRED = {"random", "binomial", "always-challenge", "raise-by-one", "reader", "easy", "normal", "hard"}
PROBABILITY = re.compile(r"\d+%|probability")


def seats(n: int) -> list[str]:
    return [f"p{i + 1}" for i in range(n)]


def deal(rng: random.Random, players: list[str]) -> dict[str, Serial]:
    return {p: deal_serial(rng) for p in players}


def wander(round_: Round, rng: random.Random, steps: int) -> None:
    """Drive a round to an arbitrary state with plausible random actions (never ending it on purpose)."""
    for _ in range(steps):
        legal = round_.legal_actions()
        if round_.is_over or not legal:
            return
        roll = rng.random()
        if legal.call_count and roll < 0.3:
            return  # leave the bidder to choose
        if legal.challenge and roll < 0.45:
            round_.apply(Challenge(legal.player or ""))
            continue
        ids = legal.raise_ids
        if not ids:
            return
        jump = rng.choice((0, 0, 1, 2, 5, 10, 40))
        round_.apply(MakeBid(legal.player or "", Bid.from_id(ids[min(jump, len(ids) - 1)], round_.rules.rank_order)))


def view_of(round_: Round) -> SeatView:
    player = round_.to_act
    assert player is not None
    return seat_view(round_, player)


# expert searches for ~0.1–0.5 s a decision in the full game: its own tests (tests/core/serial/test_expert.py)
# play it with few particles in reduced formats, and the explanation test below asks it a few times
QUICK = tuple(name for name in STRATEGY_NAMES if name != "expert")


# -- the registry -----------------------------------------------------------------------------------
def test_every_required_name_is_offered_and_built() -> None:
    assert set(STRATEGY_NAMES) >= REQUIRED
    assert DIFFICULTY_LEVELS == ("easy", "normal", "hard", "expert")  # weakest first
    assert DEFAULT_LEVEL == "hard" and DEFAULT_LEVEL in DIFFICULTY_LEVELS
    for name in STRATEGY_NAMES:
        strategy = get_strategy(name)
        assert isinstance(strategy, Strategy)
        assert strategy.name == name


def test_names_are_forgiving_and_unknown_names_are_refused() -> None:
    assert get_strategy(" Raise_By_One ").name == "raise-by-one"
    with pytest.raises(KeyError, match="strategies are"):
        get_strategy("oracle")


def test_hard_is_the_trained_reader_for_the_table() -> None:
    hard = get_strategy("hard")
    # hard is reader with the dials trained for the table (issue #24), except where a solved table fits (#12)
    assert isinstance(hard, WithSolved) and isinstance(hard.inner, TrainedReader)
    round_ = Round(make_rules("salomon"), ("a", "b", "c"), dict.fromkeys(("a", "b", "c"), Serial("12345678")), "a")
    view = seat_view(round_, "a")
    assert hard.inner.reader(view).params == trained_params(view.rules, 3)[0]


def test_hard_plays_the_solved_tables_heads_up_and_at_3_players_in_3x3_and_reader_elsewhere() -> None:
    hard = get_strategy("hard")
    assert isinstance(hard, WithSolved)
    three = make_rules("classic", rebid=True, digits=3, serial_length=3)
    heads_up = Round(three, ("a", "b"), {"a": Serial("123"), "b": Serial("111")}, "a")
    view = seat_view(heads_up, "a")
    assert isinstance(hard._pick(view), Solved) and "solved" in hard.explain(view)
    table = Round(three, ("a", "b", "c"), dict.fromkeys(("a", "b", "c"), Serial("123")), "a")
    assert isinstance(hard._pick(seat_view(table, "a")), SolvedMulti)
    assert "3-player 3×3 table" in hard.explain(seat_view(table, "a"))
    four = Round(three, ("a", "b", "c", "d"), dict.fromkeys(("a", "b", "c", "d"), Serial("123")), "a")
    assert isinstance(hard._pick(seat_view(four, "a")), TrainedReader)


@pytest.mark.parametrize("rebid", [True, False])
def test_hard_plays_the_shipped_5x5_table_heads_up_with_and_without_the_rebid_right(rebid: bool) -> None:
    hard = get_strategy("hard")
    assert isinstance(hard, WithSolved)
    five = make_rules("classic", rebid=rebid, digits=5, serial_length=5)
    rng = random.Random(3)
    for _ in range(8):
        round_ = Round(five, ("a", "b"), {p: deal_serial(rng, 5, 5) for p in ("a", "b")}, "a")
        while not round_.is_over:
            view = seat_view(round_, round_.to_act or "")
            picked = hard._pick(view)
            assert isinstance(picked, Solved) and (picked.shape.digits, picked.shape.rebid) == (5, rebid)
            assert abs(sum(p for _, p in picked.policy(view)) - 1.0) < 1e-9
            action = hard.decide(view, rng)
            assert action in round_.legal_actions()
            round_.apply(action)
    three = Round(five, ("a", "b", "c"), dict.fromkeys(("a", "b", "c"), Serial("12345")), "a")
    assert isinstance(hard._pick(seat_view(three, "a")), TrainedReader)  # 3 players: no table, and it says so
    salomon = make_rules("salomon", digits=5, serial_length=5)
    bonus = Round(salomon, ("a", "b"), dict.fromkeys(("a", "b"), Serial("12345")), "a")
    assert isinstance(hard._pick(seat_view(bonus, "a")), TrainedReader)  # bonus bids change the payoffs


# -- legality -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", QUICK)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(PRESETS), n=st.integers(2, 8), seed=st.integers(0, 2**32 - 1))
def test_a_whole_round_of_one_strategy_is_legal(name: str, preset: str, n: int, seed: int) -> None:
    rng = random.Random(seed)
    players = seats(n)
    round_ = Round(make_rules(preset), players, deal(rng, players), players[seed % n])
    strategy = get_strategy(name)
    while not round_.is_over:
        view = view_of(round_)
        action = strategy.decide(view, rng)
        assert action in round_.legal_actions(), (name, action)
        round_.apply(action)
    assert round_.outcome is not None and sum(round_.outcome.net.values()) == 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(PRESETS),
    n=st.integers(2, 8),
    seed=st.integers(0, 2**32 - 1),
    steps=st.integers(0, 25),
    stake=st.integers(1, 8),
)
def test_every_strategy_answers_any_reachable_state_legally(
    preset: str, n: int, seed: int, steps: int, stake: int
) -> None:
    rng = random.Random(seed)
    players = seats(n)
    round_ = Round(make_rules(preset), players, deal(rng, players), players[0], stake)
    wander(round_, rng, steps)
    if round_.is_over:
        return
    view = view_of(round_)
    for name in QUICK:
        action = get_strategy(name).decide(view, random.Random(seed))
        assert action in round_.legal_actions(), (name, action)
        assert action.player == view.me
        round_.check(action)


@pytest.mark.parametrize("name", QUICK)
def test_mixed_tables_play_out_under_every_preset(name: str) -> None:
    rng = random.Random(name)
    for preset in PRESETS:
        for n in (2, 3, 5):
            players = seats(n)
            lineup = [get_strategy(name)] + [
                get_strategy(QUICK[(i + 3) % len(QUICK)]) for i in range(n)
            ]
            for r in range(4):
                round_ = Round(make_rules(preset), players, deal(rng, players), players[r % n])
                while not round_.is_over:
                    view = view_of(round_)
                    action = lineup[players.index(view.me)].decide(view, rng)
                    round_.apply(action)


def test_the_opener_bids_and_a_challenged_bidder_with_the_rebid_right_answers() -> None:
    rules = make_rules("salomon")
    players = seats(3)
    round_ = Round(rules, players, serials(p1="15101952", p2="39540096", p3="93004455"), "p1")
    for name in QUICK:
        action = get_strategy(name).decide(view_of(round_), random.Random(1))
        assert isinstance(action, MakeBid)
    play(round_, [("p1", "3 5"), ("p2", "challenge"), ("p3", "challenge")])
    assert round_.phase is Phase.REBID
    for name in QUICK:
        action = get_strategy(name).decide(view_of(round_), random.Random(1))
        assert isinstance(action, MakeBid | CallCount)
        assert action in round_.legal_actions()
    assert isinstance(get_strategy("always-challenge").decide(view_of(round_), random.Random(1)), CallCount)
    assert get_strategy("raise-by-one").decide(view_of(round_), random.Random(1)) == MakeBid(
        "p1", Bid(3, 6, rules.rank_order)
    )


def test_at_the_top_bid_everyone_must_challenge() -> None:
    players = seats(2)
    round_ = Round(make_rules("classic"), players, serials(p1="11111111", p2="22222222"), "p1")
    play(round_, [("p1", "16 9")])
    for name in QUICK:
        assert get_strategy(name).decide(view_of(round_), random.Random(0)) == Challenge("p2")


# -- determinism and privacy -------------------------------------------------------------------------
def mid_round(seed: int, preset: str = "classic", n: int = 4) -> Round:
    rng = random.Random(seed)
    players = seats(n)
    round_ = Round(make_rules(preset), players, deal(rng, players), players[0])
    wander(round_, rng, 5)
    return round_


@pytest.mark.parametrize("name", QUICK)
def test_a_seeded_strategy_is_deterministic(name: str) -> None:
    for seed in range(25):
        round_ = mid_round(seed, PRESETS[seed % 3])
        if round_.is_over:
            continue
        view = view_of(round_)
        first = [get_strategy(name).decide(view, random.Random(seed)) for _ in range(3)]
        same = get_strategy(name)
        again = [same.decide(view, random.Random(seed)) for _ in range(3)]
        assert first == again and len(set(map(repr, first))) == 1


def test_the_reader_remembers_nothing_that_changes_its_choices() -> None:
    """One reader seat through whole rounds decides exactly as a fresh reader would at each turn."""
    rng = random.Random(9)
    players = seats(4)
    for preset in PRESETS:
        kept = [Reader() for _ in players]
        for r in range(6):
            round_ = Round(make_rules(preset), players, deal(rng, players), players[r % 4])
            while not round_.is_over:
                view = view_of(round_)
                seed = rng.randrange(1 << 30)
                action = kept[players.index(view.me)].decide(view, random.Random(seed))
                assert action == Reader().decide(view, random.Random(seed))
                round_.apply(action)


def test_decisions_never_depend_on_the_other_serials() -> None:
    """Two rounds with the same history and my serial, the others' serials changed: the same views, the same actions."""
    mine = Serial("06742088")
    history = [("p1", "2 3"), ("p2", "2 5"), ("p3", "3 2"), ("p4", "challenge")]  # quick: p4 raises instead
    for preset in PRESETS:
        rules = make_rules(preset)
        rounds = []
        for others in (("92859819", "07202503", "55555555"), ("00000000", "99999999", "12345678")):
            table = {"p1": mine, **{p: Serial(s) for p, s in zip(("p2", "p3", "p4"), others, strict=True)}}
            round_ = Round(rules, seats(4), table, "p1")
            play(round_, history if preset != "quick" else [*history[:3], ("p4", "3 8")])
            rounds.append(round_)
        assert rounds[0].to_act == "p1" and rounds[0].serials["p2"] != rounds[1].serials["p2"]
        views = [direct_view(r, "p1") for r in rounds]
        assert public(views[0]) == public(views[1]) == public(seat_view(rounds[1], "p1"))
        for name in QUICK:
            for seed in range(5):
                acts = [get_strategy(name).decide(v, random.Random(seed)) for v in views]
                assert acts[0] == acts[1], name
            assert get_strategy(name).explain(views[0]) == get_strategy(name).explain(views[1])


def public(view: SeatView) -> tuple[object, ...]:
    """Everything in a view, with the lazy legal-action sequence spelled out."""
    legal = view.legal
    fields = tuple(getattr(view, f.name) for f in dataclasses.fields(view) if f.name != "legal")
    return (*fields, legal.player, legal.raise_ids, legal.challenge, legal.call_count)


def direct_view(round_: Round, player: str) -> SeatView:
    """A view built field by field from what the seat may see (the engine's own builder is not trusted here)."""
    return SeatView(
        rules=round_.rules,
        players=round_.players,
        me=player,
        serial=round_.serials[player],
        history=tuple(round_.history),
        standing_bid=round_.standing_bid,
        bidder=round_.bidder,
        challengers=round_.challengers,
        phase=round_.phase,
        stake=round_.stake,
        to_act=round_.to_act,
        legal=round_.legal_actions(),
        standing_is_rebid=round_.standing_is_rebid,
    )


# -- explanations ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", STRATEGY_NAMES)
def test_explain_is_a_paragraph_that_mentions_a_probability(name: str) -> None:
    for seed in range(12):
        round_ = mid_round(seed, PRESETS[seed % 3], 3)
        if round_.is_over:
            continue
        text = get_strategy(name).explain(view_of(round_))
        assert text.strip() and "\n" not in text
        assert PROBABILITY.search(text), text


def test_the_readers_explanation_names_its_choice() -> None:
    players = seats(3)
    round_ = Round(make_rules("classic"), players, serials(p1="77777123", p2="00000000", p3="11111111"), "p2")
    play(round_, [("p2", "2 7"), ("p3", "3 7")])
    text = get_strategy("reader").explain(view_of(round_))
    assert "3 sevens" in text and "So I" in text


# -- behaviour -------------------------------------------------------------------------------------------
def test_binomial_opens_with_what_it_holds_and_challenges_the_unlikely() -> None:
    players = seats(3)
    round_ = Round(make_rules("classic"), players, serials(p1="77712345", p2="00000000", p3="11111111"), "p1")
    assert Binomial().decide(view_of(round_), random.Random(0)) == MakeBid("p1", Bid(3, 7))
    play(round_, [("p1", "3 7"), ("p2", "5 0")])  # p3 holds no zeros but eight ones: bids all of them
    assert Binomial().decide(view_of(round_), random.Random(0)) == MakeBid("p3", Bid(8, 1))
    round_ = Round(make_rules("classic"), players, serials(p1="77712345", p2="00000000", p3="11111111"), "p3")
    play(round_, [("p3", "12 9")])
    assert Binomial().decide(view_of(round_), random.Random(0)) == Challenge("p1")


def test_the_reader_raises_a_bid_it_can_see_is_true_and_challenges_an_absurd_one() -> None:
    players = seats(3)
    round_ = Round(make_rules("classic"), players, serials(p1="77777123", p2="00000000", p3="11111111"), "p3")
    play(round_, [("p3", "2 7")])
    action = Reader(ReaderParams(bluff_rate=0)).decide(view_of(round_), random.Random(0))
    assert isinstance(action, MakeBid) and action.bid.quantity <= 6  # holds five sevens: no reason to challenge
    round_ = Round(make_rules("classic"), players, serials(p1="77777123", p2="00000000", p3="11111111"), "p2")
    play(round_, [("p2", "15 4")])
    assert get_strategy("reader").decide(view_of(round_), random.Random(0)) == Challenge("p3")


def test_the_reader_counts_a_bid_it_holds_outright() -> None:
    rules = make_rules("salomon")
    players = seats(3)
    round_ = Round(rules, players, serials(p1="55550123", p2="00000000", p3="11111111"), "p1")
    play(round_, [("p1", "4 5"), ("p2", "challenge"), ("p3", "challenge")])
    assert get_strategy("hard").decide(view_of(round_), random.Random(0)) == CallCount("p1")


def test_the_reader_reads_bids_as_support_and_challenges_as_doubt() -> None:
    """The same standing bid (3 nines by p3, p1 to answer) is judged likelier after another nines bid."""
    rules = make_rules("classic")
    players = seats(4)
    table = serials(p1="12345678", p2="00000000", p3="11111111", p4="22222222")
    backed = Round(rules, players, table, "p2")
    play(backed, [("p2", "2 9"), ("p3", "3 9"), ("p4", "challenge")])
    plain = Round(rules, players, table, "p2")
    play(plain, [("p2", "3 8"), ("p3", "3 9"), ("p4", "challenge")])
    reader = get_strategy("reader")
    assert _p_win(reader.explain(view_of(backed))) < _p_win(reader.explain(view_of(plain)))
    # p4 to answer 5 nines by p3: p2 challenged 4 nines (doubt) or raised over them (no doubt).
    doubted = Round(rules, players, table, "p1")
    play(doubted, [("p1", "4 9"), ("p2", "challenge"), ("p3", "5 9")])
    trusted = Round(rules, players, table, "p1")
    play(trusted, [("p1", "4 9"), ("p2", "5 0"), ("p3", "5 9")])
    assert _p_win(reader.explain(view_of(doubted))) > _p_win(reader.explain(view_of(trusted)))


def _expected_holding(reader: Reader, view: SeatView, player: str, digit: int) -> float:
    posteriors = readings(reader.memo_key(view))
    vec = posteriors[(player, digit)]
    assert isinstance(vec, tuple)
    return sum(c * x for c, x in enumerate(vec))


@pytest.mark.parametrize("preset", ["classic", "salomon"])
def test_stack_read_reads_a_raise_on_my_digit_as_the_increment_only(preset: str) -> None:
    """Heads up: "I open two 5s, you say three 5s" needs only one 5 of you (what a best response bluffs into)."""
    table = serials(p1="55123467", p2="00000000")
    plain, stacked = Reader(ReaderParams(stack_read=0.0)), Reader(ReaderParams(stack_read=1.0))
    assert ReaderParams().stack_read == 0.0  # today's reader, and every table trained without it, unchanged

    def holding(reader: Reader, steps: list[tuple[str, str]], digit: int) -> float:
        round_ = Round(make_rules(preset), ["p1", "p2"], table, "p1")
        play(round_, steps)
        return _expected_holding(reader, view_of(round_), "p2", digit)

    by_one = [("p1", "2 5"), ("p2", "3 5")]
    assert holding(stacked, by_one, 5) < holding(plain, by_one, 5)
    assert holding(plain, by_one, 5) > 1.5  # read as about the two copies a raise "wants"
    # A raise by the two copies a raise wants anyway, or on another digit, reads the same either way.
    by_two = [("p1", "2 5"), ("p2", "4 5")]
    assert holding(stacked, by_two, 5) == pytest.approx(holding(plain, by_two, 5))
    other = [("p1", "2 5"), ("p2", "3 6")]
    assert holding(stacked, other, 6) == pytest.approx(holding(plain, other, 6))
    # Half-way is half of each likelihood.
    half = Reader(ReaderParams(stack_read=0.5))
    assert holding(stacked, by_one, 5) < holding(half, by_one, 5) < holding(plain, by_one, 5)


@pytest.mark.parametrize(
    "params",
    [
        ReaderParams(shade=0.5, bluff_rate=0.0, temperature=0.0),
        ReaderParams(shade=0.3, bluff_rate=0.2, temperature=0.05),
    ],
)
def test_shade_bids_one_copy_lower_as_often_as_the_policy_says(params: ReaderParams) -> None:
    """Heads up, an opening on a digit held three times is sometimes made for two, so it does not tell the count."""
    round_ = Round(make_rules("classic"), ["p1", "p2"], serials(p1="55512346", p2="00000000"), "p1")
    view = view_of(round_)
    reader = Reader(params)
    policy = dict(reader.policy(view))
    assert sum(policy.values()) == pytest.approx(1.0)
    draws = Counter(reader.decide(view, random.Random(seed)) for seed in range(2000))
    assert set(draws) <= set(policy)
    for action, count in draws.items():
        assert abs(count / 2000 - policy[action]) < 0.04
    if params.bluff_rate == 0 and params.temperature == 0:
        greedy = Reader(dataclasses.replace(params, shade=0.0)).decide(view, random.Random(0))
        assert isinstance(greedy, MakeBid) and greedy.bid.quantity >= 2
        lower = MakeBid("p1", Bid(greedy.bid.quantity - 1, greedy.bid.digit, view.rules.rank_order))
        assert policy == {greedy: pytest.approx(0.5), lower: pytest.approx(0.5)}


def test_self_read_models_the_others_doubt_by_what_my_bids_told_them() -> None:
    """Heads up, having opened three 5s, four 5s is doubted less by a player holding some than the prior says."""
    from core.serial.players.reading import PRIOR, _model

    round_ = Round(make_rules("classic"), ["p1", "p2"], serials(p1="55512346", p2="00000000"), "p1")
    play(round_, [("p1", "3 5"), ("p2", "3 6")])
    view = view_of(round_)
    params = ReaderParams(self_read=1.0)
    mine = readings(Reader(params).memo_key(view))[("p1", 5)]  # my holding of 5s as my bids tell it
    assert isinstance(mine, tuple) and sum(mine[3:]) > 5 * sum(PRIOR[3:])
    assert ("p1", 5) not in readings(Reader(ReaderParams()).memo_key(view))  # off: nothing read of my own bids
    model = _model(params, 2)
    seen = model.challenge_seen(4, mine)
    assert seen[3] < model.challenge[4][3] - 0.1  # three 5s and a believed three: four 5s look likelier
    assert all(a <= b for a, b in zip(seen, model.challenge[4], strict=True))
    assert seen[0] > 0.9  # with none, they still need my fourth
    assert all(a >= b for a, b in itertools.pairwise(seen))  # more copies, less doubt


def _p_win(text: str) -> int:
    match = re.search(r"Challenging wins with probability (\d+)%", text)
    assert match, text
    return int(match.group(1))


# -- strength ----------------------------------------------------------------------------------------------
def mean_units(lineup: list[Strategy], rules: Rules, rounds: int, seed: int) -> list[float]:
    """A small arena in core terms: seats rotate cyclically; mean units per round per lineup slot."""
    n = len(lineup)
    players = seats(n)
    rng = random.Random(seed)
    decisions = [random.Random(f"{seed}:{i}") for i in range(n)]
    totals = [0.0] * n
    for r in range(rounds):
        slot = {players[i]: (i + r) % n for i in range(n)}
        round_ = Round(rules, players, deal(rng, players), players[0])
        while not round_.is_over:
            view = view_of(round_)
            k = slot[view.me]
            action: Action = lineup[k].decide(view, decisions[k])
            round_.apply(action)
        assert round_.outcome is not None
        for p, units in round_.outcome.net.items():
            totals[slot[p]] += units
    return [t / rounds for t in totals]


def test_the_reader_is_ahead_of_random_players() -> None:
    reader, *randoms = mean_units(
        [get_strategy("reader"), get_strategy("random"), get_strategy("random")], make_rules("classic"), 300, 1
    )
    assert reader > 0.5 and all(reader > r for r in randoms)


def test_the_reader_is_ahead_of_the_binomial_baseline() -> None:
    reader, *others = mean_units(
        [get_strategy("reader"), get_strategy("binomial"), get_strategy("binomial")], make_rules("classic"), 400, 2
    )
    assert reader > 0.1 and all(reader > o for o in others)


def test_the_difficulty_levels_are_ordered() -> None:
    hard, normal, easy = mean_units(
        [get_strategy(level) for level in ("hard", "normal", "easy")], make_rules("classic"), 500, 3
    )
    assert hard > normal and hard > easy


@pytest.mark.parametrize(("preset", "n"), [("salomon", 2), ("classic", 2), ("classic", 3)])
def test_a_reader_reused_across_holdings_and_points_decides_as_a_fresh_one(preset: str, n: int) -> None:
    """A reader keeps its readings of recent points of a round, with the valuations that do not depend on the
    holding (a search asks one ``hard`` at the same point for many holdings, and alternates between its answer
    and its rebid).  Asked in a shuffled order, at points of several rounds, for several holdings and stakes
    each, one ``hard`` gives exactly the policy a fresh ``hard`` gives at every view."""
    rules = make_rules(preset)
    seats = tuple(f"p{i}" for i in range(n))
    rng = random.Random(f"cache:{preset}:{n}")
    views: list[SeatView] = []
    for r in range(4):
        serials = {p: deal_serial(rng, rules.serial_length, rules.digits) for p in seats}
        round_ = Round(rules, seats, serials, seats[r % n], rules.stake)
        played = get_strategy("hard")
        while round_.outcome is None and len(round_.history) < 6:
            who = round_.to_act
            assert who is not None
            for stake in (rules.stake, rules.stake + 2):  # the same history, another stake: other values
                for _ in range(3):  # the same point, other holdings of the seat to act
                    other = {**round_.serials, who: deal_serial(rng, rules.serial_length, rules.digits)}
                    replay = Round(rules, seats, other, seats[r % n], stake)
                    for action in round_.history:
                        replay.apply(action)
                    views.append(seat_view(replay, who))
            round_.apply(played.decide(seat_view(round_, who), rng))
    assert len({v.history for v in views}) > 8 and len({v.stake for v in views}) == 2
    rng.shuffle(views)
    shared = get_strategy("hard")
    for view in views + views[::-1]:
        assert policy_of(shared, view) == policy_of(get_strategy("hard"), view), view
