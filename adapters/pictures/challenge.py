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
     "names": {"dirk": "Dirk", "ellie": "Ellie"},              # optional; default the ids
     "words": {"declared": "declared", "joker": "JOKER"}}      # the game's words for its claim and its joker

Cards are strings: rank ``2``-``9``, ``T`` (or ``10``), ``J``, ``Q``, ``K``, ``A`` then suit ``C D H
S``; ``JK`` is a joker. Hearts and diamonds are red, clubs and spades black, a joker purple. The hand
is drawn only at the challenge, when it is shown to the table.

Drawn with Pillow (``_raster.py``): a card's face is a tile made once per size.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ._fonts import safe_text
from ._raster import Raster, box_tile

__all__ = ["CHALLENGE_HEIGHT", "CHALLENGE_WIDTH", "card_face", "render_challenge"]

CHALLENGE_WIDTH: Final = 760
CHALLENGE_HEIGHT: Final = 420

_SUITS: Final = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
_RED: Final = "#c62828"
_BLACK: Final = "#111111"
_JOKER: Final = "#6a1b9a"
_STAR: Final = "★"
_GREEN: Final = "#1b7a3a"
_GREY: Final = "#555555"


def card_face(card: str, joker: str = "") -> tuple[str, str, str]:
    """``(rank, suit, colour)`` of a card: ``"TH"`` → ``("10", "♥", red)``; ``"JK"`` → ``(joker, "★", purple)``
    (``joker``: what the game calls the card, drawn on its face)."""
    text = card.strip().upper()
    if text in ("JK", "JOKER", "*"):
        return joker, _STAR, _JOKER
    if len(text) < 2 or text[-1] not in _SUITS:
        raise ValueError(f"not a card: {card!r}")
    rank, suit = text[:-1], text[-1]
    if rank not in ("2", "3", "4", "5", "6", "7", "8", "9", "T", "10", "J", "Q", "K", "A"):
        raise ValueError(f"not a card: {card!r}")
    rank = "10" if rank == "T" else rank
    return rank, _SUITS[suit], _RED if suit in "DH" else _BLACK


def _card(c: Raster, x: float, y: float, w: float, h: float, card: str, *, big: bool, joker: str) -> None:
    rank, suit, colour = card_face(card, joker)
    c.paste(box_tile(w, h, radius=7, fill="white", edge="#444444", edge_px=1.4), x, y)
    if suit == _STAR:
        c.text(x + w / 2, y + h * 0.42, suit, "sans", 34 if big else 20, colour, "mm")
        if rank:
            c.text(x + w / 2, y + h * 0.8, safe_text(rank, limit=8), "sans-bold", 9 if big else 6, colour, "mm")
        return
    if big:  # the corner index, then the suit large in the middle
        c.text(x + 16, y + 17, rank, "sans-bold", 15, colour, "mm")
        c.text(x + 16, y + 38, suit, "sans-bold", 15, colour, "mm")
        c.text(x + w * 0.58, y + h * 0.6, suit, "sans", 34, colour, "mm")
    else:
        c.text(x + w / 2, y + h / 2 - 9, rank, "sans-bold", 12, colour, "mm")
        c.text(x + w / 2, y + h / 2 + 9, suit, "sans-bold", 12, colour, "mm")


def _describe(value: Mapping[str, Any] | None) -> str:
    if not value:
        return ""
    ranks = value.get("ranks") or []
    kind = str(value.get("type", "")).replace("-", " ")
    return kind + (f" ({'-'.join(str(r) for r in ranks)})" if ranks else "")


def _row(c: Raster, x: float, y: float, cards: Sequence[str], *, w: float, h: float, gap: float,
         big: bool, joker: str) -> None:
    for i, card in enumerate(cards):
        _card(c, x + i * (w + gap), y, w, h, card, big=big, joker=joker)


def _draw(c: Raster, data: Mapping[str, Any]) -> None:
    raw: Mapping[str, str] = data.get("names") or {}

    def name(p: Any) -> str:
        return safe_text(str(raw.get(str(p), p)))

    active, challenger = name(data["active"]), name(data["challenger"])
    c.text(20, 26, f"Challenge: {challenger} calls {active}", "sans-bold", 17, "#222222")
    words: Mapping[str, str] = data.get("words") or {}
    joker = str(words.get("joker", ""))
    declared = str(data.get("declared_text") or _describe(data.get("declared")))
    claimed = safe_text(str(words.get("declared", "")), limit=16)
    line = " ".join(part for part in (active, claimed, f"“{safe_text(declared, limit=48)}”") if part)
    c.text(20, 58, line, "sans", 13, "#222222")
    c.text(20, 96, "floor:", "sans", 11, _GREY)
    _row(c, 70, 72, list(data["floor"]), w=38, h=50, gap=6, big=False, joker=joker)
    c.text(330, 96, "the lowest hand that tells the truth", "sans", 10, _GREY)
    c.text(20, 148, f"{active} shows:", "sans", 13, "#222222")
    _row(c, 20, 166, list(data["hand"]), w=84, h=118, gap=12, big=True, joker=joker)
    value = str(data.get("value_text") or _describe(data.get("value")))
    c.text(20, 310, f"The hand is {safe_text(value, limit=56)}", "sans", 13, "#222222")
    holds = bool(data["holds"])
    verdict = "holds" if holds else "does not hold"
    out = data.get("out")
    line = f"It {verdict}" + (f" — {name(out)} is out" if out else "")
    c.text(20, 350, line, "sans-bold", 17, _GREEN if holds else "#b3261e")
    c.text(20, 386, f"{challenger} was {'wrong' if holds else 'right'} to challenge.", "sans", 11, _GREY)


def render_challenge(data: Mapping[str, Any]) -> bytes:
    """The challenge picture as PNG bytes (760 × 420). Thread-safe. Raises ValueError for a bad card."""
    for card in [*data["floor"], *data["hand"]]:
        card_face(str(card))
    canvas = Raster(CHALLENGE_WIDTH, CHALLENGE_HEIGHT)
    _draw(canvas, data)
    return canvas.png()
