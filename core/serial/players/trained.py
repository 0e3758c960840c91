"""The trained ``hard`` player: ``reader`` with dials learned by self-play for the table it sits at.

The dials come from ``liars train`` (:mod:`core.serial.solve.train`), one set per preset and table
size, shipped in :mod:`core.serial.players.trained_data` (a few kilobytes, parsed on first use).  A
table the training did not cover is played with the nearest trained dials, and the player says so
(:attr:`TrainedReader.fallback`, and in :meth:`explain`):

* another table size: the preset's nearest trained size (ties: the smaller);
* rules that are not a trained preset's (``quick``, or a preset with options changed): the dials of
  the preset whose payoff options (rebid right, bonuses, skunk, challenge mode) agree most;
* a reduced format (fewer digits or shorter serials): the full game's dials, as the reader's own
  defaults were tuned there too;
* nothing trained at all: today's ``reader`` defaults.

The rules still reach every decision: the reader values each option under the table's real payoffs.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from functools import cache
from typing import Any

from ..round import Action
from ..rules import PRESETS, Rules
from ..view import SeatView
from .reader import Reader, ReaderParams
from .trained_data import TRAINED

__all__ = ["TrainedReader", "key_of", "load", "trained_params"]

_PAYOFF_OPTIONS = ("challenge_mode", "rebid", "size_bonus", "sixes_bonus", "hero_bonus", "skunk")


def key_of(rules: Rules, players: int) -> str:
    return f"{rules.preset}/{players}"


def load() -> dict[str, dict[str, Any]]:
    return TRAINED


def _agreement(rules: Rules, preset: str) -> int:
    base = PRESETS[preset]
    same = sum(getattr(rules, o) == getattr(base, o) for o in _PAYOFF_OPTIONS)
    return int(same) + int(rules.rank_order == base.rank_order)


@cache
def trained_params(rules: Rules, players: int) -> tuple[ReaderParams, str | None]:
    """The dials for this table, and ``None`` where they were trained for it, else what was used instead."""
    trained = load()
    if not trained:
        return ReaderParams(), "no trained dials are shipped: today's reader defaults"
    presets = sorted({key.split("/")[0] for key in trained})
    notes: list[str] = []
    preset = rules.preset
    exact = preset in presets and all(getattr(rules, o) == getattr(PRESETS[preset], o) for o in _PAYOFF_OPTIONS)
    if not exact:
        preset = max(presets, key=lambda p: (_agreement(rules, p), p == "classic"))
        notes.append(f"these rules were not trained: the {preset} dials")
    sizes = sorted(int(key.split("/")[1]) for key in trained if key.split("/")[0] == preset)
    size = min(sizes, key=lambda s: (abs(s - players), s))
    if size != players:
        notes.append(f"{players} players were not trained: the {size}-player dials")
    if rules.reduced:
        notes.append(f"trained for the full game, not {rules.format_name}")
    fields = {f.name for f in dataclasses.fields(ReaderParams)}
    params = ReaderParams(**{k: v for k, v in trained[f"{preset}/{size}"]["params"].items() if k in fields})
    return params, "; ".join(notes) or None


class TrainedReader:
    """``reader`` with the dials trained for the table in front of it (chosen per decision, cached); ``changes``
    overrides some of them at every table (``expert`` models an honest opener as ``hard`` with ``open_one`` 0)."""

    def __init__(self, name: str = "trained", *, changes: Mapping[str, Any] | None = None) -> None:
        self.name = name
        self.changes = dict(changes or {})
        self._readers: dict[tuple[Rules, int], Reader] = {}

    def __repr__(self) -> str:
        return f"TrainedReader({self.name!r})" if not self.changes else f"TrainedReader({self.name!r}, {self.changes})"

    def params(self, view: SeatView) -> ReaderParams:
        """The dials it plays with at this table: the trained ones, with ``changes``."""
        return self.reader(view).params

    def reader(self, view: SeatView) -> Reader:
        key = (view.rules, view.n)
        if key not in self._readers:
            params = trained_params(view.rules, view.n)[0]
            if self.changes:
                params = dataclasses.replace(params, **self.changes)
            self._readers[key] = Reader(params, name=self.name)
        return self._readers[key]

    def fallback(self, view: SeatView) -> str | None:
        """Why the dials in use were not trained for this table, or None when they were."""
        return trained_params(view.rules, view.n)[1]

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        return self.reader(view).decide(view, rng)

    def policy(self, view: SeatView) -> list[tuple[Action, float]]:
        return self.reader(view).policy(view)

    def memo_key(self, view: SeatView) -> tuple[object, ...]:
        return self.reader(view).memo_key(view)

    def explain(self, view: SeatView) -> str:
        text = self.reader(view).explain(view)
        note = self.fallback(view)
        return text if note is None else f"{text} (Dials: {note}.)"
