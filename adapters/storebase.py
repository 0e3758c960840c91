"""What both stores share: the group-commit writer, the book of each table's event stream, and every
query that reads the same in both dialects.  A store differs from the other only in its connection
handling, its write transaction and the SQL that is its own.  No store is imported here
(``adapters.stores`` chooses one; each builds on this).

**Group commit.**  A store hands each caller's writes (a *unit*: all stored, or none) to its
:class:`GroupWriter`.  One writer task per store takes every unit queued while the previous
transaction ran and writes them together in ONE transaction (the store's ``_write``).  If that batch
fails, its units are written one by one, in order, so only the unit at fault fails; its caller gets the
port's exception (the store's ``_translate``: a stale table, a request already answered …).

**Shared SQL** is written with ``?`` parameters, SQLite's; the PostgreSQL store's ``_rows`` turns them
into its ``$1, $2, …`` (:func:`numbered`, once per statement text).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from functools import lru_cache
from typing import Any, Generic, TypeVar

from bot.background import cancel, spawn
from bot.ports import RoundRecord, StoredSettings, StoredTable, TableHead

from .streams import StreamBook

__all__ = ["DUMP_COLUMNS", "GroupWriter", "Queries", "StoreBase", "numbered", "rowcount"]

U = TypeVar("U")

# The rows ``liars migrate`` copies, kind by kind, in an order that satisfies the foreign keys.  Both
# stores name these tables and columns alike; JSON columns travel as JSON text.
DUMP_COLUMNS: dict[str, tuple[str, ...]] = {
    "servers": ("server", "settings", "version"),
    "tables": ("id", "server", "channel", "status", "created_at", "closed_at", "panels"),
    "table_events": ("table_id", "seq", "at", "event"),
    "rounds": ("id", "table_id", "server", "number", "period", "at", "record", "outcome"),
    "ledger": ("id", "server", "period", "player", "units", "round_id", "at"),
    "players": ("server", "player", "name"),
    "requests": ("request_id", "table_id", "reply", "at"),
    "settlements": ("server", "period", "settled_by", "at"),
    "slack_bots": ("enterprise_id", "team_id", "server", "installed_at", "data"),  # adapters/installs.py
    "slack_installations": ("enterprise_id", "team_id", "user_id", "installed_at", "data"),
}


@lru_cache(maxsize=256)
def numbered(sql: str) -> str:
    """``?`` parameters as PostgreSQL's ``$1, $2, …`` (the shared SQL holds no ``?`` otherwise)."""
    count = iter(range(1, 1000))
    return re.sub(r"\?", lambda _: f"${next(count)}", sql)


def rowcount(status: object) -> int:
    """The rows a PostgreSQL command touched, from asyncpg's status text (``DELETE 3``, ``UPDATE 0``)."""
    return int(str(status).rsplit(" ", 1)[-1])


class Queries:
    """The reads both dialects write alike, with ``?`` parameters."""

    HEADS = ("SELECT t.id, t.server, t.channel,"
             " COALESCE((SELECT MAX(e.seq) FROM table_events e WHERE e.table_id = t.id), 0)"
             " FROM tables t WHERE t.status = 'open' ORDER BY t.id")  # MAX(seq) from the (table_id, seq) key
    OPEN_AT = "SELECT id, server, channel, panels FROM tables WHERE server = ? AND channel = ? AND status = 'open'"
    EVENTS_SINCE = "SELECT event FROM table_events WHERE table_id = ? AND seq > ? ORDER BY seq"
    STORED_SEQ = "SELECT COALESCE(MAX(seq), 0) FROM table_events WHERE table_id = ?"
    LAST_TABLE = "SELECT MAX(id) FROM tables WHERE server = ? AND channel = ?"
    PANELS = "SELECT panels FROM tables WHERE id = ?"
    REQUEST = "SELECT reply FROM requests WHERE request_id = ?"
    SETTINGS = "SELECT settings, version FROM servers WHERE server = ?"
    NAMES = "SELECT player, name FROM players WHERE server = ?"
    BALANCES = "SELECT player, SUM(units) FROM ledger WHERE server = ? GROUP BY player"
    BALANCES_IN = "SELECT player, SUM(units) FROM ledger WHERE server = ? AND period = ? GROUP BY player"
    PERIODS = "SELECT DISTINCT period FROM ledger WHERE server = ? ORDER BY period"
    SERVERS = "SELECT DISTINCT server FROM ledger ORDER BY server"
    SETTLED = "SELECT period, settled_by FROM settlements WHERE server = ?"
    ROUNDS = "SELECT id, table_id, number, period, at, outcome, record FROM rounds WHERE server = ?"


class GroupWriter(Generic[U]):
    """One store's writer task.  ``write(units)`` stores units in ONE transaction (or raises, storing
    none); ``translate(unit, error)`` is the exception the caller of a unit that failed alone gets."""

    def __init__(self, write: Callable[[Sequence[U]], Awaitable[None]],
                 translate: Callable[[U, Exception], Awaitable[BaseException]], *, name: str) -> None:
        self._write = write
        self._translate = translate
        self._name = name
        self._queue: asyncio.Queue[tuple[U, asyncio.Future[None]]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self.transactions = 0  # write transactions run (group commit makes this fewer than the units)

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        if self._task is None:
            self._task = spawn(self._loop(), f"the store writer ({self._name})", name=self._name)

    async def close(self) -> None:
        """Write what is queued, then stop."""
        if self._task is None:
            return
        await self._queue.join()
        await cancel(self._task)
        self._task = None

    async def submit(self, unit: U) -> None:
        """Queue a unit and wait until it is stored (or raise what kept it out)."""
        if self._task is None:
            raise RuntimeError("the store is not open")
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((unit, done))
        await done

    async def _loop(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while not self._queue.empty():
                batch.append(self._queue.get_nowait())
            try:
                await self._write([unit for unit, _ in batch])
                self.transactions += 1
                for _, done in batch:
                    _resolve(done, None)
            except Exception:
                # One unit spoiled the batch: write them one by one, in order, so only that one fails.
                for unit, done in batch:
                    try:
                        await self._write([unit])
                    except Exception as exc:
                        _resolve(done, await self._translate(unit, exc))
                    else:
                        self.transactions += 1
                        _resolve(done, None)
            finally:
                for _ in batch:
                    self._queue.task_done()


def _resolve(done: asyncio.Future[None], error: BaseException | None) -> None:
    if done.done():  # the caller was cancelled
        return
    if error is None:
        done.set_result(None)
    else:
        done.set_exception(error)


class StoreBase(Generic[U]):
    """The Store port over a store's connection (``_rows``), its write transaction (``_write``), the
    port's exceptions for a unit that failed alone (``_translate``) and the making of its units
    (``_commit_unit`` and the small ``_*_unit`` methods)."""

    def __init__(self, name: str) -> None:
        self._book = StreamBook()  # each table's events known stored, and the reserved table ids
        self._writer: GroupWriter[U] = GroupWriter(self._write, self._translate, name=name)

    # -- what each store provides ------------------------------------------------------------------
    async def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        """A query's rows (``?`` parameters), read in one go."""
        raise NotImplementedError

    async def _write(self, units: Sequence[U]) -> None:
        raise NotImplementedError

    async def _translate(self, unit: U, exc: Exception) -> BaseException:
        raise NotImplementedError

    def _commit_unit(self, table_id: int, server: str, first: int, new_table: tuple[Any, ...] | None,
                     events: Sequence[dict[str, Any]], *, at: float, period: str, rounds: Sequence[RoundRecord],
                     names: dict[str, str] | None, request: tuple[str, dict[str, Any]] | None, close: bool,
                     settings_version: int | None, panels: dict[str, str] | None) -> U:
        raise NotImplementedError

    def _other_unit(self, kind: str, rows: list[tuple[Any, ...]]) -> U:
        """A unit of one kind of row: ``panel`` (panel, ref, table_id), ``request`` (id, None, reply, at),
        ``settings`` (server, document, expected version), ``settle`` (server, period, by, at)."""
        raise NotImplementedError

    # -- shared ------------------------------------------------------------------------------------
    @property
    def transactions(self) -> int:
        """How many write transactions ran (group commit makes this fewer than the commits)."""
        return self._writer.transactions

    async def _one(self, sql: str, args: Sequence[Any] = ()) -> Any:
        rows = await self._rows(sql, args)
        return rows[0] if rows else None

    async def ping(self) -> None:
        await self._one("SELECT 1")

    async def open_table_heads(self) -> list[TableHead]:
        return [TableHead(*row) for row in await self._rows(Queries.HEADS)]

    async def open_table_at(self, server: str, channel: str) -> StoredTable | None:
        row = await self._one(Queries.OPEN_AT, (server, channel))
        if row is None:
            return None
        return StoredTable(row[0], row[1], row[2], await self.events_since(row[0], 0), json.loads(row[3]))

    async def table_events(self, table_id: int) -> list[dict[str, Any]]:
        return await self.events_since(table_id, 0)

    async def events_since(self, table_id: int, seq: int) -> list[dict[str, Any]]:
        events = [json.loads(r[0]) for r in await self._rows(Queries.EVENTS_SINCE, (table_id, seq))]
        self._book.saw(table_id, seq + len(events))
        return events

    async def _stored_seq(self, table_id: int) -> int:
        row = await self._one(Queries.STORED_SEQ, (table_id,))
        return int(row[0]) if row else 0

    async def last_table(self, server: str, channel: str) -> int | None:
        row = await self._one(Queries.LAST_TABLE, (server, channel))
        return int(row[0]) if row and row[0] is not None else None

    async def table_panels(self, table_id: int) -> dict[str, str]:
        row = await self._one(Queries.PANELS, (table_id,))
        return dict(json.loads(row[0])) if row else {}

    async def set_panel(self, table_id: int, panel: str, ref: str) -> None:
        await self._writer.submit(self._other_unit("panel", [(panel, ref, table_id)]))

    async def commit(
        self,
        table_id: int,
        server: str,
        events: Sequence[dict[str, Any]],
        *,
        at: float,
        period: str,
        rounds: Sequence[RoundRecord] = (),
        names: dict[str, str] | None = None,
        request: tuple[str, dict[str, Any]] | None = None,
        close: bool = False,
        expect_seq: int | None = None,
        settings_version: int | None = None,
        panels: dict[str, str] | None = None,
    ) -> None:
        pending = await self._book.begin(table_id, len(events), expect_seq, self._stored_seq)
        unit = self._commit_unit(table_id, server, pending.first, pending.new_table, events, at=float(at),
                                 period=period, rounds=rounds, names=names, request=request, close=close,
                                 settings_version=settings_version, panels=panels)
        try:
            await self._writer.submit(unit)
        except BaseException as exc:
            self._book.failed(pending, exc)  # nothing of the unit was stored
            raise

    async def remember(self, request_id: str, reply: dict[str, Any], at: float) -> None:
        await self._writer.submit(self._other_unit("request", [(request_id, None, json.dumps(reply), float(at))]))

    async def get_request(self, request_id: str) -> dict[str, Any] | None:
        row = await self._one(Queries.REQUEST, (request_id,))
        return None if row is None else dict(json.loads(row[0]))

    # -- servers -----------------------------------------------------------------------------------
    async def get_settings(self, server: str) -> StoredSettings:
        row = await self._one(Queries.SETTINGS, (server,))
        return StoredSettings({}, 0) if row is None else StoredSettings(dict(json.loads(row[0])), int(row[1]))

    async def set_settings(self, server: str, settings: dict[str, Any], *, expect_version: int) -> int:
        await self._writer.submit(self._other_unit("settings", [(server, json.dumps(settings), expect_version)]))
        return expect_version + 1

    async def names(self, server: str) -> dict[str, str]:
        return {p: n for p, n in await self._rows(Queries.NAMES, (server,))}

    # -- the ledger --------------------------------------------------------------------------------
    async def balances(self, server: str, period: str | None = None) -> dict[str, int]:
        if period is None:
            rows = await self._rows(Queries.BALANCES, (server,))
        else:
            rows = await self._rows(Queries.BALANCES_IN, (server, period))
        return {p: int(u) for p, u in rows}

    async def periods(self, server: str) -> list[str]:
        return [r[0] for r in await self._rows(Queries.PERIODS, (server,))]

    async def all_servers(self) -> list[str]:
        return [r[0] for r in await self._rows(Queries.SERVERS)]

    async def settle_period(self, server: str, period: str, by: str, at: float) -> bool:
        """Mark a period settled; False if it already was."""
        if period in await self.settled_periods(server):
            return False
        await self._writer.submit(self._other_unit("settle", [(server, period, by, float(at))]))
        return True

    async def settled_periods(self, server: str) -> dict[str, str]:
        return {p: b for p, b in await self._rows(Queries.SETTLED, (server,))}

    async def rounds(self, server: str, *, table_id: int | None = None,
                     limit: int | None = None) -> list[dict[str, Any]]:
        sql, args = Queries.ROUNDS, list[Any]([server])
        if table_id is not None:
            sql, args = sql + " AND table_id = ?", [*args, table_id]
        sql += " ORDER BY id DESC"
        if limit is not None:
            sql, args = sql + " LIMIT ?", [*args, limit]
        keys = ("id", "table_id", "number", "period", "at")
        return [{**dict(zip(keys, r[:5], strict=True)), "outcome": json.loads(r[5]), "record": json.loads(r[6])}
                for r in await self._rows(sql, args)]
