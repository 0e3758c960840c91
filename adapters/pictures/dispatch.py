"""One entry for every platform: a message's or reply's ``picture`` data in, PNG bytes out.

The service never draws: a :class:`~bot.model.Message` (or a reply's ``data["picture"]``) carries the
picture's *data*, and a platform adapter calls :func:`render` on a worker thread
(``await asyncio.to_thread(render, picture, names)``).  The shapes it knows:

- the serial game's count (``core/serial/game.py``): ``{"game": "serial", "record": {round record},
  "last_challenger": id | None, "words": {every word it draws, the game's}}`` →
  :func:`~adapters.pictures.render_count`;
- the card game's challenge (``core/cards/game.py``): ``{"floor": [...], "hand": [...], "declared": ...,
  "value": ..., "holds": bool, "active", "challenger", "out", "words": {every word it draws, the game's},
  ...}`` → :func:`~adapters.pictures.render_challenge`;
- a chart (``bot/reports.py``): ``{"chart": "balances", "series": [[x, {player: balance}], ...],
  "time_axis": bool, "title": str}``, ``{"chart": "nets", "nets": {player: units}, "title": str}`` or
  ``{"chart": "rating", "history": {player: [[index, rating], ...]}, "title": str}``.

``names`` (a message's display names) fill in what the picture's own ``names`` leave out: the games
know only player ids.  Anything else raises :class:`ValueError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .challenge import render_challenge
from .count import render_count

__all__ = ["filename", "kind", "render"]


def kind(picture: Mapping[str, Any]) -> str:
    """``count``, ``challenge`` or the chart's name (``balances``, ``nets``, ``rating``)."""
    if picture.get("game") == "serial" and isinstance(picture.get("record"), Mapping):
        return "count"
    if "floor" in picture and "hand" in picture:
        return "challenge"
    chart = picture.get("chart")
    if chart in ("balances", "nets", "rating"):
        return str(chart)
    raise ValueError(f"not a picture this adapter draws (keys {sorted(picture)[:8]})")


def filename(picture: Mapping[str, Any]) -> str:
    """A file name for the picture's attachment, e.g. ``count-3.png`` or ``balances.png``."""
    name = kind(picture)
    number = picture.get("round")
    if name == "count":
        number = picture["record"].get("round")
    return f"{name}-{number}.png" if isinstance(number, int) else f"{name}.png"


def _names(picture: Mapping[str, Any], names: Mapping[str, str] | None) -> dict[str, str]:
    given = {str(k): str(v) for k, v in (names or {}).items()}
    own = {str(k): str(v) for k, v in (picture.get("names") or {}).items() if str(v) != str(k)}
    return {**given, **own}  # a picture's own real names win; an id standing for itself does not


def render(picture: Mapping[str, Any], names: Mapping[str, str] | None = None) -> bytes:
    """The picture as PNG bytes. Thread-safe; a count or a challenge takes a few milliseconds (Pillow), a
    chart a few tens (matplotlib)."""
    name = kind(picture)
    who = _names(picture, names)
    if name == "count":
        record: Mapping[str, Any] = picture["record"]
        data = {
            "serials": record.get("serials") or record["outcome"]["serials"],
            "actions": record.get("actions") or [],
            "outcome": record["outcome"],
            "names": who,
            "last_challenger": picture.get("last_challenger"),
            "words": picture.get("words") or {},
        }
        return render_count(data)
    if name == "challenge":
        return render_challenge({**picture, "names": who})
    from .charts import render_balance_chart, render_nets_chart, render_rating_chart  # matplotlib: on first use

    title = picture.get("title")
    if name == "balances":
        series = [(float(x), {str(p): int(v) for p, v in row.items()}) for x, row in picture["series"]]
        return render_balance_chart(series, who, time_axis=bool(picture.get("time_axis")),
                                    **({"title": str(title)} if title else {}))
    if name == "nets":
        nets = {str(p): int(v) for p, v in picture["nets"].items()}
        return render_nets_chart(nets, who, **({"title": str(title)} if title else {}))
    history = {str(p): [(float(i), float(r)) for i, r in points] for p, points in picture["history"].items()}
    return render_rating_chart(history, who, **({"title": str(title)} if title else {}))
