"""What every picture shares: pinned fonts and settings, a pixel-coordinate canvas, PNG bytes.

Determinism, so that a picture is the same on every machine:

- Fonts are the DejaVu files matplotlib ships in its own package data, loaded by file name
  (``FontProperties(fname=...)``): no font lookup by family name, so a system DejaVu (or any other
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
import os
import threading
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any, Final

import matplotlib as mpl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.ft2font import FT2Font
from matplotlib.patches import Patch
from matplotlib.text import Text
from matplotlib.transforms import Affine2D
from PIL import Image

__all__ = [
    "DESIGN_DPI",
    "PINNED_RC",
    "RENDER_LOCK",
    "PixelCanvas",
    "fit_text",
    "font",
    "font_path",
    "pixel_canvas",
    "player_colour",
    "render_png",
    "safe_text",
]

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


_FONT_FILES: Final = {
    "sans": "DejaVuSans.ttf",
    "sans-bold": "DejaVuSans-Bold.ttf",
    "mono": "DejaVuSansMono.ttf",
    "mono-bold": "DejaVuSansMono-Bold.ttf",
    "serif-bold": "DejaVuSerif-Bold.ttf",
}


def font_path(kind: str) -> str:
    """The file of one of our fonts: ``sans``, ``sans-bold``, ``mono``, ``mono-bold``, ``serif-bold``."""
    return os.path.join(mpl.get_data_path(), "fonts", "ttf", _FONT_FILES[kind])


@cache
def font(kind: str = "sans", size: float = 12.0) -> FontProperties:
    """Font properties pinned to a file (FontProperties are not mutated by artists; sharing is safe)."""
    return FontProperties(fname=font_path(kind), size=size)


@cache
def _charmap(kind: str) -> frozenset[int]:
    return frozenset(FT2Font(font_path(kind)).get_charmap())


def safe_text(text: str, *, limit: int = 18, kind: str = "sans") -> str:
    """``text`` shortened to ``limit`` characters (with …), every glyph the font lacks (emoji, CJK)
    replaced by ``?``, control characters dropped: a display name never draws as tofu or warns."""
    chars = _charmap(kind)
    out = []
    for ch in unicodedata.normalize("NFC", text):
        if unicodedata.category(ch).startswith("C"):
            continue
        out.append(ch if ord(ch) in chars else "?")
    clean = "".join(out).strip() or "?"
    return clean if len(clean) <= limit else clean[: max(1, limit - 1)].rstrip() + "…"


@cache
def _measurer(kind: str) -> FT2Font:
    return FT2Font(font_path(kind))


def fit_text(text: str, kind: str, size: float, width: float, dpi: float) -> str:
    """``text`` shortened with … until it is at most ``width`` design pixels wide when drawn at ``dpi``.
    Call only while rendering (under :data:`RENDER_LOCK`: the measuring font object is shared)."""
    ft = _measurer(kind)
    ft.set_size(size, dpi)
    width_px = width * dpi / DESIGN_DPI

    def measure(s: str) -> float:
        ft.set_text(s, 0.0)
        return float(ft.get_width_height()[0]) / 64.0

    if measure(text) <= width_px:
        return text
    cut = len(text)
    while cut > 1 and measure(text[:cut].rstrip() + "…") > width_px:
        cut -= 1
    return text[:cut].rstrip() + "…"


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


class PixelCanvas:
    """Artists placed straight on a figure (no axes: faster, nothing to hide) in design pixels, y down.

    A design pixel is a pixel at :data:`DESIGN_DPI`; a figure rendered at another dpi scales the whole
    picture (fonts and line widths are in points, so they follow the dpi by themselves)."""

    def __init__(self, fig: Figure, height: float) -> None:
        self.fig = fig
        k = fig.dpi / DESIGN_DPI
        # figure pixels are display pixels (the canvas renders at the figure's dpi); flip y.
        self.transform = Affine2D().scale(k, -k).translate(0.0, float(height) * k)

    def text(self, x: float, y: float, s: str, **kwargs: Any) -> Text:
        t = Text(x, y, s, transform=self.transform, parse_math=False, usetex=False, **kwargs)
        self.fig.add_artist(t)
        return t

    def patch(self, patch: Patch) -> Patch:
        patch.set_transform(self.transform)
        self.fig.add_artist(patch)
        return patch


def pixel_canvas(fig: Figure, height: float) -> PixelCanvas:
    return PixelCanvas(fig, height)
