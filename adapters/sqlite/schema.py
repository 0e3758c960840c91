"""The SQLite schema: numbered migrations, applied once each by ``PRAGMA user_version``."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import urllib.parse
from collections.abc import Iterator

import aiosqlite

__all__ = ["MIGRATIONS", "immediate", "migrate_sync", "not_ours", "stored_version", "switch_to_wal"]

MIGRATIONS: list[str] = [
    # 1: the first schema
    """
    CREATE TABLE servers (
        server TEXT PRIMARY KEY,
        settings TEXT NOT NULL DEFAULT '{}'
    );
    CREATE TABLE tables (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        server TEXT NOT NULL,
        channel TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
        created_at REAL NOT NULL,
        closed_at REAL,
        panels TEXT NOT NULL DEFAULT '{}'
    );
    CREATE UNIQUE INDEX tables_one_open_per_channel ON tables(server, channel) WHERE status = 'open';
    CREATE TABLE table_events (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        seq INTEGER NOT NULL,
        at REAL NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (table_id, seq)
    );
    CREATE TABLE rounds (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        table_id INTEGER NOT NULL REFERENCES tables(id),
        server TEXT NOT NULL,
        number INTEGER NOT NULL,
        period TEXT NOT NULL,
        at REAL NOT NULL,
        record TEXT NOT NULL,
        outcome TEXT NOT NULL,
        UNIQUE (table_id, number)
    );
    CREATE INDEX rounds_by_server ON rounds(server, id);
    CREATE TABLE ledger (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        server TEXT NOT NULL,
        period TEXT NOT NULL,
        player TEXT NOT NULL,
        units INTEGER NOT NULL,
        round_id INTEGER NOT NULL REFERENCES rounds(id),
        at REAL NOT NULL
    );
    CREATE INDEX ledger_by_period ON ledger(server, period, player);
    CREATE TABLE players (
        server TEXT NOT NULL,
        player TEXT NOT NULL,
        name TEXT NOT NULL,
        PRIMARY KEY (server, player)
    );
    CREATE TABLE requests (
        request_id TEXT PRIMARY KEY,
        table_id INTEGER,
        reply TEXT NOT NULL,
        at REAL NOT NULL
    );
    CREATE TABLE settlements (
        server TEXT NOT NULL,
        period TEXT NOT NULL,
        settled_by TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (server, period)
    );
    CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
        BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
    CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
        BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
    CREATE TRIGGER events_no_update BEFORE UPDATE ON table_events
        BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
    CREATE TRIGGER events_no_delete BEFORE DELETE ON table_events
        BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
    """,
    # 2: events are numbered from 1 (seq = how many events the table has once it is stored), as in
    # PostgreSQL: a commit that expects N events writes N+1...  The log is append-only, so it is
    # rebuilt rather than updated; the (table_id, seq) key stays the guard against a stale writer.
    """
    CREATE TABLE table_events_v2 (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        seq INTEGER NOT NULL CHECK (seq >= 1),
        at REAL NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (table_id, seq)
    );
    INSERT INTO table_events_v2 (table_id, seq, at, event) SELECT table_id, seq + 1, at, event FROM table_events;
    DROP TABLE table_events;
    ALTER TABLE table_events_v2 RENAME TO table_events;
    CREATE TRIGGER events_no_update BEFORE UPDATE ON table_events
        BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
    CREATE TRIGGER events_no_delete BEFORE DELETE ON table_events
        BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
    CREATE INDEX tables_by_channel ON tables(server, channel, id);
    """,
    # 3: Slack installations (OAuth v2 distribution), kept apart from the game's tables: see
    # adapters/installs.py.  '' stands for an absent enterprise, team or user id.
    """
    CREATE TABLE slack_bots (
        enterprise_id TEXT NOT NULL,
        team_id TEXT NOT NULL,
        server TEXT NOT NULL,
        installed_at REAL NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (enterprise_id, team_id)
    );
    CREATE INDEX slack_bots_by_server ON slack_bots(server, installed_at);
    CREATE TABLE slack_installations (
        enterprise_id TEXT NOT NULL,
        team_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        installed_at REAL NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (enterprise_id, team_id, user_id)
    );
    CREATE TABLE slack_oauth_states (
        state TEXT PRIMARY KEY,
        expire_at REAL NOT NULL
    );
    """,
    # 4: a server's settings have a version, one more with each change: a process holding an older
    # copy finds out when it commits (``StaleSettings``) and reads them again
    """
    ALTER TABLE servers ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
    UPDATE servers SET version = 1;
    """,
    # 5: a request's answer names its server, so that ``liars forget`` erases the answers no table holds
    # (a config's, a settle's, a refusal where no table was open) with the rest of the server's rows
    """
    ALTER TABLE requests ADD COLUMN server TEXT;
    UPDATE requests SET server = (SELECT server FROM tables WHERE tables.id = requests.table_id);
    CREATE INDEX requests_by_server ON requests(server);
    """,
]


def _statements(script: str) -> list[str]:
    """A script's statements (a trigger's body keeps its inner semicolons)."""
    out, buf = [], ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf)
            buf = ""
    if buf.strip() and not all(x.strip().startswith("--") for x in buf.splitlines() if x.strip()):
        out.append(buf)
    return out


async def switch_to_wal(db: aiosqlite.Connection, attempts: int = 100) -> None:
    """``PRAGMA journal_mode=WAL``, waiting for other processes opening the same new file: SQLite
    answers "database is locked" at once (without its busy handler) while another connection holds the
    lock that switching the journal mode needs."""
    for attempt in range(attempts):
        try:
            await db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt + 1 == attempts:
                raise
            await asyncio.sleep(0.05)


@contextlib.contextmanager
def immediate(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction on an autocommit connection (``BEGIN IMMEDIATE``: the write lock first),
    committed if the block ends, rolled back if it raises."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _user_version(path: str) -> int:
    """The file's ``user_version``, read without changing it (raises ``sqlite3.Error``)."""
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True)
    try:
        return int(conn.execute("PRAGMA user_version").fetchall()[0][0])
    finally:
        conn.close()


def not_ours(path: str) -> str | None:
    """Why the SQLite file at ``path`` is no liars database (another application's, an empty file, no database
    at all), read without changing it; None when it is one.  A tool given it would write our schema into it."""
    try:
        version = _user_version(path)
    except sqlite3.Error as exc:
        return str(exc)
    return "it is not a liars database" if version == 0 else None


def stored_version(path: str) -> int | None:
    """The schema version the file at ``path`` holds (0: none), read without changing it; None if it cannot be
    read (no file, no database)."""
    try:
        return _user_version(path) if os.path.exists(path) else None
    except sqlite3.Error:
        return None


def migrate_sync(conn: sqlite3.Connection) -> list[int]:
    """Apply the migrations the file lacks, in ONE write transaction: two processes opening a new file
    together migrate it once (the second waits for the write lock, then finds nothing left to do)."""
    with immediate(conn):
        version = int(conn.execute("PRAGMA user_version").fetchall()[0][0])
        applied = []
        for number, script in enumerate(MIGRATIONS, start=1):
            if number > version:
                for statement in _statements(script):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number}")
                applied.append(number)
    return applied
