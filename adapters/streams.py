"""What a store keeps in memory of each table's event stream, the same for every store (no SQL here).

* ``seq``: how many events this process last saw stored for a table, or is storing: the ``expect_seq`` a
  commit uses when its caller names none.
* ``new_tables``: the table ids this process reserved whose row is not yet written: a table's row is
  written by its first commit, in the same transaction as its first events.

A commit moves ``seq`` on before it is written (so commits queued behind it number their events after
its own) and puts everything back if it fails (:meth:`StreamBook.failed`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from bot.ports import StaleTable

__all__ = ["Pending", "StreamBook"]


@dataclass(frozen=True, slots=True)
class Pending:
    """One commit under way: its events are numbered ``first + 1``, ...; ``new_table`` is the table's row
    when this commit writes it."""

    table_id: int
    first: int
    before: int | None  # ``seq`` before this commit moved it on
    new_table: tuple[Any, ...] | None


class StreamBook:
    def __init__(self) -> None:
        self.seq: dict[int, int] = {}
        self.new_tables: dict[int, tuple[Any, ...]] = {}

    def reserve(self, table_id: int, row: tuple[Any, ...]) -> None:
        """A new table id: its ``row`` is written with its first events."""
        self.seq[table_id] = 0
        self.new_tables[table_id] = row

    def saw(self, table_id: int, count: int) -> None:
        """Remember the most events seen stored for a table (the default ``expect_seq``)."""
        if count > self.seq.get(table_id, -1):
            self.seq[table_id] = count

    async def begin(self, table_id: int, events: int, expect_seq: int | None,
                    stored_seq: Callable[[int], Awaitable[int]]) -> Pending:
        """Number a commit's events: after ``expect_seq``, else after what this process last saw, else
        after what is stored."""
        before = self.seq.get(table_id)
        first = expect_seq if expect_seq is not None else before if before is not None else await stored_seq(table_id)
        self.seq[table_id] = first + events
        return Pending(table_id, first, before, self.new_tables.pop(table_id, None))

    def failed(self, pending: Pending, exc: BaseException) -> None:
        """Nothing of the commit was stored: what is stored now (``StaleTable``), or what was known before."""
        table_id = pending.table_id
        if isinstance(exc, StaleTable):
            self.seq[table_id] = exc.stored_seq
        elif pending.before is None:
            self.seq.pop(table_id, None)
        else:
            self.seq[table_id] = pending.before
        if pending.new_table is not None and not isinstance(exc, StaleTable):
            self.new_tables[table_id] = pending.new_table  # the next try writes the row
