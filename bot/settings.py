"""A server's settings: what ``config`` may change, and the defaults."""

from __future__ import annotations

from typing import Any, Final

__all__ = ["DEFAULT_SETTINGS", "MAX_STAKE", "MAX_TIMEOUT", "MIN_TIMEOUT"]

MAX_STAKE: Final = 1_000_000
"""The largest stake a table or a server's default may name, in units."""
MIN_TIMEOUT: Final = 10
MAX_TIMEOUT: Final = 86_400
"""The range ``config`` allows for the turn and lobby timeouts, in seconds."""

DEFAULT_SETTINGS: dict[str, Any] = {
    "preset": "classic",  # the default game's preset for new tables
    "options": {},  # the default game's option overrides for new tables
    "unit_value": 100,  # minor units (cents) per unit
    "currency": "$",
    "turn_timeout": 60,
    "lobby_timeout": 600,
    "admins": [],
    "computer_level": "hard",
    "history": "all",  # all | month: players see this ledger period's figures only (admins see all)
}
