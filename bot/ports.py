"""Ports: what the service needs from the outside world, as Protocols.  Adapters implement them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .model import JsonValue, Message, TableKey

__all__ = [
    "Clock",
    "CommitUncertain",
    "DuplicateRequest",
    "LedgerEntry",
    "Notifier",
    "NullNotifier",
    "OpenTables",
    "PanelRefs",
    "PeriodSettled",
    "RoundRecord",
    "StaleSettings",
    "StaleTable",
    "Store",
    "StoredSettings",
    "StoredTable",
    "SystemClock",
    "TableHead",
]


class Clock(Protocol):
    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


class Notifier(Protocol):
    async def deliver(self, messages: Sequence[Message]) -> None: ...


class PanelRefs(Protocol):
    """What a notifier asks about panel messages (:class:`bot.panels.Panels`): the id of the message a
    table's panel was posted as, and the id of one it has just posted."""

    def ref(self, key: TableKey, panel: str, table_id: int | None = None) -> str | None:
        """The id, if known (of table ``table_id``'s message, when named)."""
        ...

    async def posted(self, message: Message, ref: str) -> None: ...

    async def current(self, key: TableKey, table_id: int) -> str | None:
        """The id of the table message of table ``table_id``'s round under way, read again from the store
        where another process dealt that round and its new message was not stored when this one caught
        up; None while it still is not (that process posts it and draws it as the table stands after)."""
        ...


class NullNotifier:
    """Delivers nowhere: for a service run from the shell to read the ledger, where no table speaks."""

    async def deliver(self, messages: Sequence[Message]) -> None:
        return None


@dataclass(frozen=True, slots=True)
class StoredTable:
    """An open table as stored: its whole event log (seq 1..len(events)) and its panels."""

    table_id: int
    server: str
    channel: str
    events: list[dict[str, JsonValue]]
    panels: dict[str, str]

    @property
    def seq(self) -> int:
        """The number of stored events: what the next ``commit``'s ``expect_seq`` is."""
        return len(self.events)


@dataclass(frozen=True, slots=True)
class TableHead:
    """An open table's place in its event stream, without the events: what a process compares its
    cached copy with."""

    table_id: int
    server: str
    channel: str
    seq: int


class CommitUncertain(Exception):
    """The database stopped answering while a commit was under way, and whether it stored it cannot be told
    (its answer may have been lost on the way back).  The table as stored says."""


class StaleTable(Exception):
    """A commit expected the table to have fewer (or more) events than are stored: another process
    appended first.  Nothing of the commit was stored; catch up with ``Store.events_since``."""

    def __init__(self, table_id: int, stored_seq: int) -> None:
        super().__init__(f"table {table_id} has {stored_seq} stored events: the cached copy is stale")
        self.table_id = table_id
        self.stored_seq = stored_seq


class StaleSettings(Exception):
    """A write expected a server's settings at another version: another process changed them first.
    Nothing of the write was stored; read them again with ``Store.get_settings``."""

    def __init__(self, server: str, stored_version: int) -> None:
        super().__init__(f"the settings of {server} are at version {stored_version}: the cached copy is stale")
        self.server = server
        self.stored_version = stored_version


@dataclass(frozen=True, slots=True)
class StoredSettings:
    """A server's settings as stored (only what differs from the defaults) and their version: 0 before
    the first change, one more with each."""

    values: dict[str, JsonValue]
    version: int = 0


class PeriodSettled(Exception):
    """A settlement of a period already settled (another admin, or another process, settled it first).
    Nothing of the write was stored.  Raised inside a store: ``Store.settle_period`` answers False."""

    def __init__(self, server: str, period: str) -> None:
        super().__init__(f"{server} {period} is already settled")
        self.server, self.period = server, period


class DuplicateRequest(Exception):
    """A commit carried a request id that is already stored (another process, or a retry, answered it
    first).  Nothing of the commit was stored; ``Store.get_request`` returns the stored reply."""

    def __init__(self, request_id: str) -> None:
        super().__init__(f"request {request_id!r} was already answered")
        self.request_id = request_id


class OpenTables(Exception):
    """``Store.erase_server`` found the server's tables open: nothing was erased."""

    def __init__(self, server: str, count: int) -> None:
        super().__init__(f"{server} has {count} open table(s): close them first (nothing was erased)")
        self.count = count


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    player: str
    units: int


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A counted round, stored with its ledger entries in one transaction."""

    number: int
    record: dict[str, JsonValue]
    outcome: dict[str, JsonValue]
    entries: list[LedgerEntry] = field(default_factory=list)


class Store(Protocol):
    """Where tables, the ledger and settings live.  Each table's events are numbered 1, 2, ... by a
    per-table sequence number, unique per (table, seq) in the database: two processes can share one
    database, and the second of two commits built on the same cached table fails with ``StaleTable``."""

    async def open(self) -> None:
        """Connect and apply the schema's migrations (each once)."""
        ...

    async def close(self) -> None:
        """Finish queued writes, then disconnect."""
        ...

    async def ping(self) -> None:
        """Return if the store answers a trivial query; raise (any exception) if it is unreachable.
        For a readiness probe (``/readyz``)."""
        ...

    async def load_open_tables(self) -> list[StoredTable]: ...

    async def open_table_heads(self) -> list[TableHead]:
        """Every open table and how many events it has stored (no events): how a process finds the
        tables other processes opened, moved on or closed, to time them when their process is gone."""
        ...

    async def open_table_at(self, server: str, channel: str) -> StoredTable | None:
        """The open table in this channel with all its events, or None: how a process finds a table
        that another process opened."""
        ...

    async def create_table(self, server: str, channel: str, at: float) -> int:
        """Reserve a table id (unique across processes); the row is written by the table's first
        commit, which raises ``StaleTable(table_id, 0)`` if another process opened a table in the same
        channel meanwhile."""
        ...

    async def commit(
        self,
        table_id: int,
        server: str,
        events: Sequence[dict[str, JsonValue]],
        *,
        at: float,
        period: str,
        rounds: Sequence[RoundRecord] = (),
        names: dict[str, str] | None = None,
        request: tuple[str, dict[str, JsonValue]] | None = None,
        close: bool = False,
        expect_seq: int | None = None,
        settings_version: int | None = None,
        panels: dict[str, str] | None = None,
    ) -> None:
        """Append events, settled rounds with their ledger entries, names and the request id in ONE
        transaction: all of it is stored, or none of it.

        ``expect_seq`` is the number of events the caller's copy of the table has: the events are
        stored as seq ``expect_seq + 1``, ... and if the stored table does not have exactly
        ``expect_seq`` events (another process appended), nothing is stored and ``StaleTable`` is
        raised.  None means the count this store last saw (its own commits and reads).  A request
        id that is already stored raises ``DuplicateRequest`` (nothing stored).

        ``settings_version``: the version of the server's settings the commit was built on; if they
        have another (another process changed them), nothing is stored and ``StaleSettings`` is raised.
        None: not checked.

        ``panels``: panel message refs to store with the commit (merged into the table's)."""
        ...

    async def remember(self, request_id: str, reply: dict[str, JsonValue], at: float, server: str) -> None:
        """Store the reply to a request that changed nothing (a refusal) on ``server`` (erased with it),
        so that the same request delivered again, to any process, gets the same answer.
        ``DuplicateRequest`` if it is stored."""
        ...

    async def events_since(self, table_id: int, seq: int) -> list[dict[str, JsonValue]]:
        """The table's events after the first ``seq`` (seq + 1, seq + 2, ...), in order: how a process
        catches up after ``StaleTable``."""
        ...

    async def get_request(self, request_id: str) -> dict[str, JsonValue] | None:
        """The stored reply to a request id, or None."""
        ...

    async def set_panel(self, table_id: int, panel: str, ref: str) -> None: ...

    async def table_panels(self, table_id: int) -> dict[str, str]:
        """The panel message refs stored for a table (another process may have posted new ones)."""
        ...

    async def get_settings(self, server: str) -> StoredSettings: ...

    async def set_settings(self, server: str, settings: dict[str, JsonValue], *, expect_version: int,
                           request: tuple[str, dict[str, JsonValue]] | None = None, at: float = 0.0) -> int:
        """Replace the server's settings if they are still at ``expect_version``; return the new
        version.  ``StaleSettings`` (nothing stored) if another process changed them first.
        ``request``: the id and answer of the request that made the change, stored in the same
        transaction (at ``at``); ``DuplicateRequest`` (nothing stored) if that id is already answered."""
        ...

    async def balances(self, server: str, period: str | None = None) -> dict[str, int]: ...

    async def periods(self, server: str) -> list[str]: ...

    async def settle_period(self, server: str, period: str, by: str, at: float,
                            request: tuple[str, dict[str, JsonValue]] | None = None) -> bool:
        """Mark a period settled; False (nothing stored) if it already was.  ``request`` as for
        :meth:`set_settings`: stored with the settlement, or ``DuplicateRequest`` and nothing stored."""
        ...

    async def settled_periods(self, server: str) -> dict[str, str]: ...

    async def prune_requests(self, before: float) -> int:
        """Forget the answers stored for requests (delivery ids) older than ``before``; how many."""
        ...

    async def names(self, server: str) -> dict[str, str]: ...

    async def rounds(self, server: str, *, table_id: int | None = None, limit: int | None = None) -> list[
        dict[str, JsonValue]
    ]: ...

    async def table_events(self, table_id: int) -> list[dict[str, JsonValue]]: ...

    async def last_table(self, server: str, channel: str) -> int | None: ...

    async def erase_server(self, server: str) -> dict[str, int]:
        """``liars forget SERVER``: erase every row under the server's key (its ledger entries, settled
        rounds, settlements, tables with their event logs and answered requests, players' names and
        settings) in ONE transaction; every other server's rows and the installations stay.  The
        ledger and the event logs are append-only: this is the one place that lifts that, for these
        rows, and puts it back in the same transaction.  The rows erased per table.  Raises
        :class:`OpenTables`, erasing nothing, if the server has an open table."""
        ...
