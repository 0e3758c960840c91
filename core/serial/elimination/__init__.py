"""The serial game's elimination format: who pays for dinner (RULES.md §1 "Elimination").

:mod:`.rules` decides who leaves and who pays (and documents the choices RULES.md leaves open);
:mod:`.match` plays it at a table; :mod:`.record` replays its records; :mod:`.players` adapts any
computer player to it; :mod:`.text` holds its words.
"""

from .match import EliminationMatch, round_rules
from .players import Eliminating, eliminating, one_unit_view
from .record import replay_elimination
from .rules import LeftSafe, NoLastHand, dinner, is_push, leaver

__all__ = [
    "Eliminating",
    "EliminationMatch",
    "LeftSafe",
    "NoLastHand",
    "dinner",
    "eliminating",
    "is_push",
    "leaver",
    "one_unit_view",
    "replay_elimination",
    "round_rules",
]
