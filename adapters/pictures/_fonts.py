"""The pictures' fonts: the DejaVu files matplotlib ships, found by path, and display names made drawable.

Both canvases (Pillow for the per-round pictures, matplotlib for the charts) load these files by
name, so no system font and no fallback font is ever used, and the same data draws the same picture
on every machine.  Finding them does not import matplotlib (a fifth of a second): the per-round
pictures never need it.
"""

from __future__ import annotations

import importlib.util
import os
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Final

from fontTools.ttLib import TTFont  # type: ignore[import-untyped]

__all__ = ["distinct_names", "font_path", "safe_text"]

_FONT_FILES: Final = {
    "sans": "DejaVuSans.ttf",
    "sans-bold": "DejaVuSans-Bold.ttf",
    "mono": "DejaVuSansMono.ttf",
    "mono-bold": "DejaVuSansMono-Bold.ttf",
    "serif-bold": "DejaVuSerif-Bold.ttf",
}


@cache
def _font_dir() -> str:
    spec = importlib.util.find_spec("matplotlib")
    assert spec is not None and spec.submodule_search_locations, "matplotlib is a dependency"
    return os.path.join(next(iter(spec.submodule_search_locations)), "mpl-data", "fonts", "ttf")


def font_path(kind: str) -> str:
    """The file of one of our fonts: ``sans``, ``sans-bold``, ``mono``, ``mono-bold``, ``serif-bold``."""
    return os.path.join(_font_dir(), _FONT_FILES[kind])


@cache
def _charmap(kind: str) -> frozenset[int]:
    return frozenset(TTFont(font_path(kind), lazy=True).getBestCmap())


@cache
def _both_sans() -> frozenset[int]:
    """The glyphs both ``sans`` and ``sans-bold`` have (computed once: built at each call, it took 0.5 ms of every
    name drawn, 3.6 ms of every count picture, and the picture over its 10 ms target)."""
    return _charmap("sans") & _charmap("sans-bold")


def safe_text(text: str, *, limit: int = 18, kind: str | None = None) -> str:
    """``text`` shortened to ``limit`` characters (with …), every glyph the font lacks (emoji, CJK)
    replaced by its plain form (NFKC) if the font has that, else by ``?``, control characters dropped: a
    display name never draws as tofu or warns.  Without ``kind``, a glyph is kept only if both ``sans`` and
    ``sans-bold`` have it, since a name may be drawn in either (the bold face lacks 140 of the regular one's,
    the mathematical sans letters among them: 𝖠𝗅𝗂𝖼𝖾 draws as Alice)."""
    chars = _charmap(kind) if kind is not None else _both_sans()
    out = []
    for ch in unicodedata.normalize("NFC", text):
        if unicodedata.category(ch).startswith("C"):
            continue
        if ord(ch) in chars:
            out.append(ch)
        else:  # 𝖠 → A, ｆ → f where the fonts lack the styled letter; else ?
            plain = unicodedata.normalize("NFKC", ch)
            out.append(plain if plain and all(ord(c) in chars for c in plain) else "?")
    clean = "".join(out).strip() or "?"
    return clean if len(clean) <= limit else clean[: max(1, limit - 1)].rstrip() + "…"


def distinct_names(names: Mapping[str, str], players: Sequence[str], *, limit: int = 18) -> dict[str, str]:
    """Each player's name as drawn (:func:`safe_text`), told apart where the fonts cannot draw it: a name drawn as
    question marks alone (CJK, Hangul, emoji: 山田太郎 and 佐藤花子 were both "????", 🦊 and 🐼 both "?") is
    "Player N", N its place in ``players`` (the picture's order), and names still drawn alike get their place
    after them ("Ann (2)")."""
    drawn: dict[str, str] = {}
    for place, player in enumerate(players, start=1):
        text = safe_text(str(names.get(player, player)), limit=limit)
        drawn[player] = text if text.strip("?… ") else f"Player {place}"
    alike = Counter(drawn.values())
    for place, player in enumerate(players, start=1):
        if alike[drawn[player]] > 1:
            suffix = f" ({place})"
            drawn[player] = safe_text(drawn[player], limit=max(1, limit - len(suffix))) + suffix
    return drawn
