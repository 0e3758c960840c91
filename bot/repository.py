"""The unit of work per table: the tables this process holds, loaded, caught up with what other
processes stored and changed only by :meth:`TableRepository.commit`, with their panels' message ids
(:class:`~bot.panels.Panels`) and their servers' settings.

**Several processes, one database.**  Each process caches the tables it has seen; any process may
take any command for any table.  A commit names the number of events its cached table had
(``expect_seq``) and the version of its server's settings it was built on; if another process
appended first (:class:`~bot.ports.StaleTable`), answered the same request
(:class:`~bot.ports.DuplicateRequest`) or changed the settings (:class:`~bot.ports.StaleSettings`),
nothing is stored, the table (and the settings) are reloaded as stored and the caller hears
:class:`Behind` (the command runs again: :meth:`bot.runtime.Runtime.run`).  A refusal is stored as its
request's answer on the same condition (:meth:`TableRepository.remember_refusal`).  Timers' moves are
commits like any other, so a second firing is stale and harmless; a turn warning, which stores no
event, is claimed with a deterministic request id (:meth:`TableRepository.claim`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import Any

from core.errors import GameError
from core.game import Checked, Step

from . import refusals as R
from .ledger import period_of
from .metrics import NO_METER, Meter
from .model import Command, JsonValue, Reply, TableKey
from .panels import Panels
from .parsing import UserError
from .ports import (
    Clock,
    CommitUncertain,
    DuplicateRequest,
    LedgerEntry,
    RoundRecord,
    StaleSettings,
    StaleTable,
    Store,
    StoredTable,
    TableHead,
)
from .settings import DEFAULT_SETTINGS, Settings, complete
from .table import NewerEvent, TableState, TableStatus

__all__ = ["Behind", "SaveFailed", "TableRepository"]

log = logging.getLogger(__name__)


class Behind(Exception):
    """Another process changed the table first (or answered this request): nothing of the commit was
    stored, and the cached table is now as stored.  The command runs again (:meth:`Runtime.run`); a
    timer or follow-up simply stops, the other process having done it."""

    def __init__(self, key: TableKey) -> None:
        super().__init__(f"table at {key} changed in another process")
        self.key = key


class SaveFailed(UserError):
    """The store refused a commit (a full disk, a read-only file, a lost connection): nothing changed — or,
    ``uncertain``, the database stopped answering and whether it stored the commit cannot be told."""

    def __init__(self, *, uncertain: bool = False) -> None:
        super().__init__(R.MAYBE_SAVED if uncertain else R.NOT_SAVED, "maybe-saved" if uncertain else "not-saved")


NEWER_IDLE = 15 * 60  # seconds a table a newer version wrote stays that version's after its last event; then an
# admin's `end` may close it (no newer process is serving it: the bot was rolled back for good)


def _last_at(events: list[dict[str, Any]]) -> float:
    try:
        return float(events[-1].get("at", 0.0)) if events else 0.0
    except (TypeError, ValueError):
        return 0.0


class UnreadableTable(UserError):
    """The channel's open table, as stored, is a log this version cannot replay (written by another version that
    read the rules otherwise, say): nothing can be played there.  Said to whoever sends a command there; a server
    admin's ``end`` closes it as stored (:meth:`~bot.runtime.Runtime.run`) — unless it is ``newer``: it holds an event
    of a kind a newer version writes (this process is the older one of a rolling upgrade), so it is that version's
    table, healthy, and is left alone.  ``seq``: the events stored, ``cause``: the replay's exception type (its text
    may quote an event, a serial in it: never shown)."""

    def __init__(self, table_id: int, seq: int, cause: BaseException, last_at: float = 0.0) -> None:
        self.newer = isinstance(cause, NewerEvent)  # an event kind a newer version writes: not broken, not closed
        self.last_at = last_at  # when its last event was stored (a newer version's table idle long: a rollback)
        super().__init__(R.newer_table(table_id, NEWER_IDLE) if self.newer else R.unreadable_table(table_id),
                         "unreadable-table")
        self.table_id = table_id
        self.seq = seq
        self.cause = type(cause).__name__


SURVEY_CONCURRENCY = 8  # tables a survey catches up at once (each a lock and one read)


class TableRepository:
    def __init__(self, store: Store, panels: Panels, clock: Clock, platform: str | None = None,
                 holds: Callable[[TableKey], bool] | None = None, meter: Meter = NO_METER) -> None:
        self.store = store
        self.clock = clock
        self.platform = platform
        self._holds = holds
        self.tables: dict[TableKey, TableState] = {}
        self.panels = panels  # the ids of the tables' panel messages
        self._locks: dict[TableKey, asyncio.Lock] = {}
        self._settings: dict[str, tuple[Settings, int]] = {}  # per server: the values and their version
        self.meter = meter  # what the service counts (the composition root passes an exporting one)
        self._unreadable: dict[TableKey, tuple[int, int]] = {}  # tables said unreadable (id, events), said once

    def serves(self, key: TableKey) -> bool:
        """Whether this process loads and times the table: its platform's, and (Discord shards split
        across processes) one this process holds."""
        return (self.platform is None or key.platform == self.platform) and (self._holds is None or self._holds(key))

    def lock(self, key: TableKey) -> asyncio.Lock:
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock

    # -- settings ---------------------------------------------------------------------------------
    # A server's settings are data with a version.  A command that reads them to decide reads them as
    # stored (:meth:`settings`); a command that changes a table uses the copy cached here and names
    # its version in its commit, which the store refuses if another process changed them since
    # (``StaleSettings``: read again, run again).  So a change committed anywhere is in force
    # everywhere for the next command, without a read per move.
    async def stored_settings(self, server: str) -> tuple[Settings, int]:
        """The server's settings as stored now (in today's layout, defaults filled in) and their
        version; cached."""
        stored = await self.store.get_settings(server)
        self._settings[server] = cached = (complete(stored.values), stored.version)
        return cached

    async def settings(self, server: str) -> Settings:
        return (await self.stored_settings(server))[0]

    def cached_settings(self, server: str) -> Settings:
        """The settings as last read here (each commit checks they are still current)."""
        cached = self._settings.get(server)
        return DEFAULT_SETTINGS if cached is None else cached[0]

    async def save_settings(self, cmd: Command, settings: Mapping[str, Any], version: int,
                            answer: Callable[[Settings], Reply]) -> Reply:
        """Store the server's settings, read at ``version``, with the request's answer (``answer`` of the
        settings as saved) in ONE transaction, so that a redelivery (a retry, another worker, after a
        restart or a crash) gets that answer and changes nothing; if another delivery of the request was
        answered first, nothing is stored and its answer is returned.  :class:`Behind` if another
        process changed the settings since (the command runs again on them)."""
        changed = {k: v for k, v in settings.items() if DEFAULT_SETTINGS.get(k) != v}
        saved = complete(changed)
        reply = answer(saved)
        try:
            version = await self.store.set_settings(cmd.key.server, changed, expect_version=version,
                                                    request=self._request(cmd, reply), at=self.clock.now())
        except StaleSettings as exc:
            await self.stored_settings(cmd.key.server)
            raise Behind(cmd.key) from exc
        except DuplicateRequest:
            return await self._first_answer(cmd, reply)
        self._settings[cmd.key.server] = (saved, version)
        return reply

    async def settle_period(self, cmd: Command, period: str, reply: Reply) -> Reply | None:
        """Mark a period settled by the command's sender, with the request's answer ``reply`` in ONE
        transaction (a redelivered settle gets that answer, as a redelivered config does); None if the
        period was settled already."""
        try:
            settled = await self.store.settle_period(cmd.key.server, period, cmd.actor.user_id, self.clock.now(),
                                                     request=self._request(cmd, reply))
        except DuplicateRequest:
            return await self._first_answer(cmd, reply)
        return reply if settled else None

    @staticmethod
    def _request(cmd: Command, reply: Reply) -> tuple[str, dict[str, Any]] | None:
        return None if cmd.request_id is None else (cmd.request_id, reply.to_dict())

    async def _first_answer(self, cmd: Command, reply: Reply) -> Reply:
        """The answer stored for a request another delivery answered first (``reply`` if it is gone)."""
        seen = None if cmd.request_id is None else await self.store.get_request(cmd.request_id)
        return Reply.from_dict(seen) if seen is not None else reply

    # -- the one way a table changes ----------------------------------------------------------------
    async def commit(self, table: TableState, events: list[dict[str, Any]], cmd: Command | None = None,
                     reply: Reply | None = None, checked: Checked | None = None) -> list[Step]:
        """Apply events to the table and store them, with any settled money and the command's request
        id, in ONE transaction, expecting the store to hold exactly the events the table had.  If the
        store refuses, the table is reloaded as stored and the sender is told nothing changed
        (:class:`SaveFailed`); if another process got there first, :class:`Behind`."""
        now = self.clock.now()
        seq = table.events  # what the store must hold before these events
        steps: list[Step] = []
        rounds: list[RoundRecord] = []
        names: dict[str, str] = {}
        try:
            for ev in events:
                ev["at"] = now
                step = table.apply(ev, checked if ev["t"] == "act" else None)  # a checked move: not again
                steps.append(step)
                if ev["t"] in ("open", "join"):
                    names.update({p: table.name(p) for p in table.seats})
                first = table.rounds_settled - len(step.settled) + 1  # the table's number of the first
                for i, settled in enumerate(step.settled):
                    outcome = {**settled.outcome, "game": table.game.name, "net": dict(settled.net),
                               "ranking": [list(g) for g in settled.ranking]}
                    # money only: at stake 0 "nothing is written but the result" (RULES.md); reports find who
                    # played such rounds in the rounds themselves
                    rounds.append(RoundRecord(number=first + i, record=dict(settled.record), outcome=outcome,
                                              entries=[LedgerEntry(p, u) for p, u in settled.net.items() if u != 0]))
        except Exception as exc:
            kinds = [e.get("t") for e in events]
            if isinstance(exc, GameError):  # the game refused it as it applied (the elimination's `last`)
                # (its code, not its text at INFO: a refusal may quote a move, a card of a hand among them)
                log.info("table %s refused %s (%s); reloading it", table.id, kinds, exc.code)
                log.debug("table %s refused %s: %s", table.id, kinds, exc)
            else:
                log.exception("applying %s to table %s failed; reloading it", kinds, table.id)
            await self.reload(table, seq)
            raise
        request = (cmd.request_id, reply.to_dict()) if cmd is not None and cmd.request_id and reply else None
        server = table.key.server
        cached = self._settings.get(server)
        try:
            await self.store.commit(table.id, server, events, at=now, period=period_of(now), rounds=rounds,
                                    names=names or None, request=request, close=table.status == TableStatus.ENDED,
                                    expect_seq=seq, settings_version=None if cached is None else cached[1])
        except (StaleTable, DuplicateRequest, StaleSettings) as exc:
            log.info("table %s moved on in another process (%s); catching up", table.id, type(exc).__name__)
            self.meter.conflict()
            if isinstance(exc, StaleSettings):
                await self.stored_settings(server)
            await self._reload_or_fail(table, exc, seq)
            raise Behind(table.key) from exc
        except Exception as exc:
            log.warning("storing table %s failed (%s: %s); reloading it from the store", table.id,
                        type(exc).__name__, exc)
            await self._reload_or_fail(table, exc, seq)
            raise SaveFailed(uncertain=isinstance(exc, CommitUncertain)) from exc
        return steps

    async def _reload_or_fail(self, table: TableState, cause: Exception, seq: int | None = None) -> None:
        try:
            await self.reload(table, seq)
        except UnreadableTable:
            raise  # another process stored what this version cannot read: said as such, not "not saved"
        except Exception as again:
            log.warning("reloading table %s failed too (%s); dropping it until the store answers",
                        table.id, type(again).__name__)
            self.tables.pop(table.key, None)
            raise SaveFailed(uncertain=isinstance(cause, CommitUncertain)) from cause

    async def reload(self, table: TableState, seq: int | None = None) -> None:
        """Replace the cached table with the channel's open table as stored (or drop it: none is open).
        ``seq``: the events it held as stored (a failed commit had applied its own events on top)."""
        await self.load(table.key, known=(table.id, table.events if seq is None else seq))

    async def load(self, key: TableKey, known: tuple[int, int] | None = None) -> TableState | None:
        """Cache the channel's open table as stored (None, and nothing cached, if none is open), and its
        server's settings if none are cached.  ``known``: the table and events this process held."""
        if key.server not in self._settings:
            await self.stored_settings(key.server)
        return self.adopt(key, await self.store.open_table_at(key.server, key.channel_id), known)

    async def load_if_missing(self, key: TableKey) -> None:
        if key not in self.tables:
            async with self.lock(key):
                if key not in self.tables:  # e.g. a table opened elsewhere in this channel
                    await self.load(key)

    def adopt(self, key: TableKey, stored: StoredTable | None, known: tuple[int, int] | None = None
              ) -> TableState | None:
        """Cache a table as stored, replacing the channel's cached one, and take its stored panel refs
        (``known``: the table and events held before, to tell whether another process dealt since)."""
        self.tables.pop(key, None)
        if stored is None:
            return None
        try:
            fresh = TableState.replayed(stored.table_id, key, stored.events)
        except Exception as exc:
            log.debug("table %d: %s", stored.table_id, exc, exc_info=exc)  # (may quote an event: DEBUG only)
            raise UnreadableTable(stored.table_id, len(stored.events), exc, _last_at(stored.events)) from exc
        if fresh.status == TableStatus.ENDED:  # pragma: no cover - the store lists open tables only
            return None
        missed = stored.events[known[1]:] if known is not None and known[0] == stored.table_id else []
        dealt = any(e.get("t") == "deal" for e in missed)
        self.panels.adopt(key, stored.table_id, stored.panels, dealt_elsewhere=dealt)
        self.tables[key] = fresh
        return fresh

    async def catch_up(self, key: TableKey, seen: list[tuple[dict[str, Any], Step]] | None = None
                       ) -> TableState | None:
        """Bring the cached table up to date with the events other processes stored (under its lock),
        or load the channel's open table if none is cached.  ``seen``: each missed event and its step."""
        table = self.tables.get(key)
        if table is not None:
            seq = table.events
            missed = await self.store.events_since(table.id, seq)
            for event in missed:
                try:
                    step = table.apply(event)
                except Exception as exc:  # another process stored what this version cannot apply: not half-applied
                    del self.tables[key]
                    log.debug("table %d: %s", table.id, exc, exc_info=exc)
                    raise UnreadableTable(table.id, seq + len(missed), exc, _last_at(missed)) from exc
                if seen is not None:
                    seen.append((event, step))
            if table.status != TableStatus.ENDED:
                if missed:  # the other process may have posted new panel messages (a new round's table)
                    self.panels.adopt(key, table.id, await self.store.table_panels(table.id),
                                      dealt_elsewhere=any(e.get("t") == "deal" for e in missed))
                return table
            self.tables.pop(key, None)  # ended elsewhere: another may be open there now
        return await self.load(key)

    async def moved(self, key: TableKey) -> bool:
        """Whether other processes stored events for the channel's table that the cache lacked (the
        cache is caught up)."""
        async with self.lock(key):
            table = self.tables.get(key)
            before = None if table is None else (table.id, table.events)
            table = await self.catch_up(key)
            return before != (None if table is None else (table.id, table.events))

    async def survey(self) -> int:
        """Catch up with what other processes did to open tables: a table opened elsewhere is loaded,
        one moved on or closed there is brought up to date, so this process times them too (their own
        process may be gone).  Returns how many tables changed here."""
        heads: dict[TableKey, TableHead] = {}
        for stored in await self.store.open_table_heads():
            key = TableKey.from_server(stored.server, stored.channel)
            if self.serves(key):
                heads[key] = stored
        stale = [k for k, head in heads.items()
                 if (t := self.tables.get(k)) is None or (t.id, t.events) < (head.table_id, head.seq)]
        stale += [k for k in list(self.tables) if k not in heads and self.serves(k)]  # closed elsewhere
        gate = asyncio.Semaphore(SURVEY_CONCURRENCY)

        async def catch_up(key: TableKey) -> bool:
            async with gate:
                cached, head = self.tables.get(key), heads.get(key)
                if cached is not None and (head is None or head.table_id != cached.id):
                    # not the channel's open table as stored: closed elsewhere, and perhaps erased since (then
                    # no event of it is left to catch up with): the channel is read again, as stored
                    async with self.lock(key):
                        cached = self.tables.get(key)
                        before = None if cached is None else (cached.id, cached.events)
                        table = await self.load(key)
                        return before != (None if table is None else (table.id, table.events))
                return await self.moved(key)

        async def tolerant(key: TableKey) -> bool:
            try:
                return await catch_up(key)
            except UnreadableTable as exc:  # that table alone: every other one is still caught up with
                if self._unreadable.get(key) != (exc.table_id, exc.seq):  # said once, not every survey
                    self._unreadable[key] = (exc.table_id, exc.seq)
                    (log.warning if exc.newer else log.error)(  # (newer: a newer version serves it, mid-upgrade)
                        "table %d in %s cannot be read by this version (%s): not loaded", exc.table_id, key, exc.cause)
                return False

        return sum(await asyncio.gather(*(tolerant(k) for k in stale)))

    async def close_unreadable(self, key: TableKey, table: UnreadableTable, by: str,
                               request: tuple[str, dict[str, JsonValue]] | None = None) -> bool:
        """Close, as stored, a table this version cannot read (a server admin's ``end``; the app removed from its
        server or channel): its last event is the end, written as any ``end`` is, and nothing else (a round under
        way is void, as ``end`` makes it: settled rounds were paid as they settled).  False if another process
        stored events there first."""
        now = self.clock.now()
        end: dict[str, JsonValue] = {"t": "end", "by": by, "reason": "unreadable", "at": now}
        try:
            await self.store.commit(table.table_id, key.server, [end], at=now, period=period_of(now),
                                    close=True, expect_seq=table.seq, request=request)
        except (StaleTable, DuplicateRequest):
            return False
        log.warning("table %d in %s, which this version cannot read, closed (by %s)", table.table_id, key,
                    by or "the platform")
        self._unreadable.pop(key, None)
        return True

    async def remember_refusal(self, cmd: Command, request_id: str, reply: Reply) -> bool:
        """Store a refusal as the request's answer, expecting the table as it was refused (no table:
        unconditionally).  False if the table had moved on (it is caught up) or the request was
        answered elsewhere: the caller looks again."""
        table = self.tables.get(cmd.key)
        now = self.clock.now()
        try:
            if table is None:
                await self.store.remember(request_id, reply.to_dict(), now, cmd.key.server)
            else:
                await self.store.commit(table.id, cmd.key.server, [], at=now, period=period_of(now),
                                        request=(request_id, reply.to_dict()), expect_seq=table.events)
        except DuplicateRequest:
            return False
        except StaleTable:
            await self.moved(cmd.key)
            return False
        return True

    async def claim(self, table: TableState, what: str) -> bool:
        """Claim a one-off act on the turn under way (a turn warning) for this process: True once across all
        processes sharing the store, False if another claimed it or the table moved on.  Keyed by the turn, not
        the event count: the card game's take, discard and declare are one turn (a take after the warning let
        another process warn the same turn again)."""
        now = self.clock.now()
        request = (f"{what}:{table.id}:{table.turn}", Reply("").to_dict())
        try:
            await self.store.commit(table.id, table.key.server, [], at=now, period=period_of(now), request=request,
                                    expect_seq=table.events)
        except DuplicateRequest:
            return False
        except StaleTable:
            await self.reload(table)
            return False
        return True
