"""Group commit for PostgreSQL: units of writes, merged into one batch, written by ONE statement.

The statement is a chain of data-modifying ``WITH`` parts, one per kind of row present, each taking
its rows column-wise as arrays (``unnest``): one round trip, one transaction, and a handful of
distinct statement texts, each prepared once per connection (asyncpg's statement cache).  All parts
see the same snapshot, so a row that one part inserts cannot be updated by another: a table created
in the batch gets its closing and panels in its inserted row instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from types import MappingProxyType
from typing import Any

__all__ = ["Batch", "Unit", "statement"]

# kind: (SQL types of the columns, the WITH part; {p} stands for the unnest of the column arrays)
_PARTS: dict[str, tuple[tuple[str, ...], str]] = {
    "expect": (("bigint", "integer"), "chk AS (SELECT liars_expect_seq({args}) AS n)"),
    "expect_settings": (("text", "integer"), "chks AS (SELECT liars_expect_settings({args}) AS n)"),
    "tables": (
        ("bigint", "text", "text", "float8", "text", "float8", "jsonb"),
        "t AS (INSERT INTO tables (id, server, channel, created_at, status, closed_at, panels) SELECT * FROM {p})",
    ),
    "events": (
        ("bigint", "integer", "float8", "json"),
        "e AS (INSERT INTO table_events (table_id, seq, at, event) SELECT * FROM {p})",
    ),
    "rounds": (
        ("bigint", "text", "integer", "text", "float8", "json", "json"),
        "r AS (INSERT INTO rounds (table_id, server, number, period, at, record, outcome) SELECT * FROM {p}"
        " RETURNING id, table_id, number)",
    ),
    "ledger": (
        ("bigint", "integer", "text", "text", "text", "bigint", "float8"),
        "l AS (INSERT INTO ledger (server, period, player, units, round_id, at)"
        " SELECT x.server, x.period, x.player, x.units, r.id, x.at"
        " FROM {p} AS x(table_id, number, server, period, player, units, at)"
        " JOIN r ON r.table_id = x.table_id AND r.number = x.number)",
    ),
    "players": (
        ("text", "text", "text"),
        "p AS (INSERT INTO players (server, player, name) SELECT * FROM {p}"
        " ON CONFLICT (server, player) DO UPDATE SET name = excluded.name)",
    ),
    "requests": (
        ("text", "bigint", "json", "float8", "text"),
        "q AS (INSERT INTO requests (request_id, table_id, reply, at, server) SELECT * FROM {p})",
    ),
    "updates": (
        ("bigint", "float8", "jsonb"),
        "u AS (UPDATE tables SET status = CASE WHEN x.closed_at IS NULL THEN tables.status ELSE 'closed' END,"
        " closed_at = COALESCE(x.closed_at, tables.closed_at), panels = tables.panels || x.patch"
        " FROM {p} AS x(id, closed_at, patch) WHERE tables.id = x.id)",
    ),
    "settle": (
        ("text", "text", "text", "float8"),
        "st AS (INSERT INTO settlements (server, period, settled_by, at) SELECT * FROM {p})",  # twice: an error
    ),
}
_KINDS = tuple(_PARTS)
_EMPTY: Mapping[Any, Any] = MappingProxyType({})


@lru_cache(maxsize=256)
def statement(kinds: tuple[str, ...]) -> str:
    """The one statement that writes a batch holding rows of these kinds (in ``_PARTS`` order)."""
    parts = []
    n = 1
    for kind in kinds:
        types, template = _PARTS[kind]
        args = ", ".join(f"${n + i}::{t}[]" for i, t in enumerate(types))
        n += len(types)
        parts.append(template.format(args=args, p=f"unnest({args})"))
    checks = [f"(SELECT n FROM {name})" for kind, name in (("expect", "chk"), ("expect_settings", "chks"))
              if kind in kinds]  # a check's part runs only if the result names it
    return "WITH " + ",\n".join(parts) + f"\nSELECT {' + '.join(checks) or '0'}"


class Unit:
    """One caller's writes: all stored, or none.  (A plain class with slots: one is made per commit.)"""

    __slots__ = ("close", "events", "expect", "expect_settings", "ledger", "new_table", "panels", "players",
                 "request_id", "requests", "rounds", "settings", "settle", "table_id")

    def __init__(self, table_id: int | None = None, request_id: str | None = None,
                 new_table: tuple[Any, ...] | None = None, *, panels: dict[int, dict[str, str]] | None = None,
                 settings: list[tuple[str, str, int]] | None = None, settle: list[tuple[Any, ...]] | None = None,
                 requests: list[tuple[Any, ...]] | None = None) -> None:
        self.table_id = table_id
        self.request_id = request_id
        self.new_table = new_table  # (id, server, channel, created_at): the table's first commit
        self.expect: tuple[int, int] | None = None  # (table_id, the number of events it must have)
        self.expect_settings: tuple[str, int] | None = None  # (server, the version its settings must have)
        # rows of each kind (empty tuples until set: most units have few kinds)
        self.events: Sequence[tuple[Any, ...]] = ()
        self.rounds: Sequence[tuple[Any, ...]] = ()
        self.ledger: Sequence[tuple[Any, ...]] = ()  # joined to its round by (table_id, number)
        self.players: Sequence[tuple[str, str, str]] = ()
        self.requests: Sequence[tuple[Any, ...]] = requests or ()
        self.close: Mapping[int, float] = _EMPTY
        self.panels: Mapping[int, dict[str, str]] = panels or _EMPTY
        # (server, document, expected version): written apart, each checked (see ``PostgresStore._write``)
        self.settings: Sequence[tuple[str, str, int]] = settings or ()
        self.settle: Sequence[tuple[Any, ...]] = settle or ()


class Batch:
    """Units merged, in order, into rows per kind."""

    def __init__(self) -> None:
        self.rows: dict[str, list[tuple[Any, ...]]] = {kind: [] for kind in _KINDS}
        self.settings: list[tuple[str, str, int]] = []

    @classmethod
    def of(cls, units: Sequence[Unit]) -> Batch:
        batch = cls()
        rows = batch.rows
        tables: dict[int, list[Any]] = {}  # created in this batch: [id, server, channel, at, status, closed_at, panels]
        updates: dict[int, list[Any]] = {}  # [closed_at or None, panels patch]
        players: dict[tuple[str, str], str] = {}
        for u in units:
            if u.new_table is not None:
                tables[u.new_table[0]] = [*u.new_table, "open", None, {}]
            if u.expect is not None:
                rows["expect"].append(u.expect)
            if u.expect_settings is not None:
                rows["expect_settings"].append(u.expect_settings)
            rows["events"].extend(u.events)
            rows["rounds"].extend(u.rounds)
            rows["ledger"].extend(u.ledger)
            rows["requests"].extend(u.requests)
            rows["settle"].extend(u.settle)
            for sp, player, name in u.players:
                players[(sp, player)] = name
            batch.settings.extend(u.settings)
            for table_id, at in u.close.items():
                if table_id in tables:
                    tables[table_id][4:6] = ["closed", at]
                else:
                    updates.setdefault(table_id, [None, {}])[0] = at
            for table_id, patch in u.panels.items():
                target = tables[table_id][6] if table_id in tables else updates.setdefault(table_id, [None, {}])[1]
                target.update(patch)
        # Sorted keys: two processes' batches lock shared rows (players, servers, tables) in one order.
        rows["tables"] = [(*row[:6], json.dumps(row[6])) for row in tables.values()]
        rows["updates"] = [(t, at, json.dumps(patch)) for t, (at, patch) in sorted(updates.items())]
        rows["players"] = [(s, p, n) for (s, p), n in sorted(players.items())]
        return batch

    def kinds(self) -> tuple[str, ...]:
        present = [kind for kind in _KINDS if self.rows[kind]]
        if "ledger" in present and "rounds" not in present:  # pragma: no cover - a ledger row needs its round
            raise ValueError("ledger entries without their round")
        return tuple(present)

    def arguments(self) -> list[list[Any]]:
        """The column arrays, kind after kind, in ``kinds()`` order."""
        out: list[list[Any]] = []
        for kind in self.kinds():
            width = len(_PARTS[kind][0])
            columns: list[list[Any]] = [[] for _ in range(width)]
            for row in self.rows[kind]:
                for i in range(width):
                    columns[i].append(row[i])
            out.extend(columns)
        return out
