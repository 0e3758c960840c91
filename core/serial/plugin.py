"""The serial game as a plug-in (:class:`core.game.Game`): :data:`SERIAL`, what the registry lists."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..game import GameRules, Json, Match
from . import text as T
from .bids import MAX_PLAYERS, MIN_PLAYERS
from .elimination import EliminationMatch
from .game import SerialMatch
from .players import DIFFICULTY_LEVELS
from .record import replay
from .rules import PRESETS, Rules, make_rules
from .stats import history_line, player_stats

__all__ = ["SERIAL", "SerialGame"]


class SerialGame:
    """The serial-number game (RULES.md §1)."""

    name = "serial"
    title = "Liar's Poker (serial numbers)"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    presets: tuple[str, ...] = tuple(PRESETS)
    levels: tuple[str, ...] = DIFFICULTY_LEVELS
    verbs: Mapping[str, str] = {
        "bid": "raise: a quantity and a digit, e.g. 'bid 5 sevens'",
        "challenge": "challenge the standing bid",
        "count": "call for the count (a bidder challenged all around, with the rebid right)",
    }
    reads: Mapping[str, str] = {
        "odds": "my private odds for each digit",
        "hint": "what a computer player would do in my seat, and why",
    }

    def describe(self, rules: GameRules) -> str:
        assert isinstance(rules, Rules)
        return T.describe(rules)

    def make_rules(self, preset: str | None, options: Mapping[str, Any]) -> Rules:
        return make_rules(preset or "classic", **options)

    def rules_from_dict(self, data: Mapping[str, Any]) -> Rules:
        return Rules.from_dict(dict(data))

    def new_match(self, rules: GameRules, players: Sequence[str], *, host: str,
                  previous: Match | None = None) -> SerialMatch | EliminationMatch:
        assert isinstance(rules, Rules)
        if rules.elimination:
            return EliminationMatch(rules, players, host=host,
                                    previous=previous if isinstance(previous, EliminationMatch) else None)
        return SerialMatch(rules, players, host=host,
                           previous=previous if isinstance(previous, SerialMatch) else None)

    def stats(self, player: str, records: Sequence[Mapping[str, Any]]) -> tuple[str, Json]:
        return player_stats(player, records)

    def history_line(self, record: Mapping[str, Any], names: Mapping[str, str]) -> str:
        return history_line(record, names)

    def replay(self, record: Mapping[str, Any]) -> Json:
        return replay(record)

    def verify(self, record: Mapping[str, Any]) -> Json:
        return replay(record, verify=True)


SERIAL = SerialGame()
