"""The charts' canvas (matplotlib): pinned fonts and settings, PNG bytes.  The per-round pictures are
drawn with Pillow instead (``_raster.py``).

Determinism, so that a picture is the same on every machine:

- Fonts are the DejaVu files matplotlib ships in its own package data (``_fonts.py``), loaded by file
  name (``FontProperties(fname=...)``): no font lookup by family name, so a system DejaVu (or any other
  system font) is never used, and no fallback font either. Text is drawn with ``parse_math=False``
  (a ``$`` in a name is just a dollar sign) and never with TeX.
- Every render runs with matplotlib's built-in defaults (``rcParamsDefault``, so a user's or a
  working directory's ``matplotlibrc`` changes nothing) plus :data:`PINNED_RC` (hinting, kerning),
  inside :func:`matplotlib.rc_context`.
- PNGs are RGB, encoded by Pillow with no text chunks (no version, no timestamp).

Threads: matplotlib is not thread-safe as a whole (``rcParams`` are global, the Agg renderer
shares font objects), so each render builds its own :class:`~matplotlib.figure.Figure` on a
:class:`~matplotlib.backends.backend_agg.FigureCanvasAgg` (never pyplot) and holds
:data:`RENDER_LOCK` from building to encoding. Renders are short (milliseconds), so callers on
worker threads (``asyncio.to_thread``) just queue briefly.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any, Final

import matplotlib as mpl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from PIL import Image

from ._fonts import font_path, safe_text

__all__ = ["DESIGN_DPI", "PINNED_RC", "RENDER_LOCK", "font", "font_path", "player_colour", "render_png", "safe_text"]

RENDER_LOCK: Final = threading.RLock()
DESIGN_DPI: Final = 100.0  # layouts are written in pixels at this dpi

PINNED_RC: Final[dict[str, Any]] = {
    "text.hinting": "no_hinting",  # glyph shapes independent of the autohinter
    "text.kerning_factor": 0,
    "text.antialiased": True,
    "text.usetex": False,
    "path.simplify": True,
    "savefig.dpi": "figure",
    "timezone": "UTC",
    "axes.unicode_minus": True,
}

_SKIP_RC: Final = frozenset({"backend", "backend_fallback", "interactive"})


@cache
def _rc() -> dict[str, Any]:
    rc = {k: v for k, v in mpl.rcParamsDefault.items() if k not in _SKIP_RC}
    rc.update(PINNED_RC)
    return rc


@cache
def font(kind: str = "sans", size: float = 12.0) -> FontProperties:
    """Font properties pinned to a file (FontProperties are not mutated by artists; sharing is safe)."""
    return FontProperties(fname=font_path(kind), size=size)


_PALETTE: Final = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#7f7f7f",
    "#bcbd22",
    "#393b79",
    "#ad494a",
)


def player_colour(index: int) -> str:
    """A stable line colour for the ``index``-th player (players are ordered by id by the callers)."""
    return _PALETTE[index % len(_PALETTE)]


@contextmanager
def _pinned() -> Iterator[None]:
    with RENDER_LOCK:
        # only the settings that differ (usually none): rc_context restores everything afterwards
        changed = {k: v for k, v in _rc().items() if dict.__getitem__(mpl.rcParams, k) != v}
        with mpl.rc_context(rc=changed):
            yield


def render_png(width: float, height: float, draw: Callable[[Figure], None], *, scale: float = 1.0) -> bytes:
    """A PNG of ``width`` × ``height`` design pixels, ``scale`` × as many real ones: ``draw`` fills a blank
    figure at ``DESIGN_DPI × scale``; all under the pinned settings."""
    with _pinned():
        fig, canvas = _figure(round(width * scale), round(height * scale), DESIGN_DPI * scale)
        try:
            draw(fig)
            canvas.draw()  # type: ignore[no-untyped-call]
            pixels = canvas.buffer_rgba()  # type: ignore[no-untyped-call]
            rgba = Image.frombuffer("RGBA", canvas.get_width_height(), pixels, "raw", "RGBA", 0, 1)
            buf = io.BytesIO()
            # opaque pictures: RGB is smaller and quicker to encode; no text chunks (no version, no time)
            rgba.convert("RGB").save(buf, format="png", compress_level=1)
            return buf.getvalue()
        finally:
            fig.clear()


_FIGURES: dict[tuple[int, int, float], tuple[Figure, FigureCanvasAgg]] = {}
_MAX_FIGURES: Final = 32


def _figure(width: int, height: int, dpi: float) -> tuple[Figure, FigureCanvasAgg]:
    """A blank figure of this size, kept (under the lock) so its Agg renderer and the text metrics
    cached against that renderer are reused from one render to the next."""
    key = (width, height, dpi)
    entry = _FIGURES.get(key)
    if entry is None:
        if len(_FIGURES) >= _MAX_FIGURES:
            _FIGURES.pop(next(iter(_FIGURES)))
        fig = Figure(figsize=(width / dpi, height / dpi), dpi=dpi, facecolor="white")
        entry = _FIGURES[key] = (fig, FigureCanvasAgg(fig))
    return entry
