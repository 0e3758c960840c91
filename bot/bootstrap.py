"""The composition root: the one place concrete adapters are chosen and wired to the service."""

from __future__ import annotations

import asyncio
import gc
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from adapters.stores import make_store, store_url_from_env
from core.game import RandomSource

from .model import TableKey
from .ports import Clock, Notifier
from .service import Service

__all__ = ["build_service", "run_loop", "tune_runtime"]

T = TypeVar("T")


def tune_runtime() -> None:
    """Process settings for a long-running bot (``liars discord``/``slack``, the service bench).

    The cyclic garbage collector's full passes stall the event loop for tens of milliseconds once
    thousands of tables are open; the game's garbage is almost all freed by reference counting, so
    collect far less often, and leave everything loaded at start-up out of the passes.  A shorter GIL
    switch interval lets the SQLite thread commit promptly while the event loop is busy.
    """
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    sys.setswitchinterval(0.001)


def run_loop(main: Coroutine[Any, Any, T], *, uvloop: bool = True) -> T:
    """Run ``main`` on libuv's event loop (uvloop: the same asyncio, a good deal less CPU per request)
    where it is installed and wanted, else on asyncio's own."""
    if uvloop:
        try:
            import uvloop as fast
        except ImportError:  # pragma: no cover - not installed (Windows)
            pass
        else:
            return fast.run(main)
    return asyncio.run(main)


async def build_service(
    notifier: Notifier,
    *,
    db_path: str | None = None,
    clock: Clock | None = None,
    rng: RandomSource | None = None,
    computer_delay: float = 0.0,
    platform: str | None = None,
    holds: Callable[[TableKey], bool] | None = None,
    synchronous: str = "FULL",
) -> Service:
    """Open the store and reload open tables.  ``db_path`` is a SQLite path or a database URL
    (``postgresql://…``); by default ``LIARS_DATABASE_URL``, else ``LIARS_DB``, else ``./liars.sqlite3``."""
    store = make_store(db_path or store_url_from_env(), synchronous=synchronous)
    await store.open()
    service = Service(
        store,
        notifier,
        clock=clock,
        rng=rng,
        computer_delay=computer_delay,
        platform=platform,
        holds=holds,
    )
    await service.start()
    return service
