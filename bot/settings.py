"""A server's settings: what ``config`` may change, and the defaults."""

from __future__ import annotations

from typing import Any

__all__ = ["DEFAULT_SETTINGS", "MAX_STAKE"]

MAX_STAKE = 1_000_000
"""The largest stake a table or a server's default may name, in units."""

DEFAULT_SETTINGS: dict[str, Any] = {
    "preset": "classic",  # the default game's preset for new tables
    "options": {},  # the default game's option overrides for new tables
    "unit_value": 100,  # minor units (cents) per unit
    "currency": "$",
    "turn_timeout": 60,
    "lobby_timeout": 600,
    "admins": [],
    "computer_level": "hard",
}
