"""Where Slack installations live: the store adapters' SQL for them, one text for both dialects.

``liars slack`` distributed to many workspaces (OAuth v2) keeps each workspace's installation (its bot
token, scopes, who installed) and the OAuth flow's one-time ``state`` values in OUR database — the
SQLite file by default, PostgreSQL when ``LIARS_DATABASE_URL`` is set — so every process sharing the
database serves every workspace, and an install through one process is seen by all.  The tables
(``slack_bots``, ``slack_installations``, ``slack_oauth_states``: migration 3 of the SQLite schema, 2
of the PostgreSQL one) are apart from the game's.  A row's ``data`` is slack_sdk's own record of the
bot or the installation as JSON (:mod:`adapters.slack.oauth` turns it back into slack_sdk's objects);
the key columns are what the lookups need.  ``''`` stands for an absent enterprise, team or user id.

:class:`SlackInstalls` is the whole interface; :func:`slack_installs` gives it for an open store.  The
statements are written once with ``?`` parameters and numbered (``$1``…) for asyncpg.  Writes are
single statements (each its own transaction): they are rare (an install, an uninstall) and do not go
through the stores' group-commit writers, which carry the game's commits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from adapters.storebase import numbered, rowcount

__all__ = ["SlackInstalls", "slack_installs"]

_UPSERT_BOT = ("INSERT INTO slack_bots (enterprise_id, team_id, server, installed_at, data) VALUES (?, ?, ?, ?, ?)"
               " ON CONFLICT (enterprise_id, team_id) DO UPDATE SET server = excluded.server,"
               " installed_at = excluded.installed_at, data = excluded.data")
_UPSERT_INSTALLATION = ("INSERT INTO slack_installations (enterprise_id, team_id, user_id, installed_at, data)"
                        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (enterprise_id, team_id, user_id) DO UPDATE SET"
                        " installed_at = excluded.installed_at, data = excluded.data")
_FIND_BOT = "SELECT data FROM slack_bots WHERE enterprise_id = ? AND team_id = ?"
# the server's bot: an organisation-wide install first (team ''), else the newest workspace install
_BOT_OF_SERVER = ("SELECT data FROM slack_bots WHERE server = ? ORDER BY team_id = '' DESC, installed_at DESC"
                  " LIMIT 1")
_FIND_INSTALLATION = ("SELECT data FROM slack_installations WHERE enterprise_id = ? AND team_id = ?"
                      " ORDER BY installed_at DESC LIMIT 1")
_FIND_USER_INSTALLATION = _FIND_INSTALLATION.replace("team_id = ?", "team_id = ? AND user_id = ?")
_DELETE_BOT = "DELETE FROM slack_bots WHERE enterprise_id = ? AND team_id = ?"
_DELETE_INSTALLATIONS = "DELETE FROM slack_installations WHERE enterprise_id = ? AND team_id = ?"
_DELETE_USER_INSTALLATION = _DELETE_INSTALLATIONS + " AND user_id = ?"
_ISSUE_STATE = "INSERT INTO slack_oauth_states (state, expire_at) VALUES (?, ?)"
_CONSUME_STATE = "DELETE FROM slack_oauth_states WHERE state = ? AND expire_at > ?"
_FORGET_STALE_STATES = "DELETE FROM slack_oauth_states WHERE expire_at <= ?"


class _Database(Protocol):
    """One dialect's way to run a statement: rows back, or how many rows it changed."""

    async def rows(self, sql: str, args: Sequence[Any]) -> list[Sequence[Any]]: ...

    async def run(self, sql: str, args: Sequence[Any]) -> int: ...


class _Sqlite:
    def __init__(self, store: Any) -> None:
        self.store = store

    async def rows(self, sql: str, args: Sequence[Any]) -> list[Sequence[Any]]:
        return list(await self.store.db.execute_fetchall(sql, tuple(args)))

    async def run(self, sql: str, args: Sequence[Any]) -> int:
        async with self.store.db.execute(sql, tuple(args)) as cursor:  # autocommit: its own transaction
            return int(cursor.rowcount)


class _Postgres:
    def __init__(self, store: Any) -> None:
        self.store = store

    async def rows(self, sql: str, args: Sequence[Any]) -> list[Sequence[Any]]:
        return list(await self.store.pool.fetch(numbered(sql), *args))

    async def run(self, sql: str, args: Sequence[Any]) -> int:
        status = await self.store.pool.execute(numbered(sql), *args)  # e.g. "DELETE 1"
        return rowcount(status)


class SlackInstalls:
    """Slack's installations and OAuth states in one store (see the module's docstring)."""

    def __init__(self, db: _Database) -> None:
        self._db = db

    async def _one(self, sql: str, *args: Any) -> str | None:
        rows = await self._db.rows(sql, args)
        return str(rows[0][0]) if rows else None

    async def save_bot(self, enterprise: str, team: str, server: str, at: float, data: str) -> None:
        await self._db.run(_UPSERT_BOT, (enterprise, team, server, at, data))

    async def save_installation(self, enterprise: str, team: str, user: str, at: float, data: str) -> None:
        await self._db.run(_UPSERT_INSTALLATION, (enterprise, team, user, at, data))

    async def find_bot(self, enterprise: str, team: str) -> str | None:
        return await self._one(_FIND_BOT, enterprise, team)

    async def bot_of_server(self, server: str) -> str | None:
        """The bot installed for a ledger server (an Enterprise Grid organisation or a workspace)."""
        return await self._one(_BOT_OF_SERVER, server)

    async def find_installation(self, enterprise: str, team: str, user: str | None = None) -> str | None:
        """The newest installation in the workspace, or the one ``user`` made."""
        if user is None:
            return await self._one(_FIND_INSTALLATION, enterprise, team)
        return await self._one(_FIND_USER_INSTALLATION, enterprise, team, user)

    async def delete_bot(self, enterprise: str, team: str) -> None:
        await self._db.run(_DELETE_BOT, (enterprise, team))

    async def delete_installations(self, enterprise: str, team: str, user: str | None = None) -> None:
        """Every installation in the workspace, or the one ``user`` made."""
        if user is None:
            await self._db.run(_DELETE_INSTALLATIONS, (enterprise, team))
        else:
            await self._db.run(_DELETE_USER_INSTALLATION, (enterprise, team, user))

    async def issue_state(self, state: str, expire_at: float, now: float) -> None:
        await self._db.run(_FORGET_STALE_STATES, (now,))
        await self._db.run(_ISSUE_STATE, (state, expire_at))

    async def consume_state(self, state: str, now: float) -> bool:
        """True once for a state issued and not expired (it is used up); False otherwise."""
        return await self._db.run(_CONSUME_STATE, (state, now)) == 1


def slack_installs(store: Any) -> SlackInstalls:
    """The installations in an open store (a SQLite or a PostgreSQL one)."""
    from adapters.postgres.store import PostgresStore
    from adapters.sqlite.store import SqliteStore

    if isinstance(store, SqliteStore):
        return SlackInstalls(_Sqlite(store))
    if isinstance(store, PostgresStore):
        return SlackInstalls(_Postgres(store))
    raise TypeError(f"no Slack installations in a {type(store).__name__}")
