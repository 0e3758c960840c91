"""Group commit for SQLite: one caller's writes (a unit), and one batch of units written as ONE
transaction of a handful of statements on aiosqlite's worker thread."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from bot.ports import DuplicateRequest, PeriodSettled, StaleSettings, StaleTable

__all__ = ["CHECKS", "ORDER", "Unit", "next_id_sql", "translate", "write_sync"]

# Every write is one of these statements.  A batch runs them in this order, each ONCE over all the
# batch's rows — the rows travel as one JSON array read by ``json_each`` — so a transaction is a
# handful of statements whatever its size, and the worker thread hands the GIL back and forth a
# handful of times rather than once per row.  The order satisfies the foreign keys: a table's row
# comes before its events, a round before its ledger entries.
_INSERTS: dict[str, tuple[str, int, str]] = {
    # kind: (table and columns, number of columns, conflict clause)
    "table": ("tables (id, server, channel, created_at)", 4, ""),
    "event": ("table_events (table_id, seq, at, event)", 4, ""),
    "round": ("rounds (id, table_id, server, number, period, at, record, outcome)", 8, ""),
    "ledger": ("ledger (server, period, player, units, round_id, at)", 6, ""),
    "player": ("players (server, player, name)", 3, "ON CONFLICT (server, player) DO UPDATE SET name = excluded.name"),
    "request": ("requests (request_id, table_id, reply, at, server)", 5, ""),
    "settle": ("settlements (server, period, settled_by, at)", 4, ""),  # settled twice: PeriodSettled
}
_SQL: dict[str, str] = {
    kind: f"INSERT INTO {target} SELECT "
    + ", ".join(f"json_extract(value, '$[{i}]')" for i in range(ncols))
    + f" FROM json_each(?) WHERE true {conflict}"
    for kind, (target, ncols, conflict) in _INSERTS.items()
}
_UPDATES: dict[str, str] = {
    "close": "UPDATE tables SET status = 'closed', closed_at = ? WHERE id = ?",
    "panel": "UPDATE tables SET panels = json_set(panels, '$.' || ?, ?) WHERE id = ?",
}
# The first (table, stored count) whose stored count is not the expected one: [[table_id, expected], ...]
_CHECK_SQL = """
    SELECT t, stored FROM (
        SELECT json_extract(value, '$[0]') AS t, json_extract(value, '$[1]') AS expected,
               (SELECT COALESCE(MAX(seq), 0) FROM table_events WHERE table_id = json_extract(value, '$[0]')) AS stored
        FROM json_each(?)
    ) WHERE stored <> expected LIMIT 1
"""
# The first (server, stored version) whose settings are not at the expected version: [[server, expected], ...]
_SETTINGS_CHECK_SQL = """
    SELECT s, stored FROM (
        SELECT json_extract(value, '$[0]') AS s, json_extract(value, '$[1]') AS expected,
               COALESCE((SELECT version FROM servers WHERE server = json_extract(value, '$[0]')), 0) AS stored
        FROM json_each(?)
    ) WHERE stored <> expected LIMIT 1
"""
_SET_SETTINGS_SQL = ("INSERT INTO servers (server, settings, version) VALUES (?, ?, ?)"
                     " ON CONFLICT (server) DO UPDATE SET settings = excluded.settings, version = excluded.version")
ORDER = ("table", "event", "round", "ledger", "player", "request", "close", "panel", "settings", "settle")
CHECKS = ("expect", "expect_settings")


@dataclass
class Unit:
    """One caller's writes: all stored, or none."""

    rows: dict[str, list[tuple[Any, ...]]]
    rounds: list[tuple[tuple[Any, ...], list[tuple[Any, ...]]]]  # (round row without id, ledger rows without id)
    table_id: int | None = None
    request_id: str | None = None


def next_id_sql(table: str) -> str:
    """The next id of an AUTOINCREMENT table: past every id it ever held (sqlite_sequence remembers the
    rows an erase deleted), so an erased server's round or table id is never handed out again."""
    return (f"SELECT MAX(COALESCE((SELECT MAX(id) FROM {table}), 0),"
            f" COALESCE((SELECT seq FROM sqlite_sequence WHERE name = '{table}'), 0)) + 1")


def write_sync(
    conn: sqlite3.Connection,
    merged: dict[str, list[tuple[Any, ...]]],
    rounds: list[tuple[tuple[Any, ...], list[tuple[Any, ...]]]],
) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        expect = merged.get("expect")
        if expect:
            # fetchall: a statement left unfinished would hold its read snapshot past the transaction,
            # and another process's commit would then make this connection's next BEGIN fail at once
            stale = conn.execute(_CHECK_SQL, (json.dumps(expect, separators=(",", ":")),)).fetchall()
            if stale:
                raise StaleTable(int(stale[0][0]), int(stale[0][1]))
        if expect_settings := merged.get("expect_settings"):
            moved = conn.execute(_SETTINGS_CHECK_SQL, (json.dumps(expect_settings),)).fetchall()
            if moved:
                raise StaleSettings(str(moved[0][0]), int(moved[0][1]))
        if rounds:
            # Round ids are taken inside the write transaction, which holds the database's write lock.
            next_id = int(conn.execute(next_id_sql("rounds")).fetchall()[0][0])
            for round_row, ledger in rounds:
                merged["round"].append((next_id, *round_row))
                merged["ledger"].extend((*e[:4], next_id, e[4]) for e in ledger)
                next_id += 1
        for kind in ORDER:
            rows = merged[kind]
            if not rows:
                continue
            if kind == "settings":  # (server, document, expected version): one by one, each checked
                for server, document, expected in rows:
                    [(stored,)] = conn.execute("SELECT COALESCE(MAX(version), 0) FROM servers WHERE server = ?",
                                               (server,)).fetchall()
                    if stored != expected:
                        raise StaleSettings(server, int(stored))
                    conn.execute(_SET_SETTINGS_SQL, (server, document, expected + 1))
            elif kind in _UPDATES:
                conn.executemany(_UPDATES[kind], rows)
            else:
                conn.execute(_SQL[kind], (json.dumps(rows, separators=(",", ":")),))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def translate(unit: Unit, exc: Exception) -> Exception:
    """The port's exception for a unit that failed alone on a key."""
    if isinstance(exc, sqlite3.IntegrityError):
        message = str(exc)
        if "requests.request_id" in message and unit.request_id is not None:
            return DuplicateRequest(unit.request_id)
        if "settlements.server, settlements.period" in message and (settle := unit.rows.get("settle")):
            return PeriodSettled(settle[0][0], settle[0][1])
        if ("tables.server, tables.channel" in message or "tables.id" in message) and unit.table_id is not None:
            # another table is open in this channel, or another process on the file took this id first
            return StaleTable(unit.table_id, 0)
    return exc
