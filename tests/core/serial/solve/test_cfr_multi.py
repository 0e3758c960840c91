"""CFR+ at a 3-player table (core.serial.solve.cfr_multi) and the player of its tables (solved_multi).

The solver is checked against an independent brute force: the engine's own rounds walked over every
public history of 3-player 2×1 (every serial of the others enumerated), the solved table played
through :class:`SolvedMulti` and the best response remembering the whole history."""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest

from core.figures import Interval
from core.serial.players import get_strategy
from core.serial.players.base import policy_of
from core.serial.players.solved import SolvedTable, WithSolved, _index, action_of, pack_memory, unpack_memory
from core.serial.players.solved_multi import (
    MultiTable,
    SolvedMulti,
    multi_key,
    named_bit,
    opening_memory,
    pack_multi,
    pack_named,
    push_opening_memory,
    split_named,
    unpack_multi,
)
from core.serial.round import Action, MakeBid, Round
from core.serial.rules import ChallengeMode, Rules, make_rules
from core.serial.serials import deal_serial
from core.serial.solve.approx import LIKELIHOOD_FLOOR, LocalBestResponse
from core.serial.solve.approx_table import TableLBR
from core.serial.solve.cfr_multi import ANSWER, MultiFormat, MultiSolver, table_of, table_policy
from core.serial.solve.format import Format
from core.serial.view import seat_view

# the numba kernels compile once per process: these files share one xdist worker (``--dist loadgroup``)
pytestmark = pytest.mark.xdist_group("numba")

NAMES = ("p0", "p1", "p2")


def _rules(digits: int = 2, length: int = 1, rebid: bool = True) -> Rules:
    return make_rules("classic", digits=digits, serial_length=length, rebid=rebid)


@cache
def _solved(rebid: bool, named: int = 0) -> tuple[MultiSolver, MultiTable]:
    solver = MultiSolver(MultiFormat(_rules(rebid=rebid), 3), memory=1, named=named)
    solver.iterate(150)
    return solver, solver.table(floor=0.0)


def _walk(rules: Rules, strategy: SolvedMulti, seat: int, respond: bool) -> float:
    """What ``seat`` earns per round: playing ``strategy`` too, or (``respond``) its exact best response,
    which sees its serial and the whole public history; the engine's rounds over every deal."""
    fmt = Format(rules)
    k = fmt.size
    combos = [(a, b) for a in range(k) for b in range(k)]
    me = NAMES[seat]
    others = [p for p in NAMES if p != me]

    def deal(h: int, combo: tuple[int, int]) -> Round:
        serials = {me: fmt.serials[h], others[0]: fmt.serials[combo[0]], others[1]: fmt.serials[combo[1]]}
        return Round(rules, NAMES, serials, NAMES[0], 1)

    def walk(rounds: list[list[Round]], reach: np.ndarray) -> np.ndarray:
        head = rounds[0][0]
        if head.outcome is not None:
            return np.array([sum(reach[c] * r.outcome.net[me] for c, r in enumerate(row) if r.outcome)
                             for row in rounds])
        who = head.to_act
        assert who is not None
        legal = head.legal_actions()
        if who == me and respond:
            best = np.full(len(rounds), -np.inf)
            for action in legal:
                best = np.maximum(best, walk(_after(rounds, action), reach))
            return best
        out = np.zeros(len(rounds))  # one row per own hand
        if who == me:  # playing the strategy: its mixture differs by its own hand
            for h, row in enumerate(rounds):
                for action, p in policy_of(strategy, seat_view(row[0], me)):
                    out[h] += p * walk(_after([row], action), reach)[0]
            return out
        branches: dict[Action, np.ndarray] = {}
        for c, r in enumerate(rounds[0]):
            for action, p in policy_of(strategy, seat_view(r, who)):
                branches.setdefault(action, np.zeros(len(combos)))[c] += p
        for action, probs in branches.items():
            out += walk(_after(rounds, action), reach * probs)
        return out

    weights = np.array([fmt.weights[a] * fmt.weights[b] for a, b in combos])
    values = walk([[deal(h, c) for c in combos] for h in range(k)], weights)
    return float(fmt.weights @ values)


def _after(rounds: list[list[Round]], action: Action) -> list[list[Round]]:
    out = []
    for row in rounds:
        new = []
        for r in row:
            branch = r.copy()
            branch.apply(action)
            new.append(branch)
        out.append(new)
    return out


@pytest.mark.parametrize("rebid", [True, False])
def test_values_match_the_engine_and_no_seat_gains_much_by_a_best_response(rebid: bool) -> None:
    solver, table = _solved(rebid)
    rules = _rules(rebid=rebid)
    player = SolvedMulti(table)
    sigma = table_policy(solver.fmt, table, solver)
    values = solver.values(sigma)
    assert abs(sum(values)) < 1e-9
    w = solver.fmt.base.weights
    for seat in range(3):
        root = solver.node_values(seat, sigma)[0]  # [hand, hand, hand]: weighted by the deal, the seat's value
        assert np.einsum("abc,a,b,c->", root, w, w, w) == pytest.approx(values[seat], abs=1e-12)
        assert _walk(rules, player, seat, respond=False) == pytest.approx(values[seat], abs=1e-9)
        exact = _walk(rules, player, seat, respond=True)
        assert exact - values[seat] < 0.02, (seat, exact, values[seat])
        # the best response within the abstraction is a real strategy: it cannot beat the exact one
        assert solver.gains(table_policy(solver.fmt, table, solver))[seat] <= exact + 1e-9


def test_the_best_response_gains_shrink_as_it_iterates() -> None:
    solver = MultiSolver(MultiFormat(_rules(), 3), memory=1)
    solver.iterate(5)
    early = max(g - v for g, v in zip(solver.gains(), solver.values(), strict=True))
    solver.iterate(95)
    late = max(g - v for g, v in zip(solver.gains(), solver.values(), strict=True))
    assert late < early / 3, (early, late)


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal up to rounding: 1e-9 of the largest magnitude (the kernel sums in another order)."""
    return bool(np.abs(a - b).max() <= 1e-9 * max(1.0, float(np.abs(b).max())))


@pytest.mark.parametrize(("digits", "length", "memory", "rebid", "iterations"),
                         [(2, 2, 1, True, 4), (2, 2, 2, False, 3), (3, 2, 1, True, 2), (2, 1, 2, True, 6)])
def test_the_compiled_pass_and_the_numpy_reference_agree(
    digits: int, length: int, memory: int, rebid: bool, iterations: int
) -> None:
    pytest.importorskip("numba")
    fmt = MultiFormat(_rules(digits, length, rebid), 3)
    fast, reference = MultiSolver(fmt, memory), MultiSolver(fmt, memory, compiled=False)
    assert fast.kernels is not None and reference.kernels is None
    fast.iterate(iterations)
    reference.iterate(iterations)
    assert np.count_nonzero(reference.regret == 0.0) > 0  # regret matching+ has cut actions: zero rows are skipped
    assert _close(fast.regret, reference.regret) and _close(fast.total, reference.total)
    assert np.abs(fast.total).max() > 0 and np.abs(fast.regret).max() > 0
    for seat in range(3):
        current = reference.current()
        assert _close(fast.node_values(seat, current), reference.node_values(seat, current))
    assert _close(np.array(fast.values()), np.array(reference.values()))
    assert _close(np.array(fast.gains()), np.array(reference.gains()))
    table = reference.table(floor=0.05)
    rounded = table_policy(fmt, table, reference)
    assert _close(np.array(fast.gains(rounded)), np.array(reference.gains(rounded)))


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("players", [2, 3])
def test_the_uniform_average_weighs_each_iterate_once_where_cfr_plus_weighs_iterate_t_by_t(
    compiled: bool, players: int
) -> None:
    """``uniform``: the regrets are CFR+'s, bit for bit (the average never feeds back); the first iterate adds the
    same to both averages; every later iterate ``t`` adds ``t`` times as much to the linear one as to the uniform
    one, in the compiled kernel and in the numpy reference alike."""
    if compiled:
        pytest.importorskip("numba")
    fmt = MultiFormat(_rules(2, 2), players)
    linear, uniform = MultiSolver(fmt, 1, compiled=compiled), MultiSolver(fmt, 1, compiled=compiled, uniform=True)
    linear.iterate(1)
    uniform.iterate(1)
    assert np.array_equal(linear.total, uniform.total) and linear.total.any()
    for t in range(2, 5):
        before_linear, before_uniform = linear.total.copy(), uniform.total.copy()
        linear.iterate(1)
        uniform.iterate(1)
        assert np.array_equal(linear.regret, uniform.regret)
        added = uniform.total - before_uniform
        assert added.any() and _close(linear.total - before_linear, t * added)
    assert not _close(linear.total / linear.total.sum(), uniform.total / uniform.total.sum())


@pytest.mark.parametrize(("digits", "length", "memory"), [(2, 2, 1), (3, 2, 2)])
def test_the_parallel_pass_equals_the_sequential_one_bit_for_bit(digits: int, length: int, memory: int) -> None:
    numba = pytest.importorskip("numba")
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread: numba has no second to run on")
    fmt = MultiFormat(_rules(digits, length), 3)
    sequential, parallel = MultiSolver(fmt, memory), MultiSolver(fmt, memory, threads=2)
    assert parallel.threads == 2 and sequential.threads == 1
    assert len(parallel.level) > 2 and parallel.level[-1] == len(parallel.nodes)  # several levels, every node once
    height = np.empty(len(parallel.nodes), dtype=np.int64)
    for j in range(len(parallel.level) - 1):
        height[parallel.order[parallel.level[j]:parallel.level[j + 1]]] = j
    assert sorted(parallel.order.tolist()) == list(range(len(parallel.nodes)))
    parents = np.repeat(np.arange(len(parallel.nodes)), np.diff(parallel.first))
    kids = parallel.child >= 0
    assert (height[parallel.child[kids]] < height[parents[kids]]).all()  # a level reads only lower levels
    sequential.iterate(4)
    parallel.iterate(4)
    assert np.abs(sequential.regret).max() > 0
    assert np.array_equal(parallel.regret, sequential.regret) and np.array_equal(parallel.total, sequential.total)
    assert parallel.gains() == sequential.gains() and parallel.values() == sequential.values()
    with pytest.raises(ValueError, match="at least 1"):
        MultiSolver(fmt, memory, threads=0)


@pytest.mark.parametrize("compiled", [True, False])
def test_a_restored_solve_continues_as_if_never_stopped(compiled: bool) -> None:
    fmt = MultiFormat(_rules(2, 2), 3)
    straight = MultiSolver(fmt, 1, compiled)
    straight.iterate(5)
    first = MultiSolver(fmt, 1, compiled)
    first.iterate(3)
    resumed = MultiSolver(fmt, 1, compiled)
    resumed.restore(first.regret.copy(), first.total.copy(), first.iterations)
    resumed.iterate(2)
    assert resumed.iterations == 5
    assert np.array_equal(resumed.regret, straight.regret) and np.array_equal(resumed.total, straight.total)
    assert resumed.table() == straight.table()
    with pytest.raises(ValueError, match="does not fit"):
        MultiSolver(MultiFormat(_rules(2, 1), 3), 1, compiled).restore(first.regret, first.total, 3)


def test_the_table_round_trips_its_encoding() -> None:
    _, table = _solved(True)
    assert MultiTable.decode(table.encode()) == table
    header, packed = pack_multi(table)
    assert header == "3 2 1 1 1"
    assert unpack_multi(packed) == table
    assert all(sum(p for _, p in row) == 1000 for rows in table.entries.values() for row in rows)


@pytest.mark.parametrize("rebid", [True, False])
def test_the_shipped_table_plays_legally_everywhere_at_its_table_and_falls_back_elsewhere(rebid: bool) -> None:
    hard = get_strategy("hard")
    assert isinstance(hard, WithSolved)
    multi = [s for s in hard.solved if isinstance(s, SolvedMulti)]
    assert multi, "no 3-player table shipped"
    rules = make_rules("classic", digits=3, serial_length=3, rebid=rebid)
    rng = random.Random(7)
    opponents = [get_strategy("random"), get_strategy("binomial"), hard]
    for game in range(150):
        serials = {p: deal_serial(rng, 3, 3) for p in NAMES}
        round_ = Round(rules, NAMES, serials, NAMES[game % 3], 1)
        seat = game % 3
        while round_.outcome is None:
            who = round_.to_act
            assert who is not None
            view = seat_view(round_, who)
            if who == NAMES[seat]:
                assert any(s.fits(view) for s in multi), multi_key(view, 1)
                action = hard.decide(view, rng)
            else:
                action = opponents[game % 3].decide(view, rng)
            round_.apply(action)  # raises on an illegal action
    # where it does not fit, hard plays its inner strategy: 4 players, 2 players, first mode, bonus bids
    first = make_rules("classic", digits=3, serial_length=3, rebid=True, challenge_mode=ChallengeMode.FIRST)
    for changed, n in [(rules, 4), (rules, 2), (first, 3), (make_rules("salomon", digits=3, serial_length=3), 3)]:
        names = tuple(f"p{i}" for i in range(n))
        round_ = Round(changed, names, {p: deal_serial(rng, 3, 3) for p in names}, names[0], 1)
        view = seat_view(round_, names[0])
        assert not any(s.fits(view) for s in multi)
        assert not isinstance(hard._pick(view), SolvedMulti)
        round_.apply(hard.decide(view, rng))


def _code(action: Action, rules: Rules) -> int:
    return _index(action.bid, rules) if isinstance(action, MakeBid) else ANSWER


@pytest.mark.parametrize("lookahead", [1, 2])
def test_the_table_lbr_values_every_candidate_as_the_engine_driven_lbr_does(lookahead: int) -> None:
    _, table = _solved(True)
    rules = _rules()
    fmt = MultiFormat(rules, 3)
    lbr = TableLBR(fmt, table, lookahead=lookahead)
    player = SolvedMulti(table)
    index = {node.key: i for i, node in enumerate(lbr.solver.nodes)}
    w = fmt.base.weights
    rng = random.Random(3)
    compared = 0
    for trial in range(12):
        seat = trial % 3
        me = NAMES[seat]
        round_ = Round(rules, NAMES, {p: deal_serial(rng, 1, 2) for p in NAMES}, NAMES[0], 1)
        engine = LocalBestResponse(player, round_, me, random.Random(0), lookahead=lookahead)
        belief = np.outer(w, w)
        while round_.outcome is None:
            who = round_.to_act
            assert who is not None
            view = seat_view(round_, who)
            i = index[multi_key(view, table.memory)]
            if who == me:
                theirs = dict(engine.values(round_))
                hand = fmt.base.hand_of(round_.serials[me])
                node = lbr.solver.nodes[i]
                mine = {action_of(view, node.actions[j]): lbr._value(node.children[j], seat, hand,
                                                                      belief / belief.sum(), lookahead - 1)
                        for j in lbr._candidates(i)}
                assert set(mine) == set(theirs)
                for action, value in mine.items():  # approx drops branches under 0.1 % and samples past depth 3
                    assert value == pytest.approx(theirs[action], abs=0.002), (action, value, theirs[action])
                    compared += 1
                action = rng.choice(sorted(theirs, key=str))
            else:
                action = player.decide(view, rng)
                p = lbr.sigma[i][:, lbr.col[i][_code(action, rules)]]
                others = [s for s in range(3) if s != seat]
                shape = (2, 1) if others.index(NAMES.index(who)) == 0 else (1, 2)
                belief = belief * np.maximum(p, LIKELIHOOD_FLOOR).reshape(shape)
            engine.observe(action)
            round_.apply(action)
    assert compared > 30


@pytest.mark.parametrize("named", [0, 0b110])  # plain; remembering the digits seats 1 and 2 named (as shipped)
def test_the_table_lbr_earns_no_more_than_the_exact_best_response(named: int) -> None:
    _, table = _solved(True, named)
    assert table.named == named
    rules = _rules()
    result = TableLBR(MultiFormat(rules, 3), table, lookahead=2).play(4500, seed=2)
    player = SolvedMulti(table)
    for seat in range(3):
        exact = _walk(rules, player, seat, respond=True)
        value, realised = Interval.of(result.expected[seat]), Interval.of(result.realised[seat])
        assert value.mean <= exact + value.half_width, (seat, value, exact)
        assert abs(value.mean - realised.mean) <= value.half_width + realised.half_width
        assert value.half_width < 0.05
        # each round's number of bids: at least the opening, at most every bid once and one rebid
        bids = result.bids[seat]
        assert len(bids) == len(result.expected[seat]) == 1500
        assert min(bids) >= 1 and max(bids) <= len(MultiFormat(rules, 3).bids) + 1
        assert any(b <= table.memory + 1 for b in bids) and any(b > table.memory + 1 for b in bids)
        # split by length at memory + 1 bids: every round on one side, in order
        assert result.whole == table.memory + 1
        short, longer = result.by_length(seat)
        assert short == [v for v, b in zip(result.expected[seat], bids, strict=True) if b <= table.memory + 1]
        assert longer == [v for v, b in zip(result.expected[seat], bids, strict=True) if b >= table.memory + 2]
        # the table's own value in the seat: the engine's rounds over every deal, every seat playing the table
        assert result.own[seat] == pytest.approx(_walk(rules, player, seat, respond=False), abs=1e-9)
        assert result.gain(seat) == pytest.approx(value.mean - result.own[seat])
    assert sum(result.own.values()) == pytest.approx(0.0, abs=1e-9)  # classic: what one seat wins the others pay


@pytest.mark.parametrize("rebid", [True, False])
def test_the_table_a_strategy_plays_is_picked_by_its_shape_and_no_other_table_is_parsed(rebid: bool) -> None:
    from core.serial.players.solved_multi_data import TABLES

    players = [SolvedMulti(packed) for packed in TABLES]  # fresh: nothing parsed yet
    strategy = WithSolved(get_strategy("reader"), players, name="test")
    rules = make_rules("classic", digits=3, serial_length=3, rebid=rebid)
    table = table_of(strategy, rules, 3)
    assert table is not None and table.fits(rules, 3) and table.rebid == rebid
    assert ["table" in p.__dict__ for p in players] == [p.shape.rebid == rebid for p in players]
    assert table_of(players[0], make_rules("classic", digits=3, serial_length=3, rebid=False), 3) is players[0].table
    assert table_of(strategy, rules, 4) is None and table_of(strategy, _rules(), 3) is None
    assert table_of(get_strategy("reader"), rules, 3) is None
    assert table_of(get_strategy("hard"), make_rules("salomon", digits=3, serial_length=3), 3) is None  # bonuses


def test_a_table_with_the_opening_remembers_the_opening_in_place_of_the_oldest_bid() -> None:
    before = (3, 2, 1, 0)  # the bids before the standing one, most recent first: 0 opened
    assert opening_memory(before, 1) == (0,)
    assert opening_memory(before, 2) == (3, 0)
    assert opening_memory(before, 3) == (3, 2, 0)
    assert opening_memory(before, 4) == before == opening_memory(before, 5)  # nothing forgotten yet
    assert opening_memory((), 2) == ()
    with pytest.raises(ValueError, match="at least one bid"):
        opening_memory(before, 0)
    # pushed bid by bid, the packed memory is always the packing of what is remembered
    rng = random.Random(5)
    for _ in range(200):
        bids = sorted(rng.sample(range(30), rng.randint(1, 9)))
        memory = rng.randint(1, 4)
        packed = -1
        for i, bid in enumerate(bids[:-1]):
            packed = push_opening_memory(packed, bid, memory, 30)
            assert packed == pack_memory(opening_memory(tuple(bids[i::-1]), memory), 30), (bids, memory, i)
            assert pack_memory(unpack_memory(packed, 30), 30) == packed  # the inverse, none (−1) included


@pytest.mark.parametrize("memory", [1, 2])
def test_a_solve_with_the_opening_has_as_many_states_and_its_table_plays_as_the_solver_values_it(memory: int) -> None:
    rules = _rules()
    fmt = MultiFormat(rules, 3)
    solver = MultiSolver(fmt, memory=memory, opening=True)
    assert len(solver.nodes) == len(MultiSolver(fmt, memory=memory).nodes)  # other bids remembered, not more
    solver.iterate(60)
    table = solver.table(floor=0.0)
    assert table.opening and pack_multi(table)[0] == f"3 2 1 1 {memory} 1"
    assert unpack_multi(pack_multi(table)[1]) == table
    # the player keys every state it meets as the solver did: the engine's rounds, walked over every deal, give
    # each seat the value the solver computes on its graph (a key remembering the wrong bids would miss or differ)
    player = SolvedMulti(pack_multi(table))
    values = solver.values(table_policy(fmt, table, solver))
    for seat in range(3):
        assert _walk(rules, player, seat, respond=False) == pytest.approx(values[seat], abs=1e-9)
    # and the remembered bids differ from the plain table's: some state's memory is the opening, not the last bid
    plain = {node.key for node in MultiSolver(fmt, memory=memory).nodes}
    assert {node.key for node in solver.nodes} != plain
    with pytest.raises(ValueError, match="at least one bid"):
        MultiSolver(fmt, memory=0, opening=True)


def test_a_table_header_says_whether_it_remembers_the_opening() -> None:
    assert MultiTable.shape("3 3 3 1 3").opening is False
    assert MultiTable.shape("3 3 3 1 3 1").opening is True
    assert MultiTable(3, 3, 3, True, 3, {}, True).header() == "3 3 3 1 3 1"
    assert MultiTable(3, 3, 3, True, 3, {}).header() == "3 3 3 1 3"  # the shipped tables' headers, unchanged
    for bad in ("3 3 3 1 3 0", "3 3 3 1 3 2", "3 3 3 1 3 1 1", "3 3 3 1", "", "3 3 3 2 3"):
        with pytest.raises(ValueError, match="not a table's header"):
            MultiTable.shape(bad)  # a sixth field other than 1 is not read as "no opening"


def test_named_digits_pack_above_the_remembered_bids_and_unpack() -> None:
    rng = random.Random(5)
    for _ in range(300):
        memory, nbids = rng.randint(0, 3), rng.choice([6, 18, 30])
        bids = pack_memory(tuple(rng.randrange(nbids) for _ in range(rng.randint(0, memory))), nbids)
        named = rng.choice([0, rng.randrange(1 << 9)])
        packed = pack_named(bids, named, memory, nbids)
        assert split_named(packed, memory, nbids) == (bids, named)
        if not named:
            assert packed == bids  # nothing named: the plain memory (−1 for none), as the shipped tables key it
    assert named_bit(2, 7, 3) == 1 << (2 * 3 + 1)  # seat 2's place for bid 7's digit (7 = 2 × 3 + 1)


def test_a_table_header_says_which_seats_named_digits_it_remembers() -> None:
    table = MultiTable(3, 3, 3, True, 2, {}, False, 5)
    assert table.header() == "3 3 3 1 2 named=5" and MultiTable.shape("3 3 3 1 2 named=5") == table
    both = MultiTable(3, 3, 3, True, 2, {}, True, 1)
    assert both.header() == "3 3 3 1 2 1 named=1" and MultiTable.shape(both.header()) == both
    assert MultiTable.shape("3 3 3 1 3").named == 0
    for bad in ("3 3 3 1 3 named=0", "3 3 3 1 3 named=8", "3 3 3 1 3 named=x", "3 3 3 1 3 named=",
                "3 3 3 1 3 named=1 1", "3 3 3 1 named=1", "3 3 3 1 3 0 named=1", "2 2 2 1 1 named=4"):
        with pytest.raises(ValueError, match="not a table's header"):
            MultiTable.shape(bad)


@pytest.mark.parametrize(("memory", "named"), [(0, 7), (1, 1), (1, 6), (2, 7)])
def test_a_solve_with_named_digits_keys_as_its_player_does_and_plays_as_the_solver_values_it(memory: int,
                                                                                           named: int) -> None:
    rules = _rules()
    fmt = MultiFormat(rules, 3)
    solver = MultiSolver(fmt, memory=memory, named=named)
    plain = MultiSolver(fmt, memory=memory)
    assert len(solver.nodes) > len(plain.nodes)  # the named digits tell histories apart that the bids alone merge
    assert {split_named(node.key[5], memory, len(fmt.bids))[0] for node in solver.nodes} == {
        node.key[5] for node in plain.nodes}  # and the bids remembered are the plain solve's
    solver.iterate(60)
    table = solver.table(floor=0.0)
    assert table.named == named and unpack_multi(pack_multi(table)[1]) == table
    # the player keys every state as the solver did: the engine's rounds over every deal give each seat the
    # solver's own value on its graph (a key missing a named digit, or naming a seat's it should not, would differ)
    player = SolvedMulti(pack_multi(table))
    values = solver.values(table_policy(fmt, table, solver))
    for seat in range(3):
        assert _walk(rules, player, seat, respond=False) == pytest.approx(values[seat], abs=1e-9)
    with pytest.raises(ValueError, match="seats 0 to 2"):
        MultiSolver(fmt, memory=1, named=8)


@pytest.mark.parametrize(("memory", "named"), [(0, 3), (1, 1), (1, 3)])
def test_the_exact_best_response_to_a_heads_up_table_with_named_digits_is_the_engine_driven_one(
        memory: int, named: int) -> None:
    from core.serial.solve.best_response import exploitability
    from core.serial.solve.cfr_multi import heads_up_table
    from core.serial.solve.tree import multi_table_exploitability, table_exploitability

    rules = _rules(2, 2)
    fmt = Format(rules)
    solver = MultiSolver(MultiFormat(rules, 2), memory=memory, named=named)
    solver.iterate(40)
    table = solver.table(floor=0.001)
    walked = multi_table_exploitability(fmt, table, fast=False)
    engine = exploitability(fmt, SolvedMulti(table)).seat_values  # the engine's rounds, the player's own keys
    assert walked == pytest.approx(engine, abs=1e-9)
    # without named digits the walk is the heads-up tables' one, figure for figure
    plain = MultiSolver(MultiFormat(rules, 2), memory=memory)
    plain.iterate(40)
    assert multi_table_exploitability(fmt, plain.table(floor=0.001), fast=False) == pytest.approx(
        table_exploitability(fmt, heads_up_table(plain), fast=False), abs=1e-9)
    with pytest.raises(ValueError, match="2-player solve"):
        heads_up_table(solver)


@pytest.mark.parametrize(("digits", "length", "memory", "rebid"),
                         [(2, 2, 1, True), (2, 2, 1, False), (3, 2, 2, True), (2, 2, 0, True)])
def test_at_two_players_the_solver_is_the_heads_up_one(digits: int, length: int, memory: int, rebid: bool) -> None:
    from core.serial.solve.cfr import Solver
    from core.serial.solve.cfr_multi import heads_up_table

    rules = _rules(digits, length, rebid)
    heads_up, two = Solver(Format(rules), memory=memory), MultiSolver(MultiFormat(rules, 2), memory=memory)
    heads_up.iterate(10)
    two.iterate(10)
    table, want = heads_up_table(two), heads_up.table()
    assert within_a_thousandth(table, want)  # node for node (ties in the rounding may fall either way)
    fewer = Solver(Format(rules), memory=memory)
    fewer.iterate(3)
    assert not within_a_thousandth(fewer.table(), want)  # the comparison does tell solves apart
    mine = heads_up.average()
    for node, probs in zip(two.nodes, two.average(), strict=True):
        actor, standing, _, phase, is_rebid, prev = node.key
        assert np.abs(probs - mine[(actor == 0, standing, phase, bool(is_rebid), prev)]).max() < 1e-9
    assert len(two.nodes) == len(mine)
    with pytest.raises(ValueError, match="2-player solve"):
        heads_up_table(MultiSolver(MultiFormat(rules, 3), memory=1))


def within_a_thousandth(table: SolvedTable, want: SolvedTable) -> bool:
    """The same shape and states, every action's thousandths within one of ``want``'s (an exact tie in the
    rounding to thousandths may fall either way when the two sums differ in the last bits)."""
    if (table.header(), set(table.entries)) != (want.header(), set(want.entries)):
        return False
    for key, rows in want.entries.items():
        for mine, theirs in zip(table.entries[key], rows, strict=True):
            a, b = dict(mine), dict(theirs)
            if any(abs(a.get(x, 0) - b.get(x, 0)) > 1 for x in {*a, *b}):
                return False
    return True
