"""The card game's errors (the shared base is :mod:`core.errors`).  Every error carries fields.

::

    GameError
    ├── ActionParseError (ValueError)
    │   ├── CardParseError              text that is not a card ("7X")
    │   └── DeclarationParseError       text that is not a declaration ("a big hand")
    ├── ImpossibleDeclaration           no hand satisfies it ("sevens over sevens")
    ├── DeclarationTooLow               its floor is not above the standing floor
    ├── NotYourTurn / RoundOver / UnknownPlayer (shared)
    ├── WrongPhase                      an action this phase does not allow (take before a declaration …)
    ├── NotInHand                       discarding a card the hand does not hold
    ├── NoPassLeft                      passing without the option, or a second time in a game
    └── NoLastHand                      the card game has no declared last hand

Engine operations raise these *before* changing any state.
"""

from __future__ import annotations

from typing import Any

from ..errors import ActionParseError, GameError, NotYourTurn, RoundOver, UnknownPlayer

__all__ = [
    "CardParseError",
    "DeclarationParseError",
    "DeclarationTooLow",
    "GameError",
    "ImpossibleDeclaration",
    "NamedTwice",
    "NoLastHand",
    "NoPassLeft",
    "NotInHand",
    "NotYourTurn",
    "RoundOver",
    "UnknownPlayer",
    "WrongPhase",
]


class CardParseError(ActionParseError):
    code = "bad-card"


class DeclarationParseError(ActionParseError):
    code = "bad-declaration"


class ImpossibleDeclaration(GameError):
    code = "impossible-declaration"

    def __init__(self, message: str, **fields: Any) -> None:
        super().__init__(message, **fields)


class DeclarationTooLow(GameError):
    code = "declaration-too-low"
    declaration: Any
    standing: Any

    def __init__(self, declaration: Any, standing: Any) -> None:
        if standing is None:
            message = f"{declaration} is no better than the worst hand (7-5-4-3-2): open with seven-six high or more"
        else:
            message = f"{declaration} does not beat the standing {standing}: its floor must be higher"
        super().__init__(message, declaration=declaration, standing=standing)


class WrongPhase(GameError):
    code = "wrong-phase"
    player: str

    def __init__(self, message: str, player: str) -> None:
        super().__init__(message, player=player)


class NotInHand(GameError):
    code = "not-in-hand"
    player: str
    cards: list[str]

    def __init__(self, player: str, cards: list[str]) -> None:
        super().__init__(f"the hand does not hold {' '.join(cards)}", player=player, cards=cards)


class NamedTwice(GameError):
    """A discard naming a card more times than the hand holds it ("discard 7H 7H"): "the hand does not hold 7H 7H"
    said it was not held at all."""

    code = "named-twice"
    player: str
    cards: list[str]

    def __init__(self, player: str, cards: list[str]) -> None:
        names = " and ".join(cards)
        super().__init__(f"{names} {'is' if len(cards) == 1 else 'are'} named more times than the hand holds "
                         f"{'it' if len(cards) == 1 else 'them'}: name each card once", player=player, cards=cards)


class NoPassLeft(GameError):
    code = "no-pass-left"
    player: str

    def __init__(self, message: str, player: str) -> None:
        super().__init__(message, player=player)


class NoLastHand(GameError):
    code = "no-last-hand"

    def __init__(self) -> None:
        super().__init__("the card game has no last hand: it ends when one player is left")
