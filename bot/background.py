"""Background tasks whose failure is never lost: :func:`spawn` logs it once, with what the task was doing.

A task nobody awaits that ends with an exception is otherwise reported by asyncio only when it is freed
("Task exception was never retrieved", without the context needed to act on it).  ``spawn`` retrieves
the exception as the task ends and logs it at ERROR with ``what`` (a phrase: "attaching the count
picture in channel 42"), so the report names the work and comes at once.  Cancellation is not a
failure.  Privacy: ``what`` must not carry a message's text (a serial); name kinds and ids only.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["cancel", "spawn"]

log = logging.getLogger(__name__)

T = TypeVar("T")


def spawn(coro: Coroutine[Any, Any, T], what: str, *, name: str | None = None,
          logger: logging.Logger | None = None) -> asyncio.Task[T]:
    """Start ``coro`` as a task; if it fails, log it once (``logger``, by default this module's)."""
    task = asyncio.create_task(coro, name=name)
    out = logger or log

    def done(t: asyncio.Task[T]) -> None:
        if t.cancelled():
            return
        exc = t.exception()  # retrieved: asyncio will not report it again
        if exc is not None:
            out.error("%s failed: %s", what, type(exc).__name__, exc_info=exc)

    task.add_done_callback(done)
    return task


async def cancel(task: asyncio.Task[Any] | None) -> None:
    """Cancel a long-running task (a writer, a timer loop) and wait until it has stopped."""
    if task is None:
        return
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
