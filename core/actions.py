"""What every game's actions share: a move by one player that carries nothing else."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PlayerMove"]


@dataclass(frozen=True, slots=True)
class PlayerMove:
    """A move that is only who made it: a challenge, a take, a pass, a call for the count.  Each game
    names its own kinds as subclasses (``class Challenge(PlayerMove): __slots__ = ()``); two moves are
    equal only if they are the same kind by the same player."""

    player: str
