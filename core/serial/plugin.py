"""The serial game as a plug-in (:class:`core.game.Game`): :data:`SERIAL`, what the registry lists."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..commands import CommandSpec, FormatWords, HandWords, Kind, Param, Section, Suggest
from ..game import GameRules, Json, Match, units
from . import text as T
from .bids import MAX_PLAYERS, MAX_QUANTITY, MIN_PLAYERS
from .elimination import EliminationMatch
from .game import SerialMatch
from .players import DEFAULT_LEVEL, DIFFICULTY_LEVELS
from .record import replay
from .rules import PRESETS, Rules, make_rules
from .stats import history_line, player_stats

__all__ = ["COMMANDS", "SERIAL", "SerialGame"]

COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("bid", "raise: a quantity and a digit, e.g. 'bid 5 sevens'", Section.MOVE, params=(
        Param("quantity", Kind.INT, "How many of the digit, across every serial at the table",
              low=1, high=MAX_QUANTITY, suggest=Suggest.FORM),
        Param("digit", Kind.INT, "Which digit (0-9)", low=0, high=9, suggest=Suggest.FORM),
        Param("say", Kind.TEXT, "Or the bid in words: 'five sevens', '5 7', 'three tens'", words=True),
    ), form=True, default=True, aliases=("b", "raise", "r"), done="Bid placed."),
    CommandSpec("challenge", "challenge the standing bid", Section.MOVE, aliases=("c", "ch"), done="You challenged."),
    CommandSpec("count", "call for the count (a bidder challenged all around, with the rebid right)", Section.MOVE,
                done="You called for the count."),
    CommandSpec("odds", "my private odds for each digit", Section.READ, changes=False, aliases=("o",)),
    CommandSpec("hint", "what a computer player would do in my seat, and why", Section.READ, changes=False),
)
"""The serial game's moves and private reads, declared once (every surface is built from them)."""

HAND = HandWords("my serial", T.B_HAND.label, "Dealt. Check your DMs for your serial.",
                 "Dealt. Each player's serial comes to them alone, here (only they can see it).")
"""What the serial game deals, in its words (``Game.hand``)."""

FORMATS: Mapping[str, FormatWords] = {
    "rounds": FormatWords("the usual game", "every round's money moves at once"),
    "elimination": FormatWords("who pays for dinner", "each round one player leaves safe, the last one left pays "
                               "each other player the stake (stake=0: nothing is written)",
                               stake="what the payer pays each; 0 for nothing"),
}
"""The serial game's ways to play (``Game.formats``): its usual one first."""


class SerialGame:
    """The serial-number game (RULES.md §1)."""

    name = "serial"
    title = "Liar's Poker (serial numbers)"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    presets: tuple[str, ...] = tuple(PRESETS)
    levels: tuple[str, ...] = DIFFICULTY_LEVELS
    default_level = DEFAULT_LEVEL
    formats: Mapping[str, FormatWords] = FORMATS
    options_example = "rebid=on skunk=on"
    commands: tuple[CommandSpec, ...] = COMMANDS
    hand: HandWords | None = HAND
    how_to_play = (
        "Everyone is dealt a secret 8-digit serial. In turn, bid how many of one digit there are in all the "
        "serials together (`bid 5 7`, `bid five sevens`, or **Raise…**); each bid beats the last. When everyone "
        "else has challenged, the serials are counted: the bidder wins or pays each challenger — or, playing for who "
        "pays for dinner, the count's winner leaves safe and the last one left pays."
    )

    def describe(self, rules: GameRules) -> str:
        assert isinstance(rules, Rules)
        return T.describe(rules)

    def make_rules(self, preset: str | None, options: Mapping[str, Any]) -> Rules:
        return make_rules(preset or "classic", **options)

    def terms(self, rules: GameRules) -> str:
        assert isinstance(rules, Rules)
        if not rules.elimination:
            return f"{rules.preset}, stake {units(rules.stake)}"
        pays = (f"the last one left pays each other player {units(rules.stake)}" if rules.stake
                else "stake 0: nothing is written")
        return f"{rules.preset}, who pays for dinner — {pays}"

    def settles_each_round(self, rules: GameRules) -> bool:
        assert isinstance(rules, Rules)
        return not rules.elimination

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

    def played(self, player: str, records: Sequence[Mapping[str, Any]]) -> str:
        n = sum(1 for r in records if player in (r.get("outcome") or {}).get("net", {}))
        return f"{n} round{'s' if n != 1 else ''}"

    def history_line(self, record: Mapping[str, Any], names: Mapping[str, str]) -> str:
        return history_line(record, names)

    def replay(self, record: Mapping[str, Any]) -> Json:
        return replay(record)

    def verify(self, record: Mapping[str, Any]) -> Json:
        return replay(record, verify=True)


SERIAL = SerialGame()
