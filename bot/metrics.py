"""The port the service counts through: commands, commit conflicts, retries.  No metrics library here.

``bot`` says *what happened* (a command ran for so long with this outcome; a commit found its table
moved on in another process; a command ran again); an adapter decides how that is exported
(``adapters/metrics.py``: Prometheus).  The default, :data:`NO_METER`, counts nothing, so the service,
its tests and the benches need no metrics at all.
"""

from __future__ import annotations

from typing import Final, Protocol

__all__ = ["NO_METER", "Meter"]


class Meter(Protocol):
    def command(self, name: str, outcome: str, seconds: float) -> None:
        """A command was handled: ``outcome`` is ``ok``, ``refused`` (bad input, not your turn…) or
        ``error`` (a bug or the store failing)."""

    def conflict(self) -> None:
        """A commit found its table moved on in another process (the command will run again)."""

    def retry(self) -> None:
        """A command ran again on its table as now stored."""


class _NoMeter:
    def command(self, name: str, outcome: str, seconds: float) -> None:
        pass

    def conflict(self) -> None:
        pass

    def retry(self) -> None:
        pass


NO_METER: Final[Meter] = _NoMeter()
