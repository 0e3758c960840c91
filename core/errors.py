"""The games' one error tree: the shared base and the errors every game can raise.

Each game adds its own subclasses in its package (``core.serial.errors``, ``core.cards.errors``)::

    GameError                           every rule violation; ``code`` names it, fields carry the values
    ├── UnknownPlayer                   not seated at this table
    ├── NotYourTurn                     acting out of turn
    ├── RoundOver                       acting after the round has ended
    ├── ActionParseError (ValueError)   text that is not an action of the game
    ├── serial game: BidParseError, BidTooLow, QuantityOutOfRange, NoStandingBid, BidderCannotChallenge,
    │                CountNotAvailable
    └── card game:   see ``core.cards.errors``

Engine operations raise these *before* changing any state.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["ActionParseError", "GameError", "NotYourTurn", "RoundOver", "RulesError", "UnknownMove", "UnknownPlayer",
           "quoted"]

QUOTED_MOST = 40


def quoted(text: object, most: int = QUOTED_MOST) -> str:
    """What someone typed, quoted back in an error: at most ``most`` characters (a pasted page is not
    sent back to its sender in three messages).  A value that is not text came from a record or settings, which
    are JSON: it is shown as JSON (``["9S", 3]``, ``true``, ``null``, not Python's ``['9S', 3]``, ``True``,
    ``None``), cut alike."""
    if not isinstance(text, str):
        try:
            shown = json.dumps(text, default=repr)  # (ASCII: an invisible or right-to-left mark escaped, as repr does)
        except (TypeError, ValueError):  # (a key that is not text; an int past Python's 4,300 digits)
            try:
                shown = repr(text)
            except ValueError:
                shown = "(a number too long to show)"
        return shown if len(shown) <= most else shown[: most - 1] + "…"
    return repr(text if len(text) <= most else text[: most - 1] + "…")


class RulesError(ValueError):
    """A rule set that cannot be made: an unknown preset or option, or a value an option does not take
    (every game's ``make_rules`` raises it; not a :class:`GameError`, which is a move against the rules)."""


class GameError(Exception):
    """Base of every rule violation.  ``code`` is a stable machine name; ``str(err)`` is for people."""

    code = "game-error"

    def __init__(self, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields
        for key, value in fields.items():
            setattr(self, key, value)


class ActionParseError(GameError, ValueError):
    """Text that is not an action of the game (a bid, a declaration, ...)."""

    code = "bad-action"

    def __init__(self, message: str) -> None:
        super().__init__(message)


class UnknownMove(Exception):
    """Marks a stored move payload that names none of this game's kinds of move but another key: a move of a kind
    a newer version of the game writes (each game raises its own payload error with this mixed in)."""


def unknown_kind(data: Any, kinds: tuple[str, ...]) -> bool:
    """A move payload holding none of ``kinds`` and some other key than its player: a newer version's move."""
    return not any(k in data for k in kinds) and any(k != "player" for k in data)


class UnknownPlayer(GameError):
    code = "not-seated"
    player: str

    def __init__(self, player: str) -> None:
        super().__init__(f"<@{player}> is not playing in this round", player=player)


class NotYourTurn(GameError):
    code = "not-your-turn"
    player: str
    to_act: str

    def __init__(self, player: str, to_act: str) -> None:
        super().__init__(f"it is not your turn: {to_act} is to act", player=player, to_act=to_act)


class RoundOver(GameError):
    code = "round-over"

    def __init__(self, message: str = "this round is over: it has been counted") -> None:
        super().__init__(message)
