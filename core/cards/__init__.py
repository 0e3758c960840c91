"""The card game of Liar's Poker ("Thorin style", RULES.md §2): pure, synchronous, no I/O.

- :mod:`~core.cards.cards` — cards, decks, Fisher–Yates shuffles from an injected random source;
- :mod:`~core.cards.hands` — hand values (twelve types, jokers wild), totally ordered;
- :mod:`~core.cards.declarations` — declarations, their floors, the parser and the spoken form;
- :mod:`~core.cards.round` / :mod:`~core.cards.match` — the state machines (check, then apply: events);
- :mod:`~core.cards.record` — records, ``replay`` and ``verify``;
- :mod:`~core.cards.players` — computer players; :mod:`~core.cards.text` / :mod:`~core.cards.forms` — words;
- :mod:`~core.cards.game` — :data:`CARDS`, the game behind the seam of :mod:`core.game`.
"""

from .cards import JOKER, Card, HashRandom, full_deck, parse_cards, pretty, shuffle, shuffled_deck
from .declarations import Declaration
from .errors import (
    CardParseError,
    DeclarationParseError,
    DeclarationTooLow,
    ImpossibleDeclaration,
    NoLastHand,
    NoPassLeft,
    NotInHand,
    WrongPhase,
)
from .game import CARDS, CardsGame, CardsMatch
from .hands import WORST, HandType, HandValue, cards_for, evaluate
from .match import CardsEngine, Transfer, action_from_json, action_to_json
from .record import commitment, replay
from .round import Action, Challenge, Declare, Discard, Pass, Phase, Round, Take
from .rules import PRESETS, Rules, RulesError, make_rules

__all__ = [
    "CARDS",
    "JOKER",
    "PRESETS",
    "WORST",
    "Action",
    "Card",
    "CardParseError",
    "CardsEngine",
    "CardsGame",
    "CardsMatch",
    "Challenge",
    "Declaration",
    "DeclarationParseError",
    "DeclarationTooLow",
    "Declare",
    "Discard",
    "HandType",
    "HandValue",
    "HashRandom",
    "ImpossibleDeclaration",
    "NoLastHand",
    "NoPassLeft",
    "NotInHand",
    "Pass",
    "Phase",
    "Round",
    "Rules",
    "RulesError",
    "Take",
    "Transfer",
    "WrongPhase",
    "action_from_json",
    "action_to_json",
    "cards_for",
    "commitment",
    "evaluate",
    "full_deck",
    "make_rules",
    "parse_cards",
    "pretty",
    "replay",
    "shuffle",
    "shuffled_deck",
]
