"""Timers: turn warnings and timeouts, computer seats' moves after their "thinking" delay, idle lobbies,
and a round left undealt.  Tables tick concurrently, so one slow table delays no other.

Several processes sharing a store each tick the tables they hold, and every few seconds
(``SURVEY_EVERY``) catch up with the tables the others opened, moved on or closed, so a table is timed
even when the process that served it is gone.  A timer may then come due in two of them: what it
does is a commit built on the table as cached, so the second is stale (``Behind``) and changes nothing;
a turn warning, which stores no event, is claimed once (:meth:`Runtime.claim`)."""

from __future__ import annotations

import asyncio
import logging
import math

from . import messages as M
from .background import cancel
from .model import MessageKind, TableKey
from .play import Play
from .runtime import Behind, Runtime
from .table import AWAY_TURNS, TableState, TableStatus

__all__ = ["Timers"]

log = logging.getLogger(__name__)

SURVEY_EVERY = 5.0  # seconds between looks for tables other processes opened, moved on or closed
PRUNE_EVERY, KEEP_REQUESTS = 86_400.0, 7 * 86_400.0  # once a day, the answers kept for requests over a week old go
RETRY_FIRST, RETRY_MOST = 0.5, 60.0  # a table still due after its timer acted waits this long, doubling, to that


class Timers:
    def __init__(self, rt: Runtime, play: Play) -> None:
        self.rt = rt
        self.play = play
        self._warned: dict[TableKey, tuple[int, float]] = {}
        self._task: asyncio.Task[None] | None = None
        self._survey_at = float("-inf")
        self._prune_at = float("-inf")
        # failures in a row, when to try again, and the table and its events they were for (a move since, or
        # another table in the channel, is due at its own time again)
        self._stuck: dict[TableKey, tuple[int, float, int, int]] = {}

    def deadline(self, table: TableState) -> float | None:
        due = self._due(table)
        stuck = self._stuck.get(table.key)
        if due is None or stuck is None or stuck[2:] != (table.id, table.events):
            return due
        return max(due, stuck[1])

    def _due(self, table: TableState) -> float | None:
        rt = self.rt
        settings = rt.cached_settings(table.key.server)
        if table.status == TableStatus.LOBBY:
            return table.opened_at + float(settings["lobby_timeout"])
        if table.status != TableStatus.PLAYING:
            return None
        if not table.live:
            return table.turn_started_at  # a round ended but the next was never dealt: due at once
        player = table.to_act
        if player is None:
            return None
        if table.is_computer(player):
            return table.turn_started_at + rt.computer_delay
        timeout = float(settings["turn_timeout"])
        if self._warned.get(table.key) != (table.id, table.turn_started_at):
            return table.turn_started_at + timeout / 2
        return table.turn_started_at + timeout

    def next_deadline(self) -> float | None:
        deadlines = [d for t in list(self.rt.tables.values()) for d in [self.deadline(t)] if d is not None]
        return min(deadlines) if deadlines else None

    async def tick(self) -> int:
        """Act on every due timer, tables concurrently.  Returns how many things happened."""
        now = self.rt.clock.now()
        if now >= self._survey_at:  # tables other processes hold may be due here (theirs may be gone)
            self._survey_at = now + SURVEY_EVERY
            try:
                if changed := await self.rt.survey():
                    log.info("caught up with %d tables other processes changed", changed)
            except Exception as exc:
                log.warning("could not look for tables other processes changed: %s: %s", type(exc).__name__, exc)
        if now >= self._prune_at:
            self._prune_at = now + PRUNE_EVERY
            try:
                if pruned := await self.rt.store.prune_requests(now - KEEP_REQUESTS):
                    log.info("forgot the answers of %d requests over a week old", pruned)
            except Exception as exc:
                log.warning("could not forget old requests' answers: %s: %s", type(exc).__name__, exc)
        due = [k for k, t in list(self.rt.tables.items()) if (d := self.deadline(t)) is not None and d <= now]
        done = await asyncio.gather(*(self._tick_table(k) for k in due), return_exceptions=True)
        total = 0
        for key, result in zip(due, done, strict=True):
            if isinstance(result, BaseException):
                # (the type at ERROR, its text at DEBUG: an error may quote a move, a card of a hand among them)
                log.error("the timer of table %s failed: %s", key, type(result).__name__)
                log.debug("the timer of table %s failed: %s", key, result, exc_info=result)
            else:
                total += result
            table = self.rt.tables.get(key)
            if table is not None and (d := self._due(table)) is not None and d <= now:
                # nothing moved it (the store refused, the deal failed): back off, not 20 tries a second
                before = self._stuck.get(key)
                failures = before[0] + 1 if before is not None and before[2:] == (table.id, table.events) else 1
                wait = min(RETRY_MOST, RETRY_FIRST * 2 ** min(failures - 1, 16))  # (2 ** 1024 overflowed a float)
                self._stuck[key] = (failures, now + wait, table.id, table.events)
            else:
                self._stuck.pop(key, None)
        return total

    async def _tick_table(self, key: TableKey) -> int:
        try:
            return await self._tick(key)
        except Behind:
            log.info("the timer of table %s fired in another process first", key)
            return 0

    async def _tick(self, key: TableKey) -> int:
        rt = self.rt
        settings = await rt.settings(key.server)
        async with rt.lock(key):
            table = rt.tables.get(key)
            if table is None:
                return 0
            deadline = self.deadline(table)
            now = rt.clock.now()
            if deadline is None or now < deadline:
                return 0
            if table.status == TableStatus.LOBBY:
                await self.play.lobby.close(table, None, M.LOBBY_TIMED_OUT)
                return 1
            player = table.to_act
            assert table.match is not None
            if not table.live or player is None:
                pass  # the follow-up deals it
            elif table.is_computer(player):
                await self.play.computer_move(table, player)
            elif self._warned.get(key) != (table.id, table.turn_started_at) and (
                    left := float(settings["turn_timeout"]) - (now - table.turn_started_at)) > 0:
                # (a warning due when the whole turn has passed — a restart long after, a lowered
                # turn_timeout — would say "0 seconds left": the timeout acts instead, below)
                self._warned[key] = (table.id, table.turn_started_at)
                if not await rt.claim(table, "warn"):
                    return 0  # another process warned, or the turn moved on there
                rt.post([M.table_message(table, M.time_warning(player, math.ceil(left)), MessageKind.WARNING)])
                return 1
            else:
                held = False
                gone = table.leaving(player)  # the move that ends the round, where the game has one
                for _ in range(3):  # one turn may be several moves: the card game's take, then declare
                    held = await self.play.apply(table, table.match.timeout_action(gone), timed_out=True, held=held)
                    if not table.live or table.to_act != player:
                        break
                if table.is_away(player) and player not in table.pending_leave and not table.closes_at_next_deal():
                    # gone: a table of people who all walked away played on for ever, moving their money
                    await self.play.lobby.sit_out(table, player, AWAY_TURNS)
        await self.play.after_change(key)
        return 1

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="liars-timers")

    async def stop(self) -> None:
        await cancel(self._task)
        self._task = None

    async def _loop(self) -> None:
        while True:
            try:
                await self.tick()
            except Exception:
                log.exception("timer tick failed")
            deadline = self.next_deadline()
            wait = 1.0 if deadline is None else min(1.0, max(0.0, deadline - self.rt.clock.now()))
            await self.rt.clock.sleep(max(wait, 0.05))
