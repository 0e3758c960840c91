"""Shared helpers for the card game's tests: the seed's worked example, and seeded games."""

from __future__ import annotations

import random
from typing import Any

from core.cards.cards import full_deck, shuffled_deck
from core.cards.match import CardsEngine
from core.cards.players import decide, view_of
from core.cards.rules import Rules

SEED_TOP = ["7C", "7D", "3H", "3S", "JD", "2C", "QH", "6S", "2H"]


def seed_deck() -> list[str]:
    """The seed's deck: its nine cards on top, then the rest of the 52 in order."""
    return SEED_TOP + [str(c) for c in full_deck() if str(c) not in SEED_TOP]


def seed_record() -> dict[str, Any]:
    """RULES.md §2's record: the seed's worked example."""
    return {
        "game": "cards",
        "rules": {"jokers": 0, "pass": False, "payout": "winner"},
        "stake": 1,
        "players": ["annie", "bart", "chrissie", "dirk", "ellie"],
        "rounds": [
            {
                "deck": seed_deck(),
                "reshuffles": [],
                "opener": "annie",
                "actions": [
                    {"player": "annie", "declare": "two pair"},
                    {"player": "bart", "take": True},
                    {"player": "bart", "discard": ["JD"]},
                    {"player": "bart", "declare": "sevens over threes"},
                    {"player": "chrissie", "take": True},
                    {"player": "chrissie", "declare": {"type": "two-pair", "ranks": ["7", "3", "J"]}},
                    {"player": "dirk", "take": True},
                    {"player": "dirk", "discard": ["3H", "3S", "2C"]},
                    {"player": "dirk", "declare": "three of a kind"},
                    {"player": "ellie", "challenge": True},
                ],
            }
        ],
    }


def play_game(levels: dict[str, str], rules: Rules, seed: int, *, max_actions: int = 5000) -> CardsEngine:
    """A whole game between computer players, dealt from a seeded ``random.Random``."""
    rng = random.Random(seed)
    players = list(levels)
    match = CardsEngine(rules, players)
    first = players[rng.randrange(len(players))]
    actions = 0
    while not match.over:
        deck = shuffled_deck(rng, rules.jokers)
        round_ = match.start_round(deck, match.next_opener or first, salt=f"{rng.randrange(2**64):x}")
        while not round_.is_over:
            player = round_.to_act
            assert player is not None
            match.apply(decide(view_of(round_, player), levels[player], rng))
            actions += 1
            assert actions < max_actions, "a game that never ends"
    return match
