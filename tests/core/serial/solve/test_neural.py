"""Neural self-play (issue #24): the network's policy, the exact gradients, the arrays' best response, training."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from core.serial import Round, make_rules, seat_view
from core.serial.round import Action, CallCount, Challenge, MakeBid, Phase
from core.serial.serials import deal_serial
from core.serial.solve import Format, exploitability
from core.serial.solve import neural as neural_mod
from core.serial.solve.format import FloatArray
from core.serial.solve.neural import Learner, TrainConfig, Tree, tabular_mmd, train
from core.serial.solve.neural_net import FEATURES, Net, NeuralStrategy, feature_names, feature_rows, history_width
from core.serial.view import SeatView

PLAYERS = ("a", "b", "c", "d", "e")


def _key(action: Action) -> tuple[str, int]:
    if isinstance(action, MakeBid):
        return ("bid", action.bid.id)
    return ("challenge", 0) if isinstance(action, Challenge) else ("count", 0)


def _strategy(seed: int = 3) -> NeuralStrategy:
    net = Net.create(len(FEATURES), (16, 8), seed)
    for p in net.params:  # a net far from uniform, so that every probability is tested, not 1/n
        p += np.random.default_rng(seed).normal(0.0, 0.7, p.shape)
    return NeuralStrategy(net)


@pytest.mark.parametrize(
    ("preset", "players", "options"),
    [
        ("classic", 2, {"digits": 2, "serial_length": 2, "rebid": True}),
        ("classic", 3, {}),  # the real game: 8×10, no rebid right
        ("salomon", 5, {}),  # bonuses and the rebid right, 5 players
        ("classic", 2, {"digits": 3, "serial_length": 2, "rebid": True, "rank_order": "aces-high"}),
    ],
)
def test_the_policy_is_a_distribution_over_exactly_the_legal_actions(preset: str, players: int,
                                                                     options: dict[str, object]) -> None:
    rules = make_rules(preset, **options)
    seats = PLAYERS[:players]
    strategy = _strategy()
    kinds: set[str] = set()
    rng = random.Random(7)
    for _ in range(30):
        serials = {p: deal_serial(rng, rules.serial_length, rules.digits) for p in seats}
        rnd = Round(rules, seats, serials, seats[0])
        while not rnd.is_over:
            view = seat_view(rnd, rnd.to_act or "")
            pairs = strategy.policy(view)
            assert sorted(_key(a) for a, _ in pairs) == sorted(_key(a) for a in view.legal)
            assert all(a.player == view.me for a, _ in pairs)
            probs = [p for _, p in pairs]
            assert all(p > 0 for p in probs) and abs(sum(probs) - 1) < 1e-9
            if view.standing_bid is None:
                kinds.add("opening")
            elif view.phase is Phase.REBID:
                kinds.add("deciding on a rebid")
            elif view.standing_is_rebid:
                kinds.add("facing a rebid")
            elif not view.legal.raise_ids:
                kinds.add("top bid: only the challenge")
            else:
                kinds.add("facing a bid")
            action = strategy.decide(view, rng)
            assert action in view.legal
            rnd.apply(action)
    expected = {"opening", "facing a bid"} | ({"deciding on a rebid", "facing a rebid"} if rules.rebid else set())
    assert expected <= kinds


def test_every_format_gives_rows_of_the_same_width_and_the_top_bid_only_an_answer() -> None:
    small = make_rules("classic", digits=2, serial_length=1, rebid=True)
    rnd = Round(small, ("a", "b"), {"a": deal_serial(random.Random(1), 1, 2), "b": deal_serial(random.Random(2), 1, 2)},
                "a")
    widths, answers = set(), []
    while not rnd.is_over:  # open at the top bid, then challenge it and call for the count
        view = seat_view(rnd, rnd.to_act or "")
        actions, rows = feature_rows(view)
        widths |= {len(r) for r in rows}
        raises = [a for a in actions if isinstance(a, MakeBid)]
        if not raises:
            answers.append([type(a) for a in actions])
        rnd.apply(raises[-1] if raises else actions[-1])
    assert answers == [[Challenge], [CallCount]]
    full = make_rules("classic")
    big = Round(full, PLAYERS, {p: deal_serial(random.Random(i)) for i, p in enumerate(PLAYERS)}, "a")
    _, rows = feature_rows(seat_view(big, "a"))
    assert widths == {len(rows[0])} == {len(FEATURES)} and len(rows) == 400  # 5 × 8 quantities × 10 digits


def test_the_exact_gradients_match_finite_differences_for_each_seat() -> None:
    fmt = Format(make_rules("classic", digits=2, serial_length=1, rebid=True))
    tree = Tree.build(fmt)
    learner = Learner.create(tree, TrainConfig(rule="pg", mode="reach", alpha=0.1, hidden=(3,)))
    nets = (Net.create(tree.x.shape[1], (3,), 1), Net.create(tree.x.shape[1], (3,), 2))
    noise = np.random.default_rng(5)
    for p in nets[0].params + nets[1].params:
        p += noise.normal(0.0, 0.5, p.shape)
    _, grads = learner.gradients(nets)
    eps, checked = 1e-6, 0
    for seat, sign in ((0, 1.0), (1, -1.0)):  # seat 1 ascends −(seat 0's value)
        for i, p in enumerate(nets[seat].params):
            for idx in np.ndindex(p.shape):
                old = p[idx]
                p[idx] = old + eps
                up, _ = learner.gradients(nets)
                p[idx] = old - eps
                down, _ = learner.gradients(nets)
                p[idx] = old
                numeric = sign * (up - down) / (2 * eps)
                assert grads[seat][i][idx] == pytest.approx(numeric, rel=1e-5, abs=1e-9)
                checked += abs(numeric) > 1e-4
    assert checked > 20  # the check saw real gradients, not only zeros


def test_the_arrays_best_response_equals_the_engine_walk() -> None:
    fmt = Format(make_rules("classic", digits=2, serial_length=1, rebid=True))  # 2×1 (small)
    tree = Tree.build(fmt)
    learner = Learner.create(tree, TrainConfig(hidden=(8,), seed=4))
    for p in learner.net.params:
        p += np.random.default_rng(6).normal(0.0, 0.6, p.shape)
    ours = neural_mod.exploitability(tree, np.exp(learner.log_policy()))
    engine = exploitability(fmt, learner.strategy())  # merges histories by the strategy's memo_key
    assert ours == pytest.approx(engine.seat_values, abs=1e-9)
    assert 0.1 < engine.value < 1.5


def test_the_history_summary_widens_the_features_and_its_memo_key_keeps_the_best_response_exact() -> None:
    fmt = Format(make_rules("classic", digits=2, serial_length=2, rebid=True))
    config = TrainConfig(hidden=(8,), seed=4, summary=True)
    tree = Tree.build(fmt, config.window, summary=True)
    assert tree.x.shape[1] == len(feature_names(config.window, summary=True)) == len(FEATURES) + 14
    assert len(np.unique(tree.x, axis=0)) == len(tree.x)  # a row per distinct feature vector
    _assert_the_best_response_is_the_engines(fmt, tree, config)  # (the engine merges by the summary's memo_key)
    view = _ones_twos_ones(fmt)
    names = feature_names(config.window, summary=True)
    _, rows = feature_rows(view, config.window, summary=True)
    row = dict(zip(names, rows[0], strict=True))
    assert (row["opener"], row["bids_made"]) == (0.0, 3 / 4)
    assert (row["standing_their_max"], row["standing_their_times"], row["standing_i_named"]) == (2 / 4, 2 / 4, 0.0)


def _assert_the_best_response_is_the_engines(fmt: Format, tree: Tree, config: TrainConfig) -> None:
    """A randomised network's exact exploitability on the tree's arrays equals the engine's best response to it."""
    learner = Learner.create(tree, config)
    for p in learner.net.params:
        p += np.random.default_rng(6).normal(0.0, 0.6, p.shape)
    ours = neural_mod.exploitability(tree, np.exp(learner.log_policy()))
    engine = exploitability(fmt, learner.strategy())  # merges histories by the strategy's memo_key
    assert ours == pytest.approx(engine.seat_values, abs=1e-9)


def _ones_twos_ones(fmt: Format) -> SeatView:
    """b's view after a names 1 one, b 1 two and a 2 ones: b is to act."""
    rnd = Round(fmt.rules, ("a", "b"), {"a": fmt.serials[0], "b": fmt.serials[1]}, "a")
    one, two = fmt.digits
    for q, d in ((1, one), (1, two), (2, one)):
        view = seat_view(rnd, rnd.to_act or "")
        rnd.apply(next(a for a in view.legal if isinstance(a, MakeBid) and (a.bid.quantity, a.bid.digit) == (q, d)))
    return seat_view(rnd, "b")


def test_the_whole_history_is_a_bit_per_bid_and_side_and_its_memo_key_keeps_the_best_response_exact() -> None:
    fmt = Format(make_rules("classic", digits=2, serial_length=2, rebid=True))
    config = TrainConfig(hidden=(8,), seed=4, history=True)
    tree = Tree.build(fmt, config.window, history=True)
    assert tree.x.shape[1] == len(feature_names(config.window, history=8, digits=2)) == len(FEATURES) + 16 + 2
    assert len(np.unique(tree.x, axis=0)) == len(tree.x) == tree.rows.size  # perfect recall: every (edge, hand)
    _assert_the_best_response_is_the_engines(fmt, tree, config)  # (the engine merges by the history's memo_key)
    view = _ones_twos_ones(fmt)
    assert history_width(view) == 8
    names = feature_names(config.window, history=history_width(view), digits=2)
    held = [view.serial.counts[d] / 2 for d in fmt.rules.digit_set]
    for row in feature_rows(view, config.window, history=True)[1]:
        bits = dict(zip(names, row, strict=True))
        assert [bits[f"bid{i}_{side}"] for i in range(4) for side in ("mine", "theirs")] == [0, 1, 1, 0, 0, 1, 0, 0]
        assert [bits["held_digit0"], bits["held_digit1"]] == held


@pytest.mark.parametrize(
    "config",
    [
        TrainConfig(steps=10, every=5, fit_steps=10, magnet_every=5, seed=2),  # magnetic mirror descent
        TrainConfig(steps=10, every=5, fit_steps=10, magnet_every=0, magnet_tau=0.1, seed=2),  # a magnet mixed in
        TrainConfig(steps=40, every=20, rule="pg", alpha=0.2, lr=0.003, lr_final=None, beta1=0.0, magnet_every=0,
                    mode="cf", seed=2),  # the policy gradient, uniform magnet
    ],
    ids=["mmd", "mmd-mixed-magnet", "pg"],
)
def test_a_short_seeded_run_lowers_the_exact_exploitability(config: TrainConfig) -> None:
    fmt = Format(make_rules("classic", digits=2, serial_length=2, rebid=True))
    tree = Tree.build(fmt)
    learner, curve = train(fmt, config, tree=tree)
    untrained = curve[0][1]
    trained = exploitability(fmt, learner.strategy()).value  # re-measured by the engine's own walk
    assert trained == pytest.approx(curve[-1][1], abs=1e-9)
    assert untrained > 0.7 and trained < 0.6 * untrained
    assert learner.best is not None and learner.best[1] == min(v for _, v in curve)
    short = dataclasses.replace(config, steps=2, every=1)
    assert curve_of(fmt, short, tree) == curve_of(fmt, short, tree)  # seeded, no clock: the same run twice


def test_tabular_mmd_with_a_moving_magnet_converges_in_2x2() -> None:
    tree = Tree.build(Format(make_rules("classic", digits=2, serial_length=2, rebid=True)))
    curve = tabular_mmd(tree, TrainConfig(steps=150, every=50, magnet_every=20))
    values = [v for _, v in curve]
    assert values[0] == pytest.approx(0.8025, abs=5e-5)  # uniform: `liars exploit --strategy random`
    assert values == sorted(values, reverse=True) and values[-1] < 0.01


def test_the_tremble_frees_the_values_off_the_path_from_the_ratios_of_vanishing_probabilities() -> None:
    """Where seat 1 (almost) never goes, seat 0's action values hang on which of its hands is the less unlikely
    there; with the belief floor (a tremble) they follow the chance of its hands, whatever those ratios are."""
    fmt = Format(make_rules("classic", digits=2, serial_length=1, rebid=True))
    tree = Tree.build(fmt)
    learner = Learner.create(tree, TrainConfig(hidden=(8,), seed=4))
    base = learner.log_policy()  # [edge, hand]: the untrained network's policy
    # seat 1's first decision after seat 0's opening, and the raise it (almost) never makes there
    edge = next(e for e in range(len(tree.parent)) if tree.edge_actor[e] == 1 and tree.actor[tree.child[e]] == 0)
    after = np.flatnonzero(tree.parent == tree.child[edge])  # seat 0's answers to that raise
    assert len(after) >= 2

    def values(low: tuple[float, float], tremble: float) -> FloatArray:
        z = base.copy()
        z[edge] = low  # log π of the raise for seat 1's hand 0 and hand 1
        logp = tree.log_policy(z, rows=False)
        sweep = learner._sweep(logp, 0.2, tremble)
        out: FloatArray = sweep.qv[after] / sweep.mass[after, None]
        return out

    one, other = (-20.0, -30.0), (-30.0, -20.0)  # the same vanishing reach, the less unlikely hand swapped
    assert np.abs(values(one, 0.0) - values(other, 0.0)).max() > 0.5
    assert np.abs(values(one, 1e-3) - values(other, 1e-3)).max() < 1e-4
    # where seat 1 does go, the tremble moves its values by about the tremble's share only
    plain, trembled = learner._sweep(base, 0.2, 0.0), learner._sweep(base, 0.2, 1e-3)
    on_path = plain.mass > 0.05
    assert on_path.sum() > 10
    assert np.abs(plain.qv[on_path] / plain.mass[on_path, None]
                  - trembled.qv[on_path] / trembled.mass[on_path, None]).max() < 0.01


def curve_of(fmt: Format, config: TrainConfig, tree: Tree) -> list[tuple[int, float]]:
    return train(fmt, config, tree=tree)[1]


def test_the_config_refuses_what_it_cannot_run() -> None:
    for bad in ({"mode": "sampled"}, {"rule": "adam"}, {"every": 0}, {"lr": 0.0}, {"alpha_final": 0.0}):
        with pytest.raises(ValueError):
            TrainConfig(**bad)
    assert TrainConfig(alpha=0.2, alpha_final=0.02, steps=11).alpha_at(10) == pytest.approx(0.02)


def test_decisions_are_seeded_and_explained() -> None:
    rules = make_rules("classic", digits=2, serial_length=2, rebid=True)
    rnd = Round(rules, ("a", "b"), {"a": deal_serial(random.Random(1), 2, 2), "b": deal_serial(random.Random(2), 2, 2)},
                "a")
    view = seat_view(rnd, "a")
    strategy = _strategy()
    draws = [strategy.decide(view, random.Random(9)) for _ in range(3)]
    assert draws[0] == draws[1] == draws[2]
    counts: dict[tuple[str, int], int] = {}
    rng = random.Random(11)
    for _ in range(4000):
        key = _key(strategy.decide(view, rng))
        counts[key] = counts.get(key, 0) + 1
    for action, p in strategy.policy(view):
        assert counts.get(_key(action), 0) / 4000 == pytest.approx(p, abs=0.03)
    assert strategy.explain(view).startswith("My network's likeliest choices here: bid ")


def test_the_fit_s_kl_says_how_far_the_network_was_left_from_its_step_s_target() -> None:
    tree = Tree.build(Format(make_rules("classic", digits=2, serial_length=1, rebid=True)))
    idle = Learner.create(tree, TrainConfig(hidden=(16,), fit_steps=0, seed=5))
    untried = idle.fit_kl  # (a local: the attribute changes with the step below)
    assert untried is None and idle.target_exploitability() is None
    idle.update()  # a step whose fit takes no Adam step: the network stays where it was
    assert idle.fit_kl is not None and idle.fit_kl[0] > 1e-4 and idle.fit_kl[1] == pytest.approx(idle.fit_kl[0])
    fitted = Learner.create(tree, TrainConfig(hidden=(16,), fit_steps=300, lr=0.03, lr_final=None, seed=5))
    fitted.update()
    assert fitted.fit_kl is not None and fitted.fit_kl[0] == pytest.approx(idle.fit_kl[0])  # the same step asked
    assert fitted.fit_kl[1] < 0.1 * fitted.fit_kl[0]
    target = fitted.target_exploitability()  # the step's table, which a near-perfect fit plays nearly as it is
    assert target is not None and target < idle.exploitability()
    assert fitted.exploitability() == pytest.approx(target, abs=0.002)
    # a free logit per feature row can hold whatever the network can, and starts where the network is
    floor = idle.row_projection_kl()
    assert floor is not None and floor < 0.1 * idle.fit_kl[0]
    assert Learner.create(tree, TrainConfig(hidden=(16,))).row_projection_kl() is None


def test_the_mini_batch_fit_estimates_the_whole_tree_s_gradient_without_bias() -> None:
    """Drawn by their weight and scaled by the total, the pairs' gradients average to the whole tree's."""
    tree = Tree.build(Format(make_rules("classic", digits=2, serial_length=1, rebid=True)))
    learner = Learner.create(tree, TrainConfig(hidden=(8,), batch=4096, seed=6))
    logp = learner.log_policy()
    target = np.exp(tree.log_policy(logp + learner.rng.normal(0.0, 1.0, logp.shape), rows=False))
    weight = learner._weight(learner._sweep(logp, 0.2)) + learner.config.floor
    logits, acts = learner.net.forward(learner.x)
    full = learner.net.backward(acts, learner._rows(weight * (target - np.exp(tree.log_policy(logits)))))
    draws = [learner._batch_gradient(target, weight) for _ in range(100)]
    for i, whole in enumerate(full[:-1]):  # (the output's bias: zero over a whole softmax, by its shift invariance)
        error = np.linalg.norm(np.mean([d[i] for d in draws], axis=0) - whole) / np.linalg.norm(whole)
        assert error < 0.04  # the mean of the samples (a tenth too large a scale would be off by ~0.1)
        assert np.linalg.norm(draws[0][i] - whole) / np.linalg.norm(whole) > 0.005  # one draw is a sample


def test_a_mini_batch_fit_follows_the_step_s_target_and_is_seeded() -> None:
    fmt = Format(make_rules("classic", digits=2, serial_length=2, rebid=True))
    tree = Tree.build(fmt)
    config = TrainConfig(steps=20, every=10, fit_steps=10, magnet_every=10, batch=256, float32=True, seed=2)
    learner, curve = train(fmt, config, tree=tree)
    assert learner.net.params[0].dtype == np.float32 and learner.x.dtype == np.float32
    assert Learner.create(tree, dataclasses.replace(config, float32=False)).net.params[0].dtype == np.float64
    assert learner.fit_kl is not None and learner.fit_kl[1] < learner.fit_kl[0]
    assert curve[0][1] > 0.7 and curve[-1][1] < 0.6 * curve[0][1]
    assert exploitability(fmt, learner.strategy()).value == pytest.approx(curve[-1][1], abs=1e-5)
    assert curve_of(fmt, dataclasses.replace(config, steps=3, every=1), tree) == curve_of(
        fmt, dataclasses.replace(config, steps=3, every=1), tree)  # the draws are seeded: the same run twice
    with pytest.raises(ValueError):
        TrainConfig(batch=-1)
