"""The golden pictures: each a name and the render that makes it, and the comparison the tests use.

Regenerate after a deliberate change to a picture (then look at the PNGs before committing them)::

    .venv/bin/python -m tests.adapters.pictures.regen            # all
    .venv/bin/python -m tests.adapters.pictures.regen count      # some

or run the tests with ``LIARS_REGEN_GOLDENS=1``, which writes the goldens instead of comparing.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Final

import numpy as np
from PIL import Image

from adapters.pictures import (
    balance_series,
    render_balance_chart,
    render_challenge,
    render_count,
    render_nets_chart,
    render_rating_chart,
)
from adapters.pictures.samples import challenge_example, count_example, ledger_example, names_example
from bot.ratings import chart_history, ranking_from_nets, rebuild

GOLDEN_DIR: Final = Path(__file__).parent / "golden"
# A pixel differs when one channel differs by more than THRESHOLD (of 255); a picture matches when at
# most MAX_FRACTION of its pixels differ.  Same wheels give identical pixels; this allows a little
# antialiasing drift, yet one changed serial digit (about 140 pixels of the count's 284,000) fails.
THRESHOLD: Final = 40
MAX_FRACTION: Final = 0.0002


def ledger_nets() -> dict[str, int]:
    nets: dict[str, int] = {}
    for row in ledger_example():
        nets[row["player"]] = nets.get(row["player"], 0) + row["units"]
    return nets


def ledger_rankings() -> list[tuple[tuple[str, ...], ...]]:
    rounds: dict[float, dict[str, int]] = {}
    for row in ledger_example():
        rounds.setdefault(row["at"], {})[row["player"]] = row["units"]
    return [ranking_from_nets(net) for _, net in sorted(rounds.items())]


CASES: Final[dict[str, Callable[[], bytes]]] = {
    "count": lambda: render_count(count_example()),
    "challenge": lambda: render_challenge(challenge_example()),
    "balances": lambda: render_balance_chart(balance_series(ledger_example()), names_example()),
    "balances_time": lambda: render_balance_chart(
        balance_series(ledger_example()), names_example(), time_axis=True
    ),
    "nets": lambda: render_nets_chart(ledger_nets(), names_example()),
    "rating": lambda: render_rating_chart(chart_history(rebuild(ledger_rankings())), names_example()),
}


def golden_path(name: str) -> Path:
    return GOLDEN_DIR / f"{name}.png"


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"), dtype=np.int16)


def differing_fraction(a: bytes, b: bytes) -> float:
    """The fraction of pixels that differ beyond THRESHOLD (1.0 when the sizes differ)."""
    x, y = pixels(a), pixels(b)
    if x.shape != y.shape:
        return 1.0
    return float((np.abs(x - y).max(axis=2) > THRESHOLD).mean())


def matches(a: bytes, b: bytes) -> bool:
    return differing_fraction(a, b) <= MAX_FRACTION
