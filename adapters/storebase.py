"""What both stores share: the group-commit writer, the book of each table's event stream, and every
query that reads the same in both dialects.  A store differs from the other only in its connection
handling, its write transaction and the SQL that is its own.  No store is imported here
(``adapters.stores`` chooses one; each builds on this).

**Group commit.**  A store hands each caller's writes (a *unit*: all stored, or none) to its
:class:`~adapters.groupwriter.GroupWriter` (see there), which writes the units queued together in ONE
transaction (the store's ``_write``); a unit that fails alone gets the port's exception (the store's
``_translate``: a stale table, a request already answered …).

**Shared SQL** is written with ``?`` parameters, SQLite's; the PostgreSQL store's ``_rows`` turns them
into its ``$1, $2, …`` (:func:`numbered`, once per statement text).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Generic, TypeVar

from bot.ports import PeriodSettled, RoundRecord, StoredSettings, StoredTable, TableHead

from .groupwriter import GroupWriter
from .streams import StreamBook

__all__ = ["DUMP_COLUMNS", "Erase", "GroupWriter", "Queries", "SlackQueries", "StoreBase", "numbered",
           "rowcount"]

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
    "requests": ("request_id", "table_id", "reply", "at", "server"),
    "settlements": ("server", "period", "settled_by", "at"),
    "slack_bots": ("enterprise_id", "team_id", "server", "installed_at", "data"),  # SlackQueries
    "slack_installations": ("enterprise_id", "team_id", "user_id", "installed_at", "data"),
}


def _request_row(request: tuple[str, dict[str, Any]] | None, at: float, server: str) -> tuple[Any, ...] | None:
    """A request's row (request_id, table_id, reply, at, server) stored with a server's change (no table)."""
    return None if request is None else (request[0], None, json.dumps(request[1]), float(at), server)


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
    PRUNE_REQUESTS = "DELETE FROM requests WHERE at < ?"
    SETTINGS = "SELECT settings, version FROM servers WHERE server = ?"
    NAMES = "SELECT player, name FROM players WHERE server = ?"
    BALANCES = "SELECT player, SUM(units) FROM ledger WHERE server = ? GROUP BY player"
    BALANCES_IN = "SELECT player, SUM(units) FROM ledger WHERE server = ? AND period = ? GROUP BY player"
    PERIODS = "SELECT DISTINCT period FROM ledger WHERE server = ? ORDER BY period"
    SERVERS = "SELECT DISTINCT server FROM ledger ORDER BY server"
    SETTLED = "SELECT period, settled_by FROM settlements WHERE server = ?"
    ROUNDS = "SELECT id, table_id, number, period, at, outcome, record FROM rounds WHERE server = ?"


class Erase:
    """Erasing one server's rows (``liars forget``, :meth:`StoreBase.erase_server`): the check, and the
    deletes in an order the foreign keys allow (a round's ledger entries before it, a table's rows
    before it).  Each store lifts its append-only triggers around them, in the same transaction."""

    OPEN = "SELECT COUNT(*) FROM tables WHERE server = ? AND status = 'open'"
    _OF_TABLES = "table_id IN (SELECT id FROM tables WHERE server = ?)"
    DELETES: tuple[tuple[str, str], ...] = (*tuple(
        (table, f"DELETE FROM {table} WHERE {where}") for table, where in (
            ("ledger", "server = ?"),
            ("rounds", "server = ?"),
            ("settlements", "server = ?"),
            # every answer names its server (since migration 5; 4 in PostgreSQL) — but one stored by a process
            # still running the code before (a rolling deploy) names only its table
            ("requests", f"server = ? OR {_OF_TABLES}"),
            ("table_events", _OF_TABLES),
            ("tables", "server = ?"),
            ("players", "server = ?"),
        )),
        # the settings are erased, but their version keeps counting: a process holding the erased settings
        # (at version n) must not take the next ones written (which a deleted row would number 1 again) for its own
        ("servers", "UPDATE servers SET settings = '{}', version = version + 1"
                    " WHERE server = ? AND CAST(settings AS TEXT) <> '{}'"),
    )


class SlackQueries:
    """Slack's installations and OAuth states (``slack_bots``, ``slack_installations``,
    ``slack_oauth_states``; see :mod:`adapters.installs`).  ``''`` stands for an absent enterprise, team
    or user id."""

    UPSERT_BOT = ("INSERT INTO slack_bots (enterprise_id, team_id, server, installed_at, data) VALUES (?, ?, ?, ?, ?)"
                  " ON CONFLICT (enterprise_id, team_id) DO UPDATE SET server = excluded.server,"
                  " installed_at = excluded.installed_at, data = excluded.data")
    UPSERT_INSTALLATION = ("INSERT INTO slack_installations (enterprise_id, team_id, user_id, installed_at, data)"
                           " VALUES (?, ?, ?, ?, ?) ON CONFLICT (enterprise_id, team_id, user_id) DO UPDATE SET"
                           " installed_at = excluded.installed_at, data = excluded.data")
    FIND_BOT = "SELECT data FROM slack_bots WHERE enterprise_id = ? AND team_id = ?"
    # the server's bot: an organisation-wide install first (team ''), else the newest workspace install
    BOT_OF_SERVER = ("SELECT data FROM slack_bots WHERE server = ? ORDER BY team_id = '' DESC, installed_at DESC"
                     " LIMIT 1")
    # every bot of the server, in the same order (an organisation's workspace installs: which one sees a channel)
    BOTS_OF_SERVER = BOT_OF_SERVER.removesuffix(" LIMIT 1")
    FIND_INSTALLATION = ("SELECT data FROM slack_installations WHERE enterprise_id = ? AND team_id = ?"
                         " ORDER BY installed_at DESC LIMIT 1")
    FIND_USER_INSTALLATION = FIND_INSTALLATION.replace("team_id = ?", "team_id = ? AND user_id = ?")
    DELETE_BOT = "DELETE FROM slack_bots WHERE enterprise_id = ? AND team_id = ?"
    DELETE_INSTALLATIONS = "DELETE FROM slack_installations WHERE enterprise_id = ? AND team_id = ?"
    DELETE_USER_INSTALLATION = DELETE_INSTALLATIONS + " AND user_id = ?"
    ISSUE_STATE = "INSERT INTO slack_oauth_states (state, expire_at) VALUES (?, ?)"
    CONSUME_STATE = "DELETE FROM slack_oauth_states WHERE state = ? AND expire_at > ?"
    FORGET_STALE_STATES = "DELETE FROM slack_oauth_states WHERE expire_at <= ?"


class StoreBase(Generic[U]):
    """The Store port over a store's connection (``_rows``), its write transaction (``_write``), the
    port's exceptions for a unit that failed alone (``_translate``) and the making of its units
    (``_commit_unit`` and the small ``_*_unit`` methods)."""

    def __init__(self, name: str) -> None:
        self._book = StreamBook()  # each table's events known stored, and the reserved table ids
        self._writer: GroupWriter[U] = GroupWriter(self._write, self._translate, name=name, landed=self._landed)

    # -- what each store provides ------------------------------------------------------------------
    async def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        """A query's rows (``?`` parameters), read in one go."""
        raise NotImplementedError

    async def _run(self, sql: str, args: Sequence[Any] = ()) -> int:
        """One write statement (``?`` parameters) in its own transaction; the rows it changed."""
        raise NotImplementedError

    async def _landed(self, unit: U, failure: Exception) -> bool:
        """Whether a unit whose batch failed (``failure``) was stored all the same: a server's commit whose answer
        was lost on the way back.  A store in this process (SQLite) knows its own commits: never."""
        return False

    async def erase_server(self, server: str) -> dict[str, int]:
        """Erase every row of ``server`` (:class:`Erase`, in ONE transaction, lifting the append-only
        triggers for it); the rows erased per table.  Raises :class:`bot.ports.OpenTables`, erasing
        nothing, if the server has an open table (the port's ``Store.erase_server``)."""
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

    def _other_unit(self, kind: str, rows: list[tuple[Any, ...]], request: tuple[Any, ...] | None = None) -> U:
        """A unit of one kind of row: ``panel`` (panel, ref, table_id), ``request`` (id, None, reply, at),
        ``settings`` (server, document, expected version), ``settle`` (server, period, by, at); ``request``
        rows are (id, None, reply, at, server); with
        ``request``, a request's row stored with them (the unit fails as a duplicate request if it is)."""
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

    async def remember(self, request_id: str, reply: dict[str, Any], at: float, server: str) -> None:
        row = (request_id, None, json.dumps(reply), float(at), server)
        await self._writer.submit(self._other_unit("request", [row]))

    async def get_request(self, request_id: str) -> dict[str, Any] | None:
        row = await self._one(Queries.REQUEST, (request_id,))
        return None if row is None else dict(json.loads(row[0]))

    # -- servers -----------------------------------------------------------------------------------
    async def get_settings(self, server: str) -> StoredSettings:
        row = await self._one(Queries.SETTINGS, (server,))
        return StoredSettings({}, 0) if row is None else StoredSettings(dict(json.loads(row[0])), int(row[1]))

    async def set_settings(self, server: str, settings: dict[str, Any], *, expect_version: int,
                           request: tuple[str, dict[str, Any]] | None = None, at: float = 0.0) -> int:
        await self._writer.submit(self._other_unit("settings", [(server, json.dumps(settings), expect_version)],
                                                   _request_row(request, at, server)))
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

    async def settle_period(self, server: str, period: str, by: str, at: float,
                            request: tuple[str, dict[str, Any]] | None = None) -> bool:
        """Mark a period settled; False if it already was (another settlement stored first, here or in
        another process, included: the row is a key)."""
        if period in await self.settled_periods(server):
            return False
        try:
            await self._writer.submit(self._other_unit("settle", [(server, period, by, float(at))],
                                                       _request_row(request, at, server)))
        except PeriodSettled:
            return False
        return True

    async def prune_requests(self, before: float) -> int:
        """The answers kept for requests older than ``before`` go: a platform redelivers within minutes, and
        every refused click once stayed for good."""
        return await self._run(Queries.PRUNE_REQUESTS, (float(before),))

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

    # -- Slack installations (rare writes: an install, an uninstall; not through the group commit) -
    async def _data(self, sql: str, *args: Any) -> str | None:
        row = await self._one(sql, args)
        return None if row is None else str(row[0])

    async def save_slack_bot(self, enterprise: str, team: str, server: str, at: float, data: str) -> None:
        await self._run(SlackQueries.UPSERT_BOT, (enterprise, team, server, at, data))

    async def save_slack_installation(self, enterprise: str, team: str, user: str, at: float, data: str) -> None:
        await self._run(SlackQueries.UPSERT_INSTALLATION, (enterprise, team, user, at, data))

    async def find_slack_bot(self, enterprise: str, team: str) -> str | None:
        return await self._data(SlackQueries.FIND_BOT, enterprise, team)

    async def slack_bot_of_server(self, server: str) -> str | None:
        """The bot installed for a ledger server (an Enterprise Grid organisation or a workspace)."""
        return await self._data(SlackQueries.BOT_OF_SERVER, server)

    async def slack_bots_of_server(self, server: str) -> list[str]:
        """Every bot installed for a ledger server: an organisation-wide one first, then the newest workspace's."""
        return [str(row[0]) for row in await self._rows(SlackQueries.BOTS_OF_SERVER, (server,))]

    async def find_slack_installation(self, enterprise: str, team: str, user: str | None = None) -> str | None:
        """The newest installation in the workspace, or the one ``user`` made."""
        if user is None:
            return await self._data(SlackQueries.FIND_INSTALLATION, enterprise, team)
        return await self._data(SlackQueries.FIND_USER_INSTALLATION, enterprise, team, user)

    async def delete_slack_bot(self, enterprise: str, team: str) -> None:
        await self._run(SlackQueries.DELETE_BOT, (enterprise, team))

    async def delete_slack_installations(self, enterprise: str, team: str, user: str | None = None) -> None:
        """Every installation in the workspace, or the one ``user`` made."""
        if user is None:
            await self._run(SlackQueries.DELETE_INSTALLATIONS, (enterprise, team))
        else:
            await self._run(SlackQueries.DELETE_USER_INSTALLATION, (enterprise, team, user))

    async def issue_oauth_state(self, state: str, expire_at: float, now: float) -> None:
        await self._run(SlackQueries.FORGET_STALE_STATES, (now,))
        await self._run(SlackQueries.ISSUE_STATE, (state, expire_at))

    async def consume_oauth_state(self, state: str, now: float) -> bool:
        """True once for a state issued and not expired (it is used up); False otherwise."""
        return await self._run(SlackQueries.CONSUME_STATE, (state, now)) == 1
