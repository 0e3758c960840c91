"""What every use case shares: the table repository (the unit of work: :mod:`bot.repository`), the
random source, the one loop that runs a command again when another process got to its table first
(:meth:`Runtime.run`), the guards, and the outbox.

**Messages are sent after the lock.**  A use case queues its messages (:meth:`Runtime.post`) while it
holds the table's lock, in commit order; each table's messages then go out from that table's own
sender task, in order, while the lock is free for the next command.  A slow platform delays that
table's messages only: not its next command, nor any other table.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from core.errors import GameError
from core.game import RandomSource

from . import messages as M
from . import refusals as R
from .commands import resolve
from .ledger import period_of
from .metrics import NO_METER, Meter
from .model import Command, Message, Reply, TableKey
from .panels import Panels
from .parsing import UserError
from .ports import Clock, Notifier, Store
from .repository import NEWER_IDLE, Behind, SaveFailed, TableRepository, UnreadableTable
from .table import TableState

__all__ = ["ATTEMPTS", "Behind", "Busy", "Outbox", "Runtime", "SaveFailed"]

log = logging.getLogger(__name__)

ATTEMPTS = 8
"""How many times a command runs when other processes keep changing its table first."""


class Busy(UserError):
    def __init__(self) -> None:
        super().__init__(R.BUSY, "busy")


class Outbox:
    """Per-table ordered delivery, off the table's lock."""

    def __init__(self, notifier: Notifier) -> None:
        self.notifier = notifier
        self._queues: dict[TableKey, list[Message]] = {}
        self._senders: dict[TableKey, asyncio.Task[None]] = {}

    def post(self, messages: Sequence[Message]) -> None:
        key: TableKey | None = None
        queue: list[Message] = []
        for message in messages:
            if message.key is not key:  # a post is mostly one table's: look its queue up once
                key = message.key
                queue = self._queues.setdefault(key, [])
                if key not in self._senders:
                    self._senders[key] = asyncio.create_task(self._send(key), name=f"liars-send-{key.channel_id}")
            queue.append(message)

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


class Runtime(TableRepository):
    """The table repository, and what the use cases need besides: the outbox, the random source, the
    computer players' delay, the command loop and the guards."""

    def __init__(self, store: Store, notifier: Notifier, panels: Panels, clock: Clock, rng: RandomSource,
                 computer_delay: float, platform: str | None, holds: Callable[[TableKey], bool] | None = None,
                 meter: Meter = NO_METER) -> None:
        super().__init__(store, panels, clock, platform, holds, meter)
        self.notifier = notifier
        self.rng = rng
        self.computer_delay = computer_delay
        self.outbox = Outbox(notifier)

    def post(self, messages: Sequence[Message | None]) -> None:
        self.outbox.post([m for m in messages if m is not None])

    async def is_admin(self, cmd: Command, settings: Mapping[str, Any] | None = None) -> bool:
        """The sender is an admin: the platform says so, or the server's ``admins`` setting names them.
        ``settings``: the server's, as the command has just read them (else they are read here)."""
        if cmd.actor.is_admin:
            return True
        if settings is None:
            settings = await self.settings(cmd.key.server)
        return cmd.actor.user_id in settings.get("admins", [])

    def period(self) -> str:
        return period_of(self.clock.now())

    async def run(self, handler: Handler, cmd: Command, refuse: Refuse, *, read: bool = False) -> Reply:
        """Run a command's handler; if another process changed its table first, run it again on the
        table as now stored (at most :data:`ATTEMPTS` times).  A table this process has not seen (opened
        elsewhere) is loaded first; a read first catches up with the table and its server's settings,
        and holds the table's lock throughout.

        A refusal (``refuse`` turns it into the reply) of a request with an id is stored as that
        request's answer, on the condition that the table is still as the refusal saw it: so the same
        request delivered again, to any process, answers the same, and a process that saw an older
        table runs the command again on the table as stored instead.  The first answer stored for a
        request (applied, or refused) is the one every delivery gets."""
        for attempt in range(ATTEMPTS):
            if attempt:
                self.meter.retry()
            if attempt and cmd.request_id:
                seen = await self.store.get_request(cmd.request_id)
                if seen is not None:
                    return Reply.from_dict(seen)  # another process answered this very request
            try:
                if read:
                    async with self.lock(cmd.key):
                        await self.catch_up(cmd.key)
                        await self.stored_settings(cmd.key.server)  # a read shows what the settings are now
                        self.need_same_table(cmd)
                        return await handler(cmd)
                if attempt == 0 or cmd.key not in self.tables:
                    await self.load_if_missing(cmd.key)
                self.need_same_table(cmd)
                return await handler(cmd)
            except SaveFailed:
                raise
            except UnreadableTable as exc:  # said to the sender (no event's text: a serial may be in it)
                newer = exc.newer and self.clock.now() - exc.last_at < NEWER_IDLE  # (a newer process serves it)
                if cmd.name != "end" or read or newer or not await self.is_admin(cmd):
                    log.warning("table %d in %s cannot be read by this version (%s): %s refused", exc.table_id,
                                cmd.key, exc.cause, cmd.name)
                    raise
                reply = Reply(M.closed_unreadable(exc.table_id, cmd.actor.name), private=False)
                request = (cmd.request_id, reply.to_dict()) if cmd.request_id else None
                if await self.close_unreadable(cmd.key, exc, cmd.actor.user_id, request):
                    return reply
                continue  # another process moved it first: read it again
            except (UserError, GameError) as exc:
                if cmd.request_id is None or read:  # nothing to answer alike: ask again only if the table moved
                    if attempt + 1 == ATTEMPTS or read or not await self.moved(cmd.key):
                        raise
                    continue
                reply = refuse(cmd, exc)
                if await self.remember_refusal(cmd, cmd.request_id, reply):
                    return reply
            except Behind:
                log.info("command %s ran on a stale table (attempt %d); running it again", cmd.name, attempt + 1)
                await self.load_if_missing(cmd.key)
        raise Busy()

    # -- guards -----------------------------------------------------------------------------------
    def need_same_table(self, cmd: Command) -> None:
        """A button or form drawn for a table acts on that table only (a closed table's message, or a form
        opened at it, must not move the channel's next table), and a form or a challenge's button drawn at a turn
        only at that turn (one drawn before the timer played the turn, say, must not place a move at the sender's
        next turn, nor a challenge meet a bid its message did not show).  A form's move is the player to act's:
        when it is not their turn, the game's own refusal says whose it is; a button's move may be anyone's (the
        quick preset's first challenge), so it is refused whoever sends it."""
        if cmd.table_id is None and cmd.turn is None:
            return
        table = self.tables.get(cmd.key)
        if cmd.table_id is not None and (table is None or table.id != cmd.table_id):
            raise UserError(R.EARLIER_TABLE, "earlier-table")
        spec = resolve(cmd.name)
        from_form = spec is not None and spec.form
        if table is not None and self.turn_moved_on(table, cmd.turn, cmd.actor.user_id, anyone=not from_form):
            raise UserError(R.EARLIER_TURN, "earlier-turn")

    @staticmethod
    def turn_moved_on(table: TableState, turn: int | None, user_id: str, *, anyone: bool = False) -> bool:
        """A form or a button drawn at ``turn`` is stale for its sender: the table has moved on and it is their turn
        again (when it is not, the game's own refusal says whose it is), or — ``anyone``: a move its game may take
        out of turn — whoever sends it."""
        return turn is not None and table.turn != turn and (anyone or table.to_act == user_id)

    def need_table(self, key: TableKey) -> TableState:
        table = self.tables.get(key)
        if table is None:
            raise UserError(R.NO_TABLE, "no-table")
        return table

    @staticmethod
    def need_seat(table: TableState, user_id: str) -> None:
        if user_id not in table.seats:
            raise UserError(R.NOT_SEATED, "not-seated")

    @staticmethod
    def need_round(table: TableState) -> None:
        if not table.live:
            raise UserError(R.NO_ROUND, "no-round")

    async def need_host_or_admin(self, table: TableState, cmd: Command, what: str) -> None:
        if cmd.actor.user_id != table.host and not await self.is_admin(cmd):
            raise UserError(R.not_host_or_admin(what), "not-host")


Handler = Callable[[Command], Awaitable[Reply]]
Refuse = Callable[[Command, Exception], Reply]
