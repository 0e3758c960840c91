"""The games of Liar's Poker: pure, synchronous, no I/O.

- :mod:`core.game` — the seam every game implements (``Game``, ``Match``) and the values that cross it;
- :mod:`core.errors` — the one error tree's shared base; :mod:`core.records` — records' errors;
- :mod:`core.registry` — the games by name (``bot/`` reaches a game only through it);
- :mod:`core.serial` — the serial-number game; :mod:`core.cards` — the card game.
"""

from .errors import ActionParseError, GameError, NotYourTurn, RoundOver, UnknownPlayer
from .records import IllegalRecordedAction, RecordError

__all__ = [
    "ActionParseError",
    "GameError",
    "IllegalRecordedAction",
    "NotYourTurn",
    "RecordError",
    "RoundOver",
    "UnknownPlayer",
]
