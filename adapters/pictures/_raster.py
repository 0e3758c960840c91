"""The per-round pictures' canvas: Pillow straight onto an RGB image, with cached fonts and shape tiles.

The count and the challenge are drawn on every counted round, so they are drawn with Pillow (about 3
milliseconds, two of them the PNG encoding, :func:`encode_png`) rather than matplotlib (ten and more: a figure, artists,
the Agg renderer); the charts, asked for now and then, stay on matplotlib (``_canvas.py``).

What does not change from one picture to the next is made once per process and kept:

- fonts: the DejaVu files matplotlib ships (the same files the charts use, loaded by path: no
  system font, no fallback), opened once per (face, size) with Pillow's basic layout engine (no
  Raqm/HarfBuzz, which a machine may or may not have: the same wheel draws the same pixels);
- shapes: a rounded, outlined box (a bill, a card, a picked-out digit) is drawn once at 4× and
  scaled down (antialiased edges, which Pillow's own shapes lack), then pasted as a tile;
- text: each string's coverage mask (its glyphs, antialiased) is rasterised once and kept (the
  newest few thousand): the words and names of a table repeat from round to round, and a serial is
  drawn a digit at a time from ten masks.  Drawing text is then a paste of a colour through a mask.

Sizes are in points as in the charts (a point is 100/72 design pixels); coordinates in design
pixels, y down.  Everything is safe on any thread: the caches hold immutable fonts and tiles (built
under a lock), and each picture draws on its own image.
"""

from __future__ import annotations

import struct
import threading
import zlib
from functools import cache, lru_cache
from typing import Final

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ._fonts import font_path

__all__ = ["PX_PER_PT", "Raster", "box_tile", "encode_png", "fit_text", "pil_font", "wrap_text"]

PX_PER_PT: Final = 100.0 / 72.0  # design pixels per point (the charts' 100 dpi)
_SUPERSAMPLE: Final = 4
_lock = threading.Lock()


@cache
def _font_unlocked(kind: str, px: float) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(font_path(kind), px, layout_engine=ImageFont.Layout.BASIC)


def pil_font(kind: str, size_pt: float) -> ImageFont.FreeTypeFont:
    """A DejaVu face (``sans``, ``sans-bold``, ``mono``, ``mono-bold``) at ``size_pt`` points, opened once."""
    with _lock:
        return _font_unlocked(kind, round(size_pt * PX_PER_PT, 3))


def fit_text(text: str, kind: str, size: float, width: float) -> str:
    """``text`` shortened with … until it is at most ``width`` design pixels wide in that font."""
    face = pil_font(kind, size)
    if face.getlength(text) <= width:
        return text
    cut = len(text)
    while cut > 1 and face.getlength(text[:cut].rstrip() + "…") > width:
        cut -= 1
    return text[:cut].rstrip() + "…"


def wrap_text(text: str, kind: str, size: float, width: float) -> list[str]:
    """``text`` broken between words into lines each at most ``width`` design pixels wide in that font (a
    word wider than that alone is shortened with …)."""
    face = pil_font(kind, size)
    lines: list[str] = []
    for word in text.split():
        joined = f"{lines[-1]} {word}" if lines else word
        if lines and face.getlength(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(fit_text(word, kind, size, width))
    return lines


@cache
def _tile_unlocked(w: int, h: int, radius: float, fill: str, edge: str, edge_px: float,
                   inner: tuple[float, str, float] | None) -> Image.Image:
    k = _SUPERSAMPLE
    big = Image.new("RGBA", (w * k, h * k), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    width = max(1, round(edge_px * k))
    draw.rounded_rectangle((0, 0, w * k - 1, h * k - 1), radius=radius * k, fill=fill, outline=edge, width=width)
    if inner is not None:  # a thin frame inside the box (a bill's printed border)
        inset, colour, line = inner
        i = round(inset * k)
        draw.rectangle((i, i, w * k - 1 - i, h * k - 1 - i), outline=colour, width=max(1, round(line * k)))
    return big.resize((w, h), Image.Resampling.BOX)


def box_tile(w: float, h: float, *, radius: float, fill: str, edge: str, edge_px: float,
             inner: tuple[float, str, float] | None = None) -> Image.Image:
    """An antialiased rounded box ``w`` × ``h`` (RGBA, transparent corners), drawn once per shape."""
    with _lock:
        return _tile_unlocked(round(w), round(h), radius, fill, edge, edge_px, inner)


@lru_cache(maxsize=4096)
def _text_mask(s: str, kind: str, size_pt: float, anchor: str) -> tuple[Image.Image, int, int]:
    """``s``'s coverage mask and where its top left sits relative to the anchor point."""
    face = pil_font(kind, size_pt)
    left, top, right, bottom = face.getbbox(s, anchor=anchor)
    mask = Image.new("L", (max(1, int(right - left)), max(1, int(bottom - top))), 0)
    ImageDraw.Draw(mask).text((-left, -top), s, font=face, fill=255, anchor=anchor)
    return mask, int(left), int(top)


class Raster:
    """One picture being drawn: an RGB image of ``width`` × ``height`` design pixels on white."""

    def __init__(self, width: int, height: int) -> None:
        self.image = Image.new("RGB", (width, height), "white")

    def text(self, x: float, y: float, s: str, kind: str, size_pt: float, colour: str, anchor: str = "lm") -> None:
        """``s`` at (x, y); ``anchor`` is Pillow's: ``l``/``m``/``r`` then ``m`` (middle) or ``s`` (baseline)."""
        if not s.strip():
            return
        mask, left, top = _text_mask(s, kind, size_pt, anchor)
        self.image.paste(colour, (round(x) + left, round(y) + top), mask)

    def glyphs(self, x: float, y: float, s: str, advance: float, kind: str, size_pt: float, colour: str) -> None:
        """``s`` a character at a time, every ``advance`` pixels from ``x`` (a monospaced font: a serial),
        each glyph's middle-left at ``y``; spaces are skipped."""
        for i, ch in enumerate(s):
            if ch != " ":
                self.text(x + i * advance, y, ch, kind, size_pt, colour, "lm")

    def paste(self, tile: Image.Image, x: float, y: float) -> None:
        self.image.paste(tile, (round(x), round(y)), tile)

    def png(self) -> bytes:
        return encode_png(self.image)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode_png(image: Image.Image) -> bytes:
    """An RGB image as PNG bytes: 8-bit truecolour, every row with filter 0 ("none"), one zlib stream at
    level 1, no text chunks (no version, no time).

    Written here rather than by Pillow's encoder because Pillow always chooses each row's filter by
    trying all five (2.5 of its 4.2 ms on a count, with no way to turn it off); for these pictures
    (flat colours, text on white) no filter compresses as well (32 KiB against 37), at half the CPU.
    The PNG format is the specification's simplest case; Pillow decodes it back to the same pixels
    (tested)."""
    width, height = image.size
    rows = np.frombuffer(image.convert("RGB").tobytes(), np.uint8).reshape(height, width * 3)
    raw = np.zeros((height, width * 3 + 1), np.uint8)  # column 0: each row's filter byte, 0
    raw[:, 1:] = rows
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8 bits, truecolour, no interlace
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw.tobytes(), 1))
            + _chunk(b"IEND", b""))
