"""PostgreSQL storage (asyncpg): the same Store port as adapters/sqlite/, for several bot processes."""

from .store import PostgresStore

__all__ = ["PostgresStore"]
