"""The research subcommands of the ``liars`` console script: ``arena`` and ``exploit``."""

from __future__ import annotations

from typing import Any

from .arena_cli import register as register_arena
from .exploit_cli import register as register_exploit
from .train_cli import register as register_train

__all__ = ["register"]


def register(sub: Any) -> None:
    register_arena(sub)
    register_exploit(sub)
    register_train(sub)
