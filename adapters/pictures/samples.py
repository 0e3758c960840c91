"""Fixed example inputs for every picture: the golden-image tests, ``bench/render.py`` and previews.

``count_example()`` is RULES.md §1's first worked example (3 players, serials 06742088 / 92859819 /
07202503, 6 zeros by P3, count 5, not made) in the shape :func:`~adapters.pictures.render_count`
takes; ``challenge_example()`` is the card game seed's (Dirk shows Q-7-7-6-2 against "three of a
kind"); ``ledger_example()`` a small fixed ledger for the charts.
"""

from __future__ import annotations

from typing import Any

from core.cards.text import PICTURE_WORDS
from core.serial.rules import RankOrder
from core.serial.text import count_picture_words

__all__ = ["challenge_example", "count_example", "count_picture_example", "ledger_example", "names_example"]


def names_example() -> dict[str, str]:
    return {"p1": "Alice", "p2": "Bob", "p3": "Carol", "p4": "Dan"}


def count_example() -> dict[str, Any]:
    serials = {"p1": "LB 06742088 A", "p2": "CF 92859819 D", "p3": "JK 07202503 B"}
    actions: list[dict[str, Any]] = [
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
    ]
    outcome = {
        "complete": True,
        "final_bid": {"player": "p3", "quantity": 6, "digit": 0},
        "final_bid_text": "6 zeros",
        "count": 5,
        "made": False,
        "skunk": False,
        "multiplier": 1,
        "multiplier_text": "×1",
        "bonuses": [],
        "stake": 1,
        "transfers": [{"from": "p3", "to": "p1", "units": 1}, {"from": "p3", "to": "p2", "units": 1}],
        "net": {"p1": 1, "p2": 1, "p3": -2},
        "next_stake": 1,
        "next_opener": "p3",
        "serials": dict(serials),
    }
    return {
        "round": 1,
        "serials": serials,
        "opener": "p1",
        "actions": actions,
        "outcome": outcome,
        "names": {p: n for p, n in names_example().items() if p in serials},
        "last_challenger": "p2",
        "words": count_picture_words(outcome, RankOrder.ZERO_LOW, 1),  # as the serial game sends them
    }


def count_picture_example() -> dict[str, Any]:
    """What ``core/serial/game.py`` puts on the count's Say (:func:`count_example`'s round): the round
    record, the last challenger and the game's words, as :func:`~adapters.pictures.render` takes it."""
    data = count_example()
    record = {"round": 1, "serials": data["serials"], "opener": "p1", "salt": "00", "commitment": "ab",
              "actions": data["actions"], "outcome": data["outcome"]}
    return {"game": "serial", "record": record, "last_challenger": "p2", "words": data["words"]}


def challenge_example() -> dict[str, Any]:
    return {
        "declared": {"type": "three-of-a-kind", "ranks": []},
        "declared_text": "three of a kind",
        "floor": ["2C", "2D", "2H", "4S", "3C"],
        "hand": ["QS", "7H", "7C", "6D", "2S"],
        "value": {"type": "pair", "ranks": ["7", "Q", "6", "2"]},
        "value_text": "a pair of sevens",
        "holds": False,
        "active": "dirk",
        "challenger": "ellie",
        "out": "dirk",
        "names": {"dirk": "Dirk", "ellie": "Ellie"},
        "words": dict(PICTURE_WORDS),  # as the card game sends them
    }


def ledger_example() -> list[dict[str, Any]]:
    """Twelve settlements among four players (each sums to zero), one an hour from 1 Nov 2026 UTC."""
    start = 1_793_491_200.0  # 2026-11-01T00:00:00Z
    rounds = [
        {"p1": 3, "p2": -1, "p3": -1, "p4": -1},
        {"p1": -1, "p2": 1},
        {"p3": 2, "p1": -1, "p2": -1},
        {"p4": -3, "p1": 1, "p2": 1, "p3": 1},
        {"p2": 2, "p3": -2},
        {"p1": -2, "p4": 2},
        {"p3": 6, "p1": -2, "p2": -2, "p4": -2},
        {"p2": -1, "p1": 1},
        {"p4": 3, "p1": -1, "p2": -1, "p3": -1},
        {"p1": 2, "p3": -2},
        {"p2": -4, "p1": 4},
        {"p3": -1, "p4": 1},
    ]
    return [
        {"at": start + 3600.0 * i, "player": p, "units": u} for i, r in enumerate(rounds) for p, u in r.items()
    ]
