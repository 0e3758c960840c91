"""What the research subcommands say when they refuse: one line on stderr, exit status 2 (as ``liars``
itself does in ``bot/cli.py``; the research package imports nothing from the service)."""

from __future__ import annotations

import sys

__all__ = ["fail"]


def fail(message: str) -> int:
    """Print ``liars: message`` on stderr; the exit status of a refused command line."""
    print(f"liars: {message}", file=sys.stderr)
    return 2
