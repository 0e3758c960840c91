"""Charts for leaderboards and the sheet: balances over a period, a period's nets, rating history.

Inputs are plain data; player ids are keys and ``names`` maps them to display names (default the ids):

- :func:`balance_series` turns ledger rows ``[{"at": float, "player": str, "units": int}, ...]`` (any
  order; rows with the same ``at`` are one settlement) into the series :func:`render_balance_chart`
  draws: ``[(x, {player: cumulative balance}), ...]``, starting from ``start`` (default all 0).
- :func:`render_nets_chart` draws ``{player: net}`` as horizontal bars, green up, red down.
- :func:`render_rating_chart` draws ``{player: [(round index, rating), ...]}`` — e.g. the displayed
  conservative rating after each rated round (``bot.ratings.chart_history``).

Ticks are computed here and every label is drawn with the pinned fonts (no font lookup by name).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ._canvas import font, player_colour, render_png
from ._fonts import distinct_names, safe_text
from ._raster import pil_font

__all__ = [
    "CHART_HEIGHT",
    "CHART_WIDTH",
    "balance_series",
    "render_balance_chart",
    "render_nets_chart",
    "render_rating_chart",
]

CHART_WIDTH: Final = 760
CHART_HEIGHT: Final = 420
_GREEN: Final = "#2e7d32"
_RED: Final = "#c62828"
_MAX_LINES: Final = 12
_HOUR: Final = 3600.0
# tick steps for a time axis (UTC-aligned: the epoch is a midnight)
_TIME_STEPS: Final = tuple(h * _HOUR for h in (1, 2, 3, 6, 12, 24, 48, 24 * 7, 24 * 14, 24 * 30, 24 * 91, 24 * 365))

Series = Sequence[tuple[float, Mapping[str, float]]]


def balance_series(
    rows: Iterable[Mapping[str, Any]], start: Mapping[str, int] | None = None
) -> list[tuple[float, dict[str, int]]]:
    """Cumulative balances after each settlement (rows grouped by ``at``), after an initial point."""
    ordered = sorted(rows, key=lambda r: float(r["at"]))
    if not ordered:
        return []
    balances: dict[str, int] = {str(r["player"]): 0 for r in ordered}
    balances.update(start or {})
    series: list[tuple[float, dict[str, int]]] = [(float(ordered[0]["at"]), dict(balances))]
    for i, row in enumerate(ordered):
        player = str(row["player"])
        balances[player] = balances.get(player, 0) + int(row["units"])
        if i + 1 == len(ordered) or float(ordered[i + 1]["at"]) != float(row["at"]):
            series.append((float(row["at"]), dict(balances)))
    return series


def _names(names: Mapping[str, str] | None, players: Sequence[str], limit: int, px: float) -> list[str]:
    """The players' names as drawn (told apart where the fonts cannot draw them: :func:`distinct_names`), each at
    most ``limit`` characters and no wider than ``px`` pixels in the labels' face (16 wide letters ran past the
    picture's edge)."""
    drawn = distinct_names(names or {}, players, limit=limit)
    return [_fit(drawn[p], px) for p in players]


def _fit(text: str, px: float) -> str:
    face = pil_font("sans", 10)
    while len(text) > 1 and face.getlength(text) > px:
        text = text.rstrip("…")[:-1].rstrip() + "…"
    return text


def _style(ax: Axes, title: str, fig: Figure) -> None:
    # a name in the title is text: "$" a dollar sign (not math, which can fail to draw), no glyph the font lacks
    ax.set_title(safe_text(title, limit=80), fontproperties=font("sans-bold", 14), loc="left", pad=10,
                 parse_math=False)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=9, colors="#333333")
    ax.grid(axis="y", color="#dddddd", linewidth=0.8)
    ax.set_axisbelow(True)
    fig.set_facecolor("white")


def _y_ticks(ax: Axes, lo: float, hi: float, *, integer: bool) -> None:
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    pad = (hi - lo) * 0.06
    lo, hi = lo - pad, hi + pad
    ticks = [t for t in MaxNLocator(nbins=6, integer=integer).tick_values(lo, hi) if lo <= t <= hi]
    ax.set_ylim(lo, hi)
    ax.set_yticks(ticks, [_tick(t) for t in ticks], fontproperties=font("sans", 9))


def _number(v: float) -> str:
    text = f"{v:,.0f}" if float(v).is_integer() else f"{v:,.1f}"
    return text.replace("-", "−")


def _tick(v: float) -> str:
    """An axis label, short where it is large ("−2.2M", "250k"): "−2,000,000" ran past the picture's edge."""
    for size, suffix in ((1_000_000, "M"), (10_000, "k")):
        if abs(v) >= size:
            return f"{v / size:,.2f}".rstrip("0").rstrip(".").replace("-", "−") + suffix
    return _number(v)


def _x_ticks(ax: Axes, xs: Sequence[float], *, time_axis: bool) -> None:
    lo, hi = min(xs), max(xs)
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    margin = (hi - lo) * 0.02
    ax.set_xlim(lo - margin, hi + margin)
    if time_axis:
        step = next((s for s in _TIME_STEPS if (hi - lo) / s <= 7), _TIME_STEPS[-1])
        first = -(-lo // step) * step
        ticks = [first + i * step for i in range(int((hi - first) // step) + 1)]
        days = {datetime.fromtimestamp(t, UTC).date() for t in (lo, hi)}
        # hours across two days said "12:00" twice: the day goes with them then
        fmt = ("%H:%M" if len(days) == 1 else "%a %H:%M") if step < 86400 else "%d %b" if step < 365 * 86400 else "%Y"
        labels = [datetime.fromtimestamp(t, UTC).strftime(fmt) for t in ticks]
        ax.set_xticks(ticks, labels, fontproperties=font("sans", 9))
    else:
        ticks = [t for t in MaxNLocator(nbins=8, integer=True).tick_values(lo, hi) if lo <= t <= hi]
        ax.set_xticks(ticks, [_tick(t) for t in ticks], fontproperties=font("sans", 9))


_LINES_AXES: Final = (0.09, 0.12, 0.66, 0.76)
_LEGEND_ROOM: Final = CHART_WIDTH * (1 - _LINES_AXES[0] - _LINES_AXES[2] * 1.02) - 44  # beside its line's sample


def _lines(fig: Figure, series: Mapping[str, Sequence[tuple[float, float]]], names: Mapping[str, str] | None,
           title: str, xlabel: str, *, time_axis: bool, integer: bool, step: bool) -> None:
    ax = fig.add_axes(_LINES_AXES)
    _style(ax, title, fig)
    players = sorted(series)[:_MAX_LINES]
    xs = [x for p in players for x, _ in series[p]]
    ys = [y for p in players for _, y in series[p]]
    if not xs:
        ax.text(0.5, 0.5, "nothing to show yet", transform=ax.transAxes, ha="center", va="center",
                fontproperties=font("sans", 12), color="#777777", parse_math=False)
        ax.set_xticks([])
        ax.set_yticks([])
        return
    labels = _names(names, players, 16, _LEGEND_ROOM)
    for i, p in enumerate(players):
        px = [x for x, _ in series[p]]
        py = [y for _, y in series[p]]
        ax.plot(px, py, color=player_colour(i), linewidth=2, label=labels[i],
                drawstyle="steps-post" if step else "default", marker="o" if len(px) <= 30 else None,
                markersize=3.5)
    if integer:
        ax.axhline(0, color="#999999", linewidth=0.8)
    _x_ticks(ax, xs, time_axis=time_axis)
    _y_ticks(ax, min([*ys, 0.0]) if integer else min(ys), max([*ys, 0.0]) if integer else max(ys),
             integer=integer)
    if xlabel:
        ax.set_xlabel(xlabel, fontproperties=font("sans", 10))
    legend = ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False, prop=font("sans", 10))
    for text in legend.get_texts():
        text.set_parse_math(False)


def render_balance_chart(
    series: Series, names: Mapping[str, str] | None = None, *, time_axis: bool = False,
    title: str = "Balances",
) -> bytes:
    """One line per player (at most 12) of cumulative balances. ``series`` as from :func:`balance_series`.

    x is the settlement's index (0, 1, 2...) by default; with ``time_axis`` the series' own x (epoch
    seconds) is used and labelled as UTC dates."""
    per_player: dict[str, list[tuple[float, float]]] = {}
    for i, (x, balances) in enumerate(series):
        for p, v in balances.items():
            per_player.setdefault(p, []).append((float(x) if time_axis else float(i), float(v)))
    xlabel = "" if time_axis else "settlement"
    return render_png(CHART_WIDTH, CHART_HEIGHT, lambda fig: _lines(
        fig, per_player, names, title, xlabel, time_axis=time_axis, integer=True, step=True))


def render_rating_chart(
    history: Mapping[str, Sequence[tuple[float, float]]], names: Mapping[str, str] | None = None, *,
    title: str = "Rating (conservative estimate)",
) -> bytes:
    """One line per player (at most 12, by id) of ``(rated round index, rating)`` points."""
    return render_png(CHART_WIDTH, CHART_HEIGHT, lambda fig: _lines(
        fig, history, names, title, "rated round", time_axis=False, integer=False, step=False))


_BARS_AXES: Final = (0.2, 0.08, 0.74, 0.8)


def _bars(fig: Figure, nets: Mapping[str, int], names: Mapping[str, str] | None, title: str) -> None:
    rows = sorted(nets.items(), key=lambda kv: (-kv[1], kv[0]))[:20]
    labels = _names(names, [p for p, _ in rows], 22, 0.4 * CHART_WIDTH)
    # the names' column as wide as the widest name (a name of 22 characters lost its start past the left edge)
    widest = max((pil_font("sans", 10).getlength(label) for label in labels), default=0.0)
    left = max(_BARS_AXES[0], (widest + 16) / CHART_WIDTH)
    axes = (left, _BARS_AXES[1], _BARS_AXES[0] + _BARS_AXES[2] - left, _BARS_AXES[3])
    ax = fig.add_axes(axes)
    _style(ax, title, fig)
    ax.grid(axis="y", visible=False)
    ax.grid(axis="x", color="#dddddd", linewidth=0.8)
    if not rows:
        ax.text(0.5, 0.5, "nothing to show yet", transform=ax.transAxes, ha="center", va="center",
                fontproperties=font("sans", 12), color="#777777", parse_math=False)
        ax.set_xticks([])
        ax.set_yticks([])
        return
    ys = list(range(len(rows)))[::-1]
    values = [float(v) for _, v in rows]
    ax.barh(ys, values, color=[_GREEN if v > 0 else _RED if v < 0 else "#999999" for v in values], height=0.6)
    ax.axvline(0, color="#555555", linewidth=1)
    ax.set_yticks(ys, labels, fontproperties=font("sans", 10))
    for label in ax.get_yticklabels():
        label.set_parse_math(False)
    lo, hi = min([*values, 0.0]), max([*values, 0.0])
    if lo == hi:
        lo, hi = -1.0, 1.0
    texts = [f"{v:+,.0f}".replace("-", "−") if v else "0" for v in values]
    # room beside the bars for their labels, as wide as the widest label each side (a label of −75,000,007
    # was drawn over the names, one of +150,000,014 past the picture's edge)
    face, span = pil_font("sans-bold", 9), axes[2] * CHART_WIDTH
    right = max([face.getlength(t) + 8 for t, v in zip(texts, values, strict=True) if v >= 0] or [0.0]) / span
    left = max([face.getlength(t) + 8 for t, v in zip(texts, values, strict=True) if v < 0] or [0.0]) / span
    width = (hi - lo) / max(0.2, 1.0 - right - left)
    lo, hi = lo - left * width, hi + right * width
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ticks = [t for t in MaxNLocator(nbins=6, integer=True).tick_values(lo, hi) if lo <= t <= hi]
    ax.set_xlim(lo, hi)
    ax.set_xticks(ticks, [_tick(t) for t in ticks], fontproperties=font("sans", 9))
    offset = (hi - lo) * 0.008
    for y, v, text in zip(ys, values, texts, strict=True):
        ax.text(v + offset if v >= 0 else v - offset, y, text, ha="left" if v >= 0 else "right", va="center",
                fontproperties=font("sans-bold", 9), color="#222222", parse_math=False)


def render_nets_chart(
    nets: Mapping[str, int], names: Mapping[str, str] | None = None, *, title: str = "Nets this period"
) -> bytes:
    """Horizontal bars of each player's net (at most 20, best first): green up, red down, zero grey."""
    return render_png(CHART_WIDTH, CHART_HEIGHT, lambda fig: _bars(fig, nets, names, title))
