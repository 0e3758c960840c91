"""The card game's challenge as a picture: the declaration and its floor, the hand shown, the verdict.

Input (:func:`render_challenge`)::

    {"declared": {"type": "three-of-a-kind", "ranks": []},   # the declaration challenged
     "declared_text": "three of a kind",                       # optional; else built from "declared"
     "floor": ["2C", "2D", "2H", "4S", "3C"],                  # the declaration's floor (5 cards)
     "hand": ["QS", "7H", "7C", "6D", "2S"],                   # the hand shown (5 cards)
     "value": {"type": "pair", "ranks": ["7", "Q", "6", "2"]},
     "value_text": "a pair of sevens",                          # optional; else built from "value"
     "holds": false,                                            # the hand's value ≥ the floor
     "active": "dirk", "challenger": "ellie", "out": "dirk",
     "names": {"dirk": "Dirk", "ellie": "Ellie"}}              # optional; default the ids

Cards are strings: rank ``2``-``9``, ``T`` (or ``10``), ``J``, ``Q``, ``K``, ``A`` then suit ``C D H
S``; ``JK`` is a joker. Hearts and diamonds are red, clubs and spades black, a joker purple. The hand
is drawn only at the challenge, when it is shown to the table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch

from ._canvas import PixelCanvas, font, pixel_canvas, render_png, safe_text

__all__ = ["CHALLENGE_HEIGHT", "CHALLENGE_WIDTH", "card_face", "render_challenge"]

CHALLENGE_WIDTH: Final = 760
CHALLENGE_HEIGHT: Final = 420

_SUITS: Final = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
_RED: Final = "#c62828"
_BLACK: Final = "#111111"
_JOKER: Final = "#6a1b9a"
_GREEN: Final = "#1b7a3a"
_GREY: Final = "#555555"


def card_face(card: str) -> tuple[str, str, str]:
    """``(rank, suit, colour)`` of a card: ``"TH"`` → ``("10", "♥", red)``; ``"JK"`` → ``("JOKER", "★", purple)``."""
    text = card.strip().upper()
    if text in ("JK", "JOKER", "*"):
        return "JOKER", "★", _JOKER
    if len(text) < 2 or text[-1] not in _SUITS:
        raise ValueError(f"not a card: {card!r}")
    rank, suit = text[:-1], text[-1]
    if rank not in ("2", "3", "4", "5", "6", "7", "8", "9", "T", "10", "J", "Q", "K", "A"):
        raise ValueError(f"not a card: {card!r}")
    rank = "10" if rank == "T" else rank
    return rank, _SUITS[suit], _RED if suit in "DH" else _BLACK


def _card(c: PixelCanvas, x: float, y: float, w: float, h: float, card: str, *, big: bool) -> None:
    rank, suit, colour = card_face(card)
    c.patch(
        FancyBboxPatch(
            (x, y), w, h, boxstyle="round,pad=0,rounding_size=7", facecolor="white", edgecolor="#444444",
            linewidth=1.4,
        )
    )
    if rank == "JOKER":
        c.text(x + w / 2, y + h * 0.42, suit, fontproperties=font("sans", 34 if big else 20), color=colour,
               ha="center", va="center")
        c.text(x + w / 2, y + h * 0.8, "JOKER", fontproperties=font("sans-bold", 9 if big else 6), color=colour,
               ha="center", va="center")
        return
    if big:
        c.text(x + 7, y + 6, f"{rank}\n{suit}", fontproperties=font("sans-bold", 15), color=colour, ha="left",
               va="top", linespacing=1.0, multialignment="center")
        c.text(x + w * 0.58, y + h * 0.6, suit, fontproperties=font("sans", 34), color=colour, ha="center",
               va="center")
    else:
        c.text(x + w / 2, y + h / 2, f"{rank}\n{suit}", fontproperties=font("sans-bold", 12), color=colour,
               ha="center", va="center", linespacing=1.05, multialignment="center")


def _describe(value: Mapping[str, Any] | None) -> str:
    if not value:
        return ""
    ranks = value.get("ranks") or []
    kind = str(value.get("type", "")).replace("-", " ")
    return kind + (f" ({'-'.join(str(r) for r in ranks)})" if ranks else "")


def _row(c: PixelCanvas, x: float, y: float, cards: Sequence[str], *, w: float, h: float, gap: float,
         big: bool) -> None:
    for i, card in enumerate(cards):
        _card(c, x + i * (w + gap), y, w, h, card, big=big)


def _draw(fig: Figure, data: Mapping[str, Any]) -> None:
    c = pixel_canvas(fig, CHALLENGE_HEIGHT)
    raw: Mapping[str, str] = data.get("names") or {}

    def name(p: Any) -> str:
        return safe_text(str(raw.get(str(p), p)))

    active, challenger = name(data["active"]), name(data["challenger"])
    c.text(20, 26, f"Challenge: {challenger} calls {active}", fontproperties=font("sans-bold", 17),
           color="#222222", va="center")
    declared = str(data.get("declared_text") or _describe(data.get("declared")))
    c.text(20, 58, f"{active} declared “{safe_text(declared, limit=48)}”", fontproperties=font("sans", 13),
           color="#222222", va="center")
    c.text(20, 96, "floor:", fontproperties=font("sans", 11), color=_GREY, va="center")
    _row(c, 70, 72, list(data["floor"]), w=38, h=50, gap=6, big=False)
    c.text(330, 96, "the lowest hand that tells the truth", fontproperties=font("sans", 10), color=_GREY,
           va="center")
    c.text(20, 148, f"{active} shows:", fontproperties=font("sans", 13), color="#222222", va="center")
    _row(c, 20, 166, list(data["hand"]), w=84, h=118, gap=12, big=True)
    value = str(data.get("value_text") or _describe(data.get("value")))
    c.text(20, 310, f"The hand is {safe_text(value, limit=56)}", fontproperties=font("sans", 13),
           color="#222222", va="center")
    holds = bool(data["holds"])
    verdict = "holds" if holds else "does not hold"
    out = data.get("out")
    line = f"It {verdict}" + (f" — {name(out)} is out" if out else "")
    c.text(20, 350, line, fontproperties=font("sans-bold", 17), color=_GREEN if holds else "#b3261e",
           va="center")
    c.text(20, 386, f"{challenger} was {'wrong' if holds else 'right'} to challenge.",
           fontproperties=font("sans", 11), color=_GREY, va="center")


def render_challenge(data: Mapping[str, Any]) -> bytes:
    """The challenge picture as PNG bytes (760 × 420). Thread-safe. Raises ValueError for a bad card."""
    for card in [*data["floor"], *data["hand"]]:
        card_face(str(card))
    return render_png(CHALLENGE_WIDTH, CHALLENGE_HEIGHT, lambda fig: _draw(fig, data))
