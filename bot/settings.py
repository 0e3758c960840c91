"""A server's settings: what ``config`` may change, and the defaults."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from core.records import DEFAULT_GAME

__all__ = ["DEFAULT_SETTINGS", "MAX_STAKE", "MAX_TIMEOUT", "MIN_TIMEOUT", "game_defaults", "with_game_defaults"]

MAX_STAKE: Final = 1_000_000
"""The largest stake a table or a server's default may name, in units."""
MIN_TIMEOUT: Final = 10
MAX_TIMEOUT: Final = 86_400
"""The range ``config`` allows for the turn and lobby timeouts, in seconds."""

DEFAULT_SETTINGS: dict[str, Any] = {
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


def game_defaults(settings: Mapping[str, Any], game: str) -> tuple[str | None, dict[str, Any]]:
    """The server's defaults for a new table of ``game``: its preset (None: the game's own) and option
    overrides.  Settings saved before each game had its own (a top-level ``preset`` and ``options``)
    are the default game's, as a table opened then was."""
    entry = (settings.get("games") or {}).get(game)
    if entry is None and game == DEFAULT_GAME:
        entry = {"preset": settings.get("preset"), "options": settings.get("options") or {}}
    entry = entry or {}
    return entry.get("preset"), dict(entry.get("options") or {})


def with_game_defaults(settings: Mapping[str, Any], game: str, preset: str | None,
                       options: Mapping[str, Any]) -> dict[str, Any]:
    """``settings`` with ``game``'s defaults replaced (older top-level defaults moved under ``games``)."""
    out = dict(settings)
    games = {k: dict(v) for k, v in (out.get("games") or {}).items()}
    if DEFAULT_GAME not in games and ("preset" in out or "options" in out):
        legacy_preset, legacy_options = game_defaults(out, DEFAULT_GAME)
        games[DEFAULT_GAME] = {"preset": legacy_preset, "options": legacy_options}
    out.pop("preset", None)
    out.pop("options", None)
    games[game] = {"preset": preset, "options": dict(options)}
    out["games"] = games
    return out
