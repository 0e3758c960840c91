"""``liars migrate``: copy a SQLite database into an empty PostgreSQL database, then check it.

Everything is copied, ids included: servers' settings, tables (open and closed, with their panels),
every table's event log, rounds, the ledger, player names, answered requests, settled periods and
Slack installations,
in one PostgreSQL transaction (all or nothing).  Afterwards every server's balances, overall and per
period, are compared between the two databases, and so are the row counts.  The SQL lives in the two
stores (``SqliteStore.dump``, ``PostgresStore.bulk_load``); this module only drives them.

Opening the SQLite file applies its pending migrations, as starting the bot on it would.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from adapters.postgres.store import PostgresStore
from adapters.sqlite.schema import not_ours
from adapters.sqlite.store import SqliteStore
from adapters.storebase import DUMP_COLUMNS
from adapters.stores import is_postgres_url, redacted, sqlite_path, why_not_opened

__all__ = ["MigrationError", "MigrationReport", "migrate"]


class MigrationError(Exception):
    """The migration could not start or did not copy (nothing was written to PostgreSQL)."""


@dataclass
class MigrationReport:
    source: str
    target: str
    copied: dict[str, int]
    servers: list[str]
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def summary(self) -> str:
        lines = [f"copied {self.source} -> {self.target}"]
        lines += [f"  {kind:<13}{self.copied[kind]:>10,}" for kind in DUMP_COLUMNS]
        if self.ok:
            lines.append(f"checked: balances of {len(self.servers)} servers (overall and per period) and every"
                         " row count match")
        else:
            lines.append(f"MISMATCHES ({len(self.mismatches)}):")
            lines += [f"  {m}" for m in self.mismatches]
        return "\n".join(lines)


async def _chunks(source: SqliteStore) -> AsyncIterator[tuple[str, list[tuple[Any, ...]]]]:
    for kind in DUMP_COLUMNS:
        async for rows in source.dump(kind):
            yield kind, rows


async def _compare(source: SqliteStore, target: PostgresStore) -> tuple[list[str], list[str]]:
    mismatches = []
    servers = await source.all_servers()
    if await target.all_servers() != servers:
        mismatches.append(f"servers with a ledger differ: {servers} vs {await target.all_servers()}")
    for server in servers:
        for period in [None, *await source.periods(server)]:
            want, got = await source.balances(server, period), await target.balances(server, period)
            where = f"server {server!r}" + (f" period {period}" if period else "")
            if want != got:
                mismatches.append(f"{where}: balances differ ({len(want)} players in SQLite, {len(got)} copied)")
            if sum(got.values()) != 0:
                mismatches.append(f"{where}: the copied ledger sums to {sum(got.values())}, not 0")
    want_counts, got_counts = await source.row_counts(), await target.row_counts()
    for kind in DUMP_COLUMNS:
        if want_counts[kind] != got_counts[kind]:
            mismatches.append(f"{kind}: {want_counts[kind]} rows in SQLite, {got_counts[kind]} in PostgreSQL")
    return servers, mismatches


def _source_path(source_url: str, target_url: str) -> str:
    if is_postgres_url(source_url):
        raise MigrationError("--from must be a SQLite database (sqlite:///path)")
    if not is_postgres_url(target_url):
        raise MigrationError("--to must be a PostgreSQL URL (postgresql://...)")
    try:
        path = sqlite_path(source_url)
    except ValueError as exc:
        raise MigrationError(str(exc)) from None
    if not os.path.isfile(path):
        raise MigrationError(f"no SQLite database at {path}" if path else "--from needs a SQLite file")
    why = not_ours(path)
    if why is not None:
        raise MigrationError(f"cannot open {path}: {why}")
    return path


async def migrate(source_url: str, target_url: str) -> MigrationReport:
    """Copy the SQLite database at ``source_url`` (``sqlite:///path`` or a path) into the empty
    PostgreSQL database at ``target_url``, then compare them."""
    path = _source_path(source_url, target_url)
    source, target = SqliteStore(path), PostgresStore(target_url)
    try:  # the target first: a migration that cannot start leaves the source as it was (not migrated forward)
        await target.open()
    except Exception as exc:  # a server that does not answer, a URL the driver cannot read: one line
        with contextlib.suppress(Exception):
            await target.close()
        raise MigrationError(f"cannot open {redacted(target_url)}: {why_not_opened(exc)}") from None
    try:
        try:
            await source.open()  # (closed by itself when it fails)
        except (OSError, sqlite3.Error) as exc:
            raise MigrationError(f"cannot open {path}: {exc}") from None
        try:
            try:
                copied = await target.bulk_load(_chunks(source), await source.id_floors())
            except ValueError as exc:
                raise MigrationError(str(exc)) from None
            servers, mismatches = await _compare(source, target)
        finally:
            await source.close()
    finally:
        await target.close()
    return MigrationReport(path, redacted(target_url), copied, servers, mismatches)
