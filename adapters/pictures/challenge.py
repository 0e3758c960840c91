"""The card game's challenge as a picture: the declaration and its floor, the hand shown, the verdict, in
the game's words.

Input (:func:`render_challenge`)::

    {"declared": {"type": "three-of-a-kind", "ranks": []},   # the declaration challenged (not drawn)
     "declared_text": "three of a kind",                       # it, in the game's words (drawn)
     "floor": ["2C", "2D", "2H", "4S", "3C"],                  # the declaration's floor (5 cards)
     "hand": ["QS", "7H", "7C", "6D", "2S"],                   # the hand shown (5 cards)
     "value": {"type": "pair", "ranks": ["7", "Q", "6", "2"]},  # the hand's value (not drawn)
     "value_text": "a pair of sevens",                          # it, in the game's words (drawn)
     "holds": false,                                            # the hand's value ≥ the floor
     "active": "dirk", "challenger": "ellie", "out": "dirk",
     "names": {"dirk": "Dirk", "ellie": "Ellie"},              # optional; default the ids
     "words": {"title": "Challenge: {challenger} calls {active}", "joker": "JOKER", ...}}  # the game's

``words`` are every word the picture draws, the game's (``core/cards/text.py``'s ``PICTURE_WORDS``):
``title``, ``claim``, ``floor`` (beside the floor's cards), ``floor_note``, ``shows`` (above the hand),
``value``, ``holds`` or ``fails`` (the verdict) followed by ``out`` when a player is out, ``wrong`` or
``right`` (the challenger's), and ``joker`` (drawn on a joker's face).  Each is a template whose
``{active}``, ``{challenger}``, ``{out}`` (display names), ``{declared}`` and ``{value}`` the picture
fills in; a missing one draws nothing.  This module only lays them out (a line too long for the
picture is cut with …).

Cards are strings: rank ``2``-``9``, ``T`` (or ``10``), ``J``, ``Q``, ``K``, ``A`` then suit ``C D H
S``; ``JK`` is a joker. Hearts and diamonds are red, clubs and spades black, a joker purple. The hand
is drawn only at the challenge, when it is shown to the table.

Drawn with Pillow (``_raster.py``): a card's face is a tile made once per size.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ._fonts import distinct_names, safe_text
from ._raster import Raster, box_tile, fit_text

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


def _row(c: Raster, x: float, y: float, cards: Sequence[str], *, w: float, h: float, gap: float,
         big: bool, joker: str) -> None:
    for i, card in enumerate(cards):
        _card(c, x + i * (w + gap), y, w, h, card, big=big, joker=joker)


def _draw(c: Raster, data: Mapping[str, Any]) -> None:
    raw: Mapping[str, str] = data.get("names") or {}
    drawn = distinct_names(raw, list(dict.fromkeys(str(p) for p in (data["active"], data["challenger"], data.get("out"))
                                                   if p)))

    def name(p: Any) -> str:
        return drawn[str(p)]

    words: Mapping[str, str] = data.get("words") or {}
    out = data.get("out")
    fields = {
        "active": name(data["active"]),
        "challenger": name(data["challenger"]),
        "declared": safe_text(str(data.get("declared_text") or ""), limit=48),
        "value": safe_text(str(data.get("value_text") or ""), limit=56),
        "out": name(out) if out else "",
    }

    def say(key: str, x: float, y: float, kind: str, size: float, colour: str, *, tail: str = "") -> None:
        """The game's words for ``key`` (its players and hands filled in), cut to fit the picture."""
        text = (str(words.get(key, "")) + tail).format(**fields)
        if text:
            c.text(x, y, fit_text(text, kind, size, CHALLENGE_WIDTH - 20 - x), kind, size, colour)

    joker = str(words.get("joker", ""))
    holds = bool(data["holds"])
    say("title", 20, 26, "sans-bold", 17, "#222222")
    say("claim", 20, 58, "sans", 13, "#222222")
    say("floor", 20, 96, "sans", 11, _GREY)
    _row(c, 70, 72, list(data["floor"]), w=38, h=50, gap=6, big=False, joker=joker)
    say("floor_note", 330, 96, "sans", 10, _GREY)
    say("shows", 20, 148, "sans", 13, "#222222")
    _row(c, 20, 166, list(data["hand"]), w=84, h=118, gap=12, big=True, joker=joker)
    say("value", 20, 310, "sans", 13, "#222222")
    say("holds" if holds else "fails", 20, 350, "sans-bold", 17, _GREEN if holds else "#b3261e",
        tail=str(words.get("out", "")) if out else "")
    say("wrong" if holds else "right", 20, 386, "sans", 11, _GREY)


def render_challenge(data: Mapping[str, Any]) -> bytes:
    """The challenge picture as PNG bytes (760 × 420). Thread-safe. Raises ValueError for a bad card."""
    for card in [*data["floor"], *data["hand"]]:
        card_face(str(card))
    canvas = Raster(CHALLENGE_WIDTH, CHALLENGE_HEIGHT)
    _draw(canvas, data)
    return canvas.png()
