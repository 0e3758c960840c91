"""A store's one writer task, shared by both stores (no SQL here: each store gives it its ``_write``).

**Group commit.**  A store hands each caller's writes (a *unit*: all stored, or none) to its
:class:`GroupWriter`.  The writer task takes every unit queued while the previous transaction ran and
writes them together in ONE transaction (the store's ``write``).  If that batch fails, its units are
written one by one, in order, so only the unit at fault fails; its caller gets the port's exception
(the store's ``translate``: a stale table, a request already answered …).

What is not a unit (erasing a server, a Slack install's write) the store runs itself, outside the
writer: on SQLite each is one call on aiosqlite's one thread, as a batch is, so none can get inside
another's transaction; on PostgreSQL each takes its own pooled connection.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Generic, TypeVar

from bot.background import cancel, spawn
from bot.ports import CommitUncertain

log = logging.getLogger(__name__)

__all__ = ["GroupWriter"]

U = TypeVar("U")


class GroupWriter(Generic[U]):
    """One store's writer task.  ``write(units)`` stores units in ONE transaction (or raises, storing
    none); ``translate(unit, error)`` is the exception the caller of a unit that failed alone gets."""

    def __init__(self, write: Callable[[Sequence[U]], Awaitable[None]],
                 translate: Callable[[U, Exception], Awaitable[BaseException]], *, name: str,
                 landed: Callable[[U, Exception], Awaitable[bool]] | None = None) -> None:
        self._write = write
        self._translate = translate
        self._landed = landed
        self._name = name
        self._queue: asyncio.Queue[tuple[U, asyncio.Future[Any]]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self.transactions = 0  # batch transactions run (group commit makes this fewer than the units)

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
            await self._write_batch(batch)

    async def _write_batch(self, batch: list[tuple[U, asyncio.Future[Any]]]) -> None:
        try:
            await self._write([unit for unit, _ in batch])
            self.transactions += 1
            for _, done in batch:
                _resolve(done, None)
        except Exception as failure:
            # One unit spoiled the batch: write them one by one, in order, so only that one fails.  A batch whose
            # connection was lost may have been stored all the same, its answer lost on the way back: a unit the
            # store finds stored is done (``landed``; CommitUncertain when the store cannot tell).
            unreachable = False
            for unit, done in batch:
                if unreachable:  # (each check would wait its own deadline: the writer held every later commit)
                    _resolve(done, CommitUncertain())
                    continue
                if self._landed is not None:
                    try:
                        stored = await self._landed(unit, failure)
                    except Exception as unknown:
                        log.warning("%s: a lost write could not be checked (%s)", self._name, type(unknown).__name__)
                        _resolve(done, CommitUncertain())
                        unreachable = True
                        continue
                    if stored:
                        _resolve(done, None)
                        continue
                try:
                    await self._write([unit])
                except Exception as exc:
                    _resolve(done, await self._translated(unit, exc))
                else:
                    self.transactions += 1
                    _resolve(done, None)
        finally:
            for _ in batch:
                self._queue.task_done()

    async def _translated(self, unit: U, exc: Exception) -> BaseException:
        """The port's exception for a unit that failed alone; the raw one if reading the stored state to
        translate it fails too (the writer must live on: every later commit waits on it)."""
        try:
            return await self._translate(unit, exc)
        except Exception as failure:
            log.warning("%s: could not translate a failed write (%s); passing on %s", self._name,
                        type(failure).__name__, type(exc).__name__)
            return exc


def _resolve(done: asyncio.Future[Any], error: BaseException | None) -> None:
    if done.done():  # the caller was cancelled
        return
    if error is None:
        done.set_result(None)
    else:
        done.set_exception(error)
