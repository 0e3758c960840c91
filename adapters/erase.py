"""``liars forget SERVER``: erase one ledger server's figures, for an admin (say, a workspace that
removed the app and asks for its data to go).

What goes: the server's ledger entries, settled rounds, settlements, its tables with their event logs
and answered requests, its players' names and its settings — every row under its key (``slack:T…``,
``discord:…``).  What stays: every other server's rows, and installations (removing the app deletes
those).  A server with an open table is refused: close its tables first (``/liars end``, or remove the
app, which closes them).

The ledger and the event logs are append-only (triggers refuse UPDATE and DELETE), so the erase is the
one place that lifts that, for these rows, inside ONE transaction that puts the triggers back: SQLite
drops and re-creates its two DELETE triggers, PostgreSQL disables and re-enables its two row triggers.
That is the stores' own work (``erase_server`` on each; the deletes in
:class:`adapters.storebase.Erase`); this module is the command's side of it.
"""

from __future__ import annotations

from typing import Any

from adapters.storebase import OpenTables

__all__ = ["OpenTables", "erase_server"]


async def erase_server(store: Any, server: str) -> dict[str, int]:
    """Erase every row of ``server`` in an open store (see the module's docstring); the rows erased per
    table.  Raises :class:`OpenTables` (nothing erased) if the server has an open table."""
    erase = getattr(store, "erase_server", None)
    if erase is None:
        raise TypeError(f"cannot erase a server in a {type(store).__name__}")
    result: dict[str, int] = await erase(server)
    return result
