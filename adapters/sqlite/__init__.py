"""The SQLite store (aiosqlite): the embedded default, one file."""

from .store import SqliteStore

__all__ = ["SqliteStore"]
