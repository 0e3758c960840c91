from __future__ import annotations

import random
from typing import Any

import pytest

from bot.ratings import (
    Rating,
    Ratings,
    chart_history,
    leaderboard,
    ranking_from_nets,
    rebuild,
    trend,
    update,
)
from core.serial.record import replay
from core.serial.stats import serial_stats


def _random_results(seed: int, count: int) -> list[tuple[tuple[str, ...], ...]]:
    rng = random.Random(seed)
    people = ["ann", "bob", "cat", "dan", "eve"]
    out: list[tuple[tuple[str, ...], ...]] = []
    for _ in range(count):
        table = rng.sample(people, rng.randint(2, 5))
        if rng.random() < 0.5:  # a serial-game round: one against the rest
            i = rng.randrange(len(table))
            rest = tuple(sorted(table[:i] + table[i + 1 :]))
            out.append(((table[i],), rest) if rng.random() < 0.5 else (rest, (table[i],)))
        else:  # a finishing order
            out.append(tuple((p,) for p in table))
    return out


def test_a_player_who_always_wins_rises_above_one_who_always_loses() -> None:
    ratings = rebuild([(("win",), ("mid",), ("lose",))] * 15)
    win, lose = ratings.get("win"), ratings.get("lose")
    assert win.mu > 25 > lose.mu
    assert win.ordinal > ratings.get("mid").ordinal > lose.ordinal
    assert win.rounds == lose.rounds == 15
    assert [h.index for h in ratings.history["win"]] == list(range(1, 16))
    assert ratings.history["win"][-1].display > ratings.history["win"][0].display


def test_rebuild_is_reproducible_and_equals_incremental_updates() -> None:
    results = _random_results(7, 60)
    first = rebuild(results)
    assert rebuild(results) == first
    step = rebuild(results[:25])
    for result in results[25:]:
        step = update(step, result)
    assert step == first
    assert step.results == 60
    # update leaves its input alone
    before = rebuild(results[:10])
    snapshot = (dict(before.players), dict(before.history))
    update(before, results[10])
    assert (dict(before.players), dict(before.history)) == snapshot


def test_order_of_results_matters_and_is_respected() -> None:
    results = _random_results(3, 30)
    assert rebuild(results).players != rebuild(list(reversed(results))).players


def test_a_group_ties_and_a_single_group_changes_nothing() -> None:
    ratings = rebuild([(("a", "b"), ("c",))])
    assert ratings.get("a") == ratings.get("b")
    assert ratings.get("a").mu > ratings.get("c").mu
    pushed = update(ratings, (("a", "b", "c"),))
    assert pushed.players == ratings.players
    assert pushed.results == 2
    later = update(pushed, (("c",), ("a",)))
    assert later.history["c"][-1].index == 3


@pytest.mark.parametrize("bad", [(("a",), ("a",)), (("a",), ())])
def test_a_malformed_ranking_is_refused(bad: Any) -> None:
    with pytest.raises(ValueError):
        rebuild([bad])


def test_skill_leaderboard_orders_by_the_conservative_estimate_not_mu() -> None:
    ratings = Ratings(
        players={
            "lucky": Rating(mu=31.0, sigma=8.0, rounds=1),  # ordinal 7
            "steady": Rating(mu=28.0, sigma=2.0, rounds=90),  # ordinal 22
            "new": Rating(mu=25.0, sigma=25 / 3, rounds=0),
        }
    )
    board = leaderboard(ratings, {"lucky": 50, "steady": -3}, by="skill")
    assert [s.player for s in board] == ["steady", "lucky"]  # "new" has no rated round yet
    assert [s.place for s in board] == [1, 2]
    assert board[0].balance == -3
    assert [s.player for s in leaderboard(ratings, {}, by="skill", min_rounds=0)] == ["steady", "lucky", "new"]


def test_money_leaderboard_orders_by_balance_shares_places_and_limits() -> None:
    ratings = rebuild([(("a",), ("b",)), (("a",), ("c",))])
    balances = {"a": 5, "b": 5, "c": -4, "d": -6}
    board = leaderboard(ratings, balances, by="money", limit=3)
    assert [(s.place, s.player, s.balance) for s in board] == [(1, "a", 5), (1, "b", 5), (3, "c", -4)]
    assert board[0].rating == ratings.get("a")
    last = leaderboard(ratings, balances, by="money")[-1]
    assert (last.player, last.rating) == ("d", None)
    with pytest.raises(ValueError):
        leaderboard(ratings, balances, by="luck")  # type: ignore[arg-type]  # what the type forbids is refused


def test_trend_and_chart_history() -> None:
    ratings = rebuild([(("a",), ("b",))] * 8)
    assert trend(ratings, "a", last=3) == ratings.history["a"][-1].display - ratings.history["a"][-4].display
    assert trend(ratings, "a", last=3) > 0 > trend(ratings, "b", last=3)
    assert trend(ratings, "a", last=50) == ratings.get("a").display - Rating().display
    assert trend(ratings, "nobody") == 0
    chart = chart_history(ratings)
    assert sorted(chart) == ["a", "b"]
    assert chart["a"][0] == (1.0, float(ratings.history["a"][0].display))
    assert chart_history(ratings, ["b", "zed"]).keys() == {"b"}


# --- the serial game's records, scored by the real engine --------------------------------------------

WORKED = {
    "serials": {"p1": "LB 06742088 A", "p2": "CF 92859819 D", "p3": "JK 07202503 B"},
    "opener": "p1",
    "actions": [
        {"player": "p1", "bid": [2, 0]},
        {"player": "p2", "bid": [2, 5]},
        {"player": "p3", "bid": [3, 0]},
        {"player": "p1", "bid": [3, 8]},
        {"player": "p2", "bid": [3, 9]},
        {"player": "p3", "bid": [4, 0]},
        {"player": "p1", "bid": [5, 0]},
        {"player": "p2", "challenge": True},
        {"player": "p3", "bid": [6, 0]},
        {"player": "p1", "challenge": True},
        {"player": "p2", "challenge": True},
    ],
}
# Salomon rules at four seats: p1 bids 3 twos holding none (a hero bump); then 1 nine that nobody holds
# (a skunk, m = 2·4 − 6 = 2).
HERO = {
    "serials": {"p1": "11111111", "p2": "22222222", "p3": "33333222", "p4": "44444444"},
    "opener": "p1",
    "actions": [
        {"player": "p1", "bid": [3, 2]},
        {"player": "p2", "challenge": True},
        {"player": "p3", "challenge": True},
        {"player": "p4", "challenge": True},
        {"player": "p1", "count": True},
    ],
}
SKUNK = {
    "serials": {"p1": "11111111", "p2": "22222222", "p3": "33333333", "p4": "44444444"},
    "opener": "p1",
    "actions": [
        {"player": "p1", "bid": [1, 9]},
        {"player": "p2", "challenge": True},
        {"player": "p3", "challenge": True},
        {"player": "p4", "challenge": True},
        {"player": "p1", "count": True},
    ],
}


def _records(rules: str, players: list[str], rounds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    scored = replay({"rules": rules, "players": players, "rounds": rounds})["rounds"]
    return [{**r, "outcome": s} for r, s in zip(rounds, scored, strict=True)]


def test_ranking_from_nets_of_the_worked_example() -> None:
    (record,) = _records("classic", ["p1", "p2", "p3"], [WORKED])
    assert ranking_from_nets(record["outcome"]["net"]) == (("p1", "p2"), ("p3",))
    assert ranking_from_nets({"a": 0, "b": 0}) == (("a", "b"),)


def test_serial_stats_challenge_accuracy_on_the_worked_example() -> None:
    (record,) = _records("classic", ["p1", "p2", "p3"], [WORKED])
    p2 = serial_stats([record], "p2")
    # p2 challenged 5 zeros (there are 5: wrong) and 6 zeros (not made: right)
    assert (p2.challenges, p2.challenges_right, p2.challenge_accuracy) == (2, 1, 0.5)
    p1 = serial_stats([record], "p1")
    assert (p1.challenges, p1.challenges_right, p1.won, p1.biggest_win) == (1, 1, 1, 1)
    p3 = serial_stats([record], "p3")
    assert (p3.final_bids, p3.bids_made, p3.lost, p3.biggest_loss, p3.challenge_accuracy) == (1, 0, 1, 2, None)
    assert serial_stats([record, {"outcome": {"complete": False}}], "p3") == p3


def test_serial_stats_hero_bumps_skunks_and_best_bid() -> None:
    records = _records("salomon", ["p1", "p2", "p3", "p4"], [HERO, SKUNK])
    assert "hero" in records[0]["outcome"]["bonuses"] and records[1]["outcome"]["skunk"]
    p1 = serial_stats(records, "p1")
    assert (p1.rounds, p1.final_bids, p1.bids_made, p1.hero_bumps, p1.skunks) == (2, 2, 1, 1, 1)
    assert p1.best_made_bid == "3 twos"
    assert p1.biggest_win == max(r["outcome"]["net"]["p1"] for r in records)
    assert serial_stats(records, "p2").hero_bumps == 0
    assert serial_stats(records, "nobody") == serial_stats([], "nobody")
