"""PNG pictures of the count, the challenge and the charts: plain data in, PNG bytes out.

Platform adapters ``await draw(picture, names)`` (a message's ``picture`` data, any shape in
``dispatch.py``; drawn in a worker process, ``worker.py``) and name the attachment with :func:`filename`.

The per-round pictures (the count, the challenge) are drawn with Pillow (``_raster.py``: a few
milliseconds, fonts, shapes and glyphs cached); the charts with matplotlib's Agg backend (no pyplot;
``_canvas.py``: tens of milliseconds, serialised by a lock), imported on the first chart: a process
that draws none never loads matplotlib.  Both use the DejaVu fonts matplotlib
ships, loaded by file (``_fonts.py``), so the same data gives the same picture on every machine.
Every function is safe to call from a worker thread.  Input shapes are documented in each module;
``samples.py`` has one of each.

Golden images of every picture live in ``tests/adapters/pictures/golden/``; after a deliberate change,
regenerate them with ``.venv/bin/python -m tests.adapters.pictures.regen [NAME ...]`` (or run the tests
with ``LIARS_REGEN_GOLDENS=1``), look at them, and commit them with the change.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .challenge import card_face, render_challenge
from .count import render_count
from .dispatch import filename, kind, render
from .worker import TooManyWaiting, draw, shutdown, start

if TYPE_CHECKING:
    from .charts import balance_series, render_balance_chart, render_nets_chart, render_rating_chart

_CHARTS = frozenset({"balance_series", "render_balance_chart", "render_nets_chart", "render_rating_chart"})


def __getattr__(name: str) -> Any:
    """The charts' names, loaded on first use: ``charts.py`` imports matplotlib (about a fifth of a
    second and its memory), which a process that never draws a chart never pays for."""
    if name in _CHARTS:
        return getattr(importlib.import_module(".charts", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "TooManyWaiting",
    "balance_series",
    "card_face",
    "draw",
    "filename",
    "kind",
    "render",
    "render_balance_chart",
    "render_challenge",
    "render_count",
    "render_nets_chart",
    "render_rating_chart",
    "shutdown",
    "start",
]
