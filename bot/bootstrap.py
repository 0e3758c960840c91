"""The composition root: the one place concrete adapters are chosen and wired to the service."""

from __future__ import annotations

from adapters.sqlite.store import SqliteStore, default_db_path

from .ports import Clock, Notifier
from .service import Service

__all__ = ["build_service"]


async def build_service(
    notifier: Notifier,
    *,
    db_path: str | None = None,
    clock: Clock | None = None,
    rng: object | None = None,
    computer_delay: float = 0.0,
    platform: str | None = None,
    synchronous: str = "FULL",
) -> Service:
    """Open the SQLite store (``LIARS_DB`` or ``./liars.sqlite3`` by default), reload open tables."""
    store = SqliteStore(db_path or default_db_path(), synchronous=synchronous)
    await store.open()
    service = Service(
        store,
        notifier,
        clock=clock,
        rng=rng,  # type: ignore[arg-type]
        computer_delay=computer_delay,
        platform=platform,
    )
    await service.start()
    return service
