"""The serial game's research tools: exact best responses, CFR+ solvers and the arena (issues #12, #20).

Pure like the rest of ``core`` (numpy, and numba when installed, for the arrays; no files, no clock, no
environment): the solved strategies they produce are data tables that :mod:`core.serial.players` plays,
and the command line that runs them, times them and writes their tables is :mod:`adapters.research`.
Nothing here imports ``bot`` or ``adapters``.
"""

from .best_response import BestResponse, Deviation, Exploitability, exploitability
from .format import Format

__all__ = ["BestResponse", "Deviation", "Exploitability", "Format", "exploitability"]
