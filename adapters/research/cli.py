"""The research subcommands of the ``liars`` console script: ``odds``, ``arena``, ``exploit`` and ``train``."""

from __future__ import annotations

from typing import Any

from .arena_cli import register as register_arena
from .exploit_cli import register as register_exploit
from .odds_cli import register as register_odds
from .train_cli import register as register_train

__all__ = ["register"]


def register(sub: Any) -> None:
    register_odds(sub)
    register_arena(sub)
    register_exploit(sub)
    register_train(sub)
