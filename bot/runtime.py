"""What every use case shares: the store, the clock, the open tables and their locks, server settings,
the one way to change a table (:meth:`Runtime.commit`), and the outbox.

**Messages are sent after the lock.**  A use case queues its messages (:meth:`Runtime.post`) while it
holds the table's lock, in commit order; each table's messages then go out from that table's own
sender task, in order, while the lock is free for the next command.  A slow platform delays that
table's messages only: not its next command, nor any other table.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from core.game import RandomSource, Step

from .ledger import period_of
from .model import Command, Message, Reply, TableKey
from .parsing import UserError
from .ports import Clock, LedgerEntry, Notifier, RoundRecord, Store
from .settings import DEFAULT_SETTINGS
from .table import TableState, TableStatus

__all__ = ["Outbox", "Runtime", "SaveFailed"]

log = logging.getLogger(__name__)


class SaveFailed(UserError):
    """The store refused a commit (a full disk, a read-only file, a lost connection): nothing changed."""

    def __init__(self) -> None:
        super().__init__("The table could not be saved, so nothing changed; please try again.", "not-saved")


class Outbox:
    """Per-table ordered delivery, off the table's lock."""

    def __init__(self, notifier: Notifier) -> None:
        self.notifier = notifier
        self._queues: dict[TableKey, list[Message]] = {}
        self._senders: dict[TableKey, asyncio.Task[None]] = {}

    def post(self, messages: Sequence[Message]) -> None:
        for message in messages:
            self._queues.setdefault(message.key, []).append(message)
            if message.key not in self._senders:
                key = message.key
                self._senders[key] = asyncio.create_task(self._send(key), name=f"liars-send-{key.channel_id}")

    async def _send(self, key: TableKey) -> None:
        try:
            while self._queues.get(key):
                batch = self._queues.pop(key)
                try:
                    await self.notifier.deliver(batch)
                except Exception:
                    log.exception("delivering %d messages failed", len(batch))
        finally:
            self._senders.pop(key, None)

    async def idle(self) -> None:
        """Wait until every queued message has been handed to the notifier."""
        while self._senders:
            await asyncio.gather(*list(self._senders.values()), return_exceptions=True)


class Runtime:
    def __init__(self, store: Store, notifier: Notifier, clock: Clock, rng: RandomSource,
                 computer_delay: float, platform: str | None) -> None:
        self.store = store
        self.notifier = notifier
        self.clock = clock
        self.rng = rng
        self.computer_delay = computer_delay
        self.platform = platform
        self.tables: dict[TableKey, TableState] = {}
        self.panels: dict[TableKey, dict[str, str]] = {}  # the adapters' message refs, per channel
        self.outbox = Outbox(notifier)
        self._locks: dict[TableKey, asyncio.Lock] = {}
        self._settings: dict[str, dict[str, Any]] = {}

    def lock(self, key: TableKey) -> asyncio.Lock:
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock

    def post(self, messages: Sequence[Message | None]) -> None:
        self.outbox.post([m for m in messages if m is not None])

    # -- settings ---------------------------------------------------------------------------------
    async def settings(self, server: str) -> dict[str, Any]:
        cached = self._settings.get(server)
        if cached is None:
            cached = {**DEFAULT_SETTINGS, **(await self.store.get_settings(server))}
            self._settings[server] = cached
        return cached

    def cached_settings(self, server: str) -> dict[str, Any]:
        return self._settings.get(server, DEFAULT_SETTINGS)

    async def save_settings(self, server: str, settings: dict[str, Any]) -> dict[str, Any]:
        await self.store.set_settings(server, {k: v for k, v in settings.items() if DEFAULT_SETTINGS.get(k) != v})
        self._settings[server] = {**DEFAULT_SETTINGS, **settings}
        return self._settings[server]

    async def is_admin(self, cmd: Command) -> bool:
        return cmd.actor.is_admin or cmd.actor.user_id in (await self.settings(cmd.key.server)).get("admins", [])

    def period(self) -> str:
        return period_of(self.clock.now())

    # -- the one way a table changes ----------------------------------------------------------------
    async def commit(self, table: TableState, events: list[dict[str, Any]], cmd: Command | None = None,
                     reply: Reply | None = None) -> list[Step]:
        """Apply events to the table and store them, with any settled money and the command's request
        id, in ONE transaction.  If the store refuses, the table is reloaded as stored and the sender is
        told nothing changed (:class:`SaveFailed`)."""
        now = self.clock.now()
        steps: list[Step] = []
        rounds: list[RoundRecord] = []
        names: dict[str, str] = {}
        try:
            for ev in events:
                ev["at"] = now
                step = table.apply(ev)
                steps.append(step)
                if ev["t"] in ("open", "join"):
                    names.update({p: table.name(p) for p in table.seats})
                first = table.rounds_settled - len(step.settled) + 1  # the table's number of the first
                for i, settled in enumerate(step.settled):
                    outcome = {**settled.outcome, "game": table.game.name, "net": dict(settled.net),
                               "ranking": [list(g) for g in settled.ranking]}
                    rounds.append(RoundRecord(number=first + i, record=dict(settled.record), outcome=outcome,
                                              entries=[LedgerEntry(p, u) for p, u in settled.net.items()]))
        except Exception:
            log.exception("applying %s to table %s failed; reloading it", [e.get("t") for e in events], table.id)
            await self.reload(table)
            raise
        request = (cmd.request_id, reply.to_dict()) if cmd is not None and cmd.request_id and reply else None
        try:
            await self.store.commit(table.id, table.key.server, events, at=now, period=period_of(now), rounds=rounds,
                                    names=names or None, request=request, close=table.status == TableStatus.ENDED)
        except Exception as exc:
            log.warning("storing table %s failed (%s: %s); reloading it from the store", table.id,
                        type(exc).__name__, exc)
            try:
                await self.reload(table)
            except Exception as again:
                log.warning("reloading table %s failed too (%s); dropping it until the store answers",
                            table.id, type(again).__name__)
                self.tables.pop(table.key, None)
            raise SaveFailed() from exc
        return steps

    async def reload(self, table: TableState) -> None:
        fresh = TableState(table.id, table.key)
        for event in await self.store.table_events(table.id):
            fresh.apply(event)
        if fresh.status == TableStatus.ENDED or not fresh.events:
            self.tables.pop(table.key, None)
        else:
            self.tables[table.key] = fresh

    # -- guards -----------------------------------------------------------------------------------
    def need_table(self, key: TableKey) -> TableState:
        table = self.tables.get(key)
        if table is None:
            raise UserError("There is no table in this channel. Open one with `start`.", "no-table")
        return table

    @staticmethod
    def need_seat(table: TableState, user_id: str) -> None:
        if user_id not in table.seats:
            raise UserError("You are not seated at this table.", "not-seated")

    @staticmethod
    def need_round(table: TableState) -> None:
        if not table.live:
            raise UserError("No round is under way at this table.", "no-round")

    async def need_host_or_admin(self, table: TableState, cmd: Command, what: str) -> None:
        if cmd.actor.user_id != table.host and not await self.is_admin(cmd):
            raise UserError(f"Only the host or a server admin can {what}.", "not-host")


Handler = Callable[[Command], Awaitable[Reply]]
