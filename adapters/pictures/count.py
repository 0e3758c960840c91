"""The serial game's count as a picture: every bill, the bid digit picked out, the total, the payments, in
the game's words.

Input (:func:`render_count`), a dict built from what the service has at the count — the round record
as ``TableState.round_record`` stores it, the game's words, and display names::

    {"serials": {"p1": "LB 06742088 A", "p2": "92859819", ...},  # seat order = display order;
                                    # any number of digits (reduced formats too), letters optional
     "actions": [{"player": "p1", "bid": [2, 0]}, {"player": "p2", "challenge": true}, ...],  # optional
     "outcome": {"final_bid": {"player": "p3", "quantity": 6, "digit": 0},
                 "count": 5, "made": false, ...,
                 "transfers": [{"from": "p3", "to": "p1", "units": 1}, ...],
                 "net": {"p1": 1, "p2": 1, "p3": -2}},
     "words": {"title": "The count — round 3", "final_bid": "Final bid: 6 zeros by {bidder}", ...},
     "names": {"p1": "Alice", ...},          # optional; default the player ids
     "last_challenger": "p2"}                # optional; default the last "challenge" in actions

``words`` are every word the picture draws, the game's (``core/serial/text.py``'s
:func:`~core.serial.text.count_picture_words`, which names the digits as the table does):
``title``, ``final_bid`` and ``last`` (the line under it), ``held`` and ``net`` (the columns'
heads), ``bidder`` (under the bidder's name), ``result``, ``multiplier``, and the payments' lines
``pays``/``pays_each`` (one payer) or ``paid``/``paid_each`` (one payee), whichever is shorter,
or ``no_payments``.  Each is a template whose ``{bidder}``, ``{last}``, ``{payer}``, ``{payees}``,
``{payers}``, ``{payee}``, ``{leaves}`` (display names; ``leaves`` is ``outcome["leaves"]``, who leaves an
elimination safe) and ``{units}`` the picture fills in; a missing one draws nothing.  This module only lays them out.

``outcome["serials"]`` is used when the top-level ``serials`` is missing. Nothing here is secret any
more: this picture is drawn only after the count, when every serial is revealed.

Drawn with Pillow (``_raster.py``): a bill and a picked-out digit's box are tiles made once; a
three-player count takes about 3 ms, most of it the PNG encoding.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ._fonts import distinct_names
from ._raster import PX_PER_PT, Raster, box_tile, fit_text, pil_font, wrap_text

__all__ = ["COUNT_WIDTH", "count_height", "render_count"]

COUNT_WIDTH: Final = 760  # design pixels

_HEADER: Final = 78
_ROW: Final = 60
_LINE: Final = 22

_PAPER: Final = "#e4eedb"
_PAPER_EDGE: Final = "#3f6b4a"
_INK: Final = "#1d6b41"  # a note's serial numbers are printed in green
_HILITE: Final = "#ffcf33"
_GREEN: Final = "#1b7a3a"
_RED: Final = "#b3261e"
_GREY: Final = "#555555"

_SERIAL: Final = re.compile(r"^\s*([A-Za-z]{1,3})?\s*(\d+)\s*([A-Za-z*])?\s*$")


def _split_serial(text: str) -> tuple[str, str, str]:
    m = _SERIAL.match(text)
    if not m:
        return "", "".join(ch for ch in text if ch.isdigit()), ""
    return (m.group(1) or "").upper(), m.group(2), (m.group(3) or "").upper()


def _words(data: Mapping[str, Any]) -> Mapping[str, str]:
    return data.get("words") or {}


def _say(data: Mapping[str, Any], key: str, **fields: Any) -> str:
    """The game's words for ``key``, its names and figures filled in ("" if the game gave none)."""
    return str(_words(data).get(key, "")).format(**fields)


def _payments(data: Mapping[str, Any], transfers: Sequence[Mapping[str, Any]], names: Mapping[str, str]) -> list[str]:
    """Transfers grouped by payer (``Carol pays 1 each to Alice, Bob``) or by payee, whichever is shorter."""
    if not transfers:
        leaves = data["outcome"].get("leaves")
        return [_say(data, "no_payments", leaves=names.get(str(leaves), str(leaves)) if leaves is not None else "")]

    def grouped(key: str, other: str) -> dict[tuple[str, int], list[str]]:
        out: dict[tuple[str, int], list[str]] = {}
        for t in transfers:
            out.setdefault((str(t[key]), int(t["units"])), []).append(str(t[other]))
        return out

    by_payer, by_payee = grouped("from", "to"), grouped("to", "from")
    if len(by_payer) <= len(by_payee):
        return [_say(data, "pays_each" if len(payees) > 1 else "pays", payer=names[payer], units=units,
                     payees=", ".join(names[p] for p in payees))
                for (payer, units), payees in by_payer.items()]
    return [_say(data, "paid_each" if len(payers) > 1 else "paid", payers=", ".join(names[p] for p in payers),
                 payee=names[payee], units=units)
            for (payee, units), payers in by_payee.items()]


def _last_challenger(data: Mapping[str, Any]) -> str | None:
    if data.get("last_challenger"):
        return str(data["last_challenger"])
    for action in reversed(data.get("actions") or []):
        if action.get("challenge"):
            return str(action["player"])
    return None


def _prepare(data: Mapping[str, Any]) -> dict[str, Any]:
    outcome = data["outcome"]
    serials: Mapping[str, str] = data.get("serials") or outcome["serials"]
    players = list(serials)
    raw_names: Mapping[str, str] = data.get("names") or {}
    paid = [str(p) for t in outcome.get("transfers", []) for p in (t["from"], t["to"])]
    names = distinct_names(raw_names, list(dict.fromkeys([*players, *paid])), limit=15)
    payments = [w for line in _payments(data, outcome.get("transfers", []), names)  # wrapped to the width drawn
                for w in wrap_text(line, "sans", 12, COUNT_WIDTH - 40)]
    return {"players": players, "serials": serials, "names": names, "payments": payments}


def count_height(n_players: int, payment_lines: int) -> int:
    return _HEADER + n_players * _ROW + 18 + 2 * 30 + payment_lines * _LINE + 16


_BILL_W: Final = 400
_BILL_H: Final = 50
_BILL_X: Final = 190


def _bill(c: Raster, y: float, serial: str, digit: int) -> int:
    """One note at (``_BILL_X``, y) (top left); returns how many of ``digit`` it holds."""
    c.paste(box_tile(_BILL_W, _BILL_H, radius=6, fill=_PAPER, edge=_PAPER_EDGE, edge_px=2.0,
                     inner=(5, _PAPER_EDGE, 0.8)), _BILL_X, y)
    prefix, digits, suffix = _split_serial(serial)
    text = " ".join(p for p in (prefix, digits, suffix) if p)
    size = 22.0 if len(text) <= 16 else max(11.0, 22.0 * 16 / len(text))
    adv = pil_font("mono", size).getlength("0")  # the font is monospaced: every glyph this wide
    x0 = _BILL_X + (_BILL_W - adv * len(text)) / 2
    yc = y + _BILL_H / 2
    start = len(prefix) + 1 if prefix else 0
    wanted = str(digit)
    hits = [start + i for i, ch in enumerate(digits) if ch == wanted]
    plain = "".join(" " if i in hits else ch for i, ch in enumerate(text))
    c.glyphs(x0, yc, plain, adv, "mono", size, _INK)
    if hits:
        tall = size * PX_PER_PT * 1.1
        box = box_tile(adv + 2, tall, radius=4, fill=_HILITE, edge="#b8860b", edge_px=0.9)
        for i in hits:
            c.paste(box, x0 + i * adv - 1, yc - tall / 2)
        picked = "".join(wanted if i in hits else " " for i in range(len(text))).rstrip()
        c.glyphs(x0, yc, picked, adv, "mono-bold", size, "#111111")
    return len(hits)


def _draw(c: Raster, data: Mapping[str, Any], prep: dict[str, Any]) -> None:
    outcome = data["outcome"]
    bid = outcome["final_bid"]
    bidder, d = str(bid["player"]), int(bid["digit"])
    names: dict[str, str] = prep["names"]

    c.text(20, 26, _say(data, "title"), "sans-bold", 17, "#222222")
    sub = _say(data, "final_bid", bidder=names.get(bidder, bidder))
    last = _last_challenger(data)
    if last is not None:
        sub += _say(data, "last", last=names.get(last, last))
    c.text(20, 56, fit_text(sub, "sans", 12, COUNT_WIDTH - 40), "sans", 12, _GREY)
    net: Mapping[str, int] = outcome.get("net", {})
    held_x = _BILL_X + _BILL_W + 16
    c.text(held_x, _HEADER - 8, _say(data, "held"), "sans", 9, _GREY, "ls")
    c.text(COUNT_WIDTH - 20, _HEADER - 8, _say(data, "net"), "sans", 9, _GREY, "rs")
    # one size for the column, the largest at which every net fits past the count's digits
    net_size = min(_fitting(_signed(int(net.get(p, 0))), "sans-bold", 15, COUNT_WIDTH - 20 - (held_x + 36))
                   for p in prep["players"])
    for row, player in enumerate(prep["players"]):
        y = _HEADER + row * _ROW
        yc = y + _BILL_H / 2
        weight = "sans-bold" if player == bidder else "sans"
        if player == bidder:
            c.text(_BILL_X - 14, yc - 2, fit_text(names[player], weight, 12, _BILL_X - 30), weight, 12, "#222222", "rs")
            c.text(_BILL_X - 14, yc + 14, _say(data, "bidder"), "sans", 9, _GREY, "rs")
        else:
            c.text(_BILL_X - 14, yc, fit_text(names[player], weight, 12, _BILL_X - 30), weight, 12, "#222222", "rm")
        held = _bill(c, y, str(prep["serials"][player]), d)
        c.text(held_x, yc, f"{held}", "sans-bold", 15, "#222222", "lm")
        units = int(net.get(player, 0))
        colour = _GREEN if units > 0 else _RED if units < 0 else _GREY
        c.text(COUNT_WIDTH - 20, yc, _signed(units), "sans-bold", net_size, colour, "rm")
    y = _HEADER + len(prep["players"]) * _ROW + 18
    made = bool(outcome["made"])
    c.text(20, y + 12, fit_text(_say(data, "result"), "sans-bold", 16, COUNT_WIDTH - 40), "sans-bold", 16,
         _GREEN if made else _RED)
    c.text(20, y + 42, fit_text(_say(data, "multiplier"), "sans", 12, COUNT_WIDTH - 40), "sans", 12, "#222222")
    y += 60
    for i, line in enumerate(prep["payments"]):
        c.text(20, y + 10 + i * _LINE, line, "sans", 12, "#222222")


def _signed(units: int) -> str:
    return f"{units:+,d}".replace("-", "−") if units else "0"


def _fitting(text: str, kind: str, size: float, width: float) -> float:
    """The largest size up to ``size`` at which ``text`` is at most ``width`` wide (a net of millions ran over
    the count column): a sum is made smaller, never cut."""
    while size > 8 and pil_font(kind, size).getlength(text) > width:
        size -= 0.5
    return size


def render_count(data: Mapping[str, Any]) -> bytes:
    """The count picture as PNG bytes (760 px wide; 3 players ≈ 760 × 430). Thread-safe."""
    prep = _prepare(data)
    canvas = Raster(COUNT_WIDTH, count_height(len(prep["players"]), len(prep["payments"])))
    _draw(canvas, data, prep)
    return canvas.png()
