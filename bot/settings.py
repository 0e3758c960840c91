"""A server's settings: what ``config`` may change, and the defaults."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal, TypedDict, cast

from core.records import DEFAULT_GAME

__all__ = ["DEFAULT_SETTINGS", "MAX_STAKE", "MAX_TIMEOUT", "MAX_UNIT_VALUE", "MIN_TIMEOUT", "GameDefaults", "Settings",
           "complete", "current", "game_defaults", "with_game_defaults"]

MAX_STAKE: Final = 1_000_000
"""The largest stake a table or a server's default may name, in units."""
MAX_UNIT_VALUE: Final = 100_000_000
"""The most one unit may be worth, in minor units (cents): 1,000,000.00."""
MIN_TIMEOUT: Final = 10
MAX_TIMEOUT: Final = 86_400
"""The range ``config`` allows for the turn and lobby timeouts, in seconds."""


class GameDefaults(TypedDict):
    """One game's defaults for new tables: its preset (None: the game's own) and option overrides (as typed)."""

    preset: str | None
    options: dict[str, Any]


class Settings(TypedDict):
    """A server's settings, every one present (the defaults fill in what the server never changed)."""

    games: dict[str, GameDefaults]
    unit_value: int
    currency: str
    turn_timeout: int
    lobby_timeout: int
    admins: list[str]
    computer_level: str
    history: Literal["all", "month"]


DEFAULT_SETTINGS: Final[Settings] = {
    "games": {},  # per game, the defaults for new tables: {"preset": name, "options": {name: value}}
    "unit_value": 100,  # minor units (cents) per unit
    "currency": "$",
    "turn_timeout": 60,
    "lobby_timeout": 600,
    "admins": [],
    "computer_level": "hard",
    "history": "all",  # all | month: players see this ledger period's figures only (admins see all)
}
"""A game without an entry in ``games`` opens with its own defaults (its first preset)."""

HISTORY_CHOICES: Final = ("all", "month")
"""The ``history`` setting's values: every period shown, or this ledger period only (admins see all)."""


def complete(values: Mapping[str, Any]) -> Settings:
    """A server's settings as stored (only what differs from the defaults, in any layout :func:`current`
    reads) with the defaults filled in."""
    # The store holds what ``config`` wrote: these names only, each value checked when it was saved.
    return cast(Settings, {**DEFAULT_SETTINGS, **current(values)})


def current(values: Mapping[str, Any]) -> dict[str, Any]:
    """A server's settings as stored, in today's layout: the one place the older one is read.  Settings
    saved before each game had its own defaults (a top-level ``preset`` and ``options``) are the
    default game's, as a table opened then was (an entry the server has saved since for that game
    wins); the next save stores them in today's layout."""
    out = dict(values)
    if "preset" not in out and "options" not in out:
        return out
    legacy = {"preset": out.pop("preset", None), "options": dict(out.pop("options", None) or {})}
    games = {name: dict(entry) for name, entry in (out.get("games") or {}).items()}
    games.setdefault(DEFAULT_GAME, legacy)
    out["games"] = games
    return out


def game_defaults(settings: Mapping[str, Any], game: str) -> tuple[str | None, dict[str, Any]]:
    """The server's defaults for a new table of ``game`` (settings in today's layout, :func:`current`):
    its preset (None: the game's own) and option overrides."""
    entry = (settings.get("games") or {}).get(game) or {}
    return entry.get("preset"), dict(entry.get("options") or {})


def with_game_defaults(settings: Mapping[str, Any], game: str, preset: str | None,
                       options: Mapping[str, Any]) -> dict[str, Any]:
    """``settings`` (in today's layout) with ``game``'s defaults replaced."""
    games = {name: dict(entry) for name, entry in (settings.get("games") or {}).items()}
    games[game] = {"preset": preset, "options": dict(options)}
    return {**settings, "games": games}
