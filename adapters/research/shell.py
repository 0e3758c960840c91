"""What the research subcommands say when they refuse: one line on stderr, exit status 2 (as ``liars``
itself does in ``bot/cli.py``; the research package imports nothing from the service)."""

from __future__ import annotations

import os
import sys

__all__ = ["fail", "unwritable"]


def fail(message: str) -> int:
    """Print ``liars: message`` on stderr; the exit status of a refused command line."""
    print(f"liars: {message}", file=sys.stderr)
    return 2


def unwritable(path: str) -> str | None:
    """Why ``path`` cannot be written (a folder, a folder that is not there or not ours to write in), or None;
    asked before the work whose result goes there (a training or a solve ran in full, then failed to write)."""
    if path == "":
        return "--write needs a file name"
    if os.path.isdir(path):
        return f"--write {path}: that is a folder; name a file in it"
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"--write {path}: there is no folder {folder}"
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        return f"--write {path}: it cannot be written here"
    return None
