"""Where Slack installations live: what :mod:`adapters.slack.oauth` (slack_sdk's stores) needs of our
store.

``liars slack`` distributed to many workspaces (OAuth v2) keeps each workspace's installation (its bot
token, scopes, who installed) and the OAuth flow's one-time ``state`` values in OUR database — the
SQLite file by default, PostgreSQL when ``LIARS_DATABASE_URL`` is set — so every process sharing the
database serves every workspace, and an install through one process is seen by all.  The tables
(``slack_bots``, ``slack_installations``, ``slack_oauth_states``: migration 3 of the SQLite schema, 2
of the PostgreSQL one) are apart from the game's.  A row's ``data`` is slack_sdk's own record of the
bot or the installation as JSON (:mod:`adapters.slack.oauth` turns it back into slack_sdk's objects);
the key columns are what the lookups need.  ``''`` stands for an absent enterprise, team or user id.

Both stores provide these methods (their SQL is :class:`adapters.storebase.SlackQueries`), and mypy
checks it: :func:`adapters.stores.make_store` returns a :class:`~adapters.stores.Database`, which is this
port and the service's :class:`bot.ports.Store` in one.  The port is the Slack adapter's, not the bot's:
only :mod:`adapters.slack` reads or writes an installation, so ``bot/`` never learns these words.  Writes are
single statements, each its own transaction: they are rare (an install, an uninstall) and are not part
of the group commit that carries the game's commits (the SQLite store's writer runs them between its
batches, as it runs every write on its connection).
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["SlackInstalls"]


class SlackInstalls(Protocol):
    """Slack's installations and OAuth states in one store (see the module's docstring)."""

    async def save_slack_bot(self, enterprise: str, team: str, server: str, at: float, data: str) -> None: ...

    async def save_slack_installation(self, enterprise: str, team: str, user: str, at: float,
                                      data: str) -> None: ...

    async def find_slack_bot(self, enterprise: str, team: str) -> str | None: ...

    async def slack_bot_of_server(self, server: str) -> str | None:
        """The bot installed for a ledger server (an Enterprise Grid organisation or a workspace)."""
        ...

    async def slack_bots_of_server(self, server: str) -> list[str]:
        """Every bot installed for a ledger server: an organisation-wide one first, then the newest workspace's."""
        ...

    async def find_slack_installation(self, enterprise: str, team: str, user: str | None = None) -> str | None:
        """The newest installation in the workspace, or the one ``user`` made."""
        ...

    async def delete_slack_bot(self, enterprise: str, team: str) -> None: ...

    async def delete_slack_installations(self, enterprise: str, team: str, user: str | None = None) -> None:
        """Every installation in the workspace, or the one ``user`` made."""
        ...

    async def issue_oauth_state(self, state: str, expire_at: float, now: float) -> None: ...

    async def consume_oauth_state(self, state: str, now: float) -> bool:
        """True once for a state issued and not expired (it is used up); False otherwise."""
        ...

