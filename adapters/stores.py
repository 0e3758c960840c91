"""Choosing the store: one function maps a database URL (or a bare SQLite path) to a :class:`Database`
(the service's ``Store`` port and the Slack adapter's ``SlackInstalls`` port, on one database; the tools
that work on the database without a service see its :class:`Books`).

    sqlite:///relative/or/absolute/path.sqlite3   SQLite file (``sqlite:////abs`` also works)
    ./liars.sqlite3                               a bare path: SQLite
    postgresql://user:pass@host:5432/db           PostgreSQL (asyncpg); ``postgres://`` too

``store_url_from_env`` reads ``LIARS_DATABASE_URL`` first, then ``LIARS_DB`` (a SQLite path), then
defaults to ``./liars.sqlite3``.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any, Protocol

from adapters.config import Env
from adapters.installs import SlackInstalls
from bot.ports import Store

__all__ = ["Books", "Database", "StoreUnavailable", "is_postgres_url", "make_store", "open_store", "redacted",
           "sqlite_path", "store_url_from_env", "why_not_opened"]


class Books(Store, Protocol):
    """An open store of ours as the tools that work on it without a service see it (``liars forget``,
    the service bench's books check): the service's :class:`bot.ports.Store` and every server in it.
    What the composition root's ``open_store`` returns, so no signature of the root names Slack's port."""

    async def all_servers(self) -> list[str]:
        """Every server with a ledger entry, in order: how a tool checks every server's books (each
        sums to 0; ``liars migrate`` compares them between two databases).  The service never asks."""
        ...


class Database(Books, SlackInstalls, Protocol):
    """An open store of ours (SQLite or PostgreSQL): the tables and the ledger the service keeps
    (:class:`bot.ports.Store`, with :class:`Books`' every server), and the Slack installations the Slack
    adapter keeps (:class:`adapters.installs.SlackInstalls`) in the same database.  :func:`make_store`
    returns one, so mypy checks each store against both ports; the service sees only its ``Store``, and
    only the Slack process's builder hands the installations to the Slack adapter."""


class StoreUnavailable(ValueError):
    """The database cannot be opened (its URL or path, a server that does not answer, a schema it cannot
    read); the message names it, without a password."""


def store_url_from_env() -> str:
    """``LIARS_DATABASE_URL``, else ``LIARS_DB``, else ``./liars.sqlite3``; a blank setting is unset (one of
    spaces made a SQLite file named "   ")."""
    return Env(os.environ).database(None) or "./liars.sqlite3"


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://", "postgresql+asyncpg://"))


def sqlite_path(url: str) -> str:
    """The file path of ``sqlite:///path`` (or of a bare path)."""
    if url.startswith("sqlite://"):
        rest = url[len("sqlite://"):]
        if not rest.startswith("/"):
            raise ValueError(f"not a SQLite URL (sqlite:///path): {url!r}")
        path = rest[1:]  # sqlite:///rel/x -> rel/x ; sqlite:////abs/x -> /abs/x
        if not path:
            raise ValueError(f"a SQLite URL needs a path: {url!r}")
        return path
    if "://" in url:
        raise ValueError(f"unknown database URL scheme: {url.split('://', 1)[0]!r} (use sqlite:/// or postgresql://)")
    return url


def make_store(url: str | None = None, **options: Any) -> Database:
    """A store for the URL (not yet open).  ``options`` go to the store's constructor, e.g.
    ``synchronous="NORMAL"`` for SQLite or ``pool_size=8`` for PostgreSQL; options that the chosen
    store does not take are ignored."""
    url = url or store_url_from_env()
    if is_postgres_url(url):
        from adapters.postgres.store import PostgresStore

        pg_options = {k: v for k, v in options.items() if k in ("pool_size",)}
        return PostgresStore(url.replace("postgresql+asyncpg://", "postgresql://", 1), **pg_options)
    from adapters.sqlite.store import SqliteStore

    sqlite_options = {k: v for k, v in options.items() if k in ("synchronous", "checkpoint_interval")}
    return SqliteStore(sqlite_path(url), **sqlite_options)


async def open_store(url: str | None = None, *, existing: bool = False, read_only: bool = False,
                     **options: Any) -> Database:
    """``make_store`` and open it (connect, migrate).  The URL defaults to ``store_url_from_env()``.
    A store that fails while opening is closed before the error goes on: a half-open SQLite connection's
    thread would keep the process alive after it.  ``existing``: a SQLite file that is not there is not
    created (a tool that only reads, given a mistyped path, made an empty database there)."""
    url = url or store_url_from_env()
    if not is_postgres_url(url):
        try:
            path = sqlite_path(url)
        except ValueError:
            path = None  # (make_store names what is wrong with the URL)
        if existing and path is not None and not os.path.exists(path):  # noqa: ASYNC240 - one stat, at start-up
            raise StoreUnavailable(f"cannot open {redacted(url)}: there is no database there")
        if path is not None and os.path.isdir(path):  # noqa: ASYNC240 - ("disk I/O error", "unable to open")
            raise StoreUnavailable(f"cannot open {redacted(url)}: that is a folder, not a database")
        if existing:
            _refuse_foreign(url)
        if read_only and path is not None and (older := older_schema(path)) is not None:
            # (`liars sheet --db backup.sqlite3` upgraded the backup in place, and switched it to WAL)
            raise StoreUnavailable(f"cannot open {redacted(url)} only to read it: an older version of liars wrote it "
                                   f"(schema {older[0]} of {older[1]}), and reading it would upgrade it in place. "
                                   "Read a copy, or start the bot on it to upgrade it")
    try:
        store = make_store(url, **options)
    except ValueError as exc:
        raise StoreUnavailable(f"cannot open {redacted(url)}: {exc}") from None
    try:
        await store.open()
    except BaseException as exc:
        with contextlib.suppress(Exception):
            await store.close()
        if isinstance(exc, Exception):  # a folder that is not there, a server that does not answer: one line
            raise StoreUnavailable(f"cannot open {redacted(url)}: {why_not_opened(exc)}") from exc
        raise
    return store


def why_not_opened(exc: Exception) -> str:
    """Why a database could not be opened, on one line that quotes nothing of its URL: a driver that cannot read
    the URL quotes pieces of it — a password holding ``/`` or ``#`` is split there and its pieces read as the port
    — and a port past 65535 overflows."""
    if isinstance(exc, ValueError | OverflowError):
        return "the URL could not be read"
    return f"{type(exc).__name__}: {exc}"


def older_schema(path: str) -> tuple[int, int] | None:
    """(the schema version stored, this version's) when the SQLite liars file at ``path`` is of an older schema,
    read without changing it; else None."""
    from adapters.sqlite.schema import MIGRATIONS, stored_version

    stored = stored_version(path)
    return (stored, len(MIGRATIONS)) if stored is not None and 0 < stored < len(MIGRATIONS) else None


def _refuse_foreign(url: str) -> None:
    """A tool that only reads, given another application's SQLite file (or an empty one), would write the bot's
    schema into it and switch it to WAL: refused, the file unchanged."""
    from adapters.sqlite.schema import not_ours

    try:
        path = sqlite_path(url)
    except ValueError:
        return  # (make_store names what is wrong with the URL)
    why = not_ours(path)
    if why is not None:
        raise StoreUnavailable(f"cannot open {redacted(url)}: {why}")


def redacted(url: str) -> str:
    """A URL without its password (nor its query, where one may be given too: ``?password=…``), for printing."""
    if "://" not in url:
        return url.split("?", 1)[0]
    scheme, rest = url.split("://", 1)
    if "@" in rest or "?" in rest:  # where credentials or options end cannot always be told ("?" or "@" in a
        return f"{scheme}://… (its user, password and options not shown)"  # password): none of it is shown
    return url
